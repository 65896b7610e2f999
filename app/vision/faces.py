"""Face detection + identity embedding (dlib HOG detector, 5-point alignment, ResNet 128-d) and the
novelty gate that skips unchanged frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.errors import ModelError
from app.events import Face

THUMB_PX = 32


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


class DlibFaces:
    """Faces in a BGR frame, largest first, each with a 128-d dlib embedding (same person: L2 < ~0.6)."""

    def __init__(
        self, predictor_path: Path, recognizer_path: Path, detect_width_px: int = 640, min_face_px: int = 48
    ) -> None:
        try:
            import dlib
        except ImportError as e:
            raise ModelError("dlib is not installed: pip install dlib-bin") from e
        try:
            self._detector = dlib.get_frontal_face_detector()
            self._predictor = dlib.shape_predictor(str(predictor_path))
            self._recognizer = dlib.face_recognition_model_v1(str(recognizer_path))
        except RuntimeError as e:
            raise ModelError(f"cannot load dlib face models from {predictor_path.parent}: {e}") from e
        self._dlib = dlib
        self.detect_width_px = detect_width_px
        self.min_face_px = min_face_px

    @property
    def window(self) -> tuple[int, int]:
        return (150, 150)  # aligned face chip fed to the embedder

    def detect(self, image_bgr: np.ndarray) -> list[tuple[tuple[int, int, int, int], float]]:
        """(box in original pixels, score) per face, after detecting on a frame scaled to detect_width_px."""
        import cv2

        h, w = image_bgr.shape[:2]
        scale = min(1.0, self.detect_width_px / w)
        small = (
            cv2.resize(image_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
            if scale < 1.0
            else image_bgr
        )
        rgb = np.ascontiguousarray(small[:, :, ::-1])
        rects, scores, _ = self._detector.run(rgb, 0, 0.0)
        out = []
        for r, s in zip(rects, scores, strict=True):
            if r.width() < self.min_face_px:
                continue
            box = (round(r.left() / scale), round(r.top() / scale), round(r.width() / scale), round(r.height() / scale))
            out.append((box, float(s)))
        out.sort(key=lambda bs: -bs[0][2] * bs[0][3])
        return out

    def embed(self, image_bgr: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        rgb = np.ascontiguousarray(image_bgr[:, :, ::-1])
        x, y, bw, bh = box
        rect = self._dlib.rectangle(x, y, x + bw, y + bh)
        shape = self._predictor(rgb, rect)
        return np.asarray(self._recognizer.compute_face_descriptor(rgb, shape), np.float32)

    def __call__(self, image_bgr: np.ndarray, max_faces: int = 4) -> list[Face]:
        return [Face(box, self.embed(image_bgr, box), score) for box, score in self.detect(image_bgr)[:max_faces]]

    def reset(self) -> None:
        """Stateless."""
