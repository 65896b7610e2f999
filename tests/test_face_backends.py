"""Face backends behind one interface: BlazeFace (real .tflite when build.py fetched it), insightface packs
(SCRFD + ArcFace, exercised on small ONNX files generated here with the real input/output layout), and
the `auto` choice."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.errors import ModelError
from app.recorder.perception import face_backend, load_faces
from app.vision.blazeface import anchors, decode
from app.vision.insight import STRIDES, scrfd_decode
from tests.conftest import MODELS, need_models


def _with(cfg, models_dir: Path, face: str):
    return replace(cfg, models=replace(cfg.models, dir=str(models_dir), face=face))


def _iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    h = max(0, min(ay + ah, by + bh) - max(ay, by))
    return w * h / (aw * ah + bw * bh - w * h)


# ---------------------------------------------------------------- BlazeFace
def test_blazeface_decode_places_a_box_on_its_anchor():
    from app.vision.blazeface import _FULL

    a = anchors(_FULL)
    assert a.shape == (2304, 2)
    raw = np.zeros((2304, 16), np.float32)
    logits = np.full(2304, -20.0, np.float32)
    k = 48 * 24 + 24  # the cell in the middle of the grid
    logits[k] = 5.0
    raw[k, 2:4] = 48  # width and height: 48 of 192 input pixels
    ((box, score, kps),) = decode(raw, logits, a, 192, side_px=960)
    assert score > 0.99 and kps.shape == (6, 2)
    assert box == (round((a[k, 0] - 0.125) * 960), round((a[k, 1] - 0.125) * 960), 240, 240)


def test_blazeface_dlib_finds_and_separates_the_demo_faces(cfg):
    need_models("blazeface", "dlib")
    pytest.importorskip("ai_edge_litert")
    from app.demo import face_cards, group_photo

    analyzer = load_faces(_with(cfg, MODELS, "blazeface-dlib"))
    hog = load_faces(_with(cfg, MODELS, "dlib"))
    embeddings = []
    for card in face_cards(group_photo()):
        (face,) = analyzer(card)
        assert _iou(face.box, hog(card)[0].box) > 0.3
        embeddings.append(face.embedding)
    assert analyzer.name == "dlib"  # dlib embeddings: the same key space as the dlib backend
    assert min(np.linalg.norm(a - b) for i, a in enumerate(embeddings) for b in embeddings[i + 1 :]) > 0.6


# ---------------------------------------------------------------- insightface packs (generated)
def _scrfd_like(path: Path) -> None:
    """SCRFD's layout: input (1, 3, H, W); per stride 8/16/32 a score (N, 1), box distances (N, 4) and
    keypoint offsets (N, 10), N = H/s * W/s * 2. This one scores bright cells as faces."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits, outs = [], [], {"score": [], "bbox": [], "kps": []}
    kps_offsets = np.array([-0.3, -0.3, 0.3, -0.3, 0.0, 0.0, -0.25, 0.35, 0.25, 0.35], np.float32)
    heads = {
        "score": (1, np.full(2, -15.0, np.float32), 10.0),
        "bbox": (4, np.ones(8, np.float32), 0.0),
        "kps": (10, np.tile(kps_offsets, 2), 0.0),
    }
    for s in STRIDES:
        nodes.append(helper.make_node("AveragePool", ["input.1"], [f"p{s}"], kernel_shape=[s, s], strides=[s, s]))
        for head, (width, bias, weight) in heads.items():
            w = np.full((2 * width, 3, 1, 1), weight, np.float32)
            inits += [numpy_helper.from_array(w, f"w_{head}{s}"), numpy_helper.from_array(bias, f"b_{head}{s}")]
            conv = f"{head}{s}_conv"
            nodes.append(helper.make_node("Conv", [f"p{s}", f"w_{head}{s}", f"b_{head}{s}"], [conv]))
            if head == "score":
                nodes.append(helper.make_node("Sigmoid", [conv], [conv + "_sig"]))
                conv += "_sig"
            nodes.append(helper.make_node("Transpose", [conv], [conv + "_t"], perm=[0, 2, 3, 1]))
            inits.append(numpy_helper.from_array(np.array([-1, width], np.int64), f"shape_{head}{s}"))
            nodes.append(helper.make_node("Reshape", [conv + "_t", f"shape_{head}{s}"], [f"{head}_{s}"]))
            outs[head].append(helper.make_tensor_value_info(f"{head}_{s}", TensorProto.FLOAT, None))
    graph = helper.make_graph(
        nodes,
        "scrfd_like",
        [helper.make_tensor_value_info("input.1", TensorProto.FLOAT, [1, 3, "h", "w"])],
        outs["score"] + outs["bbox"] + outs["kps"],
        inits,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))


