"""An OpenAI-compatible server on a local GPU box (llama.cpp's server, vLLM, Ollama, llama-cpp-python's).

Chat completions are streamed as server-sent events. A JSON schema goes as OpenAI's
`response_format: {"type": "json_schema", ...}`; a server that refuses that shape (llama-cpp-python's
takes `{"type": "json_object", "schema": ...}`) is asked again in the other and remembered. Connection
failures, timeouts and 5xx answers are retried with backoff until the first token arrives; after that a
failure is an error, never a silently repeated reply.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from app.errors import LLMError
from app.llm.base import Cancel, Request, Usage

_LOGGER = logging.getLogger(__name__)
API_KEY_ENV = "APP_LLM_API_KEY"  # a bearer token for the server, if it wants one (never in config.yaml)
_SCHEMA_SHAPES = ("json_schema", "json_object")


def _response_format(shape: str, schema: dict) -> dict:
    if shape == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": True}}
    return {"type": "json_object", "schema": schema}


class ServerBackend:
    name = "openai"

    def __init__(self, url: str, model: str, timeout_s: float, retries: int) -> None:
        try:
            # lazy: httpx is heavy (~0.1 s); only the openai backend needs it
            import httpx
        except ImportError as e:
            raise LLMError("httpx is not installed; run `python3 build.py`") from e
        if not url:
            raise LLMError("llm.backend is openai but llm.url is empty (e.g. http://127.0.0.1:8080/v1)")
        self._httpx = httpx
        self.url, self.model, self.retries = url.rstrip("/"), model, retries
        headers = {"Authorization": f"Bearer {os.environ[API_KEY_ENV]}"} if os.environ.get(API_KEY_ENV) else {}
        self.client = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=min(5.0, timeout_s)), headers=headers)
        self._shape = _SCHEMA_SHAPES[0]
        self._tokenize: str | None = None  # the tokenize route that worked, "" when none does

    def _body(self, request: Request) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(request.messages),
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.stop:
            body["stop"] = list(request.stop)
        if request.schema is not None:
            body["response_format"] = _response_format(self._shape, request.schema)
        return body

    def _fail(self, what: str) -> LLMError:
        return LLMError(f"LLM server at {self.url}: {what}")

    def stream(self, request: Request, cancel: Cancel, usage: Usage) -> Iterator[str]:
        if request.keep:  # a server keeps its own prompt cache
            usage.finish = "stop"
            return
        httpx = self._httpx
        attempt, shapes_tried = 0, 1
        while True:
            started = False
            try:
                with self.client.stream("POST", f"{self.url}/chat/completions", json=self._body(request)) as resp:
                    if resp.status_code >= 400:
                        detail = resp.read().decode("utf-8", "replace")
                        if (  # llama-cpp-python answers 500 to a response_format it does not know
                            request.schema is not None
                            and "response_format" in detail
                            and shapes_tried < len(_SCHEMA_SHAPES)
                        ):
                            self._shape = _SCHEMA_SHAPES[shapes_tried]
                            shapes_tried += 1
                            _LOGGER.info("LLM server wants response_format %s", self._shape)
                            continue
                        if resp.status_code < 500 or attempt >= self.retries:
                            raise self._fail(f"HTTP {resp.status_code}: {_first_line(detail)}")
                        raise _Retry(f"HTTP {resp.status_code}")
                    for piece in self._events(resp, usage):
                        started = True
                        yield piece
                        if cancel:
                            usage.finish = "cancelled"
                            return
                    if not usage.prompt_tokens:  # a server that reports no usage when streaming (llama-cpp-python)
                        usage.prompt_tokens = self.count_tokens("\n".join(m["content"] for m in request.messages))
                    return
            except (httpx.TransportError, _Retry) as e:
                if started:
                    raise self._fail(f"the connection broke mid-reply ({type(e).__name__})") from e
                if attempt >= self.retries:
                    raise self._fail(f"unreachable ({_first_line(str(e)) or type(e).__name__})") from e
                attempt += 1
                time.sleep(0.25 * 2**attempt)
                _LOGGER.info("LLM server: %s; retry %d of %d", e, attempt, self.retries)

    def _events(self, resp, usage: Usage) -> Iterator[str]:
        for line in resp.iter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                event = json.loads(data)
            except ValueError:
                raise self._fail(f"a streamed event is not JSON: {data[:80]!r}") from None
            if event.get("usage"):
                usage.prompt_tokens = event["usage"].get("prompt_tokens", usage.prompt_tokens)
                usage.completion_tokens = event["usage"].get("completion_tokens", usage.completion_tokens)
                details = event["usage"].get("prompt_tokens_details") or {}
                usage.cached_tokens = details.get("cached_tokens", usage.cached_tokens)
            for choice in event.get("choices") or []:
                if choice.get("finish_reason"):
                    usage.finish = choice["finish_reason"]
                text = (choice.get("delta") or {}).get("content")
                if text:
                    usage.completion_tokens += 0 if event.get("usage") else 1
                    yield text

    def count_tokens(self, text: str) -> int:
        """The server's own count where it has a tokenize route (llama.cpp, vLLM, llama-cpp-python), else an
        estimate of 4 characters a token."""
        root = self.url.removesuffix("/v1")
        routes = [self._tokenize] if self._tokenize else [f"{root}/extras/tokenize", f"{root}/tokenize"]
        if self._tokenize != "":
            for route in routes:
                try:
                    resp = self.client.post(route, json={"input": text, "content": text, "prompt": text})
                    if resp.status_code == 200 and "tokens" in resp.json():
                        self._tokenize = route
                        return len(resp.json()["tokens"])
                except (self._httpx.HTTPError, ValueError):
                    pass
            self._tokenize = ""
        return -(-len(text) // 4)

    def models(self) -> list[str]:
        """The models the server lists (doctor's check that it is up)."""
        try:
            resp = self.client.get(f"{self.url}/models")
            resp.raise_for_status()
            return [m.get("id", "?") for m in resp.json().get("data", [])]
        except (self._httpx.HTTPError, ValueError) as e:
            raise self._fail(f"unreachable ({_first_line(str(e)) or type(e).__name__})") from e

    def info(self) -> dict[str, Any]:
        return {"backend": self.name, "url": self.url, "model": self.model}

    def close(self) -> None:
        self.client.close()


class _Retry(Exception):
    """A failure worth another try (5xx)."""


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:200] if text.strip() else ""
