"""The bus's events for HTTP subscribers (`/v1/events`, the web page's live view): numbered, kept in RAM (the
last `service.events_kept`), so a subscriber that reconnects with the id of the last event it saw (SSE's
Last-Event-ID) gets every later one. Published from any thread (the recorder's store thread writes); read on
the asyncio loop."""

from __future__ import annotations

import asyncio
import collections
import json
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from app.events import Event as BusEvent
from app.store.names import mentions
from app.views import when


@dataclass(frozen=True)
class Event:
    id: int
    kind: str
    data: dict

    def sse(self) -> str:
        return f"id: {self.id}\nevent: {self.kind}\ndata: {json.dumps(self.data, ensure_ascii=False)}\n\n"


class EventLog:
    def __init__(self, keep: int) -> None:
        self._events: collections.deque[Event] = collections.deque(maxlen=keep)
        self._lock = threading.Lock()
        self._next = 1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None

    def sse(self, request, last: int | None):
        """The events after `last` as a Server-Sent Events response (`/v1/events` and the web page's `/live`)."""
        from fastapi.responses import StreamingResponse  # the recorder uses the log without the web stack

        return StreamingResponse(
            sse_stream(self, request, last), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
        )

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._changed = asyncio.Event()

    def _wake(self) -> None:  # on the loop: every waiter holds the old event, the next ones take a new one
        old, self._changed = self._changed, asyncio.Event()
        if old is not None:
            old.set()

    def add(self, published: BusEvent) -> None:
        """A subscriber to the runtime's bus: every ordinary event, numbered and kept."""
        kind = published.kind.value
        data = {"kind": kind, "at": when(time.time()), "t_s": published.t_s, **published.detail}
        with self._lock:
            self._events.append(Event(self._next, kind, data))
            self._next += 1
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake)

    def forget(self, names: tuple[str, ...], utterances: tuple[int, ...], sessions: tuple[int, ...]) -> int:
        """Drop the events that name a forgotten person or cite a forgotten utterance or session; how many."""
        gone_utterances, gone_sessions = set(utterances), set(sessions)

        def cites(value: Any, key: str = "") -> bool:
            if isinstance(value, str):
                return any(mentions(value, name) for name in names)
            if isinstance(value, int) and not isinstance(value, bool):
                return (key in UTTERANCE_KEYS and value in gone_utterances) or (
                    key in SESSION_KEYS and value in gone_sessions
                )
            if isinstance(value, dict):
                return any(cites(v, k) for k, v in value.items())
            if isinstance(value, list | tuple):
                return any(cites(v, key) for v in value)
            return False

        with self._lock:
            kept = [e for e in self._events if not cites(e.data) and not _session_job(e.data, gone_sessions)]
            dropped = len(self._events) - len(kept)
            self._events.clear()
            self._events.extend(kept)
        return dropped

    @property
    def last_id(self) -> int:
        with self._lock:
            return self._next - 1

    def after(self, last_id: int) -> tuple[list[Event], bool]:
        """The events after `last_id`, and whether some of them were already dropped from RAM."""
        with self._lock:
            events = [e for e in self._events if e.id > last_id]
            gap = bool(self._events) and self._events[0].id > last_id + 1 and last_id < self._next - 1
        return events, gap

    def signal(self) -> asyncio.Event:
        """Set at the next publication: take it before reading `after()`, then wait on it (on the loop)."""
        assert self._changed is not None, "bind() the log to the loop first"
        return self._changed


UTTERANCE_KEYS = frozenset({"utterance", "utterances", "id", "evidence", "citations"})  # keys whose numbers cite
SESSION_KEYS = frozenset({"session"})


def _session_job(data: dict, sessions: set[int]) -> bool:
    """A `memory_written` event of a forgotten session's job."""
    return data.get("job") == "session" and data.get("ref") in sessions


KEEPALIVE_S = 15.0


async def sse_stream(log: EventLog, request, last: int | None) -> AsyncIterator[str]:
    """Server-Sent Events of `log` after event id `last` (None: from now) until the client goes; a `gap`
    event when some of the missed ones were already dropped, a comment every `KEEPALIVE_S` when quiet."""
    last = log.last_id if last is None else last  # a new subscriber starts from now
    yield ": lifemem events\n\n"
    while not await request.is_disconnected():
        signal = log.signal()
        missed, gap = log.after(last)
        if gap:
            yield f"event: gap\ndata: {json.dumps({'after': last})}\n\n"
        for event in missed:
            yield event.sse()
            last = event.id
        if not missed:
            try:
                await asyncio.wait_for(signal.wait(), KEEPALIVE_S)
            except asyncio.TimeoutError:
                yield ": keepalive\n\n"
