"""`eval conversations`: the simulator's gold is consistent and deterministic, the scorer gives the values it must,
and one short conversation and its paused twin go through the real recorder (../shared/data: skipped without)."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from tests.conftest import MODELS, SHARED_DATA, need_models

VOICES = SHARED_DATA / "librispeech_test_other_resemblyzer"
EPS = 1e-6


@pytest.fixture(scope="module")
def voices():
    if not (VOICES / "manifest.csv").is_file():
        pytest.skip(f"shared datasets not found at {VOICES}")
    need_models("whisper-base")  # the silver words (cached after the first run)
    from app.evaluation.voices import Voices

    return Voices(VOICES, MODELS)


@pytest.fixture(scope="module")
def pair(voices):
    from app.evaluation.simulate import conversation

    return conversation(voices, 7, 3, "tuning", 16)


def _need_metrics() -> None:
    for module in ("pyannote.metrics", "meeteval", "whisper_normalizer"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[eval]')")


def test_groups_are_fixed_disjoint_and_hold_both_genders(voices):
    tuning, held_out = voices.group("tuning"), voices.group("held-out")
    assert len(tuning) == len(held_out) == 5 and not set(tuning) & set(held_out)
    for group in (tuning, held_out):
        assert {voices.genders[s] for s in group} == {"F", "M"}


def test_the_same_seed_makes_the_same_conversation(voices, pair):
    from app.evaluation.simulate import conversation

    again = conversation(voices, 7, 3, "tuning", 16)
    for a, b in zip(pair, again, strict=True):
        assert np.array_equal(a.audio, b.audio) and a.segments == b.segments and a.words == b.words
    other = conversation(voices, 8, 3, "tuning", 16)[0]
    assert other.words != pair[0].words
    noisy = conversation(voices, 7, 3, "tuning", 16, noisy=True)[0]  # the same turns in a room with noise
    assert noisy.segments == pair[0].segments and not np.array_equal(noisy.audio, pair[0].audio)
    assert set(pair[0].speakers) <= set(voices.group("tuning"))


def test_turns_overlap_only_as_drawn_and_backchannels_sit_in_others_turns(pair):
    conv = pair[0]
    turns = [t for t in conv.turns if t.kind == "turn"]
    assert len(turns) == 16 and {t.speaker for t in turns} == set(conv.speakers)
    for prev, t in zip(turns, turns[1:], strict=False):
        assert t.offset_s is not None and abs(t.start_s - prev.end_s - t.offset_s) < 0.01
        overlap = prev.end_s - t.start_s
        assert overlap <= 0.5 + 0.01 and overlap <= (prev.end_s - prev.start_s) / 2 + 0.01
        if overlap > 0:
            assert t.speaker != prev.speaker
    for t in conv.turns:
        if t.kind == "backchannel":
            hosts = [
                h for h in turns if h.speaker != t.speaker and h.start_s + 1.0 - EPS <= t.start_s < t.end_s <= h.end_s
            ]
            assert len(hosts) == 1
    grid = np.zeros(int(conv.duration_s * 1000) + 1, int)  # never three people at once
    for s in conv.segments:
        grid[int(s.start_s * 1000) : int(s.end_s * 1000)] += 1
    assert grid.max() <= 2


def test_words_lie_in_their_speakers_segments_and_the_paused_twin_has_the_same(pair):
    conv, twin = pair
    for c in pair:
        assert c.words and all(
            any(s.speaker == w.speaker and s.start_s - EPS <= w.start_s <= w.end_s <= s.end_s + EPS for s in c.segments)
            for w in c.words
        )
        assert np.all(np.isfinite(c.audio)) and np.max(np.abs(c.audio)) <= 1.0
    assert Counter((w.speaker, w.text) for w in conv.words) == Counter((w.speaker, w.text) for w in twin.words)
    for s in conv.speakers:  # each speaker says the same words in the same order
        assert [w.text for w in conv.words if w.speaker == s] == [w.text for w in twin.words if w.speaker == s]
    ordered = sorted(twin.turns, key=lambda t: t.start_s)
    for prev, t in zip(ordered, ordered[1:], strict=False):
        assert abs(t.start_s - prev.end_s - 1.2) < 0.01  # 1.2 s of silence between all, no overlap


def test_timing_is_conversational_over_a_few_seeds(voices):
    from app.evaluation.simulate import conversation

    offsets, backchannels = [], 0
    for seed in range(4):
        conv = conversation(voices, seed, 2, "tuning", 24)[0]
        turns = [t for t in conv.turns if t.kind == "turn"]
        offsets += [t.offset_s for p, t in zip(turns, turns[1:], strict=False) if t.speaker != p.speaker]
        backchannels += sum(t.kind == "backchannel" for t in conv.turns)
    offsets_a = np.array(offsets)
    assert np.mean(offsets_a < 0) >= 0.15  # at least the share of overlaps, none past 0.5 s
    assert offsets_a.min() >= -0.5 - EPS and 0.0 < np.median(offsets_a[offsets_a >= 0]) < 0.35
    assert np.sum(offsets_a >= 0.8) >= 2 and backchannels >= 4


def _with_words(conv, segments):
    from app.evaluation.diarization import Said

    return [
        Said(
            s.speaker,
            s.start_s,
            s.end_s,
            " ".join(
                w.text
                for w in conv.words
                if w.speaker == s.speaker and s.start_s <= (w.start_s + w.end_s) / 2 <= s.end_s
            ),
        )
        for s in segments
    ]


def test_the_gold_as_hypothesis_scores_zero(pair):
    _need_metrics()
    from app.evaluation.diarization import pooled, score

    conv = pair[0]
    s = score(conv, _with_words(conv, conv.segments))
    assert s.der < EPS and s.jer < EPS and s.cp_errors == 0 and s.wer is not None
    assert s.people == s.speakers == 3 and s.words > 50
    renamed = [type(x)(f"person {x.speaker}", x.start_s, x.end_s, x.text) for x in _with_words(conv, conv.segments)]
    assert score(conv, renamed).der < EPS and score(conv, renamed).cp_errors == 0  # names do not matter
    assert pooled([s, s])["der"] == 0.0 and pooled([s, s])["right_count"] == 1.0


def test_all_speech_given_to_one_person_is_the_confusion_it_must_be(pair):
    _need_metrics()
    from app.evaluation.diarization import Said, score

    conv = pair[0]
    ms = int(conv.duration_s * 1000) + 1  # counted here on a 1-ms grid, independently of pyannote
    own = {sp: np.zeros(ms, bool) for sp in conv.speakers}
    for s in conv.segments:
        own[s.speaker][round(s.start_s * 1000) : round(s.end_s * 1000)] = True
    time = {sp: own[sp].sum() / 1000 for sp in conv.speakers}
    total, best = sum(time.values()), max(time, key=time.get)
    speech = np.any(list(own.values()), axis=0)
    overlap = (np.sum(list(own.values()), axis=0) - 1).clip(0).sum() / 1000
    confusion = np.sum(speech & ~own[best]) / 1000
    s = score(conv, [Said("one", x.start_s, x.end_s) for x in conv.segments], words=False)
    assert s.der == pytest.approx((total - time[best]) / total, abs=2e-3)
    assert s.confusion_s == pytest.approx(confusion, abs=0.05) and s.missed_s == pytest.approx(overlap, abs=0.05)
    assert s.false_alarm_s < EPS and s.people == 1 and s.cp_errors is None


def test_cpwer_maps_people_to_speakers_and_counts_what_is_left():
    _need_metrics()
    from app.evaluation.diarization import cp_wer

    reference = {"a": "the cat sat on the mat", "b": "yes it did"}
    assert cp_wer(reference, {"x": "yes it did", "y": "The cat sat on the mat."}).errors == 0
    merged = cp_wer(reference, {"x": "the cat yes sat on it did the mat"})
    assert merged.errors == 2 * 3 and merged.length == 9  # b's words inserted into a's, and missing from b's


def test_one_short_conversation_and_its_twin_through_the_recorder(tmp_path, capsys, voices):
    """The CLI end to end: the real recorder, models and encrypted memory; --set reaches the recorder's config."""
    _need_metrics()
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    from app.cli import main

    out = tmp_path / "out"
    argv = ["eval", "conversations", "--speakers", "2", "--per", "1", "--turns", "6", "--seed", "2", "--clean"]
    argv += ["--json", "--out", str(out), "--set", "store.kdf_log2_n=10", "--set", "vad.max_segment_s=19"]
    assert main(argv) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["recorder"]["vad"]["max_segment_s"] == 19.0 and r["group"] == "tuning"
    (row,) = r["conversations"]
    for kind in ("conversational", "paused"):
        for key in ("der", "jer", "cpwer", "wer", "missed_s", "false_alarm_s", "confusion_s"):
            assert math.isfinite(row[kind][key])
        assert row[kind]["utterances"] >= 2 and row[kind]["speakers"] == 2
    assert row["paused"]["der"] < 0.2
    assert math.isfinite(row["oracle_cut"]["cpwer"]) and "cpwer_ratio" in r["pooled"]["2"]
    names = {p.name for p in (out / "conversations").iterdir()}
    for suffix in (".wav", ".gold.rttm", ".hyp.rttm", ".words.json"):
        assert f"{row['name']}{suffix}" in names and f"{row['name']}-paused{suffix}" in names
    assert (out / "conversations.json").is_file()


