"""How a checked answer is said: with the time words of the line it holds resolved to the day they mean
(`resolve_times`, `dated_answer`), and without the words it repeats of the question (`concise`)."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Protocol

from app.ask.comparing import NUMBERS, TIME_WORDS, YES_NO, canonical, held
from app.facts import past_tense
from app.text.timeexpr import (
    FUZZY,
    MONTH_RE,
    MONTHS,
    WEEKDAYS,
    TimeWindow,
    count_of,
    day_words,
    plan_window,
    spoken_time,
)
from app.text.timeexpr import NUMBERS as COUNTED
from app.text.words import WORD, keywords


class Said(Protocol):
    """A line as `dated_answer` and `as_guess` read it (app.ask.grounding.Line is one)."""

    @property
    def t_start(self) -> float: ...  # epoch seconds it was said

    @property
    def text(self) -> str: ...  # its words as said

    @property
    def shown(self) -> str: ...  # as the reading model saw it

    @property
    def person(self) -> str | None: ...  # who said it


def resolve_times(text: str, said: float) -> str:
    """`text` with each time expression it uses followed by the date it means, counted from when it was said:
    "the meeting is on Monday" said on Thursday 14 May 2026 → "the meeting is on Monday (Monday 18 May 2026)",
    and in a sentence that tells what happened, the day before ("I twisted my ankle on Friday": Friday 8 May);
    and since when something has gone on for years or months ("I've had my bicycle for 3 years now" said in 2026:
    "for 3 years now (since around 2023)")."""
    day = datetime.fromtimestamp(said, timezone.utc)
    pieces = _pieces(text, day)
    return "".join(f"{piece} ({meant})" if window else _since(piece, day) for piece, window, meant in pieces)


def times_named(text: str, said: float) -> list[TimeWindow]:
    """The spans of time `text` names, read as `resolve_times` reads them, counted from when it was said ("Sarah
    and I made dinner last night", said on 14 May 2026: the night of 13 May)."""
    return [window for _, window, _ in _pieces(text, datetime.fromtimestamp(said, timezone.utc)) if window]


def _pieces(text: str, day: datetime, depth: int = 3) -> list[tuple[str, TimeWindow | None, str]]:
    """`text` cut at its time expressions (up to `depth` on each side of one), in order: each piece with the span
    of time it names and the words for it, or None and "" for the text between them. Each sentence is read by its
    own tense: "I hurt it on Friday. We play on Friday."."""
    parts = _SENTENCE_END.split(text)
    if len(parts) > 1:
        return [x for i, p in enumerate(parts) for x in ([(p, None, "")] if i % 2 else _pieces(p, day, depth))]
    found = plan_window(text, day, past_tense(text)) if depth else None
    meant = _meant(text, found, day)
    if found is None or meant is None:
        return [(text, None, "")]
    at, end, words = meant
    return [*_pieces(text[:at], day, depth - 1), (text[at:end], found[0], words), *_pieces(text[end:], day, depth - 1)]


_SENTENCE_END = re.compile(r"((?<=[.!?])\s+)")


_LASTING = re.compile(  # "I've had my bicycle for 3 years now", "she has been playing for just under a year"
    r"\b(?:I['’]ve|we['’]ve|you['’]ve|they['’]ve|have|has)\s+(?:[\w'’-]+\s+){0,6}?for\s+"
    r"(?:about\s+|around\s+|almost\s+|nearly\s+|over\s+|just\s+under\s+|just\s+over\s+|more\s+than\s+)?"
    r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty)\s+(year|month)s?"
    r"(?:\s+now)?\b(?!\s*\()",
    re.IGNORECASE,
)


def _since(text: str, day: datetime) -> str:
    """`text` with since when what has gone on for years or months began, counted back from `day`."""

    def since(m: re.Match) -> str:
        months = count_of(m[1].lower()) * (12 if m[2].lower() == "year" else 1)
        year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
        start = datetime(year, month + 1, 1)
        return f"{m[0]} (since around {start.year if months >= 24 else f'{start:%B} {start.year}'})"

    return _LASTING.sub(since, text)


_WEEK = re.compile(r"\b(?:last|past|next|this\s+past)\s+(week|weekend)\b")
_COUNT = "|".join(sorted(COUNTED, key=len, reverse=True))
_AGO = re.compile(rf"\b(\d+|{_COUNT})\s+(week|month|year)s?\s+ago\b")


