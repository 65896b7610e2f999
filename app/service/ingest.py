"""Audio and camera frames from the glasses over a WebSocket, as a recorder source (the same pipeline as
`run`: VAD, ASR, identity, sessions, store).

Protocol (`/v1/ingest`, the bearer token in the handshake's Authorization header):
- the client opens with a text message `{"type": "hello", "stream": "<id>", "rate": <Hz>, "t0": <epoch s>}`:
  one stream of microphone audio at `rate` (8–48 kHz) whose sample 0 was captured at `t0`;
- the server answers `{"type": "ready", "acked": N}`: the samples of this stream it already holds (0 for a new
  one), so a client that reconnects resends from sample N and nothing acknowledged is lost or doubled;
- audio: a binary message `b"A"` + the offset of its first sample (uint64, little-endian) + PCM16LE mono;
  each is answered `{"type": "ack", "acked": N}` once it is in the pipeline's queue (a full queue holds the
  answer back: backpressure reaches the client); audio before N is dropped as already held, a hole after N
  is filled with silence;
- a camera frame: `b"V"` + its capture time (float64 epoch seconds, little-endian) + a JPEG;
- bad input gets `{"type": "error", "error": "..."}` and the stream goes on; a wrong sample rate or a
  malformed hello closes it with code 1003. What is refused: times that are not finite or not plausible
  (before 2000 or more than a day ahead), a hole longer than `audio.queue_s` (it would be queued as
  silence), an audio message over `MAX_AUDIO_S` seconds or a frame over `MAX_FRAME_BYTES`, more than
  `MAX_STREAMS` streams (one idle for `STREAM_IDLE_S` expires);
- with the voice companion on (`serve --companion`), what it says comes back to the glasses' speaker as binary
  messages `b"S"` + the time of its first sample on the microphone's clock (float64 epoch seconds) + PCM16LE
  mono at 16 kHz, played in step with the microphone audio the client sends (the companion's clock).
"""

from __future__ import annotations

import asyncio
import logging
import math
import struct
import time
from collections.abc import AsyncIterator

import numpy as np
import soxr

from app.config import Config
from app.frames import SAMPLE_RATE_HZ, AudioChunk, VideoFrame

_LOGGER = logging.getLogger(__name__)
RATES = range(8000, 48001)
MAX_AUDIO_S = 10.0  # longest audio message
MAX_FRAME_BYTES = 4 << 20  # largest JPEG frame
MAX_STREAMS = 16
STREAM_IDLE_S = 3600.0  # a stream nobody sent to for this long is forgotten (its resume point with it)
EARLIEST_S = 946_684_800.0  # 2000-01-01: a capture time before it is a broken clock
AHEAD_S = 86_400.0  # nor more than a day ahead of this machine's clock
AUDIO, FRAME, SPEECH = b"A", b"V", b"S"
SPEECH_QUEUE = 512  # blocks of the companion's speech waiting for a client (about 16 s); the oldest go first
_OFFSET = struct.Struct("<Q")
_TIME = struct.Struct("<d")


class IngestError(ValueError):
    """Bad input on the ingest stream: one line for the client."""


def ingest_max_message(cfg: Config) -> int:
    """The largest WebSocket message a client may send: a whole audio message at 48 kHz, or a frame."""
    return max(1 + _OFFSET.size + int(MAX_AUDIO_S * RATES[-1]) * 2, 1 + _TIME.size + MAX_FRAME_BYTES)


def plausible_time(t: float, what: str) -> float:
    if not isinstance(t, int | float) or not math.isfinite(t) or not EARLIEST_S <= t <= time.time() + AHEAD_S:
        raise IngestError(f"{what} {t!r} is not a plausible capture time (epoch seconds, finite, since 2000)")
    return float(t)


