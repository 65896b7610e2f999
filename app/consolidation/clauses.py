"""A sentence's clauses (app/consolidation/atoms.py says each as a fact): split where a conjunction or a comma
starts a new subject ("... and she loves", "I can't stay late, I've got yoga tomorrow"), a dash before the speaker or
a comma before a past tense whose "I" is left out, with a condition or a lead-in that says where kept with its
clause ("Whenever I'm tired, I go for a swim"), and two doings joined by "and" each with what comes before them
("I've been busy volunteering at the hospital and keeping fit")."""

from __future__ import annotations

import re

from app.consolidation.person import WITH_ME
from app.consolidation.small_talk import ANY_DAY
from app.text.timeexpr import plan_window
from app.text.words import ING_NOUNS

_PRONOUNS = r"I|we|he|she|they|my|our|his|her|their"
_FUNCTION = r"at|in|on|to|for|with|from|of|and|or|by|the|a|an|too|as|after|before"
_SPLIT = re.compile(  # "and"/"but"/"so" before a subject (a pronoun, or a name and a word that can be a verb),
    # a comma before a subject pronoun ("I can't stay late, I've got yoga tomorrow"), or a dash before the speaker
    rf"(?:,?\s+(?:and|but|so)\s+|;\s+)(?=(?:{_PRONOUNS})\b|[A-Z][a-z]+\s+(?!(?:{_FUNCTION})\b)[a-z]+)"
    r"|,\s+(?=(?:I|we|he|she|they)(?:'[a-z]+)?\s)"
    r"|\s*[-–—]\s+(?=(?:I|we|my|our)(?:['’][a-z]+)?\s)"  # a dash before the speaker: "they're fine - we got a puppy"
    # a comma before a past tense that does something, its "I" left out: "my old car broke down, decided to sell it"
    r"|,\s+(?=(?:just\s+)?(?!(?:compared|used|supposed|related|dedicated|devoted|committed|exposed|attached|"
    r"addicted|opposed|glued|married|engaged)\b)(?:went|got|had|made|took|bought|saw|met|came|found|left|began|ran|"
    r"won|lost|spent|[a-z]{2,}(?<!e)ed)\s+(?:to|a|an|the|my|our|up|out|back|home|some|it|them|him|her)\b)"
)
_CONDITION = re.compile(
    r"^(?:whenever|when|if|because|since|while|although|though|once|unless|until|as soon as|every time)\b", re.I
)
# a lead-in that says where or after what, with no subject of its own: "After my last shift, I saw ...", "At the
# conference, I had time ..." (one saying only when, "Last Friday, I ...", goes: the line's time dates the fact)
_LEAD_IN_PLACE = re.compile(
    r"^(?:after|before|during|throughout|at|on|in)\b(?!.*\b(?:I|we|he|she|they|you|it)\b)", re.IGNORECASE
)


def _glued(lead_in: str) -> bool:
    """Whether a lead-in before a comma stays with its clause: it says where or after what, not only when."""
    return bool(_LEAD_IN_PLACE.match(lead_in)) and not time_only(lead_in)


_NOT_SAYING = {"for", "example", "instance", "just", "only", "so", "and", "but", "then", "well", "like", "even", "too"}


def time_only(clause: str) -> bool:
    """Whether a clause says only when ("On Friday", "Yesterday, for instance")."""
    found = plan_window(clause, ANY_DAY)
    return found is not None and not set(re.findall(r"[a-z]+", found[1].lower())) - _NOT_SAYING


# who does it with the speaker, before " and I" ("my brother and I talked", "Emily, John and I"): one clause
_WITH_ME = re.compile(rf"^(?:I|{WITH_ME}(?:,\s+[A-Z][a-z]+)?)$")


def without_time(text: str) -> str:
    """`text` without the time it names ("Last weekend my brother": "my brother")."""
    found = plan_window(text, ANY_DAY)
    return re.sub(r"\s+([,.;!?])", r"\1", found[1] if found else text).strip(" ,")  # "a barbecue , Rosa": no space


def clauses(sentence: str) -> list[str]:
    """A sentence's clauses: split where a conjunction or a comma starts a new subject, the part before it two
    words or more and the part after it three; and two doings joined by "and" each with what comes before them
    (`_each_doing`)."""
    parts: list[str] = []
    rest = sentence.strip(" ,.!")

    def splits(m: re.Match) -> bool:  # "Whenever I'm tired, I go for a swim": one clause, its condition first
        before = rest[: m.start()]
        return len(before.split()) >= 2 and not (
            (m[0].startswith(",") and (_CONDITION.match(before) or _glued(before)))
            or (m[0] == " and " and _WITH_ME.match(without_time(before)))  # "my brother and I talked"
        )

    while m := next((m for m in _SPLIT.finditer(rest) if splits(m)), None):
        if len(rest[m.end() :].split()) < 3:
            break
        parts.append(rest[: m.start()])
        rest = rest[m.end() :]
    return [c for part in [*parts, rest] for c in _each_doing(part)]


GERUND = rf"(?!{ING_NOUNS}\b)[a-z]{{2,}}ing\b"  # a verb's "-ing", not a thing's ("evening", "wedding")
_DOING = re.compile(rf"\b(?!(?:including|according)\b){GERUND}")
_AND_DOING = re.compile(rf"\s+and\s+(?={_DOING.pattern})")
# what a doing follows as the thing done, not as a word it describes ("a loving and accepting home", "so caring
# and encouraging"): being, a verb that takes a doing, or a preposition
_DOES_DOING = re.compile(
    r"(?:\b(?:am|is|are|was|were|be|been|busy|love[sd]?|loving|enjoy(?:s|ed)?|like[sd]?|hate[sd]?|start(?:s|ed)?|"
    r"began|keeps?|kept|stop(?:s|ped)?|tr(?:y|ies|ied)|quit|spen[dt]s?|goes|go|went|finish(?:es|ed)?|miss(?:es|ed)?|"
    r"practi[cs]e[sd]?|about|of|for|by|on|in|at|from|into|after|before|without)|['’](?:m|s|re))\s+$",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"\b(?:can|could|will|would|should|is|are|was|were|has|have|had|am)\b", re.IGNORECASE)


def _each_doing(clause: str) -> list[str]:
    """Two doings joined by "and", each with what comes before the first: "I've been busy volunteering at the
    hospital and keeping fit" is "I've been busy volunteering at the hospital" and "I've been busy keeping fit";
    "I was walking the dog and thinking about life" is two things I was doing. The doing just before the "and" is
    the first one ("I'm thinking about starting a business and making it work": thinking about making it work).
    A doing after a word it does not follow as the thing done (`_DOES_DOING`: "a loving and accepting home"), a
    list ("swimming, hiking and biking"), a doing with nothing before it ("Hiking and camping is fun") and a
    first doing that holds a clause of its own ("by practising together we can win ...") stay whole."""
    m = _AND_DOING.search(clause)
    doing = list(_DOING.finditer(clause[: m.start()])) if m else []
    head = clause[: doing[-1].start()] if doing else ""
    first = clause[doing[-1].start() : m.start()].split() if doing else []
    if not _DOES_DOING.search(head) or len(first) > 8 or _CLAUSE.search(" ".join(first[1:])):
        return [clause]
    return [clause[: m.start()], *_each_doing(head + clause[m.end() :])]
