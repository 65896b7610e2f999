"""People, their voice and face keys, consent, and fixing who said what (rename, merge, split): `Memory.people`."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from app.errors import NotFoundError, StoreError
from app.store.db import transaction, vector_blob
from app.store.names import replace as replace_name
from app.store.repository import Repository


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    utterances: int


class People(Repository):
    """Everyone the memory knows, by id and name, with their identity keys and consent."""

    def names(self) -> list[str]:
        return [r[0] for r in self.con.execute("SELECT name FROM people ORDER BY id")]

    def person_ids(self) -> dict[str, int]:
        """name -> id of everyone."""
        return {name: int(pid) for pid, name in self.con.execute("SELECT id, name FROM people")}

    def all(self) -> list[Person]:
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
                name = self._label(pid)
                self.con.execute("UPDATE people SET name = ? WHERE id = ?", (name, pid))
        return Person(pid, name, 0)

    def _label(self, pid: int) -> str:
        """What someone without a name is called: unknown_N, N their id (a "_" more while someone else was given
        that label as a name)."""
        name = f"unknown_{pid}"
        while self.person_id(name) is not None:
            name += "_"
        return name

    def unname(self, name: str) -> str:
        """The person called `name` is called by their label again (a name given by mistake); the label."""
        label = self._label(self._pid(name))
        self.rename_person(name, label)
        return label

    def _keys(self, table: str, model: str) -> dict[int, np.ndarray]:
        out: dict[int, list[np.ndarray]] = {}
        rows = self.con.execute(f"SELECT person_id, embedding FROM {table} WHERE model = ? ORDER BY id", (model,))
        for pid, blob in rows:
            out.setdefault(int(pid), []).append(np.frombuffer(blob, np.float32))
        return {pid: np.stack(v) for pid, v in out.items()}

    def voice_keys(self, model: str) -> dict[int, np.ndarray]:
        """person id -> (keys, dim) voice embeddings made by `model`."""
        return self._keys("voice_keys", model)

    def voice_key_seconds(self, model: str) -> dict[int, np.ndarray]:
        """person id -> the seconds of speech behind each of their voice keys by `model`, in voice_keys' order."""
        out: dict[int, list[float]] = {}
        rows = self.con.execute("SELECT person_id, quality FROM voice_keys WHERE model = ? ORDER BY id", (model,))
        for pid, seconds in rows:
            out.setdefault(int(pid), []).append(float(seconds))
        return {pid: np.array(v, np.float32) for pid, v in out.items()}

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
                (person_id, vector_blob(embedding), quality, time.time(), model, utterance_id),
            )
            self.con.execute(
                f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE person_id = ? AND model = ? "
                "ORDER BY quality DESC, id DESC LIMIT -1 OFFSET ?)",
                (person_id, model, cap),
            )

    def set_consent(self, name: str, state: str) -> None:
        if state not in ("given", "refused", "unknown"):
            raise ValueError(state)
        with transaction(self.con):
            if self.con.execute("UPDATE people SET consent = ? WHERE name = ?", (state, name)).rowcount != 1:
                raise NotFoundError(f"no person named {name!r}", "people")

    def set_owner(self, name: str) -> None:
        """`name` is the device's owner (its wearer, who "I" is); whoever was before is no longer."""
        pid = self._pid(name)
        with transaction(self.con):
            self.con.execute("UPDATE people SET owner = (id = ?)", (pid,))

    def owner(self) -> str | None:
        """The device's owner (`enroll --me`), None when none is set."""
        row = self.con.execute("SELECT name FROM people WHERE owner = 1 ORDER BY id LIMIT 1").fetchone()
        return None if row is None else row[0]

    def _pid(self, name: str) -> int:
        pid = self.person_id(name)
        if pid is None:
            raise NotFoundError(f"no person named {name!r}", "people")
        return pid

    def rename_person(self, old: str, new: str) -> None:
        pid = self._pid(old)
        if self.person_id(new) is not None:
            raise StoreError(f"{new!r} is already someone's name: merge them instead", "people merge")
        with transaction(self.con):
            self.con.execute("UPDATE people SET name = ? WHERE id = ?", (new, pid))
            # what memory writing wrote with the old label ("Unknown_3 is allergic to peanuts") says the name now
            for table, column in (("facts", "value"), ("summaries", "text"), ("relations", "relation")):
                rows = self.con.execute(
                    f"SELECT id, {column} FROM {table} WHERE mentions({column}, ?)", (old,)
                ).fetchall()
                for row_id, text in rows:
                    self.con.execute(
                        f"UPDATE {table} SET {column} = ? WHERE id = ?", (replace_name(text, old, new), row_id)
                    )

    def merge_people(self, keep: str, other: str) -> int:
        """`other` was `keep` all along: their utterances, keys, media, facts and relations move over."""
        into, gone = self._pid(keep), self._pid(other)
        if into == gone:
            raise StoreError("a person cannot be merged with themselves")
        with transaction(self.con):
            moved = self.con.execute("UPDATE utterances SET person_id = ? WHERE person_id = ?", (into, gone)).rowcount
            for table in ("voice_keys", "face_keys", "media", "facts", "frame_faces"):
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
            raise StoreError(f"not all of those utterances are {name}'s", "export")
        with transaction(self.con):
            person = self.add_person(new_name)
            self.reattribute(dict.fromkeys(owned, person.id))
        return Person(person.id, person.name, len(owned))

    def reattribute(self, moves: dict[int, int]) -> None:
        """Utterances given to other people (utterance id -> person id), with the keys learnt from them and their
        media: a conversation's turns given again once all of it was heard (app/recorder/writer.py)."""
        by_person: dict[int, list[int]] = {}
        for uid, pid in moves.items():
            by_person.setdefault(pid, []).append(uid)
        with transaction(self.con):
            for pid, uids in by_person.items():
                marks = ",".join("?" * len(uids))
                self.con.execute(f"UPDATE utterances SET person_id = ? WHERE id IN ({marks})", [pid, *uids])
                for table in ("voice_keys", "face_keys", "media"):
                    self.con.execute(f"UPDATE {table} SET person_id = ? WHERE utterance_id IN ({marks})", [pid, *uids])

    def last_seen(self, person_id: int, before: float) -> tuple[float | None, str]:
        """When the person last spoke before epoch second `before` (None: never), and their consent state."""
        row = self.con.execute(
            "SELECT (SELECT max(t_end) FROM utterances WHERE person_id = p.id AND t_end < ?), p.consent "
            "FROM people p WHERE p.id = ?",
            (before, person_id),
        ).fetchone()
        return (None, "unknown") if row is None else (row[0], row[1])

    def consented(self) -> set[int]:
        return {int(r[0]) for r in self.con.execute("SELECT id FROM people WHERE consent = 'given'")}

    def enforce_consent(self) -> int:
        """Consent mode: drop every identity key and raw media file of people who have not consented."""
        with transaction(self.con):
            n = self.con.execute(  # frames showing their face, whoever spoke
                "DELETE FROM media WHERE id IN (SELECT media_id FROM frame_faces WHERE person_id IN "
                "(SELECT id FROM people WHERE consent != 'given'))"
            ).rowcount
            for table in ("voice_keys", "face_keys", "media"):
                n += self.con.execute(
                    f"DELETE FROM {table} WHERE person_id IN (SELECT id FROM people WHERE consent != 'given')"
                ).rowcount
        self._m.media.empty_trash()
        return n

    def person_name(self, person_id: int) -> str | None:
        row = self.con.execute("SELECT name FROM people WHERE id = ?", (person_id,)).fetchone()
        return None if row is None else row[0]

    def person_id(self, name: str) -> int | None:
        row = self.con.execute("SELECT id FROM people WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])
