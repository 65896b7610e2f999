"""One reply of the voice companion as it went (app/companion/companion.py): an answer, a greeting or something
it was told to say."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.companion.duplex import Played


@dataclass
class Reply:
    """One answer or greeting as it went: what was asked, said, cited, and how long each step took."""

    kind: str  # answer | greeting | say
    question: str
    person: str | None
    asked_s: float  # stream time the request ended (speech end) or the person was confirmed
    text: str = ""
    known: bool = False
    citations: list[dict] = field(default_factory=list)
    interrupted: bool = False
    error: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    first_audio_s: float | None = None
    items: list[Played] = field(default_factory=list)
    generating: bool = True

    def as_dict(self) -> dict:
        latency = None if self.first_audio_s is None else round((self.first_audio_s - self.asked_s) * 1e3, 1)
        return {
            "kind": self.kind,
            "question": self.question,
            "person": self.person,
            "asked_s": round(self.asked_s, 3),
            "text": self.text,
            "known": self.known,
            "citations": self.citations,
            "interrupted": self.interrupted,
            "error": self.error,
            "first_audio_ms": latency,
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
        }
