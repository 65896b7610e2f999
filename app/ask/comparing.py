"""How the answer check compares words: a light stem that makes "studied", "studying" and "studies" one word,
irregular past forms as their verb ("grew" is "grow"), words that say the same here ("loves" is "likes", "daily"
is "every day"), numbers as digits, and a topic word held by naming one of its kinds ("kids" by "daughter")."""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from app.text.timeexpr import COUNTS, MONTHS, WEEKDAYS
from app.text.words import IRREGULAR, WORD

YES_NO = re.compile(r"^\s*(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)\b", re.I)
_TEENS = "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBERS = (  # "ten" is "10", "fourteen" "14", "thirty" "30"
    {w: str(n) for w, n in COUNTS.items()}
    | {w: str(13 + i) for i, w in enumerate(_TEENS)}
    | {w: str(20 + 10 * i) for i, w in enumerate(_TENS)}
)
# words that say the same here, each form to the first: "does Sarah like tennis?" is held by "she loves tennis",
# "daily" by "every day"
_SAME = """
like likes liked liking love loves loved loving enjoy enjoys enjoyed enjoying adore adores adored,
kid kids child children, marry married marries marrying, friend friends buddy buddies pal pals,
girlfriend gf, boyfriend bf,
father dad dads daddy, mother mom moms mum mums mommy, grandfather grandpa, grandmother grandma granny,
few several, day daily, week weekly, month monthly, year yearly annually, night nightly, hour hourly,
favorite favourite favorites favourites fave faves fav favs
"""
SAME = {form: forms.split()[0] for forms in _SAME.replace("\n", ",").split(",") if forms.strip()
        for form in forms.split()}  # fmt: skip
# a topic word a line holds by naming one of its kinds: "does Emily have any kids?" by "my daughter Lucy",
# "who is Sarah married to?" by "my wife Sarah"
KINDS_OF = {
    "kid": "daughter son baby",
    "marry": "wife husband spouse",
    "spouse": "wife husband",
    "parent": "mother father mom dad",
    "sibling": "brother sister",
    "hobby": "enjoy love like passion",  # "what are Emily's hobbies?" by "Emily also enjoys reading"
    "plan": "will i'll we'll gonna intend hope",  # "what is David planning to do?" by "I'll call her tomorrow"
}  # fmt: skip  ("pets" needs no entry: the text embedder puts "dog" near it, SIMILAR)


def canonical(word: str) -> str:
    """A word as it is compared: numbers as digits, irregular past forms as their verb, words that say the same as
    one, a -y adjective's comparative as the adjective, then its English (Porter2) stem ("studied", "studying",
    "studies" → "studi"; "bicycles" → "bicycl")."""
    word = NUMBERS.get(word, word)
    word = SAME.get(word, IRREGULAR.get(word, word))
    if not word.isalpha():
        return word
    if len(word) > 5 and word.endswith(("ier", "iest")):  # a -y adjective's comparative: "healthier" is "healthy"
        word = word[: -3 if word.endswith("ier") else -4] + "y"
    return _stem(word)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


_STEMMER = snowballstemmer.stemmer("english")


# "our two-year-old loves the park": an age said as a noun is a child ("my 30-year-old brother" is an age)
_AGED = re.compile(
    r"\b(?:my|our|his|her|their|your)\s+(?:\w+-)?\w+-(?:year|month|week)-olds?\b"
    r"(?!\s+(?!(?:is|was|has|had|and|loves?|loved|just|can|will|started|turned)\b)[a-z])",
    re.I,
)


def word_set(text: str) -> set[str]:
    """The words of `text` as they are compared (`canonical`), a possessive's "'s" left off; an age said as a
    noun ("our one-year-old") says "kid" too."""
    words = {canonical(w.removesuffix("'s")) for w in WORD.findall(text.lower())}
    return words | {"kid"} if _AGED.search(text) else words


def held(word: str, words: set[str]) -> bool:
    """`word` (canonical) is among `words` (canonical): the same stem ("bicycle" and "bicycles", "adopt" and
    "adopted"), never two words that only begin alike ("interview" and "international", "concert" and "concern")."""
    return word in words


TIME_WORDS = frozenset(
    [*MONTHS, *WEEKDAYS, "spring", "summer", "autumn", "fall", "winter", "week", "weekend", "month", "year", "day",
     "today", "yesterday", "tomorrow", "morning", "afternoon", "evening", "night", "last", "next", "ago", "recently"]
)  # fmt: skip
TIME_CANONICAL = frozenset(canonical(w) for w in TIME_WORDS)  # the time words as compared ("weeks" is "week")


_KINDS = {canonical(w): frozenset(canonical(k) for k in kinds.split()) for w, kinds in KINDS_OF.items()}


def says(word: str, words: set[str]) -> bool:
    """`word` (canonical) is among `words`, or one of its kinds is (`KINDS_OF`: "kids" by "daughter")."""
    return held(word, words) or bool(_KINDS.get(word, frozenset()) & words)
