"""The running process: one `Runtime` owns every part — the event bus, the supervised model process, the
recorder (and its background memory writer), the voice companion, the local API — and starts and stops them
in one declared order.

    start: model → companion → service → recorder
    stop:  listening → recorder (stores what was acknowledged) → companion → service's connections → model

`run()` records until the source ends (`python -m app run`); `serve()` serves until SIGINT/SIGTERM, recording
meanwhile when there is a source (`serve`, `run --serve`, `--device jetson`). Stopping is an ending: the first
SIGINT (Ctrl-C) or SIGTERM ends the recording as the end of a stream does — the conversation that was going on is
closed and its memory written (app/consolidation/background.py bounds the wait) — and the next leaves what is not
written yet queued for the next start; each is told in one line. The recorder's stages are kept alive by
app/supervision.py; the model's process by app/llm (restarted with back-off); the companion's and the memory
writer's threads log a failed job and take the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.companion.companion import Companion
from app.companion.duplex import DuplexSource, Playback
from app.companion.echo import EchoCanceller, EchoPath
from app.companion.tts import load_voice
from app.compat import StrEnum
from app.config import Config
from app.consolidation.consolidator import Report
from app.errors import AppError
from app.events import Bus, Event
from app.frames import SAMPLE_RATE_HZ
from app.llm import SharedLLM
from app.recorder.pipeline import Recorder
from app.recorder.sources import Source
from app.recorder.summary import RunSummary
from app.service.events import EventLog
from app.service.ingest import IngestSource
from app.service.server import Listen, start_http

_LOGGER = logging.getLogger(__name__)
START_ORDER = ("model", "companion", "service", "recorder")
STOP_ORDER = ("listening", "recorder", "companion", "service", "model")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Lifecycle(StrEnum):
    NEW = "new"
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    STOPPED = "stopped"


class Runtime:
    """`models`: the recorder's Perception (None to serve the memory without recording); `companion`: the voice
    companion listens and talks through the source (a `DuplexSource` around it); `speaker` plays its voice
    (the glasses' stream for ingest); `simulate_echo`, `keep_tracks`: replays and the benchmark; `hold`: a
    replayed file's clock stands still while the companion works out what to say (`run --companion --hold`: a
    test on a loaded machine; never a bench, whose latencies would leave the thinking out); `tell` says one line
    to the user (what a stop does, and what it wrote; the commands write it to stderr)."""

    def __init__(
        self,
        cfg: Config,
        memory,
        models=None,
        source: Source | None = None,
        *,
        companion: bool = False,
        speaker: Callable[[np.ndarray, float], None] | None = None,
        simulate_echo: EchoPath | None = None,
        keep_tracks: bool = False,
        hold: bool = False,
        on_event: Callable[[Event], None] | None = None,
        on_progress: Callable[[float], None] | None = None,
        tell: Callable[[str], None] | None = None,
    ) -> None:
        self.cfg, self.memory, self.models, self.source = cfg, memory, models, source
        self.state = Lifecycle.NEW
        self.bus = Bus()
        if on_event is not None:
            self.bus.subscribe(on_event)
        # one model: chat and answers at dialog priority, memory writing behind them
        self.llm = SharedLLM(cfg)
        self.companion: Companion | None = None
        self.duplex: DuplexSource | None = None
        self.recorder: Recorder | None = None
        self.summary: RunSummary | None = None
        self._speaker, self._echo, self._keep_tracks = speaker, simulate_echo, keep_tracks
        self._hold = hold and source is not None and source.duration_s is not None  # a live source cannot wait
        self._on_progress = on_progress
        self._with_companion = companion and source is not None
        self._recording: asyncio.Task | None = None
        self._http = None  # (uvicorn server, its task, the Service)
        self._tell = tell or (lambda line: _LOGGER.info("%s", line))
        self._signals = 0  # SIGINT/SIGTERM received
        self._recording_stopped = False  # the first of them ended a recording
        self._leaving: asyncio.Task | None = None  # the memory writer stopping after a second signal

    # ------------------------------------------------------------------ the parts, in START_ORDER
    async def _start_model(self) -> None:
        if not self._with_companion:
            return  # loaded when first asked
        try:  # loaded now, before anything runs beside it: llama.cpp silences stdout and stderr while it loads
            await asyncio.to_thread(self.llm.get)
        except AppError as e:  # the companion says it cannot answer; recording goes on
            _LOGGER.error("the companion cannot answer: %s", e)

    def _build_companion(self) -> Source:
        """The duplex source around `source`, and the companion on the bus; the source the recorder reads."""
        cfg, source = self.cfg, self.source
        assert source is not None and self.models is not None
        playback = Playback()
        self.duplex = duplex = DuplexSource(
            source,
            playback,
            EchoCanceller() if cfg.companion.echo_cancel else None,
            self._echo,
            self._speaker,
            tail_s=cfg.companion.tail_s,
            keep_tracks=self._keep_tracks,
        )
        self.companion = Companion(
            cfg,
            self.memory,
            self.models.text,
            load_voice(cfg.models_dir, cfg.companion.voice),
            self.models.voice,
            self.llm,
            playback,
            lambda: duplex.clock_s,
            source.origin_epoch_s,
            self.bus,
            self.models.vad.window_samples / SAMPLE_RATE_HZ,
        )
        duplex.busy = lambda: self.companion is not None and self.companion.busy
        if self._hold:
            duplex.hold = lambda: self.companion is not None and self.companion.thinking
        return duplex

    def _build_recorder(self) -> None:
        if self.source is None:
            return
        source = self._build_companion() if self._with_companion else self.source
        refuse = self.companion.refusal if self.companion is not None else None
        self.recorder = Recorder(
            self.cfg,
            self.memory,
            self.models,
            source,
            None,
            self._on_progress,
            self.llm,
            self.bus,
            refuse,
            eager=self.companion is not None,  # the companion waits for the words: recognise them ahead
            heard_ahead=self.companion.heard_ahead if self.companion is not None else None,
        )

    async def _start_service(self, listen: Listen, embedder, data_dir: Path) -> None:
        log = EventLog(self.cfg.service.events_kept)
        log.bind(asyncio.get_running_loop())
        self.bus.subscribe(log.add)
        ingest = self.source if isinstance(self.source, IngestSource) else None
        self._http = await start_http(
            self.cfg, self.memory, embedder, log, data_dir, listen, ingest, self.llm, self.recorder, self.companion
        )

    def _start_recorder(self) -> None:
        if self.recorder is not None:
            self._recording = asyncio.create_task(self.recorder.run(), name="recorder")

    # ------------------------------------------------------------------ the whole
    async def run(self) -> RunSummary:
        """Record until the source ends or stops; everything stopped in order afterwards."""
        assert self.source is not None, "nothing to record"
        self._catch_signals(self.source.stop)  # stop the source: what was captured is kept
        try:
            await self._start()
            assert self._recording is not None
            await asyncio.shield(self._recording)
        finally:
            await self._stop()
            self._tell_written()
        assert self.summary is not None
        return self.summary

    async def serve(self, listen: Listen, embedder, data_dir: Path) -> int:
        """Serve until SIGINT/SIGTERM (recording meanwhile, when there is a source); the recorder's exit code.
        A recorder that stops on its own says why; the API goes on serving the memory."""
        self._catch_signals(self._stop_serving)
        try:
            await self._start(listen, embedder, data_dir)
            _, serving, _ = self._http
            if self._signals:  # stopped while starting
                self._stop_serving()
            if self._recording is not None:
                self._recording.add_done_callback(_report_stop)
            await serving
        finally:
            await self._stop()
            self._tell_written()
        if self.summary is not None:
            _LOGGER.info("recorded %d utterances while serving", self.summary.utterances)
            return self.summary.exit_code
        return 0

    def _stop_serving(self) -> None:
        """Stop listening; asked again, without waiting for open connections (an event stream)."""
        if self._http is not None:
            server = self._http[0]
            server.force_exit = server.should_exit
            server.should_exit = True

    # ------------------------------------------------------------------ stopping is an ending
    def _catch_signals(self, stop: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread, or no signals
                loop.add_signal_handler(sig, self._signalled, sig, stop)

    def _signalled(self, sig: int, stop: Callable[[], None]) -> None:
        """SIGINT or SIGTERM: the first ends the recording (`stop`) as the end of a stream does, the open
        conversation closed and its memory written; the second leaves what is not written yet queued."""
        self._signals += 1
        said = "Ctrl-C" if sig == signal.SIGINT else signal.Signals(sig).name
        recorder = self.recorder
        stop()
        if self._signals == 1:
            self._recording_stopped = recorder is not None and recorder.running
            self._tell(f"stopped ({said})" + (self._stopping(said) if self._recording_stopped else ""))
        elif self._signals == 2 and recorder is not None and recorder.background is not None:
            self._tell(f"{said} again: what is not written yet stays queued and is written at the next start")
            self._leaving = asyncio.create_task(asyncio.to_thread(recorder.background.stop), name="memory-stop")

    def _stopping(self, said: str) -> str:
        """What the first stop does with the memory."""
        assert self.recorder is not None
        going_on = self.recorder.writer.session is not None
        background = self.recorder.background
        if not going_on and (background is None or not background.busy):
            return ""
        if background is None:  # memory.background is off: left to `consolidate`
            return ": the conversation is closed and queued; `python -m app consolidate` writes its memory"
        what = "the conversation that was going on" if going_on else "the conversations already closed"
        return f": writing the memory of {what} ({said} again to leave it for the next start)"

    def _tell_written(self) -> None:
        """After a stop that ended the recording: one line on what memory was written and what is left queued."""
        if not self._recording_stopped or not self.cfg.memory.background:
            return
        assert self.recorder is not None
        try:
            pending = self.memory.writing.queue_state(self.cfg.memory.attempts)["pending"]
        except Exception:  # the summary still comes; the queue is intact
            _LOGGER.exception("reading the memory queue failed")
            return
        background = self.recorder.background
        report = background.report if background is not None else Report()
        if not report.jobs and not pending:
            return
        line = f"written: {_written(report)}" if report.jobs else "no memory written"
        if pending:
            line += f"; {_count(pending, 'job')} left queued for the next start (or `python -m app consolidate`)"
        if background is not None and background.error:
            line += f" ({background.error})"
        self._tell(line)

    async def _start(self, listen: Listen | None = None, embedder=None, data_dir: Path | None = None) -> None:
        self.state = Lifecycle.STARTING
        for part in START_ORDER:
            if part == "model":
                await self._start_model()
            elif part == "companion":
                self._build_recorder()  # the companion sits between the source and the recorder
            elif part == "service" and listen is not None:
                assert data_dir is not None
                await self._start_service(listen, embedder, data_dir)
            elif part == "recorder":
                self._start_recorder()
        self.state = Lifecycle.RUNNING

    async def _stop(self) -> None:
        self.state = Lifecycle.STOPPING
        for part in STOP_ORDER:
            try:
                await self._stop_part(part)
            except Exception:  # the next part is still stopped
                _LOGGER.exception("stopping the %s failed", part)
        if self._leaving is not None:
            await asyncio.gather(self._leaving, return_exceptions=True)
        self.state = Lifecycle.STOPPED

    async def _stop_part(self, part: str) -> None:
        if part == "listening" and self._http is not None:
            server, serving, _ = self._http
            server.should_exit = True
            await asyncio.gather(serving, return_exceptions=True)
        elif part == "recorder" and self._recording is not None:
            assert self.recorder is not None
            if not self._recording.done():
                self.recorder.source.stop()  # what was acknowledged is still processed and stored
                await asyncio.wait([self._recording])
            if not self._recording.cancelled() and self._recording.exception() is None:
                self.summary = self._recording.result()
        elif part == "companion" and self.companion is not None:
            await asyncio.to_thread(self.companion.close)
        elif part == "service" and self._http is not None:
            await asyncio.to_thread(self._http[2].close)
        elif part == "model":
            await asyncio.to_thread(self.llm.close)


def _count(n: int, what: str, plural: str | None = None) -> str:
    return f"{n} {what if n == 1 else plural or what + 's'}"


def _written(report: Report) -> str:
    """'the memory of 1 conversation (3 new facts, 1 relation, 1 summary) in 2.1 s'."""
    if not report.sessions:  # day summaries and profiles only
        return f"{_count(report.jobs, 'memory job')} in {report.seconds:.1f} s"
    facts = report.actions.get("add", 0) + report.actions.get("supersede", 0)
    return (
        f"the memory of {_count(report.sessions, 'conversation')} ({_count(facts, 'new fact')}, "
        f"{_count(report.relations, 'relation')}, {_count(report.summaries, 'summary', 'summaries')}) "
        f"in {report.seconds:.1f} s"
    )


def _report_stop(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        _LOGGER.error("recording stopped: %s; still serving", task.exception())
