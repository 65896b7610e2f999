"""Full-duplex audio: what the companion says is played on the clock of what the microphone hears.

Every microphone chunk takes the same number of samples from `Playback` (silence when nothing is said), so
the far end (what was played) and the near end (what was heard) stay sample-aligned whatever the source:
a live duplex device or a replayed file. `DuplexSource` wraps any recorder source: per chunk it plays the
companion's output (to a speaker, and to the tracks a replay writes as WAV), adds a simulated speaker-to-mic
echo when asked (`EchoPath`, for replays and the benchmark), and hands the recorder the microphone with the
echo cancelled. After a file ends it keeps the clock running on silence while the companion still has
something to say, so a replay hears the last answer out.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import numpy as np

from app.frames import SAMPLE_RATE_HZ, AudioChunk, VideoFrame
from app.recorder.sources import Source

TAIL_CHUNK_S = 0.064


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
    ) -> None:
        self.source, self.playback, self.canceller, self.echo_path = source, playback, canceller, echo_path
        self.speaker, self.busy, self.tail_s = speaker, busy, tail_s
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
        async for item in self.source.stream():
            yield self.through(item) if isinstance(item, AudioChunk) else item
        if self.source.duration_s is None or self.source.stopped:
            return
        # a file ended: keep the clock running on silence (paced at real time) while the companion talks
        n = int(TAIL_CHUNK_S * SAMPLE_RATE_HZ)
        tail_end = self.clock_s + self.tail_s
        started = time.monotonic() - self.clock_s
        while (self.busy() or self.playback.busy) and self.clock_s < tail_end:
            delay = started + self.clock_s - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            yield self.through(AudioChunk(np.zeros(n, np.float32), self.clock_s))
        self.duration_s = self.clock_s

    def track(self, name: str) -> np.ndarray:
        assert self.tracks is not None, "made without keep_tracks"
        parts = self.tracks[name]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)
