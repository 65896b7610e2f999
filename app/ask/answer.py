"""Answers from memory: the question is parsed once (app/ask/question.py: its kind, who asks, whom it names or
reaches through a relation path, the time and the topic) and answered by the handler of its kind. Those whose
answer lives in no one line — who was met, when, how often and how long, recaps, what changed, what holds now,
what is planned, who (everyone), what is known about someone — are answered from the conversations, their
summaries and the facts' history (app/ask/lifelog.py). The rest, and those a handler finds nothing for, are read
from lines, grounded: retrieval and code choose and check; the model only reads a few short lines.

1. gather (app/ask/grounding.py): at most `answer.candidates` lines the answer may be in, ranked by the retriever
   and by whether they mention the people the question names and hold its topic words; each "who: what",
   in the third person, with its time words resolved against the day it was said.
2. choose: the `answer.chosen` best-ranked lines (`answer.select: retriever`, the default; `answer.listed` for a
   question that asks for several things — "what sports does Emily play?", "who plays chess?" — read again from
   the next `answer.listed` lines when the first reading held, `answer.list_reads`) — the first alone when it
   holds all the question asks about in itself (`checking.answers_alone`: fewer tokens to read; when what is read
   from it fails the check, the best two are read after all) — or those the model picks by number (`model`:
   measured worse and slower; README, Answers). A question about what holds now reads the latest said first of
   the lines nearly as good as the best, and never a line whose fact was superseded; one about what changed is
   read from the best lines in the order they were said, as before and now (JSON), each part held by a line.
3. read: the model answers from the chosen lines alone, in a few words.
4. check (app/ask/checking.py): the line that holds the answer's own words (and the people, relation words and
   topic words of the question) is its citation; none → "I don't know" (a list asked for keeps the items that
   lines hold, `checking.held_items`, and is checked again). An answer is said (`on_text`) only
   once it passed, so nobody hears what the memory does not hold, and without the question's words it repeats
   at its ends (`wording.concise`: "David bought a new bicycle" → "A new bicycle"), to an "A or B?"
   question as the option it picks (`grounding.option_picked`: "Yes, she plays in the park" → "The park", checked
   by the words only that option has), and with the day its time words mean (`wording.dated_answer`: "Next Friday
   (22 May 2026)"). With `answer.beside`, what the chosen lines gave no line holds is read once more with their
   speakers' turns just before and after them (`grounding.with_turns_beside`: the answer is often said in the
   turn after the one that names what is asked); with `answer.more`, with the next-ranked lines beside them (off
   by default: measured to refuse less, README, Answers).

A question that asks how long between two things, or since one ("how many days passed between the bank meeting
and the trip to Paris?", "how long ago did Maria move here?": `spans.span_asked`) is asked as a when-question for
each, and code counts the days between the days their checked answers name (`spans.day_of`, `spans.span_words`);
which of two came first ("which is first, the meeting with the bank or the trip to Paris?": `spans.order_asked`)
the same way. A question about several people said together ("what sports do Emily and Sarah like?") is asked of
each of them.

A question that asks for a likely guess ("would Emily enjoy a tennis match or a football match?", "what might
John's degree be in?": `grounding.asks_for_a_guess`, `answer.guesses`) is read from the `answer.listed` best lines
with instructions to guess, said as a guess ("Probably yes", `wording.as_guess`) and cited by the lines about that
person that bear most on it (`checking.bearing`: its topic words or the guess's own words said there, not only
meant); no such line, or a guess that says nothing the question does not, is "I don't know".

The prompts (app/ask/prompts.py) are small (two short lines and a question, not an evidence block or a profile)
and their fixed instructions form the cacheable prefix, so a question pays for a few dozen tokens. "I" and "my"
are who asks (`person`: `ask --as`, the API's `person`, the companion's speaker), else the device's owner
(`enroll --me`), else `companion.wearer`; a question about "I" that only the one asking can answer, with none of
them known, says "I don't know who is asking" — "who did I meet?" asks the device, which was there.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from app.ask import kinds
from app.ask.answered import Answer
from app.ask.checking import (
    answers_alone,
    bearing,
    held_items,
    holding,
    list_items,
    own_words,
    whom_held,
)
from app.ask.comparing import YES_NO, canonical
from app.ask.grounding import (
    ASKS_WHEN,
    Gathered,
    Line,
    asks_for_several,
    gather,
    line_of,
    option_picked,
    said_on,
    with_turns_beside,
)
from app.ask.lifelog import HANDLERS, Asked, superseded_lines
from app.ask.prompts import (
    CHANGE_SCHEMA,
    UNKNOWN,
    VERIFY_SCHEMA,
    guess_kind,
    read_messages,
    select_messages,
    select_schema,
    verify_messages,
)
from app.ask.question import MEETINGS, Kind, Question, parse
from app.ask.spans import answer_order, answer_span
from app.ask.when import closer_time, said_by_then, time_held
from app.ask.wording import as_guess, concise, dated_answer, unrepeated, weekdays_near
from app.config import Config
from app.consolidation import forgetting
from app.errors import LLMCutOff
from app.identity.naming import is_given_name
from app.llm import BACKGROUND, DIALOG, RESTART, Job, LLMWorker, Request
from app.store.memory import Memory
from app.text import places
from app.text.embedder import TextEmbedder
from app.text.timeexpr import COUNTS
from app.text.words import WORD, keywords

__all__ = ["UNKNOWN", "Answer", "Answerer", "cited_lines", "says_unknown"]
UNKNOWN_ASKER = "I don't know who is asking."
# a question about what holds now reads the latest said first of the lines within this of the best one's score
LATEST_WITHIN = 0.1
_UNKNOWN_PHRASES = ("don't know", "not know", "not mentioned", "no information", "not say", "doesn't say", "unknown")


def _unprefixed(text: str, lines: list[Line]) -> str:
    """`text` without the speaker a reply that copies a whole line keeps ("Tom: The club meets on the 9th")."""
    for line in lines:
        text = text.removeprefix(f"{line.person}: ") if line.person else text
    return text


_WHAT_TIME = re.compile(r"\bwhat\s+time\b", re.I)
# a small model's "Yes, ..." to a question that asks no yes or no
_YES_FIRST = re.compile(r"(?:yes|yeah)\s*[,.!]\s+(?=\w)", re.I)
_CLOCK = re.compile(r"(\d{1,2})(?::00)?(?:\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock))?\.?", re.I)
_HOUR = re.compile(  # what says an hour: "10:30", "ten", "9 am", "at half six", "noon"; not "6 June 2026"
    r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock)|^\W*\d{1,2}\W*$"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midday|midnight|half|quarter)\b",
    re.I,
)


def hour_said(text: str) -> str:
    """A reading that is only an hour ("9:00", "9 am", "9") as a line says it in words ("nine"); else ""."""
    m = _CLOCK.fullmatch(text.strip())
    return next((w for w, n in COUNTS.items() if m and n == int(m.group(1))), "")


def _as_told(part: str, lines: list[Line]) -> str:
    """A part of a change as read, without the speaker and the day its line was shown with, which a small model
    copies ("Tom: The club meets on the 9th (said on Monday 26 October 2026)" → "The club meets on the 9th")."""
    part = _unprefixed(" ".join(part.split()), lines)
    return re.sub(r"\s*\(said on [^)]*\)?$", "", part).strip(" .")


def _only_asked_about(answer: str, q: Question) -> bool:
    """Whether `answer` only names someone the question is about, which does not answer it: the one asking a
    question about themselves ("who do I work with at the library?", "which restaurant did I book?"), or, unless it
    asks who or for a name, a person it names or reaches ("what does Ilse's husband do?" → "Bruno")."""
    said = re.sub(r"[^\w\s'-]", "", answer).strip().lower()
    if q.asker and q.about_me and said in (q.asker.lower(), "you", "me", "i"):
        return True
    if q.kind in (Kind.WHO, Kind.RELATED) or _ASKS_NAME.search(q.text):
        return False
    if said in {p.lower() for p in q.people}:
        return True
    bare = answer.strip().rstrip(".!")  # "what does Ilse's husband do?" → "Bruno", who the line says he is
    return bool(_ASKS_WHAT.match(q.text) and re.fullmatch(r"[A-Z][a-z]+", bare) and is_given_name(bare))


_ASKS_NAME = re.compile(r"\b(?:who|whom|whose|which|where|call(?:ed|s)?|nam(?:e|ed|es|ing))\b", re.I)
_ASKS_WHAT = re.compile(r"^\s*(?:so\s+|and\s+)?what\b", re.I)


def says_unknown(answer: str) -> bool:
    text = answer.strip().lower()
    return not text or any(p in text for p in _UNKNOWN_PHRASES)


def cited_lines(memory: Memory, ids: list[int]) -> list[dict]:
    """The utterances `ids` as citations ({id, person, t_start, text}), in that order; gone ones left out."""
    rows = memory.turns.utterances(ids)
    return [
        {"id": i, "person": rows[i].person, "t_start": rows[i].t_start, "text": rows[i].text} for i in ids if i in rows
    ]


class Answerer:
    """Answers questions from memory: gather, select, read, check (see the module's docstring)."""

    def __init__(self, llm: LLMWorker, memory: Memory, embedder: TextEmbedder, cfg: Config) -> None:
        self.llm, self.memory, self.embedder, self.cfg = llm, memory, embedder, cfg

    def _similar(self, words: list[str], others: list[str]):
        """Cosine similarities of `words` to `others` in the text embedder's space (a matrix)."""
        vectors = self.embedder([*words, *others])
        return vectors[: len(words)] @ vectors[len(words) :].T

    def warm(self, person: str | None = None, now: datetime | None = None) -> Job:
        """Have the fixed instructions of a question's first prompt evaluated in the background (the cached
        prefix), and the kinds' classifier fitted, so that the first question pays only for its own lines (the
        voice companion does this when it starts): the reading's, or with `answer.select: model` the selection's."""
        del person, now  # the prompts no longer depend on who is there
        threading.Thread(target=kinds.model, name="question-kinds", daemon=True).start()  # fitted once, here
        c = self.cfg.answer
        first = read_messages("?", []) if c.select == "retriever" else select_messages("?", [], c.chosen)
        return self.llm.submit(Request(first, max_tokens=1, cache_prefix=1, temperature=0.0), BACKGROUND)

    def keep_ahead(self, ids: list[int]) -> list[Job]:
        """Have the reading of each of these stored lines evaluated in the background and kept (`Request.keep`,
        `llm.kept_prompts`): a question whose first line read is one of them then evaluates only its own words
        (the voice companion keeps the latest lines so, while nobody speaks)."""
        if self.cfg.answer.select != "retriever":
            return []
        rows = self.memory.turns.utterances(ids)
        return [
            self.llm.submit(
                Request(read_messages("", [line_of(rows[uid])]), max_tokens=1, cache_prefix=1, keep=True), BACKGROUND
            )
            for uid in ids
            if uid in rows
        ]

    def __call__(
        self,
        question: str,
        now: datetime,
        person: str | None = None,
        on_text: Callable[[str], None] | None = None,
        timeout_s: float | None = None,
        on_job: Callable[[Job], None] | None = None,
        on_answered: Callable[[], None] | None = None,
    ) -> Answer:
        """Answer `question` asked by `person` (None: unknown) at `now`. `on_text` receives the answer once it
        is checked, `on_job` each model job as soon as it is submitted (to cancel it: the voice loop on
        barge-in), `on_answered` is called once the answer is complete."""
        started = time.perf_counter()
        q = parse(question, now, person or self.cfg.companion.wearer or None, self.memory)
        out = Answer(question, UNKNOWN, False, kind=str(q.kind))

        def done() -> Answer:
            out.latency_ms = (time.perf_counter() - started) * 1e3
            if out.known:
                out.answer = weekdays_near(out.answer, question, now, [c["text"] for c in out.citations])
            if on_text:
                on_text(out.answer)
            if on_answered:
                on_answered()
            return out

        # a question about "I" read from the conversations asks the device, which was there: "who did I meet?"
        if q.asker is None and q.needs_asker and q.kind not in MEETINGS:
            out.answer, out.why_unknown = UNKNOWN_ASKER, "asker"
            return done()
        if q.unreached and q.kind in MEETINGS:  # "when did I last talk to my brother?", no brother known
            out.answer, out.why_unknown = q.unreached, "nobody reached"
            return done()
        handler = HANDLERS.get(q.kind)
        if handler is not None:

            def read(text: str, lines: list[Line], into: Answer) -> tuple[str, list[Line]]:
                found = Gathered(lines, {}, named=list(q.people))
                return self._read_and_check(text, lines, found, into, timeout_s, on_job, started)

            def lines_of(ids: list[int]) -> list[Line]:
                rows = self.memory.turns.utterances(ids)
                return [line_of(rows[i]) for i in ids if i in rows]

            asked = Asked(self.memory, now, lambda ids: cited_lines(self.memory, ids), read, lines_of, self._similar)
            if handler(asked, q, out):
                out.timings_ms["answer"] = (time.perf_counter() - started) * 1e3
                cited = [c["id"] for c in out.citations]  # what it was made from
                out.chosen = out.chosen or cited
                out.evidence = list(dict.fromkeys([*out.evidence, *out.chosen]))
                return done()
        if each := q.each_person():  # "what sports do Emily and Sarah like?": each of them asked about
            parts = [(who, self(part, now, q.asker, timeout_s=timeout_s, on_job=on_job)) for who, part in each]
            said = [(who, part) for who, part in parts if part.known]
            if said:
                out.answer, out.known = ". ".join(f"{who}: {part.answer.rstrip('.')}" for who, part in said) + ".", True
                out.citations = [c for _, part in said for c in part.citations]
            return done()
        if q.span or q.order:  # "how long ago did Maria move here?", "which is first, the bank meeting or Paris?"

            def ask(part: str) -> Answer:  # each of the when-questions it is asked as
                return self(part, now, q.asker, timeout_s=timeout_s, on_job=on_job)

            def cite(ids: list[int]) -> list[dict]:
                return cited_lines(self.memory, ids)

            if q.span:
                answer_span(ask, cite, q.span, out)
            else:
                answer_order(ask, cite, q.order, out)
            return done()
        self._lookup(q, now, out, timeout_s, on_job, started)
        if q.unreached and not out.known:  # "where does Oskar's wife work?", no wife of Oskar's known or said
            out.answer, out.why_unknown = q.unreached, "nobody reached"
        return done()

    def _lookup(self, q: Question, now: datetime, out: Answer, timeout_s, on_job, started: float) -> None:
        """A question whose answer a line or a few lines say: gather, choose, read, check (the module's
        docstring). A relation path it names is read as whom it reaches, and the lines that say so are cited."""
        question, person = q.reading, q.asker
        c = self.cfg.answer
        several = q.several or (q.kind is Kind.WHO and not q.path)  # "who plays badminton?": everyone who does
        listing = c.select == "retriever" and several and not q.asks_number
        reads = c.list_reads if listing else 1  # "how many" is one count, not things to add up
        limit = max(c.candidates, c.listed * reads)  # a list read more than once reads the next lines
        found = gather(self.memory, self.embedder, self.cfg.recall, question, now, person, limit)
        forgetting.recalled(self.memory, self.cfg.memory, found.facts)  # MOOM: what a question recalls grows
        out.timings_ms["gather"] = (time.perf_counter() - started) * 1e3
        out.evidence = [line.id for line in found.lines]
        if not found.lines:
            out.answer, out.why_unknown = found.why_none or UNKNOWN, "nothing found"
            return
        if q.kind is Kind.CHANGE and self._change(q, found, out, timeout_s, on_job):
            return  # "what changed with Bea's job?": what it was before and what it is now, each held by a line
        if q.kind is Kind.STATE:  # "where does she live now?": never a superseded value, the latest said first
            gone = superseded_lines(self.memory, q.people or ((person,) if person else ()))
            lines = [x for x in found.lines if x.id not in gone]
            near = [x for x in lines[: c.listed] if x.score >= lines[0].score - LATEST_WITHIN] if lines else []
            latest = sorted(near, key=lambda x: (-x.t_start, x.id))
            found = replace(found, lines=latest + [x for x in lines if x not in near])
            if not found.lines:
                out.why_unknown = "nothing found"
                return
        if self.cfg.answer.guesses and q.guess:
            self._guess(question, found, out, timeout_s, on_job, started)
            return
        chosen, wider = self._select(question, found, out, timeout_s, on_job)
        out.chosen = [line.id for line in chosen]
        if not chosen:
            out.why_unknown = "none chosen"
            return
        text, held = self._read_and_check(question, chosen, found, out, timeout_s, on_job, started)

        def read_again(lines: list[Line]) -> tuple[list[Line], str, list[Line]]:
            out.chosen = [line.id for line in lines]
            return lines, *self._read_and_check(question, lines, found, out, timeout_s, on_job, started)

        if not held and wider and out.finish != "cancelled":  # the line read alone gave no answer it holds
            chosen, text, held = read_again(wider)
        if not held and out.finish != "cancelled" and self.cfg.answer.beside != "off":
            around = with_turns_beside(self.memory, chosen, self.cfg.answer.beside, q.when_said)
            if len(around) > len(chosen):  # the answer may be in the turn after the one that names what is asked
                chosen, text, held = read_again(around)
        more = found.lines[: len(chosen) + self.cfg.answer.more]
        if not held and len(more) > len(chosen) and out.finish != "cancelled" and self.cfg.answer.select == "retriever":
            chosen, text, held = read_again(more)  # what the best lines gave no line holds: with the next lines
        if held and reads > 1:  # a list: the next lines may say more of its things
            text, held = self._more_items(question, text, held, found, out, reads, timeout_s, on_job, started)
        if held and _only_asked_about(text, q):  # "which restaurant did I book?" → the asker's own name
            held, out.why_unknown = [], "only whom it asks about"
        if held:
            out.answer, out.known = dated_answer(concise(text, question), held[0]), True
            cited = [line.id for line in held]
            cited += [line.id for name, line in found.joined.items() if name.lower() in text.lower()]  # the join
            cited += [uid for step in q.path for uid in step.sources]  # "David's brother": who he is
            out.citations = cited_lines(self.memory, list(dict.fromkeys(cited)))

    def _guess(
        self,
        question: str,
        found: Gathered,
        out: Answer,
        timeout_s: float | None,
        on_job,
        started: float,
    ) -> None:
        """A question that asks for a likely guess: read from the `answer.listed` best lines, worded as a guess and
        cited by the lines of them that bear on it (`checking.bearing`); none → I don't know."""
        chosen = found.lines[: self.cfg.answer.listed]
        out.chosen, out.guess = [line.id for line in chosen], True
        text = out.read = self._read(question, chosen, out, timeout_s, on_job, started, guess=True)
        kind = guess_kind(question)
        if kind != "yes or no":  # "Yes, a bookstore" to a what-question: the thing; a bare yes or no is none
            text = re.sub(r"^\s*(?:yes|no)\b\W*", "", text, flags=re.I)
            text = text[:1].upper() + text[1:]
        # a thing guessed must say something the question does not ("allergies", asked about her allergies)
        unfit = says_unknown(text) or not keywords(text) or (kind == "what" and not own_words(text, question))
        bears = [] if unfit else bearing(text, question, chosen, found.named)
        if bears:
            out.answer, out.known = as_guess(text, question, chosen), True
            out.citations = cited_lines(self.memory, [line.id for line in bears])
        else:
            out.why_unknown = "the model did not know" if says_unknown(text) else "not in the lines"

    def _change(self, q: Question, found: Gathered, out: Answer, timeout_s, on_job) -> bool:
        """What changed, read from the `answer.listed` best lines in the order they were said, each dated, as JSON
        {before, now}: each part held by a line (the later one by a line said later: one line is no change told),
        what is asked about by one of them or by both together; none → False."""
        lines = sorted(found.lines[: self.cfg.answer.listed], key=lambda line: (line.t_start, line.id))
        dated = [replace(line, shown=f"{line.shown} (said on {said_on(line.t_start)})") for line in lines]
        t0 = time.perf_counter()
        request = Request(
            read_messages(q.reading, dated, change=True),
            max_tokens=self.cfg.answer.read_tokens * 3,
            schema=CHANGE_SCHEMA,  # both parts, always: a small model asked for a shape in words answers "Yes."
            cache_prefix=1,
            temperature=0.0,
        )
        try:
            data = self._run(request, timeout_s, on_job, out).data or {}
        except LLMCutOff:  # parts longer than a few words are no change told: the lines are read as for any question
            return False
        out.timings_ms["read"] = out.timings_ms.get("read", 0.0) + (time.perf_counter() - t0) * 1e3
        before, now = (_as_told(str(data.get(k, "")), lines) for k in ("before", "now"))
        out.read = f"before: {before}; now: {now}"
        if not before or not now or says_unknown(before) or says_unknown(now) or before.lower() == now.lower():
            return False
        joined = list(found.joined.values())

        def part(text: str, beside: list[Line]) -> list[Line]:
            return holding(text, q.reading, lines, found.named, [*joined, *beside], self._similar)

        # each part held by a line of its own, what is asked about by that line or by the other part's (a change is
        # told over two: "the deadline for the Hart bid is the 30th", then "they moved it to the 9th")
        was, is_ = part(before, []), part(now, [])
        if was and not is_:
            is_ = part(now, was)
        elif is_ and not was:
            was = part(before, is_)
        if not was or not is_ or max(x.t_start for x in is_) <= min(x.t_start for x in was):
            return False
        out.answer, out.known = f"Now {now}; before, {before}.", True
        out.chosen = [line.id for line in lines]
        out.citations = cited_lines(self.memory, list(dict.fromkeys([*(x.id for x in is_), *(x.id for x in was)])))
        return True

    def _read_and_check(
        self, question: str, chosen: list[Line], found: Gathered, out: Answer, timeout_s, on_job, started: float
    ) -> tuple[str, list[Line]]:
        """What the model reads from `chosen` and the lines that hold it (none: not an answer; `out.why_unknown`
        says why)."""
        text = out.read = self._read(question, chosen, out, timeout_s, on_job, started)
        if not YES_NO.search(question) and (yes := _YES_FIRST.match(text)):  # "Yes, three cat spays": what was asked
            text = text[yes.end() :][:1].upper() + text[yes.end() + 1 :]
        if kind := places.asked_kind(question):  # "Bogota", read for "which country?": Colombia, held by its line
            text = places.as_regions(text, kind)
        if picked := option_picked(text, question):  # "Yes, she lives close to the beach" → "The beach"
            text = picked[0][:1].upper() + picked[0][1:]
        joined = list(found.joined.values())
        held = [] if says_unknown(text) else holding(text, question, chosen, found.named, joined, self._similar)
        several = asks_for_several(question) and not says_unknown(text)
        if not held and several and (kept := held_items(text, question, chosen)):
            held = holding(kept, question, chosen, found.named, joined, self._similar)  # the items lines hold
            text = kept if held else text
        if not held and _WHAT_TIME.search(question) and (hour := hour_said(text)):
            # "9:00" read for "what time does it open?" from "we open at nine": the hour as the line says it
            held = holding(hour, question, chosen, found.named, joined, self._similar)
        if not held and ASKS_WHEN.search(question) and not says_unknown(text):  # "In the summer": the line's time
            said, held = time_held(question, chosen, found.named, joined, self._similar)
            if not held:  # "I finally opened my shop!": by the day it was said
                said, held = said_by_then(question, chosen, found.named, joined, self._similar)
            text = said or text
        elif not held and not says_unknown(text):  # "John", who said "my wife Sarah is a doctor": Sarah
            said, held = whom_held(text, question, chosen, found.named, joined, self._similar)
            text = said or text
        elif held and ASKS_WHEN.search(question):  # the day of a line more about what is asked
            said, closer = closer_time(question, held, chosen, found.named, joined, self._similar)
            text, held = (said, closer) if closer else (text, held)
        if held and _WHAT_TIME.search(question) and not _HOUR.search(text):  # "6 June 2026" for "what time ...?"
            held = []
        out.why_unknown = "" if held else "the model did not know" if says_unknown(text) else "not in the lines"
        verify = held and self._to_verify(text, question)
        if verify and not self._verified(question, text, held[0], out, timeout_s, on_job):
            held, out.why_unknown = [], "not confirmed"
        return text, held

    def _more_items(
        self,
        question: str,
        text: str,
        held: list[Line],
        found: Gathered,
        out: Answer,
        reads: int,
        timeout_s: float | None,
        on_job,
        started: float,
    ) -> tuple[str, list[Line]]:
        """A list asked for ("What sports does Emily play?") whose first reading held: read
        `reads` - 1 times more, each time from the next `answer.listed` lines not read yet; the things those lines
        hold (checked as any answer is) that the answer does not say yet join it, and their lines its citations.
        The things listed are often said in as many conversations; one reading of more lines at once was measured
        no better (`answer.listed: 6`, README, Answers)."""
        first, why = out.read, out.why_unknown
        for _ in range(reads - 1):
            lines = [x for x in found.lines if x.id not in out.chosen][: self.cfg.answer.listed]
            if not lines or out.finish == "cancelled":
                break
            out.chosen += [x.id for x in lines]
            more, by = self._read_and_check(question, lines, found, out, timeout_s, on_job, started)
            said = {canonical(w) for w in keywords(text)}
            new = [p for p in list_items(concise(more, question)) if not {canonical(w) for w in keywords(p)} <= said]
            if by and new:
                text, held = ", ".join([text.rstrip(". "), *new]), [*held, *by]
        out.read, out.why_unknown = first, why
        return text, held

    def _select(
        self, question: str, found: Gathered, out: Answer, timeout_s: float | None, on_job
    ) -> tuple[list[Line], list[Line]]:
        """The lines that answer, by the model's choice (or the retriever's best, `answer.select: retriever`:
        only the first when it alone holds all the question asks about, and nobody is reached through a relation
        of the asker's), and the lines to read instead if what is read from that one line fails (else none)."""
        c, lines = self.cfg.answer, found.lines
        several = asks_for_several(question)
        if c.select == "retriever" or len(lines) == 1:
            wider = lines[: c.listed if several else c.chosen]
            alone = not several and not found.joined and len(wider) > 1
            if alone and answers_alone(question, lines[0], found.named, self._similar):
                return lines[:1], wider
            return wider, []
        t0 = time.perf_counter()
        request = Request(
            select_messages(question, lines, c.chosen),
            max_tokens=8 + 4 * c.chosen,
            schema=select_schema(len(lines), c.chosen),
            cache_prefix=1,
            temperature=0.0,
        )
        reply = self._run(request, timeout_s, on_job, out)
        out.timings_ms["select"] = (time.perf_counter() - t0) * 1e3
        data = reply.data or {}
        numbers = [data.get("line", 0)] if c.chosen == 1 else data.get("lines", [])
        return [lines[n - 1] for n in dict.fromkeys(numbers) if 1 <= n <= len(lines)], []

    def _read(
        self,
        question: str,
        lines: list[Line],
        out: Answer,
        timeout_s: float | None,
        on_job,
        started: float,
        guess: bool = False,
    ) -> str:
        t0 = time.perf_counter()
        request = Request(
            read_messages(question, lines, guess),
            max_tokens=self.cfg.answer.read_tokens,
            stop=("\n",),
            cache_prefix=1,
            temperature=0.0,
        )
        first: list[float] = []
        reply = self._run(request, timeout_s, on_job, out, first)
        if first:
            out.first_token_ms = (first[0] - started) * 1e3
        out.timings_ms["read"] = out.timings_ms.get("read", 0.0) + (time.perf_counter() - t0) * 1e3
        out.finish = reply.usage.finish
        text = " ".join(reply.text.split()).strip().strip('"').strip()
        text = unrepeated(re.sub(r"^(?:the )?answer(?: is)?\s*:\s*", "", text, flags=re.I))  # "The answer is: park"
        return _unprefixed(text, lines)  # a reply that copies a whole line with its speaker keeps the line

    def _to_verify(self, answer: str, question: str) -> bool:
        """Whether the answer is asked about again (`answer.verify`): with `names`, one that only names people —
        the word check finds a name in the line whatever its role there ("What should nobody bring?" → "David",
        from David's own line) —, or says nothing of its own but a name ("Emily found relaxing about", to "What did
        John find relaxing about his trip?")."""
        mode = self.cfg.answer.verify
        if mode != "names":
            return mode == "all"
        people = {w for n in self.memory.people.names() for w in WORD.findall(n.lower())}
        words = [w for w in WORD.findall(answer.lower()) if w not in ("and", "or", "both")]
        if words and all(w.removesuffix("'s") in people for w in words):
            return True
        own = set(own_words(answer, question))
        return bool(own) and own <= {canonical(p) for p in people}

    def _verified(self, question: str, answer: str, line: Line, out: Answer, timeout_s: float | None, on_job) -> bool:
        """Whether the model, asked yes or no, finds that `line` says that `answer` answers `question`."""
        t0 = time.perf_counter()
        request = Request(
            verify_messages(question, answer, line),
            max_tokens=12,
            schema=VERIFY_SCHEMA,
            cache_prefix=1,
            temperature=0.0,
        )
        reply = self._run(request, timeout_s, on_job, out)
        out.timings_ms["verify"] = out.timings_ms.get("verify", 0.0) + (time.perf_counter() - t0) * 1e3
        return bool((reply.data or {}).get("supported"))

    def _run(self, request: Request, timeout_s: float | None, on_job, out: Answer, first: list | None = None):
        """Submit at dialog priority; its tokens (the first one's time into `first`) and token counts into `out`."""
        job = self.llm.submit(request, DIALOG)
        if on_job:
            on_job(job)
        for piece in job.tokens(timeout=timeout_s):
            if piece is not RESTART and first is not None and not first:
                first.append(time.perf_counter())
        reply = job.result()
        u = reply.usage
        out.prompt_tokens += u.prompt_tokens - u.cached_tokens
        out.cached_tokens += u.cached_tokens
        out.completion_tokens += u.completion_tokens
        return reply
