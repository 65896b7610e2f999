"""Relations the speaker names (memory writing, app/consolidation/extract.py): "my wife Sarah", "John is my
brother", "Emily, my colleague", "my colleague is Emily" (`relations_in`), the listener's ("how's your daughter
Ines?": `yours`), and what the speaker calls the one they talk to ("thanks, Mum": `called`), in whatever case and
punctuation a recognizer wrote them."""

from __future__ import annotations

import re

from app.store.writing import Line

FAMILY = (
    "wife husband partner girlfriend boyfriend fiance fiancee mother mom father dad son daughter brother sister "
    "cousin aunt uncle grandmother grandfather grandma grandpa niece nephew kid child parent sibling".split()
)
SOCIAL = "friend colleague coworker boss neighbor neighbour roommate classmate teacher student mentor doctor".split()
SHORT = {"sis": "sister", "bro": "brother", "mum": "mother"}  # "my sis Rosa": the relation is "sister"
RELATION_WORDS = "|".join(FAMILY + SOCIAL + list(SHORT))
ADJ = r"(?i:(?:new|old|best|little|older|younger|big|good|dear)\s+)?"


_REL = rf"(?:my|our)\s+{ADJ}(?P<rel>{RELATION_WORDS})s?"
RELATED = tuple(  # the ways a transcript says it, whatever punctuation the recognizer put in
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b{_REL},?\s+(?P<name>[a-z]+)\b",  # my colleague Emily, my colleague, Emily
        rf"\b(?P<name>[a-z]+)(?:,?\s+(?:is|was)|'s)\s+{_REL}\b",  # John is my brother, John's my brother
        rf"\b{_REL}\s+(?:is|was)\s+(?:called\s+)?(?P<name>[a-z]+)\b",  # my colleague is Emily
        rf"\b(?P<name>[a-z]+),\s+{_REL}(?=\s*(?:[,.!?]|$))",  # Emily, my colleague, works with me (last: see below)
    )
)


_YOUR = re.compile(rf"\b(?i:your)\s+{ADJ}(?P<rel>(?i:{RELATION_WORDS}))s?,?\s+(?P<name>[A-Z][a-z]+)\b")


def yours(text: str, names: list[str]) -> list[tuple[str, str]]:
    """(relation, person) the speaker names as the listener's ("how's your daughter Ines?"): the listener is
    whoever answers (`extract.check`)."""
    return [(_relation(m), m.group("name")) for m in _YOUR.finditer(text) if m.group("name") in names]


def _relation(m: re.Match) -> str:
    """The relation a match's `rel` names, its short form said in full ("sis": sister)."""
    word = m.group("rel").lower()
    return SHORT.get(word, word)


_CALLED = re.compile(  # the listener called by what they are to the speaker: "that's great, sis!", "thanks, Mum"
    r"(?:^|[,;]\s*)(?i:dear\s+)?(?P<rel>(?i:sis|mum|mom|mummy|mommy|dad|daddy|grandma|grandpa|granny|nana))\s*(?=[,.!?]|$)"
)
CALLED = {"sis": "sister", "mum": "mother", "mom": "mother", "mummy": "mother", "mommy": "mother", "dad": "father"}
CALLED |= {"daddy": "father", "grandma": "grandmother", "granny": "grandmother", "nana": "grandmother"}
CALLED |= {"grandpa": "grandfather"}


_GREETED = re.compile(  # a conversation opened by greeting the listener so: "Hello Dad, got a minute?"
    r"^\s*(?i:hi|hello|hey|hiya|morning|good\s+(?:morning|afternoon|evening))\s+"
    r"(?P<rel>(?i:sis|mum|mom|mummy|mommy|dad|daddy|grandma|grandpa|granny|nana))\s*(?=[,.!?]|$)"
)


def called(text: str, opening: bool = False) -> list[str]:
    """What the speaker calls the one they talk to, as a relation ("Oh, that's great, sis!": sister; "Thanks,
    Mum": mother): the listener is that to the speaker. With `opening` (the line that opens a conversation), a
    greeting too: "Hello Dad, got a minute?"."""
    found = [*_CALLED.finditer(text), *(_GREETED.finditer(text) if opening else ())]
    return list(dict.fromkeys(CALLED[m.group("rel").lower()] for m in found))


def relations_in(line: Line, names: list[str]) -> list[tuple[str, str]]:
    """(relation, other person) the speaker names: "my wife Sarah", "John is my brother", "Emily, my colleague",
    "my colleague is Emily" — the other being one of `names`, in any case (a recognizer that writes lower case
    still names people)."""
    canonical = {n.lower(): n for n in names}
    text = line.text.replace("co-worker", "coworker").replace("Co-worker", "Coworker")
    out: list[tuple[str, str]] = []
    for i, pattern in enumerate(RELATED):
        for m in pattern.finditer(text):
            name = canonical.get(m.group("name").lower())
            relation = _relation(m)
            if name is None or name == line.person or (relation, name) in out:
                continue
            if i == len(RELATED) - 1 and any(r == relation for r, _ in out):
                continue  # "Hi John, my wife, Sarah, ...": the wife is Sarah, not the one greeted
            out.append((relation, name))
    return out
