"""Live sources through their real code paths, with test doubles for what this machine lacks: the
PortAudio input stream and the OpenCV camera are replaced by file-backed fakes behind the same interface."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from app.config import Config
from app.errors import DeviceError
from app.frames import AudioChunk, VideoFrame
from app.recorder.sources import CameraSource, MicSource
from tests.conftest import run_async


class FakeInputStream:
    """Stands in for sounddevice.InputStream: calls back from its own thread with blocks of a recording (then,
    with `silence_after`, with silent blocks at real time until it is closed, as a microphone in a quiet room)."""

    def __init__(
        self,
        callback,
        audio: np.ndarray,
        samplerate: int,
        block: int,
        realtime: bool = False,
        silence_after: bool = False,
    ):
        self.callback, self.audio, self.samplerate, self.block = callback, audio, samplerate, block
        self.realtime, self.silence_after = realtime, silence_after
        self._thread = threading.Thread(target=self._play, daemon=True)
        self.done = threading.Event()
        self._closed = threading.Event()

    def _play(self) -> None:
        for i in range(0, len(self.audio), self.block):
            if self._closed.is_set():  # closed, like a real stream: no more callbacks
                break
            self.callback(self.audio[i : i + self.block, None], self.block, None, None)
            if self.realtime:
                time.sleep(self.block / self.samplerate)
        self.done.set()
        while self.silence_after and not self._closed.is_set():
            self.callback(np.zeros((self.block, 1), self.audio.dtype), self.block, None, None)
            time.sleep(self.block / self.samplerate)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._closed.set()
        self._thread.join(timeout=5)


async def _collect(source, stop_after_s: float, timeout_s: float = 20) -> list:
    items = []

    async def consume():
        async for item in source.stream():
            items.append(item)
            heard = sum(i.duration_s for i in items if isinstance(i, AudioChunk))
            if heard >= stop_after_s:
                source.stop()

    await asyncio.wait_for(consume(), timeout_s)
    return items


def test_mic_resamples_44k1_and_keeps_every_sample():
    rate = 44100
    audio = np.sin(np.arange(rate * 2) / rate * 2 * np.pi * 300).astype(np.float32) * 0.2
    source = MicSource(Config(), stream_factory=lambda cb: FakeInputStream(cb, audio, rate, 1411))
    items = run_async(_collect(source, stop_after_s=1.9))
    got = np.concatenate([i.samples for i in items])
    assert abs(len(got) / 16000 - 2.0) < 0.05  # 2 s in, 2 s out at 16 kHz
    assert source.dropped_s == 0.0
    starts = [i.t_start_s for i in items]
    assert starts == sorted(starts) and starts[0] == 0.0


def test_mic_overflow_is_counted_not_silent(caplog):
    from dataclasses import replace

    cfg = Config()
    cfg = replace(cfg, audio=replace(cfg.audio, queue_s=1.0))  # room for about 31 blocks
    audio = np.zeros(16000 * 10, np.float32)
    holder = {}

    def factory(cb):
        holder["s"] = FakeInputStream(cb, audio, 16000, 512)
        return holder["s"]

    async def slow_consumer():
        source = MicSource(cfg, stream_factory=factory)
        gen = source.stream()
        first = await gen.__anext__()  # opens the stream
        holder["s"].done.wait(5)  # the device delivers 10 s while nobody reads
        await asyncio.sleep(0.2)
        source.stop()
        rest = [item async for item in gen]
        return source, [first, *rest]

    source, items = run_async(slow_consumer())
    kept = sum(i.duration_s for i in items)
    assert source.dropped_s > 0 and abs(kept + source.dropped_s - 10.0) < 0.1
    assert "audio overflow" in caplog.text


def test_no_microphone_is_a_device_error(monkeypatch):
    import sounddevice as sd

    def no_device(*a, **k):
        raise sd.PortAudioError("Error querying device -1")

    monkeypatch.setattr(sd, "query_devices", no_device)
    with pytest.raises(DeviceError, match="no usable microphone"):
        run_async(_collect(MicSource(Config()), 1.0))


class FakeCapture:
    """Stands in for cv2.VideoCapture: serves a fixed image."""

    def __init__(self, image: np.ndarray) -> None:
        self.image, self.released = image, False

    def read(self):
        return True, self.image.copy()

    def release(self) -> None:
        self.released = True


def test_camera_interleaves_frames_with_mic_audio():
    from dataclasses import replace

    cfg = Config()
    cfg = replace(cfg, video=replace(cfg.video, max_fps=20.0))
    audio = np.zeros(16000, np.float32)
    mic = MicSource(cfg, stream_factory=lambda cb: FakeInputStream(cb, audio, 16000, 512, realtime=True))
    capture = FakeCapture(np.full((48, 64, 3), 128, np.uint8))
    items = run_async(_collect(CameraSource(cfg, mic, capture_factory=lambda: capture), stop_after_s=0.9))
    frames = [i for i in items if isinstance(i, VideoFrame)]
    assert frames and all(f.image.shape == (48, 64, 3) for f in frames)
    assert capture.released


def test_no_camera_is_a_device_error():
    with pytest.raises(DeviceError, match="no camera"):
        run_async(_collect(CameraSource(Config(), MicSource(Config(), stream_factory=lambda cb: None)), 1.0))


def test_run_without_a_microphone_fails_first_in_one_line(monkeypatch, capsys, tmp_path):
    import sounddevice as sd

    from app.cli import main

    def no_device(*a, **k):
        raise sd.PortAudioError("Error querying device -1")

    monkeypatch.setattr(sd, "query_devices", no_device)
    monkeypatch.delenv("APP_KEY")
    for source in ("mic", "camera"):
        assert main(["run", "--source", source]) == 7
        err = capsys.readouterr().err.strip().splitlines()
        assert err == ["error: no usable microphone: Error querying device -1"]
    assert not (tmp_path / "data").exists()  # nothing was created: no database, no key
    assert not (tmp_path / "config").exists()
