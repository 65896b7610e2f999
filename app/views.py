"""The JSON shapes of what the memory holds, shared by the CLI's `--json` and the service's routes: one
function per answer, each taking an open memory and returning plain data (times as ISO 8601 in local time
with their offset). The recall and store modules are imported in the functions that use them: the CLI imports
this module, and `python -m app --help` does without them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.config import Config
from app.errors import NotFoundError, StoreError

MAX_ID = 2**63 - 1  # SQLite's largest integer


def number(text: str | None) -> int | None:
    """A non-negative integer written in ASCII digits that SQLite can hold ("²" is a digit to str.isdigit, and
    2**64 is not an id): that integer, else None."""
    if not text or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value <= MAX_ID else None


def when(epoch_s: float, timespec: str = "milliseconds") -> str:
    """ISO 8601 in local time with its UTC offset."""
    return dt.datetime.fromtimestamp(epoch_s).astimezone().isoformat(timespec=timespec)


def person_id(memory, name: str) -> int:
    pid = memory.people.person_id(name)
    if pid is None:
        raise NotFoundError(f"nobody called {name!r}", "people")
    return pid


def people(memory) -> dict:
    return {"people": [{"id": p.id, "name": p.name, "utterances": p.utterances} for p in memory.people.all()]}


def person(memory, name: str) -> dict:
    """Everything known about one person: profile, facts with history, relations, each with provenance."""
    pid = person_id(memory, name)
    return memory.derived.profile(pid) | {
        "facts": memory.derived.facts_listed(pid, history=True),
        "relations": memory.derived.relations_listed(pid),
    }


def facts(memory, name: str | None = None, history: bool = False) -> dict:
    pid = person_id(memory, name) if name else None
    return {
        "facts": memory.derived.facts_listed(pid, history=history),
        "relations": memory.derived.relations_listed(pid),
    }


def sessions(memory) -> dict:
    return {
        "sessions": [{**s, "t_start": when(s["t_start"]), "t_end": when(s["t_end"])} for s in memory.turns.sessions()]
    }


def utterances(memory, session: int) -> dict:
    """One session's transcript: who said what, when."""
    rows = memory.writing.transcript(session)
    if not rows and session not in {s["id"] for s in memory.turns.sessions()}:
        raise NotFoundError(f"no session {session}", "sessions")
    return {
        "session": session,
        "utterances": [{"id": r.id, "person": r.person, "text": r.text, "t_start": when(r.t_start)} for r in rows],
    }


def ask(
    memory,
    embedder,
    cfg: Config,
    question: str,
    now: dt.datetime,
    top: int | None = None,
    person: str | None = None,
    with_context: bool = False,
):
    """What `ask` finds: {"query", "at", "time_filter", "results": [...]} (and "context"); also returns the
    evidence and the time window for the CLI's text rendering."""
    from app.ask.context import context, find
    from app.ask.recall import Retriever

    if person:
        person_id(memory, person)
    about = (person,) if person else ()
    found = find(Retriever(memory, embedder, cfg.recall), question, now, top, about)
    between = found.window.epoch() if found.window and found.filtered else None
    ctx = context(memory, embedder, cfg.recall, person, question, now) if with_context else None
    rows = [
        {
            "id": r.utterance_id,
            "text": r.text,
            "person": r.person,
            "t_start": when(r.t_start),
            "t_end": when(r.t_end),
            "session": r.session,
            "score": r.score,
        }
        for r in found.evidence
    ]
    out = {
        "query": question,
        "at": now.isoformat(),
        "time_filter": [when(t) for t in between] if between else None,
        "results": rows,
    }
    return out | ({"context": ctx.as_dict()} if ctx else {}), found


def context(memory, embedder, cfg: Config, question: str, now: dt.datetime, person: str | None = None) -> dict:
    from app.ask.context import context as build

    if person:
        person_id(memory, person)
    return build(memory, embedder, cfg.recall, person, question, now).as_dict()


def forget(
    memory,
    embedder,
    name: str | None = None,
    session: int | None = None,
    between: tuple[float, float] | None = None,
    anonymize: bool = False,
) -> dict:
    """Delete one person, session or time span and everything derived from it."""
    from app.store.forget import forget_between, forget_person, forget_session

    if name is not None:
        result = forget_person(memory, name, embedder, anonymize=anonymize)
    elif session is not None:
        result = forget_session(memory, session)
    elif between is not None:
        result = forget_between(memory, *between)
    else:
        raise StoreError("forget what? a person, a session or a time span")
    return {
        "deleted": result.deleted,
        "redacted": result.redacted,
        "anonymized": result.anonymized,
        "people": list(result.names),  # the forgotten and those who existed only through them
        "utterances": list(result.utterances),
        "sessions": list(result.sessions),
    }


def export(memory, out: Path, name: str | None = None) -> dict:
    from app.store.export import export as write

    return {"out": str(out), **write(memory, out, name)}
