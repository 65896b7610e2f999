"""The service's routes (FastAPI; the OpenAPI description at /openapi.json, behind the token like the rest).

The memory is read and written on the service's own connections, each used by one thread at a time
(`MemoryHost`): a `Memory` is not thread-safe, and the recorder, when one runs in the same process, keeps its
own. The language model is loaded at the first request that needs it and shared: answers and chat
(`chat.py`) run at dialog priority, ahead of background memory writing. JSON shapes are the CLI's `--json`
ones (`app/views.py`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import queue
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from app import __version__, views
from app.ask.answer import Answerer
from app.config import Config
from app.errors import AppError, ConfigError, LLMError, MediaError, NotFoundError
from app.llm import SharedLLM
from app.service import chat, companion
from app.service.auth import Guard
from app.service.events import EventLog
from app.service.ingest import AUDIO, FRAME, IngestError
from app.store.export import document
from app.streaming import Ended, from_thread

_LOGGER = logging.getLogger(__name__)


class MemoryHost:
    """The service's connections to the memory, each used by one thread at a time (a `Memory` is not
    thread-safe): a call takes a free one."""

    def __init__(self, memories: list) -> None:
        self._free: queue.SimpleQueue = queue.SimpleQueue()
        for m in memories:
            self._free.put(m)
        self._all = memories
        self._pool = ThreadPoolExecutor(len(memories), thread_name_prefix="api-memory")

    async def __call__(self, fn: Callable, *args) -> Any:
        def run():
            memory = self._free.get()
            try:
                return fn(memory, *args)
            finally:
                self._free.put(memory)

        return await asyncio.get_running_loop().run_in_executor(self._pool, run)

    def close(self) -> None:
        self._pool.shutdown()
        for m in self._all:
            m.close()


class Service:
    """What the routes share: the memory, the text embedder, the events, the LLM (lazily), who is there."""

    def __init__(
        self,
        cfg: Config,
        memory,
        embedder,
        events: EventLog,
        present: Callable[[], str | None],
        ingest=None,
        llm=None,
        recorder=None,
        companion=None,
    ) -> None:
        self.cfg, self.embedder, self.events, self.present, self.ingest = cfg, embedder, events, present, ingest
        self.shared = llm or SharedLLM(cfg)
        self.recorder = recorder  # recording in this process: deletions go through its store thread
        self.companion = companion  # the voice companion inside that recorder (serve --companion)
        # connections of its own (a recorder may be using `memory`); answers hold theirs for seconds
        self.host = MemoryHost([memory.second() for _ in range(cfg.service.readers)])
        self.answers = MemoryHost([memory.second()])
        # the web page's face thumbnails, by the vault file they were cut from (never reused, unlike row ids)
        self.thumbs: collections.OrderedDict[str, bytes] = collections.OrderedDict()

    def llm(self):
        return self.shared.get()

    async def change(self, fn: Callable, *args) -> Any:
        """`fn(memory, *args)` where a change belongs: on the recorder's store thread while it records in this
        process (it must see a deletion, a rename, a merge at once), else on one of the service's connections."""
        if self.recorder is not None and self.recorder.running:
            return await self.recorder.on_store_thread(fn, *args)
        return await self.host(fn, *args)

    def forgotten(self, out: dict) -> None:
        """After a deletion (`views.forget`'s result): nothing in RAM may still serve what was deleted — the
        events that name or cite it, the face thumbnails, the model's evaluated profiles."""
        self.events.forget(tuple(out["people"]), tuple(out["utterances"]), tuple(out["sessions"]))
        self.thumbs.clear()
        self.shared.forget_prefixes()

    def close(self) -> None:
        """Its connections; the model is the runtime's to close."""
        self.answers.close()
        self.host.close()


