"""insightface model packs through onnxruntime: SCRFD detection (5 keypoints) and ArcFace embedding (512-d).

Used when a pack's ONNX files are under models/insightface/<pack>/ (the insightface package is not
needed). The packs' weights are licensed for non-commercial research only. OpenCV (heavy) is imported where
it is used.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.devices import onnx_session
from app.errors import ModelError

DET_SIZE = 640
DET_THRESHOLD = 0.5
NMS_IOU = 0.4
STRIDES = (8, 16, 32)
ANCHORS_PER_CELL = 2
ARCFACE_COSINE_DISTANCE = 0.65  # provisional (similarity 0.35); calibrated on real pairs in `eval faces`
# where ArcFace expects the eyes, nose tip and mouth corners in its 112x112 input
ARCFACE_TEMPLATE = np.array(
    [[38.2946, 51.6963], [73.5318, 51.5014], [56.0252, 71.7366], [41.5493, 92.3655], [70.7299, 92.2041]], np.float32
)


def _session(path: Path, device: str, threads: int):
    try:
        return onnx_session(path, device, threads)
    except Exception as e:
        raise ModelError(f"cannot load {path}: {e}") from e


def scrfd_decode(
    outputs: list[np.ndarray], input_hw: tuple[int, int], scale: float, threshold: float = DET_THRESHOLD
) -> list[tuple[tuple[int, int, int, int], float, np.ndarray]]:
    """SCRFD's 9 outputs (scores, box distances, keypoint offsets for strides 8/16/32) -> faces in the
    original image's pixels (the detector input was the image scaled by `scale`)."""
    import cv2

    outputs = [o[0] if o.ndim == 3 else o for o in outputs]  # batched exports carry a leading 1
    boxes, scores, points = [], [], []
    for i, stride in enumerate(STRIDES):
        h, w = input_hw[0] // stride, input_hw[1] // stride
        ys, xs = np.mgrid[:h, :w]
        centres = np.repeat(np.stack([xs, ys], axis=-1).reshape(-1, 2) * stride, ANCHORS_PER_CELL, axis=0)
        s = outputs[i].reshape(-1)
        keep = np.flatnonzero(s >= threshold)
        if not len(keep):
            continue
        d = outputs[i + 3][keep] * stride
        c = centres[keep].astype(np.float32)
        boxes.append(np.concatenate([c - d[:, :2], c + d[:, 2:4]], axis=1))
        points.append(c[:, None, :] + (outputs[i + 6][keep] * stride).reshape(-1, 5, 2))
        scores.append(s[keep])
    if not boxes:
        return []
    xyxy, kps, sc = np.concatenate(boxes) / scale, np.concatenate(points) / scale, np.concatenate(scores)
    xywh = np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], axis=1)
    chosen = np.asarray(cv2.dnn.NMSBoxes(xywh.tolist(), sc.tolist(), threshold, NMS_IOU)).reshape(-1)
    return [(tuple(int(round(v)) for v in xywh[i]), float(sc[i]), kps[i]) for i in chosen]


class ScrfdDetector:
    def __init__(self, path: Path, device: str = "cpu", threads: int = 1) -> None:
        self._sess = _session(path, device, threads)
        self._input = self._sess.get_inputs()[0].name
        if len(self._sess.get_outputs()) != 9:
            raise ModelError(f"{path}: expected SCRFD with keypoints (9 outputs), got {len(self._sess.get_outputs())}")

    def __call__(self, image_bgr: np.ndarray) -> list[tuple[tuple[int, int, int, int], float, np.ndarray]]:
        import cv2

        h, w = image_bgr.shape[:2]
        scale = DET_SIZE / max(h, w)
        canvas = np.zeros((DET_SIZE, DET_SIZE, 3), np.uint8)
        canvas[: round(h * scale), : round(w * scale)] = cv2.resize(image_bgr, (round(w * scale), round(h * scale)))
        blob = cv2.dnn.blobFromImage(canvas, 1.0 / 128, (DET_SIZE, DET_SIZE), (127.5, 127.5, 127.5), swapRB=True)
        return scrfd_decode(self._sess.run(None, {self._input: blob}), (DET_SIZE, DET_SIZE), scale)


def align(image_bgr: np.ndarray, keypoints: np.ndarray, size: int = 112) -> np.ndarray:
    """The face warped so its 5 keypoints land on ArcFace's template (similarity transform)."""
    import cv2

    matrix, _ = cv2.estimateAffinePartial2D(
        keypoints.astype(np.float32), ARCFACE_TEMPLATE * size / 112, method=cv2.LMEDS
    )
    if matrix is None:
        raise ValueError("degenerate keypoints")
    return cv2.warpAffine(image_bgr, matrix, (size, size), borderValue=0)


class ArcFaceEmbedder:
    def __init__(self, path: Path, device: str = "cpu", threads: int = 1) -> None:
        self._sess = _session(path, device, threads)
        self._input = self._sess.get_inputs()[0].name

    def __call__(self, aligned_bgr: np.ndarray) -> np.ndarray:
        import cv2

        blob = cv2.dnn.blobFromImage(aligned_bgr, 1.0 / 127.5, (112, 112), (127.5, 127.5, 127.5), swapRB=True)
        v = self._sess.run(None, {self._input: blob})[0].reshape(-1)
        return (v / max(float(np.linalg.norm(v)), 1e-12)).astype(np.float32)
