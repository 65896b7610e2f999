"""The answers that live in no one line (app/ask/question.py decides the kind; app/ask/answer.py calls these):

- met, last met, how often, how long: from the conversations themselves (`Utterances.presence`): who spoke in
  which conversation, from when to when. "I" is the device: the wearer was there whether or not they spoke;
- recap: from the conversations' summaries, written when each conversation closed (app/consolidation);
- change and state: from the facts' history (a superseded value is never said as the current one);
- plans: from the dated plans, ahead of the question or in the time it names;
- who: every person a fact (with the line it was read from) says it of, not the first line's;
- the relation path a question names ("David's brother") is walked when it is parsed; a question about the
  person it reaches is answered as any other.

Each handler fills the `Answer` and returns True, or returns False when the memory holds nothing of its kind to
answer from, and the question is read from the lines (`Answerer.lookup`). Every part of an answer is cited.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from app.ask.answered import Answer
from app.ask.checking import SIMILAR
from app.ask.comparing import TIME_WORDS, canonical, says, word_set
from app.ask.grounding import Line, answered_after, asked_before, relation_reaches, relation_word, said_on
from app.ask.question import MET_FIRST, MET_ORDER, WHO_IS, Kind, Question
from app.ask.wording import times_named
from app.consolidation.kinds import typed
from app.consolidation.relations import SOCIAL
from app.facts import FactKind
from app.identity.naming import AUTO_NAME
from app.store import writing
from app.store.memory import Memory
from app.store.utterances import Presence
from app.text.timeexpr import COUNTS, PARTS, time_window
from app.text.words import keywords

RECAPPED = 4  # conversations a recap tells at most, the latest
PLANS_SAID = 6  # plans an answer lists at most
AHEAD_DAYS = 31  # "what is coming up?": the month ahead
LOOK_BACK_DAYS = 60  # a plan is told up to two months before its day
WILL = re.compile(
    r"\b(?:i'll|i\s+will|i'm\s+going\s+to|i\s+am\s+going\s+to|i\s+promise|i\s+can|let\s+me|i'm\s+in)\b", re.I
)
PROMISE = re.compile(r"\b(?:promis\w*|agreed\s+to|committed\s+to|said\s+(?:i|we)\s+would|supposed\s+to|owe)\b", re.I)
DAY_S = 86400.0


@dataclass
class Asked:
    """What a handler works with: the memory, when the question is asked, and how to cite and read lines."""

    memory: Memory
    now: datetime
    cite: Callable[[list[int]], list[dict]]
    read: Callable[[str, list[Line], Answer], tuple[str, list[Line]]]  # (question, lines) -> checked reading
    lines: Callable[[list[int]], list[Line]]  # utterance ids -> lines, as the reader sees them
    similar: Callable[[list[str], list[str]], np.ndarray] | None = None  # word-similarity matrix (text embedder)


def joined(names: list[str], last: str = "and") -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def _clock(t: float) -> str:
    d = datetime.fromtimestamp(t, timezone.utc)
    return f"{d:%H:%M}"


def _before_now(rows: list[Presence], a: Asked) -> list[Presence]:
    return [r for r in rows if r.session_start <= a.now.timestamp()]


def _others(rows: list[Presence], q: Question) -> list[Presence]:
    """The parts of conversations that were someone's other than the one asking."""
    return [r for r in rows if r.person is not None and r.person != q.asker]


# the hours (UTC, as the memory keeps time) a meal said as a conversation's setting, or a part of the day said
# with a day ("on Tuesday evening"), was within
HOURS = {"breakfast": (5, 11), "brunch": (9, 14), "lunch": (11, 15), "dinner": (17, 24), **PARTS}


def _in_setting(a: Asked, rows: list[Presence], q: Question) -> list[Presence]:
    """The conversations held where and when the setting or the part of the day the question names was: those whose
    lines name the place ("at the farmers' market"), or at a meal's hours ("at the team lunch": at midday); all of
    them when it names neither, none when it names a place no conversation speaks of and neither a time nor a meal
    (the last day's people are no answer to "who was I with at the farmers' market?"; "the studio meeting on Monday
    the 14th" is that Monday's)."""
    said = f"{q.setting} {q.text}".lower()
    place = [w for w in keywords(q.setting) if w not in HOURS and canonical(w) not in _SETTING_WORDS]
    when = next((HOURS[w] for w in HOURS if re.search(rf"\b{w}\b", said)), None)
    if place and (held := _held_on_its_day(a, place, rows) or _sessions_saying(a, place, rows)):
        rows = [r for r in rows if r.session_id in held]
    elif place and when is None and q.window is None:
        return []
    if when is None:
        return rows
    lo, hi = when
    kept = [r for r in rows if lo <= _hour(r.session_start, hi > 24) < hi]
    return kept or rows


