"""llama-cpp-python in process: a GGUF model, its chat template, JSON-schema grammars and a prompt-prefix cache.

The prefix cache keeps llama.cpp's state after the first `cache_prefix` messages (the instructions and a
person's profile) for the last few prefixes seen, so a question to the same person evaluates only the
evidence and the question. Prompts evaluated ahead (`Request.keep`: the instructions and one line a question
may read) are kept too, and a prompt starts from whichever kept state holds most of its first tokens. The
context itself also keeps the last prompt, so a prefix that is still loaded costs nothing at all. The prompt
is evaluated in small batches, checking the cancellation flag between them, so a barge-in never waits for a
long prompt.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.errors import LLMError
from app.llm.base import Cancel, Message, Request, Usage

_LOGGER = logging.getLogger(__name__)
GGUF_MAGIC = b"GGUF"
EVAL_CHUNK = 64  # prompt tokens evaluated between two looks at the cancellation flag
KEEP_CHUNK = 16  # the same for a prompt evaluated ahead: a question waits for at most this many


def import_llama_cpp():
    # llama.cpp's OpenMP threads spin while waiting unless told otherwise; with the other core busy (capture,
    # ASR) spinning threads collapse generation from ~34 to ~1 token/s. Must be set before the library loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        # lazy: llama.cpp is heavy, and its environment is set first (above)
        import llama_cpp
        from llama_cpp import llama_chat_format
    except ImportError as e:
        raise LLMError("llama-cpp-python is not installed; run `python3 build.py`") from e
    return llama_cpp, llama_chat_format


def check_gguf(path: Path) -> None:
    """One line for a missing, empty, truncated or foreign file, before llama.cpp sees it."""
    if not path.is_file():
        raise LLMError(f"no language model at {path}; run `python3 build.py` or set llm.model to a .gguf file")
    with path.open("rb") as fh:
        head = fh.read(4)
    if head != GGUF_MAGIC:
        raise LLMError(f"{path}: not a GGUF model file (starts with {head!r})")


class LlamaBackend:
    """One GGUF model in this process. Only the LLM worker's thread may call it."""

    name = "llama-cpp"

    def __init__(
        self,
        path: Path,
        context: int,
        threads: int,
        gpu_layers: int = 0,
        prefix_states: int = 4,
        kept_prompts: int = 0,
        seed: int = 0,
    ) -> None:
        check_gguf(path)
        llama_cpp, chat_format = import_llama_cpp()
        self.path, self.threads, self.gpu_layers = path, threads, gpu_layers
        self._threads_now = threads
        self._stack = contextlib.ExitStack()
        try:
            self.llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=context,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=gpu_layers,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise LLMError(f"{path}: llama.cpp cannot load this model ({e}); run `python3 build.py --check`") from e
        self._stack.callback(self.llm.close)
        self._llama_cpp = llama_cpp
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise LLMError(f"{path}: the model has no chat template (a base model?); use an instruct model")
        vocab = self.llm._model  # token texts for the template's bos/eos
        eos = vocab.token_get_text(self.llm.token_eos())
        bos = vocab.token_get_text(self.llm.token_bos()) if self.llm.token_bos() >= 0 else ""
        self._full = chat_format.Jinja2ChatFormatter(template, eos, bos, add_generation_prompt=True)
        self._head = chat_format.Jinja2ChatFormatter(template, eos, bos, add_generation_prompt=False)
        self._states: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._max_states = prefix_states
        self._kept: OrderedDict[tuple[int, ...], Any] = OrderedDict()  # prompts evaluated ahead (`Request.keep`)
        self._max_kept = kept_prompts
        self.prefix_evaluations = 0  # prefixes evaluated (not found loaded or saved): for tests and the bench

    # ------------------------------------------------------------------ prompt
    def _tokens(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def prompt_tokens(self, messages: tuple[Message, ...], cache_prefix: int = 0) -> tuple[list[int], int]:
        """The prompt's tokens and how many of them are the cacheable prefix (0: none, or it does not tokenize
        as a prefix of the whole)."""
        tokens = self._tokens(self._full(messages=list(messages)).prompt)
        if not 0 < cache_prefix < len(messages):
            return tokens, 0
        head = self._tokens(self._head(messages=list(messages[:cache_prefix])).prompt)
        return tokens, len(head) if tokens[: len(head)] == head else 0

    def _eval(self, tokens: list[int], start: int, end: int, cancel: Cancel, chunk: int = EVAL_CHUNK) -> None:
        """Evaluate tokens[start:end] on top of the first `start` already in the context."""
        self.llm.n_tokens = start  # eval() drops whatever the context held past this
        for i in range(start, end, chunk):
            if cancel:
                raise _Stopped
            self.llm.eval(tokens[i : min(end, i + chunk)])

    def _state(self) -> Any:
        """The context's state, without the logits of every prompt position (llama-cpp-python copies them all:
        55 MB for 91 tokens of the 1.5B, against 2.6 MB for the rest); a prompt always evaluates at least its
        last token again, so they are never read."""
        state = self.llm.save_state()
        state.scores = state.scores[-1:].copy()
        return state

    def _loaded(self) -> list[int]:
        return self.llm.input_ids[: self.llm.n_tokens].tolist()

    def _prepare(self, tokens: list[int], n_prefix: int, cancel: Cancel, chunk: int = EVAL_CHUNK) -> int:
        """Bring the context to hold all but the last prompt token; return how many were reused."""
        head = tokens[:-1]
        common = _common(self._loaded(), head)
        kept, best = max(((_common(k, head), k) for k in self._kept), default=(0, ()))
        if kept > common:  # a prompt evaluated ahead holds more of this one than the context does
            self.llm.load_state(self._kept[best])
            self._kept.move_to_end(best)
            self.llm.n_tokens = common = kept
        reused = common
        if n_prefix and common < n_prefix:
            key = tuple(tokens[:n_prefix])
            state = self._states.get(key)
            if state is not None:
                self.llm.load_state(state)
                self._states.move_to_end(key)
                common = reused = n_prefix
            else:
                self._eval(tokens, common, n_prefix, cancel)
                self.prefix_evaluations += 1
                self._states[key] = self._state()
                while len(self._states) > self._max_states:
                    self._states.popitem(last=False)
                common = n_prefix
        self._eval(tokens, common, len(tokens) - 1, cancel, chunk)
        return reused

    # ------------------------------------------------------------------ generation
    def stream(self, request: Request, cancel: Cancel, usage: Usage) -> Iterator[str]:
        tokens, n_prefix = self.prompt_tokens(request.messages, request.cache_prefix)
        limit = self.llm.n_ctx()
        if len(tokens) + request.max_tokens > limit:
            raise LLMError(
                f"the prompt ({len(tokens)} tokens) and reply ({request.max_tokens}) exceed the model's context of "
                f"{limit} tokens; raise llm.context or ask something shorter"
            )
        usage.prompt_tokens = len(tokens)
        threads = request.threads or self.threads
        if threads != self._threads_now:  # a reply someone waits for may use more cores than background work
            self.llm._ctx.set_n_threads(threads, threads)
            self._threads_now = threads
        if request.keep:
            self._keep(tokens, n_prefix, cancel, usage)
            return
        try:
            usage.cached_tokens = self._prepare(tokens, n_prefix, cancel)
        except _Stopped:
            usage.finish = "cancelled"
            return
        grammar = None
        if request.schema is not None:
            grammar = self._llama_cpp.LlamaGrammar.from_json_schema(json.dumps(request.schema), verbose=False)
        pieces = self.llm.create_completion(
            prompt=tokens,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            stop=list(request.stop),
            grammar=grammar,
            stream=True,
        )
        try:
            for chunk in pieces:
                choice = chunk["choices"][0]
                if choice["text"]:
                    usage.completion_tokens += 1
                    yield choice["text"]
                if choice.get("finish_reason"):
                    usage.finish = choice["finish_reason"]
                if cancel:
                    usage.finish = "cancelled"
                    break
        finally:
            pieces.close()
            # a piece of text may hold several tokens (or none, mid-character): count what the context holds
            usage.completion_tokens = max(usage.completion_tokens, self.llm.n_tokens - len(tokens))

    def _keep(self, tokens: list[int], n_prefix: int, cancel: Cancel, usage: Usage) -> None:
        """Evaluate all but the prompt's last token, in small batches, and keep that state (`Request.keep`)."""
        if not self._max_kept:
            usage.finish = "stop"
            return
        key = tuple(tokens[:-1])
        if key in self._kept:
            self._kept.move_to_end(key)
            usage.cached_tokens, usage.finish = len(key), "stop"
            return
        try:
            usage.cached_tokens = self._prepare(tokens, n_prefix, cancel, KEEP_CHUNK)
        except _Stopped:
            usage.finish = "cancelled"
            return
        self._kept[key] = self._state()
        while len(self._kept) > self._max_kept:
            self._kept.popitem(last=False)
        usage.finish = "stop"

    def drop_prefixes(self) -> None:
        """Forget every kept prompt state and what the context holds."""
        self._states.clear()
        self._kept.clear()
        self.llm.n_tokens = 0

    def info(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.path.name,
            "path": str(self.path),
            "bytes": self.path.stat().st_size,
            "context": self.llm.n_ctx(),
            "threads": self.threads,
            "gpu_layers": self.gpu_layers,
            "gpu_offload": bool(self._llama_cpp.llama_supports_gpu_offload()),
        }

    def close(self) -> None:
        self._states.clear()
        self._stack.close()


class _Stopped(Exception):
    """Cancelled while evaluating the prompt."""


def _common(a, b) -> int:
    """How many first tokens `a` and `b` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
