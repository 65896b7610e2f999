"""Extraction: the LLM reads a stretch of a session's transcript and names, line by line, what it says about
the people in it; what it returns is checked against the lines before anything is kept.

Small models copy what they read, so the task is shaped around that: the transcript is numbered, each item
points at one line, who it is about is chosen from the names in the transcript (a grammar enforces the
choice), and "what" is a short phrase. Dates are not asked of the model: a relative date in the cited line
("next Friday") is resolved in code against the time the line was said. An item is dropped when its line
does not mention its subject (neither spoken by them nor naming them), when its words are not in the line,
or when it is about someone who refused consent.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime, timezone

from app.consolidation.atoms import atoms, named_in
from app.consolidation.clauses import time_only
from app.consolidation.items import Item
from app.consolidation.kinds import typed
from app.consolidation.person import third_person
from app.consolidation.relations import ADJ, FAMILY, RELATION_WORDS, called, in_context, relations_in, yours
from app.consolidation.replies import answered
from app.consolidation.summaries import digest, naming, whole_sentences
from app.errors import LLMCutOff
from app.facts import FactKind, past_tense
from app.llm import BACKGROUND, LLMWorker, Request
from app.store.writing import Line
from app.text.timeexpr import TimeWindow, day_words, plan_window, spoken_time
from app.text.words import ASIDE, keywords, sentences

_LOGGER = logging.getLogger(__name__)
LINE_TOKENS = 12  # what one line's entry costs besides its facts
_MENTION = re.compile(rf"\b(?i:my|our|your|his|her|their)\s+{ADJ}(?i:{RELATION_WORDS})s?,?\s+([A-Z][a-z]+)\b")
SYSTEM = (
    "You read a transcript of a conversation and write down what it reveals about the people in it. Each line "
    "starts with its number, then who spoke and what they said."
)
TASK = (
    "For every line in order, list the facts it states about people: who it is about (the speaker when they say I "
    "or my) and the fact as a short sentence about that person in the third person, with the names, places, dates "
    "and numbers the line gives. Greetings, thanks and questions state no facts. Never give one speaker's facts "
    "to another."
)
SUMMARY_TASK = (
    "Write at most three short sentences about this conversation, as a diary would. Name everyone who spoke "
    "({names}). Put first what matters most: plans and their dates, health and family; then work and the rest. "
    "Use only what is written here; when little was said, one sentence is enough."
)


def names_in(lines: list[Line], known: set[str]) -> list[str]:
    """Who items may be about: the speakers, known people named in the lines (in any case), capitalized names
    that follow a relation word ("my wife Sarah") and those the talk around a relation word names ("Your
    sister?" after "Ruth texted me": `relations.in_context`)."""
    found = [ln.person for ln in lines if ln.person]
    text = "\n".join(ln.text for ln in lines)
    found += [n for n in known if re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE)]
    found += _MENTION.findall(text)
    found += [person for _, _, person, _ in in_context(lines)]
    return list(dict.fromkeys(found))


def dated(line: Line) -> str:
    """The line's words with the day its time expression names, resolved against when it was said ("next
    Friday (Friday 22 May 2026) we are planning..."): a model reading it copies the date, not guesses it."""
    found = plan_window(line.text, datetime.fromtimestamp(line.t_start, timezone.utc))
    if found is None or (i := line.text.lower().find(found[0].expression)) < 0:
        return line.text
    j = i + len(found[0].expression)
    return f"{line.text[:j]} ({day_words(found[0].start, found[0].end)}){line.text[j:]}"


def render(lines: list[Line]) -> str:
    """The numbered transcript the model reads (numbers, not database ids: fewer tokens to copy), its
    relative times resolved (`dated`)."""
    day = spoken_time(lines[0].t_start) if lines else "?"
    when = datetime.fromtimestamp(lines[0].t_start, timezone.utc).strftime("%A") if lines else ""
    body = "\n".join(f"[{i}] {ln.person or 'someone'}: {dated(ln)}" for i, ln in enumerate(lines, 1))
    return f"Conversation on {when} {day}:\n{body}"


_LEAD = re.compile(  # greeting words at a sentence's start, each with the names they address ("Hey Ben! ", "Wow, ",
    # "Hi Felix, hi Omar, come in, "; "No, " but not "No regrets")
    r"^(?:(?:hi|hey|hello|thanks|thank you|wow|yeah|yep|yes|no(?=\s*[,!.])|oh|ok|okay|sure|well|so|aw+|haha|lol|omg"
    r"|come in|welcome)\b[\s,!.]*(?:(?-i:[A-Z][a-z]+\b)[,!.]+\s*)*)+",
    re.IGNORECASE,
)
_REACTION = re.compile(  # a sentence that only reacts ("That's really sweet", "Sounds great", "Lena, great to see you")
    r"^(?-i:[A-Z][a-z]+,\s*)?"  # the name it is said to
    r"(?:(?:(?:that|it|this)(?:'s| is| was| sounds| looks)|sounds|looks|what an?|how)\s+(?:so |really |super |very )?"
    r"(?:great|cool|awesome|amazing|sweet|nice|wonderful|lovely|fun|good|beautiful|incredible|exciting|"
    r"interesting|inspiring|tough|hard|sad)\b"
    r"|(?:it's |it is )?(?:nice|good|great|glad|happy) to (?:meet|see|hear)"
    r"|(?:i'm |i am )?so (?:happy|proud) (?:for|of))",
    re.IGNORECASE,
)