# words a setting is said with that no line need say: "at the team lunch", "over coffee", "on the phone"
_SETTING_WORDS = frozenset(
    canonical(w) for w in "meeting call phone chat conversation talk discussion coffee drinks visit catch".split()
)


def _held_on_its_day(a: Asked, words: list[str], rows: list[Presence]) -> set[int]:
    """Those of `rows`' conversations held on a day a plan was for that names any of `words` ("Petra is doing a
    barbecue on Saturday": the conversations that Saturday are the barbecue, though none of their lines says so)."""
    days = {
        datetime.fromtimestamp(f["valid_from"], timezone.utc).date()
        for f in a.memory.derived.facts_listed(history=True)
        if f["kind"] in (FactKind.PLAN, FactKind.EVENT) and f["valid_from"] and _holds_any(tuple(words), f["value"])
    }
    return {r.session_id for r in rows if datetime.fromtimestamp(r.session_start, timezone.utc).date() in days}


def _sessions_saying(a: Asked, words: list[str], rows: list[Presence]) -> set[int]:
    """Those of `rows`' conversations with a line that says any of `words`."""
    sessions = {r.session_id for r in rows}
    held = a.memory.turns.utterances([uid for uid, _ in a.memory.search.bm25_search(words, 500)])
    return {u.session_id for u in held.values() if u.session_id in sessions}


def _hour(t: float, past_midnight: bool = False) -> int:
    """The hour `t` was in; the small hours as 24 and on when a span runs `past_midnight` ("at night")."""
    hour = datetime.fromtimestamp(t, timezone.utc).hour
    return hour + 24 if past_midnight and hour < 6 else hour


def _topic_sessions(a: Asked, q: Question, rows: list[Presence]) -> set[int] | None:
    """The conversations among `rows` whose lines hold the question's topic ("who did I go hiking with?"); None
    when it names none."""
    if not q.topic:
        return None
    said = [w for w in keywords(q.text) if canonical(w) in q.topic]  # as said: the full-text index has no stems
    return _sessions_saying(a, said or list(q.topic), rows)


def _window_or_last_day(a: Asked, q: Question) -> tuple[float, float] | None:
    """The time the question names, else the last day anything was said before it was asked (in the setting it
    names, when it names one: "who was at the team lunch?")."""
    if q.window is not None:
        return q.window.epoch()
    rows = _in_setting(a, _before_now(a.memory.turns.presence(), a), q)
    if (topical := _topic_sessions(a, q, rows)) is not None:  # "who was I with when we went hiking?": that day
        rows = [r for r in rows if r.session_id in topical] or rows
    if not rows:
        return None
    day = datetime.fromtimestamp(rows[-1].session_start, timezone.utc).replace(hour=0, minute=0, second=0)
    return day.timestamp(), day.timestamp() + DAY_S


def _named_rows(a: Asked, q: Question) -> list[Presence]:
    """The parts of the conversations the question names by its time (else the last day), its setting and its
    topic ("who did I go hiking with?": the conversations that speak of it, when any does)."""
    window = _window_or_last_day(a, q)
    rows = _in_setting(a, _before_now(a.memory.turns.presence(window), a) if window else [], q)
    topical = _topic_sessions(a, q, rows)
    return [r for r in rows if r.session_id in topical] if topical else rows


def met(a: Asked, q: Question, out: Answer) -> bool:
    """Who was met (and how many): everyone who spoke in the conversations of the time asked about (the last day,
    when none is named), the one asking aside; each cited by their first line then."""
    rows = _others(_named_rows(a, q), q)
    if not rows:
        out.why_unknown = "no conversation then"
        return True
    if which := MET_FIRST.search(q.text):  # "who did I see first on Wednesday?": the one, of all met then
        last = (which["which"] or which["one"]).lower() == "last"
        rows = [max(rows, key=lambda r: r.t_end) if last else min(rows, key=lambda r: r.t_start)]
    first: dict[str, Presence] = {}
    for r in rows:
        first.setdefault(r.person, r)
    names = [n for n in first if not AUTO_NAME.match(n)]
    strangers = len(first) - len(names)
    said = names + ([f"{strangers} {'person' if strangers == 1 else 'people'} not yet named"] if strangers else [])
    days = list(dict.fromkeys(said_on(r.session_start) for r in sorted(first.values(), key=lambda r: r.session_start)))
    when = f" ({joined(days)})" if len(days) <= 2 else ""
    count = f"{len(first)} {'person' if len(first) == 1 else 'people'}: " if q.counted else ""
    out.answer, out.known = f"{count}{joined(said)}{when}.", True
    out.citations = a.cite([r.first_id for r in first.values()])
    return True


