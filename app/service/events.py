"""The recorder's events for subscribers: numbered, kept in RAM (the last `service.events_kept`), so a
subscriber that reconnects with the id of the last event it saw (SSE's Last-Event-ID) gets every later one.
Published from any thread (the recorder's store thread writes); read on the asyncio loop."""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from dataclasses import dataclass

from app.events import PipelineEvent
from app.views import when


@dataclass(frozen=True)
class Event:
    id: int
    kind: str
    data: dict

    def sse(self) -> str:
        import json

        return f"id: {self.id}\nevent: {self.kind}\ndata: {json.dumps(self.data, ensure_ascii=False)}\n\n"


class EventLog:
    def __init__(self, keep: int) -> None:
        self._events: collections.deque[Event] = collections.deque(maxlen=keep)
        self._lock = threading.Lock()
        self._next = 1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._changed = asyncio.Event()

    def _wake(self) -> None:  # on the loop: every waiter holds the old event, the next ones take a new one
        old, self._changed = self._changed, asyncio.Event()
        if old is not None:
            old.set()

    def publish(self, kind: str, detail: dict, t_s: float | None = None) -> Event:
        with self._lock:
            event = Event(self._next, kind, {"kind": kind, "at": when(time.time()), "t_s": t_s, **detail})
            self._next += 1
            self._events.append(event)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake)
        return event

    def pipeline(self, event: PipelineEvent) -> None:
        """The recorder's `on_event`."""
        self.publish(event.kind, dict(event.detail), event.t_s)

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
