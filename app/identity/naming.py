"""Names heard in speech: "my name is Emily", "call me John", "I'm David".

Strong phrasings name whoever says them; "I am X" / "I'm X" / "this is X speaking" only when X is a given
name (gender-guesser's international list of ~45,000 first names) and not a common word after "I am".
"""

from __future__ import annotations

import functools
import importlib.util
import re

from app.recall import STOPWORDS

AUTO_NAME = re.compile(r"unknown_\d+")  # what the recorder calls people until they are named
STRONG = re.compile(r"\b(?:my name is|my name's|call me|i am called|i'm called|they call me)\s+([a-z][a-z'-]+)")
WEAK = re.compile(r"\b(?:i am|i'm|this is)\s+([a-z][a-z'-]+)")
NOT_NAMES = (
    frozenset(
        """
fine ok okay here sorry sure ready glad happy good great well back home done late busy tired sick going
coming afraid alone allergic also always away certain excited free hungry just new not now off on only
really right so still sure thinking trying working very will grace hope joy sunny young old so
""".split()
    )
    | STOPWORDS
)


@functools.cache
def _given_names():
    if importlib.util.find_spec("gender_guesser") is None:
        return None
    import gender_guesser.detector

    return gender_guesser.detector.Detector(case_sensitive=False)


def is_given_name(word: str) -> bool:
    names = _given_names()
    return names is not None and names.get_gender(word) != "unknown"


def self_introduction(text: str) -> str | None:
    """The name a speaker gives for themselves in `text` (lower-case ASR output), capitalised; else None."""
    lowered = text.lower()
    m = STRONG.search(lowered)
    if m and m.group(1) not in STOPWORDS:
        return m.group(1).capitalize()
    for m in WEAK.finditer(lowered):
        word = m.group(1)
        if word not in NOT_NAMES and is_given_name(word):
            return word.capitalize()
    return None