def _theirs(a: Asked, q: Question) -> tuple[str, list[Presence]] | None:
    """The person asked about and their parts of the conversations before the question (in the time it names)."""
    if not q.people:
        return None
    person = q.people[0]
    window = q.window.epoch() if q.window else None
    return person, [r for r in _before_now(a.memory.turns.presence(window), a) if r.person == person]


def last_met(a: Asked, q: Question, out: Answer) -> bool:
    """When the person was last (or first) met: the day and time of that conversation, cited by their line."""
    found = _theirs(a, q)
    if found is None:
        return False
    person, rows = found
    if not rows:
        out.answer, out.why_unknown = f"I have no conversation with {person}.", "never met"
        return True
    r = rows[0] if q.first else rows[-1]
    yes = "Yes, " if re.match(r"^\s*(?:have|had|did)\b", q.text, re.I) else ""
    out.answer, out.known = f"{yes}{said_on(r.session_start)}, at {_clock(r.t_start)}.", True
    out.citations = a.cite([r.first_id])
    return True


def met_first(a: Asked, q: Question, out: Answer) -> bool:
    """Which of two people was met first, or last ("who did I talk to first on the 22nd, Raj or Kwame?"): their
    first (or last) parts of the conversations then, compared, each cited. Not asked of meeting, or an option that
    names no one person met then: the order of two things, read from lines (False)."""
    if q.order is None or not MET_ORDER.search(q.text):
        return False
    rows = _before_now(a.memory.turns.presence(q.window.epoch() if q.window else None), a)
    met: list[tuple[str, Presence]] = []
    for option in q.order.options:
        named = [p for p in q.people if re.search(rf"\b{re.escape(p)}\b", option, re.I)]
        theirs = [r for r in rows if len(named) == 1 and r.person == named[0]]
        if not theirs:
            return False
        met.append((option, theirs[0] if q.order.earliest else theirs[-1]))
    if met[0][1].t_start == met[1][1].t_start:
        return False
    (picked, r), (_, rest) = sorted(met, key=lambda m: m[1].t_start, reverse=not q.order.earliest)
    out.answer = f"{picked[:1].upper()}{picked[1:]} ({said_on(r.session_start)}, at {_clock(r.t_start)})."
    out.known = True
    out.citations = a.cite([r.first_id, rest.first_id])
    return True


def how_often(a: Asked, q: Question, out: Answer) -> bool:
    """How many conversations the person spoke in (in the time asked about), each cited."""
    found = _theirs(a, q)
    if found is None:
        return False
    person, rows = found
    sessions = list({r.session_id: r for r in rows}.values())
    n = len(sessions)
    if n == 0:
        out.answer, out.known = f"Not once{' ' + q.window.expression if q.window else ''}.", True
        return True
    times = {1: "Once", 2: "Twice"}.get(n, f"{n} times")
    days = [said_on(r.session_start) for r in sessions]
    out.answer, out.known = f"{times}: {joined(days)}.", True
    out.citations = a.cite([r.first_id for r in sessions])
    return True


def _minutes(seconds: float) -> str:
    if seconds < 60:
        return "less than a minute"
    m = round(seconds / 60)
    return f"about {m} minute{'s' if m != 1 else ''}" if m < 90 else f"about {seconds / 3600:.1f} hours"


def _conversations(a: Asked, q: Question) -> list[Presence]:
    """One part of each conversation the question names by its time, setting or topic, with nobody asked about
    ("how long was the studio meeting on the 14th?"); else the last day's."""
    first: dict[int, Presence] = {}
    for r in sorted(_named_rows(a, q), key=lambda r: r.t_start):
        first.setdefault(r.session_id, r)
    return list(first.values())


