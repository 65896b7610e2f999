"""An item of memory writing: one claim about a person, checked against the line it cites (app/consolidation/extract.py
writes them, merge.py merges them, summaries.py lists them)."""

from __future__ import annotations

from dataclasses import dataclass

from app.facts import FactKind, polarity
from app.store.writing import Line


@dataclass(frozen=True)
class Item:
    """One claim about a person, checked against its line."""

    who: str
    type: str  # a `FactKind`, or "likes" / "dislikes": a preference and its polarity (`app.facts.TYPES`)
    key: str
    what: str
    line: Line
    other: str | None = None  # a relation's object: `who` is `what` (brother, wife) of `other`
    valid_from: float | None = None  # when it is or was true, from a date its line names
    when: str | None = None  # that time in words: a day ("Friday 22 May 2026") or a month ("September 2026")

    @property
    def polarity(self) -> int:
        return polarity(self.type)

    @property
    def kind(self) -> FactKind:
        return FactKind.of_type(self.type)
