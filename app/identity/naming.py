"""Names heard in speech: "hi, I'm David", "my name is Emily", "you can call me Al".

A wrong name is worse than none (the speaker stays unknown_N until they say it again or are renamed), so a
phrase names its speaker only in the shape of an introduction:
- a naming phrase: "my name is X", "I'm called X", "they call me X", "you can / please / just call me X",
  or "call me X" at the start of a sentence;
- "I'm X" / "I am X" right after a greeting ("hi, I'm David") or after "nice to meet you" (to someone:
  "nice to meet you Emily, I am John"), or followed by it ("I'm Nina, nice to meet you"), or opening a turn as a
  sentence of its own ("And I am David. John is my brother…");
- on the phone or opening a turn: "this is X speaking / calling", "hi, this is X from …", "This is X." (not
  "This is X, my dog");
- "Hi, Imanna": Whisper's "I'm Anna" written as one word after a greeting;
and never in reported speech ("he said, my name is …", inside an open quotation) or after a negation ("don't
call me …"). X must be a given name (gender-guesser's ~45,000 first names), not a common word that list also
holds ("I'm lucky", "I'm even more …"), not a possessive ("I'm Chrissie's sister"), not an acronym ("AI"),
and not followed by what makes it a predicate ("I'm lucky to …"). Text may be punctuated or lower-case ASR
output. Measured on real text in tests/test_naming.py (README, Naming).
"""

from __future__ import annotations

import functools
import re

import gender_guesser.detector

from app.text.words import STOPWORDS

AUTO_NAME = re.compile(r"unknown_\d+")  # what the recorder calls people until they are named

_NAME = r"(?P<name>[^\W\d_]+)(?P<possessive>['’]s\b)?"
_START = r"(?:^|(?<=[.!?;:\n…]))\s*"  # the start of the text or of a sentence
_FILLER = r"(?:(?:oh|ah|well|so|yes|yeah|yep|okay|ok|um|uh|er|erm|and|anyway|sorry|excuse me)\b[\s,!.]*)*"
_GREETING = (
    r"(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day))"
    r"(?:[\s,]+(?:there|everyone|everybody|all|guys|folks|again))?"
)
_MEET = r"(?:(?:it's|it is)\s+)?(?:(?:very|so|really)\s+)?(?:nice|pleased|glad|good|great|lovely)\s+to\s+meet\s+you"
_I_AM = r"(?:i'm|i’m|i am|im)"  # Whisper writes "Hi, Im Niamh" too
_ADDRESSEE = r"[^\W\d_]+"  # "nice to meet you Emily, I am John"
_APPOSITION = r"(?:my|our|his|her|their|the|a|an)\b"  # "this is Max, my dog": someone else
_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(?:my name is|my name's|my name’s|i'm called|i’m called|i am called"
        r"|(?:they|people|everyone|everybody|friends|most people) calls? me"
        rf"|(?:you can|you may|please|just) call me)\s+{_NAME}",
        rf"{_START}{_FILLER}call me\s+{_NAME}",
        # after a greeting or thanks, maybe to someone by name: "Hi Peter, I'm Susan", "Thanks, I'm Henry"
        rf"{_START}{_FILLER}(?:{_GREETING}|thanks|thank you)(?:[\s,]+{_ADDRESSEE})?[\s,!.]+{_I_AM}\s+{_NAME}",
        rf"\b{_MEET}(?:\s+too)?(?:[\s,]+{_ADDRESSEE})?[\s,!.]+{_FILLER}{_I_AM}\s+{_NAME}",
        rf"{_START}{_FILLER}{_I_AM}\s+{_NAME}(?=[\s,.!—–-]+(?:and\s+)?{_MEET})",
        rf"^{_FILLER}{_I_AM}\s+{_NAME}(?=\s*(?:[.!,;]|$))",  # opening a turn: "And I am David. John is my brother"
        rf"\bthis is\s+{_NAME}(?=,?\s+(?:speaking|calling)\b)",
        # opening a turn, on the phone or in fast talk: "This is Mark." "Hi, this is Ana, I'm calling about ..."
        # (not "This is Max, my dog", nor "this is Max's car")
        rf"^{_FILLER}(?:{_GREETING}[\s,!.]+)?this is\s+{_NAME}(?=\s*(?:[.!;]|$|,(?!\s*{_APPOSITION})))",
        rf"{_START}{_FILLER}{_GREETING}[\s,!.]+this is\s+{_NAME}(?=,?\s+from\b)",
    )
)
# words gender-guesser lists as first names that say something else in these phrases ("hi, I'm fine")
NOT_NAMES = (
    frozenset(
        """
fine ok okay sorry sure ready glad happy good great well back home done late busy tired sick going coming
afraid alone allergic also always away certain excited free hungry new now off only really right still
thinking trying working even kinda lucky one love honey baby dear ai aiming here just very young old
""".split()
    )
    | STOPWORDS
) - {"will"}
_PREDICATE = frozenset("to that for about with enough than of at because more too".split())
_REPORTED = re.compile(
    r"\b(?:said|says|told|tells|asked|asks|replied|replies|answered|wrote|writes|goes|went|shouted|yelled"
    r"|whispered|introduced (?:himself|herself|themselves)|(?:was|is|were|'s) like)\b(?:\W+\w+){0,4}\W*$",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:don't|don’t|do not|never|not|didn't|won't|doesn't)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_NEXT_WORD = re.compile(r"[\s,]*([^\W\d_]+)")
