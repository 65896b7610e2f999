"""Echo handling: WebRTC AEC3 on the microphone, a simulated speaker-to-microphone path, and ERLE."""

from __future__ import annotations

import logging

import numpy as np

from app.errors import ModelError

_LOGGER = logging.getLogger(__name__)
SAMPLE_RATE_HZ = 16_000
FRAME_SAMPLES = SAMPLE_RATE_HZ // 100  # AEC3 works on 10 ms frames
AEC_LAG_SAMPLES = 128  # AEC3's own lag at 16 kHz (measured: an impulse comes out 128 samples late)


class EchoCanceller:
    """WebRTC AEC3 (pywebrtc-audio) on 16 kHz mono float32: removes what the speaker played from the microphone.

    Any chunk size: samples are queued until whole 10 ms frames are ready, and the output starts with one frame
    of silence, so each call returns exactly as many samples as it got. The output therefore lags the input by
    `delay_samples` = 160 (the frame queue) + 128 (AEC3's own) = 288 samples, 18 ms, always the same.
    AEC3 always high-passes the microphone (about 100 Hz, 2nd order): with a silent far end that is the only
    change. `stream_delay_ms` is a hint: the time from writing audio to the speaker to hearing it in the
    microphone. Not thread-safe: one instance per stream.
    """

    delay_samples = FRAME_SAMPLES + AEC_LAG_SAMPLES

    def __init__(self, stream_delay_ms: int = 40) -> None:
        try:
            # lazy: a native wheel build.py installs; when it is missing, one ModelError
            from pywebrtc_audio import EchoCanceller as _Aec3
        except ImportError as e:
            raise ModelError(f"pywebrtc-audio is not installed ({e}); run `python build.py`") from e
        self._aec = _Aec3(SAMPLE_RATE_HZ, 1, stream_delay_ms)
        _LOGGER.debug("AEC3 at %d Hz, stream delay hint %d ms", SAMPLE_RATE_HZ, stream_delay_ms)
        self._near = np.zeros(0, np.float32)
        self._far = np.zeros(0, np.float32)
        self._out = np.zeros(FRAME_SAMPLES, np.float32)

    def __call__(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
        """`near` (microphone) with the echo of `far` (what the speaker played at the same time) removed."""
        if near.shape != far.shape or near.ndim != 1:
            raise ValueError(f"near and far must be 1-d and of equal length, got {near.shape} and {far.shape}")
        self._near = np.concatenate([self._near, near.astype(np.float32, copy=False)])
        self._far = np.concatenate([self._far, far.astype(np.float32, copy=False)])
        whole = len(self._near) - len(self._near) % FRAME_SAMPLES
        if whole:
            # the library zero-pads a partial last frame, which would break the stream: whole frames only
            done = self._aec.process(self._near[:whole], self._far[:whole])
            self._out = np.concatenate([self._out, done])
            self._near, self._far = self._near[whole:], self._far[whole:]
        out, self._out = self._out[: len(near)], self._out[len(near) :]
        return out

    def reset(self) -> None:
        """Forget the adapted echo path and any queued samples (a new conversation, a moved device)."""
        self._aec.reset()
        self._near = np.zeros(0, np.float32)
        self._far = np.zeros(0, np.float32)
        self._out = np.zeros(FRAME_SAMPLES, np.float32)


class EchoPath:
    """A simulated speaker-to-microphone path for tests and benchmarks, streaming across calls.

    The impulse response: the direct sound after `delay_ms`, then a reverberant tail of decaying noise
    (60 dB down after `rt60_ms`) holding `reverb_db` of the direct sound's energy; `attenuation_db` is the
    whole path's gain (negative: the microphone hears the speaker quieter).
    """

    def __init__(
        self,
        delay_ms: float = 40.0,
        attenuation_db: float = -10.0,
        rt60_ms: float = 150.0,
        seed: int = 0,
        reverb_db: float = -6.0,
    ) -> None:
        rng = np.random.default_rng(seed)
        delay = round(delay_ms * SAMPLE_RATE_HZ / 1000)
        t_s = np.arange(1, max(round(rt60_ms * SAMPLE_RATE_HZ / 1000), 1) + 1) / SAMPLE_RATE_HZ
        tail = rng.standard_normal(t_s.size) * np.exp(-6.908 * t_s / max(rt60_ms / 1000, 1e-6))  # ln(1000)
        tail *= np.sqrt(10 ** (reverb_db / 10) / max(float(np.sum(tail**2)), 1e-12))
        self.impulse = np.concatenate([np.zeros(delay), [1.0], tail]) * 10 ** (attenuation_db / 20)
        self._tail = np.zeros(self.impulse.size - 1)

    def __call__(self, far: np.ndarray) -> np.ndarray:
        """What the microphone hears of `far`, continuing the previous calls' reverberation."""
        if far.size == 0:
            return np.zeros(0, np.float32)
        n = far.size + self.impulse.size - 1
        size = 1 << (n - 1).bit_length()
        full = np.fft.irfft(np.fft.rfft(far, size) * np.fft.rfft(self.impulse, size), size)[:n]
        full[: self._tail.size] += self._tail
        self._tail = full[far.size :].copy()
        return full[: far.size].astype(np.float32)

    def reset(self) -> None:
        self._tail[:] = 0.0


def erle_db(echo_only_in: np.ndarray, echo_only_out: np.ndarray, skip_s: float = 0.5) -> float:
    """Echo return loss enhancement: 10·log10(power in / power out), after `skip_s` of convergence at 16 kHz.

    Both arrays hold echo alone (no near-end talker), aligned and of equal length.
    """
    skip = round(skip_s * SAMPLE_RATE_HZ)
    power_in = float(np.mean(np.square(echo_only_in[skip:], dtype=np.float64)))
    power_out = float(np.mean(np.square(echo_only_out[skip:], dtype=np.float64)))
    return 10 * np.log10(max(power_in, 1e-20) / max(power_out, 1e-20))
