"""Speech recognition: the embedded PocketSphinx on generated sentences; user-model loaders fail clearly."""

from __future__ import annotations

import pytest

from app.audio.asr import SherpaAsr, WhisperAsr, load_recognizer
from app.errors import ModelError
from tests.conftest import MODELS, wer

SENTENCES = (
    "My colleague John is a teacher and he likes to cook Italian food.",
    "We are planning a trip to Paris in the summer with my family.",
    "Remember that the meeting with the doctor is on Friday at three o'clock.",
)


@pytest.mark.parametrize("voice", ["slt", "rms", "kal16"])
def test_pocketsphinx_on_generated_speech(perception, speech, voice):
    rates = []
    for text in SENTENCES:
        hyp = perception.asr(speech(text, voice))
        rates.append(wer(text, hyp.text))
        assert 0.0 <= hyp.confidence <= 1.0
    mean = sum(rates) / len(rates)
    print(f"PocketSphinx WER on flite {voice}: {mean:.3f} ({', '.join(f'{r:.2f}' for r in rates)})")
    assert mean <= 0.15


def test_whisper_folder_missing_files(tmp_path):
    (tmp_path / "whisper-tiny").mkdir()
    with pytest.raises(ModelError, match="lacks model.bin"):
        WhisperAsr(tmp_path / "whisper-tiny")


def test_sherpa_folder_missing(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        SherpaAsr(tmp_path / "sherpa-zipformer")


def test_unknown_recognizer_name():
    with pytest.raises(ModelError, match="unknown model"):
        load_recognizer("wav2vec-huge", MODELS)


def test_a_registry_model_that_is_not_asr():
    with pytest.raises(ModelError, match="not a speech recognizer"):
        load_recognizer("silero-vad", MODELS)
