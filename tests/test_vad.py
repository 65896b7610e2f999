"""VAD: Silero on generated speech vs silence, and the segmenter's logic on synthetic probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from app.audio.vad import Reframer, SpeechSegmenter
from app.config import VadConfig
from app.frames import SAMPLE_RATE_HZ

WIN = 512


def _probs(vad, audio: np.ndarray) -> np.ndarray:
    vad.reset()
    return np.array([vad(w) for w in Reframer(vad.window_samples).push(audio)])


def test_silero_hears_speech_not_silence(perception, speech):
    voice = speech("Please remind me to buy milk tomorrow morning.", "slt")
    audio = np.concatenate([np.zeros(2 * SAMPLE_RATE_HZ, np.float32), voice, np.zeros(2 * SAMPLE_RATE_HZ, np.float32)])
    probs = _probs(perception.vad, audio)
    split = 2 * SAMPLE_RATE_HZ // WIN
    speech_end = split + len(voice) // WIN
    assert probs[: split - 2].mean() < 0.05
    assert probs[split + 3 : speech_end - 3].mean() > 0.7


def test_silero_ignores_noise(perception):
    rng = np.random.default_rng(0)
    noise = (rng.standard_normal(3 * SAMPLE_RATE_HZ) * 0.01).astype(np.float32)
    assert _probs(perception.vad, noise).max() < 0.5


def test_reframer_keeps_leftover():
    r = Reframer(4)
    assert [list(w) for w in r.push(np.arange(6, dtype=np.float32))] == [[0, 1, 2, 3]]
    assert [list(w) for w in r.push(np.arange(6, 9, dtype=np.float32))] == [[4, 5, 6, 7]]
    assert list(r.flush()) == [8, 0, 0, 0]
    assert r.flush() is None


def _segments(probs: list[float], cfg: VadConfig, eager: bool = False):
    seg = SpeechSegmenter(cfg, WIN, eager)
    out = []
    for i, p in enumerate(probs):
        out += seg.push(np.full(WIN, i, np.float32), p)
    return out + seg.flush()


CFG = VadConfig(threshold=0.5, neg_threshold=0.35, min_speech_ms=250, min_silence_ms=320, pad_ms=64)


def test_segment_bounds_with_padding():
    probs = [0.0] * 10 + [0.9] * 20 + [0.0] * 30
    (s,) = _segments(probs, CFG)
    # speech windows 10..29, padded by 2 windows (64 ms) each side
    assert s.t_start_s == pytest.approx(8 * WIN / SAMPLE_RATE_HZ)
    assert s.t_end_s == pytest.approx(32 * WIN / SAMPLE_RATE_HZ)
    assert s.audio[0] == 8 and s.audio[-1] == 31  # the right windows, in order


def test_short_pause_keeps_one_segment_long_pause_splits():
    short_pause = [0.9] * 20 + [0.1] * 5 + [0.9] * 20 + [0.0] * 30  # 160 ms < 320 ms
    assert len(_segments(short_pause, CFG)) == 1
    long_pause = [0.9] * 20 + [0.1] * 15 + [0.9] * 20 + [0.0] * 30  # 480 ms
    assert len(_segments(long_pause, CFG)) == 2


def test_blips_are_dropped_and_hysteresis_holds():
    assert _segments([0.0] * 5 + [0.9] * 3 + [0.0] * 30, CFG) == []  # 96 ms < 250 ms
    # probabilities between the thresholds neither open nor close a segment
    held = [0.9] * 20 + [0.4] * 30 + [0.0] * 30
    (s,) = _segments(held, CFG)
    assert s.duration_s > 45 * WIN / SAMPLE_RATE_HZ


def test_long_speech_is_cut_at_max_segment():
    cfg = VadConfig(max_segment_s=2.0, min_silence_ms=320, pad_ms=0, min_speech_ms=0)
    segs = _segments([0.9] * 200 + [0.0] * 20, cfg)
    assert len(segs) == 4
    assert all(s.duration_s <= 2.0 + 1e-9 for s in segs)
    for a, b in zip(segs, segs[1:], strict=False):
        assert abs(a.t_end_s - b.t_start_s) < 1e-9  # contiguous, nothing lost


def test_speech_running_to_the_end_is_flushed():
    (s,) = _segments([0.0] * 5 + [0.9] * 20, CFG)
    assert s.t_end_s == pytest.approx(25 * WIN / SAMPLE_RATE_HZ)


def test_eager_gives_the_segment_ahead_with_the_same_audio():
    probs = [0.0] * 10 + [0.9] * 20 + [0.0] * 30
    ahead, final = _segments(probs, CFG, eager=True)
    assert not ahead.final and final.final
    assert np.array_equal(ahead.audio, final.audio)  # recognised ahead, the words are the segment's own
    assert (ahead.t_start_s, ahead.t_end_s) == (final.t_start_s, final.t_end_s)
    assert [s.final for s in _segments(probs, CFG)] == [True]  # not asked for: never


def test_eager_after_a_pause_that_did_not_end_the_segment_is_not_the_segment():
    pause = [0.9] * 20 + [0.1] * 5 + [0.9] * 20 + [0.0] * 30  # 160 ms < 320 ms: one segment
    first, second, final = _segments(pause, CFG, eager=True)
    assert (first.final, second.final, final.final) == (False, False, True)
    assert not np.array_equal(first.audio, final.audio) and np.array_equal(second.audio, final.audio)
    assert _segments([0.0] * 5 + [0.9] * 3 + [0.0] * 30, CFG, eager=True) == []  # a blip: nothing ahead either
