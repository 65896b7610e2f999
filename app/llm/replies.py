"""A model's replies kept in a file, so that an evaluation asks the model each request once: a rule changed in code is
then measured on the same readings, in seconds instead of an hour (`eval qa --replies FILE`)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from app.errors import ConfigError, MediaError
from app.llm.base import Backend, Cancel, Request, Usage

_LOGGER = logging.getLogger(__name__)
_KEPT = ("prompt_tokens", "cached_tokens", "completion_tokens", "first_token_s", "total_s", "finish")


def request_key(request: Request) -> str:
    """What makes a reply: the messages, the token budget, the temperature, the schema and the stops (not the
    threads or the cached prefix, which change how fast it comes, not what it says)."""
    said = [request.messages, request.max_tokens, request.temperature, request.schema, list(request.stop)]
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()


class RememberedReplies:
    """A backend that gives the reply kept in `path` for a request it has seen, and otherwise asks the model (built
    by `factory` at the first new request, so a run whose replies are all kept never loads it) and keeps its reply.
    The file is JSON, written on `close` (atomically, mode 0600): the model's name, and per request the pieces the
    reply streamed in and their usage. A reply cancelled midway is not kept. Kept replies come back at once: times
    measured over them are not the model's."""

    name = "replies"

    def __init__(self, factory: Callable[[], Backend], path: Path, model: str) -> None:
        self._factory, self.path, self.model = factory, path, model
        self._inner: Backend | None = None
        self._replies: dict[str, dict[str, Any]] = self._read()
        self.kept, self.asked = 0, 0  # requests answered from the file, and asked of the model

    def _read(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text())
            model, replies = data["model"], data["replies"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise MediaError(f"{self.path}: not a file of kept model replies ({e})") from e
        if model != self.model:
            raise ConfigError(f"{self.path} keeps the replies of {model!r}, not of llm.model {self.model!r}")
        return replies

    def stream(self, request: Request, cancel: Cancel, usage: Usage) -> Iterator[str]:
        if request.keep:  # how fast a reply comes, not what it says: nothing to keep without the model
            usage.finish = "stop"
            return
        key = request_key(request)
        if (kept := self._replies.get(key)) is not None:
            self.kept += 1
            for name, value in kept["usage"].items():
                setattr(usage, name, value)
            yield from kept["parts"]
            return
        self.asked += 1
        parts = list(self._model().stream(request, cancel, usage))
        if usage.finish != "cancelled":
            self._replies[key] = {"parts": parts, "usage": {name: getattr(usage, name) for name in _KEPT}}
        yield from parts

    def count_tokens(self, text: str) -> int:
        return self._model().count_tokens(text)

    def _model(self) -> Backend:
        """The model itself, loaded the first time it is needed."""
        if self._inner is None:
            self._inner = self._factory()
        return self._inner

    def info(self) -> dict[str, Any]:
        inner = self._inner.info() if self._inner is not None else {"backend": self.name, "model": self.model}
        return {**inner, "replies": str(self.path), "replies_kept": self.kept, "replies_asked": self.asked}

    def close(self) -> None:
        try:
            if self.asked:
                self._write()
        finally:
            if self._inner is not None:
                self._inner.close()
        _LOGGER.info("model replies: %d from %s, %d asked of the model", self.kept, self.path, self.asked)

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"model": self.model, "replies": self._replies}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, self.path)
