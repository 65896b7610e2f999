"""What the web page reads: the timeline by day, each session's lines with their audio clip, people with
their identity keys and face frame, storage, and what forgetting someone would delete. Read-only queries
that return dataclasses; every change goes through the memory's own methods."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from app.identity.naming import AUTO_NAME
from app.store.memory import Memory


@dataclass(frozen=True)
class Day:
    day: dt.date  # local calendar day
    sessions: int
    utterances: int


@dataclass(frozen=True)
class SessionRow:
    id: int
    source: str
    t_start: float  # seconds since the epoch
    t_end: float
    utterances: int
    people: tuple[tuple[int | None, str | None], ...]  # (id, name) of who spoke, None for someone forgotten
    media: int  # raw media files still kept


@dataclass(frozen=True)
class Line:
    id: int
    session_id: int
    person_id: int | None
    person: str | None
    text: str
    t_start: float  # seconds since the epoch
    t_end: float
    audio: int | None  # media id of its speech clip while it is kept


@dataclass(frozen=True)
class PersonRow:
    id: int
    name: str
    consent: str
    utterances: int
    last_seen: float | None  # seconds since the epoch
    voice_keys: int
    face_keys: int
    face_frame: int | None  # media id of a kept frame their face key (else their latest frame) came from


@dataclass(frozen=True)
class MediaFile:
    id: int
    kind: str  # audio | frame
    name: str  # file name in the vault
    person_id: int | None


def _local_midnight(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day).astimezone().timestamp()


def day_span(day: dt.date) -> tuple[float, float]:
    """The epoch seconds [start, end) of a local calendar day."""
    return _local_midnight(day), _local_midnight(day + dt.timedelta(days=1))


def days(memory: Memory, limit: int, before: dt.date | None = None) -> list[Day]:
    """Days with conversations, latest first (a session belongs to the day it started), at most `limit`,
    only those before `before` when given."""
    rows = memory.con.execute(
        "SELECT date(s.t_start, 'unixepoch', 'localtime') AS d, count(*), sum(s.n) FROM "
        "(SELECT t_start, (SELECT count(*) FROM utterances u WHERE u.session_id = sessions.id) AS n "
        "FROM sessions WHERE t_start < ?) s GROUP BY d ORDER BY d DESC LIMIT ?",
        (_local_midnight(before) if before else float("inf"), limit),
    ).fetchall()
    return [Day(dt.date.fromisoformat(d), int(n), int(u or 0)) for d, n, u in rows]


def sessions_of_day(memory: Memory, day: dt.date) -> list[SessionRow]:
    """The sessions that started on `day`, latest first, with who spoke and the media still kept."""
    t0, t1 = day_span(day)
    rows = memory.con.execute(
        "SELECT id, source, t_start, t_end, (SELECT count(*) FROM utterances u WHERE u.session_id = s.id), "
        "(SELECT count(*) FROM media m WHERE m.session_id = s.id) FROM sessions s "
        "WHERE t_start >= ? AND t_start < ? ORDER BY t_start DESC, id DESC",
        (t0, t1),
    ).fetchall()
    ids = [int(r[0]) for r in rows]
    speakers: dict[int, list[tuple[int | None, str | None]]] = {i: [] for i in ids}
    marks = ",".join("?" * len(ids))
    for sid, pid, name in memory.con.execute(
        f"SELECT u.session_id, p.id, p.name FROM utterances u LEFT JOIN people p ON p.id = u.person_id "
        f"WHERE u.session_id IN ({marks}) GROUP BY u.session_id, p.id ORDER BY min(u.t_start)",
        ids,
    ):
        speakers[int(sid)].append((pid, name))
    return [SessionRow(int(r[0]), r[1], r[2], r[3], int(r[4]), tuple(speakers[int(r[0])]), int(r[5])) for r in rows]


def lines(memory: Memory, session_ids: list[int], limit: int, offset: int = 0) -> list[Line]:
    """The utterances of these sessions, session by session in the order given, each in time order; a
    page of `limit` from `offset`."""
    if not session_ids:
        return []
    order = " ".join(f"WHEN {int(s)} THEN {i}" for i, s in enumerate(session_ids))
    marks = ",".join("?" * len(session_ids))
    rows = memory.con.execute(
        "SELECT u.id, u.session_id, u.person_id, p.name, u.text, u.t_start, u.t_end, "
        "(SELECT min(m.id) FROM media m WHERE m.utterance_id = u.id AND m.kind = 'audio') FROM utterances u "
        f"LEFT JOIN people p ON p.id = u.person_id WHERE u.session_id IN ({marks}) "
        f"ORDER BY CASE u.session_id {order} END, u.t_start, u.id LIMIT ? OFFSET ?",
        [*session_ids, limit, offset],
    ).fetchall()
    return [Line(*r) for r in rows]


def line_ids(memory: Memory, session_ids: list[int]) -> list[int]:
    """The utterance ids of `lines(memory, session_ids, ...)` in the same order, all of them."""
    return [x.id for x in lines(memory, session_ids, -1)]


def person_lines(memory: Memory, person_id: int, limit: int, offset: int = 0) -> list[Line]:
    """A person's utterances, latest first."""
    rows = memory.con.execute(
        "SELECT u.id, u.session_id, u.person_id, p.name, u.text, u.t_start, u.t_end, "
        "(SELECT min(m.id) FROM media m WHERE m.utterance_id = u.id AND m.kind = 'audio') FROM utterances u "
        "JOIN people p ON p.id = u.person_id WHERE u.person_id = ? ORDER BY u.t_start DESC, u.id DESC "
        "LIMIT ? OFFSET ?",
        (person_id, limit, offset),
    ).fetchall()
    return [Line(*r) for r in rows]