def _meant(text: str, found: tuple[TimeWindow, str] | None, said: datetime) -> tuple[int, int, str] | None:
    """Where in `text` the time expression `plan_window` found stands (start, end) and the day it means in
    words; None when there is none. A week or a weekend before or after the day it was `said`, and weeks, months
    or years ago, are said by that day ("last week" said on 14 May 2026: "the week before 14 May 2026"; "two
    weeks ago": "two weeks before 14 May 2026"; "five years ago": "around 2021"), as people date what they were
    told, not as the span of days a search for it looks in (from Monday, or the seven days before? give or take
    half a year?)."""
    at = text.lower().find(found[0].expression) if found else -1
    if found is None or at < 0:
        return None
    window = found[0]
    start, end = window.start.replace(tzinfo=None), window.end.replace(tzinfo=None)
    meant = day_words(start, end)
    day, on = said.replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0), spoken_time(said.timestamp())
    if (m := _WEEK.search(window.expression)) and (end <= day or start > day):
        meant = f"the {m[1]} {'before' if end <= day else 'after'} {on}"
    elif m := _AGO.search(window.expression):
        count = count_of(m[1])
        if m[2] == "year" and m[1] not in FUZZY:
            meant = f"around {day.year - count}" if count > 1 else f"around {day:%B} {day.year - 1}"
        else:
            meant = f"{m[0].removesuffix('ago').strip()} before {on}"
    return at, at + len(window.expression), meant


_BY_THE_DAY = re.compile(  # what `_meant` says by the day a line was said: "(the week before 14 May 2026)"
    r"\(((?:the (?:week|weekend)|[\w ]+? (?:weeks?|months?|years?)) (?:before|after) (\d{1,2} [A-Z][a-z]+ \d{4}))\)"
)


# a day named from the day a line was said, which means another day when the answer is heard
_DEICTIC = r"\b(?:today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening))\b"


def dated_answer(answer: str, line: Said) -> str:
    """The answer with the day its time words mean, counted from when `line`, which holds it, was said, back
    when the line tells what happened ("Last summer" → "Last summer (summer 2025)"); as it was when
    it already says a year or a date, names a bare month or weekday ("April", "Friday"), or a habit ("on Friday
    nights", "every Monday"). "Tomorrow", "yesterday" or "today" of the day it was said is given as that day
    alone ("Tomorrow (Friday 15 May 2026)" → "Friday 15 May 2026"): heard later, it means another day. The
    day the line was said, read out of "the week before 14 May 2026", is never the answer: it is said with what
    it is before or after."""
    dated = _dated_answer(answer, line)
    undated = _undated(dated)
    return undated[:1].upper() + undated[1:] if undated != dated else dated


_NAMED_DAY = re.compile(rf"\b({'|'.join(WEEKDAYS)}),?\s+(\d{{1,2}})\s+({MONTH_RE})\s+(\d{{4}})\b", re.I)
_ASKS_WEEKDAY = re.compile(r"\bday\s+of\s+the\s+week\b|\bweekdays?\b|\bwhich\s+day\b", re.I)


def weekdays_near(answer: str, question: str, now: datetime, said: list[str]) -> str:
    """`answer` with the weekday only of the days near `now`, as people say them: from a week before to a month
    ahead ("Monday 18 May 2026 at 10:00" for a plan, "Friday 8 May 2026" for last Friday); a day further off is
    its date alone ("28 January 2026", not "Wednesday 28 January 2026"), unless the question asks for the day of
    the week or a line it was read from (`said`) names that weekday ("last Friday": "Friday 3 October 2025")."""
    if _ASKS_WEEKDAY.search(question) or not _NAMED_DAY.search(answer):
        return answer  # most answers name no day: the lines need not be read for weekdays
    today = now.replace(tzinfo=None).date()
    named = {d for d in WEEKDAYS if any(re.search(rf"\b(?:{d}|{d[:3]})\b", text, re.I) for text in said)}

    def near(m: re.Match) -> str:
        try:
            day = datetime(int(m[4]), MONTHS[m[3].lower()], int(m[2])).date()
        except ValueError:
            return m[0]
        near_now = -7 <= (day - today).days <= 31
        return m[0] if near_now or m[1].lower() in named else f"{m[2]} {m[3]} {m[4]}"

    dated = _NAMED_DAY.sub(near, answer)
    return dated[:1].upper() + dated[1:] if dated != answer else answer


def _undated(answer: str) -> str:
    """`answer` without the word for a day counted from when it was said, where the day it means follows it
    ("Tonight (Thursday 14 May 2026)" → "The night of Thursday 14 May 2026")."""

    def day(m: re.Match) -> str:
        part = {"tonight": "night"}.get(m[1].lower(), m[1].lower().removeprefix("this "))
        return m[2] if part in ("today", "tomorrow", "yesterday") else f"the {part} of {m[2]}"

    return re.sub(rf"({_DEICTIC})\s*\(([^()]*\d[^()]*)\)", day, answer, flags=re.I)


