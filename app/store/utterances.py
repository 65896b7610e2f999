"""Sessions and their utterances, the turns of conversation: `Memory.turns`."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from app.store.db import transaction, vector_blob
from app.store.repository import Repository
from app.store.turns import Turn


@dataclass(frozen=True)
class StoredUtterance:
    id: int
    text: str
    person: str | None
    t_start: float  # seconds since the epoch
    t_end: float
    session_id: int
    asr_confidence: float


@dataclass(frozen=True)
class NewUtterance:
    session_id: int
    person_id: int | None
    text: str
    t_start: float
    t_end: float
    asr_confidence: float
    asr_model: str
    face_seen: bool
    embedding: np.ndarray  # text embedding, float32 unit vector
    overlapped: bool = False  # another voice spoke over it (its start or a listener's "mm-hm")


@dataclass(frozen=True)
class Presence:
    """One person's part of one conversation: who spoke in it, from when to when, and their lines there."""

    session_id: int
    person: str | None  # None: nobody known
    first_id: int  # their first line in it
    lines: int
    t_start: float  # their first line's start
    t_end: float  # their last line's end
    session_start: float
    session_end: float


class Utterances(Repository):
    """Sessions (a recording, a file, a chat) and the utterances said in them, each stored with its full-text
    and vector index entries."""

    def start_session(self, source: str, t_start: float) -> int:
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT INTO sessions(source, t_start, t_end) VALUES (?, ?, ?)", (source, t_start, t_start)
            )
        return int(cur.lastrowid)

    def has_source(self, source: str) -> bool:
        """Whether anything recorded from `source` (a file's name, "demo") is in the memory."""
        return self.con.execute("SELECT 1 FROM sessions WHERE source = ? LIMIT 1", (source,)).fetchone() is not None

    def split_session(self, session_id: int, utterance_ids: list[int], source: str) -> int:
        """Move these utterances (and their media) of a session into a new one; both spans are recomputed."""
        marks = ",".join("?" * len(utterance_ids))
        with transaction(self.con):
            t0, t1 = self.con.execute(
                f"SELECT min(t_start), max(t_end) FROM utterances WHERE id IN ({marks})", utterance_ids
            ).fetchone()
            new = int(
                self.con.execute(
                    "INSERT INTO sessions(source, t_start, t_end) VALUES (?, ?, ?)", (source, t0, t1)
                ).lastrowid
            )
            self.con.execute(f"UPDATE utterances SET session_id = ? WHERE id IN ({marks})", [new, *utterance_ids])
            self.con.execute(f"UPDATE media SET session_id = ? WHERE utterance_id IN ({marks})", [new, *utterance_ids])
            self.con.execute(
                "UPDATE sessions SET t_start = coalesce((SELECT min(t_start) FROM utterances WHERE session_id = ?), "
                "t_start), t_end = coalesce((SELECT max(t_end) FROM utterances WHERE session_id = ?), t_end) "
                "WHERE id = ?",
                (session_id, session_id, session_id),
            )
        return new

    def sessions(self) -> list[dict]:
        """Each session with its span, people and number of utterances."""
        rows = self.con.execute(
            "SELECT s.id, s.source, s.t_start, s.t_end, count(u.id), "
            "group_concat(DISTINCT p.name) FROM sessions s LEFT JOIN utterances u ON u.session_id = s.id "
            "LEFT JOIN people p ON p.id = u.person_id GROUP BY s.id ORDER BY s.t_start, s.id"
        )
        return [
            {
                "id": r[0],
                "source": r[1],
                "t_start": r[2],
                "t_end": r[3],
                "utterances": r[4],
                "people": sorted(r[5].split(",")) if r[5] else [],
            }
            for r in rows
        ]

    def add_utterance(self, u: NewUtterance) -> int:
        """Store one utterance with its FTS and vector index entries, in one transaction."""
        with self._m.batch():
            cur = self.con.execute(
                "INSERT INTO utterances(session_id, person_id, text, t_start, t_end, ingested_at, "
                "asr_confidence, asr_model, face_seen, overlapped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    u.session_id,
                    u.person_id,
                    u.text,
                    u.t_start,
                    u.t_end,
                    time.time(),
                    u.asr_confidence,
                    u.asr_model,
                    int(u.face_seen),
                    int(u.overlapped),
                ),
            )
            uid = int(cur.lastrowid)
            vector = vector_blob(u.embedding)
            self.con.execute("INSERT INTO utterances_vec(rowid, embedding) VALUES (?, ?)", (uid, vector))
            self.con.execute("INSERT INTO utterance_vectors(id, embedding) VALUES (?, ?)", (uid, vector))
            self.con.execute("UPDATE sessions SET t_end = max(t_end, ?) WHERE id = ?", (u.t_end, u.session_id))
            turn = Turn(u.session_id, u.person_id, u.t_start)
            self._m.after_commit(lambda: self._m.dense.added(uid, u.embedding, turn))
        return uid

    def give(self, person_id: int, utterance_ids: list[int]) -> None:
        """Utterances stored without a speaker (their voice was not yet anyone's) are `person_id`'s, with their
        media (the move is logged for the dense index by a trigger, as a split's)."""
        marks = ",".join("?" * len(utterance_ids))
        args = [person_id, *utterance_ids]
        with transaction(self.con):
            self.con.execute(f"UPDATE utterances SET person_id = ? WHERE person_id IS NULL AND id IN ({marks})", args)
            self.con.execute(
                f"UPDATE media SET person_id = ? WHERE person_id IS NULL AND utterance_id IN ({marks})", args
            )

    def utterances(self, ids: list[int]) -> dict[int, StoredUtterance]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.con.execute(
            "SELECT u.id, u.text, p.name, u.t_start, u.t_end, u.session_id, u.asr_confidence "
            f"FROM utterances u LEFT JOIN people p ON p.id = u.person_id WHERE u.id IN ({marks})",
            ids,
        )
        return {int(r[0]): StoredUtterance(int(r[0]), r[1], r[2], r[3], r[4], int(r[5]), r[6]) for r in rows}

    def session_speakers(self, session_ids: set[int]) -> dict[int, set[str]]:
        """session id -> the names of the people who spoke in it."""
        if not session_ids:
            return {}
        marks = ",".join("?" * len(session_ids))
        out: dict[int, set[str]] = {}
        for sid, name in self.con.execute(
            "SELECT DISTINCT u.session_id, p.name FROM utterances u JOIN people p ON p.id = u.person_id "
            f"WHERE u.session_id IN ({marks})",
            list(session_ids),
        ):
            out.setdefault(int(sid), set()).add(name)
        return out

    def presence(self, between: tuple[float, float] | None = None) -> list[Presence]:
        """Who spoke in each conversation (that began `between`, when given), in the order they were held; a
        request to the companion is nobody's part of a conversation."""
        where, args = ("AND s.t_start >= ? AND s.t_start < ?", list(between)) if between else ("", [])
        rows = self.con.execute(
            "SELECT u.session_id, p.name, min(u.id), count(*), min(u.t_start), max(u.t_end), s.t_start, s.t_end "
            "FROM utterances u JOIN sessions s ON s.id = u.session_id LEFT JOIN people p ON p.id = u.person_id "
            f"WHERE u.addressed = 0 {where} GROUP BY u.session_id, u.person_id "
            "ORDER BY s.t_start, s.id, min(u.t_start)",
            args,
        )
        return [Presence(int(r[0]), r[1], int(r[2]), int(r[3]), r[4], r[5], r[6], r[7]) for r in rows]

    def said_between(self, start: float, end: float, by: str | None = None) -> list[StoredUtterance]:
        """What was said from `start` to `end` (by `by` alone, when given), in order; no request to the companion."""
        where, args = ("AND p.name = ?", [by]) if by else ("", [])
        ids = [
            int(r[0])
            for r in self.con.execute(
                "SELECT u.id FROM utterances u LEFT JOIN people p ON p.id = u.person_id "
                f"WHERE u.addressed = 0 AND u.t_start >= ? AND u.t_start < ? {where} ORDER BY u.t_start, u.id",
                [start, end, *args],
            )
        ]
        found = self.utterances(ids)
        return [found[i] for i in ids if i in found]

    def mark_addressed(self, utterance_id: int) -> None:
        """The utterance was a request to the companion: kept, never evidence."""
        with transaction(self.con):
            self.con.execute("UPDATE utterances SET addressed = 1 WHERE id = ?", (utterance_id,))

    def addressed(self, ids: list[int]) -> set[int]:
        """Those of `ids` that were requests to the companion."""
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        rows = self.con.execute(f"SELECT id FROM utterances WHERE addressed = 1 AND id IN ({marks})", ids)
        return {int(r[0]) for r in rows}

    def latest(self, n: int) -> list[int]:
        """The ids of the `n` utterances said last that were no requests to the companion, the last one first."""
        rows = self.con.execute(
            "SELECT id FROM utterances WHERE addressed = 0 ORDER BY t_start DESC, id DESC LIMIT ?", (n,)
        )
        return [int(r[0]) for r in rows]

    def all_utterances(self) -> list[StoredUtterance]:
        ids = [int(r[0]) for r in self.con.execute("SELECT id FROM utterances ORDER BY t_start, id")]
        found = self.utterances(ids)
        return [found[i] for i in ids]
