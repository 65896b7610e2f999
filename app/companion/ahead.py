"""A request answered ahead: the words recognised while the VAD still waits out the silence after them are
answered on the reply thread, not said; the answer is said once the same words close the utterance, and dropped
(its model job cancelled) when speech starts again first (app/companion/companion.py)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime

from app.ask.answer import Answer, Answerer
from app.ask.grounding import asker_needed
from app.errors import AppError

_LOGGER = logging.getLogger(__name__)


@dataclass
class Ahead:
    """A request answered from the words recognised before its utterance closed."""

    question: str
    person: str | None  # who was there then (the utterance's speaker is decided when it is stored)
    t_s: float  # stream time the request ended (speech end)
    started_s: float  # clock
    job: object | None = None  # the model's job now, to cancel
    result: Answer | None = None  # once answered (not cancelled)


class AnsweredAhead:
    """The one request being answered ahead, shared by the recorder's loop (which starts and drops it) and the
    reply thread (which answers and takes it), under the companion's `lock`."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self.current: Ahead | None = None

    def start(self, question: str, person: str | None, t_s: float, now_s: float) -> Ahead:
        with self._lock:
            self.current = ahead = Ahead(question, person, t_s, now_s)
        return ahead

    def drop(self) -> None:
        """The speaker went on: what was answered ahead is not what they will ask."""
        with self._lock:
            ahead, self.current = self.current, None
        if ahead is not None and ahead.job is not None:
            ahead.job.cancel()

    def take(self, question: str, t_s: float, person: str | None) -> Ahead | None:
        """The answer worked out ahead for this request: the same words ending at the same time, and the same
        asker when it matters."""
        with self._lock:
            ahead, self.current = self.current, None
        if ahead is None or ahead.result is None or ahead.question != question or abs(ahead.t_s - t_s) > 1e-3:
            return None
        return ahead if ahead.person == person or not asker_needed(question) else None

    def answer(self, answerer: Answerer | None, ahead: Ahead, now: datetime, timeout_s: float) -> None:
        """Answer `ahead` without saying it (on the reply thread); kept unless dropped meanwhile."""
        if answerer is None or self.current is not ahead:
            return

        def on_job(job) -> None:
            ahead.job = job
            if self.current is not ahead:
                job.cancel()

        try:
            result = answerer(ahead.question, now, ahead.person, timeout_s=timeout_s, on_job=on_job)
        except AppError as e:  # cancelled, or the model failed: the request is answered when its utterance closes
            _LOGGER.debug("the answer ahead was not kept: %s", e)
            return
        if result.finish != "cancelled" and self.current is ahead:
            ahead.result = result
