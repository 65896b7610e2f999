"""Time expressions in questions ("last Tuesday", "in May 2023", "two weeks ago", "yesterday evening"),
turned into event-time windows relative to when the question is asked.

`time_window(question, now)` returns the window and the question without the expression, or None. Windows
are half-open [start, end) in `now`'s time zone; fuzzy spans ("two weeks ago") get a margin so an event
told about a little early or late is still inside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from app.text.words import IS_AFTER

MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
WEEKDAYS = {d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))}
COUNTS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
NUMBERS = COUNTS | {"a": 1, "an": 1, "a couple of": 2, "a few": 3, "several": 3}
FUZZY = ("a couple of", "a few", "several")
UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 22), "night": (18, 30)}

SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}  # the month each begins (north)
_SEASON_NAMES = {3: "spring", 6: "summer", 9: "autumn", 12: "winter"}
_SEASON = "|".join(SEASONS)
MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))  # the names as a regex alternation, longest first
# a weekday as chat shortens it too ("last Fri"); "Sat" and "Sun" are words as well ("I sat", "the sun")
_DAY_NAMES = WEEKDAYS | {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
_DAY = "|".join(sorted(_DAY_NAMES, key=len, reverse=True))
_UNITS = "first second third fourth fifth sixth seventh eighth ninth".split()
_TEENS = "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split()
# a day of the month said in words, as people say it: "the ninth of October", "October the twenty-first"
ORDINAL_DAYS = {w: i for i, w in enumerate([*_UNITS, *_TEENS], 1)} | {"twentieth": 20, "thirtieth": 30}
ORDINAL_DAYS |= {f"twenty{sep}{w}": 21 + i for i, w in enumerate(_UNITS) for sep in ("-", " ")}
ORDINAL_DAYS |= {f"thirty{sep}first": 31 for sep in ("-", " ")}
_SAID_DAY = "|".join(sorted(ORDINAL_DAYS, key=len, reverse=True))
_NUM = r"\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True))
_PART = "|".join(PARTS)


def spoken_time(t: float | None) -> str:
    """A date as a model reads and repeats it: '8 May 2023' (UTC, like the rest of the memory). With the time
    of day too, the 0.5B model wrote it into its answers ('15 July 2023 14:07'), which no answer wants."""
    if t is None:
        return "?"
    d = datetime.fromtimestamp(t, timezone.utc)
    return f"{d.day} {d:%B %Y}"


def day_words(start: datetime, end: datetime) -> str:
    """A window as words: a day ('Monday 18 May 2026'), a month ('April 2026'), a season ('summer 2022', 'winter
    2022 to 2023'), a year, or a span of days. A zone the window carries is left out (seasons are naive)."""
    start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
    days = (end - start).days
    if days <= 1:
        return f"{start:%A} {start.day} {start:%B %Y}"
    if start.day == 1 and 28 <= days <= 31:
        return f"{start:%B %Y}"
    season = _SEASON_NAMES.get(start.month)
    if season and (start, end) == _season_span(start.year, season):
        return f"{season} {start.year}" + (f" to {start.year + 1}" if start.month == 12 else "")
    if start.month == start.day == 1 and days in (365, 366):
        return f"{start.year}"
    last = end.fromordinal(end.toordinal() - 1)
    since = f"{start.day} {start:%B}" + (f" {start.year}" if start.year != last.year else "")
    return f"{since} to {last.day} {last:%B %Y}"


@dataclass(frozen=True)
class TimeWindow:
    start: datetime
    end: datetime
    expression: str  # the words it came from

    def epoch(self) -> tuple[float, float]:
        return self.start.timestamp(), self.end.timestamp()


def _day(d: datetime) -> datetime:
    return d.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1)
    end = datetime(year + (month == 12), month % 12 + 1, 1)
    return start, end


