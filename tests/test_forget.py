"""Deletion that cascades and leaves no trace; export round-trips; purge; rekey (also cut short)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.errors import StoreError, StoreKeyError
from app.store.export import export
from app.store.forget import forget_between, forget_person, forget_session
from app.store.keys import Secret
from app.store.lifecycle import purge, rekey
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from app.store.vault import RESEAL_SUFFIX

SECRET = Secret(b"forget test key", "test")
T0 = 1_750_000_000.0
SECRET_WORDS = ("brunhilde", "xylophone", "quetzal")  # said by or about the person to forget


@pytest.fixture
def world(tmp_path, cfg, perception):
    """Brunhilde and Siegfried over two sessions, with keys, media, facts, relations and summaries."""
    memory = Memory.open(tmp_path / "data" / "memory.db", SECRET, cfg.store, create=True)
    embed = perception.text
    brun, sieg = memory.people.add_person("Brunhilde").id, memory.people.add_person("Siegfried").id
    s1, s2 = memory.turns.start_session("test", T0), memory.turns.start_session("test", T0 + 3600)
    said = [
        (s1, brun, "I play the xylophone every morning"),
        (s1, sieg, "Brunhilde plays too loudly"),
        (s1, sieg, "I repaired the garden fence today"),
        (s2, brun, "my quetzal feather is on the shelf"),
        (s2, sieg, "the bakery opens at seven"),
    ]
    ids = []
    for i, ((session, pid, text), vec) in enumerate(zip(said, embed([t for *_, t in said]), strict=True)):
        t = T0 + (0 if session == s1 else 3600) + 10 * i
        uid = memory.turns.add_utterance(NewUtterance(session, pid, text, t, t + 3, 0.9, "test", False, vec))
        ids.append(uid)
        memory.people.add_key("voice", pid, np.ones(256, np.float32) / 16, 3.0, 8, "resemblyzer", uid)
        memory.media.add_media(
            "audio", f"raw audio of utterance {uid}: {text}".encode(), t, t + 3, 3600, session, pid, uid
        )
    memory.derived.add_fact(brun, "preference", "instrument", "xylophone", [ids[0]])
    mixed = memory.derived.add_fact(sieg, "opinion", "neighbour", "plays the xylophone too loudly", [ids[0], ids[1]])
    kept_fact = memory.derived.add_fact(sieg, "fact", "fence", "repaired", [ids[2]])
    memory.derived.add_relation(sieg, "neighbour", brun, [ids[1]])
    s_mixed = memory.derived.add_summary(1, T0, T0 + 30, "Music and a fence.", utterances=[ids[0], ids[2]])
    memory.derived.add_summary(2, T0, T0 + 7200, "A day of neighbours.", children=[s_mixed])
    kept_summary = memory.derived.add_summary(1, T0 + 3600, T0 + 3700, "Bakery hours.", utterances=[ids[4]])
    yield {
        "memory": memory,
        "ids": ids,
        "brun": brun,
        "sieg": sieg,
        "s1": s1,
        "s2": s2,
        "embed": embed,
        "mixed_fact": mixed,
        "kept_fact": kept_fact,
        "kept_summary": kept_summary,
        "vectors": {uid: v for uid, v in zip(ids, embed([t for *_, t in said]), strict=True)},
    }
    memory.close()


def traces(memory: Memory, words, vectors=()) -> list[str]:
    """Where any of `words` (or the exact bytes of `vectors`) still appears: every table's cells (shadow
    tables of the FTS and vector indexes included), the FTS vocabulary, the vector index, the media files."""
    con, found = memory.con, []
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        for row in con.execute(f'SELECT * FROM "{table}"'):
            for cell in row:
                blob = cell if isinstance(cell, bytes) else str(cell).encode()
                found += [f"{table}: {w}" for w in words if w.encode() in blob.lower()]
                found += [f"{table}: a deleted vector" for v in vectors if v.tobytes()[:64] in blob]
    con.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'utterances_fts', 'row')")
    terms = {t for (t,) in con.execute("SELECT term FROM temp.vocab")}
    found += [f"fts vocabulary: {w}" for w in words if any(w in t for t in terms)]
    for v in vectors:
        hit = memory.search.dense_search(v, 1)
        if hit and hit[0][1] < 1e-4:
            found.append("vector index: a deleted vector is still retrievable")
    for name in memory.vault.files():
        found += [f"media {name}: {w}" for w in words if w.encode() in memory.vault.get(name).lower()]
    return found


def test_forget_person_leaves_no_trace_and_spares_the_rest(world):
    memory, ids = world["memory"], world["ids"]
    gone = [world["vectors"][ids[0]], world["vectors"][ids[3]]]
    assert traces(memory, SECRET_WORDS, gone)  # the check does find them before
    result = forget_person(memory, "Brunhilde", world["embed"])
    assert traces(memory, SECRET_WORDS, gone) == []
    assert result.deleted["utterances"] == 2 and result.deleted["people"] == 1 and result.redacted == 1
    assert result.deleted["facts"] == 2 and result.deleted["relations"] == 1 and result.deleted["summaries"] == 2
    con = memory.con
    assert [r[0] for r in con.execute("SELECT id FROM facts")] == [world["kept_fact"]]
    assert [r[0] for r in con.execute("SELECT id FROM summaries")] == [world["kept_summary"]]
    assert con.execute("SELECT count(*) FROM rederive").fetchone()[0] == 2  # to be rebuilt from what is left
    texts = sorted(u.text for u in memory.turns.all_utterances())
    assert "[someone] plays too loudly" in texts and len(texts) == 3
    hit = memory.search.bm25_search(["someone"], 5)
    assert hit and memory.turns.utterances([hit[0][0]])[hit[0][0]].person == "Siegfried"
    assert len(memory.media.rows()) == 2  # Siegfried's own, less the clip in which he said her name
    assert set(memory.people.voice_keys("resemblyzer")) == {world["sieg"]}


def test_forget_person_anonymized_keeps_words_without_them(world):
    memory = world["memory"]
    result = forget_person(memory, "Brunhilde", world["embed"], anonymize=True)
    assert result.anonymized == 2 and result.deleted["utterances"] == 0
    rows = memory.turns.all_utterances()
    assert {u.person for u in rows if "xylophone" in u.text} == {None}
    assert traces(memory, ("brunhilde",)) == []  # the name is gone everywhere
    assert memory.con.execute("SELECT count(*) FROM facts").fetchone()[0] == 1  # derived rows went anyway
    assert memory.media.rows("person_id IS NULL") == [] and len(memory.media.rows()) == 2


def test_forget_session_and_span(world):
    memory = world["memory"]
    result = forget_session(memory, world["s2"])
    assert result.deleted["utterances"] == 2 and result.deleted["voice_keys"] == 2
    assert traces(memory, ("quetzal", "bakery")) == []
    result = forget_between(memory, T0 + 5, T0 + 25)  # the 2nd and 3rd utterance of session 1
    assert result.deleted["utterances"] == 2 and [u.text for u in memory.turns.all_utterances()] == [
        "I play the xylophone every morning"
    ]
    assert traces(memory, ("fence", "loudly")) == []
    with pytest.raises(StoreError, match="no session"):
        forget_session(memory, 999)
    with pytest.raises(StoreError, match="no person"):
        forget_person(memory, "Nobody", world["embed"])


def test_export_round_trips(world, tmp_path):
    memory = world["memory"]
    counts = export(memory, tmp_path / "out")
    doc = json.loads((tmp_path / "out" / "memory.json").read_text())
    assert [u["text"] for u in doc["utterances"]] == [u.text for u in memory.turns.all_utterances()]
    assert counts["utterances"] == 5 and counts["media"] == 5 and counts["facts"] == 3
    assert {f["value"]: f["source_utterances"] for f in doc["facts"]}["repaired"] == [world["ids"][2]]
    for m in doc["media"]:
        original = memory.vault.get(memory.media.rows("id = ?", (m["id"],))[0].path)
        assert (tmp_path / "out" / m["file"]).read_bytes() == original
    assert "**Siegfried**: Brunhilde plays too loudly" in (tmp_path / "out" / "transcript.md").read_text()
    one = export(memory, tmp_path / "one", person="Siegfried")
    doc = json.loads((tmp_path / "one" / "memory.json").read_text())
    assert one["utterances"] == 3 and {u["person"] for u in doc["utterances"]} == {"Siegfried"}
    assert one["media"] == 3 and [p["name"] for p in doc["people"]] == ["Siegfried"]


def test_the_plaintext_export_is_the_owners_alone(world, tmp_path):
    (tmp_path / "shared").mkdir(mode=0o755)  # even into a folder that others could read before
    export(world["memory"], tmp_path / "shared")
    out = tmp_path / "shared"
    folders = [out, *[p for p in out.rglob("*") if p.is_dir()]]
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o777 == 0o600 for p in files), [oct(p.stat().st_mode) for p in files]
    assert all(p.stat().st_mode & 0o777 == 0o700 for p in folders)


def test_rekey_and_purge(world, cfg):
    memory = world["memory"]
    path = memory.path
    assert rekey(memory, Secret(b"the new key", "test"), cfg.store) == 5
    memory.close()
    with pytest.raises(StoreKeyError):
        Memory.open(path, SECRET, cfg.store)
    with Memory.open(path, Secret(b"the new key", "test"), cfg.store) as again:
        assert all(again.vault.get(m.path).startswith(b"raw audio") for m in again.media.rows())
    gone = purge(path)
    assert not path.exists() and not (path.parent / "media").exists() and len(gone) >= 2


@pytest.mark.parametrize("crash", ["before the database", "after the database"])
def test_rekey_cut_short_is_completed_or_undone(world, cfg, crash):
    memory = world["memory"]
    path, new = memory.path, Secret(b"the new key", "test")
    from app.store.db import kdf_cost
    from app.store.keys import SALT_BYTES, derive_key
    from app.store.vault import MediaVault, media_key

    key = derive_key(new, path.read_bytes()[:SALT_BYTES], kdf_cost(path, cfg.store, exists=True))
    target = MediaVault(memory.vault.folder, media_key(key))
    for m in memory.media.rows():  # the first phase of rekey, then the process dies
        memory.vault.reseal(m.path, target)
    if crash == "after the database":
        memory.con.execute(f"PRAGMA rekey = \"x'{key.hex()}'\"")
    memory.close()
    secret = SECRET if crash == "before the database" else new
    with Memory.open(path, secret, cfg.store) as again:
        assert not list(again.vault.folder.glob("*" + RESEAL_SUFFIX))
        assert all(again.vault.get(m.path).startswith(b"raw audio") for m in again.media.rows())


def _cli(capsys, *args: str) -> tuple[int, str, list[str]]:
    from app.cli import main

    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err.strip().splitlines()


def test_memory_commands_from_the_cli(world, monkeypatch, capsys, tmp_path):
    world["memory"].close()
    monkeypatch.setenv("APP_KEY", SECRET.value.decode())
    rc, out, _ = _cli(capsys, "forget", "--person", "Brunhilde", "--json")
    assert rc == 0 and json.loads(out)["deleted"]["utterances"] == 2
    assert _cli(capsys, "forget", "--person", "Nobody")[2] == [
        "error: no person named 'Nobody' (see `python -m app people`)"
    ]
    rc, _, err = _cli(capsys, "forget", "--between", "yesterday", "today")
    assert rc == 5 and len(err) == 1 and "not a time" in err[0]
    rc, out, _ = _cli(capsys, "export", "--out", str(tmp_path / "x"), "--json")
    assert rc == 0 and json.loads(out)["utterances"] == 3
    rc, _, _ = _cli(capsys, "consent", "Siegfried", "given")
    assert rc == 0
    new_key = tmp_path / "new.key"
    rc, out, _ = _cli(capsys, "rekey", "--generate", str(new_key))
    assert rc == 0 and str(new_key) in out
    assert _cli(capsys, "people")[0] == 6  # the old key no longer opens it
    monkeypatch.setenv("APP_KEY", new_key.read_text().strip())
    assert _cli(capsys, "people")[1].split()[1:3] == ["Siegfried", "3"]
    assert _cli(capsys, "purge")[0] == 5  # refuses without --yes
    assert _cli(capsys, "purge", "--yes")[0] == 0
    assert not (tmp_path / "data" / "memory.db").exists()
