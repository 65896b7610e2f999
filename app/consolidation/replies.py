"""What a reply says with the question it answers: in conversation much of what people tell is said as an answer
that leaves out what it answers ("Are you still doing that half marathon?" - "The eighteenth of October."; "Ola, do
you climb?" - "Ha, yes, bouldering."; "When do you start?" - "Next Monday."). The question asked of the one who
replies ("you"), said back as their own statement, holds what the reply affirms:

- a yes-or-no question about them ("are", "were", "do", "did", "have" + "you", or "still" + a doing: "Still
  selling cars on Sundays?"; not "can you", "could you", "will you": those ask for something; not "you both")
  answered yes ("yes", "yeah", "sure", "still", "every Sunday", or a time alone): "I am still doing that half
  marathon on the eighteenth of October", "I climb";
- a when-question about them answered with a time alone ("When do you start?" - "Next Monday."): "I start next
  Monday".

A reply that says no ("No", "Not really", "Never", "Not yet") or anything else holds nothing more; what it states
itself is read as any line is (app/consolidation/atoms.py). The statement is the replier's, in the first person:
the asker's "you" is "I", their "my" is theirs (`asker`'s), "your" is "my"."""

from __future__ import annotations

import re

from app.consolidation.atoms import at_time
from app.consolidation.clauses import time_only
from app.text.words import PAST_FORMS as _PAST
from app.text.words import keywords, sentences

_LEAD = r"^(?:(?:and|so|but|oh|ha|well|okay|ok)\b[,.!]?\s+|(?-i:[A-Z][a-z]+),\s+)*"  # "And", "Ola, do you ...?"
_ONE = r"(?!\s+(?:both|all|guys|two)\b)"  # asked of one ("did you both have a good weekend?" is not)
_YES_NO = re.compile(rf"{_LEAD}(?:(are|were|do|did|have)\s+you{_ONE}|(?P<still>still))\s+(.+?)\?$", re.I)
_WHEN = re.compile(rf"{_LEAD}when\s+(do|did|are|will)\s+you{_ONE}\s+(.+?)\?$", re.I)
_FIRST_PERSON = {"are": "am", "were": "was", "have": "have", "will": "will"}
_INTERJECTION = re.compile(r"^(?:(?:ha|haha|oh|well|um|uh|mm|hmm|ah)\b[,.!]?\s*)+", re.I)
_NO = re.compile(r"^(?:no|nope|nah|not|never|hardly|i\s+wish|i\s+don['’]?t|i['’]?m\s+not|i\s+didn['’]?t)\b", re.I)
_YES = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|of\s+course|definitely|absolutely|totally|still|always|every|mostly|i\s+do|"
    r"i\s+am|i['’]m|i\s+did|i\s+have|i\s+was)\b",
    re.I,
)
_SHORT = 3  # content words at most in a reply's first sentence that only answers ("Ha, yes, bouldering.")


def _past(verb: str) -> str:
    """The past of a verb said after "did you" ("start": "started", "meet": "met")."""
    low = verb.lower()
    if low in _PAST:
        return _PAST[low]
    if low.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ied"
    return verb + "ed"


def _said(aux: str, rest: str) -> str:
    """What follows "you" in a question, said by "I": "do you climb" → "climb", "did you start" → "started",
    "are you doing" → "am doing"."""
    aux = aux.lower()
    if aux in ("do", "did"):
        verb, *more = rest.split(" ", 1)
        return " ".join([verb if aux == "do" else _past(verb), *more])
    return f"{_FIRST_PERSON[aux]} {rest}"


def _theirs(rest: str, asker: str | None) -> str:
    """The question's words as the replier says them: the asker's "my", "me" by name; "your" as "my"."""
    rest = re.sub(r"\b[Yy]ourself\b", "myself", rest)
    rest = re.sub(r"\b[Yy]our\b", "MY", rest)
    if asker:
        rest = re.sub(r"\b[Mm]y\b", f"{asker}'s", rest)
        rest = re.sub(r"\b[Mm]e\b", asker, rest)
    elif re.search(r"\b(?:[Mm]y|[Mm]e)\b", rest):
        return ""
    if re.search(r"\byou\b|\b(?:anything|anyone|anybody)\b", rest, re.I):
        return ""  # "do you think you'll go?", "did you buy anything?": no statement of theirs
    rest = re.sub(r"\s*\b(?:any|ever)\b", "", rest)  # "have you got any pets?" - "Yeah, two": "I have got pets"
    return re.sub(r"\bMY\b", "my", rest).strip()


def answered(asked: str, reply: str, asker: str | None = None) -> tuple[str, str]:
    """(the replier's statement of what their reply affirms, in the first person; the sentence of the reply it
    took a time from, else "") for `reply` said right after another's `asked`; ("", "") when it affirms nothing
    the question asked."""
    questions = [s.strip() for s in sentences(asked) if s.strip().endswith("?")]
    said = [s.strip() for s in sentences(reply) if s.strip()]
    if not questions or not said:
        return "", ""
    question, first = questions[-1], _INTERJECTION.sub("", said[0]).strip()
    if len(keywords(first)) > _SHORT or first.endswith("!") or re.search(r"\bor\b", question, re.I):
        return "", ""  # a reply that says its own ("Yes! I've got tons of tips ..."), or a choice asked
    timed = time_only(first) and not first.endswith("?") and not re.match(r"every\b", first, re.I)  # not how often
    if m := _WHEN.match(question):
        if not timed or not (rest := _theirs(m[2], asker)):
            return "", ""
        return f"I {_said(m[1], rest)} {at_time(first)}", said[0]
    if (m := _YES_NO.match(question)) and not _NO.match(first) and (timed or _YES.match(first)):
        if not (rest := _theirs(m[3], asker)) or (m["still"] and not re.match(r"\w+ing\b", rest)):
            return "", ""
        statement = f"I {_said(m[1] or 'are', rest) if not m['still'] else 'am still ' + rest}"
        return (f"{statement} {at_time(first)}", said[0]) if timed else (statement, "")
    return "", ""
