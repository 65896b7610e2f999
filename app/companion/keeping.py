"""The latest lines read ahead (`companion.keep_lines`): while nobody has spoken for `QUIET_S` and the companion
neither speaks nor thinks, the model evaluates the reading of one stored line at a time and keeps it
(`Answerer.keep_ahead`, `Request.keep`), so a question whose line is among them evaluates only its own words
(app/companion/companion.py; README, Voice companion)."""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Iterable

from app.ask.answer import Answerer
from app.errors import AppError

_LOGGER = logging.getLogger(__name__)
QUIET_S = 1.0  # a line is evaluated ahead only after this long without speech (its recognition is done)


class LinesAhead:
    """The stored lines waiting to be read ahead, the job reading one of them, and when speech was last heard."""

    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self._lines: collections.deque[int] = collections.deque(maxlen=max(1, size))
        self._job = None  # the job evaluating one of them
        self._begun = threading.Event()  # the lines already stored are queued
        self.kept = 0  # lines whose reading was evaluated ahead
        self.voiced_s = float("-inf")  # when a VAD window last held speech (stream s)

    def add(self, ids: Iterable[int]) -> None:
        """Lines to read ahead, the last one read last (the oldest go when more come than are kept)."""
        with self._lock:
            self._lines.extend(ids)

    def begin(self) -> None:
        """The lines already stored are queued (or there are none to queue)."""
        self._begun.set()

    def _reading(self) -> bool:
        return self._job is not None and not self._job.future.done()

    @property
    def settled(self) -> bool:
        """Nothing left to evaluate ahead: what a companion that has run a while is."""
        with self._lock:
            return self._begun.is_set() and not self._lines and not self._reading()

    def step(self, answerer: Answerer, now_s: float, free: bool) -> None:
        """At `now_s` (stream s), with the companion `free` (neither speaking nor thinking): have the next line's
        reading evaluated ahead, one at a time, each under a second, so a question that begins meanwhile finds the
        model free when its words are known, or free after a few tokens (a question pre-empts it)."""
        with self._lock:
            if self._reading() or not self._lines or not free or now_s - self.voiced_s < QUIET_S:
                return
            uid = self._lines.popleft()
        try:
            jobs = answerer.keep_ahead([uid])
        except AppError as e:
            _LOGGER.info("a line was not evaluated ahead: %s", e)
            return
        with self._lock:
            self._job = jobs[0] if jobs else None
            self.kept += len(jobs)
