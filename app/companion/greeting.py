"""What the companion says to a known person who comes back: one short line grounded in their profile."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from app.consolidation.kinds import planned_span
from app.facts import FactKind
from app.text.timeexpr import day_words, plan_window


def greeting(profile: dict, now: float) -> tuple[str, list[int]]:
    """One short greeting grounded in the profile — a plan of theirs still ahead, else a recent event or a plan
    whose day is over by `now` (said as what was planned: "you were planning a trip to Paris") — said back to
    them, and the utterances it rests on."""
    name = profile["name"]
    ahead, past = [], []
    for fact in profile["facts"]:
        if fact["kind"] == FactKind.PLAN and fact["value"]:
            span = planned_span(fact["value"], fact["said"], fact["valid_from"])
            if span is not None and span[1] <= now:
                past.append((span[2], fact["source"]))
            else:
                ahead.append((_dated(fact["value"], fact["said"]), fact["source"]))
        elif fact["kind"] == FactKind.EVENT and fact["value"]:
            past.append((fact["value"], fact["source"]))
    for said, source in ahead + past:
        return f"Hi {name}! Good to see you again. Last time you told me {second_person(said, name)}.", [source]
    return f"Hi {name}! Good to see you again.", []


def _dated(plan: str, said: float) -> str:
    """The plan with its time words as the day they name ("Next Friday David is planning a trip" said on Thursday
    14 May 2026 → "David is planning a trip on Friday 22 May 2026"): "next Friday" said yesterday is not next
    Friday today."""
    found = plan_window(plan, datetime.fromtimestamp(said, timezone.utc))
    if found is None:
        return plan
    window, rest = found[0], found[1].strip(" ,.")
    if not rest:
        return plan
    when = day_words(window.start, window.end)
    on = "on" if (window.end - window.start).days <= 1 else "from" if when[0].isdigit() else "in"
    return f"{rest} {on} {when}"


def second_person(fact: str, name: str) -> str:
    """'David is planning a trip to Paris for David's birthday' → 'you are planning a trip to Paris for your
    birthday' (the memory keeps facts in the third person; "we" is the speaker and others, said to them)."""
    to_you = {"is": "you are", "was": "you were", "has": "you have"}
    out = fact
    if re.search(rf"\b{re.escape(name)}\b", out):  # their own "my", which memory writing keeps as "their"
        out = re.sub(r"\b[Tt]heir\b", "your", out)
    out = re.sub(rf"\b{re.escape(name)}'s\b", "your", out)
    out = re.sub(rf"\b{re.escape(name)} (is|was|has)\b", lambda m: to_you[m.group(1)], out)
    out = re.sub(rf"^{re.escape(name)}\b", "you", out)
    out = re.sub(r"\b(he|she) (is|was)\b", lambda m: "you " + {"is": "are", "was": "were"}[m.group(2)], out)
    out = re.sub(r"\b[Ww]e\b", "you", re.sub(r"\b[Oo]ur\b", "your", re.sub(r"\b[Uu]s\b", "you", out)))
    first = out.split()[0] if out.split() else ""
    if first.istitle() and first not in out[len(first) :]:  # "Next friday …" inside a sentence, not a name
        out = out[:1].lower() + out[1:]
    return out.rstrip(".")
