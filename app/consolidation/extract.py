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

from app.errors import LLMCutOff
from app.llm import BACKGROUND, LLMWorker, Request
from app.recall import keywords
from app.store.writing import Line
from app.timeexpr import plan_window, spoken_time

_LOGGER = logging.getLogger(__name__)
LINE_TOKENS = 12  # what one line's entry costs besides its facts
SINGLE = frozenset({"name", "age", "job", "home"})  # one value at a time: a new one supersedes (MOOM's replace)
FAMILY = (
    "wife husband partner girlfriend boyfriend fiance fiancee mother mom father dad son daughter brother sister "
    "cousin aunt uncle grandmother grandfather grandma grandpa niece nephew kid child parent sibling".split()
)
SOCIAL = "friend colleague coworker boss neighbor neighbour roommate classmate teacher student mentor doctor".split()
RELATION_WORDS = "|".join(FAMILY + SOCIAL)
_ADJ = r"(?i:(?:new|old|best|little|older|younger|big|good|dear)\s+)?"
_MENTION = re.compile(rf"\b(?i:my|our|his|her|their)\s+{_ADJ}(?i:{RELATION_WORDS})s?,?\s+([A-Z][a-z]+)\b")
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
SUMMARY_TASK = "Summarize this conversation in one or two sentences: who talked about what."
_LIKES = re.compile(r"\b(love[sd]?|like[sd]?|enjoy(s|ed)?|favou?rite|fan of|into|passionate)\b", re.IGNORECASE)
_DISLIKES = re.compile(r"\b(hate[sd]?|dislike[sd]?|can't stand|cannot stand|don't like|doesn't like|not a fan)\b", re.I)
_PLAN = re.compile(r"\b(plan(s|ning)?|going to|gonna|will|next|tomorrow|soon|hope to|want to|thinking about)\b", re.I)
_EVENT = re.compile(r"\b(yesterday|last|ago|went|visited|bought|moved|started|finished|met|got|took|did|had)\b", re.I)
TOPICS = (  # key -> words that mark it, first match wins
    ("health", r"allerg|sick|ill\b|illness|diagnos|injur|pain|doctor's|hospitali[sz]ed|diet|vegetarian|vegan"),
    ("job", r"\bwork|\bjob\b|teach|nurse|engineer|career|office|company|boss|colleague|employ|profession|retire"),
    ("home", r"\blive[sd]?\b|living in|moved|home|house|apartment|grew up|from [A-Z]"),
    ("family", r"wife|husband|son\b|daughter|kids?\b|children|mother|father|mom\b|dad\b|brother|sister|family|baby"),
    ("education", r"school|college|universit|degree|study|studies|studying|class\b|course"),
    ("pet", r"\bdog|\bcat\b|puppy|kitten|pet\b"),
    ("food", r"food|peanut|eat|cook|pasta|pizza|dinner|lunch|breakfast|coffee|tea\b|restaurant"),
    ("travel", r"trip|travel|vacation|holiday|flight|visit"),
    ("age", r"\byears? old\b|\bbirthday\b|\bage\b"),
    ("hobby", r"play|paint|music|guitar|piano|sport|tennis|game|read|hik|camp|run|swim|bik|bicycle|garden|art"),
    ("belief", r"believe|faith|religio|church|value"),
)


def typed(fact: str) -> tuple[str, str]:
    """(type, key) of a fact sentence, from the words it uses: the 0.5B model labelled every item of a session
    'attribute', so typing is done here, where it can be tested."""
    kind = (
        "dislikes"
        if _DISLIKES.search(fact)
        else "likes"
        if _LIKES.search(fact)
        else "plan"
        if _PLAN.search(fact)
        else "event"
        if _EVENT.search(fact)
        else "attribute"
    )
    key = next((k for k, pattern in TOPICS if re.search(pattern, fact, re.IGNORECASE)), "other")
    return kind, key


_REL = rf"(?:my|our)\s+{_ADJ}(?P<rel>{RELATION_WORDS})s?"
_RELATED = tuple(  # the ways a transcript says it, whatever punctuation the recognizer put in
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b{_REL},?\s+(?P<name>[a-z]+)\b",  # my colleague Emily, my colleague, Emily
        rf"\b(?P<name>[a-z]+)(?:,?\s+(?:is|was)|'s)\s+{_REL}\b",  # John is my brother, John's my brother
        rf"\b{_REL}\s+(?:is|was)\s+(?:called\s+)?(?P<name>[a-z]+)\b",  # my colleague is Emily
        rf"\b(?P<name>[a-z]+),\s+{_REL}(?=\s*(?:[,.!?]|$))",  # Emily, my colleague, works with me (last: see below)
    )
)


