"""Speaker assignment: the calibrated voice threshold, each person's mean voice, which turns become keys, and
one real voice heard through the whole recorder as one person (skipped without the shared data)."""

from __future__ import annotations

import numpy as np
import pytest

from app.audio.media import read_audio, write_media
from app.config import IdentityConfig
from app.frames import Utterance
from app.identity.speakers import Decision, KeyBank, SpeakerAssigner, voice_threshold
from tests.conftest import record

CFG = IdentityConfig()


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def _voice(rng: np.random.Generator, centre: np.ndarray, spread: float) -> np.ndarray:
    return _unit(centre + spread * rng.standard_normal(len(centre)))


def _utt(t0: float, t1: float, voice: np.ndarray | None) -> Utterance:
    return Utterance("", t0, t1, 1.0, voice, None)


def test_the_threshold_asks_less_of_short_turns_and_of_people_heard_little():
    def at(turn_s: float, keyed_s: float) -> float:
        return float(voice_threshold(CFG, turn_s, np.array([keyed_s]))[0])

    assert at(6.0, 9.0) == pytest.approx(CFG.voice_threshold)
    assert at(2.0, 2.0) < at(6.0, 2.0) < at(6.0, 9.0) < at(10.0, 60.0)
    assert at(0.6, 9.0) == at(CFG.min_voice_s, 9.0)  # a turn too short to tell is held to the shortest bar
    assert 0.6 < at(2.0, 2.0) < 0.7 and 0.8 < at(10.0, 60.0) < 0.85


def test_a_person_is_matched_by_their_mean_voice_weighted_by_seconds():
    rng = np.random.default_rng(0)
    centre = rng.standard_normal(64)
    keys = np.stack([_voice(rng, centre, 0.12) for _ in range(3)])
    seconds = np.array([2.0, 8.0, 4.0], np.float32)
    bank = KeyBank({7: keys}, {7: seconds})
    mean, owners, keyed = bank.means()
    assert owners.tolist() == [7] and keyed.tolist() == [14.0]
    assert np.allclose(mean[0], _unit(seconds @ keys), atol=1e-6)
    bank.add(8, _voice(rng, -centre, 0.1), 3.0, cap=2)  # a change rebuilds the means
    assert bank.means()[1].tolist() == [7, 8]
    for w in (1.0, 5.0, 5.0):  # beyond the cap the shortest goes, as in the store; the newest of equals stays
        bank.add(8, _voice(rng, -centre, 0.1), w, cap=2)
    assert bank.weights[8].tolist() == [5.0, 5.0] and len(bank.get(8)) == 2


def test_one_noisy_voice_stays_one_person_and_another_voice_is_new():
    """Turns of one speaker scatter around their voice; each may be nearer another turn's scatter than the
    fixed cosine would allow, but the person's mean sharpens as keys join it."""
    rng = np.random.default_rng(1)
    mine, other = rng.standard_normal(256), rng.standard_normal(256)
    assigner = SpeakerAssigner(CFG, {}, {})
    people, previous, t = [], None, 0.0
    for _ in range(8):
        utt = _utt(t, t + 2.5, _voice(rng, mine, 0.55))
        d = assigner.decide(utt, previous)
        pid = d.person_id if d.by != "new" else len(set(people)) + 1
        if assigner.adds_voice_key(Decision(pid, d.by, d.voice_score), utt):
            assigner.remember("voice", pid, utt.voice_embedding, CFG.max_keys, 2.5)
        people.append(pid)
        previous, t = pid, t + 4.0
    assert set(people) == {1}
    keys = assigner.voice_keys.get(1)
    assert len(keys) > 2 and float(np.min(keys @ keys.T)) < CFG.voice_threshold  # turn to turn: unlike
    stranger = assigner.decide(_utt(t, t + 3.0, _voice(rng, other, 0.55)), 1)
    assert stranger.by == "new" and stranger.person_id is None


def test_which_turns_become_voice_keys():
    rng = np.random.default_rng(2)
    v = _voice(rng, rng.standard_normal(32), 0.0)
    assigner = SpeakerAssigner(CFG, {1: v[None]}, {})
    far = _voice(rng, rng.standard_normal(32), 0.0)
    assert assigner.adds_voice_key(Decision(None, "new", -1.0), _utt(0, 1.6, v))
    assert assigner.adds_voice_key(Decision(1, "voice", 0.8), _utt(0, 2.0, far))
    assert not assigner.adds_voice_key(Decision(1, "voice", 0.99), _utt(0, 2.0, v))  # nearly a key they have
    assert not assigner.adds_voice_key(Decision(1, "voice", 0.8), _utt(0, 1.0, far))  # too short to tell
    assert not assigner.adds_voice_key(Decision(1, "previous", -1.0), _utt(0, 3.0, far))
    assert not assigner.adds_voice_key(Decision(1, "voice", 0.8), _utt(0, 3.0, None))


def test_the_jfk_clip_is_one_person(cfg, perception, shared_data, tmp_path):
    """An 11-s 1961 recording cut by the VAD into four turns of 1.3-3 s: short, noisy voices of one man."""
    path = tmp_path / "jfk.wav"
    write_media(path, read_audio(shared_data / "asr_small_samples" / "whisper_jfk" / "jfk.flac"))
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    stored = [(e.detail["person"], e.detail["by"]) for e in events if e.kind == "stored"]
    assert len(stored) >= 3
    assert summary.people == 1 and summary.new_people == 1, stored


def test_ten_librispeech_readers_are_ten_people(cfg, perception, shared_data, tmp_path):
    """Two clips of each of the 10 readers, one reader after another, through the whole recorder."""
    from collections import Counter

    from app.evaluation.speakers import _speaker_clips, _units, back_to_back

    _, units = _units(shared_data / "librispeech_test_other_resemblyzer")
    audio, spans = back_to_back({reader: clips[:2] for reader, clips in _speaker_clips(units).items()})
    path = tmp_path / "readers.wav"
    write_media(path, audio)
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    heard = [
        (who, e.detail["person"])
        for e in events
        if e.kind == "stored" and e.detail["by"] in ("new", "voice")
        for a, b, who in spans
        if a - 0.5 <= e.t_s <= b
    ]
    owner = {reader: Counter(p for r, p in heard if r == reader).most_common(1)[0][0] for reader, _ in heard}
    assert summary.people == 10 and summary.new_people == 10
    assert len(owner) == 10 and len(set(owner.values())) == 10, owner  # each reader has a person of their own
