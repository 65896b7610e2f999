"""The evaluations' plots: PNG files written beside their JSON, drawn off-screen with matplotlib (the `eval`
extra). Each function returns the path it wrote, or None when matplotlib is not installed; `unavailable()`
says why in one line. matplotlib is imported inside the functions: it is optional, and the CLI imports this
module."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from statistics import NormalDist

import numpy as np

from app.evaluation.metrics import Roc, auc

DPI = 110
MISSING = "no plots: matplotlib is not installed (python3 build.py installs it, or pip install -e '.[eval]')"
DET_TICKS = (0.001, 0.005, 0.02, 0.05, 0.1, 0.2, 0.4)  # error rates labelled on the DET axes
DET_LIMITS = (0.0005, 0.5)
ROC_FLOOR = 1e-4  # the false-accept rate a log axis shows for 0


def unavailable() -> str | None:
    """Why no plot can be drawn here, or None when they can."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return MISSING
    return None


def pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def saved(plt, fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return str(path)


def _style(n: int) -> dict:
    """The n-th line's marker and dashes, so that lines lying on each other stay visible."""
    return {"marker": "osD^v"[n % 5], "markersize": max(3.0, 7.0 - 1.3 * n), "linestyle": ("-", "--", "-.", ":")[n % 4]}


def _probit(p: np.ndarray) -> np.ndarray:
    """The normal deviate of each rate: DET's axes, where normal score distributions give straight lines."""
    inv = NormalDist().inv_cdf
    return np.array([inv(x) for x in np.clip(p, *DET_LIMITS)])


def roc_det(path: Path, curves: dict[str, Roc], title: str) -> str | None:
    """ROC (true accepts over false accepts, log scale) beside DET (false rejects over false accepts, on
    normal-deviate scales, with each curve's equal error rate) for the same verification trials."""
    plt = pyplot()
    if plt is None:
        return None
    fig, (roc_ax, det_ax) = plt.subplots(1, 2, figsize=(10.5, 4.6))
    for name, c in curves.items():
        fnr = 1 - c.tpr
        i = int(np.argmin(np.abs(fnr - c.fpr)))
        roc_ax.plot(np.maximum(c.fpr, ROC_FLOOR), c.tpr, label=f"{name} (AUC {auc(c):.4f})")
        det_ax.plot(_probit(c.fpr), _probit(fnr), label=f"{name} (EER {(fnr[i] + c.fpr[i]) / 2:.2%})")
    roc_ax.set(xscale="log", xlim=(ROC_FLOOR, 1), ylim=(0, 1.01), title="ROC")
    roc_ax.set(xlabel="false accept rate (log)", ylabel="true accept rate")
    ticks, limits = _probit(np.array(DET_TICKS)), _probit(np.array(DET_LIMITS))
    labels = [f"{t:.1%}".replace(".0%", "%") for t in DET_TICKS]
    det_ax.plot(limits, limits, color="grey", linewidth=0.8, linestyle=":", label="equal error")
    det_ax.set(xticks=ticks, xticklabels=labels, yticks=ticks, yticklabels=labels, xlim=limits, ylim=limits)
    det_ax.set(xlabel="false accept rate", ylabel="false reject rate", title="DET")
    for ax in (roc_ax, det_ax):
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right" if ax is roc_ax else "upper right", fontsize=8)
    fig.suptitle(title)
    return saved(plt, fig, path)


def recall_at_k(path: Path, panels: dict[str, dict[str, list[float]]], ks: Sequence[int], title: str) -> str | None:
    """One panel per question category: each method's evidence recall at each k."""
    plt = pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.8), sharey=True, squeeze=False)
    for ax, (panel, methods) in zip(axes[0], panels.items(), strict=True):
        for n, (method, recalls) in enumerate(methods.items()):
            ax.plot(ks, recalls, label=method, **_style(n))
        ax.set(title=panel, xscale="log", xlabel="k (results read)", ylim=(-0.02, 1.05))
        ax.set_xticks(list(ks), [str(k) for k in ks])
        ax.minorticks_off()
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("evidence recall@k")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    return saved(plt, fig, path)


def grouped_bars(
    path: Path, groups: Sequence[str], series: dict[str, Sequence[float]], ylabel: str, title: str
) -> str | None:
    """Bars per group (a category), one per series (a method), each labelled with its value."""
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(groups) * max(1, len(series)) / 2), 4.2))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for n, (name, values) in enumerate(series.items()):
        bars = ax.bar(x + (n - (len(series) - 1) / 2) * width, values, width, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
    ax.set_xticks(x, list(groups))
    ax.set(ylabel=ylabel, ylim=(0, 1.08), title=title)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return saved(plt, fig, path)


def curves(
    path: Path,
    x: Sequence[float],
    series: dict[str, Sequence[float]],
    labels: tuple[str, str, str],
    mark: float | None = None,
) -> str | None:
    """Lines over a shared x (e.g. recall and precision over a threshold); `labels` are (x, y, title) and
    `mark` draws a dashed line at the x that is reported."""
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for n, (name, values) in enumerate(series.items()):
        ax.plot(x, values, label=name, **_style(n))
    if mark is not None:
        ax.axvline(mark, color="grey", linestyle="--", linewidth=0.8, label=f"reported at {mark:g}")
    ax.set(xlabel=labels[0], ylabel=labels[1], title=labels[2], ylim=(0, 1.02))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return saved(plt, fig, path)


def boxes(path: Path, groups: dict[str, Sequence[float]], labels: tuple[str, str, str]) -> str | None:
    """A box of the values in each group; `labels` are (x, y, title)."""
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    ax.boxplot([list(v) for v in groups.values()])
    ax.set_xticks(range(1, len(groups) + 1), list(groups))
    ax.set(xlabel=labels[0], ylabel=labels[1], title=labels[2])
    ax.grid(alpha=0.3, axis="y")
    return saved(plt, fig, path)
