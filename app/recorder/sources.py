"""Where audio and frames come from: a recorded file (or the demo) replayed, the microphone, the camera.

Every source is a `Source`: `stream()` yields AudioChunk / VideoFrame with stream times from 0, and
`origin_epoch_s` is the wall-clock time of stream time 0. The glasses' stream (`app/service/ingest.py`), the
companion's duplex around a source (`app/companion/duplex.py`) and the benchmarks' scripted sources are
sources too.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Protocol

import numpy as np
import soxr

from app.audio.media import iter_media, probe
from app.config import Config
from app.errors import DeviceError, MediaError
from app.frames import SAMPLE_RATE_HZ, AudioChunk, VideoFrame

_LOGGER = logging.getLogger(__name__)
_BATCH = 64  # items pulled from the decoder per hop to a worker thread
DEMO_FILE = Path("demo") / "demo.mkv"
COMPANION_FILE = Path("demo") / "companion.mkv"  # the companion scene: the day after the demo


class Source(Protocol):
    """What the recorder reads from."""

    name: str
    duration_s: float | None  # None: live, until stopped
    has_video: bool
    origin_epoch_s: float | None  # the wall-clock time of stream time 0
    realtime: bool  # paced at the speed it was recorded (a live source always is)

    def check(self) -> None:
        """One clear error (a missing device, an unreadable file) before anything starts."""

    def stop(self) -> None:
        """End the stream soon; what was already handed over is kept."""

    @property
    def stopped(self) -> bool:
        """Whether `stop` was called (a replay that ended by itself was not stopped)."""

    def stream(self) -> AsyncIterator[AudioChunk | VideoFrame]:
        """The chunks and frames in time order."""


class Stoppable:
    """The stop every replay and device source shares: `stop()` from any thread (a signal handler, the runtime),
    `stopped` once it was called; the stream checks `_stop` between reads."""

    def __init__(self) -> None:
        self._stop = threading.Event()

    def stop(self) -> None:
        """End the stream soon; what was read so far is still processed and stored."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        """Stopped before its end (a signal), rather than played to the end."""
        return self._stop.is_set()


def _creation_time(path: Path) -> float | None:
    # lazy: PyAV (FFmpeg's libraries) is heavy; only a file's creation time needs it here
    import av

    try:
        with av.open(str(path)) as c:
            stamp = c.metadata.get("creation_time") or c.metadata.get("CREATION_TIME")
    except av.error.FFmpegError:
        return None
    if not stamp:
        return None
    try:
        return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class FileSource(Stoppable):
    """Replays a recorded file, as fast as possible or at real time; the container's creation time (else
    the file's modification time minus its duration) is the event time of its start."""

    def __init__(
        self,
        path: Path,
        cfg: Config,
        name: str | None = None,
        realtime: bool | None = None,
        origin_epoch_s: float | None = None,
    ) -> None:
        self.path = path
        self.cfg = cfg
        info = probe(path, cfg.audio.min_rate_hz)  # fails early, in one line, on a bad file
        self.duration_s = info.duration_s
        self.has_video = info.has_video
        self.name = name or f"file:{path.name}"
        self.realtime = cfg.replay.realtime if realtime is None else realtime
        if origin_epoch_s is None:
            origin_epoch_s = _creation_time(path) or (path.stat().st_mtime - (info.duration_s or 0.0))
        self.origin_epoch_s = origin_epoch_s
        super().__init__()

    def check(self) -> None:
        """The file was checked when the source was made."""

    async def stream(self) -> AsyncIterator[AudioChunk | VideoFrame]:
        gen = iter_media(self.path, max_fps=self.cfg.video.max_fps, min_rate_hz=self.cfg.audio.min_rate_hz)

        def pull() -> list[AudioChunk | VideoFrame]:
            out = []
            for item in gen:
                out.append(item)
                if len(out) >= _BATCH:
                    break
            return out

        start = time.monotonic()
        try:
            while not self._stop.is_set() and (batch := await asyncio.to_thread(pull)):
                for item in batch:
                    if self._stop.is_set():  # at real time a batch lasts seconds: stop where the clock is
                        return
                    if self.realtime:
                        t = item.t_start_s if isinstance(item, AudioChunk) else item.t_s
                        delay = start + t - time.monotonic()
                        if delay > 0:
                            await asyncio.sleep(delay)
                    yield item
        finally:
            gen.close()


