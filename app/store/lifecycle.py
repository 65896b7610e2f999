"""Whole-memory operations: change the key (`rekey`) and wipe everything (`purge`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.config import StoreConfig
from app.store.db import kdf_cost
from app.store.keys import SALT_BYTES, Secret, derive_key
from app.store.memory import INDEX_DIR, MEDIA_DIR, Memory
from app.store.vault import MediaVault, media_key


def rekey(memory: Memory, new: Secret, cfg: StoreConfig) -> int:
    """Re-key the database and re-encrypt the media under the new secret; returns media files re-sealed.

    Media are re-sealed to side files first, the database is re-keyed (one transaction), then the side files
    replace the originals; `Memory.open` completes that last step after a crash (`MediaVault.finish_reseal`).
    """
    with memory.path.open("rb") as fh:
        salt = fh.read(SALT_BYTES)
    key = derive_key(new, salt, kdf_cost(memory.path, cfg, exists=True))
    target = MediaVault(memory.vault.folder, media_key(key))
    names = [m.path for m in memory.media.rows()]
    for name in names:
        memory.vault.reseal(name, target)
    memory.search.close_reader()  # keyed with the old key
    memory.con.execute(f"PRAGMA rekey = \"x'{key.hex()}'\"")
    memory.set_key(key)
    memory.vault = target
    memory.vault.finish_reseal()
    memory.dense.drop_file()  # sealed under the old key; rebuilt (and sealed anew) when next needed
    memory.dense.vault = MediaVault(memory.dense.vault.folder, media_key(key))
    memory.dense.unsaved += 1
    return len(names)


def purge(db_path: Path) -> list[Path]:
    """Delete the database, its WAL and sidecars, and the media folder; returns what was removed."""
    gone = []
    for path in sorted(db_path.parent.glob(db_path.name + "*")):
        path.unlink()
        gone.append(path)
    for folder in (db_path.parent / MEDIA_DIR, db_path.parent / INDEX_DIR):
        if folder.exists():
            shutil.rmtree(folder)
            gone.append(folder)
    return gone
