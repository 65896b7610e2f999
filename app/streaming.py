"""Pieces that a worker thread produces (an answer's words as the model writes them), streamed on the asyncio
loop as they come, then how it ended: one bridge, one shape for every streamed route."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.errors import AppError

T = TypeVar("T")


@dataclass(frozen=True)
class Ended(Generic[T]):
    """The last item of a stream: the worker's result, or the one-line error that stopped it."""

    result: T | None = None
    error: str | None = None


async def from_thread(start: Callable[[Callable[[str], None]], Awaitable[T]]) -> AsyncIterator[str | Ended[T]]:
    """`start(on_piece)` runs the work (on a thread: `on_piece` may be called from any thread); yields each
    piece, then `Ended`. An `AppError` becomes `Ended(error=…)`; anything else propagates."""
    loop = asyncio.get_running_loop()
    pieces: asyncio.Queue[str | None] = asyncio.Queue()

    def on_piece(text: str) -> None:
        loop.call_soon_threadsafe(pieces.put_nowait, text)

    async def work() -> T:
        try:
            return await start(on_piece)
        finally:
            loop.call_soon_threadsafe(pieces.put_nowait, None)

    task = asyncio.ensure_future(work())
    try:
        while (text := await pieces.get()) is not None:
            yield text
        try:
            yield Ended(await task)
        except AppError as e:
            yield Ended(error=str(e))
    finally:
        if not task.done():  # the client went away: the answer's thread finishes on its own
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
