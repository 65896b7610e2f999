"""Text to speech: Piper speaks (and PocketSphinx understands it), the command-line fallbacks, sentence splitting."""

from __future__ import annotations

import logging
import random
import shutil

import numpy as np
import pytest

from app.companion.tts import (
    CommandVoice,
    PiperVoice,
    SentenceBuffer,
    load_voice,
    real_time_factor,
    split_sentences,
)
from app.errors import ModelError
from tests.conftest import MODELS, need_models, words

SENTENCE = "I will remind you about the meeting with Alice at three o'clock tomorrow afternoon."


@pytest.fixture(scope="module")
def piper() -> PiperVoice:
    pytest.importorskip("piper", reason="piper-tts is not installed (python3 build.py)")
    need_models("piper-joe")
    return PiperVoice.load(MODELS, deterministic=True)


def need(command: str) -> None:
    if shutil.which(command) is None:
        pytest.skip(f"{command} is not installed (python3 build.py installs it)")


def test_piper_speaks_a_sentence(piper):
    audio = piper(SENTENCE)
    assert piper.sample_rate_hz == 22_050
    assert audio.dtype == np.float32 and audio.ndim == 1
    duration_s = audio.size / piper.sample_rate_hz
    assert 2.0 < duration_s < 8.0  # 14 words
    assert np.abs(audio).max() <= 1.0
    assert np.sqrt(np.mean(audio**2)) > 0.02
    assert piper("").size == 0
    assert np.array_equal(audio, piper(SENTENCE))  # deterministic: no sampling noise
    assert real_time_factor(piper, "Hello there.") > 0


def test_speak_16k(piper):
    native, audio = piper(SENTENCE), piper.speak_16k(SENTENCE)
    assert audio.dtype == np.float32
    assert abs(audio.size - native.size * 16_000 / 22_050) <= 2
    assert np.abs(audio).max() <= 1.0


def test_piper_understood_by_pocketsphinx(piper):
    need_models("pocketsphinx-en-us")
    from app.audio.asr import load_recognizer

    heard = set(words(load_recognizer("pocketsphinx-en-us", MODELS)(piper.speak_16k(SENTENCE)).text))
    content = {"remind", "meeting", "three", "clock", "tomorrow", "afternoon"}
    assert len(content & heard) >= 4, heard


def test_espeak_ng_voice():
    need("espeak-ng")
    voice = CommandVoice.espeak_ng()
    audio = voice("-Hello there, how are you today?")  # a leading dash is text, not an option
    assert voice.sample_rate_hz == 22_050
    assert 1.0 < audio.size / voice.sample_rate_hz < 5.0
    assert np.sqrt(np.mean(audio**2)) > 0.02
    assert voice.speak_16k("").size == 0


def test_a_command_voice_keeps_what_it_says_off_its_command_line_and_out_of_its_errors(tmp_path):
    """The text goes on stdin: another local user can read a command line (/proc/PID/cmdline), and a failure's
    message, logged, would repeat it."""
    need("espeak-ng")
    voice = CommandVoice.espeak_ng()
    assert not any("{text}" in a for a in voice._command) and "--stdin" in voice._command
    seen = tmp_path / "argv"
    failing = CommandVoice(
        "failing", ["sh", "-c", f'echo "$@" > {seen}; cat > /dev/null; exit 3', "sh", "{wav}"], 16_000
    )
    with pytest.raises(ModelError) as e:
        failing("David is allergic to peanuts")
    assert str(e.value) == "failing failed: exit status 3"
    assert "David" not in seen.read_text()


def test_flite_voice():
    need("flite")
    voice = CommandVoice.flite()
    audio = voice.speak_16k("Hello there.")
    assert voice.sample_rate_hz == 16_000
    assert 0.5 < audio.size / 16_000 < 3.0 and np.abs(audio).max() > 0.05


def test_load_voice_prefers_piper(piper):
    assert isinstance(load_voice(MODELS), PiperVoice)
    need("espeak-ng")
    assert load_voice(MODELS, preferred="espeak-ng").name == "espeak-ng en-us"


def test_load_voice_falls_back_without_the_model(tmp_path, caplog):
    need("espeak-ng")
    with caplog.at_level(logging.INFO, logger="app.companion.tts"):
        voice = load_voice(tmp_path / "models")
    assert voice.name == "espeak-ng en-us"
    assert "voice piper unavailable" in caplog.text and "python build.py" in caplog.text
    assert "piper unavailable" in caplog.records[-1].getMessage()


def test_load_voice_none_available(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ModelError, match="no text-to-speech voice available") as err:
        load_voice(tmp_path / "models")
    assert "\n" not in str(err.value)
    assert "espeak-ng is not installed" in str(err.value) and "flite is not installed" in str(err.value)
    with pytest.raises(ModelError, match="unknown voice"):
        load_voice(tmp_path, preferred="festival")


REPLY = (
    "Dr. Smith said the dose is 3.5 mg twice a day! Did you ask about it? Yes; she agreed.\n"
    'You met J. K. Rowling at 3 p.m. Then you left, e.g. to get coffee. No. 5 is on Main St. near the park. "Great." OK'
)
REPLY_SENTENCES = [
    "Dr. Smith said the dose is 3.5 mg twice a day!",
    "Did you ask about it?",
    "Yes;",
    "she agreed.",
    "You met J. K. Rowling at 3 p.m.",
    "Then you left, e.g. to get coffee.",
    "No. 5 is on Main St. near the park.",
    '"Great."',
    "OK",
]


def test_split_sentences():
    assert split_sentences(REPLY) == REPLY_SENTENCES
    assert split_sentences("1. Milk\n2. Eggs\n\n...\n") == ["1. Milk", "2. Eggs"]
    assert split_sentences("No. I don't think so.") == ["No.", "I don't think so."]
    assert split_sentences("The U.S. economy grew by 2.5 percent.") == ["The U.S. economy grew by 2.5 percent."]
    assert split_sentences("") == []


def test_sentence_buffer_streams_pieces_split_mid_word():
    rng = random.Random(0)
    for _ in range(20):
        buffer, got, i = SentenceBuffer(), [], 0
        while i < len(REPLY):
            n = rng.randint(1, 6)
            got += buffer.feed(REPLY[i : i + n])
            i += n
        assert got + buffer.flush() == REPLY_SENTENCES


def test_sentence_buffer_waits_for_what_follows():
    buffer = SentenceBuffer()
    assert buffer.feed("It costs 3.") == []  # may be 3.5
    assert buffer.feed("5 euros. Dr") == ["It costs 3.5 euros."]
    assert buffer.feed(". Smith") == []
    assert buffer.feed(" is in. ") == ["Dr. Smith is in."]
    assert buffer.feed("Meet at 3 p.m. ") == []  # "p.m." ends a sentence only before a capital
    assert buffer.feed("Then") == ["Meet at 3 p.m."]
    assert buffer.flush() == ["Then"]
    assert buffer.flush() == []
