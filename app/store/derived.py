"""Derived memory — facts, relations, summaries — each row citing the utterances it came from, and the
profile of a person that gathers them: `Memory.derived`."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from app.store.db import transaction
from app.store.repository import Owner, Repository


@dataclass(frozen=True)
class Written:
    """The facts that hold (not faded) and the summaries citing utterances, as search documents."""

    kinds: list[str]  # fact | summary
    ids: list[int]
    vectors: np.ndarray  # (n, dim) float32 unit rows
    cites: list[np.ndarray]  # the utterances each one cites

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, cosine) of the k items closest to `query`, best first."""
        if not self.ids:
            return []
        similarity = self.vectors @ query
        top = np.argsort(-similarity, kind="stable")[:k]
        return [(int(i), float(similarity[i])) for i in top]


class Derived(Repository):
    """What memory writing made of the utterances, as the question, the pages and the export read it."""

    def __init__(self, memory: Owner) -> None:
        super().__init__(memory)
        self._written: tuple[tuple, Written] | None = None  # (signature, Written): facts and summaries as documents

    def add_fact(
        self,
        person_id: int | None,
        kind: str,
        key: str,
        value: str,
        sources: list[int],
        valid_from: float | None = None,
        valid_to: float | None = None,
        importance: float = 0.5,
    ) -> int:
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT INTO facts(person_id, kind, key, value, valid_from, valid_to, learned_at, importance) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (person_id, kind, key, value, valid_from, valid_to, time.time(), importance),
            )
            fid = int(cur.lastrowid)
            self.con.executemany("INSERT INTO fact_sources VALUES (?, ?)", [(fid, u) for u in sources])
        return fid

    def add_relation(
        self,
        subject_id: int,
        relation: str,
        object_id: int,
        sources: list[int],
        valid_from: float | None = None,
        valid_to: float | None = None,
    ) -> int:
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT INTO relations(subject_id, relation, object_id, valid_from, valid_to, learned_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (subject_id, relation, object_id, valid_from, valid_to, time.time()),
            )
            rid = int(cur.lastrowid)
            self.con.executemany("INSERT INTO relation_sources VALUES (?, ?)", [(rid, u) for u in sources])
        return rid

    def add_summary(
        self, level: int, t_start: float, t_end: float, text: str, utterances: list[int] = (), children: list[int] = ()
    ) -> int:
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT INTO summaries(level, t_start, t_end, text, created_at) VALUES (?, ?, ?, ?, ?)",
                (level, t_start, t_end, text, time.time()),
            )
            sid = int(cur.lastrowid)
            self.con.executemany(
                "INSERT INTO summary_sources(summary_id, utterance_id, child_id) VALUES (?, ?, ?)",
                [(sid, u, None) for u in utterances] + [(sid, None, c) for c in children],
            )
        return sid

    def profile(self, person_id: int, recent: int = 5) -> dict:
        """What the memory holds about a person, most useful first: who they are, current facts by
        importance, relations, summaries of conversations with them, their latest words."""
        one = self.con.execute
        name, consent = one("SELECT name, consent FROM people WHERE id = ?", (person_id,)).fetchone()
        first, last, count, sessions = one(
            "SELECT min(t_start), max(t_end), count(*), count(DISTINCT session_id) FROM utterances WHERE person_id = ?",
            (person_id,),
        ).fetchone()
        facts = one(
            "SELECT f.id, f.kind, f.key, f.value, f.valid_from, (SELECT min(utterance_id) FROM fact_sources s "
            "WHERE s.fact_id = f.id), (SELECT min(u.t_start) FROM fact_sources s JOIN utterances u ON "
            "u.id = s.utterance_id WHERE s.fact_id = f.id) FROM facts f WHERE f.person_id = ? AND f.valid_to IS NULL "
            "AND f.faded = 0 "
            "ORDER BY f.importance DESC, f.seen DESC, f.last_seen DESC, f.learned_at DESC",
            (person_id,),
        ).fetchall()
        relations = one(
            "SELECT r.id, a.name, r.relation, b.name, (SELECT min(utterance_id) FROM relation_sources s "
            "WHERE s.relation_id = r.id) FROM relations r JOIN people a ON a.id = r.subject_id "
            "JOIN people b ON b.id = r.object_id WHERE (r.subject_id = ? OR r.object_id = ?) AND r.valid_to IS NULL "
            "ORDER BY r.learned_at DESC",
            (person_id, person_id),
        ).fetchall()
        state = one(
            "SELECT id, level, t_start, t_end, text FROM summaries WHERE kind = 'person' AND person_id = ? "
            "ORDER BY t_end DESC, id DESC LIMIT 1",
            (person_id,),
        ).fetchall()
        summaries = (
            state
            + one(
                "SELECT DISTINCT m.id, m.level, m.t_start, m.t_end, m.text FROM summaries m "
                "JOIN summary_sources s ON s.summary_id = m.id JOIN utterances u ON u.id = s.utterance_id "
                "WHERE u.person_id = ? ORDER BY m.t_end DESC LIMIT 10",
                (person_id,),
            ).fetchall()
        )
        latest = one(
            "SELECT id, text, t_start FROM utterances WHERE person_id = ? AND addressed = 0 "
            "ORDER BY t_start DESC LIMIT ?",
            (person_id, recent),
        ).fetchall()
        return {
            "id": person_id,
            "name": name,
            "consent": consent,
            "first_seen": first,
            "last_seen": last,
            "utterances": count,
            "sessions": sessions,
            "facts": [
                dict(zip(("id", "kind", "key", "value", "valid_from", "source", "said"), f, strict=True)) for f in facts
            ],
            "relations": [
                dict(zip(("id", "subject", "relation", "object", "source"), r, strict=True)) for r in relations
            ],
            "summaries": [dict(zip(("id", "level", "t_start", "t_end", "text"), m, strict=True)) for m in summaries],
            "latest": [dict(zip(("id", "text", "t_start"), u, strict=True)) for u in latest],
        }

    def find_facts(self, words: list[str], limit: int, people: list[str] = ()) -> list[dict]:
        """Facts that still hold whose key or value contains any of `words` (or that are about `people`),
        most matching words first, then by importance."""
        if not words and not people:
            return []
        terms = [f"%{w}%" for w in words]
        hits = " + ".join(["(f.key LIKE ? OR f.value LIKE ?)"] * len(terms)) or "0"
        named = ",".join("?" * len(people))
        rows = self.con.execute(
            f"SELECT f.id, p.name, f.kind, f.key, f.value, f.valid_from, {hits} AS hits FROM facts f "
            "LEFT JOIN people p ON p.id = f.person_id WHERE f.valid_to IS NULL AND f.faded = 0 "
            f"AND ({hits} > 0 OR p.name IN ({named or 'NULL'})) ORDER BY hits DESC, f.importance DESC LIMIT ?",
            [*(t for t in terms for _ in (0, 1)), *(t for t in terms for _ in (0, 1)), *people, limit],
        ).fetchall()
        keys = ("id", "person", "kind", "key", "value", "valid_from", "hits")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def written(self) -> Written:
        """What memory writing wrote, to search beside the turns; read again only when it changed."""
        signature = self.con.execute(
            "SELECT (SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || "
            "coalesce(sum(valid_to IS NULL AND faded = 0), 0) FROM facts), "
            "(SELECT count(*) || ':' || coalesce(max(id), 0) FROM summaries)"
        ).fetchone()
        if self._written is not None and self._written[0] == signature:
            return self._written[1]
        rows = self.con.execute(
            "SELECT 'fact', f.id, f.embedding, (SELECT group_concat(utterance_id) FROM fact_sources s "
            "WHERE s.fact_id = f.id) FROM facts f WHERE f.valid_to IS NULL AND f.faded = 0 AND f.embedding IS NOT NULL "
            "UNION ALL SELECT 'summary', m.id, m.embedding, (SELECT group_concat(utterance_id) FROM summary_sources s "
            "WHERE s.summary_id = m.id AND s.utterance_id IS NOT NULL) FROM summaries m WHERE m.embedding IS NOT NULL"
        ).fetchall()
        rows = [r for r in rows if r[3]]
        vectors = np.stack([np.frombuffer(r[2], np.float32) for r in rows]) if rows else np.zeros((0, 0), np.float32)
        written = Written(
            [r[0] for r in rows],
            [int(r[1]) for r in rows],
            vectors,
            [np.array([int(x) for x in r[3].split(",")], np.int64) for r in rows],
        )
        self._written = (signature, written)
        return written

    def written_text(self, kind: str, ident: int) -> str:
        """What a fact or summary of `written()` says."""
        sql = "SELECT value FROM facts WHERE id = ?" if kind == "fact" else "SELECT text FROM summaries WHERE id = ?"
        row = self.con.execute(sql, (ident,)).fetchone()
        return row[0] if row else ""

    def fact_sources(self, fact_ids: list[int]) -> dict[int, list[int]]:
        """fact id -> the utterances it was read from, in time order."""
        if not fact_ids:
            return {}
        marks = ",".join("?" * len(fact_ids))
        out: dict[int, list[int]] = {}
        for fid, uid in self.con.execute(
            f"SELECT s.fact_id, s.utterance_id FROM fact_sources s JOIN utterances u ON u.id = s.utterance_id "
            f"WHERE s.fact_id IN ({marks}) ORDER BY u.t_start",
            fact_ids,
        ):
            out.setdefault(int(fid), []).append(int(uid))
        return out

    def people_citing(self, utterance_ids: list[int]) -> dict[int, set[str]]:
        """utterance id -> the names of the people facts read from it are about ("He's a sound engineer", said of
        Teodor a line after he was named: Teodor)."""
        if not utterance_ids:
            return {}
        marks = ",".join("?" * len(utterance_ids))
        out: dict[int, set[str]] = {}
        for uid, name in self.con.execute(
            "SELECT s.utterance_id, p.name FROM fact_sources s JOIN facts f ON f.id = s.fact_id "
            f"JOIN people p ON p.id = f.person_id WHERE s.utterance_id IN ({marks})",
            utterance_ids,
        ):
            out.setdefault(int(uid), set()).add(name)
        return out

    def relation_edges(self) -> list[tuple[str, str, str]]:
        """(subject, relation, object) names of every relation that still holds."""
        rows = self.con.execute(
            "SELECT a.name, r.relation, b.name FROM relations r JOIN people a ON a.id = r.subject_id "
            "JOIN people b ON b.id = r.object_id WHERE r.valid_to IS NULL"
        )
        return [(a, rel, b) for a, rel, b in rows]

    def session_summaries(self, session_ids: list[int]) -> dict[int, dict]:
        """session id -> its summary ({id, text, t_start, t_end}), for those of `session_ids` that have one."""
        if not session_ids:
            return {}
        marks = ",".join("?" * len(session_ids))
        rows = self.con.execute(
            "SELECT session_id, id, text, t_start, t_end FROM summaries "
            f"WHERE kind = 'session' AND session_id IN ({marks}) "
            "ORDER BY id",
            session_ids,
        )
        return {int(r[0]): {"id": int(r[1]), "text": r[2], "t_start": r[3], "t_end": r[4]} for r in rows}

    def summaries_citing(self, utterance_ids: list[int]) -> list[dict]:
        """Summaries built from any of these utterances, highest level first."""
        if not utterance_ids:
            return []
        marks = ",".join("?" * len(utterance_ids))
        rows = self.con.execute(
            "SELECT DISTINCT m.id, m.level, m.t_start, m.t_end, m.text FROM summaries m JOIN summary_sources s "
            f"ON s.summary_id = m.id WHERE s.utterance_id IN ({marks}) ORDER BY m.level DESC, m.t_start",
            utterance_ids,
        ).fetchall()
        return [dict(zip(("id", "level", "t_start", "t_end", "text"), r, strict=True)) for r in rows]

    def facts_listed(self, person_id: int | None = None, history: bool = False, faded: bool = True) -> list[dict]:
        """Facts with who, validity (valid_from/valid_to, learned_at), strength state and the utterances they
        cite: the ones that hold, or (`history`) superseded ones too."""
        where = ["1"]
        args: list = []
        if person_id is not None:
            where.append("f.person_id = ?")
            args.append(person_id)
        if not history:
            where.append("f.valid_to IS NULL")
        if not faded:
            where.append("f.faded = 0")
        rows = self.con.execute(
            "SELECT f.id, p.name, f.kind, f.key, f.value, f.polarity, f.valid_from, f.valid_to, f.learned_at, "
            "f.last_seen, f.seen, f.faded, f.superseded_by, (SELECT group_concat(utterance_id) FROM fact_sources s "
            "WHERE s.fact_id = f.id) FROM facts f LEFT JOIN people p ON p.id = f.person_id "
            f"WHERE {' AND '.join(where)} "
            "ORDER BY p.name, f.key, coalesce(f.valid_from, f.last_seen, f.learned_at), f.id",
            args,
        ).fetchall()
        keys = (
            "id",
            "person",
            "kind",
            "key",
            "value",
            "polarity",
            "valid_from",
            "valid_to",
            "learned_at",
            "last_seen",
            "seen",
            "faded",
            "superseded_by",
            "sources",
        )
        out = [dict(zip(keys, r, strict=True)) for r in rows]
        for f in out:
            f["sources"] = sorted(int(x) for x in f["sources"].split(",")) if f["sources"] else []
            f["faded"] = bool(f["faded"])
        return out

    def relations_listed(self, person_id: int | None = None) -> list[dict]:
        rows = self.con.execute(
            "SELECT r.id, a.name, r.relation, b.name, r.valid_from, r.valid_to, r.seen, (SELECT group_concat("
            "utterance_id) FROM relation_sources s WHERE s.relation_id = r.id) FROM relations r "
            "JOIN people a ON a.id = r.subject_id JOIN people b ON b.id = r.object_id "
            "WHERE ? IS NULL OR r.subject_id = ? OR r.object_id = ? ORDER BY r.id",
            (person_id, person_id, person_id),
        ).fetchall()
        keys = ("id", "subject", "relation", "object", "valid_from", "valid_to", "seen", "sources")
        out = [dict(zip(keys, r, strict=True)) for r in rows]
        for r in out:
            r["sources"] = sorted(int(x) for x in r["sources"].split(",")) if r["sources"] else []
        return out
