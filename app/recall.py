"""Hybrid retrieval over utterances: dense (MiniLM + sqlite-vec) and BM25 (FTS5), fused by reciprocal rank."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.config import RecallConfig
from app.store.memory import Memory
from app.text.embedder import TextEmbedder

_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
not now of off on once only or other our ours ourselves out over own same she should so some such than
that the their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours yourself
yourselves said say says tell told remember know anyone anybody someone something ever
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


@dataclass(frozen=True)
class Evidence:
    utterance_id: int
    text: str
    person: str | None
    t_start: float  # seconds since the epoch
    t_end: float
    session: int
    score: float  # fused score, 1.0 = first in both rankings


def keywords(text: str) -> list[str]:
    """Content words of a query, lower-cased, in order, without duplicates."""
    words = [w.lower() for w in _WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(content or words))


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression: any of the query's content words (each quoted, so no syntax leaks)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in keywords(text))


def rrf(rankings: list[list[int]], k: int) -> dict[int, float]:
    """Reciprocal-rank fusion, normalized so an item ranked first everywhere scores 1.0."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank + 1)
    best = len(rankings) / (k + 1)
    return {item: s / best for item, s in scores.items()}


class Retriever:
    """Ranks a memory's utterances for a query."""

    def __init__(self, memory: Memory, embedder: TextEmbedder, cfg: RecallConfig) -> None:
        self.memory = memory
        self.embedder = embedder
        self.cfg = cfg

    def rank_dense(self, query: str, k: int) -> list[int]:
        return [uid for uid, _ in self.memory.dense_search(self.embedder([query])[0], k)]

    def rank_bm25(self, query: str, k: int) -> list[int]:
        return [uid for uid, _ in self.memory.bm25_search(fts_query(query), k)]

    def scored(self, query: str, k: int) -> dict[int, float]:
        n = max(k, self.cfg.candidates)
        return rrf([self.rank_dense(query, n), self.rank_bm25(query, n)], self.cfg.rrf_k)

    def rank(self, query: str, k: int) -> list[int]:
        fused = self.scored(query, k)
        return sorted(fused, key=lambda uid: (-fused[uid], uid))[:k]


def search(
    memory: Memory, embedder: TextEmbedder, query: str, cfg: RecallConfig, top_k: int | None = None
) -> list[Evidence]:
    """The top utterances for `query`, best first."""
    if not query.strip():
        return []
    retriever = Retriever(memory, embedder, cfg)
    fused = retriever.scored(query, top_k or cfg.top_k)
    ranked = sorted(fused, key=lambda uid: (-fused[uid], uid))[: top_k or cfg.top_k]
    rows = memory.utterances(ranked)
    return [
        Evidence(
            uid,
            rows[uid].text,
            rows[uid].person,
            rows[uid].t_start,
            rows[uid].t_end,
            rows[uid].session_id,
            round(fused[uid], 4),
        )
        for uid in ranked
        if uid in rows
    ]
