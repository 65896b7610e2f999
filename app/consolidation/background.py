"""Memory writing in the recorder's background: a thread of its own with its own connection to the memory
and the LLM on one thread at background priority (a dialog request pre-empts it; `load_llm(beside_capture=
True)` keeps it off the core capture needs). It sleeps until a session is queued, runs the queue, and sleeps
again. The queue is durable, so stopping it mid-job loses nothing: the job runs again next time.

When the recording is over (`wind_up`) it writes what is queued before it stops: all of it after a replay that
played to its end; after a stop (Ctrl-C, SIGTERM, the end of serving) the conversation that was going on too, for
at most STOP_WAIT_S, the rest left queued for the next start (as a second Ctrl-C leaves it: `stop`).
"""

from __future__ import annotations

import logging
import threading

from app.config import Config
from app.consolidation.consolidator import Consolidator, Report
from app.errors import AppError
from app.llm import load_llm
from app.store.memory import Memory

_LOGGER = logging.getLogger(__name__)
IDLE_S = 30.0  # how often the queue is looked at when nothing wakes the writer
# after a stop, the longest the memory of what was recorded may take before the rest is left queued (s): a session's
# facts by code take seconds; a day summary or a profile waits for the model; under systemd's 90 s before SIGKILL
STOP_WAIT_S = 60.0


class BackgroundWriter:
    """`wake()` after queueing a job; `finish()` runs what is queued and stops; `stop()` stops after
    cancelling the call in flight. The LLM is loaded at the first job (or taken from `shared`), so a
    recorder with nothing to write never pays for it; a model that cannot load is reported once and
    writing is left to `consolidate`."""

    def __init__(self, memory: Memory, embedder, cfg: Config, on_written=None, shared=None, on_fault=None) -> None:
        self._main, self.embedder, self.cfg = memory, embedder, cfg
        self._on_written = on_written  # called with each job's kind and ref once it is written
        self._on_fault = on_fault  # called with one line each time the model's process dies
        self._shared = shared  # a SharedLLM (the service's): used, not closed; else a model of its own
        self._llm, self._own_llm = None, shared is None
        self._stop = threading.Event()
        self._draining = False
        self.busy = False  # writing the queue (or loading the model for it)
        self._wake = threading.Event()
        self.report = Report()
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="memory-writer", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def wind_up(self, stopped: bool) -> Report:
        """The recording is over: write what is queued, then stop — all of it after a replay that played to its
        end; after a stop, for at most STOP_WAIT_S (the job in flight then is cancelled and stays queued)."""
        return self.finish(STOP_WAIT_S if stopped else None)

    def finish(self, timeout: float | None = None) -> Report:
        """Write everything queued, then stop (a file replay ends: the user wants its memory written)."""
        self._draining = True
        self._wake.set()
        self._thread.join(timeout)
        if self._thread.is_alive():  # gave up waiting: stop the call in flight, the job stays queued
            self.stop()
        return self.report

    def stop(self) -> Report:
        """Stop now, from any thread; a job cut short stays queued (with a shared model, the call in flight is
        finished)."""
        self._stop.set()
        self._wake.set()
        llm = self._llm
        if llm is not None and self._own_llm:
            llm.close()  # cancels the call in flight
        self._thread.join(60)
        if llm is not None and self._on_fault is not None:
            llm.unlisten(self._on_fault)
        return self.report

    def _run(self) -> None:
        memory = None
        try:
            memory = self._main.second()
            while not self._stop.is_set():
                if memory.writing.next_job(self.cfg.memory.attempts) is not None:
                    self.busy = True
                    try:
                        self._write(memory)
                    finally:
                        self.busy = False
                    if self.error is not None:
                        return
                elif self._draining:
                    return
                self._wake.wait(IDLE_S)
                self._wake.clear()
        except AppError as e:
            self.error = str(e)
            _LOGGER.warning("memory writing in the background stopped: %s (run `python -m app consolidate`)", e)
        finally:
            if memory is not None:
                memory.close()
            if self._llm is not None and self._own_llm:
                self._llm.close()

    def _write(self, memory: Memory) -> None:
        if self._llm is None:
            try:
                self._llm = self._shared.get() if self._shared else load_llm(self.cfg, beside_capture=True)
            except AppError as e:
                self.error = str(e)
                _LOGGER.warning("no memory writing while recording: %s; `python -m app consolidate` later", e)
                if self._on_fault is not None:
                    self._on_fault(str(e))
                return
            if self._on_fault is not None:
                self._llm.listen(self._on_fault)
        consolidator = Consolidator(memory, self._llm, self.embedder, self.cfg)
        consolidator.report = self.report
        consolidator.run(
            self._stop,
            progress=(lambda job, left: self._on_written(job.kind, job.ref)) if self._on_written else None,
        )
