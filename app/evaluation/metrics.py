"""Verification metrics from scores (higher = more alike) and labels (True = same identity)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Roc:
    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray  # accept when score >= threshold


def roc(scores: np.ndarray, labels: np.ndarray) -> Roc:
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], labels[order].astype(bool)
    distinct = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]  # last index of each distinct score
    tp = np.cumsum(y)[distinct]
    fp = np.cumsum(~y)[distinct]
    pos, neg = max(1, int(y.sum())), max(1, int((~y).sum()))
    return Roc(np.r_[0.0, fp / neg], np.r_[0.0, tp / pos], np.r_[np.inf, s[distinct]])


def auc(curve: Roc) -> float:
    return float(np.trapezoid(curve.tpr, curve.fpr))


def eer(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(equal error rate, the threshold where false accepts and false rejects meet)."""
    curve = roc(scores, labels)
    fnr = 1 - curve.tpr
    i = int(np.argmin(np.abs(fnr - curve.fpr)))
    return float((fnr[i] + curve.fpr[i]) / 2), float(curve.thresholds[i])


def tar_at_far(scores: np.ndarray, labels: np.ndarray, far: float) -> float:
    """True-accept rate at the loosest threshold whose false-accept rate is at most `far`."""
    curve = roc(scores, labels)
    ok = curve.fpr <= far
    return float(curve.tpr[ok].max()) if ok.any() else 0.0


def best_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(threshold, accuracy) maximising accuracy; the threshold sits halfway between neighbouring scores."""
    s = np.sort(np.unique(scores))
    candidates = np.r_[s[0] - 1e-6, (s[:-1] + s[1:]) / 2, s[-1] + 1e-6]
    acc = [float(np.mean((scores >= t) == labels)) for t in candidates]
    i = int(np.argmax(acc))
    return float(candidates[i]), acc[i]


def cv_accuracy(scores: np.ndarray, labels: np.ndarray, folds: int = 10, seed: int = 0) -> float:
    """Accuracy with the threshold chosen on the other folds (LFW's 10-fold protocol)."""
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(scores)) % folds
    correct = 0
    for f in range(folds):
        test = fold == f
        threshold, _ = best_threshold(scores[~test], labels[~test])
        correct += int(np.sum((scores[test] >= threshold) == labels[test]))
    return correct / len(scores)
