"""The faster-whisper path on a tiny Whisper generated here (random weights, 1.7 MB): the real loader,
transcription call and pipeline wiring run; the words it produces are meaningless by construction."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.audio.asr import WhisperAsr, load_recognizer
from app.cli import main
from tests.conftest import MODELS, need_models

NAME = "whisper-tiny-random"


def make_tiny_whisper(dest: Path) -> Path:
    """A CTranslate2 Whisper folder: byte-level tokenizer with Whisper's special tokens, 1 layer, d=64."""
    pytest.importorskip("faster_whisper")
    ctranslate2 = pytest.importorskip("ctranslate2")
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tok = Tokenizer(models.BPE(vocab={ch: i for i, ch in enumerate(alphabet)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = [
        "<|endoftext|>",
        "<|startoftranscript|>",
        "<|en|>",
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
    ]
    tok.add_special_tokens(specials + [f"<|{i * 0.02:.2f}|>" for i in range(1501)])
    eot, sot = tok.token_to_id("<|endoftext|>"), tok.token_to_id("<|startoftranscript|>")
    cfg = transformers.WhisperConfig(
        vocab_size=tok.get_vocab_size(),
        num_mel_bins=80,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        d_model=64,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_source_positions=1500,
        max_target_positions=448,
        pad_token_id=eot,
        bos_token_id=eot,
        eos_token_id=eot,
        decoder_start_token_id=sot,
        suppress_tokens=[],
        begin_suppress_tokens=[eot],
    )
    torch.manual_seed(0)
    hf = dest.parent / (dest.name + "-hf")
    transformers.WhisperForConditionalGeneration(cfg).save_pretrained(hf)
    tok.save(str(hf / "tokenizer.json"))  # the converter builds vocabulary.json from it
    ctranslate2.converters.TransformersConverter(str(hf)).convert(str(dest), force=True)
    tok.save(str(dest / "tokenizer.json"))
    return dest


@pytest.fixture(scope="module")
def whisper_models(tmp_path_factory) -> Path:
    """A models folder with the prepared models linked in and the tiny Whisper beside them."""
    need_models("silero-vad", "resemblyzer", "dlib", "minilm-l6-int8")
    root = tmp_path_factory.mktemp("models")
    for entry in MODELS.iterdir():
        if entry.name not in (".verified.json",):
            (root / entry.name).symlink_to(entry)
    make_tiny_whisper(root / NAME)
    return root


def test_loader_and_transcription(whisper_models):
    asr = load_recognizer(NAME, whisper_models)
    assert isinstance(asr, WhisperAsr) and asr.name == NAME
    noise = (np.random.default_rng(0).standard_normal(32000) * 0.1).astype(np.float32)
    out = asr(noise)
    assert isinstance(out.text, str) and 0.0 <= out.confidence <= 1.0


def test_pipeline_and_doctor_use_the_configured_whisper(whisper_models, speech, tmp_path, capsys):
    from app.audio.media import write_media

    wav = tmp_path / "s.wav"
    write_media(
        wav,
        np.concatenate(
            [np.zeros(8000, np.float32), speech("Testing the whisper path.", "rms"), np.zeros(8000, np.float32)]
        ),
    )
    opts = ["--set", f"models.dir={whisper_models}", "--set", f"models.asr={NAME}"]
    assert main([*opts, "run", "--source", str(wav), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["errors"] == [] and summary["speech_s"] > 1.0
    # random weights may hear no words at all; the prepared whisper-base runs through the recorder in test_demo
    assert summary["utterances"] <= 1
    assert main([*opts, "doctor", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["roles"]["asr"] == NAME and report["ok"]