def _dated_answer(answer: str, line: Said) -> str:
    for m in _BY_THE_DAY.finditer(line.shown):
        if m[2] in answer and m[1].lower() not in answer.lower():
            answer = answer.replace(m[2], m[1])
            return answer[:1].upper() + answer[1:]
    low = answer.lower()
    if "(" in answer or re.search(r"\b(?:19|20)\d\d\b|\b(?:every|each)\b", low):
        return answer
    if re.search(r"\d", low) and re.search(rf"\b(?:{'|'.join(MONTHS)})\b", low):
        return answer
    said = datetime.fromtimestamp(line.t_start, timezone.utc)
    found = _meant(answer, plan_window(answer, said, past_tense(line.text)), said)
    if found is None:
        return answer
    at, end, meant = found
    if low[at:end] in (*MONTHS, *WEEKDAYS) or re.match(
        r"\s+(?:nights|mornings|evenings|afternoons|weekends)\b", low[end:]
    ):
        return answer
    return f"{answer[:end]} ({meant}){answer[end:]}"


_NOT = re.compile(r"\b(?:not|never|no|nobody|nothing|none|neither|nor)\b|n['’]t\b", re.I)
_AUXILIARIES = frozenset("is are was were do does did has have had can could will would should may might must".split())
_POINTING = frozenset("it this that these those which who he she they we i you".split())
_EDGE_WORDS = frozenset(
    "a an the their his her its it they he she them him i my me we our you your and to of by with as at in on for "
    "from was were is are has have had did does do that this then so also".split()
)


# a feeling that says nothing without what it is for: "love for tennis and swimming" is not "love"
_TAKES_WHAT = frozenset(
    "love passion interest fascination enthusiasm fondness appreciation desire fear dream hope curiosity excitement "
    "commitment dedication admiration respect pride joy".split()
)


# how a thing was or looked ("How did Emily describe the new hospital?"), not how many, long, often, much or old
_ASKS_HOW = re.compile(r"\s*how\s+(?:is|was|are|were|do|does|did|would|has|have)\b", re.I)
_IT_IS = re.compile(
    r"\s*(?:it|they|this|that)(?:\s+(?:is|was|are|were|seems|seemed|looks|looked)|['’](?:s|re))\s+",
    re.I,
)


