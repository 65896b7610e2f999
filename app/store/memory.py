"""The memory API: people, identity keys, sessions, utterances and search primitives, as dataclasses."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.config import StoreConfig
from app.errors import DiskFullError, StoreError
from app.store.db import connect, in_chunks, transaction
from app.store.keys import Secret
from app.store.migrations import version
from app.store.turns import Turn, read_turns
from app.store.vault import MediaVault, media_key
from app.store.vector_index import DenseIndex

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    utterances: int


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


@dataclass(frozen=True)
class Sparse:
    """What a BM25 search found."""

    ranked: list[tuple[int, float]]  # (utterance id, bm25 score; lower is better), best first
    holders: dict[str, np.ndarray]  # each word searched (within the postings budget) -> the utterances holding it


def fts_match(words: Sequence[str]) -> str:
    """An FTS5 MATCH expression for any of `words`, each quoted as a phrase so no query syntax leaks in."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


@dataclass(frozen=True)
class MediaRow:
    id: int
    kind: str
    path: str
    bytes: int
    t_start: float
    t_end: float
    expires_at: float
    person_id: int | None
    utterance_id: int | None


MEDIA_DIR = "media"
INDEX_DIR = "index"


class Memory:
    """One connection to the encrypted memory and its media folder. One Memory per process, one thread."""

    def __init__(self, con, path: Path, key: bytes, cfg: StoreConfig | None = None) -> None:
        self.con = con
        self.path = path
        self.vault = MediaVault(path.parent / MEDIA_DIR, media_key(key))
        self.dense = DenseIndex(self, cfg or StoreConfig(), MediaVault(path.parent / INDEX_DIR, media_key(key)))
        self._closed = False
        self._after_commit: list = []
        self._word_docs: dict[str, tuple[int, int, int]] = {}  # word -> (utterances holding it, size then, cap)
        self._key = key
        self._cfg = cfg or StoreConfig()
        self._reader = None  # a read-only connection for BM25 beside the dense search (see bm25_search_async)
        self._reading: ThreadPoolExecutor | None = None

    @classmethod
    def open(cls, path: Path, secret: Secret, cfg: StoreConfig, create: bool = False) -> Memory:
        con, key = connect(path, secret, cfg, create=create)
        memory = cls(con, path, key, cfg)
        from app.store.lifecycle import finish_rekey

        finish_rekey(memory)  # a rekey cut short by a crash is completed (or its stale files removed)
        return memory

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction around several writes: all of them are kept, or none. What must follow a commit
        (the in-RAM vector index) runs once the outermost batch has committed."""
        if self.con.in_transaction:
            yield
            return
        try:
            with transaction(self.con):
                yield
        except BaseException:
            self._after_commit.clear()
            raise
        hooks, self._after_commit = self._after_commit, []
        for hook in hooks:
            hook()

    def close(self) -> None:
        """Checkpoint and close; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        try:
            self.dense.save()
            self.con.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except (self.con.OperationalError, DiskFullError) as e:  # a full disk (already reported): replayed on open
            _LOGGER.info("could not checkpoint the memory on close (%s); it will be on the next open", e)
        finally:
            self.close_reader()
            self.con.close()

    def close_reader(self) -> None:
        """Close the read-only BM25 connection, if one was opened (it opens again when next needed)."""
        if self._reading is not None:
            self._reading.shutdown()
            self._reading = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def set_key(self, key: bytes) -> None:
        """The raw key after a rekey (a reader opened later needs it)."""
        self._key = key

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # people and identity keys
    def people_names(self) -> list[str]:
        return [r[0] for r in self.con.execute("SELECT name FROM people ORDER BY id")]

    def person_ids(self) -> dict[str, int]:
        """name -> id of everyone."""
        return {name: int(pid) for pid, name in self.con.execute("SELECT id, name FROM people")}

    def people(self) -> list[Person]:
        rows = self.con.execute(
            "SELECT p.id, p.name, count(u.id) FROM people p LEFT JOIN utterances u ON u.person_id = p.id "
            "GROUP BY p.id ORDER BY p.id"
        ).fetchall()
        return [Person(int(i), n, int(c)) for i, n, c in rows]

    def add_person(self, name: str | None = None, now: float | None = None) -> Person:
        """A new person; without a name they are called unknown_N, N their id: labels are never reused, so an
        old log line or export never points at someone else."""
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT INTO people(name, created_at) VALUES (?, ?)",
                (name or f"pending-{time.time_ns()}", now or time.time()),
            )
            pid = int(cur.lastrowid)
            if name is None:
                name = f"unknown_{pid}"
                while self.person_id(name) is not None:  # someone was given that label as a name
                    name += "_"
                self.con.execute("UPDATE people SET name = ? WHERE id = ?", (name, pid))
        return Person(pid, name, 0)

    def _keys(self, table: str, model: str) -> dict[int, np.ndarray]:
        out: dict[int, list[np.ndarray]] = {}
        rows = self.con.execute(f"SELECT person_id, embedding FROM {table} WHERE model = ? ORDER BY id", (model,))
        for pid, blob in rows:
            out.setdefault(int(pid), []).append(np.frombuffer(blob, np.float32))
        return {pid: np.stack(v) for pid, v in out.items()}

    def voice_keys(self, model: str) -> dict[int, np.ndarray]:
        """person id -> (keys, dim) voice embeddings made by `model`."""
        return self._keys("voice_keys", model)

    def face_keys(self, model: str) -> dict[int, np.ndarray]:
        """person id -> (keys, dim) face embeddings made by `model`."""
        return self._keys("face_keys", model)

    def add_key(
        self,
        kind: str,
        person_id: int,
        embedding: np.ndarray,
        quality: float,
        cap: int,
        model: str,
        utterance_id: int | None = None,
    ) -> None:
        """Add a voice or face key (from `utterance_id`, its provenance); beyond `cap` keys per person and
        model the lowest-quality one goes."""
        table = {"voice": "voice_keys", "face": "face_keys"}[kind]
        with transaction(self.con):
            self.con.execute(
                f"INSERT INTO {table}(person_id, embedding, quality, created_at, model, utterance_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (person_id, _blob(embedding), quality, time.time(), model, utterance_id),
            )
            self.con.execute(
                f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE person_id = ? AND model = ? "
                "ORDER BY quality DESC, id DESC LIMIT -1 OFFSET ?)",
                (person_id, model, cap),
            )

    # sessions and utterances
    def start_session(self, source: str, t_start: float) -> int:
        with transaction(self.con):
            cur = self.con.execute(
                "INSERT INTO sessions(source, t_start, t_end) VALUES (?, ?, ?)", (source, t_start, t_start)
            )
        return int(cur.lastrowid)

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
        with self.batch():
            cur = self.con.execute(
                "INSERT INTO utterances(session_id, person_id, text, t_start, t_end, ingested_at, "
                "asr_confidence, asr_model, face_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                ),
            )
            uid = int(cur.lastrowid)
            self.con.execute("INSERT INTO utterances_vec(rowid, embedding) VALUES (?, ?)", (uid, _blob(u.embedding)))
            self.con.execute("INSERT INTO utterance_vectors(id, embedding) VALUES (?, ?)", (uid, _blob(u.embedding)))
            self.con.execute("UPDATE sessions SET t_end = max(t_end, ?) WHERE id = ?", (u.t_end, u.session_id))
            turn = Turn(u.session_id, u.person_id, u.t_start)
            self._after_commit.append(lambda: self.dense.added(uid, u.embedding, turn))
        return uid

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

    def all_utterances(self) -> list[StoredUtterance]:
        ids = [int(r[0]) for r in self.con.execute("SELECT id FROM utterances ORDER BY t_start, id")]
        found = self.utterances(ids)
        return [found[i] for i in ids]

    # derived memory, each row citing its sources
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
            "WHERE s.fact_id = f.id) FROM facts f WHERE f.person_id = ? AND f.valid_to IS NULL "
            "ORDER BY f.importance DESC, f.learned_at DESC",
            (person_id,),
        ).fetchall()
        relations = one(
            "SELECT r.id, a.name, r.relation, b.name, (SELECT min(utterance_id) FROM relation_sources s "
            "WHERE s.relation_id = r.id) FROM relations r JOIN people a ON a.id = r.subject_id "
            "JOIN people b ON b.id = r.object_id WHERE (r.subject_id = ? OR r.object_id = ?) AND r.valid_to IS NULL "
            "ORDER BY r.learned_at DESC",
            (person_id, person_id),
        ).fetchall()
        summaries = one(
            "SELECT DISTINCT m.id, m.level, m.t_start, m.t_end, m.text FROM summaries m "
            "JOIN summary_sources s ON s.summary_id = m.id JOIN utterances u ON u.id = s.utterance_id "
            "WHERE u.person_id = ? ORDER BY m.t_end DESC LIMIT 10",
            (person_id,),
        ).fetchall()
        latest = one(
            "SELECT id, text, t_start FROM utterances WHERE person_id = ? ORDER BY t_start DESC LIMIT ?",
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
            "facts": [dict(zip(("id", "kind", "key", "value", "valid_from", "source"), f, strict=True)) for f in facts],
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
            "LEFT JOIN people p ON p.id = f.person_id WHERE f.valid_to IS NULL "
            f"AND ({hits} > 0 OR p.name IN ({named or 'NULL'})) ORDER BY hits DESC, f.importance DESC LIMIT ?",
            [*(t for t in terms for _ in (0, 1)), *(t for t in terms for _ in (0, 1)), *people, limit],
        ).fetchall()
        keys = ("id", "person", "kind", "key", "value", "valid_from", "hits")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def relation_edges(self) -> list[tuple[str, str, str]]:
        """(subject, relation, object) names of every relation that still holds."""
        rows = self.con.execute(
            "SELECT a.name, r.relation, b.name FROM relations r JOIN people a ON a.id = r.subject_id "
            "JOIN people b ON b.id = r.object_id WHERE r.valid_to IS NULL"
        )
        return [(a, rel, b) for a, rel, b in rows]

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

    def media_of(self, utterance_ids: list[int]) -> dict[int, int]:
        """utterance id -> id of its audio clip, for those whose clip is still kept."""
        if not utterance_ids:
            return {}
        marks = ",".join("?" * len(utterance_ids))
        rows = self.con.execute(
            f"SELECT utterance_id, min(id) FROM media WHERE kind = 'audio' AND utterance_id IN ({marks}) "
            "GROUP BY utterance_id",
            utterance_ids,
        )
        return {int(u): int(m) for u, m in rows}

    def rows(self, table: str, where: str = "1", args: tuple = ()) -> list[dict]:
        """Every row of a table as a dict, embeddings left out (for export and inspection)."""
        cur = self.con.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY rowid", args)
        names = [d[0] for d in cur.description]
        return [{k: v for k, v in zip(names, r, strict=True) if not isinstance(v, bytes)} for r in cur]

    def set_consent(self, name: str, state: str) -> None:
        if state not in ("given", "refused", "unknown"):
            raise ValueError(state)
        with transaction(self.con):
            if self.con.execute("UPDATE people SET consent = ? WHERE name = ?", (state, name)).rowcount != 1:
                raise StoreError(f"no person named {name!r} (see `python -m app people`)")

    def _pid(self, name: str) -> int:
        pid = self.person_id(name)
        if pid is None:
            raise StoreError(f"no person named {name!r} (see `python -m app people`)")
        return pid

    def rename_person(self, old: str, new: str) -> None:
        pid = self._pid(old)
        if self.person_id(new) is not None:
            raise StoreError(f"{new!r} is already someone's name (merge them with `people merge`)")
        with transaction(self.con):
            self.con.execute("UPDATE people SET name = ? WHERE id = ?", (new, pid))

    def merge_people(self, keep: str, other: str) -> int:
        """`other` was `keep` all along: their utterances, keys, media, facts and relations move over."""
        into, gone = self._pid(keep), self._pid(other)
        if into == gone:
            raise StoreError("a person cannot be merged with themselves")
        with transaction(self.con):
            moved = self.con.execute("UPDATE utterances SET person_id = ? WHERE person_id = ?", (into, gone)).rowcount
            for table in ("voice_keys", "face_keys", "media", "facts"):
                self.con.execute(f"UPDATE {table} SET person_id = ? WHERE person_id = ?", (into, gone))
            self.con.execute("UPDATE relations SET subject_id = ? WHERE subject_id = ?", (into, gone))
            self.con.execute("UPDATE relations SET object_id = ? WHERE object_id = ?", (into, gone))
            self.con.execute("DELETE FROM relations WHERE subject_id = object_id")
            self.con.execute(
                "UPDATE people SET consent = 'given' WHERE id = ? AND "
                "(SELECT consent FROM people WHERE id = ?) = 'given'",
                (into, gone),
            )
            self.con.execute("DELETE FROM people WHERE id = ?", (gone,))
        return moved

    def split_person(self, name: str, utterance_ids: list[int], new_name: str | None = None) -> Person:
        """Some of `name`'s utterances were someone else's: they, the keys learned from them and their media
        go to a new person."""
        pid = self._pid(name)
        marks = ",".join("?" * len(utterance_ids))
        owned = [
            r[0]
            for r in self.con.execute(
                f"SELECT id FROM utterances WHERE person_id = ? AND id IN ({marks})", [pid, *utterance_ids]
            )
        ]
        if not owned or len(owned) != len(set(utterance_ids)):
            raise StoreError(f"not all of those utterances are {name}'s (see `python -m app export`)")
        with transaction(self.con):
            person = self.add_person(new_name)
            args = [person.id, pid, *owned]
            self.con.execute(f"UPDATE utterances SET person_id = ? WHERE person_id = ? AND id IN ({marks})", args)
            for table in ("voice_keys", "face_keys", "media"):
                self.con.execute(
                    f"UPDATE {table} SET person_id = ? WHERE person_id = ? AND utterance_id IN ({marks})", args
                )
        return Person(person.id, person.name, len(owned))

    def consented(self) -> set[int]:
        return {int(r[0]) for r in self.con.execute("SELECT id FROM people WHERE consent = 'given'")}

    def enforce_consent(self) -> int:
        """Consent mode: drop every identity key and raw media file of people who have not consented."""
        with transaction(self.con):
            n = 0
            for table in ("voice_keys", "face_keys", "media"):
                n += self.con.execute(
                    f"DELETE FROM {table} WHERE person_id IN (SELECT id FROM people WHERE consent != 'given')"
                ).rowcount
        self.empty_trash()
        return n

    def person_id(self, name: str) -> int | None:
        row = self.con.execute("SELECT id FROM people WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    # raw media
    def add_media(
        self,
        kind: str,
        data: bytes,
        t_start: float,
        t_end: float,
        keep_s: float,
        session_id: int | None = None,
        person_id: int | None = None,
        utterance_id: int | None = None,
    ) -> int:
        """Encrypt `data` to the media folder and record it; it expires `keep_s` seconds from now."""
        name, size = self.vault.put(data)
        now = time.time()
        try:
            with transaction(self.con):
                cur = self.con.execute(
                    "INSERT INTO media(kind, session_id, person_id, utterance_id, t_start, t_end, path, bytes, "
                    "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (kind, session_id, person_id, utterance_id, t_start, t_end, name, size, now, now + keep_s),
                )
        except BaseException:
            self.vault.delete(name)
            raise
        return int(cur.lastrowid)

    def media(self, where: str = "1", args: tuple = ()) -> list[MediaRow]:
        rows = self.con.execute(
            "SELECT id, kind, path, bytes, t_start, t_end, expires_at, person_id, utterance_id FROM media "
            f"WHERE {where} ORDER BY t_start, id",
            args,
        )
        return [MediaRow(*r) for r in rows]

    def delete_media(self, ids: list[int]) -> int:
        """Delete media rows and their files; returns the bytes freed."""
        if not ids:
            return 0
        marks = ",".join("?" * len(ids))
        with transaction(self.con):
            freed = self.con.execute(f"SELECT coalesce(sum(bytes), 0) FROM media WHERE id IN ({marks})", ids)
            freed = int(freed.fetchone()[0])
            self.con.execute(f"DELETE FROM media WHERE id IN ({marks})", ids)
        self.empty_trash()
        return freed

    def empty_trash(self) -> int:
        """Unlink the files of deleted media rows (kept in media_trash until the deletion committed)."""
        names = [r[0] for r in self.con.execute("SELECT path FROM media_trash")]
        for name in names:
            self.vault.delete(name)
        if names:
            with transaction(self.con):
                self.con.executemany("DELETE FROM media_trash WHERE path = ?", [(n,) for n in names])
        return len(names)

    def orphan_files(self, older_than_s: float = 600.0) -> list[str]:
        """Media files with no row (a crash between writing the file and committing its row)."""
        known = {r[0] for r in self.con.execute("SELECT path FROM media")}
        cutoff = time.time() - older_than_s
        return [n for n in self.vault.files() if n not in known and (self.vault.folder / n).stat().st_mtime < cutoff]

    # search primitives
    def dense_search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(utterance id, cosine distance) of the k nearest utterances (exact, or by the IVF index: `DenseIndex`)."""
        return self.dense.search(query, k)

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The stored float32 vectors of these utterances (point lookups), missing ones left out."""
        rows = in_chunks(self.con, "SELECT id, embedding FROM utterance_vectors WHERE id IN ({marks})", ids)
        return {int(uid): np.frombuffer(blob, np.float32) for uid, blob in rows}

    def turns(self, ids: list[int]) -> dict[int, Turn]:
        """Where these utterances sit (session, speaker, start), those that exist: from RAM beside the ANN
        index when there is one, else from the store."""
        turns = self.dense.current_turns()
        if turns is not None:
            return turns.get(ids)
        uids, sessions, people, starts = read_turns(self.con, ids)
        return {
            int(u): Turn(int(s), None if p < 0 else int(p), float(t))
            for u, s, p, t in zip(uids, sessions, people, starts, strict=True)
        }

    def neighbours(self, ids: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """The utterances just before and just after each of these in its session (None at either end),
        those that exist. From RAM beside the ANN index when there is one (the store is asked only where a
        session's turns are far apart). Otherwise, a session's turns mostly having consecutive ids, the ids
        on either side are read first; only where one of them is in another session or gone is the
        session's index asked."""
        turns = self.dense.current_turns()
        if turns is not None:
            out, unsure = turns.neighbours(ids)
            out.update(self._neighbours_by_session(unsure))
            return out
        wanted = sorted({x for uid in ids for x in (uid - 1, uid, uid + 1)})
        session = dict(in_chunks(self.con, "SELECT id, session_id FROM utterances WHERE id IN ({marks})", wanted))
        out: dict[int, tuple[int | None, int | None]] = {}
        unsure = []
        for uid in ids:
            if uid in session:
                before = uid - 1 if session.get(uid - 1) == session[uid] else None
                after = uid + 1 if session.get(uid + 1) == session[uid] else None
                out[uid] = (before, after)
                if before is None or after is None:
                    unsure.append(uid)
        out.update(self._neighbours_by_session(unsure))
        return out

    def _neighbours_by_session(self, ids: list[int]) -> dict[int, tuple[int | None, int | None]]:
        exact = (
            "SELECT u.id, "
            "(SELECT max(b.id) FROM utterances b WHERE b.session_id = u.session_id AND b.id < u.id), "
            "(SELECT min(a.id) FROM utterances a WHERE a.session_id = u.session_id AND a.id > u.id) "
            "FROM utterances u WHERE u.id IN ({marks})"
        )
        return {int(uid): (before, after) for uid, before, after in in_chunks(self.con, exact, ids)}

    def sessions_of(self, ids: np.ndarray) -> np.ndarray:
        """The session of each of these utterances (-1 where there is none): from RAM beside the ANN index
        when there is one, else from the store."""
        ids = np.asarray(ids, np.int64)
        turns = self.dense.current_turns()
        if turns is not None:
            inside = (ids >= 0) & (ids < len(turns.session))
            return np.where(inside, turns.session[np.where(inside, ids, 0)], -1)
        uids, sessions, _, _ = read_turns(self.con, sorted(set(ids.tolist())))
        known = dict(zip(uids.tolist(), sessions.tolist(), strict=True))
        return np.array([known.get(uid, -1) for uid in ids.tolist()], np.int64)

    def session_sizes(self, sessions: np.ndarray) -> tuple[np.ndarray, int, int]:
        """(utterances in each of these sessions, sessions, utterances in the memory): from RAM beside the ANN
        index when there is one, else from the store."""
        sessions = np.asarray(sessions, np.int64)
        turns = self.dense.current_turns()
        if turns is not None:
            inside = sessions < len(turns.size)
            return np.where(inside, turns.size[np.where(inside, sessions, 0)], 0), *turns.sessions()
        sql = "SELECT session_id, count(*) FROM utterances WHERE session_id IN ({marks}) GROUP BY 1"
        sizes = dict(in_chunks(self.con, sql, sessions.tolist()))
        n, total = self.con.execute("SELECT (SELECT count(*) FROM sessions), count(*) FROM utterances").fetchone()
        return np.array([sizes.get(s, 0) for s in sessions.tolist()], np.int64), int(n), int(total)

    def context_vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """Vectors good enough to score with: decoded from the in-RAM ANN index when there is one (cosine to
        the stored ones >= 0.999; no store reads), else the stored ones."""
        approx = self.dense.approximate(ids)
        return approx if approx is not None else self.vectors(ids)

    def set_vector(self, uid: int, vector: np.ndarray) -> None:
        """Replace an utterance's vector (after its text changed), noting it for the approximate index."""
        self.con.execute("UPDATE utterances_vec SET embedding = ? WHERE rowid = ?", (_blob(vector), uid))
        self.con.execute("UPDATE utterance_vectors SET embedding = ? WHERE id = ?", (_blob(vector), uid))
        self.con.execute("INSERT OR IGNORE INTO vec_dirty(id) VALUES (?)", (uid,))

    def dense_search_exact(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact KNN in sqlite-vec (a scan of every float32 vector)."""
        rows = self.con.execute(
            "SELECT rowid, distance FROM utterances_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (_blob(query), k),
        )
        return [(int(r), float(d)) for r, d in rows]

    def rescore(self, query: np.ndarray, candidates: list[int], k: int) -> list[tuple[int, float]]:
        """(id, exact cosine distance) of the k of `candidates` nearest to `query`, by their float32 vectors."""
        vectors = self.vectors(candidates)
        if not vectors:
            return []
        ids = np.array(list(vectors), np.int64)
        similarity = np.stack(list(vectors.values())) @ query
        order = np.argsort(-similarity, kind="stable")[:k]
        return [(int(ids[i]), float(1.0 - similarity[i])) for i in order]

    def bm25_search(
        self, words: Sequence[str], k: int, ids: tuple[int, int] | None = None, postings: int | None = None
    ) -> list[tuple[int, float]]:
        """(utterance id, bm25 score; lower is better) of the utterances holding any of `words`, optionally
        only of those with ids in the range `ids` (inclusive). With `postings`, in a memory larger than that
        the words are taken rarest first while the utterances holding them add up to at most that many
        (BM25 scores every utterance holding a word, so its time grows with their number; a word held by
        more than that many is left out)."""
        return self._bm25(self.con, words, k, ids, postings).ranked

    def bm25_search_async(
        self, words: Sequence[str], k: int, ids: tuple[int, int] | None = None, postings: int | None = None
    ) -> Future[Sparse]:
        """`bm25_search` on a second, read-only connection in a worker thread (SQLite lets go of the GIL
        while it works), so a caller can embed and run the dense search meanwhile. It sees what is
        committed. Its result also lists the utterances holding each word searched."""
        if self._reading is None:
            from app.store.db import connect_reader

            self._reader = connect_reader(self.path, self._key, self._cfg)
            self._reading = ThreadPoolExecutor(1, "bm25")
            self._reading.submit(_warm_fts, self._reader, self._cfg.ann_min_utterances)
        return self._reading.submit(self._bm25, self._reader, words, k, ids, postings, True)

    def _bm25(
        self,
        con,
        words: Sequence[str],
        k: int,
        ids: tuple[int, int] | None,
        postings: int | None,
        holders: bool = False,
    ) -> Sparse:
        if postings is not None:
            size = _high_water(con)
            if size > postings:
                docs = {w: self._term_docs(con, w, postings + 1, size) for w in words}
                kept, total = set(), 0
                for w in sorted(words, key=docs.__getitem__):
                    if total + docs[w] > postings:
                        break
                    kept.add(w)
                    total += docs[w]
                words = [w for w in words if w in kept]
        match = fts_match(words)
        if not match:
            return Sparse([], {})
        span = "" if ids is None else "AND rowid BETWEEN ? AND ? "  # FTS5 reads only this stretch of postings
        within = () if ids is None else ids
        rows = con.execute(
            f"SELECT rowid, bm25(utterances_fts) AS s FROM utterances_fts WHERE utterances_fts MATCH ? {span}"
            "ORDER BY s LIMIT ?",
            (match, *within, k),
        )
        ranked = [(int(r), float(s)) for r, s in rows]
        held = {}
        for w in words if holders else ():  # one string per word: SQLite's loop, not Python's, while the
            # caller's thread works beside this one (a row at a time, each handing the GIL over, cost 15 ms)
            listed = f"SELECT group_concat(rowid) FROM utterances_fts WHERE utterances_fts MATCH ? {span}"
            text = con.execute(listed, (fts_match([w]), *within)).fetchone()[0]
            held[w] = np.fromstring(text or "", dtype=np.int64, sep=",")
        return Sparse(ranked, held)

    def _term_docs(self, con, word: str, cap: int, size: int) -> int:
        """How many utterances hold `word`, counted up to `cap` (more is reported as cap); cached until the
        memory (`size`, its high-water mark) grows by a tenth: it only guides which words are worth a BM25
        search, and counting stops early, so a common word costs no more than a rare one."""
        hit = self._word_docs.get(word)
        if hit is not None and size <= hit[1] * 1.1 and hit[2] == cap:
            return hit[0]
        count = con.execute(
            "SELECT count(*) FROM (SELECT rowid FROM utterances_fts WHERE utterances_fts MATCH ? LIMIT ?)",
            (fts_match([word]), cap),
        )
        docs = int(count.fetchone()[0])
        self._word_docs[word] = (docs, size, cap)
        return docs

    def any_between(self, t0: float, t1: float) -> bool:
        """Whether any utterance starts within [t0, t1] (one index seek)."""
        return (
            self.con.execute("SELECT 1 FROM utterances WHERE t_start BETWEEN ? AND ? LIMIT 1", (t0, t1)).fetchone()
            is not None
        )

    def utterance_ids_between(self, t0: float, t1: float, limit: int) -> list[int] | None:
        """Ids of the utterances starting within [t0, t1] when there are at most `limit` of them, else None."""
        rows = self.con.execute(
            "SELECT id FROM utterances WHERE t_start BETWEEN ? AND ? LIMIT ?", (t0, t1, limit + 1)
        ).fetchall()
        return [int(r[0]) for r in rows] if len(rows) <= limit else None

    # state
    def stats(self) -> dict:
        one = self.con.execute
        return {
            "schema_version": version(self.con),
            "people": int(one("SELECT count(*) FROM people").fetchone()[0]),
            "sessions": int(one("SELECT count(*) FROM sessions").fetchone()[0]),
            "utterances": int(one("SELECT count(*) FROM utterances").fetchone()[0]),
            "voice_keys": int(one("SELECT count(*) FROM voice_keys").fetchone()[0]),
            "face_keys": int(one("SELECT count(*) FROM face_keys").fetchone()[0]),
            "media_files": int(one("SELECT count(*) FROM media").fetchone()[0]),
            "media_bytes": int(one("SELECT coalesce(sum(bytes), 0) FROM media").fetchone()[0]),
            "dense_index": self.dense.describe(),
            "size_bytes": sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")),
        }


def _high_water(con) -> int:
    """The largest utterance id: the memory's size, near enough, at the cost of one index lookup."""
    return con.execute("SELECT coalesce(max(id), 0) FROM utterances").fetchone()[0]


def _warm_fts(con, large: int) -> None:
    """Read a large memory's word index and document lengths into this connection's page cache (at a
    million utterances ~85 MB, ~0.5 s from disk): BM25 looks up the length of every utterance it scores,
    and on a cold cache each lookup is a random read (a 1,200-utterance search took 16 ms instead of 1.7)."""
    if _high_water(con) >= large:
        con.execute("SELECT sum(length(sz)) FROM utterances_fts_docsize").fetchone()
        con.execute("SELECT sum(length(substr(block, -1))) FROM utterances_fts_data").fetchone()  # whole blocks
