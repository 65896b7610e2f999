"""The sherpa-onnx speaker embedding path on a WeSpeaker-shaped model generated here (fbank features (1, T, 80)
-> mean over time -> a random projection, with sherpa's metadata): the real loader, the metadata checks and
sherpa's feature extraction run; the weights are random, so the embedding tells nothing about the speaker
by construction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.errors import ModelError

NAME = "sherpa-wespeaker-tiny"


def make_tiny_wespeaker(dest: Path, **meta: str) -> Path:
    pytest.importorskip("sherpa_onnx")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    dest.mkdir(parents=True)
    w = np.random.default_rng(0).standard_normal((80, 32)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("ReduceMean", ["feats"], ["pooled"], axes=[1], keepdims=0),
            helper.make_node("MatMul", ["pooled", "w"], ["embs"]),
        ],
        "wespeaker_like",
        [helper.make_tensor_value_info("feats", TensorProto.FLOAT, ["N", "T", 80])],
        [helper.make_tensor_value_info("embs", TensorProto.FLOAT, ["N", 32])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    fields = {"framework": "wespeaker", "output_dim": "32", "sample_rate": "16000", "normalize_samples": "0"}
    fields.update({"language": "English", **meta})
    for key, value in fields.items():
        if value:
            model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(dest / "model.onnx"))
    return dest


def test_a_sherpa_speaker_model_loads_and_embeds(cfg, tmp_path):
    from app.config import load_config
    from app.recorder.perception import load_voice
    from tests.conftest import ROOT

    make_tiny_wespeaker(tmp_path / NAME)
    voice_cfg = load_config(ROOT / "config.yaml", env={}, overrides=[f"models.dir={tmp_path}", f"models.voice={NAME}"])
    encoder = load_voice(voice_cfg)
    rng = np.random.default_rng(1)
    a = encoder((rng.standard_normal(32000) * 0.1).astype(np.float32))
    b = encoder((rng.standard_normal(8000) * 0.1).astype(np.float32))
    assert a.shape == b.shape == (32,) and abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    with pytest.raises(ValueError):
        encoder(np.zeros(0, np.float32))


@pytest.mark.parametrize(
    "broken", [{"framework": "pyannote"}, {"framework": ""}, {"sample_rate": "8000"}, {"normalize_samples": ""}]
)
def test_a_wrong_speaker_model_is_one_clear_error_not_an_exit(broken, tmp_path):
    from app.audio.voice import SherpaVoiceEncoder

    make_tiny_wespeaker(tmp_path / NAME, **broken)
    with pytest.raises(ModelError, match="model"):
        SherpaVoiceEncoder(tmp_path / NAME)


def test_a_missing_or_ambiguous_folder_is_one_clear_error(tmp_path):
    from app.audio.voice import SherpaVoiceEncoder

    with pytest.raises(ModelError, match="exactly one"):
        SherpaVoiceEncoder(tmp_path / "sherpa-nothing")
    make_tiny_wespeaker(tmp_path / NAME)
    (tmp_path / NAME / "other.onnx").write_bytes(b"x")
    with pytest.raises(ModelError, match="exactly one"):
        SherpaVoiceEncoder(tmp_path / NAME)