def concise(answer: str, question: str) -> str:
    """The answer without the words it repeats from the question at its ends: "David brought his new bicycle to
    the party" to "What did David bring to the party?" is "New bicycle", "It makes Emily happy" to
    "What does Emily's tennis make her?" is "Happy"; a "Yes," before an answer to what no yes/no question asks
    goes, and so does "It is" before how something was ("It is wonderful." to "How did Emily describe the new
    hospital?"); to "What motivated Emily to keep going?" the answer is who or what did it (`_subject_asked`). A yes or
    no, the answer to an "or" question, a short answer, words in quotes, negations and a time's preposition ("in
    two weeks") stay; the end is cut only where a little word begins what goes, or what is left is a name ("Sushi
    at a Japanese restaurant" stays whole); an answer left with nothing of its own, or ending in a word that
    needs more ("a son named"), stays whole."""
    if not YES_NO.match(question) and (said := re.match(r"\s*yes\s*[,.!]\s*(?=\S)", answer, re.I)):
        answer = answer[said.end() :][:1].upper() + answer[said.end() + 1 :]  # "Yes, Emily shared a photo of ..."
    words = answer.strip().rstrip(".!").split()
    if len(words) < 4 and _ASKS_HOW.match(question) and (said := _IT_IS.match(answer)) and not _NOT.search(answer):
        rest = answer[said.end() :].strip()  # "They were delicious." to "How did Emily describe the tomatoes?"
        return rest[:1].upper() + rest[1:] if keywords(rest) else answer  # longer, the ends are cut below
    if (subject := _subject_asked(words, question)) is not None:
        return subject or answer  # "She inspired Lucy": no more to say than that
    if (
        len(words) < 4
        or re.match(r"\s*(?:yes|no)\b", answer, re.I)
        or YES_NO.match(question)
        or re.search(r"\bor\b", question, re.I)  # "her mom or her dad?": the answer is a word the question says
        or _NOT.search(answer)
    ):
        return answer
    names = {w.lower() for w in re.findall(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]+", question)}  # "Rose" is not "roses"
    asked = {canonical(w) for w in keywords(question) if w not in names}
    said = {w.removesuffix("'s") for w in WORD.findall(question.lower())}

    def repeats(i: int, kept_after: bool) -> bool:
        token = words[i]
        bare = token.strip(",;:!?.()").lower().removesuffix("'s")
        if token.startswith(('"', "“")) or not bare:
            return False
        if token[:1].isupper() and (i > 0 or bare in names):  # a name only as said: "Johnson's Bakery" is not "John"
            return bare in said
        if bare.isdigit():  # "on May 18, 2026" as the question says it
            return bare in said
        if bare in _EDGE_WORDS:  # "in two weeks", "on Friday": the little word belongs to the time kept after it
            after = words[i + 1].strip(",;:!?.()").lower() if kept_after and i + 1 < len(words) else ""
            return not (after in TIME_WORDS or after[:1].isdigit() or after in NUMBERS)
        return held(canonical(bare), asked)

    start, end = 0, len(words)
    while start < end and repeats(start, True):
        start += 1
    while end > start and repeats(end - 1, False):
        end -= 1
    alone = end - start == 1 and words[start][:1].isupper()  # "Emily works with John" to "who works with John?"
    if end < len(words) and (
        (words[end].strip(",;:").lower() not in _EDGE_WORDS and not alone)
        or (end - start == 1 and words[start].strip(",;:").lower() in _TAKES_WHAT)
    ):
        end = len(words)  # "Sushi at a Japanese restaurant": "restaurant" alone is no end to cut; nor "love for ..."
    kept = " ".join(words[start:end]).strip(" ,;:")
    last = kept.split()[-1].lower() if kept else ""
    if not keywords(kept) or all(held(canonical(w), asked) for w in keywords(kept)) or last in _NEEDS_MORE:
        return answer
    return kept[:1].upper() + kept[1:]


def _subject_asked(words: list[str], question: str) -> str | None:
    """To a question that asks who or what did something ("What motivated Emily to keep going?", "Who inspired
    Lucy?"), the answer's words before that doing, without the names the question says ("Emily's love for her
    patients motivated her to keep going" → "Love for her patients", "Her aunt inspired Lucy" → "Her aunt"; ""
    when they say nothing of their own: "She inspired Lucy"); None when the answer does not say it that way."""
    asking = re.match(r"\s*(?i:what|who)\s+(\w+)\s+([^A-Z]*)", question)  # up to the first name
    if not asking or {asking[1].lower(), *asking[2].lower().split()} & _AUXILIARIES or asking[2].startswith("of "):
        return None  # "What sport does ...", "What history classes has John taught?", "What kind of ...": no doing
    verb = canonical(asking[1].lower())
    at = next((i for i, w in enumerate(words) if i and canonical(w.strip(",;:.").lower()) == verb), 0)
    if not at or words[at - 1].lower() in _AUXILIARIES | {"be", "been", "being"}:
        return None  # "Her painting was inspired by ...": the doing said the other way round
    if any(w.endswith((",", ";", ":")) for w in words[:at]) or (at > 1 and words[at - 1].lower() in _POINTING):
        return None  # "Her car broke down, it happened last week": no subject said before it
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+", question)}
    subject = words[:at]
    while subject and subject[0].lower().removesuffix("'s").removesuffix("’s") in names:
        subject = subject[1:]  # "Emily's love" → "love"
    kept = " ".join(subject).strip(" ,;:")
    asked = {canonical(w) for w in keywords(question)}
    if not kept or kept.lower() in _EDGE_WORDS or all(held(canonical(w), asked) for w in keywords(kept)):
        return ""
    return kept[:1].upper() + kept[1:]


_NEEDS_MORE = _EDGE_WORDS | {"who", "which", "named", "called", "than", "over", "after", "before", "first"}


def unrepeated(answer: str) -> str:
    """A list without the items it repeats: a small model may say the last item again and again until its tokens
    run out ("Pasta, tomatoes, fresh basil, fresh basil, fresh basil" → "Pasta, tomatoes, fresh
    basil")."""
    items = [item.strip() for item in answer.split(",")]
    kept = {item.lower().strip(" ."): item for item in reversed(items) if item}
    if len(items) < 3 or len(kept) == len(items):
        return answer
    return ", ".join(dict.fromkeys(kept[item.lower().strip(" .")] for item in items if item))


_HEDGED = re.compile(r"^\s*(?:probably|likely|most likely|possibly|perhaps|maybe|I think)\b", re.I)


def as_guess(text: str, question: str, lines: list[Said]) -> str:
    """A guess worded as one: "Yes" → "Probably yes", "Ski trip in the mountains" → "Probably ski trip in
    the mountains"; one already hedged ("Likely no") is left as it is, and a first word keeps its capital when it
    begins a name (a speaker's, a capital after it, or one within a line or the question, and never in lower
    case there: "Probably Jane Austen")."""
    text = text.strip()
    if not text or _HEDGED.match(text):
        return text
    words = text.split()
    first = words[0].strip(",.;:")
    written = " ".join([question, *(x.shown for x in lines)])
    lower = first.lower() in ("yes", "no", "a", "an", "the") or re.search(rf"\b{re.escape(first.lower())}\b", written)
    speakers = {x.person for x in lines}
    named = (
        first.removesuffix("'s") in speakers
        or re.search(rf"[a-z,]\s+{re.escape(first)}\b", written)
        or (len(words) > 1 and words[1][:1].isupper())
    )
    return f"Probably {text if named and not lower else text[:1].lower() + text[1:]}"
