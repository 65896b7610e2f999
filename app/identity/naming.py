"""Names heard in speech: "hi, I'm David", "my name is Emily", "you can call me Al".

A wrong name is worse than none (the speaker stays unknown_N until they say it again or are renamed), so a
phrase names its speaker only in the shape of an introduction:
- a naming phrase: "my name is X", "I'm called X", "they call me X", "you can / please / just call me X",
  or "call me X" at the start of a sentence;
- "I'm X" / "I am X" right after a greeting ("hi, I'm David") or after "nice to meet you" (to someone:
  "nice to meet you Emily, I am John"), or followed by it ("I'm Nina, nice to meet you"), or opening a turn as a
  sentence of its own ("And I am David. John is my brother…", "And I'm Sheila and Tom is…");
- on the phone or opening a turn: "this is X speaking / calling", "hi, this is X from …", "This is X." (not
  "This is X, my dog"), and where a caller is: "This is X in New Jersey", "And I'm Y in Texas";
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
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

import gender_guesser.detector
import jellyfish

from app.text.words import STOPWORDS

P = TypeVar("P", bound=Hashable)  # whoever a turn is said by: a person's id, a speaker's name
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
        # opening a turn: "And I am David. John is my brother", "And I'm Sheila in Texas" (heard "and Texas" too:
        # "and" before a capital)
        rf"^{_FILLER}{_I_AM}\s+{_NAME}(?=\s*(?:[.!,;]|$)|\s+(?:in|from)\s|\s+and\s+(?-i:[A-Z]))",
        rf"\bthis is\s+{_NAME}(?=,?\s+(?:speaking|calling)\b)",
        # opening a turn, on the phone or in fast talk: "This is Mark." "Hi, this is Ana, I'm calling about ..."
        # (not "This is Max, my dog", nor "this is Max's car")
        rf"^{_FILLER}(?:{_GREETING}[\s,!.]+)?this is\s+{_NAME}(?=\s*(?:[.!;]|$|,(?!\s*{_APPOSITION})))",
        rf"{_START}{_FILLER}{_GREETING}[\s,!.]+this is\s+{_NAME}(?=,?\s+from\b)",
        # where a caller is: "... I heard a beep. This is Diane in New Jersey." (someone introduced is here)
        rf"{_START}{_FILLER}this is\s+{_NAME}(?=,?\s+in\s+(?-i:[A-Z]))",
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


# Names people are called by ("Thanks, Nadia", "Omar, is curry okay?"): in real conversation people seldom say their
# own name, but they are called by it; who answers, or who was answered, is the one called (`names_by_address`).
_REPLY = (
    r"(?:thanks|thank you|cheers|sorry|no worries|no problem|of course|exactly|congrats|congratulations|well done"
    r"|good for you|good point|fair enough|true|right|yes|yeah|yep|no|nope|sure|okay|ok|oh|ah|aw|wow|ha|haha|great"
    r"|nice|good|perfect|lovely|brilliant|awesome|cool|fine|deal|bless you|good luck|you too|me too|same here)"
)
_HELLO = (
    r"(?:hi|hey|hello|hiya|morning|good morning|afternoon|good afternoon|evening|good evening|night|good night"
    r"|bye|goodbye|see you|see you later|see ya|welcome|welcome back|happy birthday)"
)
_CALLED = r"(?-i:(?P<name>[A-Z][a-z]+))"  # a capitalised word: Whisper writes names so
_LEAD = rf"(?:{_FILLER}(?:by the way|listen|look|right|now)\b[\s,!.]*)*{_FILLER}"
_ASKING = (  # how a question goes on after the name: "Omar, is curry okay for you?"
    r"(?:is|are|was|were|do|does|did|can|could|would|will|shall|should|have|has|had|how|how's|what|what's|where"
    r"|where's|when|who|who's|why|which|any|got|fancy|want)\b"
)
_CLAUSE = rf"(?:{_ASKING}|i|i'm|you|you're|we|we're|let's|let|please|come|tell|guess|remember)\b"
_ADDRESS = (
    # "Thanks, Nadia, it smells amazing." "No worries, Felix." — a reply: to whoever spoke before
    ("reply", re.compile(rf"{_START}{_LEAD}{_REPLY}[\s,!]+{_CALLED}(?=\s*(?:[,.!?;:]|$))", re.IGNORECASE)),
    # "Morning, Marta." "Hi Felix, hi Omar": to whoever speaks next, or whoever just did
    ("hello", re.compile(rf"\b{_HELLO}[\s,!]+{_CALLED}(?=\s*(?:[,.!?;:]|$))", re.IGNORECASE)),
    # "Omar, is curry okay for you?" "So, Felix, how's work?" (not "Omar, Nadia and I ...", "Lena, my sister, ...",
    # "Tom, who ...")
    (
        "opening",
        re.compile(
            rf"{_START}{_LEAD}{_CALLED}\s*[,!](?!\s*(?:and|or|who|which|{_APPOSITION}|(?-i:[A-Z][a-z]+)\s*(?:,|and)))",
            re.IGNORECASE,
        ),
    ),
    # "That's great, Omar, is curry okay for you?" (not "Tom, Anna, and Bob")
    ("inside", re.compile(rf",\s*{_CALLED}\s*,(?=\s*{_CLAUSE})", re.IGNORECASE)),
    # "Is curry okay for you, Omar?" "I'll send it tonight, Felix." (not "... with my sister, Anna.")
    ("closing", re.compile(rf",\s*{_CALLED}\s*(?=[.!?]|$)", re.IGNORECASE)),
)
_THANKS = re.compile(r"\b(?:thanks|thank you|sorry)\b", re.IGNORECASE)
# "with my sister, Anna", "this amazing woman, Jean, who ...", "one of them, Daisy, is a Labrador": who they are
_HEAD_BEFORE = re.compile(
    rf"(?:\b(?:{_APPOSITION}|this|that|these|those)\s+(?:[\w'-]+\s+){{0,2}}[\w'-]+|\bof (?:them|us|those))\s*$",
    re.IGNORECASE,
)
_PREDICATE_AFTER = re.compile(
    r"[\s,]*(?:who|which|whose|(?:is|are|was|were|has|had)\s+(?:a|an|the|my|his|her|their|our|so|very|also|still)\b)",
    re.IGNORECASE,
)
_NOT_CALLED = frozenset(  # names in gender-guesser's list that open a sentence as a word of their own
    "hey hi oh ah aw wow ha haha yup yep yeah man go woo dang gosh golly jeez dude bro boy girl honey sweetie"
    " buddy mate sir madam guys folks everyone everybody bless".split()
    + "january february march april may june july august september october november december monday tuesday wednesday"
    " thursday friday saturday sunday".split()
)


def addressed(text: str) -> list[tuple[str, str]]:
    """The names a speaker calls someone by in `text`, each with whom it is said to: "before" (a reply to
    whoever spoke last), "after" (to whoever speaks next) or "around" (either); never in reported speech or a
    quotation, nor a word that is a month, a day or a common word as well as a name."""
    found: dict[str, str] = {}
    for form, pattern in _ADDRESS:
        for m in pattern.finditer(text):
            name = m.group("name")
            if name in found or name.lower() in NOT_NAMES | _NOT_CALLED or not is_given_name(name):
                continue
            before = text[: m.start()]
            sentence = re.split(r"[.!?\n]", before)[-1]
            if form in ("inside", "closing") and (_HEAD_BEFORE.search(before) or _PREDICATE_AFTER.match(text, m.end())):
                continue  # "... with my sister, Anna.": who she is, not whom it is said to
            if before.count('"') % 2 == 1 or before.count("“") > before.count("”") or _REPORTED.search(sentence):
                continue
            found[name] = _said_to(form, text, m, sentence)
    return list(found.items())


def _said_to(form: str, text: str, m: re.Match, sentence: str) -> str:
    """Whom a name called in `form` is said to: "before", "after" or "around" (either). A reply's name followed by
    a question in the same turn may be the question's ("Thanks for telling me, Samir. How's the app?" was said
    "... me. Samir, how's the app?": Whisper's full stops are not the speaker's), so it is said around."""
    rest = text[m.end() :]
    if form in ("opening", "inside"):
        return "after" if re.match(rf"[\s,!]*{_ASKING}", rest, re.IGNORECASE) else "around"
    if form == "closing" and rest.lstrip().startswith("?"):
        return "after"  # "Is curry okay for you, Omar?"
    reply = form == "reply" or (form == "closing" and _THANKS.search(sentence))  # "Thanks for having us, Bruno."
    asks = "?" in rest or re.search(rf"(?:^|[.!?,])\s*{_ASKING}", rest, re.IGNORECASE)
    return "before" if reply and not asks else "around"


def names_by_address(turns: Sequence[tuple[P | None, str]], names: Mapping[P, str]) -> dict[P, str]:
    """The names a conversation's people are called by, from its turns in order (who said it or None, what was
    said). A name called in a turn that calls only one goes to the nearest other speaker it is said to
    (`addressed`): said before or after them, a whole vote; "around", half a vote to each. Someone takes a name
    when it got more of their votes than any other name and more than anyone else got for it, they never called
    it themselves, and it got a whole vote (in a conversation of two, any vote: the other one is called). On the
    project's scenes written as text, a name said to whoever speaks next went to them 13 times of 13, to whoever
    spoke before 7 of 8, "around" 28 of 48 (README, Naming). `names` are the people already named (their names
    are taken, they take none); the result holds only the others."""
    speakers = [p for p, _ in turns]
    people = {p for p in speakers if p is not None}
    votes: dict[P, dict[str, float]] = {p: {} for p in people}
    calls: dict[P, set[str]] = {p: set() for p in people}
    for i, (speaker, text) in enumerate(turns):
        if speaker is None:
            continue
        said = addressed(text)
        calls[speaker].update(name for name, _ in said)
        if len(said) != 1:
            continue
        name, to = said[0]
        before = next((p for p in reversed(speakers[max(0, i - 2) : i]) if p is not None and p != speaker), None)
        after = next((p for p in speakers[i + 1 : i + 3] if p is not None and p != speaker), None)
        for side, p in (("before", before), ("after", after)):
            if p is not None and to in (side, "around"):
                votes[p][name] = votes[p].get(name, 0.0) + (1.0 if to == side else 0.5)
    need = 0.5 if len(people) == 2 else 1.0
    taken = set(names.values())
    out: dict[P, str] = {}
    for p, counts in votes.items():
        if p in names or not counts:
            continue
        (name, n), *rest = sorted(counts.items(), key=lambda kv: -kv[1])
        others = [m for _, m in rest] + [votes[q].get(name, 0.0) for q in people if q != p]
        if n >= need and name not in taken and name not in calls[p] and all(n > m for m in others):
            out[p] = name
    return out


_WORD = re.compile(r"(?<![\w'’])([A-Za-z][a-z]+)(?=(?:['’]s)?\b)")


def _other_gender(a: str, b: str) -> bool:
    """Whether two names are one a man's and the other a woman's (Paul and Paula, Carl and Carla)."""
    ga, gb = _given_names().get_gender(a), _given_names().get_gender(b)
    return {ga.replace("mostly_", ""), gb.replace("mostly_", "")} == {"male", "female"}


def as_known(text: str, names: Sequence[str], said: Callable[[str], bool] = lambda _: False) -> str:
    """`text` (a question) with each name in it that nobody in `names` has and the memory never heard (`said`),
    but that sounds like exactly one of theirs, written as theirs: Whisper writes a name one way, the one asking
    another ("Ana" asked, "Anna" heard; Hana and Hannah, Luca and Luke, Jon and John). Sounding alike: the same
    Metaphone key, at most two letters apart (jellyfish), and not one a man's and the other a woman's. A name is
    a capitalised word (the first word of the text only when it is a given name), no common word; one that
    sounds like two people's names is left as it is."""
    known = {n.split()[0]: n for n in names if not AUTO_NAME.fullmatch(n)}
    taken = {w.lower() for n in names for w in n.split()}

    def spelled(m: re.Match) -> str:
        word, low = m.group(1), m.group(1).lower()
        first = re.search(r"\w", text[: m.start()]) is None
        if not word[0].isupper() or (first and not is_given_name(word)) or low in taken | NOT_NAMES | _NOT_CALLED:
            return word
        key = jellyfish.metaphone(word)
        alike = {
            full
            for name, full in known.items()
            if jellyfish.metaphone(name) == key
            and jellyfish.damerau_levenshtein_distance(low, name.lower()) <= 2
            and not _other_gender(word, name)
        }
        return alike.pop() if len(alike) == 1 and not said(word) else word

    return _WORD.sub(spelled, text)
