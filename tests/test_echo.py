"""Echo cancellation: AEC3 on Piper speech through a simulated room, with and without a near-end talker."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from app.companion.echo import FRAME_SAMPLES, EchoCanceller, EchoPath, erle_db
from app.companion.tts import CommandVoice, PiperVoice, Voice
from app.errors import ModelError
from tests.conftest import MODELS

RATE = 16_000
REPLY = (
    "I will remind you about the meeting with Alice at three o'clock tomorrow afternoon. Your sister called this "
    "morning and asked about the weekend. The pharmacy closes at six today, so pick up the prescription before "
    "then. Don't forget that the car needs new tires."
)
TALK_AT = 7 * RATE  # the near-end talker starts 7 s into the reply


def chunked(fn, chunk: int, *signals: np.ndarray) -> np.ndarray:
    return np.concatenate([fn(*(s[i : i + chunk] for s in signals)) for i in range(0, signals[0].size, chunk)])


@pytest.fixture(scope="module")
def far() -> np.ndarray:
    """What the companion plays: Piper (deterministic), else espeak-ng; 13-15 s at 16 kHz, peak 0.5."""
    voice: Voice
    try:
        pytest.importorskip("piper", reason="piper-tts is not installed")
        voice = PiperVoice.load(MODELS, deterministic=True)
    except (ModelError, pytest.skip.Exception):
        if shutil.which("espeak-ng") is None:
            pytest.skip("neither the piper-joe voice nor espeak-ng is available (python3 build.py)")
        voice = CommandVoice.espeak_ng()
    return voice.speak_16k(REPLY) * 0.5


@pytest.fixture(scope="module")
def talker() -> np.ndarray:
    """The person in front of the wearer: another espeak-ng voice, about 5 dB above the echo."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (python3 build.py installs it)")
    return CommandVoice.espeak_ng("en-us+f3").speak_16k("Wait, which meeting do you mean?") * 0.5


@pytest.fixture(scope="module")
def scene(far, talker) -> dict[str, np.ndarray]:
    echo = chunked(EchoPath(), 1000, far)
    near = np.zeros_like(far)
    near[TALK_AT : TALK_AT + talker.size] = talker
    aec = EchoCanceller()
    out = chunked(aec, 512, echo + near, far)
    d = aec.delay_samples  # align the output with its input
    return {"far": far, "echo": echo[:-d], "near": near[:-d], "mic": (echo + near)[:-d], "out": out[d:]}


def test_echo_path_streams_a_room_response():
    x = np.random.default_rng(0).standard_normal(20_000).astype(np.float32)
    path = EchoPath(delay_ms=40, attenuation_db=-10, rt60_ms=150)
    assert np.argmax(np.abs(path.impulse)) == 640 and path.impulse[640] == pytest.approx(10 ** (-10 / 20))
    whole = np.convolve(x, path.impulse)[: x.size]
    assert np.allclose(chunked(path, 333, x), whole, atol=1e-5)
    path.reset()
    assert np.allclose(path(x), whole, atol=1e-5)
    assert path(x[:0]).size == 0


def test_erle_db():
    x = np.random.default_rng(1).standard_normal(3 * RATE)
    assert erle_db(x, x) == pytest.approx(0.0)
    assert erle_db(x, x / 10) == pytest.approx(20.0)
    y = x.copy()
    y[: RATE // 2] *= 100  # the convergence time is skipped
    assert erle_db(x, y / 10) == pytest.approx(20.0)


def test_echo_only_is_removed(far):
    echo = EchoPath()(far)
    aec = EchoCanceller()
    out = chunked(aec, 1000, echo, far)
    erle = erle_db(echo[: -aec.delay_samples], out[aec.delay_samples :])
    print(f"ERLE, echo only, after 0.5 s: {erle:.1f} dB")
    assert erle >= 20


def test_double_talk_keeps_the_near_talker(scene, talker):
    talk = slice(TALK_AT, TALK_AT + talker.size)
    corr = np.corrcoef(scene["out"][talk], scene["near"][talk])[0, 1]
    mic_corr = np.corrcoef(scene["mic"][talk], scene["near"][talk])[0, 1]
    echo_only = np.ones(scene["out"].size, bool)
    echo_only[: RATE // 2] = False  # convergence
    echo_only[TALK_AT - 800 : TALK_AT + talker.size + 4000] = False  # the talker and the suppressor's release
    erle = erle_db(scene["echo"][echo_only], scene["out"][echo_only], skip_s=0)
    print(f"double talk: output~near-end correlation {corr:.3f} (mic {mic_corr:.3f}); ERLE elsewhere {erle:.1f} dB")
    assert corr > 0.5
    assert erle >= 20


def test_any_chunk_size_gives_the_same_stream(far):
    echo = EchoPath()(far[: 5 * RATE])
    outputs = []
    for chunk in (512, 1000, 37, FRAME_SAMPLES):
        aec = EchoCanceller()
        out = chunked(aec, chunk, echo, far[: echo.size])
        assert out.size == echo.size
        outputs.append(out)
    for out in outputs[1:]:
        assert np.allclose(out, outputs[0], atol=1e-6)


def test_silent_far_end_leaves_the_near_talker(talker):
    near = np.concatenate([talker, np.zeros(RATE // 2, np.float32)])
    aec = EchoCanceller()
    out = chunked(aec, 512, near, np.zeros_like(near))[aec.delay_samples :]
    near = near[: -aec.delay_samples]
    assert np.corrcoef(out, near)[0, 1] > 0.8  # AEC3's fixed high-pass shifts the phase of low frequencies
    assert 0.9 < np.std(out) / np.std(near) < 1.1
    signal = pytest.importorskip("scipy.signal", reason="scipy is not installed")
    high_passed = signal.sosfilt(signal.butter(2, 100, "highpass", fs=RATE, output="sos"), near)
    assert np.corrcoef(out, high_passed)[0, 1] > 0.99  # nothing else changed


def test_reset_and_shapes():
    aec = EchoCanceller()
    x = np.random.default_rng(2).standard_normal(1000).astype(np.float32) * 0.1
    assert aec(x, x).size == 1000
    aec.reset()
    out = aec(x[:100], x[:100])
    assert out.size == 100 and not out.any()  # the queue starts again with a frame of silence
    with pytest.raises(ValueError, match="equal length"):
        aec(x, x[:10])
