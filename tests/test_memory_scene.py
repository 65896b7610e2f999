"""The social graph from speech, end to end: a spoken scene is recorded (VAD, ASR, voices, self-introductions,
the encrypted store), its memory is written in the recorder's background by the real local LLM, and
"which of my colleagues loves tennis?" is answered from it, through the colleague edge the scene created."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np

from app.audio.media import write_media
from app.cli import main
from tests.conftest import need_default_llm, need_models

# flite's voices as two people; the wearer is who they talk to
SCENE = (
    ("slt", "Hi, my name is Emily. I love playing tennis with my friends on the weekend."),
    ("rms", "Hello, my name is John. My colleague Emily works with me at the bank."),
    ("slt", "John prefers swimming in the lake near his house."),
    ("rms", "That is true. I swim there every morning before work."),
)


def _cli(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return json.loads(out.getvalue())


def test_colleague_who_loves_tennis_is_answered_from_speech(speech, tmp_path, monkeypatch):
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    need_default_llm()
    parts = [np.zeros(16000, np.float32)]
    for voice, text in SCENE:
        parts += [speech(text, voice), np.zeros(int(1.2 * 16000), np.float32)]
    wav = tmp_path / "scene.wav"
    write_media(wav, np.concatenate(parts))
    monkeypatch.setenv("APP_MEMORY_BACKGROUND", "true")  # written while recording, as a user's recorder does
    summary = _cli("run", "--source", str(wav), "--json")
    assert summary["utterances"] == len(SCENE) and summary["memory_jobs"] >= 1, summary
    assert summary["memory_error"] is None

    people = {p["name"] for p in _cli("people", "--json")["people"]}
    assert {"Emily", "John"} <= people  # named from their self-introductions
    relations = {
        (r["subject"], r["relation"], r["object"]) for r in _cli("people", "show", "John", "--json")["relations"]
    }
    assert ("Emily", "colleague", "John") in relations
    facts = _cli("facts", "--person", "Emily", "--json")["facts"]
    assert any("tennis" in f["value"].lower() and f["sources"] for f in facts), facts

    # "my" is the one who asks: John, whose colleague Emily is; asked by nobody known, it says so
    out = _cli("ask", "which of my colleagues loves tennis?", "--answer", "--as", "John", "--json")
    assert out["known"] and "Emily" in out["answer"], out
    tennis = {r["id"] for r in _cli("ask", "tennis", "--json")["results"] if r["person"] == "Emily"}
    cited = {c["id"] for c in out["citations"]}
    assert tennis & cited  # read from what Emily said ...
    assert any("colleague" in c["text"] for c in out["citations"])  # ... joined by the line that makes her one
    nobody = _cli("ask", "which of my colleagues loves tennis?", "--answer", "--json")
    assert not nobody["known"] and nobody["answer"] == "I don't know who is asking."

    # the device's owner is who "I" is when nobody else is named as asking (`enroll --me`)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["enroll", "--name", "John", "--me"]) == 0
    read = _cli("ask", "which of my colleagues loves tennis?", "--explain", "--json")
    assert (read["kind"], read["asker"], read["people"]) == ("who", "John", ["Emily"]), read
    owned = _cli("ask", "which of my colleagues loves tennis?", "--answer", "--json")
    assert owned["known"] and "Emily" in owned["answer"] and owned["kind"] == "who", owned
    met = _cli("ask", "how many people did I talk to today?", "--answer", "--json")
    assert met["known"] and "Emily" in met["answer"] and "John" not in met["answer"], met
