"""What each page shows, read from the memory on one of the service's connections: plain functions taking an
open `Memory` and returning the template's data. They call the memory's API (`app/store/browse.py`,
`app/views.py`, recall); none writes."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from app import views
from app.ask.recall import Retriever
from app.config import Config
from app.consolidation.kinds import planned_span
from app.errors import NotFoundError
from app.facts import FactKind
from app.store import browse
from app.web import graph

DAYS_SHOWN = 30  # days listed on the timeline at a time
LINES_PER_PAGE = 200  # utterances of one day shown at a time
PERSON_LINES = 50  # a person's latest utterances listed (to split off)
RESULTS = 10  # search results


@dataclass(frozen=True)
class Where:
    """Where an utterance is on the timeline."""

    day: dt.date
    page: int


def timeline(memory, day: dt.date | None, page: int, before: dt.date | None) -> dict:
    """The days with conversations (a page of them) and one day's sessions with a page of their lines."""
    days = browse.days(memory, DAYS_SHOWN + 1, before)
    latest = browse.days(memory, 1)
    chosen = day or (days[0].day if days else None) or (latest[0].day if latest else None)
    sessions = browse.sessions_of_day(memory, chosen) if chosen else []
    total = sum(s.utterances for s in sessions)
    pages = max(1, -(-total // LINES_PER_PAGE))
    page = min(max(1, page), pages)
    lines = browse.lines(memory, [s.id for s in sessions], LINES_PER_PAGE, (page - 1) * LINES_PER_PAGE)
    by_session: dict[int, list] = {}
    for line in lines:
        by_session.setdefault(line.session_id, []).append(line)
    return {
        "days": days[:DAYS_SHOWN],
        "older": days[DAYS_SHOWN - 1].day if len(days) > DAYS_SHOWN else None,
        "day": chosen,
        "sessions": [s for s in sessions if s.id in by_session or not s.utterances],
        "lines": by_session,
        "page": page,
        "pages": pages,
        "live": chosen is None or (bool(latest) and chosen == latest[0].day and page == 1),
    }


def where(memory, utterance_id: int) -> Where:
    found = browse.utterance_day(memory, utterance_id)
    if found is None:
        raise NotFoundError(f"no utterance {utterance_id}: it was forgotten, or never was")
    day, _ = found
    ids = browse.line_ids(memory, [s.id for s in browse.sessions_of_day(memory, day)])
    return Where(day, ids.index(utterance_id) // LINES_PER_PAGE + 1)


def people(memory, cfg: Config) -> dict:
    return {"people": browse.people(memory), "consent_mode": cfg.privacy.consent}


PROFILE = tuple((k, k.heading) for k in FactKind if k.heading)  # the current facts as a profile reads them


def sections(facts: list[dict], now: float, said: dict[int, float]) -> list[tuple[str, list[dict]]]:
    """`facts` under the headings of `PROFILE` (a kind it does not name goes under "Other"), in that order; a
    plan whose day (or month: "in September") is over by `now` is marked `passed` — the rule by which memory
    writing closes it, its time words read from when it was first said (`said`: fact id -> epoch seconds) —
    and each fact has the words its date follows (`dated`)."""
    headings = dict(PROFILE)
    grouped: dict[str, list[dict]] = {}
    for f in facts:
        kind = FactKind.read(f["kind"])
        first = said.get(f["id"])
        span = planned_span(f["value"], first, f["valid_from"]) if kind is FactKind.PLAN and first else None
        passed = span is not None and span[1] <= now
        dated = (kind or FactKind.ATTRIBUTE).page_date(passed)  # a kind no member has: dated as an attribute
        grouped.setdefault(headings.get(f["kind"], "Other"), []).append({**f, "passed": passed, "dated": dated})
    order = [h for _, h in PROFILE] + ["Other"]
    return [(h, grouped[h]) for h in order if h in grouped]


def person(memory, person_id: int) -> dict:
    """One person: profile, current facts and their history, relations (drawn and listed), summaries, their
    latest words, and who else there is (to merge with)."""
    row = browse.person(memory, person_id)
    if row is None:
        raise NotFoundError(f"nobody with id {person_id}: forgotten, merged, or never known")
    known = views.person(memory, row.name)
    facts = known["facts"]
    current = [f for f in facts if f["valid_to"] is None]
    summaries = known["summaries"]
    sources = browse.summary_sources(memory, [m["id"] for m in summaries])
    nodes, edges = graph.layout(row.name, known["relations"], memory.people.person_ids())
    return {
        "person": row,
        "profile": known,
        "facts": current,
        # when each plan was first said: its time words are read from then, as memory writing reads them
        "sections": sections(current, time.time(), {p.id: p.said for p in memory.writing.plans_held(person_id)}),
        "history": [f for f in facts if f["valid_to"] is not None],
        "relations": known["relations"],
        "ids": memory.people.person_ids(),
        "nodes": nodes,
        "edges": edges,
        "graph": graph,
        "summaries": [{**m, "sources": sources.get(m["id"], [])} for m in summaries],
        "lines": browse.person_lines(memory, person_id, PERSON_LINES),
        "others": [p for p in browse.people(memory) if p.id != person_id],
    }


def forget_preview(memory, person_id: int) -> dict:
    row = browse.person(memory, person_id)
    if row is None:
        raise NotFoundError(f"nobody with id {person_id}: forgotten, merged, or never known")
    return {"person": row, "counts": browse.forget_preview(memory, person_id)}


def search(memory, embedder, cfg: Config, query: str, between: tuple[float, float] | None, now: dt.datetime) -> dict:
    """Hybrid recall's results for `query`: within `between` (epoch seconds) when given, else as `ask` finds
    them (a time expression in the question filters by itself)."""
    if between is not None:
        evidence = Retriever(memory, embedder, cfg.recall).search(query, RESULTS, between=between)
        window = between
    else:
        _, found = views.ask(memory, embedder, cfg, query, now, RESULTS)
        evidence = found.evidence
        window = found.window.epoch() if found.window and found.filtered else None
    return {"results": evidence, "time_filter": window, "ids": memory.people.person_ids()}


def settings(memory, cfg: Config) -> dict:
    stats = memory.stats()
    return {
        "stats": stats,
        "media": browse.storage(memory),
        "retention": cfg.retention,
        "audio_h": cfg.retention.keep_s("audio") / 3600,
        "frame_h": cfg.retention.keep_s("frame") / 3600,
        "consent_mode": cfg.privacy.consent,
        "db_path": str(memory.path),
    }