_TOLD_THEN_ASKED = re.compile(  # a statement, a dash, then a question
    r"^(?!(?i:is|are|was|were|do|does|did|can|could|will|would|have|has|what|how|why|where|who|when)\b)"
    r"(.+?)\s+[-–—]\s+[^-–—]+\?$"
)


# A sentence cut off before its end states nothing whole ("Luke is moving to Lisbon in...", "Bruno has got news
# to"): it trails off, or ends on a word that needs another after it. Speech recognition over people who talk
# over each other writes such sentences.
_TRAILING = ("...", "…", "-", "—", "–")
_NEEDS_MORE = frozenset(
    "a an the to in on at of for from with by about into onto my your his her our their its and or but because if "
    "than as".split()
)
_LAST_WORD = re.compile(r"([A-Za-z']+)\W*$")


def fragment(sentence: str) -> bool:
    """Whether a sentence was cut off before its end."""
    s = sentence.strip()
    if s.endswith(_TRAILING):
        return True
    last = _LAST_WORD.search(s)
    return last is not None and last.group(1).lower() in _NEEDS_MORE


def statement(text: str) -> str:
    """What a line states, without its questions, greetings, reactions, bracketed asides and sentences cut off
    ("Thanks, Emily! I adopted a dog. Is this yours? [shares a photo]" -> "I adopted a dog"; "I finished a vase
    - want to see it?" -> "I finished a vase"): each remaining sentence has two content words or more, or says only
    when ("So, Saturday. I'm doing a barbecue": the time of what follows)."""
    kept = []
    text = ASIDE.sub("", text)
    for sentence in sentences(text.strip()):
        if time_only(sentence) and not sentence.strip().endswith("?"):  # "So, Saturday.": when what follows is
            kept.append(sentence.strip())
            continue
        rest = _LEAD.sub("", sentence.strip()).strip()
        if rest.endswith("?") and (told := _TOLD_THEN_ASKED.match(rest)):
            rest = told.group(1) + "."  # "I baked a loaf of bread - want to try some?"
        if (
            rest
            and not rest.endswith("?")
            and not _REACTION.match(rest)
            and not fragment(rest)
            and len(keywords(rest)) >= 2
        ):
            kept.append(rest[:1].upper() + rest[1:])
    return " ".join(kept).strip(" ,.!")


def states_something(text: str) -> bool:
    """Whether a line can state a fact: three content words outside its questions. Greetings, thanks and
    questions get no entry to fill (an entry costs the model about a second even when it is empty)."""
    said = [s for s in sentences(text.strip()) if s and not s.endswith("?")]
    return len(keywords(" ".join(said))) >= 3


def schema(numbers: list[int], names: list[str], per_line: int) -> dict:
    """One entry per line numbered in `numbers`, in order (a grammar keeps the model from skipping or looping),
    each with at most `per_line` facts about the people named in the transcript."""
    fact = {
        "type": "object",
        "properties": {"who": {"type": "string", "enum": names}, "fact": {"type": "string", "maxLength": 90}},
        "required": ["who", "fact"],
        "additionalProperties": False,
    }
    line = {
        "type": "object",
        "required": ["line", "facts"],
        "additionalProperties": False,
    }
    entries = [
        {**line, "properties": {"line": {"const": i}, "facts": {"type": "array", "items": fact, "maxItems": per_line}}}
        for i in numbers
    ]
    n = len(numbers)
    return {
        "type": "object",
        "properties": {"lines": {"type": "array", "prefixItems": entries, "minItems": n, "maxItems": n}},
        "required": ["lines"],
        "additionalProperties": False,
    }


def messages(lines: list[Line], task: str) -> tuple[dict, ...]:
    """The transcript is the cacheable prefix: extraction and the summary read it once."""
    return {"role": "system", "content": f"{SYSTEM}\n\n{render(lines)}"}, {"role": "user", "content": task}


def _mentions(line: Line, name: str) -> bool:
    return line.person == name or re.search(rf"\b{re.escape(name)}\b", line.text, re.IGNORECASE) is not None


def _grounded(what: str, text: str) -> bool:
    """A word of the phrase (its first five letters) is in the line: the phrase says what the line says."""
    said = text.lower()
    return any(w[:5] in said for w in keywords(what))