def how_long(a: Asked, q: Question, out: Answer) -> bool:
    """How long the conversations with the person lasted (in the time asked about; else the last one); with
    nobody asked about, each conversation the question names ("how long was the meeting on the 14th?")."""
    if not q.people:
        sessions = _conversations(a, q)
        if not sessions:
            return False
        people = a.memory.turns.session_speakers({r.session_id for r in sessions})
        told = []
        for r in sessions:
            others = joined(sorted(p for p in people.get(r.session_id, ()) if p and p != q.asker)) or "nobody known"
            told.append(
                f"{_minutes(r.session_end - r.session_start)} ({said_on(r.session_start)}, "
                f"{_clock(r.session_start)}, with {others})"
            )
        lasted = "; ".join(told)
        out.answer, out.known = f"{lasted[:1].upper()}{lasted[1:]}.", True
        out.citations = a.cite([r.first_id for r in sessions])
        return True
    found = _theirs(a, q)
    if found is None:
        return False
    person, rows = found
    if not rows:
        out.answer, out.why_unknown = f"I have no conversation with {person} then.", "never met"
        return True
    sessions = list({r.session_id: r for r in rows}.values())
    if q.window is None:
        sessions = sessions[-1:]
    spent = sum(max(r.session_end - r.session_start, r.t_end - r.t_start) for r in sessions)
    days = joined([said_on(r.session_start) for r in sessions])
    lasted = _minutes(spent)
    out.answer, out.known = f"{lasted[:1].upper()}{lasted[1:]} ({days}).", True
    out.citations = a.cite([r.first_id for r in sessions])
    return True


def recap(a: Asked, q: Question, out: Answer) -> bool:
    """What was talked about: the summaries of the conversations in the time asked about, with the people named
    (each of them there), the latest RECAPPED; none named, the last conversation. Cited by the lines their facts
    were read from."""
    window = q.window.epoch() if q.window else None
    rows = _in_setting(a, _before_now(a.memory.turns.presence(window), a), q)
    by_session: dict[int, set[str | None]] = {}
    for r in rows:
        by_session.setdefault(r.session_id, set()).add(r.person)
    sessions = [s for s, people in by_session.items() if all(p in people for p in q.people)]
    if q.people and window is None and not q.latest:  # "sum up my coffee with Petra": her alone
        alone = [s for s in sessions if {p for p in by_session[s] if p and p != q.asker} == set(q.people)]
        sessions = alone or sessions
    if q.first:  # "sum up my first call with Tom this month"
        sessions = sessions[:1]
    elif window is None:
        sessions = sessions[-1:]
    sessions = sessions[-RECAPPED:]
    if not sessions:
        out.why_unknown = "no conversation then"
        return True
    summaries = a.memory.derived.session_summaries(sessions)
    told, cited = [], []
    first_line = {r.session_id: r.first_id for r in reversed(rows)}
    for s in sessions:
        words = topics(a.memory, s)
        about = f" Talked about: {', '.join(words)}" if words else ""
        if s in summaries:
            told.append(summaries[s]["text"].rstrip(".") + "." + about)
            cited += _summary_lines(a.memory, summaries[s]["id"]) or [first_line[s]]
        else:  # not written yet (its conversation is still open): who talked, then
            people = sorted(p for p in by_session[s] if p)
            r = next(x for x in rows if x.session_id == s)
            told.append(f"{said_on(r.session_start)}: {joined(people or ['someone'])} talked." + about)
            cited.append(first_line[s])
    out.answer, out.known = " ".join(t.rstrip(".") + "." for t in told), True
    out.citations = a.cite(list(dict.fromkeys(cited)))
    return True


TOPICS = 6  # the words a recap names as what a conversation was about
ORDINAL = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split())


def topics(memory: Memory, session_id: int, most: int = TOPICS) -> list[str]:
    """What a conversation was about, in a few words: the people it talked about who were not in it, then its
    content words (no names, no small talk's stopwords) that other conversations say least and it says most
    (tf-idf, conversations as the documents), in the order first said. A summary written from facts leaves out
    what was only talked about."""
    lines = memory.writing.transcript(session_id)
    people = memory.people.names()
    spoke = {line.person for line in lines}
    text = " ".join(line.text for line in lines)
    about = [n for n in people if n not in spoke and re.search(rf"\b{re.escape(n)}\b", text)]
    return about[:most] + _distinctive(memory, lines, {w for n in people for w in keywords(n)}, most)


def _distinctive(memory: Memory, lines: list[writing.Line], names: set[str], most: int) -> list[str]:
    """The `most` content words of `lines` that other conversations say least and they say most (tf-idf)."""
    said: dict[str, tuple[int, str, int]] = {}  # stem -> (count, first form said, first position)
    for line in lines:
        for w in keywords(line.text):
            if len(w) < 4 or w in names or not w.isalpha() or w in COUNTS or w in TIME_WORDS or w in ORDINAL:
                continue  # no names, numbers or times: what was talked about
            c = canonical(w)
            n, form, at = said.get(c, (0, w, len(said)))
            said[c] = (n + 1, form, at)
    if not said:
        return []
    total = max(memory.search.session_count(), 1)
    scored = []
    for n, form, at in said.values():
        held = max(memory.search.sessions_holding(form), 1)
        scored.append((n * math.log(1 + total / held), len(form), at, form))
    best = sorted(scored, key=lambda x: (-x[0], -x[1], x[2]))[:most]  # the longer word of two that score alike
    return [form for *_, at, form in sorted(best, key=lambda x: x[2])]


