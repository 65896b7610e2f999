"""Faces behind one interface: a detector (boxes, optional keypoints) and an embedder, combined into a
`FaceAnalyzer(frame) -> [Face]` that knows its distance metric and same-person threshold.

Backends: `dlib` (HOG + 5-point alignment + dlib's ResNet 128-d on onnxruntime), `blazeface-dlib`
(BlazeFace detection, dlib embedding) and `insightface-<pack>` (SCRFD + ArcFace 512-d).

Every face is graded (`QualityGate`): size, sharpness (variance of the Laplacian of the face at 64 px) and
yaw (the nose's offset from the eyes' midline, over the eye distance, from the alignment landmarks). Faces
are still recognised when graded down, but only faces with no defect become identity keys.

OpenCV and dlib (heavy) are imported where they are used: `ask` imports this module through
app.recorder.perception and needs neither.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.errors import ModelError
from app.frames import Face
from app.vision.dlibnet import DlibResNet

THUMB_PX = 32
SHARPNESS_PX = 64
Detection = tuple[tuple[int, int, int, int], float, "np.ndarray | None"]  # box (x, y, w, h), score, keypoints
# an embedder returns the embedding and the landmarks it aligned on: (3, 2) pixels, two eye centres and the nose
Embedded = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class QualityGate:
    """What a face must be to become an identity key. On the 61 deepface photos sharpness is 470-2000
    (1st-95th percentile); blurred with sigma = width/25 it falls to 10-30, with width/50 to 45-130; frontal
    yaw is below 0.09 (95th percentile), and 0.35 is about 30 degrees on a real head."""

    min_px: int = 80  # face box width
    min_sharpness: float = 50.0  # variance of the Laplacian of the grey face resized to 64 x 64
    max_yaw: float = 0.35  # |nose offset from the eyes' midline| / eye distance; about 30 degrees

    def grade(self, image_bgr: np.ndarray, box: tuple[int, int, int, int], landmarks: np.ndarray) -> tuple[float, str]:
        """(quality in 0..1 for ranking keys, defect: "" or small | blurred | turned)."""
        width = box[2]
        sharp = sharpness(image_bgr, box)
        turned = yaw(landmarks)
        quality = min(1.0, width / (2 * self.min_px)) * min(1.0, sharp / (2 * self.min_sharpness))
        quality *= max(0.0, 1.0 - turned / (2 * self.max_yaw))
        defect = (
            "small"
            if width < self.min_px
            else "blurred"
            if sharp < self.min_sharpness
            else "turned"
            if turned > self.max_yaw
            else ""
        )
        return round(quality, 4), defect


def sharpness(image_bgr: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """Variance of the Laplacian of the face box, grey, resized to 64 x 64 (0 for an empty crop)."""
    import cv2

    x, y, w, h = box
    h_img, w_img = image_bgr.shape[:2]
    crop = image_bgr[max(0, y) : min(h_img, y + h), max(0, x) : min(w_img, x + w)]
    if crop.size == 0:
        return 0.0
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    grey = cv2.resize(grey, (SHARPNESS_PX, SHARPNESS_PX), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def yaw(landmarks: np.ndarray) -> float:
    """How far the head is turned: the nose's distance from the perpendicular bisector of the eyes, over the
    eye distance (0 frontal, about 0.55 tan(yaw) for a real head)."""
    eye_a, eye_b, nose = np.asarray(landmarks, np.float64)[:3]
    axis = eye_b - eye_a
    span = float(np.linalg.norm(axis))
    if span < 1e-6:
        return float("inf")
    return abs(float((nose - (eye_a + eye_b) / 2) @ axis)) / span**2


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
        embed: Callable[[np.ndarray, tuple[int, int, int, int], np.ndarray | None], Embedded],
        metric: str,
        threshold: float,
        min_face_px: int = 48,
        gate: QualityGate | None = None,
    ) -> None:
        self.name = name  # identifies the embedding space: keys from another backend are never compared
        self._detect = detect
        self._embed = embed
        self.metric = metric
        self.threshold = threshold  # the largest distance between two faces of one person
        self.min_face_px = min_face_px
        self.gate = gate or QualityGate()

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        found = [d for d in self._detect(image_bgr) if d[0][2] >= self.min_face_px]
        return sorted(found, key=lambda d: -d[0][2] * d[0][3])

    def __call__(self, image_bgr: np.ndarray, max_faces: int = 4) -> list[Face]:
        return [self.embed(image_bgr, d) for d in self.detect(image_bgr)[:max_faces]]

    def embed(self, image_bgr: np.ndarray, detection: Detection) -> Face:
        box, score, kps = detection
        embedding, landmarks = self._embed(image_bgr, box, kps)
        return Face(box, embedding, score, *self.gate.grade(image_bgr, box, landmarks))

    def reset(self) -> None:
        """Stateless."""


def iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = w * h
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


class FaceTracker:
    """Faces in a frame, re-using an embedding while its face stays put: a detection overlapping (IoU >=
    `min_iou`) a face embedded less than `max_age_s` ago keeps that face's embedding and grade, so the
    embedder (most of the cost) runs only for faces that are new or have moved."""

    def __init__(self, analyzer: FaceAnalyzer, min_iou: float = 0.6, max_age_s: float = 10.0) -> None:
        self.analyzer = analyzer
        self.min_iou = min_iou
        self.max_age_s = max_age_s
        self._tracks: list[tuple[float, Face]] = []  # (when embedded, face)
        self.embedded = 0  # faces embedded so far (the rest were tracked)

    def __call__(self, image_bgr: np.ndarray, t_s: float, max_faces: int = 4) -> list[Face]:
        live = [(t, f) for t, f in self._tracks if t_s - t < self.max_age_s]
        faces, tracks = [], []
        for det in self.analyzer.detect(image_bgr)[:max_faces]:
            overlap = max(live, key=lambda tf: iou(tf[1].box, det[0]), default=None)
            if overlap is not None and iou(overlap[1].box, det[0]) >= self.min_iou:
                old = overlap[1]
                face = Face(det[0], old.embedding, det[1], old.quality, old.defect)
                tracks.append(overlap)
            else:
                face = self.analyzer.embed(image_bgr, det)
                self.embedded += 1
                tracks.append((t_s, face))
            faces.append(face)
        self._tracks = tracks
        return faces

    def reset(self) -> None:
        self._tracks = []


class DlibModels:
    """dlib's HOG detector and 5-point shape predictor, and its ResNet face network on onnxruntime
    (`DlibResNet`: dlib's descriptors, about 3 ms a face instead of 60-100 ms in the dlib wheel)."""

    L2_THRESHOLD = 0.57  # calibrated: best accuracy on all 1,830 deepface pairs at 0.5755 (`eval faces`)
    CHIP_PADDING = 0.25  # dlib's compute_face_descriptor default: the chip's margin around the landmarks

    def __init__(
        self, predictor_path: Path, recognizer_path: Path, detect_width_px: int = 640, device: str = "cpu"
    ) -> None:
        try:
            import dlib
        except ImportError as e:
            raise ModelError("dlib is not installed: pip install dlib-bin") from e
        try:
            self._hog = dlib.get_frontal_face_detector()
            self._predictor = dlib.shape_predictor(str(predictor_path))
        except RuntimeError as e:
            raise ModelError(f"cannot load dlib face models from {predictor_path.parent}: {e}") from e
        self._network = DlibResNet(recognizer_path, device, threads=1)  # one small chip: a second thread only spins
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
        rects, scores, _ = self._hog.run(cv2.cvtColor(small, cv2.COLOR_BGR2RGB), 0, 0.0)
        return [
            (
                (round(r.left() / scale), round(r.top() / scale), round(r.width() / scale), round(r.height() / scale)),
                float(s),
                None,
            )
            for r, s in zip(rects, scores, strict=True)
        ]

    def embed(self, image_bgr: np.ndarray, box: tuple[int, int, int, int], _kps: np.ndarray | None = None) -> Embedded:
        """128-d descriptor of the face aligned on its 5 landmarks (eye corners 0-1 and 2-3, nose 4)."""
        import cv2

        rgb = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB)
        x, y, bw, bh = box
        shape = self._predictor(rgb, self._dlib.rectangle(x, y, x + bw, y + bh))
        points = np.array([(p.x, p.y) for p in shape.parts()], np.float64)
        landmarks = np.stack([points[0:2].mean(0), points[2:4].mean(0), points[4]])
        chip = self._dlib.get_face_chip(rgb, shape, self._network.chip_px, self.CHIP_PADDING)
        return self._network(chip[None])[0], landmarks