def _season_span(year: int, name: str) -> tuple[datetime, datetime]:
    """A season of `year` as three months (winter from December of `year` to March)."""
    first = SEASONS[name]
    start = datetime(year, first, 1)
    end_month = first + 3
    return start, datetime(year + (end_month > 12), (end_month - 1) % 12 + 1, 1)


def _weekend(today: datetime, weeks: int) -> tuple[datetime, datetime]:
    """Saturday and Sunday of the week `weeks` from today's (Monday to Sunday): -1 last, 0 this, 1 next."""
    saturday = today - timedelta(days=today.weekday()) + timedelta(days=5 + 7 * weeks)
    return saturday, saturday + timedelta(days=2)


# "on the 17th", with no month after it ("on the 3rd of May" names its month: `time_window`)
_DAY_OF_MONTH = (  # "on the 17th", "on Wednesday the 16th", "Saturday the 26th"
    rf"(?:\bon\s+(?:(?:{_DAY}),?\s+)?|\b(?:{_DAY}),?\s+)the\s+(?P<d>\d{{1,2}}(?=st|nd|rd|th)|{_SAID_DAY})(?:st|nd|rd|th)?\b"
    rf"(?!\s+(?:of\s+)?(?:{MONTH_RE})\b)"
)


def _day_number(m: re.Match) -> int:
    """The day of the month a match names, in figures ("9", "9th") or words ("ninth")."""
    day = m.groupdict().get("said") or m["d"]
    return int(day) if day.isdigit() else ORDINAL_DAYS[day]


def _day_of_month(today: datetime, number: int, step: int) -> datetime | None:
    """The day of the month `number` nearest `today` on its side (`step` -1: today or before; 1: today or after),
    within a year; None when no month has that day."""
    year, month = today.year, today.month
    for _ in range(13):
        try:
            day = datetime(year, month, number)
        except ValueError:
            day = None
        if day is not None and (day <= today if step < 0 else day >= today):
            return day
        year, month = divmod(year * 12 + month - 1 + step, 12)
        month += 1
    return None


def count_of(word: str) -> int:
    """A count said in digits or words ("3", "three", "a few")."""
    return int(word) if word.isdigit() else NUMBERS[word]


def _part(day: datetime, part: str | None) -> tuple[datetime, datetime]:
    if not part:
        return day, day + timedelta(days=1)
    h0, h1 = PARTS[part]
    return day + timedelta(hours=h0), day + timedelta(hours=h1)


def _without(text: str, m: re.Match) -> str:
    """`text` without the time words `m` found. A possessive time leaves "the" in their place ("tomorrow's
    opening" -> "the opening"), a time that is the subject leaves "it" ("Tomorrow's gonna be fun" -> "It's
    gonna be fun"), never a bare "'s"."""
    before, after = text[: m.start()], text[m.end() :]
    if IS_AFTER.match(after):
        before, after = f"{before} it{after[:2]}", after[2:]  # "it's", the "'s" kept as it was written
    elif m.group(0).endswith(("'s", "’s")) or re.match(r"['’]s\b", after):
        on = re.match(r"(?i:on|at|for|by|until|till)\s", m.group(0))  # "see John on Saturday's game": "on the game"
        before, after = f"{before}{' ' + on.group(0).strip() if on else ''} the", re.sub(r"^['’]s\b", "", after)
    rest = re.sub(r"\s+", " ", f"{before} {after}").strip()
    return rest[:1].upper() + rest[1:] if text[:1].isupper() and not text[: m.start()].strip() else rest


