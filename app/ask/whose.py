"""Whose a line's words are (app/ask/checking.py): the speaker's own, their listener's ("your patience", "congrats
on getting the job"), or someone else's the line names ("my wife Sarah is a doctor"), and the verbs a question asks
with about what someone told another ("what did Emily recommend?", "what did I ask everyone to remember?")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.ask.comparing import canonical, held, word_set
from app.ask.grounding import Line, stated
from app.consolidation.atoms import atoms
from app.text.words import ASIDE, keywords


def said_of_others(line: Line, held_words: set[str], topic: list[str]) -> set[str]:
    """Whom else `line` says the topic of, when it holds a who-question's answer only as its speaker and says the
    topic of others, not of them: "My wife Sarah is a doctor", said by John, names Sarah as the doctor (empty
    otherwise)."""
    if not line.person or held_words - word_set(line.person) or held_words & word_set(line.text):
        return set()
    about = _said_of(line, topic)
    return set() if line.person in about else about


# a question about what someone said to another: what they said of their listener is its answer
TELLING = re.compile(
    r"\b(?:(?:recommend|suggest|advi[sc]e|tell|told|say|said|encourag|ask|compliment|congratulat|prais|think|thought|"
    r"opinion)\w*|remind(?:s|ed|ing)?\b(?!\s+\w+\s+of\b))",  # not a reminder, nor what "reminds her of" a trip
    re.I,
)
# a part of a line about its listener: theirs ("your classroom"), what they are or did ("you found", "congrats on"),
# what they showed ("That pasta looks great!"); not "you" as anyone ("find a hobby that relaxes you")
_OF_YOU = re.compile(
    r"\b(?:your|yours|yourself)\b|\byou(?:['’](?:re|ve)|\s+(?:are|were|have|had|did|got|found|made|went|won)\b)|"
    r"\bfor\s+you(?:\s+(?:guys|two|all))?\b|"  # "Must have been scary for you guys"
    r"^\W*(?:do|did|does|are|were|have|had|can|could|will|would)\s+you\b|"  # "Do you teach history too?"
    r"^\W*(?:congrats|congratulations)\b|"
    r"^\W*(?:(?:wow|oh|ooh|aw+|omg|yeah|yes|nice|cool|great)\W+)?"  # "Wow, that park looks lovely"
    r"that\s+(?:[\w'-]+\s+){1,4}(?:looks|looked|sounds|sounded|seems|seemed)\b|"  # "That pasta looks great!"
    r"\bmust(?:['’]ve|\s+have)?\s+(?:be|been|feel|have)\b",  # a guess at their doings: "Growing up in Boston must
    # have been fun", "Lucy must be so excited for school"
    re.I,
)
# the verb of telling a question asks with ("what did I ask everyone to remember?", "what did Sarah suggest?"): a line
# that asks, suggests or tells is said that way without the verb ("Please remember that ...", "You should ...")
ASKS_WHAT_TOLD = re.compile(
    r"\b(?:did|does|do|has|have|had)\s+(?:[\w']+\s+){1,2}?"
    r"(ask|tell|say|suggest|recommend|advise|encourage|remind)(?:s|ed)?\b",
    re.I,
)
_OF_ME = re.compile(r"\bI\b|\b(?i:me|my|mine|myself|we|us|our|ours)\b")
# "I" only as the one who hears of or takes to what the listener did: "I hear the course you're taking ...", "I love
# how it shows the patience you were talking about"
_REACTING = re.compile(
    r"\bI\s+(?:really\s+|just\s+|also\s+)?(?:hear|heard|love|loved|like|liked|think|bet|guess|see|saw|know|hope|mean|"
    r"remember|admire|appreciate)\b"
)
_PART_END = re.compile(r"(?<=[.!?;])\s+|\s+-\s+")
_YOURS = re.compile(r"\byour\s+((?:[\w'-]+\s+){0,2}[\w'-]+)", re.I)  # "your history class"


def said_of_listener(line: Line, held_words: set[str], topic: list[str], named: list[str]) -> bool:
    """Whether `line`, said by someone a question asks about (and not about its listener), says the answer's
    words only where it speaks of its listener and not of the speaker ("It's inspiring to see your patience with
    the children", said by John, is Emily's patience; "Congrats on getting the teaching job at the high
    school" is the listener's job; "I hear the course you're taking is full of Italian recipes" is the
    listener's course, the "I" only hearing of it), or says what the question asks about only as the listener's
    ("Can't wait to see your new garden finished") or in asking them ("Anything you're excited for on the trip
    to Paris?")."""
    names = {n.lower() for n in named}
    if not line.person or line.person.lower() not in names or names & line.heard_by:
        return False
    yours, mine = _parts(line)
    if _only_in(held_words, yours, mine) or _only_in(topic, yours, mine):
        return True
    owned = word_set(" ".join(_YOURS.findall(line.text)))
    return _only_in(topic, [owned], [word_set(_YOURS.sub(" ", line.text))])


def _in(words: Iterable[str], parts: list[set[str]]) -> bool:
    """Whether some of `words` are held by one of the word sets `parts`."""
    return any(held(w, p) for w in words for p in parts)


def _only_in(words: Iterable[str], these: list[set[str]], others: list[set[str]]) -> bool:
    """Whether some of `words` are held by `these` word sets and none by `others`."""
    words = list(words)
    return _in(words, these) and not _in(words, others)


def said_to_listener(line: Line, held_words: set[str]) -> bool:
    """Whether `line` says some of the answer's words where it speaks of its listener ("Hey Ben! Congrats on getting
    the teaching job"): then it is about them, though it only calls their name."""
    yours, _ = _parts(line)
    return _in(held_words, yours)


def _parts(line: Line) -> tuple[list[set[str]], list[set[str]]]:
    """The words of each part of `line` that speaks of its listener, and of each part that does not."""
    parts = [
        (bool(_OF_YOU.search(p)) and not _OF_ME.search(_REACTING.sub(" ", p)), word_set(p))
        for p in _PART_END.split(ASIDE.sub("", line.text))  # a photo shown is not said of anyone
    ]
    return [words for of_you, words in parts if of_you], [words for of_you, words in parts if not of_you]


def _said_of(line: Line, topic: list[str]) -> set[str]:
    """Whom `line` says the topic words of, by its atomic facts read as memory writing reads them."""
    if not line.person or not topic:
        return set()
    named = re.findall(r"\b[A-Z][a-z]+\b", line.text)
    facts = atoms(stated(line.text), line.person, named)
    return {who for who, fact in facts if set(topic) & {canonical(w) for w in keywords(fact)}}