def _arcface_like(path: Path) -> None:
    """ArcFace's layout: (1, 3, 112, 112) -> (1, 512)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(0).standard_normal((3, 512)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("GlobalAveragePool", ["input.1"], ["gap"]),
            helper.make_node("Flatten", ["gap"], ["flat"]),
            helper.make_node("MatMul", ["flat", "w"], ["683"]),
        ],
        "arcface_like",
        [helper.make_tensor_value_info("input.1", TensorProto.FLOAT, [1, 3, 112, 112])],
        [helper.make_tensor_value_info("683", TensorProto.FLOAT, [1, 512])],
        [numpy_helper.from_array(w, "w")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))


@pytest.fixture
def pack_models(tmp_path) -> Path:
    root = tmp_path / "models"
    pack = root / "insightface" / "testpack"
    pack.mkdir(parents=True)
    _scrfd_like(pack / "det_test.onnx")
    _arcface_like(pack / "w600k_test.onnx")
    (pack / "genderage.onnx").write_bytes(b"other pack members are ignored")
    return root


def test_scrfd_decode_maps_back_to_original_pixels():
    outs = []
    for width in (1, 4, 10):  # scores, box distances, keypoint offsets
        for s in STRIDES:
            outs.append(np.zeros(((64 // s) ** 2 * 2, width), np.float32))
    outs[2][0] = 0.9  # stride 32, first cell, first anchor: centre (0, 0)
    outs[5][0] = [0.5, 0.5, 1.5, 1.5]  # distances in stride units
    ((box, score, kps),) = scrfd_decode(outs, (64, 64), scale=0.5)
    assert score == pytest.approx(0.9) and box == (-32, -32, 128, 128) and kps.shape == (5, 2)


def test_auto_picks_an_insightface_pack_when_present(cfg, pack_models, tmp_path):
    assert face_backend(_with(cfg, pack_models, "auto")) == "insightface-testpack"
    assert face_backend(_with(cfg, tmp_path / "empty", "auto")) == "dlib"
    analyzer = load_faces(_with(cfg, pack_models, "auto"))
    assert analyzer.name == "arcface:w600k_test" and analyzer.metric == "cosine"
    image = np.zeros((480, 640, 3), np.uint8)
    image[150:300, 200:350] = 255  # the "face" this generated detector sees
    faces = analyzer(image)
    assert faces
    for face in faces:
        x, y, w, h = face.box
        assert 200 - 32 <= x + w / 2 <= 350 + 32 and 150 - 32 <= y + h / 2 <= 300 + 32
        assert face.embedding.shape == (512,) and abs(np.linalg.norm(face.embedding) - 1) < 1e-5
    assert analyzer(np.zeros((480, 640, 3), np.uint8)) == []


def test_a_pack_without_its_files_is_a_clear_error(cfg, tmp_path):
    (tmp_path / "insightface" / "half").mkdir(parents=True)
    with pytest.raises(ModelError, match="needs a det_"):
        load_faces(_with(cfg, tmp_path, "insightface-half"))
    with pytest.raises(ModelError, match="not found"):
        load_faces(_with(cfg, tmp_path, "insightface-absent"))
    with pytest.raises(ModelError, match="unknown face backend"):
        load_faces(_with(cfg, tmp_path, "facenet"))