class IngestSource:
    """A live recorder source fed by the ingest WebSocket; it waits for data while no client is connected."""

    name = "glasses"
    duration_s = None
    has_video = True
    realtime = True

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.origin_epoch_s = 0.0  # stream times are the glasses' capture times (epoch seconds)
        self._queue: asyncio.Queue = asyncio.Queue(max(8, int(cfg.audio.queue_s / 0.064)))
        self._streams: dict[str, _Stream] = {}
        self._written = 0  # 16 kHz samples handed to the pipeline
        self._stop = asyncio.Event()
        self.stopped = False
        self.speech: asyncio.Queue[bytes] = asyncio.Queue(SPEECH_QUEUE)  # the companion's voice, for the client

    def speak(self, block: np.ndarray, t_s: float) -> None:
        """The companion's output for the microphone block at `t_s` (from the recorder's loop): sent to the
        client unless it is silence."""
        if not np.any(block):
            return
        if self.speech.full():
            self.speech.get_nowait()
        pcm = (np.clip(block, -1.0, 1.0) * 32767).astype("<i2")
        self.speech.put_nowait(SPEECH + _TIME.pack(t_s) + pcm.tobytes())

    def check(self) -> None:
        pass

    def hello(self, stream: str, rate: int, t0: float) -> int:
        """Start or resume `stream`; returns the samples of it already held."""
        if not isinstance(rate, int) or rate not in RATES:
            raise IngestError(f"sample rate {rate} Hz is not supported (8000-48000)")
        if not isinstance(stream, str) or not stream or len(stream) > 200:
            raise IngestError("hello needs a stream id (1-200 characters)")
        t0 = plausible_time(t0, "t0")
        now = time.monotonic()
        for name in [n for n, s in self._streams.items() if now - s.last_seen > STREAM_IDLE_S]:
            del self._streams[name]
        held = self._streams.get(stream)
        if held is None and len(self._streams) >= MAX_STREAMS:
            raise IngestError(f"{MAX_STREAMS} streams are open already; reuse a stream id")
        if held is None or held.rate != rate:
            held = self._streams[stream] = _Stream(rate, t0)
        held.last_seen = now
        return held.acked

    async def audio(self, stream: str, payload: bytes) -> int:
        """One audio message into the pipeline's queue; returns the stream's acknowledged samples."""
        held = self._streams.get(stream)
        if held is None:
            raise IngestError("send hello first")
        if len(payload) < _OFFSET.size or (len(payload) - _OFFSET.size) % 2:
            raise IngestError("an audio message is an 8-byte offset and 16-bit samples")
        (offset,) = _OFFSET.unpack_from(payload)
        pcm = np.frombuffer(payload[_OFFSET.size :], "<i2")
        if len(pcm) > MAX_AUDIO_S * held.rate:
            raise IngestError(f"an audio message holds at most {MAX_AUDIO_S:g} s")
        hole = offset - held.acked
        if hole > self.cfg.audio.queue_s * held.rate:
            raise IngestError(
                f"a gap of {hole / held.rate:.0f} s before this message (offset {offset}, {held.acked} samples "
                f"held): over audio.queue_s ({self.cfg.audio.queue_s:g} s); resend from {held.acked} or start a new "
                "stream"
            )
        held.last_seen = time.monotonic()
        if offset > held.acked:  # a hole: what was never received is silence, so times stay right
            pcm = np.concatenate([np.zeros(offset - held.acked, np.int16), pcm])
        elif offset < held.acked:  # resent after a reconnect: keep only what is new
            pcm = pcm[held.acked - offset :]
        if len(pcm):
            samples = held.resample(pcm.astype(np.float32) / 32768.0)
            t = held.start_s + held.written / SAMPLE_RATE_HZ
            held.written += len(samples)
            held.acked += len(pcm)
            await self._queue.put(AudioChunk(samples, t))
        return held.acked

    async def frame(self, payload: bytes) -> None:
        # lazy: OpenCV is heavy (~0.1 s); only the glasses' frames need it
        import cv2

        if len(payload) <= _TIME.size:
            raise IngestError("a frame message is an 8-byte capture time and a JPEG")
        if len(payload) > _TIME.size + MAX_FRAME_BYTES:
            raise IngestError(f"a frame is at most {MAX_FRAME_BYTES >> 20} MiB")
        (t,) = _TIME.unpack_from(payload)
        t = plausible_time(t, "the frame's time")
        image = cv2.imdecode(np.frombuffer(payload[_TIME.size :], np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise IngestError("the frame is not a readable JPEG")
        await self._queue.put(VideoFrame(image, t))

    async def stream(self) -> AsyncIterator[AudioChunk | VideoFrame]:
        while not self._stop.is_set():
            getter = asyncio.ensure_future(self._queue.get())
            stopper = asyncio.ensure_future(self._stop.wait())
            done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if getter in done:
                yield getter.result()
            else:
                getter.cancel()
        while not self._queue.empty():  # stopping keeps what was acknowledged
            yield self._queue.get_nowait()

    def stop(self) -> None:
        self.stopped = True
        self._stop.set()


class _Stream:
    def __init__(self, rate: int, start_s: float) -> None:
        self.rate, self.start_s = rate, start_s
        self.acked = 0  # samples at `rate` received and queued
        self.written = 0  # samples at 16 kHz queued
        same = rate == SAMPLE_RATE_HZ
        self._resampler = None if same else soxr.ResampleStream(rate, SAMPLE_RATE_HZ, 1, dtype="float32")
        self.last_seen = time.monotonic()

    def resample(self, pcm: np.ndarray) -> np.ndarray:
        return pcm if self._resampler is None else self._resampler.resample_chunk(pcm)
