"""Adaptive s-norm (Karam et al. 2011; Cumani et al. 2011), as EgoMem scores voices: a raw cosine score is
normalised by the mean and spread of each side's scores against its `top_n` closest impostor-cohort entries,
which cancels how "typical" a voice or a recording condition is."""

from __future__ import annotations

import numpy as np

TOP_N = 200


class AdaptiveSNorm:
    def __init__(self, cohort: np.ndarray, top_n: int = TOP_N) -> None:
        if len(cohort) < 2:
            raise ValueError("adaptive s-norm needs a cohort of at least 2 embeddings")
        self.cohort = np.asarray(cohort, np.float32)
        self.top_n = min(top_n, len(self.cohort))

    def stats(self, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(mean, std) of each embedding's top_n cohort scores."""
        s = np.atleast_2d(embeddings) @ self.cohort.T
        top = np.partition(s, -self.top_n, axis=1)[:, -self.top_n :]
        return top.mean(axis=1), top.std(axis=1) + 1e-6

    def scores(self, queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """(n_queries, n_keys) normalised scores of unit embeddings."""
        queries, keys = np.atleast_2d(queries), np.atleast_2d(keys)
        raw = queries @ keys.T
        mq, sq = self.stats(queries)
        mk, sk = self.stats(keys)
        return 0.5 * ((raw - mq[:, None]) / sq[:, None] + (raw - mk[None, :]) / sk[None, :])
