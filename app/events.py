"""What the recorder and the companion report, as typed events on one bus.

Every kind is an `EventKind` and a frozen dataclass (units in field names; `t_s` is stream time, seconds since
the source started). The recorder publishes what it heard, stored and decided; the companion what it said and
when it was spoken over. Subscribers — the companion, the background memory writer, the event log behind
`/v1/events` and the web page's live view, a test's list — name the kinds they want.

System events (`VoiceActivity`, every VAD window) carry barge-in: they reach only the subscribers that name
them, never the event log, and, like every event, are delivered on the publisher's thread at once — nothing
queues ahead of them (pipecat's system frames jump its queues; here there is no queue to jump).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from app.compat import StrEnum

_LOGGER = logging.getLogger(__name__)


class EventKind(StrEnum):
    VOICE_ACTIVITY = "voice_activity"  # system: every VAD window
    SPEECH = "speech"
    STORED = "stored"
    SKIPPED = "skipped"
    PERSON_NEW = "person_new"
    PERSON_NAMED = "person_named"
    IDENTITY = "identity"
    SESSION_START = "session_start"
    SESSION_SPLIT = "session_split"
    SESSION_END = "session_end"
    MEMORY_WRITTEN = "memory_written"
    ERROR = "error"
    BARGE_IN = "barge_in"
    ANSWER_START = "answer_start"
    GREETING_START = "greeting_start"
    SAY_START = "say_start"
    REPLY = "reply"
    GREETING = "greeting"
    SAY = "say"

    @property
    def system(self) -> bool:
        return self is EventKind.VOICE_ACTIVITY


@dataclass(frozen=True)
class Event:
    KIND: ClassVar[EventKind]
    t_s: float  # stream time, rounded to the millisecond

    def __post_init__(self) -> None:
        object.__setattr__(self, "t_s", round(self.t_s, 3))

    @property
    def kind(self) -> EventKind:
        return self.KIND

    @property
    def detail(self) -> dict[str, Any]:
        """The fields but the time: what the event log and `/v1/events` send."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "t_s"}


@dataclass(frozen=True)
class VoiceActivity(Event):
    KIND = EventKind.VOICE_ACTIVITY
    probability: float  # the VAD window ending at t_s


@dataclass(frozen=True)
class Speech(Event):
    KIND = EventKind.SPEECH
    end_s: float


@dataclass(frozen=True)
class Stored(Event):
    KIND = EventKind.STORED
    utterance: int | None
    person: str | None
    by: str  # how the speaker was decided: voice, face, previous, new, face+new-voice, …
    kept: bool  # their biometrics and media kept (consent mode keeps a guest's nothing)


@dataclass(frozen=True)
class Skipped(Event):
    KIND = EventKind.SKIPPED
    stage: str
    reason: str | None = None


@dataclass(frozen=True)
class PersonNew(Event):
    KIND = EventKind.PERSON_NEW
    person: str
    by: str  # face (stayed in view unknown) or speech (a new voice)


@dataclass(frozen=True)
class PersonNamed(Event):
    KIND = EventKind.PERSON_NAMED
    was: str
    person: str


@dataclass(frozen=True)
class Identity(Event):
    KIND = EventKind.IDENTITY
    person: str | None
    was: str | None
    by: str
    score: float


@dataclass(frozen=True)
class SessionStart(Event):
    KIND = EventKind.SESSION_START
    session: int


@dataclass(frozen=True)
class SessionSplit(Event):
    KIND = EventKind.SESSION_SPLIT
    session: int  # the new session the later turns moved to


@dataclass(frozen=True)
class SessionEnd(Event):
    KIND = EventKind.SESSION_END
    session: int


@dataclass(frozen=True)
class MemoryWritten(Event):
    KIND = EventKind.MEMORY_WRITTEN
    job: str  # session | person | …
    ref: int


@dataclass(frozen=True)
class Error(Event):
    KIND = EventKind.ERROR
    stage: str
    message: str


@dataclass(frozen=True)
class BargeIn(Event):
    KIND = EventKind.BARGE_IN
    onset_s: float
    stopped_s: float
    was: str  # what the companion was doing: thinking | speaking
    latency_ms: float
    items_stopped: int


@dataclass(frozen=True)
class ReplyStart(Event):
    KIND = EventKind.ANSWER_START
    question: str
    person: str | None


@dataclass(frozen=True)
class GreetingStart(ReplyStart):
    KIND = EventKind.GREETING_START


@dataclass(frozen=True)
class SayStart(ReplyStart):
    KIND = EventKind.SAY_START


@dataclass(frozen=True)
class Reply(Event):
    """An answer as it went (`Reply.as_dict` of app/companion/companion.py, its kind left out)."""

    KIND = EventKind.REPLY
    question: str
    person: str | None
    asked_s: float
    text: str
    known: bool
    citations: list[dict]
    interrupted: bool
    error: str | None
    first_audio_ms: float | None
    timings_ms: dict[str, float]


@dataclass(frozen=True)
class Greeting(Reply):
    KIND = EventKind.GREETING


@dataclass(frozen=True)
class Said(Reply):
    KIND = EventKind.SAY


Handler = Callable[[Event], None]


class Bus:
    """Publish from any thread; each subscriber is called on the publisher's thread, in the order it
    subscribed, for the kinds it named (no kinds: every ordinary kind). A subscriber that raises is logged
    with its traceback and the others still get the event: one broken listener never stops the recorder."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: tuple[tuple[frozenset[EventKind] | None, Handler], ...] = ()

    def subscribe(self, handler: Handler, *kinds: EventKind) -> Callable[[], None]:
        """Deliver `kinds` (or every ordinary kind) to `handler`; returns what unsubscribes it."""
        entry = (frozenset(kinds) if kinds else None, handler)
        with self._lock:
            self._subscribers = (*self._subscribers, entry)

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = tuple(s for s in self._subscribers if s is not entry)

        return unsubscribe

    def wants(self, kind: EventKind) -> bool:
        return any(self._takes(kinds, kind) for kinds, _ in self._subscribers)

    @staticmethod
    def _takes(kinds: frozenset[EventKind] | None, kind: EventKind) -> bool:
        return kind in kinds if kinds is not None else not kind.system

    def publish(self, event: Event) -> None:
        for kinds, handler in self._subscribers:  # a snapshot: subscribing meanwhile is safe
            if self._takes(kinds, event.kind):
                try:
                    handler(event)
                except Exception:
                    _LOGGER.exception("a subscriber to %s events failed; the others still get it", event.kind)
