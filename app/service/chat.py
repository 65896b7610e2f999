"""The OpenAI-compatible endpoint: `/v1/chat/completions` (streaming or not) with the memory context of the
person in front of the wearer (or `person` in the body) added to the system message, answered by the
service's shared model at dialog priority; `citations` and `memory_person` come beside the standard fields."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator
from datetime import datetime

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from app import views
from app.errors import AppError


class ChatMessage(BaseModel):
    role: str
    content: str | list[dict] | None = None


class ChatBody(BaseModel):
    model: str | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    max_tokens: int | None = Field(None, ge=1, le=4096)
    max_completion_tokens: int | None = Field(None, ge=1, le=4096)
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    person: str | None = Field(None, description="whose memory to add (default: the person in front of the wearer)")
    user: str | None = None


def _text(content: str | list[dict] | None) -> str:
    if isinstance(content, list):  # OpenAI's content parts: the text ones
        return " ".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    return content or ""


async def _pump(job) -> AsyncIterator[str]:
    """A job's streamed text on the loop (its iterator blocks: it runs in a thread)."""
    from app.llm import RESTART

    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    done = object()

    def run() -> None:
        try:
            for piece in job.tokens():
                if piece is not RESTART:
                    loop.call_soon_threadsafe(queue.put_nowait, piece)
        except BaseException as e:  # raised on the loop side
            loop.call_soon_threadsafe(queue.put_nowait, e)
        loop.call_soon_threadsafe(queue.put_nowait, done)

    threading.Thread(target=run, name="api-stream", daemon=True).start()
    try:
        while (item := await queue.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        job.cancel()  # the client went away: stop generating


def router(service) -> APIRouter:
    """The routes, over `service` (app.service.app.Service)."""
    api = APIRouter()

    @api.get("/v1/models", summary="OpenAI-compatible: the one model behind /v1/chat/completions")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "lifemem", "object": "model", "owned_by": "local"}]}

    @api.post("/v1/chat/completions", summary="OpenAI-compatible chat with the memory of the person there")
    async def chat(body: ChatBody):
        from app.llm import DIALOG
        from app.llm import Request as LLMRequest

        question = next((_text(m.content) for m in reversed(body.messages) if m.role == "user"), "")
        person = body.person or service.present()
        now = datetime.now().astimezone()
        ctx = await service.host(views.context, service.embedder, service.cfg, question or " ", now, person)
        memory_text = "\n".join(
            part
            for part in (
                f"What you know about {person}:\n{ctx['profile']}" if ctx["profile"] else "",
                f"From memory (cite the [ids] you use):\n{ctx['retrieved']}" if ctx["retrieved"] else "",
            )
            if part
        )
        given = [{"role": m.role, "content": _text(m.content)} for m in body.messages]
        system = [m["content"] for m in given if m["role"] == "system"]
        rest = [m for m in given if m["role"] != "system"]
        head = "\n\n".join([*system, memory_text] if memory_text else system)
        messages = ([{"role": "system", "content": head}] if head else []) + rest
        llm = await asyncio.to_thread(service.llm)
        request = LLMRequest(
            tuple(messages),
            max_tokens=body.max_completion_tokens or body.max_tokens or service.cfg.llm.answer_tokens * 2,
            temperature=body.temperature or 0.0,
            cache_prefix=1 if head else 0,
        )
        job = llm.submit(request, DIALOG)
        ident, created, model = f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), body.model or "lifemem"
        citations = ctx["citations"]
        if not body.stream:
            reply = await job.wait()
            usage = reply.usage
            return {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.text},
                        "finish_reason": "length" if usage.finish == "length" else "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "total_tokens": usage.prompt_tokens + usage.completion_tokens,
                },
                "citations": citations,
                "memory_person": person,
            }

        def chunk(delta: dict, finish: str | None = None, **extra) -> str:
            data = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"

        async def stream() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""}, citations=citations, memory_person=person)
            try:
                async for piece in _pump(job):
                    yield chunk({"content": piece})
            except AppError as e:
                yield f"data: {json.dumps({'error': {'message': str(e)}})}\n\n"
                return
            reply = await job.wait()
            yield chunk({}, "length" if reply.usage.finish == "length" else "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    return api
