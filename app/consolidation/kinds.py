"""A fact's kind and topic from the words it uses, and a plan whose day has passed said as what was planned
("David is planning a trip" → "David was planning a trip"); app/consolidation/atoms.py finds the facts."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from app.consolidation.person import ADVERBS, NOT_VERBS
from app.facts import type_of
from app.store.writing import DAY_S
from app.text.timeexpr import plan_window

TOPICS = (  # key -> words that mark it, first match wins
    (
        "health",
        r"allerg|sick|\bill\b|illness|diagnos|injur|\bpain(?!t)|doctor's|hospitali[sz]ed|diet|veg(?:an|etarian)",
    ),
    ("job", r"\bwork|\bjob\b|teach|nurse|engineer|career|office|company|boss|colleague|employ|profession|retire"),
    ("home", r"\blive[sd]?\b|living in|moved|home|house|apartment|grew up|(?-i:from [A-Z])"),  # from Lima
    ("family", r"wife|husband|son\b|daughter|kids?\b|children|mother|father|mom\b|dad\b|brother|sister|family|baby"),
    ("education", r"school|college|universit|degree|study|studies|studying|class\b|course"),
    ("pet", r"\bdog|\bcat\b|puppy|kitten|pet\b"),
    ("food", r"food|peanut|eat|cook|pasta|pizza|dinner|lunch|breakfast|coffee|tea\b|restaurant"),
    ("travel", r"trip|travel|vacation|holiday|flight|visit"),
    ("age", r"\byears? old\b|\bbirthday\b|\bage\b"),
    ("hobby", r"play|paint|music|guitar|piano|sport|tennis|game|read|hik|camp|run|swim|bik|bicycle|garden|art"),
    ("belief", r"believe|faith|religio|church|value"),
)


def typed(fact: str) -> tuple[str, str]:
    """(type, key) of a fact sentence, from the words it uses (the type's words are its kind's, `app.facts.TYPES`):
    the 0.5B model labelled every item of a session 'attribute', so typing is done here, where it can be tested.
    A time the fact names can still make an attribute or an event a plan (`extract.check`)."""
    key = next((k for k, pattern in TOPICS if re.search(pattern, fact, re.IGNORECASE)), "other")
    return type_of(fact), key


_WAS = {"is": "was", "are": "were", "am": "was", "has": "had", "have": "had"}


def _base(verb: str) -> str:
    """The plain form of a present-tense verb ("starts" → "start", "teaches" → "teach", "flies" → "fly")."""
    if verb in ("does", "goes"):
        return verb[:-2]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes")):
        return verb[:-2]
    return verb[:-1]


def was_planned(plan: str) -> str:
    """A plan whose day has passed, said as what was planned, not as what happened: "David is planning a trip to
    Paris" → "David was planning a trip to Paris", "John has a meeting with the bank" → "John had a meeting with
    the bank", "Lucy starts school" → "Lucy was going to start school", "Ines will compete" → "Ines was going to
    compete". The verb is the first lower-case word after the subject (names, "and", a possessive and what it
    owns: "Emily's daughter Lucy"), or after "The meeting ..." the first "is", "has" or "will"; a sentence
    without a verb it knows stays as it is."""
    words = plan.split()
    noun = words[0].lower() in ("the", "a", "an", "his", "her", "their")  # "The meeting with the bank is ..."
    for i, word in enumerate(words[1:], 1):
        low = word.lower()
        if noun and low not in _WAS and low != "will":
            continue
        if word[:1].isupper() or low == "and" or re.fullmatch(ADVERBS, low) or words[i - 1].endswith(("'s", "’s")):
            continue
        were = " and " in " ".join(words[:i])
        if low in _WAS:
            verb = "were" if were and low in ("is", "are") else _WAS[low]
            return " ".join([*words[:i], verb, *words[i + 1 :]])
        if low == "will" or (low.endswith("s") and low.isalpha() and low not in NOT_VERBS and len(low) > 3):
            going = ["were" if were else "was", "going", "to"]
            rest = words[i + 1 :] if low == "will" else [_base(low), *words[i + 1 :]]
            return " ".join([*words[:i], *going, *rest])
        break
    return plan


def planned_span(plan: str, said: float, planned_for: float | None) -> tuple[float, float, str] | None:
    """When a plan's day (or month) begins and ends, from the time words it was said with (`said`: epoch
    seconds) or else the day it is filed for, and the plan said as what was planned, without its time words
    ("Next Friday David is planning a trip" → "David was planning a trip"); None when it names no time."""
    window = plan_window(plan, datetime.fromtimestamp(said, timezone.utc))
    if window is not None:
        start, end, text = window[0].start.timestamp(), window[0].end.timestamp(), window[1].strip(" ,")
    elif planned_for is not None:
        start, end, text = planned_for, planned_for + DAY_S, plan
    else:
        return None
    text = was_planned(text)
    return start, end, text[:1].upper() + text[1:]
