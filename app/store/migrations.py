"""Numbered schema migrations, each applied with its bookkeeping row in one transaction."""

from __future__ import annotations

import time
from collections.abc import Callable

TEXT_DIM = 384


def _script(con, sql: str) -> None:
    """Run statements one by one: executescript would COMMIT the migration's open transaction."""
    # the driver loads where a memory opens (db._driver), not with this module
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


def _m003_memory_and_provenance(con) -> None:
    """Consent, raw media, and the derived memory (facts, relations, summaries), each row citing its sources.

    Deleting a source deletes everything derived from it: a fact, relation or summary that cites a deleted
    utterance goes (even if it cites others too), and a summary goes with any summary it was built from.
    """
    _script(
        con,
        """
    ALTER TABLE people ADD COLUMN consent TEXT NOT NULL DEFAULT 'unknown';  -- unknown | given | refused
    CREATE TABLE media(
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,               -- audio | frame
        session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
        person_id INTEGER REFERENCES people(id) ON DELETE CASCADE,
        utterance_id INTEGER REFERENCES utterances(id) ON DELETE CASCADE,
        t_start REAL NOT NULL,            -- event time of what it holds
        t_end REAL NOT NULL,
        path TEXT NOT NULL UNIQUE,        -- file name in the media folder
        bytes INTEGER NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX media_expiry ON media(expires_at);
    CREATE INDEX media_time ON media(t_start);
    CREATE INDEX media_person ON media(person_id);
    CREATE INDEX media_utterance ON media(utterance_id);
    CREATE TABLE media_trash(path TEXT PRIMARY KEY);  -- files whose rows are gone, to unlink after commit
    CREATE TRIGGER media_ad AFTER DELETE ON media BEGIN
        INSERT OR IGNORE INTO media_trash(path) VALUES (old.path);
    END;
    CREATE TABLE facts(
        id INTEGER PRIMARY KEY,
        person_id INTEGER REFERENCES people(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,               -- fact | preference | plan | ...
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        valid_from REAL,                  -- when it became true (event time), NULL if unknown
        valid_to REAL,                    -- when it stopped being true; NULL while it holds
        learned_at REAL NOT NULL,         -- when the memory learned it
        importance REAL NOT NULL DEFAULT 0.5
    );
    CREATE INDEX facts_person ON facts(person_id, key);
    CREATE TABLE fact_sources(
        fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
        utterance_id INTEGER NOT NULL REFERENCES utterances(id) ON DELETE CASCADE,
        PRIMARY KEY (fact_id, utterance_id)
    );
    CREATE INDEX fact_sources_utterance ON fact_sources(utterance_id);
    CREATE TABLE relations(
        id INTEGER PRIMARY KEY,
        subject_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
        relation TEXT NOT NULL,           -- colleague, brother, ...
        object_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
        valid_from REAL,
        valid_to REAL,
        learned_at REAL NOT NULL
    );
    CREATE TABLE relation_sources(
        relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
        utterance_id INTEGER NOT NULL REFERENCES utterances(id) ON DELETE CASCADE,
        PRIMARY KEY (relation_id, utterance_id)
    );
    CREATE INDEX relation_sources_utterance ON relation_sources(utterance_id);
    CREATE TABLE summaries(
        id INTEGER PRIMARY KEY,
        level INTEGER NOT NULL,           -- 1 = built from utterances, 2+ = from summaries below
        t_start REAL NOT NULL,
        t_end REAL NOT NULL,
        text TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE summary_sources(
        summary_id INTEGER NOT NULL REFERENCES summaries(id) ON DELETE CASCADE,
        utterance_id INTEGER REFERENCES utterances(id) ON DELETE CASCADE,
        child_id INTEGER REFERENCES summaries(id) ON DELETE CASCADE,
        CHECK ((utterance_id IS NULL) != (child_id IS NULL))
    );
    CREATE INDEX summary_sources_summary ON summary_sources(summary_id);
    CREATE INDEX summary_sources_utterance ON summary_sources(utterance_id);
    CREATE INDEX summary_sources_child ON summary_sources(child_id);
    CREATE TABLE rederive(                -- spans whose summaries were deleted and are to be rebuilt
        id INTEGER PRIMARY KEY,
        level INTEGER NOT NULL,
        t_start REAL NOT NULL,
        t_end REAL NOT NULL
    );
    CREATE TRIGGER utterances_bd_derived BEFORE DELETE ON utterances BEGIN
        DELETE FROM facts WHERE id IN (SELECT fact_id FROM fact_sources WHERE utterance_id = old.id);
        DELETE FROM relations WHERE id IN (SELECT relation_id FROM relation_sources WHERE utterance_id = old.id);
        DELETE FROM summaries WHERE id IN (SELECT summary_id FROM summary_sources WHERE utterance_id = old.id);
    END;
    CREATE TRIGGER summaries_bd_parents BEFORE DELETE ON summaries BEGIN
        INSERT INTO rederive(level, t_start, t_end) VALUES (old.level, old.t_start, old.t_end);
        DELETE FROM summaries WHERE id IN (SELECT summary_id FROM summary_sources WHERE child_id = old.id);
    END;
    """,
    )


