"""Hybrid retrieval over utterances: dense (MiniLM + sqlite-vec/FAISS) and BM25 (FTS5) candidates, scored
together with a boost for the people the question names, scoped by person and time."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.config import RecallConfig
from app.store.memory import Memory
from app.text.embedder import TextEmbedder
from app.text.words import keywords, singular

WINDOW_EXACT = 5000  # a time window with at most this many utterances is searched exhaustively
BM25_POSTINGS = 3000  # BM25 scores at most about this many (utterance, word) matches per query


@dataclass(frozen=True)
class Evidence:
    utterance_id: int
    text: str
    person: str | None
    t_start: float  # seconds since the epoch
    t_end: float
    session: int
    score: float  # fused: cosine similarity + weighted relative BM25 + person boost


EXPAND = 50  # the turns around this many of the nearest utterances join the candidates


def in_context(
    vectors: dict[int, np.ndarray], around: dict[int, tuple[int | None, int | None]], ids: Sequence[int], weight: float
) -> np.ndarray:
    """The vectors of `ids` (rows, unit length), each with the turns just before and after it in its session
    mixed in at `weight`: an answer's subject is often in the question before it, a question's answer in
    the turn after. Mixed at query time, so each turn is embedded once, alone. On LoCoMo recall@10: 0.720
    for the turn alone, 0.757 for the turn embedded with the last 16 words of the one before (twice the
    tokens to embed), 0.763 for this."""
    if not ids:
        return np.zeros((0, 0), np.float32)
    known = list(vectors)
    row = {uid: i for i, uid in enumerate(known)}
    table = np.vstack([np.stack([vectors[uid] for uid in known]), np.zeros((1, len(vectors[known[0]])), np.float32)])
    none = len(known)  # the zero row: no turn there
    mixed = table[[row[uid] for uid in ids]]
    if weight > 0:
        for side in (0, 1):
            other = [row.get(around.get(uid, (None, None))[side], none) for uid in ids]  # type: ignore[arg-type]
            mixed = mixed + weight * table[other]
    return mixed / np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)


def fuse(
    similarity: dict[int, float], bm25: dict[int, float], boost: dict[int, float], bm25_weight: float
) -> dict[int, float]:
    """Cosine similarity + bm25_weight x BM25 score over the best BM25 score + each utterance's boost (the
    people asked about and their graph neighbours). Measured on LoCoMo against reciprocal-rank fusion and
    OmniMem's set union (README, Recall on LoCoMo)."""
    top = max(bm25.values(), default=0.0)
    return {
        uid: sim + (bm25_weight * bm25.get(uid, 0.0) / top if top > 0 else 0.0) + boost.get(uid, 0.0)
        for uid, sim in similarity.items()
    }


def with_session(fused: dict[int, float], sessions: dict[int, int], weight: float) -> dict[int, float]:
    """Each score plus `weight` x the best score in its session: a turn of the conversation that holds the
    strongest match is likelier to be wanted than an equal-scoring turn elsewhere (session, then turn, as in
    OmniMem's pyramid). On LoCoMo recall@10: 0.777 without, 0.787 at 0.3, 0.788 at 0.5, 0.781 at 1.0."""
    if weight <= 0:
        return fused
    best: dict[int, float] = {}
    for uid, score in fused.items():
        best[sessions[uid]] = max(best.get(sessions[uid], score), score)
    return {uid: score + weight * best[sessions[uid]] for uid, score in fused.items()}


def session_bm25(memory: Memory, holders: dict[str, np.ndarray]) -> dict[int, float]:
    """BM25 with sessions as the documents, relative to the best session: a session holds a word as many
    times as it has turns holding it and is as long as its number of turns (k1 1.2, b 0.75). A conversation
    whose turns between them hold the question's words is likelier to hold the answer, though no one turn
    matches well (OmniMem's pyramid: find the session, then the turn). `holders`: each word -> the
    utterances holding it. On LoCoMo recall@10 0.796 -> 0.804 at weight 0.15 (0.1: 0.804, 0.2: 0.808;
    with words counted exactly per session: 0.805)."""
    if not holders:
        return {}
    lengths = [len(ids) for ids in holders.values()]
    of = np.split(memory.search.sessions_of(np.concatenate(list(holders.values()))), np.cumsum(lengths)[:-1])
    per_word = [np.unique(s[s >= 0], return_counts=True) for s in of]  # one lookup for every word's holders
    per_word = [(s, tf) for s, tf in per_word if len(s)]
    if not per_word:
        return {}
    held, where = np.unique(np.concatenate([s for s, _ in per_word]), return_inverse=True)
    sizes, sessions, utterances = memory.search.session_sizes(held)
    length = np.maximum(sizes[where], 1) / (utterances / max(sessions, 1))
    tf = np.concatenate([tf for _, tf in per_word]).astype(np.float64)
    df = np.concatenate([np.full(len(s), len(s)) for s, _ in per_word])
    idf = np.log(1 + (max(sessions, 1) - df + 0.5) / (df + 0.5))
    score = np.bincount(where, idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length)), minlength=len(held))
    top = score.max()
    return dict(zip(held.tolist(), (score / top).tolist(), strict=True)) if top > 0 else {}


