"""The memory API: one object over the encrypted database, its media and its in-RAM indexes, returning
dataclasses. Its repositories hold the API by what it is about; here are opening, the transaction and closing."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path

from app.config import StoreConfig
from app.errors import DiskFullError
from app.store.db import connect, connect_reader, transaction
from app.store.derived import Derived
from app.store.keys import Secret
from app.store.media import Media
from app.store.migrations import version
from app.store.people import People
from app.store.search import Search
from app.store.utterances import Utterances
from app.store.vault import MediaVault, media_key
from app.store.vector_index import DenseIndex
from app.store.writing import Writing

_LOGGER = logging.getLogger(__name__)


MEDIA_DIR = "media"
INDEX_DIR = "index"


class Memory:
    """One connection to the encrypted memory and its media folder. One Memory per process, one thread.
    Its API is split into repositories by what it is about, all over this one connection and its transaction
    (`with memory.batch():` wraps writes across them):

    - `people`: people, their voice and face keys, consent, renaming, merging and splitting them;
    - `turns`: sessions and their utterances;
    - `derived`: derived memory (facts, relations, summaries) and a person's profile;
    - `writing`: memory writing's durable queue, what it reads and the updates it writes;
    - `media`: raw media in the vault and the faces in kept frames;
    - `search`: search primitives (dense, BM25, where utterances sit).

    Here are opening, a second connection, the transaction, closing and whole-table reads."""

    def __init__(self, con, path: Path, key: bytes, cfg: StoreConfig | None = None) -> None:
        self.con = con
        self.path = path
        self.cfg = cfg or StoreConfig()
        self.vault = MediaVault(path.parent / MEDIA_DIR, media_key(key))
        self.dense = DenseIndex(self, self.cfg, MediaVault(path.parent / INDEX_DIR, media_key(key)))
        self.people = People(self)
        self.turns = Utterances(self)
        self.derived = Derived(self)
        self.writing = Writing(self)
        self.media = Media(self)
        self.search = Search(self)
        self._closed = False
        self._after_commit: list[Callable[[], None]] = []
        self._key = key

    @classmethod
    def open(cls, path: Path, secret: Secret, cfg: StoreConfig, create: bool = False) -> Memory:
        con, key = connect(path, secret, cfg, create=create)
        memory = cls(con, path, key, cfg)
        memory.vault.finish_reseal()  # a rekey cut short by a crash is completed (or its stale files removed)
        return memory

    def second(self) -> Memory:
        """Another connection to this memory, for a thread of its own (memory writing beside the recorder)."""
        return Memory(connect_reader(self.path, self._key, self.cfg, writer=True), self.path, self._key, self.cfg)

    def reader(self):
        """A new read-only connection to this memory (BM25 in a worker thread beside the dense search)."""
        return connect_reader(self.path, self._key, self.cfg)

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

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run `hook` once the outermost batch has committed (never, if it rolls back)."""
        self._after_commit.append(hook)

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
            self.search.close_reader()
            self.con.close()

    def set_key(self, key: bytes) -> None:
        """The raw key after a rekey (a reader opened later needs it)."""
        self._key = key

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

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
            "memory_job_errors": self.writing.job_errors(),
            "size_bytes": sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")),
        }