def _m004_key_provenance(con) -> None:
    """Identity keys are derived data too: each records the utterance it was computed from."""
    _script(
        con,
        """
    ALTER TABLE voice_keys ADD COLUMN utterance_id INTEGER REFERENCES utterances(id) ON DELETE CASCADE;
    ALTER TABLE face_keys ADD COLUMN utterance_id INTEGER REFERENCES utterances(id) ON DELETE CASCADE;
    CREATE INDEX voice_keys_utterance ON voice_keys(utterance_id);
    CREATE INDEX face_keys_utterance ON face_keys(utterance_id);
    """,
    )


def _m005_vector_changes(con) -> None:
    """Utterances whose vector was deleted or replaced since the approximate index was last saved."""
    _script(
        con,
        """
    CREATE TABLE vec_dirty(id INTEGER PRIMARY KEY);
    CREATE TRIGGER utterances_ad_dirty AFTER DELETE ON utterances BEGIN
        INSERT OR IGNORE INTO vec_dirty(id) VALUES (old.id);
    END;
    """,
    )


def _m006_vector_rows(con) -> None:
    """The float32 vectors again, one row per utterance, for point lookups: reading one vector out of a
    sqlite-vec chunk walks its overflow pages (75 ms for 50 at 1M rows); a B-tree row costs a few pages."""
    _script(
        con,
        """
    CREATE TABLE utterance_vectors(
        id INTEGER PRIMARY KEY REFERENCES utterances(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL           -- float32, the same vector as in utterances_vec
    );
    INSERT INTO utterance_vectors(id, embedding) SELECT rowid, embedding FROM utterances_vec;
    """,
    )


def _m007_change_log(con) -> None:
    """The set of changed utterances becomes a numbered log, so each process applies only the changes it has
    not seen (and learns when ones it has not seen were pruned); utterances moved to another session or
    person (a split, a merge) are logged too: the in-RAM turn table keeps where each utterance sits."""
    _script(
        con,
        """
    CREATE TABLE vec_changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL);
    CREATE TABLE vec_changes_pruned(upto INTEGER NOT NULL);  -- one row: changes up to here are in the saved index
    INSERT INTO vec_changes_pruned VALUES (0);
    INSERT INTO vec_changes(id) SELECT id FROM vec_dirty ORDER BY id;
    DROP TRIGGER utterances_ad_dirty;
    DROP TABLE vec_dirty;
    CREATE TRIGGER utterances_ad_changed AFTER DELETE ON utterances BEGIN
        INSERT INTO vec_changes(id) VALUES (old.id);
    END;
    CREATE TRIGGER utterances_au_changed AFTER UPDATE OF session_id, person_id, t_start ON utterances BEGIN
        INSERT INTO vec_changes(id) VALUES (new.id);
    END;
    """,
    )