def _summary_lines(memory: Memory, summary_id: int, most: int = 4) -> list[int]:
    """The lines a summary's facts were read from (at most `most`), else its first lines."""
    rows = memory.con.execute(
        "SELECT DISTINCT fs.utterance_id FROM summary_sources s "
        "JOIN fact_sources fs ON fs.utterance_id = s.utterance_id "
        "WHERE s.summary_id = ? ORDER BY fs.utterance_id LIMIT ?",
        (summary_id, most),
    ).fetchall()
    if not rows:
        rows = memory.con.execute(
            "SELECT utterance_id FROM summary_sources WHERE summary_id = ? AND utterance_id IS NOT NULL "
            "ORDER BY utterance_id LIMIT 2",
            (summary_id,),
        ).fetchall()
    return [int(r[0]) for r in rows]


def _holds(topic: tuple[str, ...], text: str) -> bool:
    words = word_set(text)
    return all(says(canonical(w), words) for w in topic)


def _facts_about(a: Asked, q: Question, history: bool) -> list[dict]:
    """The facts (with their history) about the people the question names, else the asker, that hold its topic
    (in the fact or the line it was read from)."""
    facts = facts_of(a.memory, q.people or ((q.asker,) if q.asker else ()), history)
    if not q.topic:
        return facts
    lines = a.memory.turns.utterances([s for f in facts for s in f["sources"][:1]])
    return [
        f
        for f in facts
        if _holds(q.topic, f"{f['key']} {f['value']} {' '.join(lines[s].text for s in f['sources'][:1] if s in lines)}")
    ]


def facts_of(memory: Memory, people: tuple[str, ...], history: bool) -> list[dict]:
    """The facts about these people that hold (`history`: and those that no longer do)."""
    facts = []
    for person in people:
        pid = memory.people.person_id(person)
        facts += memory.derived.facts_listed(pid, history=history) if pid is not None else []
    return facts


def _said_at(f: dict) -> float:
    return f["last_seen"] or f["valid_from"] or f["learned_at"]


def change(a: Asked, q: Question, out: Answer) -> bool:
    """What changed: each value the person's facts held before (superseded) and what holds instead, cited by
    both lines; a topic asked about keeps the facts that hold it."""
    facts = sorted(_facts_about(a, q, history=True), key=_said_at)
    by_id = {f["id"]: f for f in facts}
    told, cited = [], []
    for f in facts:
        newer = by_id.get(f["superseded_by"]) if f["superseded_by"] else None
        # what someone is, likes or does, said again later with another value ("home": Porto, then Lisbon); plans
        # and events are each their own, and "other" is no one thing
        if newer is None and f["kind"] not in (FactKind.EVENT, FactKind.PLAN) and f["key"] != "other":
            newer = next(
                (
                    g
                    for g in facts
                    if g["key"] == f["key"]
                    and g["kind"] == f["kind"]
                    and _said_at(g) > _said_at(f)
                    and g["valid_to"] is None
                    and f["sources"][:1] != g["sources"][:1]
                    and g["value"] != f["value"]
                ),
                None,
            )
        if newer is None:
            continue
        told.append(f"{newer['value']} (since {said_on(_said_at(newer))}); before, {_lower(f['value'])}")
        cited += newer["sources"][:1] + f["sources"][:1]
    if not told:
        return False
    out.answer, out.known = ". ".join(told) + ".", True
    out.citations = a.cite(list(dict.fromkeys(cited)))
    return True


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2].istitle() and not text.split(maxsplit=1)[0].istitle() else text


