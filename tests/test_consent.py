"""Consent mode: people who have not consented leave no identity keys or raw media, and their words are
kept without them; a consenting person is remembered as usual."""

from __future__ import annotations

from dataclasses import replace

from app.store.keys import Secret
from app.store.memory import Memory
from tests.conftest import record


def _required(cfg, **session):
    out = replace(cfg, privacy=replace(cfg.privacy, consent="required"))
    return replace(out, session=replace(out.session, **session)) if session else out


def _open(cfg, db):
    return Memory.open(db, Secret(b"k", "test"), cfg.store)


def test_nobody_consented_nothing_biometric_is_kept(cfg, perception, conversation, tmp_path):
    db = tmp_path / "m.db"
    events, summary = record(_required(cfg), perception, conversation[0], db)
    stored = [(e.detail["person"], e.detail["by"], e.detail["kept"]) for e in events if e.kind == "stored"]
    assert stored == [
        ("guest_1", "new", False),
        ("guest_2", "new", False),
        ("guest_1", "voice", False),
        ("guest_2", "voice", False),
    ]  # recognised within the session
    with _open(cfg, db) as memory:
        stats = memory.stats()
        assert (stats["people"], stats["voice_keys"], stats["face_keys"], stats["media_files"]) == (0, 0, 0, 0)
        assert memory.vault.files() == []
        assert [u.person for u in memory.turns.all_utterances()] == [None] * 4 and stats["utterances"] == 4


def test_a_consenting_person_is_kept_the_others_are_dropped(cfg, perception, conversation, tmp_path):
    db = tmp_path / "m.db"
    record(cfg, perception, conversation[0], db)  # implicit mode: both become people with keys and media
    with _open(cfg, db) as memory:
        memory.people.set_consent("unknown_1", "given")
        before = memory.stats()
    assert before["voice_keys"] > 0 and before["media_files"] == 4
    events, _ = record(_required(cfg), perception, conversation[0], db)
    stored = [(e.detail["person"], e.detail["kept"]) for e in events if e.kind == "stored"]
    assert stored == [("unknown_1", True), ("guest_1", False), ("unknown_1", True), ("guest_1", False)]
    with _open(cfg, db) as memory:
        people = {p.name: p.id for p in memory.people.all()}
        keys = memory.people.voice_keys("resemblyzer")
        assert set(keys) == {people["unknown_1"]}  # unknown_2's keys were removed on start
        assert {m.person_id for m in memory.media.rows()} == {people["unknown_1"]}
        ids = [r["id"] for r in memory.rows("utterances")][4:]  # the second run (same event times as the first)
        second = memory.turns.utterances(ids)
        assert [second[i].person for i in ids] == ["unknown_1", None, "unknown_1", None]


def test_transient_identities_last_one_session(cfg, perception, conversation, tmp_path):
    events, _ = record(_required(cfg, gap_s=1.0), perception, conversation[0], tmp_path / "m.db")
    assert [e.detail["person"] for e in events if e.kind == "person_new"] == [f"guest_{i}" for i in (1, 2, 3, 4)]
