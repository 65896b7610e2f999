"""Where each utterance sits — its session, its speaker and its start time — by id, in RAM beside the
approximate vector index, so that a search over a large memory scores, filters and finds the turns around
its candidates without reading them from the store (at a million utterances those reads were the largest
cost of a question: ~250 random row reads, 12-17 ms on a page cache that does not hold the database)."""

from __future__ import annotations

import json
from typing import NamedTuple

import numpy as np

from app.store.db import in_chunks

SCAN = 256  # ids looked through on either side for a turn of the same session before asking the store
_ARRAYS = (("session", np.int64), ("person", np.int64), ("start", np.float64))


class Turn(NamedTuple):
    session: int
    person_id: int | None
    t_start: float  # seconds since the epoch


class Turns:
    """Three arrays indexed by utterance id (session -1: no such utterance; person -1: nobody known) and
    three by session id: its first and last utterance id ever seen (a deletion leaves them wider than the
    session, which only makes a scan look further) and its number of utterances now."""

    def __init__(self) -> None:
        self.session = np.full(0, -1, np.int64)
        self.person = np.full(0, -1, np.int64)
        self.start = np.zeros(0, np.float64)
        self.first = np.zeros(0, np.int64)  # by session id
        self.last = np.zeros(0, np.int64)
        self.size = np.zeros(0, np.int64)  # by session id: its utterances now (not saved: counted on load)

    def set(self, ids: np.ndarray, sessions: np.ndarray, people: np.ndarray, starts: np.ndarray) -> None:
        """Record (or correct) where these utterances sit; a person of -1 is nobody known."""
        if not len(ids):
            return
        ids, sessions = np.asarray(ids, np.int64), np.asarray(sessions, np.int64)
        self._grow_ids(int(ids.max()) + 1)
        self.remove(ids.tolist())
        self.session[ids], self.person[ids], self.start[ids] = sessions, people, starts
        top = int(sessions.max()) + 1
        if top > len(self.first):
            grown = max(top, 2 * len(self.first))
            self.first = np.concatenate([self.first, np.full(grown - len(self.first), np.iinfo(np.int64).max)])
            self.last = np.concatenate([self.last, np.full(grown - len(self.last), -1)])
            self.size = np.concatenate([self.size, np.zeros(grown - len(self.size), np.int64)])
        np.minimum.at(self.first, sessions, ids)
        np.maximum.at(self.last, sessions, ids)
        np.add.at(self.size, sessions, 1)

    def remove(self, ids: list[int]) -> None:
        uid = np.unique(self._existing(ids))
        np.subtract.at(self.size, self.session[uid], 1)
        self.session[uid] = -1

    def sessions(self) -> tuple[int, int]:
        """(sessions with any utterance, utterances)."""
        return int(np.count_nonzero(self.size)), int(self.size.sum())

    def sessions_of(self, ids: np.ndarray) -> np.ndarray:
        """The session of each of these utterances (-1 where there is none)."""
        return _lookup(self.session, ids, -1)

    def sizes(self, sessions: np.ndarray) -> np.ndarray:
        """The number of utterances in each of these sessions."""
        return _lookup(self.size, sessions, 0)

    def get(self, ids: list[int]) -> dict[int, Turn]:
        """Those of `ids` that exist, with where they sit."""
        uid = self._existing(ids)
        columns = (uid, self.session[uid], self.person[uid], self.start[uid])
        rows = zip(*(c.tolist() for c in columns), strict=True)
        return {u: Turn(s, None if p < 0 else p, t) for u, s, p, t in rows}

    def neighbours(self, ids: list[int]) -> tuple[dict[int, tuple[int | None, int | None]], list[int]]:
        """(the turns just before and after each of `ids` in its session, None at either end; the ids whose
        neighbour lies further than SCAN ids away, for the store to answer). Ids that do not exist are left
        out of both."""
        uid = self._existing(ids)
        session = self.session[uid]
        last = len(self.session) - 1
        sides = []
        for step, end in ((-1, self.first[session]), (1, self.last[session])):
            beside = np.clip(uid + step, 0, last)
            # the usual cases without a scan: the next id is of the same session, or this is the session's end
            found = np.where(self.session[beside] == session, beside, -2)
            found[uid == end] = -3
            slow = np.flatnonzero(found == -2)
            for i in slow.tolist():
                found[i] = self._scan(int(session[i]), int(uid[i]), step, int(end[i]))
            sides.append(found.tolist())
        out: dict[int, tuple[int | None, int | None]] = {}
        unsure = []
        for u, before, after in zip(uid.tolist(), *sides, strict=True):
            if before == -1 or after == -1:
                unsure.append(u)
            else:
                out[u] = (None if before == -3 else before, None if after == -3 else after)
        return out, unsure

    def _existing(self, ids: list[int]) -> np.ndarray:
        uid = np.asarray(ids, np.int64)
        uid = uid[(uid >= 0) & (uid < len(self.session))]
        return uid[self.session[uid] >= 0]

    def _scan(self, s: int, uid: int, step: int, end: int) -> int:
        """The nearest id of session `s` from `uid` towards `end` (exclusive of `uid`, inclusive of `end`):
        -3 when there is none, -1 when it is further than SCAN."""
        stop = end if abs(end - uid) <= SCAN else uid + step * SCAN
        lo, hi = (uid + 1, stop + 1) if step > 0 else (stop, uid)
        found = np.flatnonzero(self.session[lo:hi] == s)
        if len(found):
            return lo + int(found[0] if step > 0 else found[-1])
        return -3 if stop == end else -1

    def _grow_ids(self, size: int) -> None:
        if size <= len(self.session):
            return
        grown = max(size, 2 * len(self.session))
        pad = grown - len(self.session)
        self.session = np.concatenate([self.session, np.full(pad, -1, np.int64)])
        self.person = np.concatenate([self.person, np.full(pad, -1, np.int64)])
        self.start = np.concatenate([self.start, np.zeros(pad, np.float64)])

    def to_bytes(self) -> bytes:
        """A JSON line with the sizes, then the arrays."""
        arrays = [self.session, self.person, self.start, self.first, self.last]
        header = json.dumps({"ids": len(self.session), "sessions": len(self.first)}).encode()
        return header + b"\n" + b"".join(a.tobytes() for a in arrays)

    @classmethod
    def from_bytes(cls, data: bytes) -> Turns:
        header, _, body = data.partition(b"\n")
        sizes = json.loads(header)
        layout = [(name, dtype, sizes["ids"]) for name, dtype in _ARRAYS]
        layout += [("first", np.int64, sizes["sessions"]), ("last", np.int64, sizes["sessions"])]
        turns, offset = cls(), 0
        for name, dtype, count in layout:
            size = count * np.dtype(dtype).itemsize
            setattr(turns, name, np.frombuffer(body[offset : offset + size], dtype).copy())
            offset += size
        if offset != len(body):
            raise ValueError("the turn table's size does not match its header")
        alive = turns.session[turns.session >= 0]
        turns.size = np.bincount(alive, minlength=len(turns.first)).astype(np.int64)
        return turns


def _lookup(table: np.ndarray, index: np.ndarray, missing: int) -> np.ndarray:
    """table[index], with `missing` where the index is outside the table."""
    index = np.asarray(index, np.int64)
    inside = (index >= 0) & (index < len(table))
    return np.where(inside, table[np.where(inside, index, 0)], missing)


def read_turns(con, ids: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids, sessions, people with -1 for nobody known, start times) of these utterances from the store,
    or of every utterance when `ids` is None; those that do not exist are left out."""
    sql = "SELECT id, session_id, coalesce(person_id, -1), t_start FROM utterances"
    rows = con.execute(sql).fetchall() if ids is None else list(in_chunks(con, sql + " WHERE id IN ({marks})", ids))
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    table = np.array(rows, np.float64)
    return table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2].astype(np.int64), table[:, 3]
