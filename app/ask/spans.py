"""How long between two things, or since one, and which of two came first: code counts the days between the days
the memory dates them.

"How many months passed between Nina adopting Milo and Bella?" is asked as two questions, "When was Nina
adopting Milo?" and "When was Nina adopting Bella?", each answered and checked like any other (app/ask/answer.py);
the span between the days their answers name, in the unit asked for, is the answer ("Three months"), cited by
the lines of both. "How long ago was David's trip to Paris?" and "How long has it been since Nina adopted
her first cat, as of June 2026?" count from one day to now, or to the day the question names. A model
never does the sums: the 1.5B read "1 month" from two lines three months apart. "Which cat did Nina adopt first -
Milo or Bella?" is asked the same way, "When did Nina adopt Milo?" and "… Bella?", and the option with the
earlier day is the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from app.ask.answered import Answer
from app.ask.grounding import options
from app.facts import past_tense
from app.text.timeexpr import COUNTS, MONTHS, UNITS, time_window
from app.text.words import ING_NOUNS

Ask = Callable[[str], Answer]  # a when-question -> its checked answer
Cite = Callable[[list[int]], list[dict]]  # utterance ids -> citations

_BETWEEN = re.compile(
    r"^\s*how\s+(?:many\s+(?P<unit>day|week|month|year)s?|long)\s+(?:of\s+time\s+)?"
    r"(?:(?:had\s+|have\s+)?(?:passed|lapsed|elapsed|gone\s+by|went\s+by)\s+|(?:was|were|is|are)\s+(?:it|there)\s+|)"
    r"between\s+(?P<first>.+?)\s+and\s+(?P<second>.+?)\s*[?.]*\s*$",
    re.I,
)
_AGO = re.compile(
    r"^\s*how\s+(?:many\s+(?P<unit>day|week|month|year)s?|long)\s+ago\s+(?P<verb>was|were|did)\s+(?P<event>.+?)\s*[?.]*\s*$",
    re.I,
)
_SINCE = re.compile(
    r"^\s*how\s+(?:many\s+(?P<unit>day|week|month|year)s?|long)\s+(?:has\s+it\s+been|is\s+it|was\s+it)\s+since\s+"
    r"(?P<event>.+?)(?:,?\s+as\s+of\s+(?P<until>[^?]+?))?\s*[?.]*\s*$",
    re.I,
)
_ORDINAL = re.compile(r"first|second|third|fourth|last|next|previous|earlier|later")
_GERUND = re.compile(rf"\b(?!{ING_NOUNS}\b)[a-z]{{3,}}ing\b")
_DETERMINER = frozenset("the a an his her their my our your its this that".split())  # "the meeting": a thing


@dataclass(frozen=True)
class SpanAsked:
    """What a question that asks how long asks: the things whose days bound the span, each as a when-question (one
    alone: from its day to `until`, now or the day the question names), and the unit asked for (None: whichever
    suits the span)."""

    when: tuple[str, ...]
    unit: str | None
    until: datetime | None = None
    ago: bool = False  # "how long ago ...?": the answer says "ago"


def span_asked(question: str, now: datetime) -> SpanAsked | None:
    """The span a question asks for, or None when it asks for none ("How long did the trip take?" asks what a
    line says)."""
    if now.tzinfo is not None:  # the days answers name are the memory's, in UTC
        now = now.astimezone(timezone.utc).replace(tzinfo=None)
    if m := _BETWEEN.match(question):
        first, second = _both(m["first"], m["second"])
        return SpanAsked((_when(first), _when(second)), m["unit"] and m["unit"].lower())
    if m := _AGO.match(question):
        event = m["event"]
        asked = f"When {m['verb'].lower()} {event}?"
        return SpanAsked((asked,), m["unit"] and m["unit"].lower(), now, ago=True)
    if m := _SINCE.match(question):
        until = now
        if m["until"] and (window := time_window(f"in {m['until']}", now)):
            until = window[0].start + (window[0].end - window[0].start) / 2  # "as of June 2026": its middle
        return SpanAsked((_when(m["event"]),), m["unit"] and m["unit"].lower(), until)
    return None


_ORDER = re.compile(
    r"^\s*(?:which|what|who)(?:\s+[\w-]+)?\s+(?P<aux>did|does|do|was|were|is|are|has|have|had|will|came|comes|"
    r"happened|happens)\s+(?P<clause>.*?)\s*"
    r"\b(?P<order>first|earlier|sooner|more\s+recently|most\s+recently|last|later|latest)\b",
    re.I,
)
_EARLIER = ("first", "earlier", "sooner")


# "did I meet Ola before or after my call with Mum?": the first thing against the second
_BEFORE_AFTER = re.compile(
    r"^\s*(?P<aux>did|does|do|was|were|is|are|has|have|had|will)\s+(?P<first>.+?)\s+(?P<one>before|after)\s+or\s+"
    r"(?P<other>before|after)\s+(?P<second>.+?)\s*[?.]*\s*$",
    re.I,
)


@dataclass(frozen=True)
class OrderAsked:
    """Which of two things came first (`earliest`) or last: the options, and the when-question of each. Asked
    "before or after" (`relative`), the options are those two words and the answer is the first thing's place
    against the second's."""

    options: tuple[str, str]
    when: tuple[str, str]
    earliest: bool
    relative: bool = False