def time_window(question: str, now: datetime) -> tuple[TimeWindow, str] | None:
    """The event-time window a question names, and the question without those words; None if it names none."""
    q = question.lower()
    tz = now.tzinfo
    today = _day(now.replace(tzinfo=None))

    def found(m: re.Match, start: datetime, end: datetime) -> tuple[TimeWindow, str]:
        rest = re.sub(r"\s+([?.!,])", r"\1", _without(question, m))
        return TimeWindow(start.replace(tzinfo=tz), end.replace(tzinfo=tz), m.group(0).strip()), rest

    # "on 8 May 2023", "May 8, 2023", "on May 8"
    day_first = (
        rf"\b(?:on\s+)?(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?|(?:the\s+)?(?P<said>{_SAID_DAY})\s+of\s+)"
        rf"(?P<m>{MONTH_RE})\.?,?\s*(?P<y>\d{{4}})?\b"
    )
    month_first = (
        rf"\b(?:on\s+)?(?P<m>{MONTH_RE})\.?\s+(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?|(?:the\s+)?(?P<said>{_SAID_DAY})\b)"
        rf"(?:,?\s*(?P<y>\d{{4}}))?\b"
    )
    for pattern in (day_first, month_first):
        if m := re.search(pattern, q):
            try:
                day = datetime(int(m["y"] or today.year), MONTHS[m["m"]], _day_number(m))
            except ValueError:
                continue
            return found(m, day, day + timedelta(days=1))
    # "on the 17th", "on Wednesday the 16th" (no month said): the latest 17th not after now
    if m := re.search(_DAY_OF_MONTH, q):
        day = _day_of_month(today, _day_number(m), -1)
        if day is not None:
            return found(m, day, day + timedelta(days=1))
    # "in May 2023", "May 2023", "in May" (the latest May not after now)
    m = re.search(rf"\b(?:in\s+|during\s+)?({MONTH_RE})\.?(?:\s+(?:of\s+)?(\d{{4}}))?\b", q)
    if m and (m.group(2) or m.group(0).startswith(("in ", "during ")) or m.group(1) != "may"):  # "may": a verb
        month = MONTHS[m.group(1)]
        year = int(m.group(2)) if m.group(2) else today.year - (month > today.month)
        return found(m, *_month_span(year, month))
    # "in 2023"
    if m := re.search(r"\b(?:in|during)\s+((?:19|20)\d{2})\b", q):
        year = int(m.group(1))
        return found(m, datetime(year, 1, 1), datetime(year + 1, 1, 1))
    # "last weekend", "this weekend"
    if m := re.search(r"\b(last|this(?:\s+past)?|past)\s+weekend\b", q):
        return found(m, *_weekend(today, 0 if m.group(1) == "this" else -1))
    # "(in the) summer of 2022", "summer 2022", "last summer" (the latest one over), "this winter"
    if m := re.search(rf"\b(?:in\s+)?(?:the\s+)?({_SEASON})\s+(?:of\s+)?((?:19|20)\d{{2}})\b", q):
        return found(m, *_season_span(int(m.group(2)), m.group(1)))
    if m := re.search(rf"\b(last|this|past)\s+({_SEASON})\b", q):
        if m.group(1) == "this":
            year = today.year - (m.group(2) == "winter" and today.month <= 2)  # in January it began in December
        else:
            year = today.year
            while _season_span(year, m.group(2))[1] > today:
                year -= 1
        return found(m, *_season_span(year, m.group(2)))
    # "the day before yesterday", "yesterday (evening)", "today", "this morning", "last night", "tonight"
    if m := re.search(r"\b(?:the\s+)?day\s+before\s+yesterday\b", q):
        return found(m, today - timedelta(days=2), today - timedelta(days=1))
    if m := re.search(rf"\b(yesterday|today)(?:\s+({_PART}))?\b", q):
        day = today - timedelta(days=m.group(1) == "yesterday")
        return found(m, *_part(day, m.group(2)))
    if m := re.search(rf"\bthis\s+({_PART})\b|\btonight\b", q):
        return found(m, *_part(today, m.group(1) or "night"))
    if m := re.search(r"\blast\s+night\b", q):
        return found(m, *_part(today - timedelta(days=1), "night"))
    # "last Tuesday", "this past Tuesday (evening)": the latest one before today ("on Saturday" alone is as
    # often a habit as a date: "who plays tennis on Saturday")
    if m := re.search(rf"\b(?:last|this past)\s+({_DAY})(?:\s+({_PART}))?\b", q):
        back = (today.weekday() - _DAY_NAMES[m.group(1)]) % 7 or 7
        return found(m, *_part(today - timedelta(days=back), m.group(2)))
    # "two weeks ago", "3 days ago", "a month ago": the unit around that point; "a few days ago": from half
    # to twice as long ago
    if m := re.search(rf"\b({_NUM})\s+(day|week|month|year)s?\s+ago\b", q):
        span, n = UNITS[m.group(2)], count_of(m.group(1))
        if m.group(1) in FUZZY:
            return found(m, today - timedelta(days=2 * n * span), today - timedelta(days=max(1, n * span // 2) - 1))
        centre = today - timedelta(days=n * span)
        margin = timedelta(days=max(1, span // 2)) if span > 1 else timedelta(0)
        return found(m, centre - margin, centre + timedelta(days=1) + margin)
    # "last week/month/year", "this week/month/year", "earlier this week"
    if m := re.search(r"\b(last|this|past)\s+(week|month|year)(?:'s)?\b", q):
        if m.group(2) == "week":
            monday = today - timedelta(days=today.weekday())
            start = monday - timedelta(days=7) if m.group(1) == "last" else monday
            end = start + timedelta(days=7)
            if m.group(1) == "past":
                start, end = today - timedelta(days=7), today + timedelta(days=1)
        elif m.group(2) == "month":
            if m.group(1) == "past":
                start, end = today - timedelta(days=30), today + timedelta(days=1)
            else:
                year, month = (
                    (today.year, today.month)
                    if m.group(1) == "this"
                    else (
                        today.year - (today.month == 1),
                        (today.month - 2) % 12 + 1,
                    )
                )
                start, end = _month_span(year, month)
        else:
            year = today.year - (m.group(1) == "last")
            start, end = datetime(year, 1, 1), datetime(year + 1, 1, 1)
            if m.group(1) == "past":
                start, end = today - timedelta(days=365), today + timedelta(days=1)
        return found(m, start, end)
    return None


_NOT_THEN = re.compile(r"\b(?:can['’]?t|cannot|won['’]?t|couldn['’]?t|not|isn['’]?t)\s+(?:\w+\s+){0,2}$", re.I)


def plan_window(text: str, now: datetime, past: bool = False) -> tuple[TimeWindow, str] | None:
    """The window a statement about the future names ("next Friday", "tomorrow", "on Monday", "in September",
    "in two weeks"), counted forward from `now`; otherwise what `time_window` reads (a past reference), but a month
    said alone is the next one ("the fair is the last week of April now", said in March: this April). With
    `past` (the statement tells what happened: "I twisted my ankle on Friday"), a weekday is the last one."""
    q = text.lower()
    tz = now.tzinfo
    today = _day(now.replace(tzinfo=None))

    def found(m: re.Match, start: datetime, end: datetime) -> tuple[TimeWindow, str]:
        rest = _without(text, m)
        return TimeWindow(start.replace(tzinfo=tz), end.replace(tzinfo=tz), m.group(0).strip()), rest

    # "on Saturday the 3rd", "the party is on the 25th": that day of the month, the next one (`past`: the last one)
    if (m := re.search(_DAY_OF_MONTH, q)) and (day := _day_of_month(today, _day_number(m), -1 if past else 1)):
        return found(m, day, day + timedelta(days=1))
    # a weekday's thing ("Friday's meeting") is that day's, as "on Friday" is
    if past and (m := re.search(rf"\b(?:(?:on|this(?! coming))\s+({_DAY})\b|({_DAY})(?=['’]s\b))", q)):
        day = _DAY_NAMES[m.group(1) or m.group(2)]
        start = today - timedelta(days=(today.weekday() - day) % 7)  # today, or the days before
        return found(m, start, start + timedelta(days=1))

    if m := re.search(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", q):
        return found(m, today + timedelta(days=2), today + timedelta(days=3))
    if m := re.search(r"\btomorrow\b", q):
        return found(m, today + timedelta(days=1), today + timedelta(days=2))
    # "next Friday", "on Monday", "by Thursday", "this Saturday": the next one after today ("next": in the next week)
    if m := re.search(rf"\b(?:(next|on|by|this(?! past))\s+({_DAY})\b|({_DAY})(?=['’]s\b))", q):
        day = _DAY_NAMES[m.group(2) or m.group(3)]
        ahead = (day - today.weekday()) % 7 or 7
        if m.group(1) == "next" and today.weekday() < day:
            ahead += 7  # "next Friday" said on a Thursday: the Friday of next week
        start = today + timedelta(days=ahead)
        return found(m, start, start + timedelta(days=1))
    # a weekday said bare ("see you Sunday", "we're moving the party to Sunday", "now it's Saturday"): the next one
    # (`past`: the last one); not "every Sunday", "last Sunday", "Sundays"
    bare = rf"(?<!every\s)(?<!each\s)(?<!last\s)(?<!past\s)\b({'|'.join(WEEKDAYS)})\b(?!s\b|['’]s)"
    # "they can't come Thursday, now it's Saturday": not when it happens
    m = next((x for x in re.finditer(bare, q) if not _NOT_THEN.search(q[: x.start()])), None)
    if m:
        day = WEEKDAYS[m.group(1)]
        if past:
            start = today - timedelta(days=(today.weekday() - day) % 7 or 7)
        else:
            start = today + timedelta(days=(day - today.weekday()) % 7 or 7)
        return found(m, start, start + timedelta(days=1))
    if past and (m := re.search(r"\bthis\s+weekend\b", q)):  # told on a weekday, it was the one before
        return found(m, *_weekend(today, -1 if today.weekday() < 5 else 0))
    if m := re.search(r"\bnext\s+weekend\b", q):
        return found(m, *_weekend(today, 1))
    if m := re.search(rf"\bnext\s+({_SEASON})\b", q):
        year = today.year if _season_span(today.year, m.group(1))[0] > today else today.year + 1
        return found(m, *_season_span(year, m.group(1)))
    if m := re.search(r"\bnext\s+(week|month|year)\b", q):
        if m.group(1) == "week":
            start = today - timedelta(days=today.weekday()) + timedelta(days=7)
            return found(m, start, start + timedelta(days=7))
        if m.group(1) == "month":
            year, month = today.year + (today.month == 12), today.month % 12 + 1
            return found(m, *_month_span(year, month))
        return found(m, datetime(today.year + 1, 1, 1), datetime(today.year + 2, 1, 1))
    if m := re.search(rf"\bin\s+({_NUM})\s+(day|week|month|year)s?\b", q):
        centre = today + timedelta(days=count_of(m.group(1)) * UNITS[m.group(2)])
        return found(m, centre, centre + timedelta(days=1))
    m = re.search(rf"\b(?:in|this|next)\s+({MONTH_RE})\b(?:\s+((?:19|20)\d{{2}})\b)?", q)
    if m and (m.group(1) != "may" or m.group(0).startswith(("in ", "next "))):  # "may": a verb
        month = MONTHS[m.group(1)]
        if m.group(2):
            year = int(m.group(2))
        elif past:
            year = today.year - (month > today.month)  # "I graduated in June": the last June
        else:
            year = today.year + (month < today.month)
        return found(m, *_month_span(year, month))
    read = time_window(text, now)
    if read is None or past:
        return read
    span, rest = read  # "the fair is the last week of April now", said in March: this April, not the last one
    month_said = re.fullmatch(rf"(?:(?:in|during)\s+)?(?:{MONTH_RE})\.?", span.expression)  # not "last month"
    if month_said and span.end <= now:
        start, end = _month_span(span.start.year + 1, span.start.month)
        return TimeWindow(start.replace(tzinfo=tz), end.replace(tzinfo=tz), span.expression), rest
    return read