def _subject(fact: str, who: str, names: list[str], line: Line) -> str:
    """Who a fact is about: the model's choice, unless the sentence names one other person of the
    transcript and not them ("John prefers swimming", said by Emily and filed under Emily)."""
    if re.search(rf"\b{re.escape(who)}\b", fact, re.IGNORECASE):
        return who
    others = [n for n in names if n != who and re.search(rf"\b{re.escape(n)}\b", fact, re.IGNORECASE)]
    return others[0] if len(others) == 1 and _mentions(line, others[0]) else who


def sentence_time(fact: str, line: Line, past: bool) -> tuple[TimeWindow, str] | None:
    """The time the sentence a clause came from names, when it names one: "I can't make Friday's meeting, I've
    got a dentist appointment" puts the appointment on Friday; a sentence with two times gives neither, and a
    time past for a clause that is not, or ahead for one that is, belongs to another clause ("I lost my job
    last month and I am planning a trip")."""
    words = set(keywords(fact))
    sentence = max(sentences(line.text), key=lambda s: len(words & set(keywords(s))))
    now = datetime.fromtimestamp(line.t_start, timezone.utc)
    found = plan_window(sentence, now, past)
    if found is None or plan_window(found[1], now, past) is not None:
        return None
    span = found[0]
    return None if (span.start > now if past else span.end <= now) else found


def check(raw: dict, lines: list[Line], names: list[str], refused: set[str]) -> tuple[list[Item], int]:
    """The items whose line supports them (typed, dated, in the third person), the relations their speakers
    name, and how many the model gave that were dropped. A fact of `said` (the line's own clause) carries
    `earlier`: whether its person was named a line or two before ("she" in "she is competing"); its time is
    read from its own words or, for a plan or an event, its sentence's (`sentence_time`), while a model's fact
    may take its line's."""
    items: list[Item] = []
    dropped = 0
    seen: set[tuple[int, str, str]] = set()
    by_line = {e.get("line"): e for e in reversed(raw.get("lines", []))}  # the first entry of a number counts
    around = in_context(lines)
    for line_no, line in enumerate(lines, 1):
        entry = by_line.get(line_no, {"facts": []})
        listener = lines[line_no].person if line_no < len(lines) and lines[line_no].person != line.person else None
        named = [(r, n, line.person) for r, n in relations_in(line, names)]
        named += [(r, n, listener) for r, n in yours(line.text, names) if listener and n != listener]
        named += [(r, n, whose) for i, r, n, whose in around if i == line_no - 1]
        before = lines[line_no - 2].person if line_no > 1 else None
        if listener and listener == before:  # between the two of them: the one answered and answering
            named += [(r, listener, line.person) for r in called(line.text)]
        elif listener and line_no == 1:  # the opening greets who answers: "Hello Dad, got a minute?"
            named += [(r, listener, line.person) for r in called(line.text, opening=True)]
        for relation, other, whose in named:
            if whose and whose not in refused and other not in refused:
                circle = "family" if relation in FAMILY else "social"
                items.append(Item(other, FactKind.RELATION, circle, relation, line, whose))
        for f in entry.get("facts", []):
            who, fact = str(f.get("who", "")), statement(" ".join(str(f.get("fact", "")).split()))
            if fact and len(keywords(fact)) < 2:  # nothing but a greeting, thanks or a name ("Sarah is a doctor": two)
                fact = ""
            if line.person == who:
                fact = third_person(fact, who)
            who = _subject(fact, who, names, line)
            marker = (line.id, who, fact.lower())
            if (
                not fact
                or marker in seen
                or who in refused
                or not (_mentions(line, who) or (f.get("earlier") is True and who in names))
                or not _grounded(fact, f"{line.text} {f.get('answered', '')}")  # with the question it answers
            ):
                dropped += marker not in seen
                continue
            seen.add(marker)
            type_, key = typed(fact)
            kind = FactKind.of_type(type_)
            now = datetime.fromtimestamp(line.t_start, timezone.utc)
            past = past_tense(fact)
            window = plan_window(fact, now, past) or (  # a model's rewording may leave its line's time out
                (plan_window(line.text, now, past) if "earlier" not in f else sentence_time(fact, line, past))
                if kind.one_off
                else None
            )
            span = window[0] if window else None
            if span and kind.takes_time:  # the time it names says which: still ahead or past
                type_ = FactKind.EVENT if span.end <= now or (span.start <= now and past) else FactKind.PLAN
            start = span.start.timestamp() if span else None
            when = day_words(span.start, span.end) if span else None
            items.append(Item(who, type_, key, fact, line, None, start, when))
    return items, dropped


@dataclass
class Extracted:
    items: list[Item]
    summary: str
    dropped: int
    prompt_tokens: int
    completion_tokens: int


