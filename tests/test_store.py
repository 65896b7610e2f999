"""The encrypted store: nothing readable on disk, wrong keys refused in one line, migrations, keys."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from app.errors import StoreError, StoreKeyError
from app.store import keys
from app.store.keys import Secret, resolve_secret
from app.store.memory import Memory
from app.store.migrations import MIGRATIONS, migrate, version
from app.store.utterances import NewUtterance

SECRET = Secret(b"correct horse battery staple", "test")
WORDS = ("xylophonist", "Quetzalcoatl", "Brunhilde")


def _unit(seed: int, dim: int = 384) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def _fill(memory: Memory, texts: list[str]) -> list[int]:
    session = memory.turns.start_session("test", 1_700_000_000.0)
    person = memory.people.add_person("Brunhilde").id
    memory.people.add_key("voice", person, _unit(99, 256), 3.0, cap=4, model="resemblyzer")
    return [
        memory.turns.add_utterance(
            NewUtterance(session, person, t, 1_700_000_000.0 + i, 1_700_000_001.0 + i, 0.9, "test", False, _unit(i))
        )
        for i, t in enumerate(texts)
    ]


def test_nothing_readable_in_the_database_or_its_wal(tmp_path, cfg):
    path = tmp_path / "memory.db"
    memory = Memory.open(path, SECRET, cfg.store, create=True)
    _fill(memory, [f"the {WORDS[0]} met {WORDS[1]} at noon", f"{WORDS[1]} plays tennis"] * 20)
    wal = path.with_name(path.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # checked while the WAL still holds the writes
    files = [path, wal, path.with_name(path.name + ".kdf.json")]
    blobs = b"".join(f.read_bytes() for f in files if f.exists())
    memory.close()
    blobs += path.read_bytes()
    for word in WORDS:
        for form in (word, word.lower()):
            assert form.encode() not in blobs, form
            assert form.encode("utf-16-le") not in blobs, form
    assert b"SQLite format 3" not in blobs


def test_wrong_key_is_one_clear_error(tmp_path, cfg):
    path = tmp_path / "memory.db"
    with Memory.open(path, SECRET, cfg.store, create=True) as memory:
        _fill(memory, ["hello there"])
    with pytest.raises(StoreKeyError) as err:
        Memory.open(path, Secret(b"not the key", "test"), cfg.store)
    assert "wrong key" in str(err.value) and "\n" not in str(err.value)
    with Memory.open(path, SECRET, cfg.store) as memory:  # the right key still works: nothing was damaged
        assert memory.stats()["utterances"] == 1


def test_a_file_that_is_not_a_database(tmp_path, cfg):
    path = tmp_path / "memory.db"
    path.write_bytes(b"just some text that is not an encrypted database" * 100)
    with pytest.raises(StoreKeyError, match="wrong key|not a memory"):
        Memory.open(path, SECRET, cfg.store)


def test_missing_database_is_not_created_by_readers(tmp_path, cfg):
    with pytest.raises(StoreError, match="no memory"):
        Memory.open(tmp_path / "memory.db", SECRET, cfg.store)
    assert not (tmp_path / "memory.db").exists()


def test_kdf_cost_travels_with_the_database(tmp_path, cfg):
    from dataclasses import replace

    path = tmp_path / "memory.db"
    with Memory.open(path, SECRET, replace(cfg.store, kdf_log2_n=11), create=True) as memory:
        _fill(memory, ["hello"])
    with Memory.open(path, SECRET, replace(cfg.store, kdf_log2_n=14)) as memory:  # config changed since
        assert memory.stats()["utterances"] == 1


def test_migrations_from_empty_and_idempotent(tmp_path, cfg):
    path = tmp_path / "memory.db"
    with Memory.open(path, SECRET, cfg.store, create=True) as memory:
        assert version(memory.con) == MIGRATIONS[-1][0]
        assert migrate(memory.con) == MIGRATIONS[-1][0]  # nothing left to apply
        rows = memory.con.execute("SELECT version FROM schema_migrations").fetchall()
        assert [r[0] for r in rows] == [m[0] for m in MIGRATIONS]


def test_deleting_an_utterance_removes_its_index_entries(tmp_path, cfg):
    with Memory.open(tmp_path / "memory.db", SECRET, cfg.store, create=True) as memory:
        ids = _fill(memory, ["the violinist sang", "a quiet morning"])
        assert memory.search.bm25_search(["violinist"], 5)[0][0] == ids[0]
        memory.con.execute("DELETE FROM utterances WHERE id = ?", (ids[0],))
        assert memory.search.bm25_search(["violinist"], 5) == []
        assert ids[0] not in [uid for uid, _ in memory.search.dense_search(_unit(0), 5)]


def test_bm25_keeps_the_rarest_words_within_its_postings_budget(tmp_path, cfg):
    texts = [f"common chatter {i}" for i in range(20)] + ["mid topic"] * 8 + ["rare mid topic", "rare again"]
    with Memory.open(tmp_path / "memory.db", SECRET, cfg.store, create=True) as memory:
        ids = _fill(memory, texts)
        words = ["common", "mid", "rare"]
        everything = {uid for uid, _ in memory.search.bm25_search(words, 50)}
        assert everything == set(ids[:20]) | set(ids[20:])  # no budget: every utterance holding any word
        # 2 hold "rare", 9 "mid", 20 "common": a budget of 12 takes rare + mid and leaves common out
        within = {uid for uid, _ in memory.search.bm25_search(words, 50, postings=12)}
        assert within == set(ids[20:])
        assert {uid for uid, _ in memory.search.bm25_search(words, 50, postings=5)} == set(ids[28:])  # rare alone
        assert memory.search.bm25_search(words, 50, postings=1) == []  # even the rarest is held by too many
        assert {uid for uid, _ in memory.search.bm25_search_async(words, 50, postings=12).result().ranked} == within
        assert memory.search.bm25_search(words, 50, postings=100) == memory.search.bm25_search(
            words, 50
        )  # a small memory


def test_people_are_numbered_and_keys_capped_by_quality(tmp_path, cfg):
    with Memory.open(tmp_path / "memory.db", SECRET, cfg.store, create=True) as memory:
        a, b = memory.people.add_person(), memory.people.add_person()
        assert (a.name, b.name) == ("unknown_1", "unknown_2")
        for q in (1.0, 5.0, 2.0, 4.0, 3.0):
            memory.people.add_key("voice", a.id, _unit(int(q), 256), q, cap=3, model="resemblyzer")
        kept = memory.con.execute(
            "SELECT quality FROM voice_keys WHERE person_id = ? ORDER BY quality", (a.id,)
        ).fetchall()
        assert [k[0] for k in kept] == [3.0, 4.0, 5.0]
        assert memory.people.voice_keys("resemblyzer")[a.id].shape == (3, 256)
        assert memory.people.voice_keys("another-encoder") == {}  # keys of another model are never mixed in


def test_key_sources_in_order(tmp_path, monkeypatch):
    key_file = tmp_path / "k"
    key_file.write_text("from the file\n")
    os.chmod(key_file, 0o600)
    monkeypatch.setenv("APP_KEY", "from env")
    assert resolve_secret(key_file).value == b"from env"
    monkeypatch.delenv("APP_KEY")
    assert resolve_secret(key_file).value == b"from the file"
    monkeypatch.setenv("APP_KEY_FILE", str(key_file))
    assert resolve_secret().source == f"key file {key_file}"
    monkeypatch.delenv("APP_KEY_FILE")
    with pytest.raises(StoreKeyError, match="no key"):
        resolve_secret()
    created = resolve_secret(create=True)  # a new memory gets a new random key, readable by its owner only
    path = keys.default_key_file()
    assert created.source == f"key file {path}" and len(path.read_text().strip()) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert resolve_secret().value == created.value
    assert "value" not in repr(created) and created.value.decode() not in repr(created)


def test_empty_key_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("APP_KEY")
    (tmp_path / "k").write_text("\n")
    with pytest.raises(StoreKeyError, match="empty"):
        resolve_secret(tmp_path / "k")


def test_default_kdf_is_salted_and_deterministic():
    k1 = keys.derive_key(SECRET, b"0" * 16, 15)  # N = 2**15, r = 8: 32 MiB of memory
    assert k1 == keys.derive_key(SECRET, b"0" * 16, 15) and len(k1) == 32
    assert k1 != keys.derive_key(SECRET, b"1" * 16, 15)


def test_migration_from_the_previous_schema_keeps_the_data(tmp_path, cfg, monkeypatch):
    from app.store import migrations
    from app.store.db import connect

    path = tmp_path / "memory.db"
    before_vector_rows = [m for m in MIGRATIONS if m[0] < 6]  # a memory made before migrations 6 and 7
    monkeypatch.setattr(migrations, "MIGRATIONS", before_vector_rows)
    con, _ = connect(path, SECRET, cfg.store, create=True)
    assert version(con) == 5
    con.execute("INSERT INTO sessions(id, source, t_start, t_end) VALUES (1, 'old', 0, 1)")
    con.execute(
        "INSERT INTO utterances(id, session_id, text, t_start, t_end, ingested_at, asr_confidence, "
        "asr_model) VALUES (7, 1, 'written before the upgrade', 0, 1, 0, 0.9, 'old')"
    )
    con.execute("INSERT INTO utterances_vec(rowid, embedding) VALUES (7, ?)", (_unit(7).tobytes(),))
    con.close()
    monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
    with Memory.open(path, SECRET, cfg.store) as memory:
        assert version(memory.con) == MIGRATIONS[-1][0]
        assert memory.turns.utterances([7])[7].text == "written before the upgrade"
        assert memory.search.bm25_search(["upgrade"], 1)[0][0] == 7
        assert np.array_equal(memory.search.vectors([7])[7], _unit(7))  # carried into the new vector table
        memory.turns.split_session(1, [7], "old")  # moved utterances are logged for the index (7)
        assert memory.con.execute("SELECT id FROM vec_changes").fetchall() == [(7,)]
