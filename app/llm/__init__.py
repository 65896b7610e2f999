"""The local language model: one interface, two backends (llama.cpp in process, an OpenAI-compatible server).

llm = load_llm(cfg)                      # the model the config names, on its own worker thread
job = llm.submit(Request(messages, schema=...), DIALOG)
for piece in job.tokens(): ...           # streamed text; job.cancel() stops it
reply = job.result()                     # text, parsed JSON, token counts and timings
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from app import registry
from app.config import Config
from app.devices import llama_gpu_layers
from app.errors import LLMError
from app.llm.base import Backend, Cancel, Message, Reply, Request, Usage
from app.llm.local import LlamaBackend, check_gguf, import_llama_cpp
from app.llm.replies import RememberedReplies
from app.llm.server import ServerBackend
from app.llm.worker import BACKGROUND, DIALOG, RESTART, Job, LLMWorker

__all__ = [
    "BACKGROUND",
    "DIALOG",
    "RESTART",
    "Backend",
    "Cancel",
    "Job",
    "LLMWorker",
    "Message",
    "Reply",
    "Request",
    "Usage",
    "SharedLLM",
    "load_llm",
    "model_path",
]
_LOGGER = logging.getLogger(__name__)


def model_path(cfg: Config) -> Path:
    """The GGUF file llm.model names: a registry entry (verified against its sha256) or a user's file."""
    name = cfg.llm.model
    if name in registry.REGISTRY:
        spec = registry.get(name)
        if spec.role != "llm":
            raise LLMError(f"llm.model {name!r} is a {spec.role} model, not a language model")
        (path,) = registry.verify(spec, cfg.models_dir)
        return path
    path = Path(name).expanduser()
    if not path.is_absolute() and not path.exists():
        path = cfg.models_dir / path
    if path.suffix != ".gguf":
        llms = [s.name for s in registry.REGISTRY.values() if s.role == "llm"]
        raise LLMError(f"llm.model {name!r} is neither a .gguf file nor one of {', '.join(llms)}")
    return path


def load_llm(cfg: Config, beside_capture: bool = False, replies: Path | None = None) -> LLMWorker:
    """The configured model on its worker thread. `beside_capture`: the recorder shares the CPU, so background
    work gets one thread unless llm.threads says otherwise; a reply someone waits for gets llm.dialog_threads
    (every core: the recorder only listens while they wait). `replies`: a file of the model's replies, which
    answers the requests it keeps and keeps the new ones (`RememberedReplies`; evaluations)."""
    factory, nice, dialog = _backend(cfg, beside_capture)
    if replies is not None:
        return LLMWorker(lambda: RememberedReplies(factory, replies, cfg.llm.model), nice=nice, dialog_threads=dialog)
    return LLMWorker(factory, nice=nice, dialog_threads=dialog)


def _backend(cfg: Config, beside_capture: bool) -> tuple[Callable[[], Backend], int, int]:
    """(what builds the configured backend, its niceness, the threads of a reply someone waits for)."""
    c = cfg.llm
    if c.backend == "openai":
        return (lambda: ServerBackend(c.url, c.model, c.timeout_s, c.retries)), 0, 0
    path = model_path(cfg)
    threads = c.threads or (1 if beside_capture else cfg.device.threads)
    dialog = c.dialog_threads or cfg.device.threads  # someone waits: the recorder only listens meanwhile
    if c.process == "child":
        # lazy: `python -m app.llm.child` runs that module as __main__, and the package would import it again first
        from app.llm.child import ChildBackend, ModelSpec

        check_gguf(path)
        spec = ModelSpec(
            str(path), c.context, threads, c.gpu_layers, c.prefix_cache, c.nice, cfg.device.kind, c.kept_prompts
        )
        _LOGGER.info("language model %s in a process of its own: %d threads", path.name, threads)
        return (lambda: ChildBackend(spec, c.max_deaths)), c.nice, dialog
    import_llama_cpp()  # its environment first: llama_gpu_layers loads the library
    layers = c.gpu_layers if c.gpu_layers >= 0 else llama_gpu_layers(cfg.device.kind)
    _LOGGER.info("language model %s: %d threads, %d GPU layers", path.name, threads, layers)
    return (lambda: LlamaBackend(path, c.context, threads, layers, c.prefix_cache, c.kept_prompts)), c.nice, dialog


class SharedLLM:
    """One model for a process that both records and talks (`run --serve`): loaded at the first call that
    needs it, then shared — its worker puts dialog before background memory writing."""

    def __init__(self, cfg: Config, beside_capture: bool = True) -> None:
        self.cfg, self.beside_capture = cfg, beside_capture
        self._worker: LLMWorker | None = None
        self._lock = threading.Lock()

    def get(self) -> LLMWorker:
        with self._lock:
            if self._worker is None:
                self._worker = load_llm(self.cfg, self.beside_capture)
            return self._worker

    def forget_prefixes(self) -> None:
        """Drop the model's evaluated profiles, if it is loaded (a person was forgotten)."""
        with self._lock:
            if self._worker is not None:
                self._worker.forget_prefixes()

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None
