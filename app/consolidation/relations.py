"""Relations the speaker names (memory writing, app/consolidation/extract.py): "my wife Sarah", "John is my
brother", "Emily, my colleague", "my colleague is Emily" (`relations_in`), the listener's ("how's your daughter
Ines?": `yours`), and what the speaker calls the one they talk to ("thanks, Mum": `called`), in whatever case and
punctuation a recognizer wrote them."""

from __future__ import annotations

import re

from app.identity.naming import is_given_name
from app.store.writing import Line
from app.text.words import STOPWORDS

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


# said only by the talk around it ("Your sister? When?" after "Ruth texted at midnight"; "How's your daughter?" —
# "Lucia loves it."; "My wife will be thrilled, Abena loves hosting."): a relation word said with no name, and a
# name said as the subject of what follows it, the only one its line says
_SUBJECT = re.compile(
    r"(?<![\w'’])(?P<name>[A-Z][a-z]+)(?=(?:['’]s|\s+(?:is|was|has|had|will|can|got|just|never|always|[a-z]{2,}(?:s|ed)"
    r"|found|said|went|took|made|came|left|told|knew|gave|bought|saw|did|would|could|might))\b)"
)
_NOT_NAMES = frozenset(
    "everyone everybody nobody nothing everything something life work mine yours thanks sorry".split()
    + [m.lower() for m in (*CALLED, *SHORT, *FAMILY, *SOCIAL)]
    + "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december".split()
)
_UNNAMED = rf"(?P<rel>(?i:{RELATION_WORDS}))s?\b(?!,?\s+[A-Z])"
_ECHOED = re.compile(rf"^\s*(?i:oh,?\s+|and\s+)?(?i:your)\s+{ADJ}{_UNNAMED}\s*\?")  # "Your sister?"
# asking after the listener's relative: "How's your daughter getting on?", "how is your dad doing?", or whether
# they do something: "Is your wife going too?" (its answer must name a given name: "Travel was her passion" is none)
_YOURS_ASKED = re.compile(rf"\b(?i:how)(?:['’]s|\s+(?:is|are|was|were))\s+(?i:your)\s+{ADJ}{_UNNAMED}[^.!?]*\?")
_YOURS_YES_NO = re.compile(  # (Whisper may cut it off: "is your wife going to...")
    rf"\b(?i:is|are|was|were|does|did|will|has|can)\s+(?i:your)\s+{ADJ}{_UNNAMED}[^.!?…]*(?:\?|\.\.\.|…|$)"
)
_OPENING = re.compile(r"^\s*(?:(?i:oh|well|yeah|yes|yep|no|nope|ah|great|good)\W+)*")
# "My wife will be thrilled, ": the sentence goes on within a few words
_MINE_THEN = re.compile(rf"\b(?i:my)\s+{ADJ}{_UNNAMED}(?:\s+[^\s,.;!?]+){{0,6}},\s+(?=[A-Z])")


def _subjects(text: str, speakers: set[str], lower: set[str]) -> list[str]:
    """The names `text` says as the subject of what follows them ("Ruth texted", "Esi's got"), not a speaker's
    and not a word the conversation says in lower case too ("Travel was ...", "... loves travel")."""
    found = [m.group("name") for m in _SUBJECT.finditer(text)]
    unnamed = STOPWORDS | _NOT_NAMES | lower
    return list(dict.fromkeys(n for n in found if n not in speakers and n.lower() not in unnamed))


def in_context(lines: list[Line]) -> list[tuple[int, str, str, str]]:
    """(line, relation, person, whose) for relations the talk around a line says and no line says with the name
    by the relation word: `line` is the one with the relation word. An echo ("Your sister? When?") names the one
    the line before named; a question about the listener's relative, the one the answer begins with ("How's your
    daughter getting on?" — "Lucia loves it."); "my wife" with no name, the one the sentence goes on with ("My wife
    will be thrilled, Abena loves hosting.")."""
    speakers = {ln.person for ln in lines if ln.person}
    lower = {w for ln in lines for w in re.findall(r"\b[a-z]+\b", ln.text)}
    out: list[tuple[int, str, str, str]] = []
    for i, line in enumerate(lines):
        if not line.person:
            continue
        before = lines[i - 1] if i > 0 and lines[i - 1].person not in (None, line.person) else None
        after = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].person not in (None, line.person) else None
        if (m := _ECHOED.search(line.text)) and before and len(named := _subjects(before.text, speakers, lower)) == 1:
            out.append((i, _relation(m), named[0], before.person))
        elif (m := _YOURS_ASKED.search(line.text) or _YOURS_YES_NO.search(line.text)) and after:
            named = _subjects(after.text, speakers, lower)
            start = _OPENING.match(after.text)
            given = m.re is _YOURS_ASKED or (len(named) == 1 and is_given_name(named[0]))
            if len(named) == 1 and given and after.text[start.end() if start else 0 :].startswith(named[0]):
                out.append((i, _relation(m), named[0], after.person))
        for m in _MINE_THEN.finditer(line.text):
            named = _subjects(line.text, speakers, lower)
            if len(named) == 1 and line.text[m.end() :].startswith(named[0]):
                out.append((i, _relation(m), named[0], line.person))
    return out