def people(memory: Memory) -> list[PersonRow]:
    """Everyone, the most recently heard first, with their key counts and a face frame still kept."""
    rows = memory.con.execute(
        "SELECT p.id, p.name, p.consent, (SELECT count(*) FROM utterances u WHERE u.person_id = p.id), "
        "(SELECT max(t_end) FROM utterances u WHERE u.person_id = p.id) AS seen, "
        "(SELECT count(*) FROM voice_keys v WHERE v.person_id = p.id), "
        "(SELECT count(*) FROM face_keys f WHERE f.person_id = p.id), "
        "coalesce((SELECT m.id FROM face_keys k JOIN media m ON m.utterance_id = k.utterance_id "
        "AND m.kind = 'frame' WHERE k.person_id = p.id ORDER BY k.quality DESC LIMIT 1), "
        "(SELECT max(m.id) FROM media m WHERE m.person_id = p.id AND m.kind = 'frame')) "
        "FROM people p ORDER BY seen IS NULL, seen DESC, p.name"
    ).fetchall()
    return [PersonRow(*r) for r in rows]


def person(memory: Memory, person_id: int) -> PersonRow | None:
    return next((p for p in people(memory) if p.id == person_id), None)


def media_file(memory: Memory, media_id: int) -> MediaFile | None:
    row = memory.con.execute("SELECT id, kind, path, person_id FROM media WHERE id = ?", (media_id,)).fetchone()
    return None if row is None else MediaFile(*row)


def summary_sources(memory: Memory, summary_ids: list[int]) -> dict[int, list[int]]:
    """summary id -> the utterances it cites directly."""
    if not summary_ids:
        return {}
    marks = ",".join("?" * len(summary_ids))
    out: dict[int, list[int]] = {i: [] for i in summary_ids}
    for sid, uid in memory.con.execute(
        f"SELECT summary_id, utterance_id FROM summary_sources WHERE summary_id IN ({marks}) "
        "AND utterance_id IS NOT NULL ORDER BY utterance_id",
        summary_ids,
    ):
        out[int(sid)].append(int(uid))
    return out


def storage(memory: Memory) -> dict[str, dict[str, int]]:
    """Files and bytes per media kind."""
    rows = memory.con.execute("SELECT kind, count(*), coalesce(sum(bytes), 0) FROM media GROUP BY kind")
    return {kind: {"files": int(n), "bytes": int(b)} for kind, n, b in rows}


def forget_preview(memory: Memory, person_id: int) -> dict[str, int]:
    """What forgetting a person deletes, counted before it is done (`app/store/forget.py` does it)."""
    one = memory.con.execute
    name = memory.people.person_name(person_id) or ""
    theirs = "SELECT id FROM utterances WHERE person_id = ?"
    counts = {
        "utterances": one("SELECT count(*) FROM utterances WHERE person_id = ?", (person_id,)),
        "voice keys": one("SELECT count(*) FROM voice_keys WHERE person_id = ?", (person_id,)),
        "face keys": one("SELECT count(*) FROM face_keys WHERE person_id = ?", (person_id,)),
        "media files": one("SELECT count(*) FROM media WHERE person_id = ?", (person_id,)),
        "facts": one(
            f"SELECT count(*) FROM facts WHERE person_id = ? OR id IN (SELECT fact_id FROM fact_sources "
            f"WHERE utterance_id IN ({theirs}))",
            (person_id, person_id),
        ),
        "relations": one(
            f"SELECT count(*) FROM relations WHERE subject_id = ? OR object_id = ? OR id IN "
            f"(SELECT relation_id FROM relation_sources WHERE utterance_id IN ({theirs}))",
            (person_id, person_id, person_id),
        ),
        "summaries": one(
            f"SELECT count(*) FROM summaries WHERE id IN (SELECT summary_id FROM summary_sources "
            f"WHERE utterance_id IN ({theirs}))",
            (person_id,),
        ),
    }
    out = {k: int(c.fetchone()[0]) for k, c in counts.items()}
    out["mentions by others"] = 0 if AUTO_NAME.fullmatch(name) else _mentions(memory, person_id, name)
    return out


def _mentions(memory: Memory, person_id: int, name: str) -> int:
    """Other people's utterances that say `name` (forgetting redacts it there)."""
    row = memory.con.execute(
        "SELECT count(*) FROM utterances WHERE (person_id IS NULL OR person_id != ?) AND mentions(text, ?)",
        (person_id, name),
    ).fetchone()
    return int(row[0])


def utterance_day(memory: Memory, utterance_id: int) -> tuple[dt.date, int] | None:
    """The local day of the session an utterance is in, and that session's id."""
    row = memory.con.execute(
        "SELECT date(s.t_start, 'unixepoch', 'localtime'), s.id FROM utterances u JOIN sessions s "
        "ON s.id = u.session_id WHERE u.id = ?",
        (utterance_id,),
    ).fetchone()
    return None if row is None else (dt.date.fromisoformat(row[0]), int(row[1]))
