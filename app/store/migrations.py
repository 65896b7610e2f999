"""Numbered schema migrations, each applied with its bookkeeping row in one transaction."""

from __future__ import annotations

import time
from collections.abc import Callable

TEXT_DIM = 384


def _script(con, sql: str) -> None:
    """Run statements one by one: executescript would COMMIT the migration's open transaction."""
    from sqlcipher3.dbapi2 import complete_statement

    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if complete_statement(pending):
            con.execute(pending)
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement: {pending[:80]!r}")


def _m001_initial(con) -> None:
    _script(
        con,
        f"""
    CREATE TABLE people(
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL
    );
    CREATE TABLE voice_keys(
        id INTEGER PRIMARY KEY,
        person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL,          -- float32 unit vector
        quality REAL NOT NULL,            -- seconds of speech it was computed from
        created_at REAL NOT NULL
    );
    CREATE TABLE face_keys(
        id INTEGER PRIMARY KEY,
        person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL,          -- float32, backend-specific (dlib: 128-d)
        quality REAL NOT NULL,            -- face width in pixels
        created_at REAL NOT NULL
    );
    CREATE TABLE sessions(
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        t_start REAL NOT NULL,            -- event time, seconds since the epoch
        t_end REAL NOT NULL
    );
    CREATE TABLE utterances(
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        person_id INTEGER REFERENCES people(id) ON DELETE SET NULL,
        text TEXT NOT NULL,
        t_start REAL NOT NULL,            -- event time, seconds since the epoch
        t_end REAL NOT NULL,
        ingested_at REAL NOT NULL,        -- when it was stored
        asr_confidence REAL NOT NULL,
        asr_model TEXT NOT NULL,
        face_seen INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX utterances_time ON utterances(t_start);
    CREATE INDEX utterances_person ON utterances(person_id, t_start);
    CREATE INDEX utterances_session ON utterances(session_id);
    CREATE VIRTUAL TABLE utterances_fts USING fts5(
        text, content='utterances', content_rowid='id', tokenize='porter unicode61');
    CREATE VIRTUAL TABLE utterances_vec USING vec0(embedding float[{TEXT_DIM}] distance_metric=cosine);
    CREATE TRIGGER utterances_ai AFTER INSERT ON utterances BEGIN
        INSERT INTO utterances_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER utterances_ad AFTER DELETE ON utterances BEGIN
        INSERT INTO utterances_fts(utterances_fts, rowid, text) VALUES ('delete', old.id, old.text);
        DELETE FROM utterances_vec WHERE rowid = old.id;
    END;
    CREATE TRIGGER utterances_au AFTER UPDATE OF text ON utterances BEGIN
        INSERT INTO utterances_fts(utterances_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO utterances_fts(rowid, text) VALUES (new.id, new.text);
    END;
    """,
    )


def _m002_key_models(con) -> None:
    """Keys remember the model that made them: embeddings of different models are never compared."""
    _script(
        con,
        """
    ALTER TABLE voice_keys ADD COLUMN model TEXT NOT NULL DEFAULT 'resemblyzer';
    ALTER TABLE face_keys ADD COLUMN model TEXT NOT NULL DEFAULT 'dlib';
    CREATE INDEX voice_keys_model ON voice_keys(model, person_id);
    CREATE INDEX face_keys_model ON face_keys(model, person_id);
    """,
    )


MIGRATIONS: list[tuple[int, str, Callable]] = [
    (1, "people, keys, sessions, utterances with FTS5 and vector index", _m001_initial),
    (2, "the model of each voice and face key", _m002_key_models),
]


def version(con) -> int:
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, "
        "name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    row = con.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def migrate(con) -> int:
    """Apply every migration newer than the database; returns the resulting version."""
    current = version(con)
    for number, name, fn in MIGRATIONS:
        if number <= current:
            continue
        con.execute("BEGIN IMMEDIATE")
        try:
            if version(con) >= number:  # another process migrated meanwhile
                con.execute("ROLLBACK")
                continue
            fn(con)
            con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (number, name, time.time()))
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
        current = number
    return current
