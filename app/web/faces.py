"""A person's face thumbnail: the kept frame their best face key came from, decrypted in memory, the largest
face in it found by OpenCV's bundled frontal-face cascade and cut out square (the whole frame, shrunk, when
none is found). Nothing is written to disk; the result is a small JPEG in RAM. OpenCV (heavy) is imported
where it is used."""

from __future__ import annotations

import functools

import numpy as np

THUMB_PX = 160  # the thumbnail's side
MARGIN = 0.35  # space kept around the face box, as a fraction of its width


@functools.lru_cache(maxsize=1)
def _cascade():
    import cv2

    return cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_default.xml")


def _square(image: np.ndarray, box: tuple[int, int, int, int] | None) -> np.ndarray:
    height, width = image.shape[:2]
    if box is None:
        x, y, w, h = 0, 0, width, height
    else:
        x, y, w, h = box
    side = int(max(w, h) * (1 + 2 * MARGIN)) if box is not None else min(width, height)
    cx, cy = x + w // 2, y + h // 2
    x0 = int(np.clip(cx - side // 2, 0, max(0, width - side)))
    y0 = int(np.clip(cy - side // 2, 0, max(0, height - side)))
    return image[y0 : y0 + side, x0 : x0 + side]


def thumbnail(jpeg: bytes) -> bytes | None:
    """A square JPEG of the largest face in a frame (None when the frame does not decode)."""
    import cv2

    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        return None
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = _cascade().detectMultiScale(grey, scaleFactor=1.1, minNeighbors=5, minSize=(40, 40))
    box = tuple(int(v) for v in max(found, key=lambda b: b[2] * b[3])) if len(found) else None
    crop = cv2.resize(_square(image, box), (THUMB_PX, THUMB_PX), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return buf.tobytes() if ok else None
