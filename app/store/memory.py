"""The memory API: one object over the encrypted database, its media and its in-RAM indexes, returning
dataclasses. Sessions and utterances live here; the rest is in the mixins it is made of."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.config import StoreConfig
from app.errors import DiskFullError
from app.store.db import connect, connect_reader, transaction, vector_blob
from app.store.derived import DerivedMixin
from app.store.keys import Secret
from app.store.media import MediaMixin
from app.store.migrations import version
from app.store.people import PeopleMixin
from app.store.search import SearchMixin
from app.store.turns import Turn
from app.store.vault import MediaVault, media_key
from app.store.vector_index import DenseIndex
from app.store.writing import WritingMixin

_LOGGER = logging.getLogger(__name__)


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


MEDIA_DIR = "media"
INDEX_DIR = "index"


class Memory(PeopleMixin, DerivedMixin, WritingMixin, MediaMixin, SearchMixin):
    """One connection to the encrypted memory and its media folder. One Memory per process, one thread.
    Its API is split by what it is about: people and identity keys (`PeopleMixin`), facts, relations and
    summaries (`DerivedMixin`), the consolidation queue and merges (`WritingMixin`), raw media (`MediaMixin`),
    search primitives (`SearchMixin`); here are opening, transactions, sessions and utterances."""

    def __init__(self, con, path: Path, key: bytes, cfg: StoreConfig | None = None) -> None:
        self.con = con
        self.path = path
        self.vault = MediaVault(path.parent / MEDIA_DIR, media_key(key))
        self.dense = DenseIndex(self, cfg or StoreConfig(), MediaVault(path.parent / INDEX_DIR, media_key(key)))
        self._closed = False
        self._after_commit: list = []
        self._written = None  # (signature, Written): facts and summaries as search documents (DerivedMixin.written)
        self._word_docs: dict[str, tuple[int, int, int]] = {}  # word -> (utterances holding it, size then, cap)
        self._key = key
        self._cfg = cfg or StoreConfig()
        self._reader = None  # a read-only connection for BM25 beside the dense search (see bm25_search_async)
        self._reading: ThreadPoolExecutor | None = None

    @classmethod
    def open(cls, path: Path, secret: Secret, cfg: StoreConfig, create: bool = False) -> Memory:
        con, key = connect(path, secret, cfg, create=create)
        memory = cls(con, path, key, cfg)
        memory.vault.finish_reseal()  # a rekey cut short by a crash is completed (or its stale files removed)
        return memory

    def second(self) -> Memory:
        """Another connection to this memory, for a thread of its own (memory writing beside the recorder)."""
        return Memory(connect_reader(self.path, self._key, self._cfg, writer=True), self.path, self._key, self._cfg)

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

    # sessions and utterances
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
            vector = vector_blob(u.embedding)
            self.con.execute("INSERT INTO utterances_vec(rowid, embedding) VALUES (?, ?)", (uid, vector))
            self.con.execute("INSERT INTO utterance_vectors(id, embedding) VALUES (?, ?)", (uid, vector))
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

    def all_utterances(self) -> list[StoredUtterance]:
        ids = [int(r[0]) for r in self.con.execute("SELECT id FROM utterances ORDER BY t_start, id")]
        found = self.utterances(ids)
        return [found[i] for i in ids]

    def rows(self, table: str, where: str = "1", args: tuple = ()) -> list[dict]:
        """Every row of a table as a dict, embeddings left out (for export and inspection)."""
        cur = self.con.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY rowid", args)
        names = [d[0] for d in cur.description]
        return [{k: v for k, v in zip(names, r, strict=True) if not isinstance(v, bytes)} for r in cur]

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
            "memory_jobs": int(one("SELECT count(*) FROM consolidation_queue").fetchone()[0]),
            "memory_job_errors": self.job_errors(),
            "size_bytes": sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")),
        }
