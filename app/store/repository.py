"""What the parts of `Memory` share: each repository (people, turns, derived memory, memory writing, media,
search) holds the one Memory it belongs to, not a connection of its own, so that all of them read and write
through its one connection and `with memory.batch():` is one transaction across them."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from app.config import StoreConfig
from app.store.vault import MediaVault
from app.store.vector_index import DenseIndex


class Owner(Protocol):
    """The Memory, as its repositories see it (`Memory` imports them, so it is not named here)."""

    con: Any  # the SQLCipher connection
    path: Path
    cfg: StoreConfig
    vault: MediaVault  # replaced by a rekey: read it through the Memory each time
    dense: DenseIndex
    media: Any  # its `Media` (emptying the media trash after a deletion elsewhere)

    def batch(self) -> AbstractContextManager[None]: ...

    def after_commit(self, hook: Callable[[], None]) -> None: ...

    def reader(self) -> Any: ...


class Repository:
    """One part of a Memory's API, over its connection."""

    def __init__(self, memory: Owner) -> None:
        self._m = memory

    @property
    def con(self) -> Any:
        return self._m.con