def _before_after(question: str) -> OrderAsked | None:
    """ "Did I meet Ola before or after my call with Mum?" → the options ("before", "after"), asked as "When did I
    first meet Ola?" (meeting someone is the first time) and "When was my call with Mum?"."""
    m = _BEFORE_AFTER.match(question)
    if m is None or m["one"].lower() == m["other"].lower():
        return None
    first = re.sub(r"^((?:I|we)\s+)(meet)\b", r"\1first \2", m["first"], flags=re.I)
    asked = (f"When {m['aux'].lower()} {first}?", _when(m["second"]))
    return OrderAsked(("before", "after"), asked, True, relative=True)


def order_asked(question: str) -> OrderAsked | None:
    """ "Which cat did Nina adopt first - Milo or Bella?" → OrderAsked(("Milo", "Bella"), ("When did
    Nina adopt Milo?", "When did Nina adopt Bella?"), True); "Which is first, the meeting with the bank or
    the trip to Paris?" → "When is the meeting with the bank?", …. None: no two options, or no order asked."""
    if relative := _before_after(question):
        return relative
    offered, m = options(question), _ORDER.match(question)
    if offered is None or m is None:
        return None
    aux = {"came": "was", "happened": "was", "comes": "is", "happens": "is"}.get(m["aux"].lower(), m["aux"].lower())
    asked = " ".join(f"When {aux} {m['clause']}".split())  # "which came first, A or B?": "When was A?"
    when = (f"{asked} {offered[0]}?", f"{asked} {offered[1]}?")
    return OrderAsked(offered, when, m["order"].lower() in _EARLIER)


def _both(first: str, second: str) -> tuple[str, str]:
    """The two things of "between A and B" said in full: "Nina adopting Milo and Bella" is Nina adopting Bella
    too, "Lucy's first and second piano lesson" Lucy's first piano lesson."""
    words, others = first.split(), second.split()
    doing = next(
        (
            i
            for i, w in enumerate(words)
            if _GERUND.fullmatch(w.lower()) and (i == 0 or words[i - 1].lower() not in _DETERMINER)
        ),
        None,
    )
    if doing is not None and doing + 1 < len(words) and not _GERUND.search(second.lower()):
        return first, " ".join([*words[: doing + 1], *others])  # "Nina adopting" + "Bella"
    if len(words) <= 2 and _ORDINAL.fullmatch(words[-1].lower()) and len(others) > 1:
        return " ".join([*words, *others[1:]]), " ".join([*words[:-1], *others])  # "Lucy's first" + "piano ..."
    return first, second


def _when(event: str) -> str:
    """The when-question of a thing: "When was David's trip to Paris?", "When was it that Nina adopted her
    first cat?"."""
    event = event.strip().rstrip("?.")
    return f"When was it that {event}?" if past_tense(event) else f"When was {event}?"


_DAY = re.compile(rf"\b(\d{{1,2}})\s+({'|'.join(MONTHS)})\b\.?,?\s*(\d{{4}})?", re.I)
_MONTH_DAY = re.compile(rf"\b({'|'.join(MONTHS)})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({'|'.join(MONTHS)})\b\.?,?\s+(\d{{4}})\b", re.I)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_BEFORE = re.compile(
    rf"\b(?:the\s+(?P<what>week|weekend)|(?P<n>\d+|{'|'.join(COUNTS)}|a|an)\s+(?P<unit>day|week|month|year)s?)\s+"
    r"(?P<side>before|after)\s+",
    re.I,
)