def relations_in(line: Line, names: list[str]) -> list[tuple[str, str]]:
    """(relation, other person) the speaker names: "my wife Sarah", "John is my brother", "Emily, my colleague",
    "my colleague is Emily" — the other being one of `names`, in any case (a recognizer that writes lower case
    still names people)."""
    canonical = {n.lower(): n for n in names}
    text = line.text.replace("co-worker", "coworker").replace("Co-worker", "Coworker")
    out: list[tuple[str, str]] = []
    for i, pattern in enumerate(_RELATED):
        for m in pattern.finditer(text):
            name = canonical.get(m.group("name").lower())
            relation = m.group("rel").lower()
            if name is None or name == line.person or (relation, name) in out:
                continue
            if i == len(_RELATED) - 1 and any(r == relation for r, _ in out):
                continue  # "Hi John, my wife, Sarah, ...": the wife is Sarah, not the one greeted
            out.append((relation, name))
    return out


_NOT_VERBS = frozenset(
    "am was were had did will would can could should might must may shall also really just still always never "
    "usually often recently finally already bought went got took made saw met found felt thought told said gave "
    "came ran left lost won wrote began spent kept heard knew put set cut sold built brought caught taught drove "
    "flew grew became fell ate drank sang swam rode chose".split()
)


def _says(verb: str) -> str:
    """The third-person form of a present-tense verb after I ("love" → "loves", "teach" → "teaches")."""
    low = verb.lower()
    if low in _NOT_VERBS or low.endswith(("ed", "s")) or not low.isalpha():
        return {"am": "is", "have": "has"}.get(low, verb)
    if low in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[low]
    if low.endswith(("ch", "sh", "x", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(fact: str, who: str) -> str:
    """A first-person sentence the model copied ("I love tennis") said about `who` ("Emily loves tennis");
    a self-introduction ("my name is Emily", "I am Emily") says nothing more and goes."""
    name = re.escape(who)
    text = re.sub(
        rf"(?i:\b(?:hi|hello|hey)\b,?\s*)?(?i:\bmy name is|\bI am|\bI'm|\bthis is)\s+(?i:{name})\b\W*(?:and\s+)?",
        "",
        fact,
    )
    text = re.sub(r"\b[Ii]'m\b", "I am", text)  # a recognizer may write "i"
    text = re.sub(r"\b[Ii]'ve\b", "I have", text)
    text = re.sub(r"\b[Ii] (\w+)", lambda m: f"{who} {_says(m.group(1))}", text)
    # "my": the name where it is not yet said ("Emily's daughter"), then "their" ("Emily loves their dog")
    text = re.sub(r"\b[Mm]y\b", lambda m: "their" if who in text[: m.start()] else f"{who}'s", text)
    text = re.sub(r"\b(me|myself)\b", who, text)
    text = text.strip(" ,.")
    return text[:1].upper() + text[1:] if text else text


@dataclass(frozen=True)
class Item:
    """One claim about a person, checked against its line."""

    who: str
    type: str
    key: str
    what: str
    line: Line
    other: str | None = None  # a relation's object: `who` is `what` (brother, wife) of `other`
    valid_from: float | None = None  # when it is or was true, from a date its line names

    @property
    def polarity(self) -> int:
        return {"likes": 1, "dislikes": -1}.get(self.type, 0)

    @property
    def kind(self) -> str:
        return {"likes": "preference", "dislikes": "preference"}.get(self.type, self.type)


def names_in(lines: list[Line], known: set[str]) -> list[str]:
    """Who items may be about: the speakers, known people named in the lines (in any case), and capitalized
    names that follow a relation word ("my wife Sarah")."""
    found = [ln.person for ln in lines if ln.person]
    text = "\n".join(ln.text for ln in lines)
    found += [n for n in known if re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE)]
    found += _MENTION.findall(text)
    return list(dict.fromkeys(found))


def render(lines: list[Line]) -> str:
    """The numbered transcript the model reads (numbers, not database ids: fewer tokens to copy)."""
    day = spoken_time(lines[0].t_start) if lines else "?"
    when = datetime.fromtimestamp(lines[0].t_start, timezone.utc).strftime("%A") if lines else ""
    body = "\n".join(f"[{i}] {ln.person or 'someone'}: {ln.text}" for i, ln in enumerate(lines, 1))
    return f"Conversation on {when} {day}:\n{body}"


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


_LEAD = re.compile(  # greeting words at a sentence's start, with the name they address ("Hey Mel! ", "Wow, ")
    r"^(?:(?:hi|hey|hello|thanks|thank you|wow|yeah|yep|yes|no|oh|ok|okay|sure|well|so|aw+|haha|lol|omg)\b"
    r"[\s,!.]*)+(?-i:[A-Z][a-z]+\b[,!.]+\s*)?",
    re.IGNORECASE,
)
_REACTION = re.compile(  # a sentence that only reacts ("That's really sweet", "Sounds great")
    r"^(?:(?:(?:that|it|this)(?:'s| is| was| sounds| looks)|sounds|looks|what an?|how)\s+(?:so |really |super |very )?"
    r"(?:great|cool|awesome|amazing|sweet|nice|wonderful|lovely|fun|good|beautiful|incredible|exciting|"
    r"interesting|inspiring|tough|hard|sad)\b"
    r"|(?:it's |it is )?(?:nice|good|great|glad|happy) to (?:meet|see|hear)"
    r"|(?:i'm |i am )?so (?:happy|proud) (?:for|of))",
    re.IGNORECASE,
)


def statement(text: str) -> str:
    """What a line states, without its questions, greetings and reactions ("Thanks, Caroline! I adopted a
    dog. Is this yours?" -> "I adopted a dog"): each remaining sentence has two content words or more."""
    kept = []
    for sentence in _SENTENCE.split(text.strip()):
        rest = _LEAD.sub("", sentence.strip()).strip()
        if rest and not rest.endswith("?") and not _REACTION.match(rest) and len(keywords(rest)) >= 2:
            kept.append(rest[:1].upper() + rest[1:])
    return " ".join(kept).strip(" ,.!")


def states_something(text: str) -> bool:
    """Whether a line can state a fact: three content words outside its questions. Greetings, thanks and
    questions get no entry to fill (an entry costs the model about a second even when it is empty)."""
    said = [s for s in _SENTENCE.split(text.strip()) if s and not s.endswith("?")]
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


def check(raw: dict, lines: list[Line], names: list[str], refused: set[str]) -> tuple[list[Item], int]:
    """The items whose line supports them (typed, dated, in the third person), the relations their speakers
    name, and how many the model gave that were dropped."""
    items: list[Item] = []
    dropped = 0
    seen: set[tuple[int, str, str]] = set()
    by_line = {e.get("line"): e for e in reversed(raw.get("lines", []))}  # the first entry of a number counts
    for line_no, line in enumerate(lines, 1):
        entry = by_line.get(line_no, {"facts": []})
        for relation, other in relations_in(line, names):
            if line.person and line.person not in refused and other not in refused:
                items.append(
                    Item(other, "relation", "family" if relation in FAMILY else "social", relation, line, line.person)
                )
        for f in entry.get("facts", []):
            who, fact = str(f.get("who", "")), statement(" ".join(str(f.get("fact", "")).split()))
            if fact and not states_something(fact):  # nothing but a greeting, thanks or a question
                fact = ""
            if line.person == who:
                fact = third_person(fact, who)
            who = _subject(fact, who, names, line)
            marker = (line.id, who, fact.lower())
            if (
                not fact
                or marker in seen
                or who in refused
                or not _mentions(line, who)
                or not _grounded(fact, line.text)
            ):
                dropped += marker not in seen
                continue
            seen.add(marker)
            kind, key = typed(fact)
            now = datetime.fromtimestamp(line.t_start, timezone.utc)
            window = plan_window(line.text, now) if kind in ("event", "plan") else None
            start = window[0].start.timestamp() if window else None
            items.append(Item(who, kind, key, fact, line, None, start))
    return items, dropped


@dataclass
class Extracted:
    items: list[Item]
    summary: str
    dropped: int
    prompt_tokens: int
    completion_tokens: int


def whole_sentences(text: str) -> str:
    """The reply up to its last full sentence (a summary cut off at max_tokens loses its broken end)."""
    text = " ".join(text.split())
    end = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    return text if text.endswith((".", "!", "?")) or end < 0 else text[: end + 1]


def said(lines: list[Line]) -> dict:
    """The statements extractor: what each line by a known speaker states (`statement`), as the LLM's reply
    would give it — one fact per line about its speaker — so the same checks, third person, types, dates and
    relations apply. On LoCoMo conv-26 this finds 0.73 of the annotated observations at precision 0.33, the
    0.5B model's per-line extraction 0.24 at 0.18 (README, Memory writing)."""
    entries = []
    for number, line in enumerate(lines, 1):
        fact = statement(line.text)
        if line.person and fact and states_something(fact):
            entries.append({"line": number, "facts": [{"who": line.person, "fact": fact}]})
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
        items, dropped = check(said(lines), lines, names, refused)
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
    summary = llm.complete(
        Request(messages(lines, SUMMARY_TASK), max_tokens=summary_tokens, cache_prefix=1), BACKGROUND
    )
    return Extracted(
        items,
        whole_sentences(summary.text),
        dropped,
        prompt + summary.usage.prompt_tokens - summary.usage.cached_tokens,
        completion + summary.usage.completion_tokens,
    )