# request bodies
class AskBody(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    k: int | None = Field(None, ge=1, le=100, description="results (default recall.top_k)")
    person: str | None = Field(None, description="who the user is talking with: their words count first")
    at: datetime | None = Field(None, description="when the question is asked (default now)")
    context: bool = Field(False, description="also the dialog context (profile + retrieved)")
    answer: bool = Field(False, description="answer with the local LLM, citing what was said")
    stream: bool = Field(False, description="with answer: Server-Sent Events of the answer's text, then the result")


class ContextBody(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    person: str | None = None
    at: datetime | None = None


class ForgetBody(BaseModel):
    person: str | None = None
    session: int | None = Field(None, ge=1)  # session ids start at 1 (false, read as 0, is no session)
    between: tuple[datetime, datetime] | None = None
    anonymize: bool = False


def _now(at: datetime | None) -> datetime:
    if at is None:
        return datetime.now().astimezone()
    return at if at.tzinfo else at.astimezone()


def _status(e: AppError) -> int:
    if isinstance(e, NotFoundError):
        return 404
    if isinstance(e, ConfigError | MediaError):
        return 400
    if isinstance(e, LLMError):
        return 503
    return 500


def create_app(service: Service, token: str, hosts: tuple[str, ...] = (), tls: bool = False) -> Guard:
    """The routes behind the guard (an ASGI app for uvicorn); `hosts`: names besides loopback's it answers to."""
    app = FastAPI(title="lifemem", version=__version__, description="The wearer's memory over loopback HTTP.")
    memory = service.host

    @app.exception_handler(AppError)
    async def app_error(_: Request, e: AppError) -> JSONResponse:
        return JSONResponse({"error": str(e), "code": e.code}, status_code=_status(e))

    @app.exception_handler(OverflowError)
    async def out_of_range(_: Request, e: OverflowError) -> JSONResponse:  # an id past SQLite's integers
        return JSONResponse({"error": f"a number is out of range ({e})"}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, e: RequestValidationError) -> JSONResponse:
        first = e.errors()[0] if e.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        return JSONResponse({"error": f"{where or 'body'}: {first.get('msg', 'invalid request')}"}, status_code=400)

    @app.get("/health", summary="liveness; the only route without the token, and it says nothing personal")
    async def health() -> dict:
        return {"ok": True}

    @app.get("/v1/people")
    async def people() -> dict:
        return await memory(views.people)

    @app.get("/v1/people/{name}")
    async def person(name: str) -> dict:
        return await memory(views.person, name)

    @app.get("/v1/sessions")
    async def sessions() -> dict:
        return await memory(views.sessions)

    @app.get("/v1/sessions/{session}")
    async def session(session: int) -> dict:
        return await memory(views.utterances, session)

    @app.get("/v1/facts")
    async def facts(person: str | None = None, history: bool = False) -> dict:
        return await memory(views.facts, person, history)

    @app.get("/v1/present", summary="who is in front of the wearer now (null when nobody known)")
    async def present() -> dict:
        return {"person": service.present()}

    @app.post("/v1/context")
    async def context(body: ContextBody) -> dict:
        return await memory(views.context, service.embedder, service.cfg, body.question, _now(body.at), body.person)

    @app.post("/v1/ask")
    async def ask(body: AskBody):
        now = _now(body.at)
        if not body.answer:
            out, _ = await memory(
                views.ask, service.embedder, service.cfg, body.question, now, body.k, body.person, body.context
            )
            return out
        return await _answer(body, now)

    async def _answer(body: AskBody, now: datetime):
        llm = await asyncio.to_thread(service.llm)
        if body.person:
            await memory(views.person_id, body.person)
        if not body.stream:

            def run(mem):
                return Answerer(llm, mem, service.embedder, service.cfg)(body.question, now, body.person)

            result = await service.answers(run)
            return {"query": body.question, "at": now.isoformat(), **result.as_dict(views.when)}

        def streamed(on_text):
            return service.answers(
                lambda mem: Answerer(llm, mem, service.embedder, service.cfg)(body.question, now, body.person, on_text)
            )

        async def events() -> AsyncIterator[str]:
            async for item in from_thread(streamed):
                if not isinstance(item, Ended):
                    yield f"event: token\ndata: {json.dumps({'text': item})}\n\n"
                elif item.error is not None:
                    yield f"event: error\ndata: {json.dumps({'error': item.error})}\n\n"
                else:
                    out = {"query": body.question, "at": now.isoformat(), **item.result.as_dict(views.when)}
                    yield f"event: result\ndata: {json.dumps(out, ensure_ascii=False)}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    @app.post("/v1/forget", summary="delete a person, a session or a time span and everything derived from it")
    async def forget(body: ForgetBody) -> dict:
        chosen = [x is not None for x in (body.person, body.session, body.between)]
        if sum(chosen) != 1:
            raise ConfigError("forget one thing: person, session or between")
        between = tuple(_now(t).timestamp() for t in body.between) if body.between else None
        if between is not None and between[1] <= between[0]:
            raise ConfigError("between: the end must come after the start")
        args = (service.embedder, body.person, body.session, between, body.anonymize)
        out = await service.change(views.forget, *args)
        service.forgotten(out)
        return out

    @app.get("/v1/export", summary="the memory (or one person's) as the export's JSON document, media left out")
    async def export(person: str | None = None) -> dict:
        return (await memory(lambda mem: document(mem, person)))[0]

    @app.get("/v1/events", summary="Server-Sent Events; reconnect with Last-Event-ID (or ?after=) to miss nothing")
    async def events(request: Request, after: int | None = Query(None, ge=0, le=views.MAX_ID)):
        last = views.number(request.headers.get("last-event-id"))
        last = after if last is None else last
        return service.events.sse(request, last)

    @app.websocket("/v1/ingest")
    async def ingest(ws: WebSocket) -> None:
        """Microphone audio and camera frames from the glasses, the companion's voice back (protocol:
        app/service/ingest.py)."""
        source = service.ingest
        await ws.accept()
        if source is None:
            await ws.send_json({"type": "error", "error": "this service records from another source (run --serve)"})
            return await ws.close(1003)
        try:
            hello = json.loads(await ws.receive_text())
            stream = hello["stream"]
            acked = source.hello(stream, hello["rate"], hello.get("t0", time.time()))
        except (ValueError, KeyError, TypeError, IngestError) as e:
            await ws.send_json({"type": "error", "error": f"bad hello: {e}"})
            return await ws.close(1003)
        except WebSocketDisconnect:
            return
        await ws.send_json({"type": "ready", "stream": stream, "acked": acked})
        speaking = asyncio.create_task(_speak_to(ws, source))  # the companion's voice, if it talks
        try:
            await _receive(ws, source, stream)
        finally:
            speaking.cancel()

    async def _speak_to(ws: WebSocket, source) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                await ws.send_bytes(await source.speech.get())

    async def _receive(ws: WebSocket, source, stream: str) -> None:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("bytes")
            try:
                if data is None:
                    raise IngestError("after hello, audio and frames are binary messages")
                if data[:1] == AUDIO:
                    await ws.send_json({"type": "ack", "acked": await source.audio(stream, data[1:])})
                elif data[:1] == FRAME:
                    await source.frame(data[1:])
                else:
                    raise IngestError("a message starts with A (audio) or V (frame)")
            except IngestError as e:
                await ws.send_json({"type": "error", "error": str(e)})
            except (ValueError, ArithmeticError, MemoryError) as e:  # a message nobody foresaw: the stream goes on
                _LOGGER.exception("ingest: a message could not be used")
                await ws.send_json({"type": "error", "error": f"the message could not be used ({type(e).__name__})"})

    app.include_router(chat.router(service))
    app.include_router(companion.router(service))
    # lazy: the web page (jinja2 and its templates) loads when an app is made; app.runtime imports this module
    from app.web import mount

    web = mount(app, service, token)
    return Guard(app, token, service.cfg.service.max_body_kb * 1024, web=web, hosts=hosts, tls=tls)