def state(a: Asked, q: Question, out: Answer) -> bool:
    """What holds now: read from the line of the latest fact that holds the topic (a superseded one never), else
    the latest fact whose own words hold the topic; none, the lines are read as for any question ("Sam is
    paying" is no answer to where Sam lives, though its line says "live"). The facts are those of the topic the
    question is typed with, as facts are (`kinds.typed`: "where does she live now?" asks of her home); a question
    of no topic and no type ("what's up with Sam now?") is read from the lines."""
    facts = [f for f in _facts_about(a, q, history=False) if f["sources"]]
    key = typed(q.reading)[1]  # "where does she live now?": a fact of where she lives, as facts are typed
    facts = [f for f in facts if key == "other" or f["key"] == key]
    if not facts or not (q.topic or key != "other"):  # "what's new with Tom now?": no one fact is the answer
        return False
    latest = max(facts, key=_said_at)
    # with no topic, a fact stands unread only when it says what is asked itself: "Ana lives in Lisbon", to where
    # she lives ("it pays the rent", typed her home by "from Japanese", does not)
    theirs = {x.lower() for p in q.people for x in keywords(p)}
    asked = tuple(w for w in keywords(q.reading) if w not in theirs)
    lines = a.lines(latest["sources"][-1:])
    if not lines:
        return False
    text, held = a.read(q.reading, lines, out)
    if held:
        out.answer, out.known = text, True
        out.citations = a.cite([x.id for x in held])
    elif own := [f for f in facts if (_holds(q.topic, f["value"]) if q.topic else _holds_any(asked, f["value"]))]:
        fact = max(own, key=_said_at)  # the latest fact that says it itself, as written from its line
        out.answer, out.known, out.why_unknown = f"{fact['value']}.", True, ""
        out.citations = a.cite(fact["sources"][-1:])
    else:  # only their lines hold the topic, and what they say of it was not read: the lines are read instead
        return False
    return True


def superseded_lines(memory: Memory, people: tuple[str, ...]) -> set[int]:
    """The lines of these people's facts that no longer hold (a newer value superseded them) and of none that does:
    what they said before is no answer to what holds now."""
    facts = facts_of(memory, people, history=True)
    old = {s for f in facts if f["superseded_by"] for s in f["sources"]}
    return old - {s for f in facts if not f["superseded_by"] and f["valid_to"] is None for s in f["sources"]}


def plans(a: Asked, q: Question, out: Answer) -> bool:
    """What is planned: the plans (dated facts, and lines that name a day ahead of when they were said) within the
    time asked about (from today on, `AHEAD_DAYS`, when none is named); "what did I promise (Oskar)?": what the
    asker said they would do (to them). The soonest first, each cited; said as its line says it, with the day."""
    promised = bool(PROMISE.search(q.text))
    now = a.now.timestamp()
    today = a.now.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    start, end = q.window.epoch() if q.window else (today, today + AHEAD_DAYS * DAY_S)
    found: dict[int, float | None] = {}  # line -> the day it plans for (None: not said)
    if promised:
        if q.asker is None:
            return False
        # "what did I promise Hanne on the 19th?", asked on the 20th: promised then, or to be done then
        said = time_window(q.text, a.now)
        said_in = said[0].epoch() if said and said[0].start <= a.now else None
        for u in a.memory.turns.said_between(0.0, now, by=q.asker):
            ahead = [w.epoch()[0] for w in times_named(u.text, u.t_start) if w.epoch()[0] >= u.t_start - DAY_S]
            then = said_in is not None and said_in[0] <= u.t_start < said_in[1]
            if WILL.search(u.text) and (q.window is None or then or any(start <= t < end for t in ahead)):
                found[u.id] = ahead[0] if ahead else None
        if q.people:  # "what did I promise Oskar?": said where they were
            heard = a.memory.turns.session_speakers(
                {u.session_id for u in a.memory.turns.utterances(list(found)).values()}
            )
            rows = a.memory.turns.utterances(list(found))
            found = {i: t for i, t in found.items() if set(q.people) & heard.get(rows[i].session_id, set())}
    else:
        for u in a.memory.turns.said_between(start - LOOK_BACK_DAYS * DAY_S, min(end, now)):
            for w in times_named(u.text, u.t_start):
                t = w.epoch()[0]
                if start <= t < end and t >= u.t_start - DAY_S / 2:  # a day ahead of when it was said, or that day
                    found.setdefault(u.id, t)
        for f in a.memory.derived.facts_listed():  # plans whose lines name no time the model could date
            if f["kind"] == FactKind.PLAN and f["valid_from"] and start <= f["valid_from"] < end and f["sources"]:
                u = a.memory.turns.utterances(f["sources"][:1]).get(f["sources"][0])
                if u is not None and not times_named(u.text, u.t_start) and u.t_start <= now:
                    found.setdefault(u.id, f["valid_from"])
        if q.people:
            rows = a.memory.turns.utterances(list(found))
            found = {i: t for i, t in found.items() if _mentions(rows[i], q.people)}
    topic = tuple(w for w in q.topic if w not in _PLAN_WORDS)
    lines = {x.id: x for x in a.lines(list(found))}
    # a reply says when, the question it answers what: "Are you still doing that half marathon?" - "The 18th."; a
    # question says when, its answer what: "Do you still need someone for next Tuesday?" - "Yes, take my shift?"
    rows = a.memory.turns.utterances(list(lines))
    answering, answered = asked_before(a.memory, rows), answered_after(a.memory, rows)
    if topic:
        lines = {
            i: x
            for i, x in lines.items()
            if _holds_any(topic, f"{answering.get(i, '')} {x.text} {answered.get(i, '')}")
        }
    if not lines:
        out.why_unknown = "no plan then"
        return True
    order = sorted(lines, key=lambda i: (found[i] is None, found[i] or 0.0, i))[:PLANS_SAID]
    told = [
        f"{said_on(found[i]) + ': ' if found[i] else ''}{_told(lines[i], answering.get(i, ''), answered.get(i, ''))}"
        for i in order
    ]
    out.answer, out.known = "; ".join(told) + ".", True
    out.citations = a.cite(order)
    return True


