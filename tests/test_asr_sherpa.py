"""The sherpa-onnx path on a NeMo-CTC-shaped model generated here (features (N, 80, T) -> log-probs over a
29-token vocabulary, with sherpa's metadata): the real loader, feature extraction and decoding run; the
weights are random, so the words are meaningless by construction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.audio.asr import SherpaAsr, load_recognizer

NAME = "sherpa-nemo-ctc-tiny"


def make_tiny_nemo_ctc(dest: Path) -> Path:
    pytest.importorskip("sherpa_onnx")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    dest.mkdir(parents=True)
    tokens = ["<unk>", *"abcdefghijklmnopqrstuvwxyz", "▁", "<blk>"]
    (dest / "tokens.txt").write_text("".join(f"{t} {i}\n" for i, t in enumerate(tokens)))
    w = np.random.default_rng(0).standard_normal((80, len(tokens))).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Transpose", ["audio_signal"], ["x"], perm=[0, 2, 1]),
            helper.make_node("MatMul", ["x", "w"], ["z"]),
            helper.make_node("LogSoftmax", ["z"], ["logprobs"], axis=-1),
        ],
        "nemo_ctc_like",
        [
            helper.make_tensor_value_info("audio_signal", TensorProto.FLOAT, ["N", 80, "T"]),
            helper.make_tensor_value_info("length", TensorProto.INT64, ["N"]),
        ],
        [helper.make_tensor_value_info("logprobs", TensorProto.FLOAT, ["N", "T", len(tokens)])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    for key, value in {
        "vocab_size": str(len(tokens)),
        "subsampling_factor": "1",
        "normalize_type": "per_feature",
    }.items():
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(dest / "model.onnx"))
    return dest


def test_sherpa_nemo_ctc_loads_and_decodes(tmp_path):
    make_tiny_nemo_ctc(tmp_path / NAME)
    asr = load_recognizer(NAME, tmp_path)
    assert isinstance(asr, SherpaAsr) and asr.name == NAME
    out = asr((np.random.default_rng(1).standard_normal(16000) * 0.1).astype(np.float32))
    assert isinstance(out.text, str) and set(out.text) <= set("abcdefghijklmnopqrstuvwxyz <>unk")


def test_a_broken_sherpa_model_is_one_clear_error(tmp_path):
    from app.errors import ModelError

    folder = make_tiny_nemo_ctc(tmp_path / NAME)
    (folder / "model.onnx").write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="cannot load sherpa-onnx model"):
        load_recognizer(NAME, tmp_path)
