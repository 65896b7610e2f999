"""Words: the stopwords, a text's content words and a plural's singular, as retrieval, answers, naming and
memory writing read them."""

from __future__ import annotations

import re

_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
not now of off on once only or other our ours ourselves out over own same she should so some such than
that the their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours yourself
yourselves said say says tell told remember know anyone anybody someone something ever
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)  # "o'clock" and "emily's" are one word
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
ASIDE = re.compile(r"\s*\[[^\]]*\]")  # "[shares a photo: ...]", "[laughs]": what was shown, done or heard, not said


def sentences(text: str) -> list[str]:
    """`text` split after each ".", "!" or "?" that spaces follow."""
    return _SENTENCE_END.split(text)


# words ending in "ing" that are things, not a verb's "-ing": "evening walks", "Hana's wedding"
ING_NOUNS = (
    r"(?:morning|evening|wedding|spring|building|ceiling|during|sibling|darling|pudding|clothing|king|ring|sing|"
    r"bring|string|swing|wing|thing|something|nothing|anything|everything)"
)
# after "tomorrow's" (or, with a verb's "-ing" too, "Hana's"), the words that make the "'s" an "is" or a "has",
# not a possessive: "tomorrow's gonna be fun", "Hana's my wife"
IS_AFTER_WORDS = (
    r"gonna|going|a|an|the|my|our|his|her|their|not|very|so|really|always|never|just|still|all|finally|almost|here|"
    r"over|from|in|at|on|back|been|be|got|gone"
)
IS_AFTER = re.compile(rf"['’]s\s+(?=(?:{IS_AFTER_WORDS})(?![-\w]))", re.IGNORECASE)


def keywords(text: str) -> list[str]:
    """Content words of a query, lower-cased, in order, without duplicates; a possessive is the word
    ("emily's" -> "emily": FTS5 would look for the phrase "emily s", which costs a scan of both
    words' positions and misses "emily" alone), and a negation ("hadn't") a stopword."""
    words = [w.lower().removesuffix("'s") for w in WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS and len(w) > 1 and not w.endswith("n't")]
    return list(dict.fromkeys(content or words))


def singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


# past forms that share no prefix with their verb: "who grew up in Boston" is held by "we grew up", "grow up" too
_IRREGULAR = """
grow grew grown, go went gone going goes, buy bought, eat ate eaten, meet met, see saw seen, make made,
take took taken, get got gotten, give gave given, come came, run ran, leave left, lose lost, win won,
write wrote written, begin began begun, spend spent, keep kept, hear heard, know knew known, sell sold,
build built, bring brought, catch caught, teach taught, drive drove driven, fly flew flown, fall fell fallen,
drink drank drunk, sing sang sung, swim swam swum, ride rode ridden, choose chose chosen, feel felt,
think thought, tell told, say said, find found, pay paid, send sent, sleep slept, stand stood, sit sat,
wear wore worn, bear born, break broke broken, speak spoke spoken, steal stole stolen, forget forgot forgotten,
hold held, lead led, lend lent, light lit, mean meant, put put, feed fed, fight fought, hide hid hidden
"""
IRREGULAR = {form: forms.split()[0] for forms in _IRREGULAR.replace("\n", ",").split(",") if forms.strip()
             for form in forms.split()[1:]}  # fmt: skip
# the simple past of each ("grew", "went", "sold"): the first form after the verb
PAST_FORMS = {forms.split()[0]: forms.split()[1] for forms in _IRREGULAR.replace("\n", ",").split(",")
              if len(forms.split()) > 1}  # fmt: skip
