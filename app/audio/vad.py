"""Silero VAD (ONNX, no torch) and the segmenter that turns speech probabilities into speech segments."""

from __future__ import annotations

import collections
import dataclasses
from pathlib import Path

import numpy as np

from app.config import VadConfig
from app.devices import onnx_session
from app.errors import ModelError
from app.frames import SAMPLE_RATE_HZ, SpeechSegment

_CONTEXT_SAMPLES = 64  # Silero v5/v6 expect the previous 64 samples before each window


class Reframer:
    """Re-cuts a stream of arbitrary-length chunks into fixed windows, keeping the leftover."""

    def __init__(self, window: int) -> None:
        self.window = window
        self._buf = np.zeros(0, np.float32)

    def push(self, samples: np.ndarray) -> list[np.ndarray]:
        self._buf = np.concatenate([self._buf, samples.astype(np.float32, copy=False)])
        n = len(self._buf) // self.window
        out = [self._buf[i * self.window : (i + 1) * self.window] for i in range(n)]
        self._buf = self._buf[n * self.window :]
        return out

    def flush(self) -> np.ndarray | None:
        """The leftover, zero-padded to a full window, or None if empty."""
        if not len(self._buf):
            return None
        out = np.zeros(self.window, np.float32)
        out[: len(self._buf)] = self._buf
        self._buf = np.zeros(0, np.float32)
        return out


class SileroVad:
    """Speech probability for each 512-sample window of 16 kHz audio (Silero VAD v5/v6, ONNX)."""

    def __init__(self, model_path: Path, device: str = "cpu", threads: int = 1) -> None:
        try:
            self._sess = onnx_session(model_path, device, threads)
        except Exception as e:
            raise ModelError(f"cannot load Silero VAD from {model_path}: {e}") from e
        self._sr = np.array(SAMPLE_RATE_HZ, dtype=np.int64)
        self.reset()

    @property
    def window_samples(self) -> int:
        return 512

    def reset(self) -> None:
        self._state = np.zeros((2, 1, 128), np.float32)
        self._context = np.zeros(_CONTEXT_SAMPLES, np.float32)

    def __call__(self, window: np.ndarray) -> float:
        if len(window) != self.window_samples:
            raise ValueError(f"expected {self.window_samples} samples, got {len(window)}")
        x = np.concatenate([self._context, window.astype(np.float32, copy=False)])[None, :]
        prob, self._state = self._sess.run(None, {"input": x, "state": self._state, "sr": self._sr})
        self._context = x[0, -_CONTEXT_SAMPLES:]
        return float(prob[0, 0])


class SpeechSegmenter:
    """Hysteresis over window probabilities: opens at vad.threshold, closes after vad.min_silence_ms below
    vad.neg_threshold, pads both ends, drops blips shorter than vad.min_speech_ms, cuts at max_segment_s.

    `eager`: once the silence after speech covers the end pad, the segment is also given out tentatively
    (`final` False): its audio is exactly the segment's if the silence goes on until it closes, so it can be
    recognised while the VAD still waits (someone is waiting for the words: the voice companion)."""

    def __init__(self, cfg: VadConfig, window_samples: int = 512, eager: bool = False) -> None:
        self.cfg = cfg
        self.window = window_samples
        win_ms = 1000 * window_samples / SAMPLE_RATE_HZ
        self._pad = max(0, round(cfg.pad_ms / win_ms))
        self._close_after = max(1, round(cfg.min_silence_ms / win_ms))
        self._min_speech = round(cfg.min_speech_ms / win_ms)
        self._max_windows = round(cfg.max_segment_s * 1000 / win_ms)
        self._eager_after = max(1, self._pad) if eager else 0  # silent windows after which a tentative is given
        self._history: collections.deque[tuple[np.ndarray, float]] = collections.deque(maxlen=self._pad)
        self._windows_seen = 0
        self.origin_s = 0.0  # the stream time of the first window (a live source's clock need not start at 0)
        self._reset_segment()

    def _reset_segment(self) -> None:
        self._current: list[tuple[np.ndarray, float]] = []  # (window, speech probability)
        self._start_index = 0
        self._in_speech = False
        self._silence_run = 0
        self._speech_windows = 0

    def push(self, window: np.ndarray, prob: float) -> list[SpeechSegment]:
        index = self._windows_seen
        self._windows_seen += 1
        if not self._in_speech:
            if prob >= self.cfg.threshold:
                self._in_speech = True
                self._current = [*self._history, (window, prob)]
                self._start_index = index - len(self._history)
                self._speech_windows = 1
                self._history.clear()
            else:
                self._history.append((window, prob))
            return []
        self._current.append((window, prob))
        if prob >= self.cfg.threshold:
            self._silence_run = 0
            self._speech_windows += 1
        elif prob < self.cfg.neg_threshold or self._silence_run:
            self._silence_run += 1
        out: list[SpeechSegment] = []
        if self._silence_run >= self._close_after:
            out += self._close(trailing_silence=self._silence_run)
        elif len(self._current) >= self._max_windows:
            out += self._close(trailing_silence=0, keep_open=True)
        elif self._eager_after and self._silence_run == self._eager_after and self._speech_windows >= self._min_speech:
            windows = self._current[: self._kept(self._silence_run)]
            out.append(dataclasses.replace(self._segment(windows), final=False))
        return out

    def _kept(self, trailing_silence: int) -> int:
        """How many windows of the open segment it keeps when it closes after `trailing_silence` (the end pad)."""
        return len(self._current) - max(0, trailing_silence - self._pad)

    def _close(self, trailing_silence: int, keep_open: bool = False) -> list[SpeechSegment]:
        keep = self._kept(trailing_silence)
        windows = self._current[:keep]
        tail = self._current[keep:]
        segment = self._segment(windows) if self._speech_windows >= self._min_speech else None
        start = self._start_index + keep
        self._reset_segment()
        if keep_open:
            self._in_speech, self._start_index, self._speech_windows = True, start, 1
        else:
            self._history.extend(tail)
        return [segment] if segment is not None else []

    def _segment(self, windows: list[tuple[np.ndarray, float]]) -> SpeechSegment:
        t0 = self.origin_s + self._start_index * self.window / SAMPLE_RATE_HZ
        audio = np.concatenate([w for w, _ in windows])
        probs = np.array([p for _, p in windows], np.float32)
        return SpeechSegment(audio, t0, t0 + len(audio) / SAMPLE_RATE_HZ, speech_probs=probs)

    def flush(self) -> list[SpeechSegment]:
        """End of stream: close an open segment."""
        if not self._in_speech:
            return []
        return self._close(trailing_silence=self._silence_run)
