"""Session summaries: written by code from a stretch's checked facts (`digest`: a diary line that says nothing they do
not), or, where nothing was stated, the model's few sentences cut to whole ones and led by everyone who spoke."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from app.consolidation.items import Item
from app.facts import FactKind
from app.store.writing import Line
from app.text.timeexpr import spoken_time

DIGEST_FACTS = 12  # the most a session summary lists: plans first, then what happened, health, people, the rest
_DIGEST = (  # heading, which items
    ("Coming up", lambda it: it.kind is FactKind.PLAN),
    ("What happened", lambda it: it.kind is FactKind.EVENT),
    ("Health", lambda it: it.key == "health"),
    ("People", lambda it: it.kind is FactKind.RELATION or it.key == "family"),
    ("Also", lambda it: True),
)


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def digest(lines: list[Line], items: list[Item]) -> str:
    """A stretch of conversation as a diary line, written by code from its checked facts, so it says nothing
    they do not: the day and everyone who spoke, then what matters first (`_DIGEST`), plans and events with
    their day ("Thursday 14 May 2026: Emily, John and David talked. Coming up: ... (Friday 22 May 2026)")."""
    speakers = list(dict.fromkeys(ln.person for ln in lines if ln.person))
    day = datetime.fromtimestamp(lines[0].t_start, timezone.utc)
    parts = [f"{day:%A} {spoken_time(lines[0].t_start)}: {_joined(speakers or ['someone unknown'])} talked."]
    people = {n for it in items for n in (it.who, it.other) if n}
    left, budget = list(items), DIGEST_FACTS
    for heading, belongs in _DIGEST:
        chosen = [it for it in left if belongs(it)][:budget]
        if not chosen:
            continue
        said = []
        for it in chosen:
            left.remove(it)
            if it.kind is FactKind.RELATION:
                said.append(f"{it.who} is {it.other}'s {it.what}")
                continue
            what = it.what if re.split(r"\W", it.what, maxsplit=1)[0] in people else it.what[:1].lower() + it.what[1:]
            whose = "" if re.search(rf"\b{re.escape(it.who)}\b", what) else f"{it.who}: "
            when = f" ({it.when})" if it.kind.one_off and it.when else ""
            said.append(f"{whose}{what}{when}")
        parts.append(f"{heading}: {'; '.join(said)}.")
        budget -= len(chosen)
        if budget <= 0:
            break
    return " ".join(parts)


def naming(summary: str, speakers: list[str]) -> str:
    """The summary, led by who was there when it leaves out someone who spoke."""
    if not summary or all(re.search(rf"\b{re.escape(n)}\b", summary) for n in speakers):
        return summary
    return f"{_joined(speakers)} talked. {summary}"


def whole_sentences(text: str) -> str:
    """The reply up to its last full sentence (a summary cut off at max_tokens loses its broken end)."""
    text = " ".join(text.split())
    end = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    return text if text.endswith((".", "!", "?")) or end < 0 else text[: end + 1]
