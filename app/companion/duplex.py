"""Full-duplex audio: what the companion says is played on the clock of what the microphone hears.

Every microphone chunk takes the same number of samples from `Playback` (silence when nothing is said), so
the far end (what was played) and the near end (what was heard) stay sample-aligned whatever the source:
a live duplex device or a replayed file. `DuplexSource` wraps any recorder source: per chunk it plays the
companion's output (to a speaker, and to the tracks a replay writes as WAV), adds a simulated speaker-to-mic
echo when asked (`EchoPath`, for replays and the benchmark), and hands the recorder the microphone with the
echo cancelled. After a file ends it keeps the clock running on silence while the companion still has
something to say, so a replay hears the last answer out.

With `hold` (`run --companion --hold`: a test's replay on a loaded machine) the replay's clock stands still, at a
pause, while the companion works out what to say (nothing is played meanwhile): the file goes on where it stood once
there is something to play, so a slow machine replays the scene as a fast one would, a line still talking over what
is being said. The latencies it reports then leave out the thinking.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import numpy as np

from app.frames import SAMPLE_RATE_HZ, AudioChunk, VideoFrame
from app.recorder.sources import Source

_LOGGER = logging.getLogger(__name__)
TAIL_CHUNK_S = 0.064
HOLD_MAX_S = 300.0  # the longest one hold lasts: guards a hang, nothing else (an answer took 100 s on 2 busy cores)
HOLD_POLL_S = 0.02  # how often a held replay looks whether it may go on
QUIET_PEAK = 0.003  # a replayed chunk that peaks below this (-50 dBFS) holds no speech


@dataclass(eq=False)
class Played:
    """One thing the companion said: its audio and, once played, when (stream seconds)."""

    tag: str
    audio: np.ndarray
    text: str = ""
    start_s: float | None = None
    end_s: float | None = None
    stopped: bool = False


class Playback:
    """The companion's output queue, drained by the input clock (`pull`), stoppable at once (barge-in).
    Thread-safe: the companion's thread queues speech, the recorder's loop pulls it."""

    def __init__(
        self, on_start: Callable[[Played], None] | None = None, on_end: Callable[[Played], None] | None = None
    ) -> None:
        self._lock = threading.Lock()
        self._queue: collections.deque[Played] = collections.deque()
        self._pos = 0  # samples of the head already played
        self.on_start, self.on_end = on_start, on_end
        self.history: list[Played] = []  # everything played (or stopped), for the self-speech filter and benches

    def play(self, item: Played) -> None:
        with self._lock:
            self._queue.append(item)

    @property
    def busy(self) -> bool:
        with self._lock:
            return bool(self._queue)

    def pull(self, n: int, t_s: float) -> np.ndarray:
        """The next `n` samples to play, starting at stream time `t_s`."""
        out = np.zeros(n, np.float32)
        started, ended = [], []
        with self._lock:
            filled = 0
            while filled < n and self._queue:
                head = self._queue[0]
                if head.start_s is None:
                    head.start_s = t_s + filled / SAMPLE_RATE_HZ
                    self.history.append(head)
                    started.append(head)
                take = min(n - filled, len(head.audio) - self._pos)
                out[filled : filled + take] = head.audio[self._pos : self._pos + take]
                filled += take
                self._pos += take
                if self._pos >= len(head.audio):
                    head.end_s = t_s + filled / SAMPLE_RATE_HZ
                    ended.append(self._queue.popleft())
                    self._pos = 0
        for item in started:
            if self.on_start:
                self.on_start(item)
        for item in ended:
            if self.on_end:
                self.on_end(item)
        return out

    def stop(self, t_s: float, tags: set[str] | None = None) -> list[Played]:
        """Drop what is queued (of `tags`, or everything); what was playing ends at `t_s`, marked stopped."""
        with self._lock:
            dropped = [p for p in self._queue if tags is None or p.tag in tags]
            self._queue = collections.deque(p for p in self._queue if p not in dropped)
            if dropped and dropped[0].start_s is not None:
                self._pos = 0
        for p in dropped:
            p.stopped = True
            if p.start_s is not None:
                p.end_s = t_s
        return dropped

    def playing_at(self, t0_s: float, t1_s: float, margin_s: float = 0.5) -> list[Played]:
        """What was (or is being) played between stream times `t0_s` and `t1_s`, give or take `margin_s`."""
        with self._lock:
            items = list(self.history)
        return [
            p
            for p in items
            if p.start_s is not None
            and p.start_s - margin_s <= t1_s
            and (p.end_s is None or p.end_s + margin_s >= t0_s)
        ]


class DuplexSource:
    """A recorder source whose audio goes through the duplex: play, (simulate echo,) cancel echo."""

    def __init__(
        self,
        source: Source,
        playback: Playback,
        canceller=None,
        echo_path=None,
        speaker: Callable[[np.ndarray, float], None] | None = None,
        busy: Callable[[], bool] = lambda: False,
        tail_s: float = 30.0,
        keep_tracks: bool = False,
        hold: Callable[[], bool] | None = None,
        hold_max_s: float = HOLD_MAX_S,
    ) -> None:
        self.source, self.playback, self.canceller, self.echo_path = source, playback, canceller, echo_path
        self.speaker, self.busy, self.tail_s = speaker, busy, tail_s
        self.hold, self.hold_max_s = hold, hold_max_s  # a replay's clock stands still while `hold()` (None: never)
        self.held_s = 0.0  # seconds (wall) it stood still
        self.clock_s = 0.0  # stream time of the end of the last chunk through
        self.tracks: dict[str, list[np.ndarray]] | None = (
            {"mic": [], "played": [], "echo": [], "heard": []} if keep_tracks else None
        )
        self.duration_s = source.duration_s  # a replay's grows by the silence heard after the file

    # the rest of the `Source` is the source's own
    @property
    def name(self) -> str:
        return self.source.name

    @property
    def has_video(self) -> bool:
        return self.source.has_video

    @property
    def origin_epoch_s(self) -> float | None:
        return self.source.origin_epoch_s

    @property
    def realtime(self) -> bool:
        return self.source.realtime

    @realtime.setter
    def realtime(self, value: bool) -> None:
        self.source.realtime = value

    @property
    def stopped(self) -> bool:
        return self.source.stopped

    def check(self) -> None:
        self.source.check()

    def stop(self) -> None:
        self.source.stop()

    def through(self, chunk: AudioChunk) -> AudioChunk:
        """Play the chunk's length of output, add its echo when simulated, cancel the echo."""
        mic = chunk.samples.astype(np.float32, copy=False)
        played = self.playback.pull(len(mic), chunk.t_start_s)
        if self.speaker is not None:
            self.speaker(played, chunk.t_start_s)
        echo = self.echo_path(played) if self.echo_path is not None else None
        if echo is not None:
            mic = mic + echo
        heard = self.canceller(mic, played) if self.canceller is not None else mic
        if self.tracks is not None:
            for name, part in (("mic", mic), ("played", played), ("echo", echo), ("heard", heard)):
                if part is not None:
                    self.tracks[name].append(part)
        self.clock_s = chunk.t_start_s + len(mic) / SAMPLE_RATE_HZ
        return AudioChunk(heard.astype(np.float32, copy=False), chunk.t_start_s)

    async def stream(self) -> AsyncIterator[AudioChunk | VideoFrame]:
        items = self.source.stream() if self.hold is None else self._held(self.hold)
        async for item in items:
            yield self.through(item) if isinstance(item, AudioChunk) else item
        if self.source.duration_s is None or self.source.stopped:
            return
        # a file ended: keep the clock running on silence (paced at real time) while the companion talks
        n = int(TAIL_CHUNK_S * SAMPLE_RATE_HZ)
        tail_end = self.clock_s + self.tail_s
        started = time.monotonic() - self.clock_s
        while (self.busy() or self.playback.busy) and self.clock_s < tail_end:
            if self.hold is not None:
                started += await self._still_while(self.hold)
            delay = started + self.clock_s - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            yield self.through(AudioChunk(np.zeros(n, np.float32), self.clock_s))
        self.duration_s = self.clock_s

    async def _held(self, hold: Callable[[], bool]) -> AsyncIterator[AudioChunk | VideoFrame]:
        """The source's items, the clock standing still while `hold()` before a chunk that does not go on from
        speech (never inside a word); paced here at real time from where it stood (the source's own pacing would
        rush what comes after)."""
        origin: float | None = None  # monotonic time of stream time 0
        voiced_before = False
        async for item in self.source.stream():
            t_s = item.t_start_s if isinstance(item, AudioChunk) else item.t_s
            if origin is None:
                origin = time.monotonic() - t_s
            if isinstance(item, AudioChunk):
                voiced = item.samples.size > 0 and float(np.abs(item.samples).max()) >= QUIET_PEAK
                if not (voiced and voiced_before):
                    origin += await self._still_while(hold)
                voiced_before = voiced
            if self.source.realtime:
                delay = origin + t_s - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            yield item

    async def _still_while(self, hold: Callable[[], bool]) -> float:
        """Wait while `hold()`, at most `hold_max_s` and never past a stop: the seconds waited (in `held_s`)."""
        if not hold():
            return 0.0
        started, held = time.monotonic(), True
        while held and not self.source.stopped and time.monotonic() - started < self.hold_max_s:
            await asyncio.sleep(HOLD_POLL_S)
            held = hold()
        waited = time.monotonic() - started
        self.held_s += waited
        if held and not self.source.stopped:
            _LOGGER.warning("the replay held its clock %.0f s at %.1f s; it goes on", waited, self.clock_s)
        else:
            _LOGGER.info("the replay held its clock %.1f s at %.1f s", waited, self.clock_s)
        return waited

    def track(self, name: str) -> np.ndarray:
        assert self.tracks is not None, "made without keep_tracks"
        parts = self.tracks[name]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)
