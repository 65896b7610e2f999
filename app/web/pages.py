"""The page's GET routes: timeline, people, a person, search and ask, settings, plus what they link to —
the raw audio (decrypted in memory, streamed, never written in plaintext), face thumbnails, the export, and the
live events. Every route here is behind the session gate (`app/web/sessions.py`)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from app import views
from app.ask.answer import Answerer
from app.errors import AppError, LLMError, NotFoundError
from app.store import browse
from app.store.export import document
from app.streaming import Ended, from_thread
from app.web import faces, reads
from app.web.render import SECURITY_HEADERS, TEMPLATES, show

MEDIA_TYPES = {"audio": "audio/wav", "frame": "image/jpeg"}
THUMBS_KEPT = 64  # face thumbnails kept in RAM (by the vault file they come from; forgetting clears them)
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


class WebError(Exception):
    """A page that cannot be shown: its status and one line for the user."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def read(service, fn: Callable, *args) -> Any:
    """`fn(memory, *args)` on one of the service's connections; the memory's errors become pages."""
    try:
        return await service.host(fn, *args)
    except NotFoundError as e:
        raise WebError(404, str(e)) from None
    except AppError as e:
        raise WebError(400, str(e)) from None


def parse_day(text: str | None, what: str) -> dt.date | None:
    if not text:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise WebError(400, f"{what}: {text!r} is not a date like 2026-05-14") from None