class Retriever:
    """Ranks a memory's utterances for a query.

    People named in the query are taken out of its text (a name says whose words to look at, not what they
    were about: every turn of Emily's would otherwise match "Emily") and their utterances are
    boosted instead, as are the people related to them. Dense and BM25 candidates are scored together
    (`fuse`).
    """

    def __init__(self, memory: Memory, embedder: TextEmbedder, cfg: RecallConfig) -> None:
        self.memory = memory
        self.embedder = embedder
        self.cfg = cfg
        self._names: list[tuple[re.Pattern, str]] | None = None

    def people_named(self, query: str) -> tuple[list[str], str]:
        """(people named in the query, the query without their names)."""
        if self._names is None:
            self._names = [
                (re.compile(rf"\b{re.escape(name)}(?:'s|s')?\b", re.IGNORECASE), name)
                for name in self.memory.people.names()
            ]
        named, rest = [], query
        for pattern, name in self._names:
            if pattern.search(rest):
                named.append(name)
                rest = pattern.sub(" ", rest)
        rest = re.sub(r"\s+", " ", rest).strip()
        return named, rest if keywords(rest) else query

    def graph_weights(self, named: Sequence[str], query: str) -> dict[str, float]:
        """How much each person's words matter to the query: the people it names (1.0) and the people in a
        relation it names ("my colleagues": everyone in a colleague relation, 1.0), then their relations'
        other ends, decaying by `recall.graph_decay` per hop up to `recall.graph_hops` (EgoMem's Level-2
        route over the social graph)."""
        edges = self.memory.derived.relation_edges()
        if not edges:
            return dict.fromkeys(named, 1.0)
        words = {singular(w) for w in keywords(query)}
        weights = dict.fromkeys(named, 1.0)
        for a, relation, b in edges:
            if singular(relation.lower()) in words:
                weights[a] = weights[b] = 1.0
        frontier = dict(weights)
        for hop in range(1, self.cfg.graph_hops + 1):
            reached: dict[str, float] = {}
            for a, _, b in edges:
                for here, there in ((a, b), (b, a)):
                    if here in frontier and there not in weights:
                        reached[there] = max(reached.get(there, 0.0), self.cfg.graph_decay**hop)
            weights.update(reached)
            frontier = reached
        return weights

    def written_boost(self, vector: np.ndarray) -> dict[int, float]:
        """written_weight x the similarity of the best of the `written_k` facts and summaries nearest the query
        that cite it, for each turn they cite: memory writing joins what was said across turns and sessions
        into one sentence, and a hit on that sentence counts for the turns it came from (so evidence recall
        stays comparable with turns alone)."""
        if self.cfg.written_weight <= 0 or self.cfg.written_k <= 0:
            return {}
        written = self.memory.derived.written()
        out: dict[int, float] = {}
        for row, similarity in written.nearest(vector, self.cfg.written_k):
            for uid in written.cites[row].tolist():
                out[uid] = max(out.get(uid, 0.0), self.cfg.written_weight * similarity)
        return out

    def rank_bm25(self, query: str, k: int) -> list[int]:
        return [uid for uid, _ in self.memory.search.bm25_search(keywords(query), k)]

    def scored(
        self,
        query: str,
        k: int,
        people: Sequence[str] = (),
        between: tuple[float, float] | None = None,
        about: Sequence[str] = (),
    ) -> dict[int, float]:
        """Fused scores of the candidates for `query`, best first (at least k of them when the memory has
        them). Only `people`'s utterances when given, only within `between` (epoch seconds) when given; the
        utterances of the people the query names, and of `about` (the person there), are boosted. Where the
        candidates sit (session, speaker, time) comes from RAM on a large memory: no row is read here."""
        n = max(k, self.cfg.candidates)
        named, topic = self.people_named(query)
        scope = set(people)
        wide = n * 4 if scope or between else n  # filtered afterwards: look further
        window = None if between is None else self.memory.search.utterance_ids_between(*between, limit=WINDOW_EXACT)
        span = (min(window), max(window)) if window else None  # a small window: BM25 over its stretch of ids
        sparse_later = self.memory.search.bm25_search_async(keywords(topic), wide, span, BM25_POSTINGS)
        vector = self.embedder([topic])[0]
        dense = [uid for uid, _ in self.memory.search.dense_search(vector, wide)]
        context = self.cfg.context_weight > 0
        around = self.memory.search.neighbours(dense) if context else {}  # while BM25 runs
        extra: list[int] = []
        if context:  # an utterance next to a close match may be the one meant
            near = {x for uid in dense[:EXPAND] for x in around.get(uid, ()) if x is not None}
            extra = [uid for uid in near if uid not in around]
            around.update(self.memory.search.neighbours(extra))
        cited = self.written_boost(vector)  # turns that the facts and summaries nearest the query cite
        sparse = sparse_later.result()
        pool = list(dict.fromkeys(dense + [uid for uid, _ in sparse.ranked] + extra + (window or []) + list(cited)))
        if context:
            around.update(self.memory.search.neighbours([uid for uid in pool if uid not in around]))
        turns = self.memory.search.turns(pool)
        person_ids = self.memory.people.person_ids()
        scope_ids = {person_ids.get(name) for name in scope}
        keep = [
            uid
            for uid in pool
            if uid in turns
            and (not scope or turns[uid].person_id in scope_ids)
            and (between is None or between[0] <= turns[uid].t_start <= between[1])
        ]
        # the candidates' and their neighbours' vectors: from the in-RAM index when there is one (no store reads)
        needed = {x for uid in keep for x in (uid, *around.get(uid, ())) if x is not None}
        vectors = self.memory.search.context_vectors(sorted(needed))
        scorable = [uid for uid in keep if uid in vectors]
        mixed = in_context(vectors, around, scorable, self.cfg.context_weight)
        similarity = dict(zip(scorable, (mixed @ vector).tolist(), strict=True)) if scorable else {}
        bm25 = {uid: -score for uid, score in sparse.ranked}
        graph = self.graph_weights([*named, *about], query)
        weights = {person_ids[name]: w for name, w in graph.items() if name in person_ids}
        boost = {uid: self.cfg.person_boost * weights[who] for uid in keep if (who := turns[uid].person_id) in weights}
        for uid, extra_score in cited.items():
            boost[uid] = boost.get(uid, 0.0) + extra_score
        fused = fuse(similarity, bm25, boost, self.cfg.bm25_weight)
        fused = with_session(fused, {uid: turns[uid].session for uid in fused}, self.cfg.session_weight)
        if self.cfg.session_bm25_weight > 0:
            by_session = session_bm25(self.memory, sparse.holders)
            weight = self.cfg.session_bm25_weight
            fused = {uid: score + weight * by_session.get(turns[uid].session, 0.0) for uid, score in fused.items()}
        return dict(sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:n])

    def search(
        self,
        query: str,
        top_k: int | None = None,
        people: Sequence[str] = (),
        between: tuple[float, float] | None = None,
        about: Sequence[str] = (),
    ) -> list[Evidence]:
        """The top utterances for `query`, best first, with who and when (see `scored` for the scope)."""
        if not query.strip():
            return []
        k = top_k or self.cfg.top_k
        top = list(self.scored(query, k, people, between, about).items())[:k]
        rows = self.memory.turns.utterances([uid for uid, _ in top])
        return [
            Evidence(
                uid,
                rows[uid].text,
                rows[uid].person,
                rows[uid].t_start,
                rows[uid].t_end,
                rows[uid].session_id,
                round(score, 4),
            )
            for uid, score in top
            if uid in rows  # deleted meanwhile
        ]


def search(
    memory: Memory,
    embedder: TextEmbedder,
    query: str,
    cfg: RecallConfig,
    top_k: int | None = None,
    people: Sequence[str] = (),
    between: tuple[float, float] | None = None,
    about: Sequence[str] = (),
) -> list[Evidence]:
    """`Retriever.search` on a fresh retriever."""
    return Retriever(memory, embedder, cfg).search(query, top_k, people, between, about)