class MicSource(Stoppable):
    """The default (or configured) input device through PortAudio; audio is never dropped silently: if the
    pipeline falls behind by more than audio.queue_s, the overflow is counted and logged."""

    def __init__(self, cfg: Config, stream_factory: Callable | None = None) -> None:
        self.cfg = cfg
        self.name = "mic"
        self.duration_s = None
        self.has_video = False
        self.realtime = True
        self.origin_epoch_s = time.time()
        self.dropped_s = 0.0
        self._factory = stream_factory
        super().__init__()

    def _device(self):
        """(sounddevice module, device, native rate) of the configured input; DeviceError if there is none."""
        try:
            # lazy: sounddevice needs PortAudio; only the microphone does
            import sounddevice as sd
        except OSError as e:  # PortAudio library missing
            raise DeviceError(f"microphone unavailable: {e} (install libportaudio2)") from None
        device = self.cfg.audio.mic_device or None
        if device is not None and device.isdigit():
            device = int(device)
        try:
            info = sd.query_devices(device, kind="input")
        except (sd.PortAudioError, ValueError) as e:
            raise DeviceError(f"no usable microphone: {e}") from None
        return sd, device, int(info["default_samplerate"])

    def check(self) -> None:
        """Fail now, in one line, if there is no microphone (before anything is opened or written)."""
        if self._factory is None:
            self._device()

    def _open(self, callback: Callable):
        if self._factory is not None:
            return self._factory(callback)
        sd, device, rate = self._device()
        try:
            return sd.InputStream(
                device=device,
                channels=1,
                samplerate=rate,
                dtype="float32",
                blocksize=int(rate * 0.032),
                callback=callback,
            )
        except (sd.PortAudioError, ValueError) as e:
            raise DeviceError(f"no usable microphone: {e}") from None

    async def stream(self) -> AsyncIterator[AudioChunk | VideoFrame]:
        loop = asyncio.get_running_loop()
        limit = max(4, int(self.cfg.audio.queue_s / 0.032))
        queue: asyncio.Queue[np.ndarray] = asyncio.Queue(limit)

        def put(block: np.ndarray) -> None:
            if queue.full():
                self.dropped_s += len(block) / rate
                _LOGGER.warning("audio overflow: the pipeline is behind; %.1f s dropped so far", self.dropped_s)
                return
            queue.put_nowait(block)

        def callback(indata, frames, time_info, status) -> None:  # PortAudio thread
            loop.call_soon_threadsafe(put, indata[:, 0].copy())

        stream = self._open(callback)
        rate = int(stream.samplerate)
        resampler = soxr.ResampleStream(rate, SAMPLE_RATE_HZ, 1, dtype="float32") if rate != SAMPLE_RATE_HZ else None
        samples = 0

        def chunk(block: np.ndarray, last: bool = False) -> AudioChunk:
            nonlocal samples
            pcm = block if resampler is None else resampler.resample_chunk(block, last=last)
            out = AudioChunk(pcm.astype(np.float32, copy=False), samples / SAMPLE_RATE_HZ)
            samples += len(pcm)
            return out

        self.origin_epoch_s = time.time()
        with stream:
            while not self._stop.is_set():
                try:
                    block = await asyncio.wait_for(queue.get(), timeout=0.5)
                except asyncio.TimeoutError:
                    continue
                yield chunk(block)
        await asyncio.sleep(0)  # let blocks the device handed over before it closed arrive
        while not queue.empty():  # stopping keeps everything already captured
            yield chunk(queue.get_nowait())
        if resampler is not None:
            yield chunk(np.zeros(0, np.float32), last=True)


