"""Faces behind one interface: a detector (boxes, optional keypoints) and an embedder, combined into a
`FaceAnalyzer(frame) -> [Face]` that knows its distance metric and same-person threshold.

Backends: `dlib` (HOG + 5-point alignment + ResNet 128-d, the embedded default), `blazeface-dlib`
(BlazeFace detection, dlib embedding) and `insightface-<pack>` (SCRFD + ArcFace 512-d).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.errors import ModelError
from app.events import Face

THUMB_PX = 32
Detection = tuple[tuple[int, int, int, int], float, "np.ndarray | None"]  # box (x, y, w, h), score, keypoints


class NoveltyGate:
    """Passes a frame only if its 32x32 grey thumbnail differs from the last passed one by `threshold`
    (mean absolute difference, 0..1)."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self._last: np.ndarray | None = None

    def __call__(self, image_bgr: np.ndarray) -> bool:
        import cv2

        grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
        thumb = cv2.resize(grey, (THUMB_PX, THUMB_PX), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        if self._last is not None and float(np.abs(thumb - self._last).mean()) < self.threshold:
            return False
        self._last = thumb
        return True

    def reset(self) -> None:
        self._last = None


def distances(keys: np.ndarray, query: np.ndarray, metric: str) -> np.ndarray:
    """Distance from `query` to each row of `keys`: L2, or cosine distance (1 - cos) for unit vectors."""
    if metric == "cosine":
        return 1.0 - keys @ query
    return np.linalg.norm(keys - query, axis=1)


class FaceAnalyzer:
    """Faces in a BGR frame, largest first, each with an identity embedding."""

    def __init__(
        self,
        name: str,
        detect: Callable[[np.ndarray], list[Detection]],
        embed: Callable[[np.ndarray, tuple[int, int, int, int], np.ndarray | None], np.ndarray],
        metric: str,
        threshold: float,
        min_face_px: int = 48,
    ) -> None:
        self.name = name  # identifies the embedding space: keys from another backend are never compared
        self._detect = detect
        self._embed = embed
        self.metric = metric
        self.threshold = threshold  # the largest distance between two faces of one person
        self.min_face_px = min_face_px

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        found = [d for d in self._detect(image_bgr) if d[0][2] >= self.min_face_px]
        return sorted(found, key=lambda d: -d[0][2] * d[0][3])

    def __call__(self, image_bgr: np.ndarray, max_faces: int = 4) -> list[Face]:
        return [
            Face(box, self._embed(image_bgr, box, kps), score) for box, score, kps in self.detect(image_bgr)[:max_faces]
        ]

    def reset(self) -> None:
        """Stateless."""


class DlibModels:
    """dlib's HOG detector, 5-point shape predictor and ResNet face recognizer (CPU)."""

    L2_THRESHOLD = 0.57  # calibrated: best accuracy on all 1,830 deepface pairs at 0.5755 (`eval faces`)

    def __init__(self, predictor_path: Path, recognizer_path: Path, detect_width_px: int = 640) -> None:
        try:
            import dlib
        except ImportError as e:
            raise ModelError("dlib is not installed: pip install dlib-bin") from e
        try:
            self._hog = dlib.get_frontal_face_detector()
            self._predictor = dlib.shape_predictor(str(predictor_path))
            self._recognizer = dlib.face_recognition_model_v1(str(recognizer_path))
        except RuntimeError as e:
            raise ModelError(f"cannot load dlib face models from {predictor_path.parent}: {e}") from e
        self._dlib = dlib
        self.detect_width_px = detect_width_px

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """HOG on the frame scaled down to detect_width_px; boxes in original pixels."""
        import cv2

        h, w = image_bgr.shape[:2]
        scale = min(1.0, self.detect_width_px / w)
        small = (
            cv2.resize(image_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
            if scale < 1.0
            else image_bgr
        )
        rects, scores, _ = self._hog.run(np.ascontiguousarray(small[:, :, ::-1]), 0, 0.0)
        return [
            (
                (round(r.left() / scale), round(r.top() / scale), round(r.width() / scale), round(r.height() / scale)),
                float(s),
                None,
            )
            for r, s in zip(rects, scores, strict=True)
        ]

    def embed(self, image_bgr: np.ndarray, box: tuple[int, int, int, int], _kps: np.ndarray | None = None):
        rgb = np.ascontiguousarray(image_bgr[:, :, ::-1])
        x, y, bw, bh = box
        shape = self._predictor(rgb, self._dlib.rectangle(x, y, x + bw, y + bh))
        return np.asarray(self._recognizer.compute_face_descriptor(rgb, shape), np.float32)
