"""The memory context for a dialog model (EgoMem's two levels, OmniMem's pyramid under a token budget).

Level 1 is the profile of the person there — who they are, what is known about them (facts, relations,
summaries of past conversations), their latest words — rendered within 512 tokens and re-rendered only
when the identity changes (`DialogContext.person_changed`). Level 2 is what the question retrieves, within
256 tokens: facts matching its words or about the people it names, the relations its relation words walk
("my colleagues") with the facts of the people they reach, and summaries covering the retrieved
turns (the pyramid's top), then the turns themselves with who and when, each cited; raw media still within
retention is cited as the pyramid's base.
Budgets are counted in the text embedder's word pieces and are never exceeded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from app.ask.recall import Evidence, Retriever
from app.ask.wording import times_named
from app.config import RecallConfig
from app.facts import FactKind
from app.store.memory import Memory
from app.text.embedder import TextEmbedder
from app.text.timeexpr import TimeWindow, time_window
from app.text.words import keywords, singular

PROFILE_TOKENS = 512
RETRIEVED_TOKENS = 256
TOLD_WITHIN_S = 14 * 86400  # what happened in a window is told up to two weeks after it ("last night", "last week")
FACTS_FOUND, FACTS_SHOWN = 18, 5  # facts a question retrieves (MOOM's 2k, k = 9) and shows at most


@dataclass(frozen=True)
class Citation:
    kind: str  # utterance | fact | relation | summary | media
    id: int
    person: str | None = None
    t_start: float | None = None


@dataclass(frozen=True)
class Context:
    person: str | None
    profile: str  # Level 1
    retrieved: str  # Level 2
    citations: list[Citation] = field(default_factory=list)
    profile_tokens: int = 0
    retrieved_tokens: int = 0
    time_filter: tuple[float, float] | None = None

    def as_dict(self) -> dict:
        return {
            "person": self.person,
            "profile": self.profile,
            "retrieved": self.retrieved,
            "profile_tokens": self.profile_tokens,
            "retrieved_tokens": self.retrieved_tokens,
            "time_filter": [_iso(t) for t in self.time_filter] if self.time_filter else None,
            "citations": [c.__dict__ for c in self.citations],
        }


def _iso(t: float | None) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M") if t is not None else "?"


class _Budget:
    """Lines added while they fit in `limit` tokens."""

    def __init__(self, count, limit: int) -> None:
        self.count, self.limit, self.used, self.lines = count, limit, 0, []

    def add(self, line: str, upto: int | None = None) -> bool:
        """Add `line` if the text stays within the limit (and within `upto` tokens in all, when given)."""
        cost = self.count(line + "\n")
        if self.used + cost > min(self.limit, self.limit if upto is None else upto):
            return False
        self.lines.append(line)
        self.used += cost
        return True

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def render_profile(
    memory: Memory, person_id: int, count, limit: int = PROFILE_TOKENS
) -> tuple[str, list[Citation], int]:
    """Level 1: the person's profile within `limit` tokens, most useful lines first."""
    p = memory.derived.profile(person_id)
    budget, cited = _Budget(count, limit), []
    budget.add(
        f"You are talking with {p['name']}: {p['utterances']} things said in {p['sessions']} conversations, "
        f"first {_iso(p['first_seen'])}, last {_iso(p['last_seen'])}."
    )
    for f in p["facts"]:
        label = (FactKind.read(f["kind"]) or FactKind.ATTRIBUTE).context_date  # a kind no member has: "from"
        since = f" ({label} {_iso(f['valid_from'])[:10]})" if f["valid_from"] else ""
        if budget.add(f"- {f['kind']}, {f['key']}: {f['value']}{since} [fact {f['id']}]"):
            cited.append(Citation("fact", f["id"], p["name"]))
    for r in p["relations"]:
        if budget.add(f"- {r['subject']} is {r['relation']} of {r['object']} [relation {r['id']}]"):
            cited.append(Citation("relation", r["id"], p["name"]))
    for m in p["summaries"]:
        if budget.add(f"- {_iso(m['t_start'])}: {m['text']} [summary {m['id']}]"):
            cited.append(Citation("summary", m["id"], p["name"], m["t_start"]))
    for u in p["latest"]:
        if budget.add(f"- {_iso(u['t_start'])} {p['name']} said: {u['text']} [{u['id']}]"):
            cited.append(Citation("utterance", u["id"], p["name"], u["t_start"]))
    return budget.text, cited, budget.used


