"""dlib's face network read from its own file and run on onnxruntime: the same descriptors as dlib's
`compute_face_descriptor` on the demo faces and on real photos; a damaged file is one clear error."""

from __future__ import annotations

import numpy as np
import pytest

from app.errors import ModelError
from app.vision.dlibnet import DlibResNet, read_net
from tests.conftest import MODELS, need_models

NETWORK = MODELS / "dlib" / "dlib_face_recognition_resnet_model_v1.dat"
PREDICTOR = MODELS / "dlib" / "shape_predictor_5_face_landmarks.dat"


@pytest.fixture(scope="module")
def dlib_reference():
    """(ours, dlib's shape predictor, dlib's own recognizer, dlib's HOG detector)."""
    need_models("dlib")
    import dlib

    return (
        DlibResNet(NETWORK),
        dlib.shape_predictor(str(PREDICTOR)),
        dlib.face_recognition_model_v1(str(NETWORK)),
        dlib.get_frontal_face_detector(),
    )


def _both(reference, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ours, dlib's) descriptor of the largest face HOG finds."""
    import dlib

    ours, predictor, theirs, hog = reference
    rgb = np.ascontiguousarray(image_bgr[:, :, ::-1])
    rect = max(hog(rgb, 0), key=lambda r: r.area())
    shape = predictor(rgb, rect)
    chip = dlib.get_face_chip(rgb, shape, ours.chip_px, 0.25)
    return ours(chip[None])[0], np.asarray(theirs.compute_face_descriptor(rgb, shape), np.float32)


def test_descriptors_are_dlibs_on_the_demo_faces(dlib_reference):
    from app.demo import face_cards, group_photo

    for card in face_cards(group_photo()):
        ours, theirs = _both(dlib_reference, card)
        assert ours.shape == (128,) and ours.dtype == np.float32
        assert np.abs(ours - theirs).max() < 1e-5  # float32 rounding: a distance threshold of 0.57 never notices


def test_descriptors_are_dlibs_on_real_photos(dlib_reference, shared_data):
    import cv2

    images = sorted((shared_data / "deepface_faces" / "images").glob("*.jpg"))[:12]
    assert images
    for path in images:
        ours, theirs = _both(dlib_reference, cv2.imread(str(path)))
        assert np.abs(ours - theirs).max() < 1e-5, path.name


def test_a_batch_gives_each_chip_its_own_descriptor(dlib_reference):
    ours = dlib_reference[0]
    rng = np.random.default_rng(1)
    chips = rng.integers(0, 256, (3, ours.chip_px, ours.chip_px, 3), dtype=np.uint8)
    batch = ours(chips)
    assert batch.shape == (3, 128)
    for chip, row in zip(chips, batch, strict=True):
        assert np.allclose(ours(chip[None])[0], row, atol=1e-5)


def test_the_network_is_read_layer_by_layer():
    need_models("dlib")
    net = read_net(NETWORK.read_bytes())
    kinds = [kind for kind, _ in net.layers]
    assert net.chip_px == 150 and np.allclose(net.mean_rgb, [122.782, 117.001, 104.298], atol=1e-3)
    assert kinds.count("con") == 29 and kinds.count("avgpool") == 5 and kinds[-1] == "fc"
    assert net.layers[-1][1]["w"].shape == (256, 128)


def test_a_damaged_file_is_one_clear_error(tmp_path):
    need_models("dlib")
    data = NETWORK.read_bytes()
    for name, damaged in (("cut.dat", data[: len(data) // 2]), ("other.dat", b"\x01\x01\x01\x05hello" + data[20:])):
        path = tmp_path / name
        path.write_bytes(damaged)
        with pytest.raises(ModelError, match=f"cannot read dlib's face network {name}") as e:
            DlibResNet(path)
        assert "\n" not in str(e.value)
    with pytest.raises(ModelError, match="cannot read"):
        DlibResNet(tmp_path / "absent.dat")
