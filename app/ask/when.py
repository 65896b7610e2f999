"""The time that answers a when-question (app/ask/answer.py), checked as any answer is (app/ask/checking.py):

- `time_held`: for a reading that names no time a line holds ("In the summer"), the first time a line says, as
  code resolved it, from a line that answers the question.
- `closer_time`: the time of another line that holds more of what is asked than the one answered from.
- `said_by_then`: for what a line says was done, with no time of its own, the day it was said ("By Thursday 14
  May 2026").
"""

from __future__ import annotations

import re
from dataclasses import replace

from app.ask.checking import GENERIC, holding, topic_held
from app.ask.grounding import Line, said_on, topic_words
from app.text.words import sentences

# a time a line says, as code resolved it: "(the week before 14 May 2026)"
_RESOLVED = re.compile(r"\(([^()]*\b(?:19|20)\d\d)\)")


def time_held(
    question: str, lines: list[Line], named: list[str] = (), joined: list[Line] = (), similar=None
) -> tuple[str, list[Line]]:
    """For a when-question whose reading named no time a line holds ("In the summer", the question's own words):
    the first time a line says, as code resolved it ("the week before 14 May 2026"), that `holding` finds
    answers the question from that line — its people and topic words there; ("", []) when none does."""
    for line in lines:
        for m in _RESOLVED.finditer(line.shown):
            said = m[1][:1].upper() + m[1][1:]
            if held := holding(said, question, [line], named, joined, similar):
                return said, held
    return "", []


_ASKS_WHEN_DONE = re.compile(r"^\s*when\s+(?:did|was|were|had|has|have)\b", re.I)  # what happened, not a plan
_AHEAD = re.compile(
    r"\?|\b(?:will|going to|gonna|plan(?:s|ning)?|want(?:s|ed)? to|hop(?:e|es|ing) to|can['’]?t wait|soon|next)\b", re.I
)


def said_by_then(
    question: str, lines: list[Line], named: list[str] = (), joined: list[Line] = (), similar=None
) -> tuple[str, list[Line]]:
    """For "when did ...?" that no line answers with a time of its own: "By <the day a line was said>", from the
    first line that says it as done — a sentence holding all that is asked (less the verbs any question is phrased
    with) that asks nothing and says nothing to come — and that `holding` finds answering it ("I finally bought
    a new bicycle!", said on 14 May 2026: "By Thursday 14 May 2026"); ("", []) when none does."""
    if not _ASKS_WHEN_DONE.match(question):
        return "", []
    topic = topic_words(question, named)
    specific = {w for w in topic if w not in GENERIC} or set(topic)
    for line in lines:
        if _RESOLVED.search(line.shown) or not any(
            specific <= topic_held(topic, [replace(line, shown=s)], similar) and not _AHEAD.search(s)
            for s in sentences(line.text)
        ):
            continue
        said = f"By {said_on(line.t_start)}"
        if holding(said, question, [replace(line, shown=f"{line.shown} ({said})")], named, joined, similar):
            return said, [line]
    return "", []


def closer_time(
    question: str, held: list[Line], lines: list[Line], named: list[str] = (), joined: list[Line] = (), similar=None
) -> tuple[str, list[Line]]:
    """For a when-question answered from `held[0]`: the time another of `lines` says (`time_held`) when that line
    holds more of the question's topic words ("When did Emily play in the tennis tournament?" is answered by the
    tournament's day, not by the day of a line about her tennis lessons); ("", []) when none does."""
    timed = [x for x in lines if x.id != held[0].id and _RESOLVED.search(x.shown)]  # the others that say a time
    if not timed:
        return "", []
    topic = topic_words(question, named)
    most = len(topic_held(topic, held[:1], similar))
    closer = [x for x in timed if len(topic_held(topic, [x], similar)) > most]
    return time_held(question, closer, named, joined, similar) if closer else ("", [])
