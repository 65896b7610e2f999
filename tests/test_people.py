"""People: named from what they say, renamed, merged, split, enrolled; bad enrolment input creates nobody."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.audio.media import write_media
from app.cli import main
from app.identity.naming import self_introduction
from app.store.keys import Secret
from app.store.memory import Memory
from tests.conftest import record


@pytest.mark.parametrize(
    ("heard", "name"),
    [
        ("hi my name is emily and i work as a nurse", "Emily"),
        ("nice to meet you i am john and i teach history", "John"),
        ("this is maria speaking", "Maria"),
        ("you can call me al", "Al"),
        ("i am allergic to peanuts", None),
        ("i am fine thanks", None),
        ("and i am today that john is my brother", None),  # "David", misheard
        ("my name is not important", None),
    ],
)
def test_self_introductions(heard, name):
    assert self_introduction(heard) == name


def test_the_recorder_names_people_who_introduce_themselves(cfg, perception, speech, tmp_path):
    turns = [
        ("slt", "Hello there, my name is Emily. I am a nurse."),
        ("rms", "Nice to meet you, I am John."),
        ("slt", "Do you also work at the hospital, John?"),
        ("rms", "No, I teach history at the school."),
    ]
    parts = [np.zeros(16000, np.float32)]
    for voice, text in turns:
        parts += [speech(text, voice), np.zeros(12000, np.float32)]
    write_media(tmp_path / "intro.wav", np.concatenate(parts))
    events, _ = record(cfg, perception, tmp_path / "intro.wav", tmp_path / "m.db")
    assert [(e.detail["was"], e.detail["person"]) for e in events if e.kind == "person_named"] == [
        ("unknown_1", "Emily"),
        ("unknown_2", "John"),
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        assert [u.person for u in memory.turns.all_utterances()] == ["Emily", "John", "Emily", "John"]


def _cli(capsys, *args):
    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err.strip().splitlines()


def test_rename_merge_split(conversation, cfg, perception, tmp_path, monkeypatch, capsys):
    db = tmp_path / "data" / "memory.db"
    monkeypatch.setenv("APP_KEY", "k")
    record(cfg, perception, conversation[0], db)
    assert _cli(capsys, "people", "rename", "unknown_1", "Ana")[0] == 0
    assert _cli(capsys, "people", "rename", "unknown_2", "Ana")[0] == 5  # taken: one clear line
    with Memory.open(db, Secret(b"k", "t"), cfg.store) as memory:
        ana = [u.id for u in memory.turns.all_utterances() if u.person == "Ana"]
        assert len(ana) == 2
    rc, out, _ = _cli(capsys, "people", "split", "Ana", "--utterances", str(ana[1]), "--into", "Bea")
    assert rc == 0 and "Bea" in out
    assert _cli(capsys, "people", "merge", "Ana", "Bea")[0] == 0
    people = json.loads(_cli(capsys, "people", "--json")[1])["people"]
    assert {p["name"]: p["utterances"] for p in people} == {"Ana": 2, "unknown_2": 2}
    assert _cli(capsys, "people", "merge", "Ana", "Ana")[0] == 5


def test_enrolled_people_are_recognised_by_voice_and_face(cfg, perception, speech, tmp_path, monkeypatch, capsys):
    import cv2

    from app.demo import face_cards, group_photo

    monkeypatch.setenv("APP_KEY", "k")
    sample = tmp_path / "emily.wav"
    write_media(sample, speech("This is how I sound when I read a few sentences out loud to the device.", "slt"))
    card = tmp_path / "emily.jpg"
    cv2.imwrite(str(card), face_cards(group_photo())[0])
    rc, out, _ = _cli(capsys, "enroll", "--name", "Emily", "--audio", str(sample), "--image", str(card))
    assert rc == 0 and "voice" in out and "face" in out
    later = tmp_path / "later.wav"
    write_media(
        later,
        np.concatenate(
            [
                np.zeros(8000, np.float32),
                speech("I went to the market this morning and bought apples and fresh bread.", "slt"),
            ]
        ),
    )
    events, summary = record(cfg, perception, later, tmp_path / "data" / "memory.db")
    assert summary.new_people == 0 and [e.detail["person"] for e in events if e.kind == "stored"] == ["Emily"]


@pytest.mark.parametrize("bad", ["blank image", "0.2 s clip", "silence", "unreadable image", "nothing"])
def test_bad_enrolment_input_creates_nobody(bad, speech, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("APP_KEY", "k")
    args = ["enroll", "--name", "Ghost"]
    if bad == "blank image":
        import cv2

        cv2.imwrite(str(tmp_path / "wall.jpg"), np.full((480, 640, 3), 120, np.uint8))
        args += ["--image", str(tmp_path / "wall.jpg")]
    elif bad == "unreadable image":
        (tmp_path / "x.jpg").write_bytes(b"not a picture")
        args += ["--image", str(tmp_path / "x.jpg")]
    elif bad in ("0.2 s clip", "silence"):
        audio = speech("Hi.", "slt")[:3200] if bad == "0.2 s clip" else np.zeros(32000, np.float32)
        write_media(tmp_path / "a.wav", audio)
        args += ["--audio", str(tmp_path / "a.wav")]
    rc, _, err = _cli(capsys, *args)
    assert rc == 4 and len(err) == 1 and err[0].startswith("error: ")
    assert not (tmp_path / "data" / "memory.db").exists()


def test_an_8khz_enrolment_works(speech, tmp_path, monkeypatch, capsys):
    import soxr

    monkeypatch.setenv("APP_KEY", "k")
    audio = soxr.resample(
        speech("A telephone recording is only eight kilohertz but still a voice.", "rms"), 16000, 8000
    )
    import wave

    with wave.open(str(tmp_path / "phone.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes((np.clip(audio, -1, 1) * 32767).astype(np.int16).tobytes())
    assert _cli(capsys, "enroll", "--name", "Caller", "--audio", str(tmp_path / "phone.wav"))[0] == 0


def test_a_name_given_by_mistake_goes_back_to_the_label(cfg, tmp_path):
    """A person named by mistake (an introduction the conversation's end gave to another voice) is called by their
    label again, unknown_N, with a "_" more when someone else was given that label as a name, as a new person is."""
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        first = m.people.add_person()
        m.people.rename_person(first.name, "Diane")
        assert m.people.unname("Diane") == f"unknown_{first.id}" and m.people.person_id("Diane") is None
        m.people.rename_person(f"unknown_{first.id}", "Diane")
        m.people.add_person(f"unknown_{first.id}")  # someone called so by hand
        assert m.people.unname("Diane") == f"unknown_{first.id}_"
