"""Turn-taking as a pure state machine: listening → thinking → speaking, barge-in, who is addressed, and when a
returning person is greeted. No clocks, threads or I/O: callers feed it what the recorder heard and what the
companion did, and carry out the actions it returns (tests/test_companion.py checks its event sequences).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

_FILLERS = ("hey", "hi", "ok", "okay", "hello", "so")
_WORD = re.compile(r"[a-z0-9']+")


class State(enum.Enum):
    LISTENING = "listening"
    THINKING = "thinking"  # a reply is being generated; nothing is playing yet
    SPEAKING = "speaking"  # the reply (or a greeting) is playing, maybe still being generated


@dataclass(frozen=True)
class Answer:
    """Answer `question` (the words after the wake phrase), asked by `person`, heard to end at `t_s`."""

    question: str
    person: str | None
    t_s: float


@dataclass(frozen=True)
class Interrupt:
    """Stop playback and cancel generation now: someone started speaking over the companion."""

    t_s: float
    was: State


@dataclass(frozen=True)
class Greet:
    person: str
    t_s: float


Action = Answer | Interrupt | Greet


def wake_phrases(setting: str) -> tuple[tuple[str, ...], ...]:
    """'memo, hey memo' → (('memo',), ('hey', 'memo')): each phrase as its words."""
    return tuple(tuple(_WORD.findall(p.lower())) for p in setting.split(",") if _WORD.findall(p.lower()))


def addressed(text: str, phrases: tuple[tuple[str, ...], ...]) -> str | None:
    """The request when `text` addresses the companion — a wake phrase at its start (after a filler such as
    "hey") or at its end — else None. '' means the phrase alone: the request comes in the next utterance."""
    words = _WORD.findall(text.lower())
    start = 1 if words and words[0] in _FILLERS else 0
    for phrase in phrases:
        n = len(phrase)
        for at in dict.fromkeys((0, start)):
            if tuple(words[at : at + n]) == phrase:
                return _rest(text, at + n)
        if n and len(words) > n and tuple(words[-n:]) == phrase:
            return _rest(text, 0, len(words) - n)
    return None


def _rest(text: str, first: int, end: int | None = None) -> str:
    """The original text from word `first` up to word `end` (punctuation kept inside, trimmed at the ends)."""
    spans = [m.span() for m in _WORD.finditer(text.lower())]
    spans = spans[first:end]
    if not spans:
        return ""
    return text[spans[0][0] : spans[-1][1]].strip(" ,.;:!-") + ("?" if text.rstrip().endswith("?") else "")


@dataclass
class TurnTaking:
    """What the companion does next. Feed it `onset` (speech started, after echo cancellation), `heard` (an
    utterance with its speaker), `started_speaking`, `finished` and `person_returned`; it returns actions."""

    phrases: tuple[tuple[str, ...], ...]
    barge_in: bool = True
    state: State = State.LISTENING
    armed: bool = False  # the wake phrase alone, or push-to-talk: the next utterance is the request
    interrupted: int = 0
    log: list[tuple[float, State]] = field(default_factory=list)  # (time, state entered)

    def _enter(self, state: State, t_s: float) -> None:
        if state is not self.state:
            self.state = state
            self.log.append((t_s, state))

    def push_to_talk(self) -> None:
        """The wearer pressed the button (or the API said so): the next utterance is addressed to us."""
        self.armed = True

    def onset(self, t_s: float) -> list[Action]:
        """Speech started at `t_s`. While a reply is generated or played, that is a barge-in."""
        if not self.barge_in or self.state is State.LISTENING:
            return []
        was = self.state
        self.interrupted += 1
        self._enter(State.LISTENING, t_s)
        return [Interrupt(t_s, was)]

    def request(self, text: str) -> str | None:
        """What `text` asks the companion ("" for the wake phrase alone), None when it is not addressed to it."""
        request = addressed(text, self.phrases)
        return text.strip() if request is None and self.armed else request

    def heard(self, text: str, person: str | None, t_s: float) -> list[Action]:
        """An utterance ended at `t_s`. Only one addressed to the companion is answered; the rest is memory."""
        request = self.request(text)
        if request is None:
            return []
        if not request:  # the wake phrase alone: listen for the request
            self.armed = True
            return []
        self.armed = False
        out: list[Action] = []
        if self.state is not State.LISTENING:  # barge-in off, or the onset was missed: the new request wins
            out.append(Interrupt(t_s, self.state))
            self.interrupted += 1
        self._enter(State.THINKING, t_s)
        return [*out, Answer(request, person, t_s)]

    def person_returned(self, person: str, t_s: float) -> list[Action]:
        """A known person is back after an absence (the greeting policy has said yes): greet when idle."""
        if self.state is not State.LISTENING or self.armed:
            return []
        self._enter(State.THINKING, t_s)
        return [Greet(person, t_s)]

    def announce(self, t_s: float) -> bool:
        """The companion wants to say something of its own (a reminder, an API `say`): only when idle."""
        if self.state is not State.LISTENING or self.armed:
            return False
        self._enter(State.THINKING, t_s)
        return True

    def started_speaking(self, t_s: float) -> None:
        if self.state is State.THINKING:
            self._enter(State.SPEAKING, t_s)

    def finished(self, t_s: float) -> None:
        """The reply or greeting was played to its end (or there was nothing to say)."""
        if self.state is not State.LISTENING:
            self._enter(State.LISTENING, t_s)


@dataclass
class GreetingPolicy:
    """Whether a person confirmed in view is greeted: after `absence_s` away, never twice within that window,
    at most one greeting every `min_gap_s`, never someone who refused consent (nor, in consent mode, someone
    who has not given it), never a person the memory has not seen before."""

    absence_s: float
    min_gap_s: float
    consent_required: bool = False
    enabled: bool = True
    greeted: dict[str, float] = field(default_factory=dict)  # person -> epoch seconds of their last greeting
    last_s: float | None = None

    def decide(self, person: str, last_seen_s: float | None, now_s: float, consent: str) -> bool:
        if not self.enabled or last_seen_s is None or consent == "refused":
            return False
        if self.consent_required and consent != "given":
            return False
        if now_s - last_seen_s < self.absence_s:
            return False
        if now_s - self.greeted.get(person, float("-inf")) < self.absence_s:
            return False
        if self.last_s is not None and now_s - self.last_s < self.min_gap_s:
            return False
        self.greeted[person] = self.last_s = now_s
        return True
