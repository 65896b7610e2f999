"""What a line refers to beyond its own words (app/ask/checking.py): the names it only addresses ("Thanks, David!"),
the earlier line of its speaker it goes on from ("I'm hosting one next month" after "we always have a big family
dinner"), and whether the people and relation words a question names are in the lines an answer is read from."""

from __future__ import annotations

import re
from dataclasses import replace

from app.ask.comparing import canonical, says, word_set
from app.ask.grounding import AGE, RELATION_WORDS, Line, told_who
from app.text.words import keywords, singular

_TO_SOMETHING = r"there|then|it|this|these|those"  # words that point back to what was said
_TO_SOMEONE = r"she|he|her|him|they|them"  # and to whom
POINTS_TO_SOMEONE = re.compile(rf"\b(?:{_TO_SOMEONE})\b", re.I)  # "when she would make ..."
POINTS_BACK = re.compile(rf"\b(?:one|{_TO_SOMETHING}|{_TO_SOMEONE})\b", re.I)  # "I'm hosting one", "They were"


def goes_on(x: Line, h: Line, points_back: re.Pattern) -> bool:
    """Whether `h` goes on from `x`: its speaker said `x` just before in that conversation and `h` points back to
    it (`points_back`: "My brother and I always have a big family dinner", then "I'm hosting one next month") or
    answers the other's question about it ("I bought a new bicycle", "Been anywhere nice on it?", "Mostly just
    to work and back"), or they were read beside each other (`with_turns_beside`: "We watched the sunset over
    Paris", then "It made me feel so calm")."""
    if x.id == h.beside or x.beside == h.id:
        return True
    return (
        x.session is not None
        and (x.session, x.person) == (h.session, h.person)
        and 0 < h.id - x.id <= 3
        and (bool(points_back.search(h.shown)) or bool(h.asked) and h.id - x.id == 2)
    )


def people_held(
    question: str, named: list[str], said_by: list[Line], context: list[Line], kin: list[Line] = ()
) -> bool:
    """Whether the `context` lines hold every person `question` names and they or `kin` its relation words
    ("Emily's husband" is not held by "my brother"). A person counts as there when one of `said_by` was said by
    someone the question names to them, in a conversation they spoke in ("what book did Emily recommend to
    John?"), or when a fact about them was read from a context line (`Line.about`: "He's a sound engineer", said
    of Teodor)."""
    text = " ".join(f"{_speaker(x)} {' '.join(x.about)} {unaddressed(x.shown, named)}" for x in context).lower()
    told = {n for x in said_by if x.person and x.person.lower() in {m.lower() for m in named} for n in x.heard_by}
    if any(not re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", text) and n.lower() not in told for n in named):
        return False
    words = {w for x in [*context, *kin] for w in word_set(x.shown)}
    asked = {singular(w) for w in keywords(AGE.sub(" ", question))} & RELATION_WORDS - told_who(question, named)
    return all(says(canonical(r), words) for r in asked)


def _speaker(line: Line) -> str:
    """Who a line is by, as one it is about: not when it opens on someone else ("he", "she", "they") and every fact
    read from it is about someone else ("He's a sound engineer", said by Petra of Teodor, is not about Petra; "Yes,
    Quay Road, number fourteen. Liv is devastated" is Hanne's, though its one fact is Liv's)."""
    person = line.person or ""
    other = line.about and person.lower() not in line.about and _OPENS_ON_ANOTHER.match(line.text)
    return "" if other else person


_OPENS_ON_ANOTHER = re.compile(r"\W*(?:he|she|they|his|her|their)\b", re.I)


_LISTED = r"(?-i:[A-Z][a-z]+)(?:,|\s+and\b|\s*&)"  # "Emily, John and I": a list, not a call
_GREETING = r"(?:hi|hey|hello|thanks|thank you|meet you|see you|bye|goodbye|congrats|congratulations)"
_INTERJECTION = r"(?:wow|woah|whoa|oh|aw+|yay|omg|haha|yeah|yes|cool|nice|awesome|great|sure|sorry)"


def unaddressed(text: str, names: list[str]) -> str:
    """`text` without the names it addresses: "Nice to meet you Emily, John teaches history" is not about Emily,
    nor is "Thanks, David!", "Wow, Sarah, that's so kind" or "Emily, have you heard?". A name in a list ("Emily,
    John and I"), after "my sister," or said to the one it is about ("Emily, you are allergic") is a mention."""
    for name in names:
        n = re.escape(name)
        # "Wow, Sarah, that's ...", and at a line's start "Wow Sarah, that's ..."
        greeted = rf"\b{_GREETING},?\s+{n}\b|\b{_INTERJECTION},\s+{n}\s*(?=[,!.])|^\W*{_INTERJECTION}\s+{n}\s*(?=,)"
        first = rf"^\s*{n}\s*[,!](?!\s*(?:{_LISTED}|and\b|who\b|you\b|you['’]re\b|your\b))"
        last = rf",\s*{n}\s*(?=[.!?]|$)"

        def out(m: re.Match, said: str = text) -> str:
            told = m.group(0).startswith(",") and re.search(
                r"\b(?:my|our|his|her|their)\s+\w+\s*$", said[: m.start()], re.I
            )
            return m.group(0) if told else " "  # "my sister, Emily." names her

        text = re.sub(f"{greeted}|{first}|{last}", out, text, flags=re.I)
    return text


def as_said(line: Line, answer: str) -> Line:
    """`line` without the names it only addresses of those who heard it that `answer` says: "Thanks, John. When I
    was younger, our aunt helped us" does not hold "John" for who helped, nor "Hey Ben, we adopted Milo!" for
    where Milo came from."""
    called = [w for w in re.findall(r"\b[A-Z][a-z]+\b", answer) if w.lower() in line.heard_by]
    return replace(line, shown=unaddressed(line.shown, called)) if called else line


POINTS_ELSEWHERE = re.compile(rf"\b(?:{_TO_SOMETHING}|{_TO_SOMEONE})\b", re.I)