class CameraSource:
    """Camera frames (OpenCV, at most video.max_fps) together with the microphone's audio."""

    def __init__(self, cfg: Config, mic: MicSource | None = None, capture_factory: Callable | None = None):
        self.cfg = cfg
        self.mic = mic or MicSource(cfg)
        self.name = "camera"
        self.duration_s = None
        self.has_video = True
        self.realtime = True
        self._factory = capture_factory
        self.origin_epoch_s = self.mic.origin_epoch_s

    def check(self) -> None:
        """Fail now, in one line, without a camera or a microphone."""
        self.mic.check()
        self.check_camera()

    def check_camera(self) -> None:
        """Fail now, in one line, without a camera."""
        if self._factory is None:
            self._open().release()

    def _open(self):
        if self._factory is not None:
            return self._factory()
        # lazy: OpenCV is heavy (~0.1 s); only a camera needs it
        import cv2

        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
        cap = cv2.VideoCapture(self.cfg.video.camera_index)
        if not cap.isOpened():
            raise DeviceError(f"no camera at index {self.cfg.video.camera_index}")
        return cap

    async def stream(self) -> AsyncIterator[AudioChunk | VideoFrame]:
        cap = self._open()
        frames: asyncio.Queue[VideoFrame] = asyncio.Queue(2)
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def grab() -> None:  # camera thread: keeps only the newest frames
            period = 1.0 / self.cfg.video.max_fps
            while not stop.is_set():
                ok, image = cap.read()
                if not ok:
                    time.sleep(period)
                    continue
                frame = VideoFrame(image, time.time() - self.mic.origin_epoch_s)
                loop.call_soon_threadsafe(_put_newest, frames, frame)
                time.sleep(period)

        thread = threading.Thread(target=grab, name="camera", daemon=True)
        thread.start()
        try:
            async for chunk in self.mic.stream():
                while not frames.empty():
                    yield frames.get_nowait()
                yield chunk
        finally:
            stop.set()
            thread.join(timeout=2)
            cap.release()

    def stop(self) -> None:
        self.mic.stop()

    @property
    def stopped(self) -> bool:
        return self.mic.stopped


def _put_newest(queue: asyncio.Queue, item) -> None:
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(item)


def open_source(spec: str, cfg: Config) -> FileSource | MicSource | CameraSource:
    """`mic`, `camera`, `demo` or a file path."""
    if spec == "mic":
        return MicSource(cfg)
    if spec == "camera":
        return CameraSource(cfg)
    if spec == "demo":
        path = cfg.models_dir / DEMO_FILE
        if not path.is_file():
            raise MediaError(f"the demo recording {path} is missing: run `python build.py` to generate it")
        return FileSource(path, cfg, name="demo")
    return FileSource(Path(spec).expanduser(), cfg)


def open_checked(spec: str, cfg: Config, tell: Callable[[str], None]) -> FileSource | MicSource | CameraSource:
    """`open_source`, checked before anything is opened or written (one clear error: a missing device, an
    unreadable file). A wearable without a camera (a pendant, audio glasses) records its microphone alone, and
    `tell` says so in one line; with neither, the microphone's error."""
    source = open_source(spec, cfg)
    if not isinstance(source, CameraSource):
        source.check()
        return source
    source.mic.check()
    try:
        source.check_camera()
    except DeviceError as e:
        tell(f"{e}: recording the microphone only")
        return source.mic
    return source


def companion_scene(cfg: Config) -> FileSource:
    """The companion scene (`run --source demo --companion`)."""
    path = cfg.models_dir / COMPANION_FILE
    if not path.is_file():
        raise MediaError(f"the companion scene {path} is missing: run `python build.py` to generate it")
    return FileSource(path, cfg, name="companion-scene")
