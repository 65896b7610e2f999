"""Deletion that cascades: a person, a session or a time span, with everything derived from it.

Order of work inside one transaction: what is to go is selected, vectors are zeroed (sqlite-vec would
otherwise leave the bytes in its chunk until reused), rows are deleted (triggers remove the FTS entries,
vectors, and every fact, relation and summary citing them; foreign keys remove keys and media rows), and
mentions of a forgotten person's name elsewhere are redacted and re-embedded. Afterwards the FTS index is
merged, media files are unlinked and the WAL is truncated, so nothing deleted stays searchable or on disk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app.errors import NotFoundError, StoreError
from app.identity.naming import AUTO_NAME
from app.store import names
from app.store.db import vector_blob
from app.store.memory import Memory
from app.store.migrations import TEXT_DIM

_LOGGER = logging.getLogger(__name__)
REDACTED = "[someone]"
_COUNTED = ("utterances", "people", "media", "facts", "relations", "summaries", "voice_keys", "face_keys")


@dataclass(frozen=True)
class ForgetResult:
    deleted: dict[str, int]  # rows gone per table
    redacted: int  # other utterances whose mention of the name was replaced
    anonymized: int  # utterances kept without their speaker
    names: tuple[str, ...] = ()  # the people gone: the one forgotten, and those who existed only through them
    utterances: tuple[int, ...] = ()  # ids of the utterances gone or stripped of their speaker
    sessions: tuple[int, ...] = ()  # ids of the sessions gone


def _counts(memory: Memory) -> dict[str, int]:
    return {t: int(memory.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in _COUNTED}


def _delete_utterances(memory: Memory, where: str, args: tuple) -> list[int]:
    con = memory.con
    ids = [int(r[0]) for r in con.execute(f"SELECT id FROM utterances WHERE {where}", args)]
    zero = vector_blob(np.zeros(TEXT_DIM, np.float32))
    con.executemany("UPDATE utterances_vec SET embedding = ? WHERE rowid = ?", [(zero, i) for i in ids])
    con.execute(f"DELETE FROM utterances WHERE {where}", args)
    return ids


_EMPTY = (
    "SELECT id, name FROM people WHERE id NOT IN (SELECT person_id FROM utterances WHERE person_id IS NOT NULL) "
    "AND id NOT IN (SELECT person_id FROM voice_keys) AND id NOT IN (SELECT person_id FROM face_keys) "
    "AND id NOT IN (SELECT person_id FROM facts WHERE person_id IS NOT NULL) "
    "AND id NOT IN (SELECT subject_id FROM relations) AND id NOT IN (SELECT object_id FROM relations)"
)


def _empty_people(memory: Memory) -> dict[int, str]:
    """People with nothing: no utterances, keys, facts or relations."""
    return {int(i): n for i, n in memory.con.execute(_EMPTY)}


def _drop_emptied_people(memory: Memory, before: dict[int, str]) -> list[str]:
    """People left with nothing by this deletion (not those who had nothing before it) existed only through
    what was deleted ("my daughter Lucy", said by the one forgotten): they go too. Their names."""
    gone = {i: n for i, n in _empty_people(memory).items() if i not in before}
    memory.con.executemany("DELETE FROM people WHERE id = ?", [(i,) for i in gone])
    return list(gone.values())


def _drop_empty_sessions(memory: Memory) -> list[int]:
    ids = [
        int(r[0])
        for r in memory.con.execute("SELECT id FROM sessions WHERE id NOT IN (SELECT session_id FROM utterances)")
    ]
    memory.con.executemany("DELETE FROM sessions WHERE id = ?", [(i,) for i in ids])
    return ids


def scrub(memory: Memory) -> None:
    """Make deletions final: merge the FTS index, unlink media files, rewrite the saved vector index without
    the deleted rows, truncate the WAL."""
    con = memory.con
    con.execute("INSERT INTO utterances_fts(utterances_fts) VALUES ('optimize')")
    memory.media.empty_trash()
    memory.dense.rewrite_file()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _finish(memory: Memory, before: dict[str, int], redacted: int = 0, anonymized: int = 0, **gone) -> ForgetResult:
    scrub(memory)
    after = _counts(memory)
    return ForgetResult(
        {t: before[t] - after[t] for t in _COUNTED},
        redacted,
        anonymized,
        **{k: tuple(v) for k, v in gone.items()},
    )


def _redact_name(memory: Memory, name: str, embed: Callable[[list[str]], np.ndarray]) -> int:
    """Replace the name (app/store/names.py's rule) in every remaining utterance (dropping that utterance's raw
    media) and delete the facts, summaries and relations that say it."""
    con = memory.con
    rows = con.execute("SELECT id, text FROM utterances WHERE mentions(text, ?)", (name,)).fetchall()
    if rows:
        # the raw audio and frames of those utterances still say the name: they go
        con.executemany("DELETE FROM media WHERE utterance_id = ?", [(uid,) for uid, _ in rows])
        texts = [names.replace(t, name, REDACTED) for _, t in rows]
        vectors = embed(texts)
        for (uid, _), text, vec in zip(rows, texts, vectors, strict=True):
            con.execute("UPDATE utterances SET text = ? WHERE id = ?", (text, uid))
            memory.search.set_vector(uid, vec)
    con.execute("DELETE FROM facts WHERE mentions(value, ?) OR mentions(key, ?)", (name, name))
    con.execute("DELETE FROM summaries WHERE mentions(text, ?)", (name,))
    con.execute("DELETE FROM relations WHERE mentions(relation, ?)", (name,))
    return len(rows)


def forget_person(
    memory: Memory, name: str, embed: Callable[[list[str]], np.ndarray], anonymize: bool = False
) -> ForgetResult:
    """The person, their keys, media, utterances (or only their link to them, with `anonymize`), every fact,
    relation and summary derived from those or about them; their name is redacted wherever else it was said."""
    pid = memory.people.person_id(name)
    if pid is None:
        raise NotFoundError(f"no person named {name!r}", "people")
    before = _counts(memory)
    anonymized = 0
    with memory.batch():
        con = memory.con
        empty = _empty_people(memory)
        theirs = [int(r[0]) for r in con.execute("SELECT id FROM utterances WHERE person_id = ?", (pid,))]
        if anonymize:
            sources = "SELECT id FROM utterances WHERE person_id = ?"
            for table, column in (
                ("fact_sources", "fact_id"),
                ("relation_sources", "relation_id"),
                ("summary_sources", "summary_id"),
            ):
                target = {"fact_sources": "facts", "relation_sources": "relations"}.get(table, "summaries")
                con.execute(
                    f"DELETE FROM {target} WHERE id IN (SELECT {column} FROM {table} "
                    f"WHERE utterance_id IN ({sources}))",
                    (pid,),
                )
            anonymized = con.execute("UPDATE utterances SET person_id = NULL WHERE person_id = ?", (pid,)).rowcount
        else:
            _delete_utterances(memory, "person_id = ?", (pid,))
        con.execute("DELETE FROM media WHERE person_id = ?", (pid,))
        # frames that show their face, whoever was speaking or whether they ever spoke
        con.execute("DELETE FROM media WHERE id IN (SELECT media_id FROM frame_faces WHERE person_id = ?)", (pid,))
        con.execute("DELETE FROM people WHERE id = ?", (pid,))
        redacted = 0 if AUTO_NAME.fullmatch(name) else _redact_name(memory, name, embed)
        sessions = _drop_empty_sessions(memory)
        emptied = _drop_emptied_people(memory, empty)
    return _finish(memory, before, redacted, anonymized, names=[name, *emptied], utterances=theirs, sessions=sessions)


def forget_session(memory: Memory, session_id: int) -> ForgetResult:
    """A session: its utterances, media and everything derived from them (identity keys included)."""
    if memory.con.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise NotFoundError(f"no session {session_id}", "sessions")
    before = _counts(memory)
    with memory.batch():
        empty = _empty_people(memory)
        gone = _delete_utterances(memory, "session_id = ?", (session_id,))
        memory.con.execute("DELETE FROM media WHERE session_id = ?", (session_id,))
        memory.con.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        emptied = _drop_emptied_people(memory, empty)
    return _finish(memory, before, names=emptied, utterances=gone, sessions=[session_id])


def forget_between(memory: Memory, t0: float, t1: float) -> ForgetResult:
    """Everything that happened in [t0, t1) (event time, seconds since the epoch), overlaps included."""
    if t1 <= t0:
        raise StoreError("the end of the span must come after its start")
    before = _counts(memory)
    with memory.batch():
        empty = _empty_people(memory)
        gone = _delete_utterances(memory, "t_end > ? AND t_start < ?", (t0, t1))
        memory.con.execute("DELETE FROM media WHERE t_end > ? AND t_start < ?", (t0, t1))
        memory.con.execute("DELETE FROM summaries WHERE t_end > ? AND t_start < ?", (t0, t1))
        sessions = _drop_empty_sessions(memory)
        emptied = _drop_emptied_people(memory, empty)
    return _finish(memory, before, names=emptied, utterances=gone, sessions=sessions)
