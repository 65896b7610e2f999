"""Decoding recorded media (WAV, FLAC, MP3, MP4, MKV, ...) with PyAV into 16 kHz audio chunks and frames."""

from __future__ import annotations

import io
import logging
import wave
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.errors import MediaError
from app.frames import SAMPLE_RATE_HZ, AudioChunk, VideoFrame

_LOGGER = logging.getLogger(__name__)
_TRUNCATED_FRACTION = 0.97  # decoded/declared duration below this means the file was cut short
# suffix -> (container, audio codec, video codec, pixel format) for write_media
_WRITERS = {
    ".wav": ("wav", "pcm_s16le", None, None),
    ".flac": ("flac", "flac", None, None),
    ".mkv": ("matroska", "flac", "mjpeg", "yuvj420p"),
    ".mp4": ("mp4", "aac", "mpeg4", "yuv420p"),
}


@dataclass(frozen=True)
class MediaInfo:
    path: Path
    duration_s: float | None  # as declared by the container, None when it does not say
    audio_rate_hz: int
    has_video: bool


def _av():
    try:
        # lazy: PyAV (FFmpeg's libraries) is heavy; only decoding needs it
        import av
    except ImportError as e:  # pragma: no cover - a core dependency
        raise MediaError("PyAV is not installed: pip install av") from e
    return av


def _first_line(err: Exception) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


def _open(path: Path):
    av = _av()
    if not path.exists():
        raise MediaError(f"{path}: no such file")
    if path.is_dir():
        raise MediaError(f"{path}: is a folder, not a media file")
    if path.stat().st_size == 0:
        raise MediaError(f"{path}: the file is empty")
    try:
        return av.open(str(path))
    except (av.error.FFmpegError, UnicodeDecodeError, ValueError) as e:
        raise MediaError(f"{path}: not a readable audio or video file ({_first_line(e)})") from None


def probe(path: Path, min_rate_hz: int = 8000) -> MediaInfo:
    """Check a file can be replayed: it opens, has an audio stream, and its rate is supported."""
    with _open(path) as container:
        return _info(path, container, min_rate_hz)


def _wav_header_duration(path: Path) -> float | None:
    """The duration a PCM WAV header declares (FFmpeg estimates it from the file size, which hides a cut)."""
    try:
        with wave.open(str(path)) as w:
            return w.getnframes() / w.getframerate()
    except (wave.Error, EOFError, OSError, ZeroDivisionError):
        return None


def _info(path: Path, container, min_rate_hz: int) -> MediaInfo:
    if not container.streams.audio:
        raise MediaError(f"{path}: has no audio stream")
    audio = container.streams.audio[0]
    rate = int(audio.codec_context.sample_rate or audio.rate or 0)
    if rate < min_rate_hz:
        raise MediaError(f"{path}: unsupported sample rate {rate} Hz (need at least {min_rate_hz} Hz)")
    duration = _wav_header_duration(path) if container.format.name == "wav" else None
    if duration is None and audio.duration is not None and audio.time_base is not None:
        duration = float(audio.duration * audio.time_base)
    elif duration is None and container.duration is not None:
        duration = container.duration / 1_000_000
    return MediaInfo(path, duration, rate, bool(container.streams.video))


