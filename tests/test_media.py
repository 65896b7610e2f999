"""Media decoding: formats and rates that work, and bad files that fail in one clear line, keeping what
could be decoded."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from app.audio.media import iter_media, probe, read_audio, write_media
from app.errors import MediaError
from app.frames import AudioChunk, VideoFrame


def _tone(seconds: float, rate: int = 16000) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def _wav(path: Path, audio: np.ndarray, rate: int, channels: int = 1) -> Path:
    pcm = (audio * 32767).astype(np.int16)
    if channels > 1:
        pcm = np.repeat(pcm[:, None], channels, axis=1)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


def test_wav_round_trip(tmp_path):
    audio = _tone(1.0)
    write_media(tmp_path / "a.wav", audio)
    back = read_audio(tmp_path / "a.wav")
    assert len(back) == len(audio)
    assert np.abs(back - audio).max() < 1e-3


@pytest.mark.parametrize(("rate", "channels"), [(8000, 1), (22050, 1), (44100, 2), (48000, 1)])
def test_other_rates_and_stereo_are_resampled_to_16k(tmp_path, rate, channels):
    path = _wav(tmp_path / f"r{rate}.wav", _tone(2.0, rate), rate, channels)
    back = read_audio(path)
    assert abs(len(back) / 16000 - 2.0) < 0.01


def test_unsupported_sample_rate(tmp_path):
    path = _wav(tmp_path / "low.wav", _tone(1.0, 4000), 4000)
    with pytest.raises(MediaError, match="unsupported sample rate 4000 Hz"):
        probe(path)


def test_empty_file(tmp_path):
    (tmp_path / "empty.wav").write_bytes(b"")
    with pytest.raises(MediaError, match="empty"):
        probe(tmp_path / "empty.wav")


def test_wav_with_no_samples(tmp_path):
    path = _wav(tmp_path / "zero.wav", np.zeros(0, np.float32), 16000)
    with pytest.raises(MediaError):
        list(iter_media(path))


def test_garbage_file(tmp_path):
    path = tmp_path / "noise.mp4"
    path.write_bytes(np.random.default_rng(0).bytes(50_000))
    with pytest.raises(MediaError, match="not a readable audio or video file"):
        probe(path)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(MediaError, match="no such file"):
        probe(tmp_path / "nope.wav")
    with pytest.raises(MediaError, match="folder"):
        probe(tmp_path)


@pytest.mark.parametrize("suffix", [".wav", ".flac", ".mkv"])
def test_truncated_file_keeps_what_decodes_then_fails(tmp_path, suffix):
    frames = [(0.0, np.full((120, 160, 3), 90, np.uint8))] if suffix == ".mkv" else None
    path = tmp_path / f"full{suffix}"
    write_media(path, _tone(6.0), frames)
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    got: list[AudioChunk] = []
    with pytest.raises(MediaError) as err:
        for item in iter_media(cut):
            if isinstance(item, AudioChunk):
                got.append(item)
    decoded_s = sum(c.duration_s for c in got)
    assert 1.0 < decoded_s < 5.5  # what was there came through
    assert "\n" not in str(err.value)


def test_video_only_file_has_no_audio(tmp_path):
    import cv2

    path = tmp_path / "silent.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for _ in range(10):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    with pytest.raises(MediaError, match="no audio stream"):
        probe(path)


def test_audio_and_frames_interleave_with_frame_rate_cap(tmp_path):
    frames = [(0.0, np.full((120, 160, 3), 10, np.uint8)), (2.0, np.full((120, 160, 3), 200, np.uint8))]
    path = tmp_path / "av.mkv"
    write_media(path, _tone(4.0), frames, fps=10)
    items = list(iter_media(path, max_fps=2.0))
    video = [i for i in items if isinstance(i, VideoFrame)]
    audio_s = sum(i.duration_s for i in items if isinstance(i, AudioChunk))
    assert abs(audio_s - 4.0) < 0.05
    assert 7 <= len(video) <= 9  # 2 per second of 4 s
    assert video[0].image.mean() < 50 and video[-1].image.mean() > 150
