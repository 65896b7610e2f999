"""The one thread that owns the model: a priority queue of jobs, streaming, cancellation, validated JSON.

A llama.cpp context is not thread-safe, and the capture loop must never wait on it, so every call goes
through `LLMWorker.submit`, which returns at once with a `Job`. Jobs run one at a time, dialog before
background work; a dialog job that arrives while background work runs pre-empts it (the background job goes
back into the queue and runs again from the start; its stream says RESTART). The thread runs at a lower
scheduling priority (`llm.nice`) so that capture, which runs at normal priority, always wins the CPU.

When the backend's process dies mid-job (`LLMCrashed`: the model runs in a supervised child, app/llm/child.py),
the job's listeners hear one line, and the job runs again once (its stream says RESTART) in the restarted
child; a second death fails it with its reason.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import itertools
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from app.errors import LLMCancelled, LLMCrashed, LLMCutOff, LLMError
from app.llm.base import Backend, Cancel, Reply, Request, Usage

_LOGGER = logging.getLogger(__name__)
DIALOG, BACKGROUND = 0, 10  # priorities: lower runs first
RESTART = object()  # yielded by Job.tokens() when the text so far is thrown away (invalid JSON, pre-empted)
_DONE = object()
_FORGET = object()  # in the queue: drop the backend's cached prompt prefixes (a person was forgotten)


class _Flag(Cancel):
    """Set by the caller (cancel) or by the worker (pre-emption by a more urgent job)."""

    def __init__(self) -> None:
        super().__init__()
        self.preempted = threading.Event()

    def __bool__(self) -> bool:
        return super().__bool__() or self.preempted.is_set()


class Job:
    """A submitted request: its text as it streams, its `Reply`, and `cancel()`."""

    def __init__(self, request: Request, priority: int) -> None:
        self.request, self.priority = request, priority
        self.flag = _Flag()
        self.future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self.submitted = time.perf_counter()
        self._pieces: queue.SimpleQueue[Any] = queue.SimpleQueue()

    @property
    def cancelled(self) -> bool:
        return Cancel.__bool__(self.flag)

    def cancel(self) -> None:
        """Stop generating (between tokens or prompt batches); the reply so far is returned, finish 'cancelled'."""
        self.flag.set()

    def _emit(self, piece: Any) -> None:
        self._pieces.put(piece)

    def tokens(self, timeout: float | None = None) -> Iterator[str | object]:
        """The reply's text as it is generated (RESTART when what came so far is void). Ends with the job; raises
        its error. `timeout` bounds the wait for each piece."""
        while True:
            try:
                piece = self._pieces.get(timeout=timeout)
            except queue.Empty:
                raise LLMError(f"no token from the language model within {timeout} s") from None
            if piece is _DONE:
                self.future.result()  # raises the job's error, if any
                return
            yield piece

    def result(self, timeout: float | None = None) -> Reply:
        try:
            return self.future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise LLMError(f"the language model did not answer within {timeout} s") from None

    async def wait(self) -> Reply:
        """The reply, awaited on an asyncio loop without blocking it."""
        return await asyncio.wrap_future(self.future)


class LLMWorker:
    """Owns one backend on one thread. `factory` builds the backend on that thread (so llama.cpp's own
    threads inherit its priority)."""

    def __init__(
        self, factory: Callable[[], Backend], nice: int = 0, name: str = "llm", dialog_threads: int = 0
    ) -> None:
        self.faults: list[str] = []  # one line per death of the model's process, in order
        self._listeners: list[Callable[[str], None]] = []
        self._queue: queue.PriorityQueue[tuple[int, int, Any]] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._current: Job | None = None
        self._lock = threading.Lock()
        self._ready: concurrent.futures.Future[Backend] = concurrent.futures.Future()
        self._nice = nice
        self._dialog_threads = dialog_threads  # a reply someone waits for gets these (0: the backend's own)
        self._thread = threading.Thread(target=self._run, args=(factory,), name=name, daemon=True)
        self._thread.start()
        self.backend = self._ready.result()  # a load error is raised here, in the caller's thread

    # ------------------------------------------------------------------ caller side
    def submit(self, request: Request, priority: int = DIALOG) -> Job:
        job = Job(request, priority)
        with self._lock:
            if not self._thread.is_alive():
                raise LLMError("the language model worker has stopped")
            running = self._current
            if running is not None and priority < running.priority:
                running.flag.preempted.set()  # it steps aside and runs again later, from the start
            self._queue.put((priority, next(self._seq), job))
        return job

    def listen(self, on_fault: Callable[[str], None]) -> None:
        """Call `on_fault(line)` (on the worker's thread) each time the model's process dies."""
        self._listeners.append(on_fault)

    def forget_prefixes(self) -> None:
        """Drop every evaluated prompt prefix the backend keeps (people's profiles, lines kept ahead), and the
        prompts still queued to be kept, before the next job."""
        with self._lock:
            self._queue.put((DIALOG - 1, next(self._seq), _FORGET))

    def unlisten(self, on_fault: Callable[[str], None]) -> None:
        if on_fault in self._listeners:
            self._listeners.remove(on_fault)

    def complete(self, request: Request, priority: int = DIALOG, timeout: float | None = None) -> Reply:
        return self.submit(request, priority).result(timeout)

    def close(self) -> None:
        """Cancel what runs, drop what waits, stop the thread and free the model."""
        with self._lock:
            if self._current is not None:
                self._current.cancel()
            self._queue.put((-1, -1, None))
        self._thread.join(timeout=30)

    # ------------------------------------------------------------------ worker side
    def _run(self, factory: Callable[[], Backend]) -> None:
        if self._nice:
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self._nice)
            except (OSError, AttributeError) as e:  # not Linux, or not permitted
                _LOGGER.debug("cannot lower the LLM thread's priority: %s", e)
        try:
            backend = factory()
        except BaseException as e:
            self._ready.set_exception(e)
            return
        self._ready.set_result(backend)
        try:
            while True:
                _, _, job = self._queue.get()
                if job is None:
                    break
                if job is _FORGET:
                    self._drop_queued_keeps()
                    if hasattr(backend, "drop_prefixes"):
                        try:
                            backend.drop_prefixes()
                        except LLMError as e:  # its process died meanwhile: its cache died with it
                            _LOGGER.info("prefixes not dropped: %s", e)
                    continue
                with self._lock:
                    self._current = job
                try:
                    self._execute(backend, job)
                finally:
                    with self._lock:
                        self._current = None
        finally:
            self._drain()
            backend.close()

    def _drop_queued_keeps(self) -> None:
        """Prompts queued to be kept ahead (`Request.keep`) may hold what was just deleted: they go unevaluated
        (they only ever make a later answer faster)."""

        def to_keep(item) -> bool:
            return isinstance(item[2], Job) and item[2].request.keep

        with self._queue.mutex:
            queued = self._queue.queue
            dropped = [item for item in queued if to_keep(item)]
            if dropped:
                queued[:] = [item for item in queued if not to_keep(item)]
                heapq.heapify(queued)
        for _, _, job in dropped:
            self._finish(job, error=LLMCancelled("not kept: memory was deleted meanwhile"))

    def _drain(self) -> None:
        while not self._queue.empty():
            _, _, job = self._queue.get_nowait()
            if isinstance(job, Job) and not job.future.done():
                job.future.set_exception(LLMCancelled("the language model was closed"))
                job._emit(_DONE)

    def _execute(self, backend: Backend, job: Job) -> None:
        if job.cancelled:
            self._finish(job, error=LLMCancelled("cancelled before it started"))
            return
        for crash in (1, 2):
            try:
                self._attempt(backend, job)
                return
            except LLMCrashed as e:
                self._fault(str(e))
                if crash == 2 or job.cancelled:
                    self._finish(job, error=e)
                    return
                job._emit(RESTART)  # what streamed so far is void: it runs again in a new process

    def _fault(self, line: str) -> None:
        _LOGGER.warning("%s", line)
        self.faults.append(line)
        for listener in list(self._listeners):
            try:
                listener(line)
            except Exception:  # a listener's failure is its own
                _LOGGER.exception("a language-model fault listener failed")

    def _attempt(self, backend: Backend, job: Job) -> None:
        """Run the job once on the backend (twice when its JSON is invalid); LLMCrashed passes through."""
        usage = Usage(queued_s=time.perf_counter() - job.submitted)
        started = time.perf_counter()
        request = job.request
        if job.priority == DIALOG and self._dialog_threads and not request.threads:
            request = replace(request, threads=self._dialog_threads)
        for attempt in (1, 2):
            text: list[str] = []
            try:
                for piece in backend.stream(request, job.flag, usage):
                    if usage.first_token_s is None:
                        usage.first_token_s = time.perf_counter() - started
                    text.append(piece)
                    job._emit(piece)
            except LLMCrashed:
                raise
            except LLMError as e:
                self._finish(job, error=e)
                return
            except Exception as e:  # the backend's own failure: one line for the user, the trace in the log
                _LOGGER.exception("language model failure")
                self._finish(job, error=LLMError(f"the language model failed: {type(e).__name__}: {e}"))
                return
            usage.total_s = time.perf_counter() - started
            if job.flag.preempted.is_set() and not job.cancelled:
                self._requeue(job)
                return
            reply = Reply("".join(text), usage)
            if job.cancelled or request.schema is None:
                usage.finish = "cancelled" if job.cancelled else usage.finish
                self._finish(job, reply)
                return
            invalid = _invalid(reply, request.schema)
            if invalid is None:
                self._finish(job, reply)
                return
            if usage.finish == "length":  # asking again would be cut off the same way
                self._finish(job, error=LLMCutOff(f"the model's reply was cut off at {request.max_tokens} tokens"))
                return
            problem, where = invalid  # the model is told what was wrong; a log or an error only where
            _LOGGER.info("reply not valid for its schema (%s); asking again", where)
            if attempt == 1:
                job._emit(RESTART)
                usage.first_token_s = None
                request = replace(request, messages=(*request.messages, *_correction(reply.text, problem)))
        self._finish(job, error=LLMError(f"the model's reply was not valid JSON for its schema ({where})"))

    def _requeue(self, job: Job) -> None:
        job.flag.preempted.clear()
        job._emit(RESTART)
        self._queue.put((job.priority, next(self._seq), job))

    @staticmethod
    def _finish(job: Job, reply: Reply | None = None, error: Exception | None = None) -> None:
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(reply)  # type: ignore[arg-type]
        job._emit(_DONE)


def _correction(text: str, problem: str) -> tuple[dict[str, str], ...]:
    """What the model is told before it answers again: its reply and what was wrong with it."""
    return (
        {"role": "assistant", "content": text},
        {"role": "user", "content": f"That reply is not valid ({problem}). Reply again with only valid JSON."},
    )


def _invalid(reply: Reply, schema: dict) -> tuple[str, str] | None:
    """None when the reply parses as JSON valid against `schema` (and is stored in reply.data), else why not: for
    the model (which may quote the reply: a name, a fact) and for a log or an error (where, and which rule: nothing
    the reply said)."""
    # lazy: jsonschema is heavy (~0.1 s); only a reply with a schema needs it
    import jsonschema

    try:
        data = json.loads(reply.text)
    except ValueError as e:
        return f"not JSON: {e}", f"not JSON at character {getattr(e, 'pos', '?')}"
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as e:
        return e.message[:120], f"'{e.validator}' failed at /{'/'.join(map(str, e.absolute_path))}"
    reply.data = data
    return None
