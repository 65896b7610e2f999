"""Opening the encrypted database: SQLCipher key first, then sqlite-vec, then WAL and migrations."""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import sqlite_vec

from app.config import StoreConfig
from app.errors import DiskFullError, StoreError, StoreKeyError
from app.store import names
from app.store.keys import SALT_BYTES, Secret, derive_key
from app.store.migrations import migrate

_LOGGER = logging.getLogger(__name__)


def _driver():
    try:
        # here, not at the top: a missing driver is one StoreError when a memory opens
        import sqlcipher3.dbapi2 as driver
    except ImportError as e:
        raise StoreError("sqlcipher3 is not installed: pip install sqlcipher3") from e
    return driver


def _load_vec(con) -> None:
    con.enable_load_extension(True)
    try:
        con.load_extension(sqlite_vec.loadable_path())
    finally:
        con.enable_load_extension(False)


def _kdf_file(path: Path) -> Path:
    return path.with_name(path.name + ".kdf.json")


def kdf_cost(path: Path, cfg: StoreConfig, exists: bool) -> int:
    """The scrypt cost the database was created with (kept beside it, not secret); a new database takes the
    configured cost, so changing store.kdf_log2_n never locks an existing memory."""
    sidecar = _kdf_file(path)
    if exists:
        try:
            params = json.loads(sidecar.read_text())
            return int(params["log2_n"])
        except FileNotFoundError:
            return StoreConfig().kdf_log2_n
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise StoreError(f"{sidecar} is damaged ({e}); it holds the key-derivation cost of {path}") from None
    tmp = sidecar.with_suffix(".tmp")
    tmp.write_text(json.dumps({"kdf": "scrypt", "log2_n": cfg.kdf_log2_n, "r": 8, "p": 1}))
    os.replace(tmp, sidecar)
    return cfg.kdf_log2_n


def _key(con, key: bytes, salt: bytes) -> None:
    """SQLCipher's raw key (no PBKDF2 of its own: the key is already derived) and its salt."""
    con.execute("PRAGMA cipher_log_level = NONE")
    con.execute(f"PRAGMA key = \"x'{key.hex()}{salt.hex()}'\"")


def _writing(con) -> None:
    """What every connection that writes needs (the first one also sets WAL mode, which the file keeps)."""
    _load_vec(con)
    con.execute("PRAGMA synchronous = FULL")  # a committed utterance survives power loss
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("PRAGMA recursive_triggers = ON")  # deleting a summary deletes the summaries built on it
    con.execute("PRAGMA secure_delete = ON")  # deleted rows are overwritten, not left in free pages


def _session(con, cfg: StoreConfig) -> None:
    """What every connection has: memory for temporary data, its cache, the `mentions` SQL function."""
    con.execute("PRAGMA temp_store = MEMORY")  # no plaintext temporary files
    con.execute(f"PRAGMA cache_size = -{cfg.cache_mb * 1024}")
    names.register(con)


def connect(path: Path, secret: Secret, cfg: StoreConfig, create: bool = False) -> tuple:
    """(connection, raw key): open, keyed, migrated. Wrong key or a damaged file: StoreKeyError, one line."""
    driver = _driver()
    exists = path.exists() and path.stat().st_size > 0
    if not exists and not create:
        raise StoreError(f"no memory at {path} yet: record something first (python -m app run --source ...)")
    if exists:
        with path.open("rb") as fh:
            salt = fh.read(SALT_BYTES)
        if len(salt) < SALT_BYTES:
            raise StoreKeyError(f"{path} is not a memory database (too short)")
    else:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        salt = os.urandom(SALT_BYTES)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # owner-only; SQLite's -wal/-shm follow it
    key = derive_key(secret, salt, kdf_cost(path, cfg, exists))
    con = driver.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
    try:
        _key(con, key, salt)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except driver.DatabaseError:
            raise StoreKeyError(
                f"wrong key for {path} (or the file is damaged or not a memory "
                f"database); the key came from {secret.source}"
            ) from None
        con.execute("PRAGMA journal_mode = WAL")
        _writing(con)
        _session(con, cfg)
        migrate(con)
    except driver.DatabaseError as e:
        con.close()
        if _is_full(e):  # recovering or checkpointing a WAL needs room too
            raise DiskFullError(f"cannot open the memory: {e} (is the disk full?)") from None
        raise StoreError(f"{path}: {e}") from None
    except BaseException:
        con.close()
        raise
    return con, key


def connect_reader(path: Path, key: bytes, cfg: StoreConfig, writer: bool = False):
    """A second connection to an open memory (same raw key: no key derivation): read-only for searches that
    run beside the main connection's, or (`writer`) for a background thread that writes too — SQLite lets
    one write at a time and the other waits."""
    driver = _driver()
    with path.open("rb") as fh:
        salt = fh.read(SALT_BYTES)
    con = driver.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30.0)
    try:
        _key(con, key, salt)
        if writer:
            _writing(con)
        else:
            con.execute("PRAGMA query_only = ON")
        _session(con, cfg)
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except driver.DatabaseError as e:
        con.close()
        raise StoreError(f"{path}: cannot open a second connection: {e}") from None
    return con


@contextlib.contextmanager
def transaction(con) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; inside an open transaction, part of it."""
    if con.in_transaction:
        yield
        return
    con.execute("BEGIN IMMEDIATE")
    try:
        yield
        con.execute("COMMIT")
    except BaseException as e:
        if con.in_transaction:
            try:
                con.execute("ROLLBACK")
            except Exception as rollback_error:  # after an I/O error SQLite may refuse; the WAL is undone on open
                if not _is_full(e):
                    raise rollback_error from e
        if _is_full(e):
            raise DiskFullError(f"cannot write to the memory: {e} (is the disk full?)") from None
        raise


def _is_full(err: BaseException) -> bool:
    """SQLITE_FULL or SQLITE_IOERR (SQLite reports a write cut short by a file-size limit as an I/O error),
    or the OS's ENOSPC / EFBIG / EDQUOT."""
    if isinstance(err, OSError):
        return err.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
    text = str(err)
    return type(err).__name__ == "OperationalError" and ("full" in text or "disk I/O error" in text)


def in_chunks(con, sql: str, ids: Sequence[int]) -> Iterator[tuple]:
    """The rows of `sql`, whose `{marks}` is an IN list, over `ids` 500 at a time (SQLite caps parameters)."""
    for start in range(0, len(ids), 500):
        chunk = [int(uid) for uid in ids[start : start + 500]]
        yield from con.execute(sql.format(marks=",".join("?" * len(chunk))), chunk)


def vector_blob(vec: np.ndarray) -> bytes:
    """A vector as stored: float32 bytes."""
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()
