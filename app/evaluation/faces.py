"""`eval faces --data DIR`: face verification on every pair of a labelled set (identities.csv: file,identity).

Each image's largest face is embedded with the configured backend; a pair's score is minus the embedding
distance. Reported: accuracy with the threshold chosen on the other nine folds (LFW's protocol), ROC AUC,
TAR at FAR 1 %, and the distance threshold that maximises accuracy on all pairs (the one to deploy).
An image with no face found makes its pairs count as "different": errors are not hidden.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np

from app.config import Config
from app.errors import MediaError
from app.evaluation.datasets import listed_files, read_table
from app.evaluation.metrics import auc, best_threshold, cv_accuracy, roc, tar_at_far
from app.evaluation.plots import roc_det
from app.recorder.perception import face_backend, load_faces

EXPECTED = "a folder with identities.csv (file,identity) and the images it lists (in images/ or beside it)"


def _load(data: Path) -> list[tuple[Path, str]]:
    table = data / "identities.csv"
    rows = read_table(table, EXPECTED, ("file", "identity"))
    identities = [r["identity"] for r in rows]
    if len(set(identities)) < 2 or len(set(identities)) == len(identities):
        raise MediaError(f"{table}: needs two identities and one with two images or more, for both kinds of pairs")
    folder = data / "images" if (data / "images").is_dir() else data
    paths = listed_files(folder, table, [r["file"] for r in rows])
    return list(zip(paths, identities, strict=True))


def _read_image(path: Path):
    # lazy: OpenCV is heavy (~0.1 s); only reading images needs it
    import cv2

    image = cv2.imread(str(path))
    if image is None:
        raise MediaError(f"{path} is not an image that OpenCV can read")
    return image


def eval_faces(cfg: Config, data: Path, out_dir: Path | None = None) -> dict:
    items = _load(data)
    analyzer = load_faces(cfg)
    embeddings: list[np.ndarray | None] = []
    started = time.perf_counter()
    for path, _ in items:
        faces = analyzer(_read_image(path), max_faces=1)
        embeddings.append(faces[0].embedding if faces else None)
    embed_ms = (time.perf_counter() - started) * 1000 / len(items)
    scores, labels = [], []
    for (i, (_, a)), (j, (_, b)) in itertools.combinations(enumerate(items), 2):
        ei, ej = embeddings[i], embeddings[j]
        if ei is None or ej is None:
            scores.append(-1e9)
        elif analyzer.metric == "cosine":
            scores.append(float(ei @ ej) - 1.0)
        else:
            scores.append(-float(np.linalg.norm(ei - ej)))
        labels.append(a == b)
    s, y = np.array(scores), np.array(labels)
    threshold, _ = best_threshold(s, y)
    curve = roc(s, y)
    result = {
        "accuracy": round(cv_accuracy(s, y), 4),
        "roc_auc": round(auc(curve), 4),
        "tar_at_far_1pct": round(tar_at_far(s, y, 0.01), 4),
        "threshold": round(-threshold, 4),
        "pairs": len(s),
        "genuine_pairs": int(y.sum()),
        "images": len(items),
        "no_face": sum(e is None for e in embeddings),
        "backend": face_backend(cfg),
        "metric": analyzer.metric,
        "ms_per_image": round(embed_ms, 1),
    }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result["plot"] = roc_det(
            out_dir / "faces_roc.png",
            {result["backend"]: curve},
            f"face verification ({result['backend']}): {len(items)} images, {len(s)} pairs, {int(y.sum())} same person",
        )
    return result


def render(r: dict) -> str:
    lines = [
        f"face verification ({r['backend']}, {r['metric']} distance): {r['images']} images, {r['pairs']} pairs "
        f"({r['genuine_pairs']} same person); no face found in {r['no_face']}",
        f"  accuracy (10-fold)    {r['accuracy']:.4f}",
        f"  ROC AUC               {r['roc_auc']:.4f}",
        f"  TAR at FAR 1 %        {r['tar_at_far_1pct']:.4f}",
        f"  threshold (distance)  {r['threshold']:.4f}",
        f"  {r['ms_per_image']:.0f} ms per image (detect + embed)",
    ]
    if r.get("plot"):
        lines.append(f"  ROC and DET plot: {r['plot']}")
    return "\n".join(lines) + "\n"
