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
  malformed hello closes it with code 1003;
- with the voice companion on (`serve --companion`), what it says comes back to the glasses' speaker as binary
  messages `b"S"` + the time of its first sample on the microphone's clock (float64 epoch seconds) + PCM16LE
  mono at 16 kHz, played in step with the microphone audio the client sends (the companion's clock).
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import AsyncIterator

import numpy as np

from app.config import Config
from app.events import SAMPLE_RATE_HZ, AudioChunk, VideoFrame

_LOGGER = logging.getLogger(__name__)
RATES = range(8000, 48001)
AUDIO, FRAME, SPEECH = b"A", b"V", b"S"
SPEECH_QUEUE = 512  # blocks of the companion's speech waiting for a client (about 16 s); the oldest go first
_OFFSET = struct.Struct("<Q")
_TIME = struct.Struct("<d")


class IngestError(ValueError):
    """Bad input on the ingest stream: one line for the client."""


class IngestSource:
    """A live recorder source fed by the ingest WebSocket; it waits for data while no client is connected."""

    name = "glasses"
    duration_s = None
    has_video = True

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
        if rate not in RATES:
            raise IngestError(f"sample rate {rate} Hz is not supported (8000-48000)")
        if not stream or len(stream) > 200:
            raise IngestError("hello needs a stream id (1-200 characters)")
        held = self._streams.get(stream)
        if held is None or held.rate != rate:
            held = self._streams[stream] = _Stream(rate, t0)
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
        import cv2

        if len(payload) <= _TIME.size:
            raise IngestError("a frame message is an 8-byte capture time and a JPEG")
        (t,) = _TIME.unpack_from(payload)
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
        import soxr

        self.rate, self.start_s = rate, start_s
        self.acked = 0  # samples at `rate` received and queued
        self.written = 0  # samples at 16 kHz queued
        same = rate == SAMPLE_RATE_HZ
        self._resampler = None if same else soxr.ResampleStream(rate, SAMPLE_RATE_HZ, 1, dtype="float32")

    def resample(self, pcm: np.ndarray) -> np.ndarray:
        return pcm if self._resampler is None else self._resampler.resample_chunk(pcm)
