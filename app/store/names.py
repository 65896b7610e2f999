"""One rule for where a person's name is said: the whole name, not inside a longer word on either side,
whatever punctuation it begins or ends with ("J.R."), in any case, non-ASCII included ("Zoë", "ZOË",
"STRAUSS" for "Strauß").

SQL's LIKE is not that rule (its `%` and `_` are wildcards and it folds ASCII only) and neither is `\\b`
(which never matches beside a name's own punctuation), so every place that finds, redacts or renames a name
— forgetting, renaming, the forget preview — asks this module; SQL only hands it the rows, through
`mentions(text, name)`, a function registered on every connection.
"""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=256)
def _pattern(name: str) -> re.Pattern[str]:
    """The case-folded name, not inside a longer word, in case-folded text."""
    return re.compile(rf"(?<!\w){re.escape(name.casefold())}(?!\w)")


def spans(text: str, name: str) -> list[tuple[int, int]]:
    """Where `name` is said in `text`, as (start, end) in `text`: the search runs on the case-folded text (in
    which "ß" is "ss"), and each folded character maps back to the character it came from."""
    if not name.strip() or not text:
        return []
    origin: list[int] = []
    folded = []
    for i, char in enumerate(text):
        fold = char.casefold()
        folded.append(fold)
        origin += [i] * len(fold)
    return [(origin[m.start()], origin[m.end() - 1] + 1) for m in _pattern(name).finditer("".join(folded))]


def mentions(text: str | None, name: str) -> bool:
    return bool(text) and bool(spans(text, name))


def replace(text: str, name: str, new: str) -> str:
    """`text` with every saying of `name` replaced by `new`."""
    out, last = [], 0
    for start, end in spans(text, name):
        out += [text[last:start], new]
        last = end
    return "".join(out) + text[last:]


def register(con) -> None:
    """`mentions(text, name)` in SQL on this connection: 1 when the rule finds the name, else 0."""
    con.create_function("mentions", 2, lambda text, name: int(mentions(text, name)), deterministic=True)