def iter_media(
    path: Path, *, max_fps: float = 2.0, min_rate_hz: int = 8000, with_video: bool = True
) -> Iterator[AudioChunk | VideoFrame]:
    """Yield 16 kHz mono audio chunks and (at most `max_fps`) video frames in file order.

    Everything decodable is yielded first; a damaged or truncated file then raises MediaError, so a caller
    keeps what came before the damage.
    """
    av = _av()
    with _open(path) as container:
        info = _info(path, container, min_rate_hz)
        streams = [container.streams.audio[0]]
        if with_video and info.has_video:
            streams.append(container.streams.video[0])
            streams[1].thread_type = "AUTO"
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE_HZ)
        samples_out = 0
        next_frame_t = 0.0
        damage: str | None = None
        try:
            for packet in container.demux(*streams):
                for frame in packet.decode():
                    if isinstance(frame, av.AudioFrame):
                        for out in resampler.resample(frame):
                            pcm = out.to_ndarray().reshape(-1).astype(np.float32, copy=False)
                            yield AudioChunk(pcm, samples_out / SAMPLE_RATE_HZ)
                            samples_out += len(pcm)
                    elif frame.time is not None and frame.time >= next_frame_t:
                        next_frame_t = frame.time + 1.0 / max_fps
                        yield VideoFrame(frame.to_ndarray(format="bgr24"), float(frame.time))
        except (av.error.FFmpegError, ValueError) as e:
            damage = f"damaged at {samples_out / SAMPLE_RATE_HZ:.1f} s ({_first_line(e)})"
        for out in resampler.resample(None):
            pcm = out.to_ndarray().reshape(-1).astype(np.float32, copy=False)
            yield AudioChunk(pcm, samples_out / SAMPLE_RATE_HZ)
            samples_out += len(pcm)
    decoded_s = samples_out / SAMPLE_RATE_HZ
    if damage is None and info.duration_s and decoded_s < _TRUNCATED_FRACTION * info.duration_s - 0.1:
        damage = f"truncated: {decoded_s:.1f} s of the {info.duration_s:.1f} s it declares could be decoded"
    if damage is None and samples_out == 0:
        damage = "no audio could be decoded"
    if damage is not None:
        raise MediaError(f"{path}: {damage}")


def read_audio(path: Path, min_rate_hz: int = 8000) -> np.ndarray:
    """The whole audio track as one 16 kHz mono float32 array."""
    parts = [
        c.samples for c in iter_media(path, min_rate_hz=min_rate_hz, with_video=False) if isinstance(c, AudioChunk)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def encode_wav(audio: np.ndarray) -> bytes:
    """16 kHz mono float audio as the bytes of a PCM16 WAV file."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE_HZ)
        w.writeframes((np.clip(audio, -1.0, 1.0) * 32767).astype("<i2").tobytes())
    return buf.getvalue()


def write_media(
    path: Path,
    audio: np.ndarray,
    frames: list[tuple[float, np.ndarray]] | None = None,
    fps: float = 5.0,
    creation_time: str | None = None,
) -> None:
    """Write 16 kHz mono audio (and BGR frames shown from their start time) to a WAV/FLAC/MKV file.

    Used to generate the demo and test recordings; frames hold until the next one, at `fps`.
    """
    av = _av()
    pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16)
    if path.suffix not in _WRITERS:
        raise MediaError(f"{path}: can only write {', '.join(_WRITERS)}")
    container_format, audio_codec, video_codec, pix_fmt = _WRITERS[path.suffix]
    with av.open(str(path), "w", format=container_format) as out:
        if creation_time:
            out.metadata["creation_time"] = creation_time
        astream = out.add_stream(audio_codec, rate=SAMPLE_RATE_HZ)
        astream.layout = "mono"
        vstream = None
        if frames and video_codec:
            vstream = out.add_stream(video_codec, rate=round(fps))
            height, width = frames[0][1].shape[:2]
            vstream.width, vstream.height = width, height
            vstream.pix_fmt = pix_fmt
        step = int(SAMPLE_RATE_HZ / fps)
        times = [t for t, _ in frames or []]
        for i, start in enumerate(range(0, len(pcm), step)):
            block = pcm[start : start + step]
            frame = av.AudioFrame.from_ndarray(block[None, :], format="s16", layout="mono")
            frame.sample_rate = SAMPLE_RATE_HZ
            frame.pts = start
            out.mux(astream.encode(frame))
            if vstream is not None:
                k = max(0, bisect_right(times, start / SAMPLE_RATE_HZ) - 1)
                vframe = av.VideoFrame.from_ndarray(frames[k][1], format="bgr24")
                vframe.pts = i
                out.mux(vstream.encode(vframe))
        out.mux(astream.encode(None))
        if vstream is not None:
            out.mux(vstream.encode(None))
