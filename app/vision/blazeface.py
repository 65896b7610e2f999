"""BlazeFace (MediaPipe's face detector, .tflite from the mediapipe 0.10.21 wheel) on ai-edge-litert or
tflite-runtime: about 1-3 ms per frame on a laptop CPU. The interpreter (an optional extra) and OpenCV (heavy)
are imported where they are used."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.errors import ModelError

MIN_SCORE = 0.5
NMS_IOU = 0.3


@dataclass(frozen=True)
class _Layout:
    size: int  # square input, pixels
    grids: tuple[tuple[int, int], ...]  # (cells per side, anchors per cell)


_SHORT = _Layout(128, ((16, 2), (8, 6)))  # 896 anchors: faces within ~2 m
_FULL = _Layout(192, ((48, 1),))  # 2304 anchors: faces up to ~5 m


def anchors(layout: _Layout) -> np.ndarray:
    """(N, 2) anchor centres in 0..1, in the order the model emits them."""
    out = []
    for cells, per_cell in layout.grids:
        ys, xs = np.mgrid[:cells, :cells]
        centres = np.stack([(xs + 0.5) / cells, (ys + 0.5) / cells], axis=-1).reshape(-1, 2)
        out.append(np.repeat(centres, per_cell, axis=0))
    return np.concatenate(out).astype(np.float32)


def _interpreter(path: Path, threads: int):
    if importlib.util.find_spec("ai_edge_litert") is not None:
        from ai_edge_litert.interpreter import Interpreter
    elif importlib.util.find_spec("tflite_runtime") is not None:
        from tflite_runtime.interpreter import Interpreter
    else:
        raise ModelError("BlazeFace needs a TFLite runtime: pip install -e '.[faces]' (ai-edge-litert)")
    try:
        interp = Interpreter(model_path=str(path), num_threads=threads)
        interp.allocate_tensors()
    except (ValueError, RuntimeError) as e:
        raise ModelError(f"cannot load BlazeFace from {path}: {e}") from e
    return interp


class BlazeFaceDetector:
    """Faces as (box in original pixels, score, 6 keypoints) from a BGR frame."""

    def __init__(self, path: Path, threads: int = 1, min_score: float = MIN_SCORE) -> None:
        self._interp = _interpreter(path, threads)
        inp = self._interp.get_input_details()[0]
        size = int(inp["shape"][1])
        self.layout = {128: _SHORT, 192: _FULL}.get(size)
        if self.layout is None:
            raise ModelError(f"{path}: unexpected BlazeFace input size {size}")
        self._input = inp["index"]
        outs = sorted(self._interp.get_output_details(), key=lambda d: -int(d["shape"][-1]))
        self._regressors, self._scores = outs[0]["index"], outs[1]["index"]
        self._anchors = anchors(self.layout)
        self.min_score = min_score

    def _square(self, image_bgr: np.ndarray) -> tuple[np.ndarray, int]:
        """Pad to a square (bottom/right), as MediaPipe letterboxes, and scale to the input size."""
        import cv2

        h, w = image_bgr.shape[:2]
        side = max(h, w)
        canvas = np.zeros((side, side, 3), np.uint8)
        canvas[:h, :w] = image_bgr
        small = cv2.resize(canvas, (self.layout.size, self.layout.size), interpolation=cv2.INTER_AREA)
        return small, side

    def __call__(self, image_bgr: np.ndarray) -> list[tuple[tuple[int, int, int, int], float, np.ndarray]]:
        small, side = self._square(image_bgr)
        x = (small[:, :, ::-1].astype(np.float32) / 127.5 - 1.0)[None]
        self._interp.set_tensor(self._input, x)
        self._interp.invoke()
        raw = self._interp.get_tensor(self._regressors)[0]
        logits = self._interp.get_tensor(self._scores)[0, :, 0]
        return decode(raw, logits, self._anchors, self.layout.size, side, self.min_score)


def decode(
    raw: np.ndarray,
    logits: np.ndarray,
    anchor_xy: np.ndarray,
    input_size: int,
    side_px: int,
    min_score: float = MIN_SCORE,
) -> list[tuple[tuple[int, int, int, int], float, np.ndarray]]:
    """Model outputs -> NMS-filtered (x, y, w, h) boxes, scores and (6, 2) keypoints in original pixels."""
    import cv2

    scores = 1.0 / (1.0 + np.exp(-np.clip(logits.astype(np.float64), -100, 100)))
    keep = np.flatnonzero(scores >= min_score)
    if not len(keep):
        return []
    r = raw[keep] / input_size
    centre = r[:, :2] + anchor_xy[keep]
    size = r[:, 2:4]
    boxes = np.concatenate([centre - size / 2, size], axis=1) * side_px
    kps = (r[:, 4:16].reshape(-1, 6, 2) + anchor_xy[keep][:, None, :]) * side_px
    chosen = cv2.dnn.NMSBoxes(boxes.tolist(), scores[keep].tolist(), min_score, NMS_IOU)
    out = []
    for i in np.asarray(chosen).reshape(-1):
        x, y, w, h = boxes[i]
        out.append(((round(x), round(y), round(w), round(h)), float(scores[keep][i]), kps[i]))
    return out
