"""Raw media (audio and video clips): encrypted files in the vault with a row each, deleted with their rows;
and the faces in kept frames. This is `Memory.media`."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from app.store.db import transaction, vector_blob
from app.store.repository import Repository
from app.store.vault import MediaVault


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


class Media(Repository):
    """Audio and video clips kept for a while, and the faces in kept frames."""

    @property
    def vault(self) -> MediaVault:
        return self._m.vault  # a rekey replaces it

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
        """Encrypt `data` to the media folder and record it; it expires `keep_s` seconds from now. A frame's
        faces are recorded with `add_frame_faces`."""
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

    def add_frame_faces(self, media_id: int, faces: list[tuple[int | None, np.ndarray]]) -> None:
        """The faces a kept frame shows: (person or None while unknown, embedding) each."""
        with transaction(self.con):
            self.con.executemany(
                "INSERT INTO frame_faces(media_id, person_id, embedding) VALUES (?, ?, ?)",
                [(media_id, pid, vector_blob(vec)) for pid, vec in faces],
            )

    def unknown_frame_faces(self) -> list[tuple[int, np.ndarray]]:
        """(row id, embedding) of faces in kept frames that belong to nobody yet."""
        rows = self.con.execute(
            "SELECT rowid, embedding FROM frame_faces WHERE person_id IS NULL AND embedding IS NOT NULL"
        )
        return [(int(r), np.frombuffer(blob, np.float32)) for r, blob in rows]

    def claim_frame_faces(self, person_id: int, rows: list[int]) -> None:
        """These faces in kept frames were `person_id`'s (a person known by their face alone)."""
        with transaction(self.con):
            self.con.executemany("UPDATE frame_faces SET person_id = ? WHERE rowid = ?", [(person_id, r) for r in rows])

    def rows(self, where: str = "1", args: tuple = ()) -> list[MediaRow]:
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
