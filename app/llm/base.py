"""What every LLM backend takes and gives: requests, replies, the cancellation flag and the backend protocol."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}


@dataclass(frozen=True)
class Request:
    """One chat completion.

    `cache_prefix` leading messages form a prefix whose evaluation the backend may keep (the system
    instructions plus a person's profile): the next request with the same prefix only evaluates what follows.
    `schema` constrains the reply to JSON valid against it (a grammar in process, `response_format` on a
    server); the worker validates it and retries once.
    `keep`: nothing is generated; a local model evaluates the prompt (but its last token) and keeps that state
    (`llm.kept_prompts`), so that a later prompt beginning with the same tokens evaluates only the rest: the
    voice companion has the lines a question may read evaluated ahead, while nobody speaks.
    """

    messages: tuple[Message, ...]
    max_tokens: int = 256
    temperature: float = 0.0
    schema: dict[str, Any] | None = None
    stop: tuple[str, ...] = ()
    cache_prefix: int = 0
    threads: int = 0  # CPU threads for this request (a local model); 0: the backend's own
    keep: bool = False  # evaluate the prompt and keep its state for later prompts that begin alike; say nothing


@dataclass
class Usage:
    """Token counts and timings of one generation (times in seconds from the job's start)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens whose evaluation was reused (prefix cache)
    completion_tokens: int = 0
    queued_s: float = 0.0  # waiting behind other jobs
    first_token_s: float | None = None
    total_s: float = 0.0
    finish: str = ""  # stop | length | cancelled


@dataclass
class Reply:
    text: str
    usage: Usage = field(default_factory=Usage)
    data: Any = None  # the parsed JSON when the request had a schema


class Cancel:
    """A flag a generation checks between tokens (and between prompt batches)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def __bool__(self) -> bool:
        return self._event.is_set()


TokenSink = Callable[[str], None]


class Backend(Protocol):
    """A model that streams a chat completion. Not thread-safe: only the worker's thread calls it."""

    name: str

    def stream(self, request: Request, cancel: Cancel, usage: Usage) -> Iterator[str]:
        """Yield the reply's text piece by piece, filling `usage`; stop early when `cancel` is set."""
        ...

    def count_tokens(self, text: str) -> int: ...

    def info(self) -> dict[str, Any]:
        """What `doctor` shows: backend, model, size, context."""
        ...

    def close(self) -> None: ...