def _listener(lines: list[Line], i: int) -> str | None:
    """Whom line `i` is said to: the speaker of the nearest line before it by someone else (else after it)."""
    for line in [*reversed(lines[:i]), *lines[i + 1 :]]:
        if line.person and line.person != lines[i].person:
            return line.person
    return None


def _asked(lines: list[Line], i: int) -> str:
    """The line just before line `i`, when someone else said it (to its speaker); else nothing."""
    return lines[i - 1].text if i > 0 and lines[i - 1].person not in (None, lines[i].person) else ""


_PRONOUN = re.compile(r"\b(?:she|her|he|him)\b", re.IGNORECASE)


def said(lines: list[Line], names: list[str]) -> dict:
    """The statements extractor: the atomic facts of what each line by a known speaker states (`statement`,
    then `atoms`), as the LLM's reply would give them, so the same checks, types, dates and relations apply."""
    entries = []
    mentioned: list[list[str]] = []  # the names each line said, for "she" in the next two
    speakers = {line.person for line in lines}
    for number, line in enumerate(lines, 1):
        asked = _asked(lines, number - 1)
        recent = [n for said_then in mentioned[-2:] for n in said_then]
        # "Are you still doing that half marathon?" - "The eighteenth of October.": what the reply affirms
        affirmed, used = answered(asked, line.text, lines[number - 2].person) if asked and line.person else ("", "")
        facts = [
            {"who": who, "fact": what, "earlier": False, "answered": asked}
            for who, what in (atoms(affirmed, line.person, names, recent) if affirmed else [])
        ]
        fact = statement(line.text.replace(used, "", 1) if used else line.text)  # its time said once
        if line.person and fact and states_something(fact):
            facts += [
                {"who": who, "fact": what, "earlier": not _mentions(line, who)}  # "she", named a line before
                for who, what in atoms(fact, line.person, names, recent, _listener(lines, number - 1), asked)
            ]
        if facts:
            entries.append({"line": number, "facts": facts})
        # who the line spoke of, by name or as "she" of one named before (so a third line's "she" is still Ruth:
        # "Ruth texted" - "Your sister?" - "She gets in Friday" - "Still on that boat?" - "Yeah, she's a biologist")
        resolved = [f["who"] for f in facts if f["earlier"] and f["who"] not in speakers]
        spoken_of = [n for n in [*named_in(line.text, names), *resolved] if n != line.person]
        if not spoken_of and _PRONOUN.search(line.text):  # "Is she still on that boat?": the one before, still
            spoken_of = list(dict.fromkeys(n for said_then in mentioned[-2:] for n in said_then))
        mentioned.append(spoken_of)
    return {"lines": entries}


def extract(
    llm: LLMWorker,
    lines: list[Line],
    known: set[str],
    refused: set[str],
    per_line: int,
    item_tokens: int,
    summary_tokens: int,
    extractor: str = "statements",
) -> Extracted:
    """Items and a summary of `lines` (one stretch of one session), as background work on the LLM: the items
    from what the lines state (`said`), or (`extractor` "llm") from the model's per-line reading."""
    names = names_in(lines, known)
    items: list[Item] = []
    dropped = prompt = completion = 0
    if extractor == "statements":
        items, dropped = check(said(lines, names), lines, names, refused)
    elif names and (numbers := [i for i, ln in enumerate(lines, 1) if states_something(ln.text)]):
        request = Request(
            messages(lines, TASK),
            max_tokens=len(numbers) * (LINE_TOKENS + per_line * item_tokens),
            schema=schema(numbers, names, per_line),
            cache_prefix=1,
        )
        try:
            reply = llm.complete(request, BACKGROUND)
            data = reply.data
        except LLMCutOff as e:  # its JSON is incomplete: the relations and the summary still come
            _LOGGER.warning("memory writing: %s; no facts from %d lines", e, len(lines))
            reply, data = None, {}
        items, dropped = check(data or {}, lines, names, refused)
        if reply is not None:
            prompt, completion = reply.usage.prompt_tokens - reply.usage.cached_tokens, reply.usage.completion_tokens
    speakers = list(dict.fromkeys(ln.person for ln in lines if ln.person))
    task = SUMMARY_TASK.format(names=", ".join(speakers) or "nobody known")
    if extractor == "statements" and items:  # code writes it from the facts: exact, and no model time
        return Extracted(items, digest(lines, items), dropped, prompt, completion)
    summary = llm.complete(Request(messages(lines, task), max_tokens=summary_tokens, cache_prefix=1), BACKGROUND)
    return Extracted(
        items,
        naming(whole_sentences(summary.text), speakers),
        dropped,
        prompt + summary.usage.prompt_tokens - summary.usage.cached_tokens,
        completion + summary.usage.completion_tokens,
    )
