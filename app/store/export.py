"""`export`: a person's or everyone's memory as readable JSON + Markdown, with raw media still kept.

The export is plaintext by design: it is the user's copy of their data, written where they ask.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from app.errors import NotFoundError
from app.store.memory import Memory

_EXT = {"audio": ".wav", "frame": ".jpg"}


def _iso(t: float | None) -> str | None:
    return None if t is None else dt.datetime.fromtimestamp(t).astimezone().isoformat(timespec="milliseconds")


def _scope(memory: Memory, person: str | None) -> tuple[str, tuple, int | None]:
    if person is None:
        return "1", (), None
    pid = memory.people.person_id(person)
    if pid is None:
        raise NotFoundError(f"no person named {person!r}", "people")
    return "person_id = ?", (pid,), pid


def document(memory: Memory, person: str | None = None) -> tuple[dict, str, tuple]:
    """The export's JSON document without its media files (what the service returns), and the scope's SQL."""
    where, args, pid = _scope(memory, person)
    names = {p["id"]: p["name"] for p in memory.rows("people")}
    utterances = memory.rows("utterances", where, args)
    doc = {
        "exported_at": _iso(dt.datetime.now().timestamp()),
        "scope": person or "everyone",
        "people": memory.rows("people", "id = ?", (pid,)) if pid else memory.rows("people"),
        "sessions": memory.rows("sessions", "id IN (SELECT session_id FROM utterances WHERE " + where + ")", args),
        "utterances": [
            {**u, "person": names.get(u["person_id"]), "start": _iso(u["t_start"]), "end": _iso(u["t_end"])}
            for u in utterances
        ],
        "facts": _with_sources(memory, "facts", "fact_sources", "fact_id", where, args),
        "relations": _with_sources(
            memory,
            "relations",
            "relation_sources",
            "relation_id",
            "subject_id = ? OR object_id = ?" if pid else "1",
            (pid, pid) if pid else (),
        ),
        "summaries": [] if pid else memory.rows("summaries"),
        "media": [],
    }
    return doc, where, args


def export(memory: Memory, out: Path, person: str | None = None) -> dict[str, int]:
    """Write memory.json, transcript.md and media/ under `out`; returns how many of each were written. The
    export is plaintext: its folders are the owner's alone (0700), its files too (0600)."""
    doc, where, args = document(memory, person)
    _private_dir(out)
    media_dir = out / "media"
    for m in memory.media.rows(where, args):
        _private_dir(media_dir)
        name = f"{m.id}-{m.kind}{_EXT.get(m.kind, '.bin')}"
        _write_private(media_dir / name, memory.vault.get(m.path))
        doc["media"].append(
            {
                "id": m.id,
                "kind": m.kind,
                "file": f"media/{name}",
                "start": _iso(m.t_start),
                "end": _iso(m.t_end),
                "expires": _iso(m.expires_at),
                "utterance_id": m.utterance_id,
            }
        )
    _write(out / "memory.json", json.dumps(doc, indent=1, ensure_ascii=False))
    _write(out / "transcript.md", _markdown(doc))
    return {k: len(doc[k]) for k in ("people", "sessions", "utterances", "facts", "relations", "summaries", "media")}


def _with_sources(memory: Memory, table: str, sources: str, column: str, where: str, args: tuple) -> list[dict]:
    rows = memory.rows(table, where, args)
    for row in rows:
        cited = memory.con.execute(f"SELECT utterance_id FROM {sources} WHERE {column} = ?", (row["id"],))
        row["source_utterances"] = [r[0] for r in cited]
    return rows


def _markdown(doc: dict) -> str:
    lines = [f"# Memory export ({doc['scope']}), {doc['exported_at']}", ""]
    by_session: dict[int, list[dict]] = {}
    for u in doc["utterances"]:
        by_session.setdefault(u["session_id"], []).append(u)
    for session in doc["sessions"]:
        lines += [f"## Session {session['id']} — {_iso(session['t_start'])} ({session['source']})", ""]
        lines += [
            f"- {u['start'][11:19]} **{u['person'] or 'someone'}**: {u['text']}"
            for u in by_session.get(session["id"], [])
        ]
        lines.append("")
    if doc["facts"]:
        lines += ["## Facts", ""] + [f"- {f['key']}: {f['value']}" for f in doc["facts"]] + [""]
    return "\n".join(lines)


def _private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)  # a folder that existed keeps its old mode otherwise


def _write_private(path: Path, data: bytes) -> None:
    """`data` into `path` through a temporary file only its owner can read, then renamed over it."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.chmod(tmp, 0o600)  # O_CREAT leaves an existing file's mode as it was
    os.replace(tmp, path)


def _write(path: Path, text: str) -> None:
    _write_private(path, text.encode("utf-8"))
