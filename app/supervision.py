"""How every long-running stage is kept alive, the same way (wyoming-satellite's loops): a stage that fails is
logged with its traceback, reset (started again as a fresh coroutine, its state new), backed off, and goes on.
An `AppError` is the user's to read and ends the stage at once; a stage that keeps failing fast gives up."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from app.errors import AppError

_LOGGER = logging.getLogger(__name__)
FIRST_BACKOFF_S = 0.1
MAX_BACKOFF_S = 5.0
MAX_FAST_FAILURES = 5  # in a row, each within HEALTHY_S of its start: the stage cannot run; raise
HEALTHY_S = 30.0


async def supervised(name: str, stage: Callable[[], Awaitable[None]]) -> None:
    """Run `stage()` until it returns; restart it after an unexpected failure."""
    backoff, fast = FIRST_BACKOFF_S, 0
    while True:
        started = time.monotonic()
        try:
            await stage()
            return
        except (AppError, asyncio.CancelledError):
            raise
        except Exception:
            if time.monotonic() - started >= HEALTHY_S:
                backoff, fast = FIRST_BACKOFF_S, 0
            fast += 1
            if fast >= MAX_FAST_FAILURES:
                _LOGGER.error("the %s stage failed %d times in a row; giving up", name, fast)
                raise
            _LOGGER.exception("the %s stage failed; restarting it in %.1f s", name, backoff)
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF_S)
