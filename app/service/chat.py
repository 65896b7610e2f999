"""The OpenAI-compatible endpoint: `/v1/chat/completions` (streaming or not), answered from memory by the same
grounding as `ask --answer` (app/ask/answer.py: lines gathered and checked by code, read by the model): the last
user message is the question, `person` (else `companion.wearer`) who asks; the reply is the checked answer or
"I don't know", its `citations` the lines it was read from, beside the standard fields."""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import AsyncIterator
from datetime import datetime

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from app import views
from app.ask.answer import Answerer
from app.errors import ConfigError


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
    person: str | None = Field(None, description="who asks: whom 'I' and 'my' mean (default: companion.wearer)")
    user: str | None = None


def _text(content: str | list[dict] | None) -> str:
    if isinstance(content, list):  # OpenAI's content parts: the text ones
        return " ".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    return content or ""


def router(service) -> APIRouter:
    """The routes, over `service` (app.service.app.Service)."""
    api = APIRouter()

    @api.get("/v1/models", summary="OpenAI-compatible: the one model behind /v1/chat/completions")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "lifemem", "object": "model", "owned_by": "local"}]}

    @api.post("/v1/chat/completions", summary="OpenAI-compatible chat: the last question answered from memory")
    async def chat(body: ChatBody):
        question = next((_text(m.content) for m in reversed(body.messages) if m.role == "user"), "").strip()
        if not question:
            raise ConfigError("messages: no user message with text to answer")
        now = datetime.now().astimezone()
        llm = await asyncio.to_thread(service.llm)

        def run(memory):
            return Answerer(llm, memory, service.embedder, service.cfg)(question, now, body.person)

        answer = await service.answers(run)
        ident, created, model = f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), body.model or "lifemem"
        citations = [{**c, "t_start": views.when(c["t_start"])} for c in answer.citations]
        extra = {"citations": citations, "known": answer.known, "memory_person": body.person}
        prompt, completion = answer.prompt_tokens + answer.cached_tokens, answer.completion_tokens
        if not body.stream:
            return {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer.answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
                **extra,
            }

        def chunk(delta: dict, finish: str | None = None, **more) -> str:
            data = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **more,
            }
            return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"

        async def stream() -> AsyncIterator[str]:  # the answer is checked before a word of it goes out
            yield chunk({"role": "assistant", "content": ""}, **extra)
            for word in re.findall(r"\S+\s*", answer.answer):
                yield chunk({"content": word})
            yield chunk({}, "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    return api