def ranged(data: bytes, media_type: str, header: str | None) -> Response:
    """`data` whole, or the byte range asked for (the audio element seeks with ranges)."""
    headers = {"Accept-Ranges": "bytes", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
    match = _RANGE.fullmatch(header.strip()) if header else None
    if match is None or not (match[1] or match[2]):
        return Response(data, media_type=media_type, headers=headers)
    size = len(data)
    if match[1]:
        start, end = int(match[1]), min(size - 1, int(match[2])) if match[2] else size - 1
    else:
        start, end = max(0, size - int(match[2])), size - 1
    if start >= size or start > end:
        return Response(status_code=416, headers=headers | {"Content-Range": f"bytes */{size}"})
    headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    return Response(data[start : end + 1], status_code=206, media_type=media_type, headers=headers)


def router(service) -> APIRouter:
    r = APIRouter()
    thumbs = service.thumbs

    @r.get("/")
    async def timeline(request: Request, day: str | None = None, page: int = 1, before: str | None = None):
        data = await read(service, reads.timeline, parse_day(day, "day"), page, parse_day(before, "before"))
        return show(request, "timeline.html", **data)

    @r.get("/u/{utterance_id}")
    async def utterance(utterance_id: int):
        found = await read(service, reads.where, utterance_id)
        return RedirectResponse(f"/?day={found.day}&page={found.page}#u{utterance_id}", 303)

    @r.get("/people")
    async def people(request: Request):
        return show(request, "people.html", **await read(service, reads.people, service.cfg))

    @r.get("/people/{person_id}")
    async def person(request: Request, person_id: int):
        return show(request, "person.html", **await read(service, reads.person, person_id))

    @r.get("/people/{person_id}/forget")
    async def forget_confirm(request: Request, person_id: int):
        return show(request, "forget.html", **await read(service, reads.forget_preview, person_id))

    @r.get("/people/{person_id}/face.jpg")
    async def face(person_id: int):
        def frame(memory) -> tuple[str, bytes] | None:
            row = browse.person(memory, person_id)
            media = browse.media_file(memory, row.face_frame) if row and row.face_frame else None
            if media is None:
                return None
            return media.name, (thumbs.get(media.name) or memory.vault.get(media.name))

        found = await read(service, frame)
        if found is None:
            raise WebError(404, "no face frame of this person is kept")
        name, data = found
        thumb = thumbs.get(name)
        if thumb is None:
            thumb = await asyncio.to_thread(faces.thumbnail, data)
            if thumb is None:
                raise WebError(404, "the kept frame does not decode")
            thumbs[name] = thumb
            while len(thumbs) > THUMBS_KEPT:
                thumbs.popitem(last=False)
        return Response(thumb, media_type="image/jpeg", headers={"Cache-Control": "private, no-store"})

    @r.get("/media/{media_id}")
    async def media(request: Request, media_id: int):
        def load(memory) -> tuple[str, bytes] | None:
            row = browse.media_file(memory, media_id)
            return None if row is None else (row.kind, memory.vault.get(row.name))

        found = await read(service, load)
        if found is None:
            raise WebError(404, "that recording is no longer kept (retention rolled it off, or it was forgotten)")
        kind, data = found
        return ranged(data, MEDIA_TYPES.get(kind, "application/octet-stream"), request.headers.get("range"))

    @r.get("/search")
    async def search(request: Request, q: str = "", answer: str = "", start: str = "", end: str = ""):
        q = q.strip()[:2000]
        between = _between(parse_day(start, "from"), parse_day(end, "to"))
        context: dict = {"q": q, "start": start, "end": end, "answer": answer, "results": None}
        if q:
            now = dt.datetime.now().astimezone()
            context |= await read(service, reads.search, service.embedder, service.cfg, q, between, now)
            if answer == "now":  # without script: the answer rendered in the page (the model takes seconds)
                context["answered"] = await _answer(service, q)
        return show(request, "search.html", **context)

    @r.get("/search/answer")
    async def answer_stream(q: str):
        return StreamingResponse(
            _answer_events(service, q.strip()[:2000]), media_type="text/event-stream", headers=SECURITY_HEADERS
        )

    @r.get("/settings")
    async def settings(request: Request):
        return show(request, "settings.html", **await read(service, reads.settings, service.cfg))

    @r.get("/export.json")
    async def export(person: str | None = None):
        doc = (await read(service, lambda memory: document(memory, person)))[0]
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M")
        name = f"lifemem-{'export' if person is None else 'person'}-{stamp}.json"
        return JSONResponse(
            doc, headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
        )

    @r.get("/live")
    async def live(request: Request):
        last = views.number(request.headers.get("last-event-id"))
        return service.events.sse(request, last)

    return r


def _between(start: dt.date | None, end: dt.date | None) -> tuple[float, float] | None:
    """Epoch seconds from the start of `start` to the end of `end` (either may be open)."""
    if start is None and end is None:
        return None
    t0 = browse.day_span(start)[0] if start else 0.0
    t1 = browse.day_span(end)[1] if end else dt.datetime.now().timestamp() + 86400
    if t1 <= t0:
        raise WebError(400, "the 'to' date comes before the 'from' date")
    return t0, t1


async def _answer(service, question: str, on_text: Callable[[str], None] | None = None) -> dict:
    """The language model's grounded answer as the answer fragment's data ({answer, known, citations} or
    {error})."""
    try:
        llm = await asyncio.to_thread(service.llm)
        now = dt.datetime.now().astimezone()

        def run(memory):
            return Answerer(llm, memory, service.embedder, service.cfg)(question, now, None, on_text)

        result = await service.answers(run)
    except LLMError as e:
        return {"error": f"the language model cannot answer: {e}"}
    return {"answer": result.answer, "known": result.known, "citations": result.citations}


async def _answer_events(service, question: str) -> AsyncIterator[str]:
    """Server-Sent Events: `token` pieces of the answer as the model writes them, then `result` (or `failed`)
    with the answer fragment's HTML."""
    if not question:
        yield _event("failed", {"html": "<p>Ask something first.</p>"})
        return
    async for item in from_thread(lambda on_text: _answer(service, question, on_text)):
        if not isinstance(item, Ended):
            yield _event("token", {"text": item})
            continue
        done = item.result if item.error is None else {"error": item.error}
        html = TEMPLATES.get_template("answer.html").render(answered=done)
        yield _event("failed" if "error" in done else "result", {"html": html})


def _event(kind: str, data: dict) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