def _m008_memory_writing(con) -> None:
    """What memory writing needs: facts that are typed and bi-temporal (polarity, how often they were said,
    which fact superseded them), their strength for forgetting (MOOM: the round they were learned in, the
    rounds they were recalled in, inhibition, faded), summaries of a kind (session, day, person) tied to what
    they are about, embeddings of facts and summaries for search, and the durable consolidation queue."""
    _script(
        con,
        """
    ALTER TABLE facts ADD COLUMN polarity INTEGER NOT NULL DEFAULT 0;  -- preferences: 1 likes, -1 dislikes
    ALTER TABLE facts ADD COLUMN seen INTEGER NOT NULL DEFAULT 1;      -- times it was said
    ALTER TABLE facts ADD COLUMN last_seen REAL;                        -- event time it was last said
    ALTER TABLE facts ADD COLUMN superseded_by INTEGER REFERENCES facts(id) ON DELETE SET NULL;
    ALTER TABLE facts ADD COLUMN round INTEGER NOT NULL DEFAULT 0;     -- memory round (sessions) when learned
    ALTER TABLE facts ADD COLUMN inhibition REAL NOT NULL DEFAULT 1.0; -- halved when it competes and loses
    ALTER TABLE facts ADD COLUMN faded INTEGER NOT NULL DEFAULT 0;     -- 1: out of the profile and of search
    ALTER TABLE facts ADD COLUMN embedding BLOB;                        -- float32 unit vector of its text
    CREATE INDEX facts_valid ON facts(person_id, valid_to, faded);
    CREATE TABLE fact_recalls(
        fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
        round INTEGER NOT NULL
    );
    CREATE INDEX fact_recalls_fact ON fact_recalls(fact_id);
    ALTER TABLE relations ADD COLUMN seen INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE summaries ADD COLUMN kind TEXT NOT NULL DEFAULT 'session';  -- session | day | person
    ALTER TABLE summaries ADD COLUMN session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE;
    ALTER TABLE summaries ADD COLUMN person_id INTEGER REFERENCES people(id) ON DELETE CASCADE;
    ALTER TABLE summaries ADD COLUMN embedding BLOB;
    CREATE INDEX summaries_kind ON summaries(kind, person_id, t_end);
    ALTER TABLE sessions ADD COLUMN consolidated_at REAL;  -- when its memory was written; NULL: not yet
    CREATE TABLE consolidation_queue(
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,               -- session | day | person
        ref INTEGER NOT NULL,             -- session id, day (days since the epoch), person id
        queued_at REAL NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        UNIQUE(kind, ref)
    );
    CREATE TRIGGER sessions_ad_queue AFTER DELETE ON sessions BEGIN
        DELETE FROM consolidation_queue WHERE kind = 'session' AND ref = old.id;
    END;
    CREATE TRIGGER people_ad_queue AFTER DELETE ON people BEGIN
        DELETE FROM consolidation_queue WHERE kind = 'person' AND ref = old.id;
    END;
    """,
    )


def _m009_addressed(con) -> None:
    """Utterances said to the voice companion (its requests) are kept but are not memory of the world: they
    never come back as evidence nor as someone's latest words."""
    _script(con, "ALTER TABLE utterances ADD COLUMN addressed INTEGER NOT NULL DEFAULT 0;")


def _m010_frame_faces(con) -> None:
    """The faces a kept frame shows, each with the person it was (when known) and its embedding: forgetting a
    person deletes every frame their face is in, whoever was speaking, and a person known only by their face
    is linked to the frames kept before they had a name. Frames kept before this migration show their
    speaker's face."""
    _script(
        con,
        """
    CREATE TABLE frame_faces(
        media_id INTEGER NOT NULL REFERENCES media(id) ON DELETE CASCADE,
        person_id INTEGER REFERENCES people(id) ON DELETE SET NULL,
        embedding BLOB
    );
    CREATE INDEX frame_faces_media ON frame_faces(media_id);
    CREATE INDEX frame_faces_person ON frame_faces(person_id);
    INSERT INTO frame_faces(media_id, person_id) SELECT id, person_id FROM media
        WHERE kind = 'frame' AND person_id IS NOT NULL;
    """,
    )


def _m011_overlapped(con) -> None:
    """People talk over each other: an utterance another voice spoke over keeps that as a fact of it."""
    _script(con, "ALTER TABLE utterances ADD COLUMN overlapped INTEGER NOT NULL DEFAULT 0;")


def _m012_owner(con) -> None:
    """The device's owner: the wearer, who "I" is in a question nobody else is named as asking."""
    _script(con, "ALTER TABLE people ADD COLUMN owner INTEGER NOT NULL DEFAULT 0;")


MIGRATIONS: list[tuple[int, str, Callable]] = [
    (1, "people, keys, sessions, utterances with FTS5 and vector index", _m001_initial),
    (2, "the model of each voice and face key", _m002_key_models),
    (3, "consent, raw media, facts, relations, summaries with provenance", _m003_memory_and_provenance),
    (4, "the utterance each identity key came from", _m004_key_provenance),
    (5, "vector changes since the approximate index was saved", _m005_vector_changes),
    (6, "float32 vectors by row for point lookups", _m006_vector_rows),
    (7, "a numbered log of changed utterances, moves included", _m007_change_log),
    (8, "typed bi-temporal facts, fact strength, summary kinds, the consolidation queue", _m008_memory_writing),
    (9, "utterances addressed to the companion", _m009_addressed),
    (10, "the faces each kept frame shows", _m010_frame_faces),
    (11, "utterances spoken over", _m011_overlapped),
    (12, "the device's owner", _m012_owner),
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
