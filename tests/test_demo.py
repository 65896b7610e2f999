"""The main job end to end: the demo replayed through the CLI, then asked about, as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from tests.conftest import MODELS, need_default_llm, need_models

DEMO = MODELS / "demo"
# (question, index of the demo turn that answers it)
FACTS = (
    ("who is allergic to peanuts", 8),
    ("does anyone play tennis on Saturday", 3),
    ("trip to Paris for a birthday", 5),
    ("when is the meeting with the bank", 7),
    ("which colleague moved from Madrid", 10),
    ("who grew up in Boston", 2),
)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> tuple[Path, dict, dict]:
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    if not (DEMO / "demo.mkv").is_file():
        pytest.skip("the demo recording is missing (run `python3 build.py`)")
    data = tmp_path_factory.mktemp("demo-data")
    mp = pytest.MonkeyPatch()
    mp.setenv("APP_KEY", "demo test key")
    mp.setenv("APP_MEMORY_BACKGROUND", "true")  # the quick start's job: memory is written while it records
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["--data-dir", str(data), "run", "--source", "demo", "--json"])
    mp.undo()
    assert rc == 0
    return data, json.loads(out.getvalue()), json.loads((DEMO / "demo.json").read_text())


def _cli(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def _labels(data: Path, capsys) -> list[tuple[str, str]]:
    """(person label, text) of every stored utterance, in time order."""
    from app.config import load_config
    from app.store.keys import resolve_secret
    from app.store.memory import Memory

    with Memory.open(data / "memory.db", resolve_secret(), load_config().store) as memory:
        return [(u.person, u.text) for u in memory.turns.all_utterances()]


@pytest.fixture
def demo_key(monkeypatch):
    monkeypatch.setenv("APP_KEY", "demo test key")


def test_run_summary(demo_run):
    _, summary, script = demo_run
    assert set(summary) >= {"source", "duration_s", "speech_s", "utterances", "people", "real_time_factor"}
    assert summary["utterances"] == len(script["turns"]) and summary["people"] == 3
    assert abs(summary["duration_s"] - script["duration_s"]) < 0.1
    assert summary["errors"] == [] and summary["frames_analysed"] > 0


def test_memory_is_written_while_recording(demo_run, demo_key, capsys):
    need_default_llm()
    data, summary, _ = demo_run
    assert summary["memory_jobs"] >= 1 and summary["memory_error"] is None, summary
    facts = _cli(capsys, "--data-dir", str(data), "facts", "--json")["facts"]
    assert facts and all(f["sources"] for f in facts)
    assert any("peanut" in f["value"].lower() for f in facts)


def test_every_utterance_goes_to_its_speaker(demo_run, demo_key, capsys):
    data, _, script = demo_run
    stored = _labels(data, capsys)
    assert len(stored) == len(script["turns"])
    label_of: dict[str, str] = {}
    for (label, _), turn in zip(stored, script["turns"], strict=True):
        assert label_of.setdefault(turn["speaker"], label) == label, turn
    assert len(set(label_of.values())) == 3


def test_people_lists_them_with_counts(demo_run, demo_key, capsys):
    data, _, _ = demo_run
    people = _cli(capsys, "--data-dir", str(data), "people", "--json")["people"]
    assert sorted((p["name"], p["utterances"]) for p in people if p["utterances"]) == [
        ("David", 4),
        ("Emily", 4),
        ("John", 4),
    ]
    # people only mentioned ("my wife Sarah", "my daughter Lucy", "our new colleague Maria") are in the social
    # graph with no utterances of their own
    assert {p["name"] for p in people if not p["utterances"]} <= {"Sarah", "Lucy", "Maria"}
    assert all(set(p) == {"id", "name", "utterances"} for p in people)


@pytest.mark.parametrize(("question", "turn"), FACTS)
def test_ask_finds_the_fact_and_who_said_it(demo_run, demo_key, capsys, question, turn):
    data, _, script = demo_run
    stored = _labels(data, capsys)
    answer = _cli(capsys, "--data-dir", str(data), "ask", question, "--json")
    assert answer["query"] == question
    top3 = answer["results"][:3]
    assert all(set(r) == {"id", "text", "person", "t_start", "t_end", "session", "score"} for r in top3)
    want_label, want_text = stored[turn]
    assert any(r["text"] == want_text and r["person"] == want_label for r in top3), (question, top3)


def test_face_keys_were_learned(demo_run, demo_key, capsys):
    data, _, _ = demo_run
    report = _cli(capsys, "--data-dir", str(data), "doctor", "--json")
    assert report["database"]["state"] == "ok"
    assert report["database"]["face_keys"] >= 3 and report["database"]["voice_keys"] >= 3
    assert report["database"]["media_files"] == 2 * 12  # each utterance's speech and face frame, encrypted
    assert report["retention"]["audio_hours"] == 24.0


def test_no_demo_words_in_plaintext_on_disk(demo_run):
    data, _, script = demo_run
    blob = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
    for word in ("peanuts", "tennis", "emily", "madrid", "boston", "unknown_1"):
        assert word.encode() not in blob and word.capitalize().encode() not in blob, word


def test_wrong_key_is_one_line(demo_run, monkeypatch, capsys):
    data, _, _ = demo_run
    monkeypatch.setenv("APP_KEY", "not the demo key")
    assert main(["--data-dir", str(data), "ask", "tennis"]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "wrong key" in err[0]


def test_ask_answer_names_who_and_cites_what_they_said(demo_run, demo_key, capsys):
    need_default_llm()
    data, _, _ = demo_run
    stored = _labels(data, capsys)
    label, text = stored[8]  # "I am allergic to peanuts ..."
    out = _cli(capsys, "--data-dir", str(data), "ask", "who is allergic to peanuts", "--answer", "--json")
    assert set(out) >= {"answer", "known", "citations", "latency_ms", "tokens", "evidence", "chosen", "read"}
    assert out["known"] and label in out["answer"], out  # the speaker of the line that holds it
    assert [(c["person"], c["text"]) for c in out["citations"]] == [(label, text)]  # and that line alone
    assert all(c["id"] in out["chosen"] for c in out["citations"]) and set(out["chosen"]) <= set(out["evidence"])
    assert out["kind"] == "who"  # from the facts written: everyone they say it of, the model not asked
    read = _cli(capsys, "--data-dir", str(data), "ask", f"what is {label} allergic to", "--answer", "--json")
    assert read["known"] and "peanut" in read["answer"].lower() and read["kind"] == "lookup", read
    assert [c["text"] for c in read["citations"]] == [text]
    assert read["tokens"]["prompt"] > 0 and read["tokens"]["completion"] > 0  # read by the model from the line
    nothing = _cli(capsys, "--data-dir", str(data), "ask", "what car does John drive", "--answer", "--json")
    assert not nothing["known"] and nothing["answer"] == "I don't know." and nothing["citations"] == []


def test_ask_answer_streams_to_the_terminal(demo_run, demo_key, capsys):
    need_default_llm()
    data, _, _ = demo_run
    capsys.readouterr()
    assert main(["--data-dir", str(data), "ask", "when is the meeting with the bank", "--answer"]) == 0
    lines = capsys.readouterr().out.rstrip().splitlines()
    # the date is worked out by code from "on Monday" said on Thursday 14 May 2026, never the day it was said
    assert "18 May" in lines[0] and "14 May" not in lines[0], lines
    assert len(lines) == 2 and lines[1].startswith("  [") and "meeting with the bank" in lines[1], lines
