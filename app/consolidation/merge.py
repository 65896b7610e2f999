"""Typed merge rules (EgoMem's update agent, MOOM's key kinds): each new item is compared with the facts its
person already holds and becomes ADD, UPDATE, SUPERSEDE or NOOP.

- A restatement (similar enough, the same numbers, negation and polarity) UPDATEs the held fact: its line joins
  the provenance, a longer wording (more detail) replaces the old; NOOP when it brings neither.
- A change (related, but a number, a negation or the polarity differs: "2 kids" → "3 kids", "loves tennis" →
  "stopped playing tennis", likes → dislikes), or a new value of a one-at-a-time key (`FactKind.single_keys`:
  an attribute's job, home, age, name), SUPERSEDEs: the old fact's validity is closed where the new one starts,
  its row stays as history.
- Anything else is ADDed. Numbers, negations and dates are never merged away, an event or a plan (the
  `FactKind.one_off` kinds) never restates a fact of another kind (what happened once is not what holds), and
  what is dated another day is another occasion ("last week Maria volunteered at the shelter", said in May and
  again in August, is two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from app.consolidation.items import Item
from app.facts import FactKind
from app.store.writing import DAY_S, HeldFact
from app.text.timeexpr import COUNTS, MONTHS

ADD, UPDATE, SUPERSEDE, NOOP = "add", "update", "supersede", "noop"
_ONE_OFF = frozenset(k for k in FactKind if k.one_off)  # "played tennis this morning" is not "loves tennis"
_NEGATIONS = frozenset(
    "not no never nothing nobody none stopped quit gave n't nor neither hate hates hated dislike dislikes "
    "without anymore longer".split()
)


@dataclass(frozen=True)
class Decision:
    action: str
    fact: HeldFact | None = None  # the held fact it restates or supersedes


def numbers(text: str) -> frozenset[str]:
    """Numbers, number words, months and years in the text, normalised ("two" and "2" are the same)."""
    out = set()
    for w in re.findall(r"[a-z]+|\d+", text.lower()):
        if w.isdigit():
            out.add(str(int(w)))
        elif w in COUNTS:
            out.add(str(COUNTS[w]))
        elif w in MONTHS and w != "may":
            out.add(f"month{MONTHS[w]}")
    return frozenset(out)


def negated(text: str) -> bool:
    words = set(re.findall(r"[a-z']+", text.lower().replace("n't", " n't")))
    return bool(words & _NEGATIONS)


def decide(item: Item, embedding: np.ndarray, held: list[HeldFact], duplicate: float, related: float) -> Decision:
    """What the item does to the facts its person holds (`held`, with their embeddings)."""
    relation = item.kind is FactKind.RELATION
    candidates = [f for f in held if f.embedding is not None and (f.kind == FactKind.RELATION) == relation]
    best, score = None, -1.0
    for f in candidates:
        s = float(np.dot(f.embedding, embedding))
        if s > score:
            best, score = f, s
    if best is not None and score >= related:
        changed = (
            numbers(best.value) != numbers(item.what)
            or negated(best.value) != negated(item.what)
            or (best.polarity and item.polarity and best.polarity != item.polarity)
        )
        if changed:  # facts of one line are siblings, never replacements
            return Decision(ADD) if _cited(item, best.sources) else Decision(SUPERSEDE, best)
        other_day = None not in (best.valid_from, item.valid_from) and abs(best.valid_from - item.valid_from) >= DAY_S
        if score >= duplicate and (best.kind == item.kind or not {best.kind, item.kind} & _ONE_OFF) and not other_day:
            news = not _cited(item, best.sources) or len(item.what) > len(best.value)
            return Decision(UPDATE if news else NOOP, best)
    if item.key in item.kind.single_keys:  # a new job, home, age or name
        same_key = [f for f in held if f.key == item.key and f.kind == item.kind and not _cited(item, f.sources)]
        if same_key:
            return Decision(SUPERSEDE, same_key[-1])
    return Decision(ADD)


def _cited(item: Item, sources) -> bool:
    """Whether the item's turn is among a fact's sources (the same turn's facts are siblings)."""
    return any(i in sources for i in item.line.ids)
