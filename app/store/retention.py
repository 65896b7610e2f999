"""The rolling deletion of raw media: by age (per kind), then by the storage budget, oldest first."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from app.config import RetentionConfig
from app.store.memory import Memory

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepResult:
    expired: int  # files past their time
    over_budget: int  # files removed to get under retention.max_gb
    orphans: int  # files left by a crash between writing the file and recording it
    freed_bytes: int


def sweep(memory: Memory, cfg: RetentionConfig, now: float | None = None) -> SweepResult:
    """Delete what is due. Safe to run at any time, from the recorder's writer thread or a command."""
    now = time.time() if now is None else now
    memory.media.empty_trash()
    expired = memory.media.rows("expires_at <= ?", (now,))
    freed = memory.media.delete_media([m.id for m in expired])
    budget = int(cfg.max_gb * 1e9)
    kept = memory.media.rows()  # oldest first
    total = sum(m.bytes for m in kept)
    drop = []
    for m in kept:
        if total <= budget:
            break
        drop.append(m.id)
        total -= m.bytes
    freed += memory.media.delete_media(drop)
    orphans = memory.media.orphan_files()
    for name in orphans:
        freed += (memory.vault.folder / name).stat().st_size
        memory.vault.delete(name)
    result = SweepResult(len(expired), len(drop), len(orphans), freed)
    if expired or drop or orphans:
        _LOGGER.info(
            "retention: deleted %d expired, %d over budget, %d orphaned media files (%.1f MB)",
            result.expired,
            result.over_budget,
            result.orphans,
            freed / 1e6,
        )
    return result