def _told(line: Line, asked: str = "", answer: str = "") -> str:
    """A line as an answer tells it: who said it, in the third person, its time words dated; after the question it
    answers, when another asked one just before it (`asked`); with the answer another gave it, when it asks
    (`answer`)."""
    text = line.shown.rstrip(". ")
    if asked:
        text = f'{line.person or "someone"}, asked "{asked.strip()}": {text}'
    elif not (line.person and line.person in text):
        text = f"{line.person or 'someone'}: {text}"
    return f"{text} — {answer.rstrip('. ')}" if answer else text


def _mentions(u, people: tuple[str, ...]) -> bool:
    return u.person in people or any(re.search(rf"\b{re.escape(p)}\b", u.text, re.I) for p in people)


def _holds_any(topic: tuple[str, ...], text: str) -> bool:
    words = word_set(text)
    return any(says(canonical(w), words) for w in topic)


_PLAN_WORDS = frozenset(
    canonical(w)
    for w in "plan plans planned planning coming upcoming next schedule scheduled calendar agenda promise promised "
    "agree agreed supposed ahead happening anything need todo have got".split()
)


def who(a: Asked, q: Question, out: Answer) -> bool:
    """Who the question asks for: whom its relation path reaches, when it asks nothing more ("who is John's
    brother?"); else everyone a fact (with its line) says what it asks of ("who loves tennis?": Emily and Sarah),
    among the people it reaches when it names some ("do any of my colleagues love tennis?"), or among everyone
    known when it names the asker's friends, colleagues or neighbours and none is known as such (and says so)."""
    if q.path and not q.topic:
        reached = list(q.path[-1].people)
        if not reached:  # "who is Emily's husband?", none known: what the lines say, else that none is known
            return False
        out.answer, out.known = f"{joined(reached)}.", True
        out.citations = a.cite(list(dict.fromkeys(s for step in q.path for s in step.sources)))
        return True
    # "which of my friends are into climbing?", nobody known as a friend: among everyone known, and said so
    anyone = bool(q.unreached and len(q.path) == 1 and q.path[0].of == q.asker and q.path[0].relation in SOCIAL)
    among = None
    if not anyone and (q.path or re.search(r"\bof\s+(?:my|our|his|her|their)\b", q.text, re.I)):
        among = set(q.people)
    if not q.topic or (q.people and among is None):  # "who does Emily play tennis with?" is not Emily
        return False
    facts = [
        f
        for f in a.memory.derived.facts_listed()
        if f["person"] and not f["faded"] and f["polarity"] >= 0 and (among is None or f["person"] in among)
    ]
    lines = a.memory.turns.utterances([s for f in facts for s in f["sources"][:1]])
    near = _near(q.topic, [f["value"] for f in facts], a.similar)
    found: dict[str, list[int]] = {}
    for f in facts:
        line = " ".join(lines[s].text for s in f["sources"][:1] if s in lines)
        said = _holds(q.topic, f"{f['value']} {line}") and _holds(q.topic, f"{f['key']} {f['value']}")
        words, own = word_set(f["value"]), set(keywords(f["value"]))
        if said or all(says(w, words) or near[w] & own for w in q.topic):
            found.setdefault(f["person"], []).extend(f["sources"][:1])
    if not found:
        return False
    # "who do I work with at the library?": never the one asking
    names = [n for n in found if n != q.asker] if anyone or q.about_me else list(found)
    if not names:
        return False
    yes = "Yes: " if q.kind is Kind.WHO and re.match(r"^\s*(?:does|do|did|is|are|has|have)\b", q.text, re.I) else ""
    among_all = f"{q.unreached.removesuffix('.')}; of everyone I know: " if anyone else ""
    out.answer, out.known = f"{among_all}{yes}{joined(names)}.", True
    cited = [s for ids in found.values() for s in ids] + [s for step in q.path for s in step.sources]
    out.citations = a.cite(list(dict.fromkeys(cited)))
    return True