def _level_one(memory: Memory, person: str | None, count) -> tuple[str, list[Citation], int]:
    """The profile of `person`, or nothing when nobody known is there."""
    pid = memory.people.person_id(person) if person else None
    return render_profile(memory, pid, count) if pid is not None else ("", [], 0)


@dataclass(frozen=True)
class Found:
    evidence: list[Evidence]
    window: TimeWindow | None  # the time expression the question named, if any
    filtered: bool  # whether the evidence is from within it (False: nothing was, so the filter was dropped)


def find(
    retriever: Retriever, question: str, now: datetime, top_k: int | None = None, about: Sequence[str] = ()
) -> Found:
    """Search as of `now`: a time expression becomes an event-time filter (and leaves the query): what was said
    within it, and what was said up to two weeks after it of a time within it ("we made dinner last night", said
    the day after the day asked about: `_told_of`). When nothing was said within it, the search runs without
    it, the lines told of it first, rather than answer with nothing. On LoCoMo's 1,535 questions of categories
    1-4 it put the annotated line among the best two 1,020 -> 1,025 times (two others one place lower; README,
    Answers)."""
    parsed = time_window(question, now)
    if parsed is None:
        return Found(retriever.search(question, top_k, about=about), None, False)
    window, rest = parsed
    start, end = window.epoch()
    told = []  # what was said up to two weeks after the window of a time within it ("last night")
    if retriever.memory.search.any_between(end, end + TOLD_WITHIN_S):
        after = retriever.search(rest, top_k, between=(end, end + TOLD_WITHIN_S), about=about)
        told = [e for e in after if e.t_start > end and _told_of(e, start, end)]
    k = top_k or retriever.cfg.top_k
    # nothing said then: do not search for nothing
    if retriever.memory.search.any_between(start, end) and (
        evidence := retriever.search(rest, top_k, between=(start, end), about=about)
    ):
        ranked = sorted([*evidence, *told], key=lambda e: (-e.score, e.utterance_id))
        return Found(list({e.utterance_id: e for e in ranked}.values())[:k], window, True)
    anywhen = retriever.search(question, top_k, about=about)  # nothing said then: the lines told of it first
    first = {e.utterance_id for e in told}
    return Found([*told, *(e for e in anywhen if e.utterance_id not in first)][:k], window, False)


def _told_of(e: Evidence, start: float, end: float) -> bool:
    """Whether a line said after a window tells of a time within it ("we made dinner last night", said the day
    after the day asked about): a time it names lies in the window and is no longer than it (or a week)."""
    longest = max(end - start, 7 * 86400)
    spans = (w.epoch() for w in times_named(e.text, e.t_start))
    return any(to - since <= longest and since < end and to > start for since, to in spans)


def evidence_line(e: Evidence, stamp: Callable[[float | None], str] = _iso) -> str:
    """One retrieved turn as the dialog model reads it: when, who, what, and its id to cite."""
    return f"{stamp(e.t_start)} {e.person or 'someone'}: {e.text} [{e.utterance_id}]"


