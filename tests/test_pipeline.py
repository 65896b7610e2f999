"""The whole recorder on generated recordings, compared as event sequences; bad input inside a run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.audio.media import write_media
from app.cli import main
from app.store.keys import Secret
from app.store.memory import Memory
from tests.conftest import TURNS, record, wer


def test_pipeline_event_sequence(cfg, perception, conversation, tmp_path):
    path, spans = conversation
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    speech = [e for e in events if e.kind == "speech"]
    stored = [e for e in events if e.kind == "stored"]
    assert [(e.detail["person"], e.detail["by"]) for e in stored] == [
        ("unknown_1", "new"),
        ("unknown_2", "new"),
        ("unknown_1", "voice"),
        ("unknown_2", "voice"),
    ]
    assert [e.detail["person"] for e in events if e.kind == "person_new"] == ["unknown_1", "unknown_2"]
    assert len(speech) == len(TURNS)
    for e, (t0, t1) in zip(speech, spans, strict=True):
        assert abs(e.t_s - t0) < 0.3 and abs(e.detail["end_s"] - t1) < 0.5
    assert not [e for e in events if e.kind in ("error", "skipped")]
    assert summary.utterances == 4 and summary.people == 2 and summary.new_people == 2
    assert summary.errors == []
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        rows = memory.turns.all_utterances()
    for row, (_, text), (t0, _) in zip(rows, TURNS, spans, strict=True):
        assert wer(text, row.text) <= 0.25, row.text
        assert abs(row.t_start - (1_750_000_000.0 + t0)) < 0.3  # event time = origin + stream time


def test_words_recognised_ahead_are_the_words_of_the_segment(cfg, perception, conversation, tmp_path):
    """Eager recognition (the companion's): a segment is recognised once the silence after it covers its pad;
    when it closes with that audio, those words are stored. The memory is the one recorded without it."""
    path, _ = conversation
    stored = {}
    for eager in (False, True):
        _, summary = record(cfg, perception, path, tmp_path / f"{eager}.db", eager)
        assert (summary.eager_used >= 1) if eager else (summary.eager_used == summary.eager_wasted == 0)
        with Memory.open(tmp_path / f"{eager}.db", Secret(b"k", "test"), cfg.store) as memory:
            stored[eager] = [(r.t_start, r.t_end, r.person, r.text) for r in memory.turns.all_utterances()]
    assert stored[True] == stored[False] and len(stored[True]) == len(TURNS)


def test_a_second_recording_recognizes_known_voices(cfg, perception, conversation, tmp_path):
    path, _ = conversation
    record(cfg, perception, path, tmp_path / "m.db")
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    assert summary.new_people == 0
    assert [e.detail["person"] for e in events if e.kind == "stored"] == ["unknown_1", "unknown_2"] * 2


def test_silence_makes_no_utterances_and_no_people(cfg, perception, tmp_path):
    path = tmp_path / "quiet.wav"
    rng = np.random.default_rng(1)
    write_media(path, (rng.standard_normal(5 * 16000) * 0.002).astype(np.float32))
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    assert summary.utterances == 0 and summary.people == 0 and summary.errors == []
    assert abs(summary.duration_s - 5.0) < 0.05


def _people(data: Path, capsys) -> dict[str, int]:
    capsys.readouterr()
    assert main(["--data-dir", str(data), "people", "--json"]) == 0
    return {p["name"]: p["utterances"] for p in json.loads(capsys.readouterr().out)["people"]}


def test_truncated_recording_keeps_what_was_heard(conversation, tmp_path, capsys, perception):
    path, spans = conversation
    cut = tmp_path / "cut.wav"
    data = path.read_bytes()
    keep = 44 + int((spans[2][0] + 0.3) * 16000) * 2  # header + the first two turns and a bit
    cut.write_bytes(data[:keep])
    rc = main(["--data-dir", str(tmp_path / "d"), "run", "--source", str(cut), "--json"])
    out = capsys.readouterr()
    assert rc == 4
    summary = json.loads(out.out)
    assert summary["utterances"] == 2 and len(summary["errors"]) == 1 and "truncated" in summary["errors"][0]
    assert _people(tmp_path / "d", capsys) == {"unknown_1": 1, "unknown_2": 1}


@pytest.mark.parametrize(
    ("name", "content", "message", "code"),
    [
        ("empty.wav", b"", "the file is empty", 4),
        ("noise.mkv", bytes(range(256)) * 200, "not a readable audio or video file", 4),
        ("nope.wav", None, "no such file", 4),
    ],
)
def test_bad_files_fail_in_one_line_and_lose_nothing(
    conversation, tmp_path, capsys, perception, name, content, message, code
):
    data = tmp_path / "d"
    assert main(["--data-dir", str(data), "run", "--source", str(conversation[0])]) == 0
    before = _people(data, capsys)
    bad = tmp_path / name
    if content is not None:
        bad.write_bytes(content)
    assert main(["--data-dir", str(data), "run", "--source", str(bad)]) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert _people(data, capsys) == before


def test_unsupported_sample_rate_in_one_line(tmp_path, capsys):
    import wave

    path = tmp_path / "low.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(4000)
        w.writeframes(np.zeros(8000, np.int16).tobytes())
    assert main(["run", "--source", str(path)]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {path}: unsupported sample rate 4000 Hz (need at least 8000 Hz)"]


def test_missing_model_names_the_command(conversation, tmp_path, capsys):
    rc = main(["--set", f"models.dir={tmp_path / 'empty'}", "run", "--source", str(conversation[0])])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 3 and len(err) == 1
    assert "missing" in err[0] and "python build.py" in err[0]
    assert not (tmp_path / "data" / "memory.db").exists()  # failed before anything was written


def test_a_failing_segment_is_logged_and_skipped_the_rest_is_kept(cfg, perception, conversation, tmp_path, caplog):
    """A recognizer that fails on its second call (a double wrapping the real one) must not stop the loop."""
    from dataclasses import replace

    calls = {"n": 0}
    real = perception.asr

    class Flaky:
        name = real.name

        def __call__(self, audio, words=False, hotwords=""):
            calls["n"] += 1
            if calls["n"] == 2:
                raise RuntimeError("decoder fault")
            return real(audio, words, hotwords)

    events, summary = record(cfg, replace(perception, asr=Flaky()), conversation[0], tmp_path / "m.db")
    assert summary.skipped == 1 and summary.utterances == 3 and summary.errors == []
    assert [e.detail.get("stage") for e in events if e.kind == "skipped"] == ["asr"]
    assert "speech recognition failed" in caplog.text


def test_no_raw_media_kept_when_retention_is_zero(cfg, perception, conversation, tmp_path):
    from dataclasses import replace

    no_media = replace(cfg, retention=replace(cfg.retention, raw_hours=0.0))
    _, summary = record(no_media, perception, conversation[0], tmp_path / "m.db")
    assert summary.utterances == 4
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        assert memory.media.rows() == [] and memory.vault.files() == []


def test_new_participants_after_a_short_pause_make_a_new_session(cfg, perception, speech, tmp_path, capsys):
    """Two conversations 3 s apart, between different people: the writer splits them once it has heard
    enough of the second one."""
    first = [
        ("slt", "Did you water the plants on the balcony this morning?"),
        ("rms", "Yes, and I moved the tomatoes into the sun as well."),
        ("slt", "Thank you, they looked rather dry yesterday evening."),
    ]
    second = [
        ("kal16", "Excuse me, is this the right platform for the train to Leeds?"),
        ("awb", "It is, but the train is running about ten minutes late today."),
        ("kal16", "Then I still have time to buy a coffee at the kiosk."),
    ]
    parts = [np.zeros(16000, np.float32)]
    for i, (voice, text) in enumerate(first + second):
        parts += [speech(text, voice), np.zeros(int((3.0 if i == len(first) - 1 else 0.8) * 16000), np.float32)]
    path = tmp_path / "two.wav"
    write_media(path, np.concatenate(parts))
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    assert summary.utterances == 6 and [e.kind for e in events].count("session_split") == 1
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        sessions = memory.turns.sessions()
    assert [(s["utterances"], len(s["people"])) for s in sessions] == [(3, 2), (3, 2)]
    assert not set(sessions[0]["people"]) & set(sessions[1]["people"])