def _near(topic: tuple[str, ...], texts: list[str], similar) -> dict[str, set[str]]:
    """For each topic word, the words of `texts` that mean it (cosine ≥ `SIMILAR` in the text embedder's space:
    "climb" by "climber", "run" by "runner"; measured: "play" ~ "player" 0.59 is not), one batch for all."""
    words = sorted({w for text in texts for w in keywords(text)})
    if similar is None or not topic or not words:
        return {w: set() for w in topic}
    close = similar(list(topic), words) >= SIMILAR
    return {w: {x for x, hit in zip(words, row, strict=True) if hit} for w, row in zip(topic, close, strict=True)}


def counted_relation(a: Asked, q: Question, out: Answer) -> bool:
    """How many of a relation someone has ("how many kids does Priya have?"): everyone the relation reaches,
    counted and named."""
    rel = next((relation_word(w) for w in q.topic if relation_word(w) in _COUNTED), None)
    person = q.people[0] if q.people else q.asker
    if rel is None or person is None:
        return False
    found = relation_reaches(a.memory, person, rel)  # the same walk the parse makes
    if not found:
        return False
    out.answer, out.known = f"{len(found)}: {joined(list(found))}.", True
    out.citations = a.cite([uid for uid in dict.fromkeys(found.values()) if uid is not None])
    return True


ABOUT_SAID = 8  # facts an answer about someone says at most


def about(a: Asked, q: Question, out: Answer) -> bool:
    """What is known about someone: their facts that hold (plans, what they do, like, did) and whom they are
    related to, each cited by the line it was read from."""
    person = q.people[0]
    pid = a.memory.people.person_id(person)
    facts = [f for f in a.memory.derived.facts_listed(pid) if not f["faded"]] if pid is not None else []
    relations = [r for r in a.memory.derived.relations_listed(pid) if r["valid_to"] is None] if pid is not None else []
    if not facts and not relations:
        return False
    facts = sorted(facts, key=lambda f: (f["kind"] != FactKind.ATTRIBUTE, -_said_at(f)))[:ABOUT_SAID]
    told = [f["value"] for f in facts]
    told += [f"{r['subject']} is {r['object']}'s {r['relation']}" for r in relations]
    out.answer, out.known = "; ".join(told) + ".", True
    cited = [s for f in facts for s in f["sources"][:1]] + [s for r in relations for s in r["sources"][:1]]
    out.citations = a.cite(list(dict.fromkeys(cited)))
    return True


def related(a: Asked, q: Question, out: Answer) -> bool:
    """How two people are related ("how is Teodor related to Petra?"), or someone to the one asking ("who is Declan
    to me?"), or whom someone is to anyone ("who is Teodor?"): the relations stored between them, each cited by its
    line ("Teodor is Petra's cousin."; "your brother" for the asker). None stored: read from lines (False)."""
    people = list(q.people)
    if not people:
        return False
    if len(people) == 1 and q.asker and not WHO_IS.search(q.text):
        people.append(q.asker)  # "to me", "do I know"
    edges = [  # every relation asked about involves the first one named
        r
        for r in a.memory.derived.relations_listed(a.memory.people.person_id(people[0]))
        if r["valid_to"] is None
        and r["subject"] in people
        and (len(people) == 1 or r["object"] in people)
        and r["subject"] != r["object"]
    ]
    if len(people) == 2:  # either way round, the first named as the subject when both are stored
        mine = [r for r in edges if r["subject"] == people[0]]
        edges = mine or [r for r in edges if r["subject"] == people[1]]
    if not edges:
        return False

    def whose(name: str) -> str:
        return "your" if name == q.asker else f"{name}'s"

    told = list(dict.fromkeys(f"{r['subject']} is {whose(r['object'])} {r['relation']}" for r in edges))
    out.answer, out.known = "; ".join(told) + ".", True
    out.citations = a.cite(list(dict.fromkeys(s for r in edges for s in r["sources"][:1])))
    return True


_COUNTED = frozenset("child son daughter brother sister sibling cousin friend colleague grandchild".split())

HANDLERS: dict[Kind, Callable[[Asked, Question, Answer], bool]] = {
    Kind.MET: met,
    Kind.LAST_MET: last_met,
    Kind.HOW_OFTEN: how_often,
    Kind.HOW_LONG: how_long,
    Kind.ORDER: met_first,
    Kind.RECAP: recap,
    Kind.CHANGE: change,
    Kind.STATE: state,
    Kind.PLANS: plans,
    Kind.WHO: who,
    Kind.COUNT: counted_relation,
    Kind.ABOUT: about,
    Kind.RELATED: related,
}