def day_of(answer: str) -> datetime | None:
    """The day an answer names: "Tuesday 20 June 2023", "the week before 13 October 2023" (a week before it),
    "14 October to 15 October 2023" (its first day), "June 2023" (the middle of June), "around 2019" (the middle of
    the year); None when it names no year."""
    if m := _DAY.search(answer):
        year = m[3] or next(iter(_YEAR.findall(answer[m.end() :])), None)
        if year is None:
            return None
        try:
            day = datetime(int(year), MONTHS[m[2].lower()], int(m[1]))
        except ValueError:
            return None
        if before := _BEFORE.search(answer[: m.start()]):
            if before["what"]:
                days = 7 if before["what"].lower() == "week" else 5
            else:
                n = before["n"].lower()
                days = round((int(n) if n.isdigit() else COUNTS.get(n, 1)) * UNITS[before["unit"].lower()])
            day += timedelta(days=-days if before["side"].lower() == "before" else days)
        return day
    if m := _MONTH_DAY.search(answer):  # "May 5, 2023"
        try:
            return datetime(int(m[3]), MONTHS[m[1].lower()], int(m[2]))
        except ValueError:
            return None
    if m := _MONTH_YEAR.search(answer):
        return datetime(int(m[2]), MONTHS[m[1].lower()], 15)
    if m := _YEAR.search(answer):
        return datetime(int(m[1]), 7, 1)
    return None


_SAID = {n: w for w, n in COUNTS.items()}


def span_words(days: float, unit: str | None) -> str:
    """A span of days in the unit asked for, rounded ("Three months", "13 months"); without one, in the unit
    that suits it: days under two weeks, weeks under two months, months under two years, else years."""
    days = abs(days)
    if unit is None:
        unit = "day" if days < 14 else "week" if days < 61 else "month" if days < 730 else "year"
    n = round(days / UNITS[unit])
    if n == 0:
        return f"Less than a {unit}"
    said = _SAID.get(n, str(n))
    return f"{said[:1].upper()}{said[1:]} {unit}{'s' if n != 1 else ''}"


def answer_span(ask: Ask, cite: Cite, span: SpanAsked, out: Answer) -> None:
    """A question that asks how long: the days between the days of the things that bound it (`_days`; one: to now,
    or to the day the question names), in the unit asked for, cited by the lines of both; into `out`. A bound not
    known → I don't know (`out` as it was, with why)."""
    dated = _days(ask, span.when, out)
    if dated and len(dated) == len(span.when):
        end = dated[1][0] if len(dated) == 2 else span.until
        out.answer = span_words((end - dated[0][0]).days, span.unit) + " ago" * span.ago
        _cite_all(cite, out, dated)


def answer_order(ask: Ask, cite: Cite, order: OrderAsked, out: Answer) -> None:
    """A question that asks which of two things came first, or last: the option whose day (`_days`) is the earlier,
    or the later, cited by the lines of both; into `out`. A day not known, or the same day → I don't know."""
    dated = _days(ask, order.when, out)
    if len(dated) == 2 and dated[0][0] == dated[1][0]:
        out.why_unknown = "the same day"
    elif len(dated) == 2 and order.relative:  # "did A happen before or after B?": A's place against B's
        out.answer = "Before" if dated[0][0] < dated[1][0] else "After"
        _cite_all(cite, out, dated)
    elif len(dated) == 2:
        later = int(dated[1][0] > dated[0][0])
        picked = order.options[1 - later if order.earliest else later]
        out.answer = picked[:1].upper() + picked[1:]
        _cite_all(cite, out, dated)


def _days(ask: Ask, asked: tuple[str, ...], out: Answer) -> list[tuple[datetime, list[int]]]:
    """The day each when-question's checked answer names (an answer that names none: the day its line was said),
    with its citations, asked one after the other, stopping at the first not known (`out.why_unknown` says why);
    none when two were read from the same lines (one of the two things was not found). What each cost is added to
    `out`."""
    dated: list[tuple[datetime, list[int]]] = []
    reads: list[str] = []
    for question in asked:
        part = ask(question)
        out.prompt_tokens += part.prompt_tokens
        out.cached_tokens += part.cached_tokens
        out.completion_tokens += part.completion_tokens
        out.finish = part.finish
        if out.first_token_ms is None:
            out.first_token_ms = part.first_token_ms
        for step, ms in part.timings_ms.items():
            out.timings_ms[step] = out.timings_ms.get(step, 0.0) + ms
        out.evidence += part.evidence
        out.chosen += part.chosen
        reads.append(f"{question} {part.answer}")
        day = day_of(part.answer) if part.known else None
        if part.known and day is None and part.citations:
            day = datetime.fromtimestamp(part.citations[0]["t_start"], timezone.utc).replace(tzinfo=None)
        if day is None:
            out.why_unknown = part.why_unknown or "no day"
            break
        dated.append((day, [c["id"] for c in part.citations]))
    out.read = " ".join(reads)
    if len(dated) == 2 and dated[0][1] == dated[1][1]:
        out.why_unknown = "one line for both"
        return []
    return dated


def _cite_all(cite: Cite, out: Answer, dated: list[tuple[datetime, list[int]]]) -> None:
    out.known = True
    out.citations = cite(list(dict.fromkeys(i for _, ids in dated for i in ids)))