def test_a_folder_without_the_readers_is_one_line(tmp_path, capsys):
    from app.cli import main

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["eval", "conversations", "--data", str(empty), "--out", str(tmp_path / "out")]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "manifest.csv not found" in err[0]
    assert main(["eval", "conversations", "--speakers", "2,9", "--out", str(tmp_path / "out")]) == 2


def test_names_given_to_the_recognizer_never_cost_words(voices):
    """A 20-s stretch of two readers from a tuning conversation, with the names said so far ("San Francisco" read as
    two given names) given to Whisper as text said before: Whisper once kept only "The Pacific." of it. The reading
    with the names must hold the words (at least 2 a second), with their times, as the one without does."""
    need_models("whisper-base")
    from app.audio.asr import load_recognizer
    from app.evaluation.simulate import conversation

    conv, _ = conversation(voices, 0, 2, "tuning", 24, noisy=False)
    stretch = conv.audio[int(20.576 * 16000) : int(40.576 * 16000)]
    asr = load_recognizer("whisper-base", MODELS)
    plain = asr(stretch, words=True)
    named = asr(stretch, words=True, hotwords="San and Francisco.")
    assert len(plain.text.split()) >= 40
    assert len(named.text.split()) >= 40 and len(named.words) == len(named.text.split())


def test_a_real_recording_a_package_ships_is_read_with_its_speakers_names(tmp_path, capsys):
    """pyannote.audio's sample call (fetched by build.py from its wheel, sha256-pinned): its RTTM's speaker labels
    take the STM's names, the gold scored against itself is no error, and `eval conversations --real` records it
    through the whole recorder and scores it. Measured blind once (one person for the two), then read: the voices'
    pieces clustered again centred on the call's mean (app/identity/diarize.py) find both women, which is asserted,
    and Diane's introduction names her; its other figures are in README."""
    _need_metrics()
    need_models("pyannote-sample", "silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    from app.cli import main
    from app.evaluation.diarization import Said, score
    from app.evaluation.recordings import load

    conv = load(MODELS, "pyannote-sample")
    assert conv.speakers == ("Diane", "Sheila") and 29 < conv.duration_s < 31
    assert {s.speaker for s in conv.segments} == {"Diane", "Sheila"} and len(conv.segments) == 10
    assert [w.text for w in conv.words[:3]] == ["Hello?", "Hello?", "Oh,"]
    gold = [Said(s.speaker, s.start_s, s.end_s) for s in conv.segments]
    spoken = [Said(w.speaker, w.start_s, w.end_s, w.text) for w in conv.words]
    assert score(conv, gold, words=False).der < EPS and score(conv, spoken).cp_errors == 0

    out = tmp_path / "out"
    assert main(["eval", "conversations", "--real", "--json", "--out", str(out), "--set", "store.kdf_log2_n=10"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["recordings"]
    assert row["name"] == "pyannote-sample" and row["utterances"] >= 1 and not row["errors"]
    for key in ("der", "jer", "cpwer", "wer"):
        assert 0 <= row["score"][key] < 2
    assert set(row["people"].values()) == {"Diane", "Sheila"} and row["score"]["people"] == 2
    # "This is Diane in New Jersey" names Diane, and when the end's clustering gives that turn to the other voice
    # than the one heard at first, the name goes with it; the other woman, unnamed again, is named by her own "And
    # I'm Sheila and Texas" (so heard), which stayed with her voice: each is called by her own name
    assert row["people"] == {"Diane": "Diane", "Sheila": "Sheila"}, row["people"]
    assert (out / "conversations_real.json").is_file() and (
        out / "conversations" / "pyannote-sample.hyp.rttm"
    ).is_file()


def test_without_the_real_recording_the_evaluation_names_the_command_that_fetches_it(tmp_path):
    from app.errors import ModelError
    from app.evaluation.recordings import load

    with pytest.raises(ModelError, match=r"build\.py --download pyannote-sample"):
        load(tmp_path, "pyannote-sample")
