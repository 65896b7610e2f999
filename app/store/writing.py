"""What memory writing reads and writes: the durable consolidation queue, a session's transcript, a person's
facts as the merge rules see them, and the bi-temporal updates (restate, supersede) they decide.

The queue lives in the encrypted database. A job's results and its removal from the queue are written in one
transaction, so a process killed at any point either wrote all of a job or none of it: it is run again, never
twice. This is `Memory.writing`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from app.facts import FactKind
from app.store.db import transaction, vector_blob
from app.store.repository import Repository

TURN_GAP_S = 3.0  # a speaker's utterances closer than this, with no one else between, are one turn


@dataclass(frozen=True)
class QueuedJob:
    id: int
    kind: str  # session | day | person
    ref: int  # session id, day (days since the epoch), person id
    attempts: int


@dataclass(frozen=True)
class Line:
    """One turn of a transcript, as extraction reads it: an utterance, and those of the same speaker that
    followed it without anyone else speaking between (`also`)."""

    id: int
    person_id: int | None
    person: str | None
    text: str
    t_start: float
    also: tuple[int, ...] = ()

    @property
    def ids(self) -> tuple[int, ...]:
        """Every utterance the turn is made of: what is written from it cites them all."""
        return (self.id, *self.also)


@dataclass
class HeldFact:
    """A fact that still holds, as the merge rules compare against it."""

    id: int
    kind: str
    key: str
    value: str
    polarity: int
    embedding: np.ndarray | None
    sources: set[int]
    valid_from: float | None = None  # the day (or month) it names, when it names one


DAY_S = 86400.0


@dataclass(frozen=True)
class HeldPlan:
    """A plan that still holds, as closing the passed ones reads it."""

    id: int
    person_id: int | None
    key: str
    value: str
    polarity: int
    valid_from: float | None  # the day (or month) it is planned for
    sources: list[int]
    said: float  # when it was first said


class Writing(Repository):
    """Memory writing's side of the store: its queue, what it reads to write from, and what it writes."""

    # the queue
    def enqueue(self, kind: str, ref: int) -> bool:
        """Queue a job once (queuing it again is harmless); True when it was not queued yet."""
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT OR IGNORE INTO consolidation_queue(kind, ref, queued_at) VALUES (?, ?, ?)",
                (kind, ref, time.time()),
            )
        return cur.rowcount > 0

    def enqueue_backlog(self, open_session: int | None = None) -> int:
        """Queue every session whose memory is not written yet (except the one still open); returns how many
        were newly queued."""
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT OR IGNORE INTO consolidation_queue(kind, ref, queued_at) SELECT 'session', s.id, ? "
                "FROM sessions s WHERE s.consolidated_at IS NULL AND s.id IS NOT ? "
                "AND EXISTS (SELECT 1 FROM utterances u WHERE u.session_id = s.id) ORDER BY s.t_start",
                (time.time(), open_session),
            )
        return cur.rowcount

    def next_job(self, attempts: int) -> QueuedJob | None:
        """The oldest job tried fewer than `attempts` times: sessions first, then days, then people."""
        row = self.con.execute(
            "SELECT id, kind, ref, attempts FROM consolidation_queue WHERE attempts < ? "
            "ORDER BY CASE kind WHEN 'session' THEN 0 WHEN 'day' THEN 1 ELSE 2 END, id LIMIT 1",
            (attempts,),
        ).fetchone()
        return QueuedJob(int(row[0]), row[1], int(row[2]), int(row[3])) if row else None

    def job_started(self, job: QueuedJob) -> None:
        """Count the try before it runs: a job that kills the process every time is set aside, not retried forever."""
        with transaction(self.con):
            self.con.execute("UPDATE consolidation_queue SET attempts = attempts + 1 WHERE id = ?", (job.id,))

    def job_untried(self, job: QueuedJob) -> None:
        """Give back the try counted by job_started: the job never reached the model (it is off for the run)."""
        with transaction(self.con):
            self.con.execute("UPDATE consolidation_queue SET attempts = max(0, attempts - 1) WHERE id = ?", (job.id,))

    def job_errors(self, limit: int = 5) -> list[dict]:
        """Queued jobs whose last try failed, newest first: what `doctor` shows."""
        rows = self.con.execute(
            "SELECT kind, ref, attempts, error FROM consolidation_queue WHERE error IS NOT NULL "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [{"kind": r[0], "ref": int(r[1]), "attempts": int(r[2]), "error": r[3]} for r in rows]

    def job_failed(self, job: QueuedJob, error: str) -> None:
        with transaction(self.con):
            self.con.execute("UPDATE consolidation_queue SET error = ? WHERE id = ?", (error[:500], job.id))

    def job_done(self, job: QueuedJob) -> None:
        """Part of the job's own transaction."""
        self.con.execute("DELETE FROM consolidation_queue WHERE id = ?", (job.id,))
        if job.kind == "session":
            self.con.execute("UPDATE sessions SET consolidated_at = ? WHERE id = ?", (time.time(), job.ref))

    def retry_set_aside(self) -> None:
        """Give every job that failed `attempts` times its tries back."""
        with transaction(self.con):
            self.con.execute("UPDATE consolidation_queue SET attempts = 0, error = NULL")

    def queue_state(self, attempts: int) -> dict[str, int]:
        pending, failed = self.con.execute(
            "SELECT count(*) FILTER (WHERE attempts < ?), count(*) FILTER (WHERE attempts >= ?) "
            "FROM consolidation_queue",
            (attempts, attempts),
        ).fetchone()
        return {"pending": int(pending), "failed": int(failed)}

    def memory_round(self) -> int:
        """MOOM's round: here, the number of conversation sessions whose memory has been written."""
        return int(self.con.execute("SELECT count(*) FROM sessions WHERE consolidated_at IS NOT NULL").fetchone()[0])

    # reading what to write from
    def transcript(self, session_id: int) -> list[Line]:
        """The session's turns in order: a speaker's utterances one after the other, with no one else between and
        less than TURN_GAP_S apart, are one turn (the recorder cuts speech at pauses, not at the end of what a
        person says)."""
        rows = self.con.execute(
            "SELECT u.id, u.person_id, p.name, u.text, u.t_start, u.t_end FROM utterances u "
            "LEFT JOIN people p ON p.id = u.person_id WHERE u.session_id = ? ORDER BY u.t_start, u.id",
            (session_id,),
        )
        lines: list[Line] = []
        end = -math.inf
        for uid, pid, name, text, t0, t1 in rows:
            last = lines[-1] if lines else None
            if last is not None and pid is not None and pid == last.person_id and t0 - end < TURN_GAP_S:
                lines[-1] = replace(last, text=f"{last.text} {text}", also=(*last.also, int(uid)))
            else:
                lines.append(Line(int(uid), pid, name, text, t0))
            end = max(end, t1)
        return lines

    def refused_names(self) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT name FROM people WHERE consent = 'refused'")}

    def last_spoken(self) -> float:
        """When the latest utterance began (0 in an empty memory)."""
        return float(self.con.execute("SELECT max(t_start) FROM utterances").fetchone()[0] or 0.0)

    def held_facts(self, person_id: int) -> list[HeldFact]:
        rows = self.con.execute(
            "SELECT f.id, f.kind, f.key, f.value, f.polarity, f.embedding, group_concat(s.utterance_id), f.valid_from "
            "FROM facts f LEFT JOIN fact_sources s ON s.fact_id = f.id "
            "WHERE f.person_id = ? AND f.valid_to IS NULL GROUP BY f.id ORDER BY f.id",
            (person_id,),
        )
        return [
            HeldFact(
                int(r[0]),
                r[1],
                r[2],
                r[3],
                int(r[4]),
                None if r[5] is None else np.frombuffer(r[5], np.float32),
                {int(x) for x in r[6].split(",")} if r[6] else set(),
                r[7],
            )
            for r in rows
        ]

    def plans_held(self, person_id: int | None = None) -> list[HeldPlan]:
        """The plans that hold (everyone's, or `person_id`'s), with when they were first said."""
        mine = "" if person_id is None else " AND f.person_id = ?"
        rows = self.con.execute(
            "SELECT f.id, f.person_id, f.key, f.value, f.polarity, f.valid_from, group_concat(s.utterance_id), "
            "min(u.t_start) FROM facts f JOIN fact_sources s ON s.fact_id = f.id JOIN utterances u ON "
            f"u.id = s.utterance_id WHERE f.kind = ? AND f.valid_to IS NULL{mine} GROUP BY f.id ORDER BY f.id",
            (FactKind.PLAN,) if person_id is None else (FactKind.PLAN, person_id),
        )
        return [
            HeldPlan(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5], [int(x) for x in r[6].split(",")], float(r[7]))
            for r in rows
        ]

    # writing (each call is part of the job's transaction)
    def insert_fact(
        self,
        person_id: int,
        kind: str,
        key: str,
        value: str,
        polarity: int,
        sources: list[int],
        valid_from: float | None,
        said_at: float,
        round_: int,
        embedding: np.ndarray,
    ) -> int:
        cur = self.con.execute(
            "INSERT INTO facts(person_id, kind, key, value, polarity, valid_from, learned_at, last_seen, round, "
            "embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (person_id, kind, key, value, polarity, valid_from, time.time(), said_at, round_, vector_blob(embedding)),
        )
        fid = int(cur.lastrowid)
        self.con.executemany("INSERT OR IGNORE INTO fact_sources VALUES (?, ?)", [(fid, u) for u in sources])
        return fid

    def restate_fact(
        self, fact_id: int, sources: list[int], said_at: float, round_: int, value: str | None = None, embedding=None
    ) -> None:
        """The fact was said again: its provenance grows, it counts as recalled (MOOM's reinforcement), and a
        more detailed wording replaces the old one."""
        self.con.execute(
            "UPDATE facts SET seen = seen + 1, last_seen = max(coalesce(last_seen, 0), ?), faded = 0, "
            "inhibition = 1.0 WHERE id = ?",
            (said_at, fact_id),
        )
        if value is not None:
            self.con.execute(
                "UPDATE facts SET value = ?, embedding = ? WHERE id = ?", (value, vector_blob(embedding), fact_id)
            )
        self.con.executemany("INSERT OR IGNORE INTO fact_sources VALUES (?, ?)", [(fact_id, u) for u in sources])
        self.con.execute("INSERT INTO fact_recalls(fact_id, round) VALUES (?, ?)", (fact_id, round_))

    def supersede_fact(self, old_id: int, new_id: int, at: float) -> None:
        """Close the old fact's validity where the new one starts; the old row stays as history."""
        self.con.execute(
            "UPDATE facts SET valid_to = max(coalesce(valid_from, ?), ?), superseded_by = ? WHERE id = ?",
            (at, at, new_id, old_id),
        )

    def mentioned_person(self, name: str) -> int:
        """The id of the person called `name`, created (without keys) when only mentioned so far."""
        row = self.con.execute("SELECT id FROM people WHERE name = ?", (name,)).fetchone()
        if row:
            return int(row[0])
        return int(
            self.con.execute("INSERT INTO people(name, created_at) VALUES (?, ?)", (name, time.time())).lastrowid
        )

    def write_relation(
        self, subject_id: int, relation: str, object_id: int, sources: list[int], valid_from: float | None
    ) -> tuple[int, bool]:
        """(id, new): a relation already held between the two (either way round) with that name gains
        provenance instead of a second row."""
        row = self.con.execute(
            "SELECT id FROM relations WHERE relation = ? AND valid_to IS NULL AND ((subject_id = ? AND object_id = ?) "
            "OR (subject_id = ? AND object_id = ?))",
            (relation, subject_id, object_id, object_id, subject_id),
        ).fetchone()
        if row:
            rid, new = int(row[0]), False
            self.con.execute("UPDATE relations SET seen = seen + 1 WHERE id = ?", (rid,))
        else:
            rid, new = (
                int(
                    self.con.execute(
                        "INSERT INTO relations(subject_id, relation, object_id, valid_from, learned_at) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (subject_id, relation, object_id, valid_from, time.time()),
                    ).lastrowid
                ),
                True,
            )
        self.con.executemany("INSERT OR IGNORE INTO relation_sources VALUES (?, ?)", [(rid, u) for u in sources])
        return rid, new

    def write_summary(
        self,
        kind: str,
        t_start: float,
        t_end: float,
        text: str,
        embedding: np.ndarray,
        utterances: list[int] = (),
        children: list[int] = (),
        session_id: int | None = None,
        person_id: int | None = None,
    ) -> int:
        level = {"session": 1, "day": 2, "person": 3}[kind]
        cur = self.con.execute(
            "INSERT INTO summaries(level, kind, t_start, t_end, text, created_at, session_id, person_id, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (level, kind, t_start, t_end, text, time.time(), session_id, person_id, vector_blob(embedding)),
        )
        sid = int(cur.lastrowid)
        self.con.executemany(
            "INSERT INTO summary_sources(summary_id, utterance_id, child_id) VALUES (?, ?, ?)",
            [(sid, u, None) for u in utterances] + [(sid, None, c) for c in children],
        )
        return sid

    def session_summaries(self, where: str, args: tuple) -> list[dict]:
        rows = self.con.execute(
            f"SELECT id, t_start, t_end, text FROM summaries m WHERE kind = 'session' AND {where} ORDER BY t_start, id",
            args,
        )
        return [dict(zip(("id", "t_start", "t_end", "text"), r, strict=True)) for r in rows]

    def day_summary_due(self, day: int, minimum: int) -> bool:
        """A closed day with at least `minimum` session summaries and no day summary yet."""
        t0 = day * DAY_S
        count, done = self.con.execute(
            "SELECT count(*) FILTER (WHERE kind = 'session'), count(*) FILTER (WHERE kind = 'day') FROM summaries "
            "WHERE t_start >= ? AND t_start < ?",
            (t0, t0 + DAY_S),
        ).fetchone()
        return count >= minimum and done == 0

    def global_state(self, person_id: int) -> dict | None:
        row = self.con.execute(
            "SELECT id, t_start, t_end, text FROM summaries WHERE kind = 'person' AND person_id = ? "
            "ORDER BY t_end DESC, id DESC LIMIT 1",
            (person_id,),
        ).fetchone()
        return dict(zip(("id", "t_start", "t_end", "text"), row, strict=True)) if row else None

    def summaries_with(self, person_id: int, after: float) -> list[dict]:
        """Session summaries of conversations `person_id` spoke in that end after `after`."""
        return self.session_summaries(
            "t_end > ? AND session_id IN (SELECT session_id FROM utterances WHERE person_id = ?)", (after, person_id)
        )