def retrieve(
    memory: Memory,
    embedder: TextEmbedder,
    cfg: RecallConfig,
    query: str,
    now: datetime,
    person: str | None = None,
    limit: int = RETRIEVED_TOKENS,
    stamp: Callable[[float | None], str] = _iso,
    media: bool = True,
    recalled: Callable[[list[int]], None] | None = None,
) -> tuple[str, list[Citation], int, tuple[float, float] | None]:
    """Level 2: what `query` finds, as of `now` (time expressions become a filter), within `limit` tokens;
    times written by `stamp`, raw media cited when `media`; `recalled` is told the facts found, best first
    (forgetting reinforces the top ones and inhibits the next)."""
    about = (person,) if person else ()  # the person there is who "you" means: their words are boosted
    retriever = Retriever(memory, embedder, cfg)
    found = find(retriever, query, now, max(cfg.top_k, 10), about)
    asked = memory.turns.addressed([e.utterance_id for e in found.evidence])  # requests to the companion
    evidence = [e for e in found.evidence if e.utterance_id not in asked]
    between = found.window.epoch() if found.window and found.filtered else None
    budget, cited = _Budget(embedder.count_tokens, limit), []
    written = limit // 2  # facts, relations and summaries leave at least half to the turns (what was said)
    named = retriever.people_named(query)[0]
    words = {singular(w) for w in keywords(query)}
    walked = [  # the edges the question's relation words walk ("my colleagues", "John's wife")
        r for r in memory.derived.relations_listed() if r["valid_to"] is None and singular(r["relation"]) in words
    ]
    role: dict[str, str] = {}  # a person reached that way -> "a colleague (of John)"
    for r in walked:
        role.setdefault(r["subject"], f"a {r['relation']} (of {r['object']})")
    facts = memory.derived.find_facts(keywords(query), FACTS_FOUND, [*named, *role])
    if recalled is not None:
        recalled([f["id"] for f in facts])
    for f in facts[:FACTS_SHOWN]:  # the join is made here: the 0.5B model reads "Emily, a colleague (of John), —"
        who = f["person"] or "someone"
        who = f"{who}, {role[who]}," if who in role else who
        since = f" (from {stamp(f['valid_from'])})" if f["valid_from"] else ""
        if budget.add(f"{who} — {f['key']}: {f['value']}{since} [fact {f['id']}]", written):
            cited.append(Citation("fact", f["id"], f["person"]))
    for r in walked:
        if budget.add(f"{r['subject']} is {r['object']}'s {r['relation']} [relation {r['id']}]", written):
            cited.append(Citation("relation", r["id"], r["subject"]))
    for s in memory.derived.summaries_citing([e.utterance_id for e in evidence]):
        if budget.add(f"{stamp(s['t_start'])}-{stamp(s['t_end'])} summary: {s['text']} [summary {s['id']}]", written):
            cited.append(Citation("summary", s["id"], None, s["t_start"]))
    clips = memory.media.media_of([e.utterance_id for e in evidence]) if media else {}
    for e in evidence:
        clip = f" (audio {clips[e.utterance_id]})" if e.utterance_id in clips else ""
        if not budget.add(evidence_line(e, stamp) + clip):
            break
        cited.append(Citation("utterance", e.utterance_id, e.person, e.t_start))
        if clip:
            cited.append(Citation("media", clips[e.utterance_id], e.person, e.t_start))
    return budget.text, cited, budget.used, between


def context(
    memory: Memory, embedder: TextEmbedder, cfg: RecallConfig, person: str | None, query: str, now: datetime
) -> Context:
    """Both levels for `person` (None: nobody known is there) and `query`, as of `now`."""
    profile, cited, used = _level_one(memory, person, embedder.count_tokens)
    text, found, spent, between = retrieve(memory, embedder, cfg, query, now, person)
    return Context(person, profile, text, cited + found, used, spent, between)


class DialogContext:
    """Keeps Level 1 for the person there, re-rendered only when the identity changes."""

    def __init__(self, memory: Memory, embedder: TextEmbedder, cfg: RecallConfig) -> None:
        self.memory, self.embedder, self.cfg = memory, embedder, cfg
        self.person: str | None = None
        self.profile: tuple[str, list[Citation], int] = ("", [], 0)
        self.renders = 0

    def person_changed(self, person: str | None) -> None:
        if person == self.person:
            return
        self.person = person
        self.profile = _level_one(self.memory, person, self.embedder.count_tokens)
        self.renders += 1

    def __call__(self, query: str, now: datetime) -> Context:
        text, found, spent, between = retrieve(self.memory, self.embedder, self.cfg, query, now, self.person)
        profile, cited, used = self.profile
        return Context(self.person, profile, text, cited + found, used, spent, between)