# Whisper sometimes writes "I'm Anna" after a greeting as one word: "Hi, Imanna", "Hi, Imleila", "Hi, Imia"
_MERGED = re.compile(rf"{_START}{_FILLER}{_GREETING}[\s,!.]+im(?P<rest>[^\W\d_]{{2,}})\b", re.IGNORECASE)


@functools.cache
def _given_names():
    return gender_guesser.detector.Detector(case_sensitive=False)


def is_given_name(word: str) -> bool:
    return _given_names().get_gender(word) != "unknown"


def _plausible_name(text: str, m: re.Match) -> bool:
    """The captured word can be the speaker's own first name here."""
    name = m.group("name")
    if m.group("possessive") or (len(name) > 1 and name.isupper() and not text.isupper()):
        return False  # "I'm Chrissie's sister", "my name is AI companion"
    if name.lower() in NOT_NAMES or not is_given_name(name):
        return False
    following = _NEXT_WORD.match(text, m.end("name"))
    return not (following and following.group(1).lower() in _PREDICATE)


def _spoken_by_the_speaker(text: str, m: re.Match) -> bool:
    """Not reported speech, not inside a quotation, not negated."""
    sentence = re.split(r"[.!?\n]", text[: m.start()])[-1]
    before = text[: m.start()]
    open_quote = before.count('"') % 2 == 1 or before.count("“") > before.count("”")
    return not (open_quote or _REPORTED.search(sentence) or _NEGATED.search(text[: m.start("name")]))


def _merged_introduction(text: str) -> str | None:
    """ "Hi, Imanna": the name in a greeting's "I'm" written as one word with it ("Imanna" -> Anna; "Imia" ->
    Mia, the "m" said once where too little is left to be a name), unless the word is itself a name ("Hi,
    Imogen" greets Imogen)."""
    m = _MERGED.search(text)
    if m is None or is_given_name("im" + m.group("rest")):
        return None
    rest = m.group("rest")
    for name in (rest, "m" + rest) if len(rest) >= 3 else ("m" + rest,):
        if name.lower() not in NOT_NAMES and is_given_name(name):
            return name.capitalize()
    return None


def self_introduction(text: str) -> str | None:
    """The first name a speaker gives for themselves in `text`, capitalised; else None."""
    found = [
        m
        for pattern in _PATTERNS
        for m in pattern.finditer(text)
        if _plausible_name(text, m) and _spoken_by_the_speaker(text, m)
    ]
    if not found:
        return _merged_introduction(text)
    return min(found, key=lambda m: m.start("name")).group("name").capitalize()
