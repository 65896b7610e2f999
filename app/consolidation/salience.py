"""Whether a fact is worth writing down: a logistic regression over the fact's text embedding, trained on what
people chose to write down from chat (`eval salience`, app/evaluation/salience.py: LoCoMo's session observations,
its held-out conversations left out of the training).

The extraction rules (app/consolidation/atoms.py, small_talk.py) take out what is plainly said in passing. What
they keep still holds much that nobody would note ("Emily will never forget it", "It brings Emily so much
happiness", "Emily totally agrees"): feelings about nothing named, agreement, sayings. Their words are not the
point, what they are about is, and the embedder the merge rules already use sees that. A fact whose score is
below `memory.salience` is not written; its line stays in the transcript, where answers are read from. The
weights are for the text embedder they were trained with; under another one the filter is off."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).with_name("salience.json")
_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Salience:
    """P(worth writing down | the fact's unit-length text embedding)."""

    weights: np.ndarray
    bias: float
    embedder: str  # the text embedder (registry name) the weights were trained on

    def __call__(self, vectors: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(np.asarray(vectors, np.float64) @ self.weights + self.bias)))

    def as_dict(self, **about) -> dict:
        return {**about, "embedder": self.embedder, "bias": self.bias, "weights": [round(w, 6) for w in self.weights]}


def load_salience(embedder: str, path: Path = WEIGHTS) -> Salience | None:
    """The shipped weights when they were trained on `embedder`; None (no filter) otherwise."""
    data = json.loads(path.read_text())
    if data["embedder"].removesuffix("-int8") != embedder.removesuffix("-int8"):  # int8 or float: the same space
        _LOGGER.info("memory writing: no salience filter (its weights are for %s, not %s)", data["embedder"], embedder)
        return None
    return Salience(np.asarray(data["weights"], np.float64), float(data["bias"]), data["embedder"])
