"""Search primitives over utterances: dense (exact or the IVF index), BM25 (FTS5, optionally on a reader
connection in a worker thread), and where utterances sit (`Turns` in RAM): `Memory.search`."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from app.store.db import in_chunks, vector_blob
from app.store.repository import Owner, Repository
from app.store.turns import Turn


@dataclass(frozen=True)
class Sparse:
    """What a BM25 search found."""

    ranked: list[tuple[int, float]]  # (utterance id, bm25 score; lower is better), best first
    holders: dict[str, np.ndarray]  # each word searched (within the postings budget) -> the utterances holding it


def fts_match(words: Sequence[str]) -> str:
    """An FTS5 MATCH expression for any of `words`, each quoted as a phrase so no query syntax leaks in."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


class Search(Repository):
    """What recall asks the store: nearest utterances by meaning, by words, and where they sit."""

    def session_count(self) -> int:
        return int(self.con.execute("SELECT count(*) FROM sessions").fetchone()[0])

    def sessions_holding(self, word: str, limit: int = 10000) -> int:
        """How many conversations hold `word` (counted among the first `limit` lines that hold it)."""
        row = self.con.execute(
            "SELECT count(DISTINCT u.session_id) FROM (SELECT rowid FROM utterances_fts WHERE utterances_fts MATCH ? "
            "LIMIT ?) f JOIN utterances u ON u.id = f.rowid",
            (fts_match([word]), limit),
        ).fetchone()
        return int(row[0] or 0)

    def __init__(self, memory: Owner) -> None:
        super().__init__(memory)
        self._word_docs: dict[str, tuple[int, int, int]] = {}  # word -> (utterances holding it, size then, cap)
        self._reader = None  # a read-only connection for BM25 beside the dense search (see bm25_search_async)
        self._reading: ThreadPoolExecutor | None = None

    def dense_search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(utterance id, cosine distance) of the k nearest utterances (exact, or by the IVF index: `DenseIndex`)."""
        return self._m.dense.search(query, k)

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The stored float32 vectors of these utterances (point lookups), missing ones left out."""
        rows = in_chunks(self.con, "SELECT id, embedding FROM utterance_vectors WHERE id IN ({marks})", ids)
        return {int(uid): np.frombuffer(blob, np.float32) for uid, blob in rows}

    def turns(self, ids: list[int]) -> dict[int, Turn]:
        """Where these utterances sit (session, speaker, start), those that exist."""
        return self._m.dense.current_turns().get(ids)

    def neighbours(self, ids: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """The utterances just before and just after each of these in its session (None at either end),
        those that exist; the store is asked only where a session's turns are far apart."""
        out, unsure = self._m.dense.current_turns().neighbours(ids)
        exact = (
            "SELECT u.id, "
            "(SELECT max(b.id) FROM utterances b WHERE b.session_id = u.session_id AND b.id < u.id), "
            "(SELECT min(a.id) FROM utterances a WHERE a.session_id = u.session_id AND a.id > u.id) "
            "FROM utterances u WHERE u.id IN ({marks})"
        )
        out.update({int(uid): (before, after) for uid, before, after in in_chunks(self.con, exact, unsure)})
        return out

    def sessions_of(self, ids: np.ndarray) -> np.ndarray:
        """The session of each of these utterances (-1 where there is none)."""
        return self._m.dense.current_turns().sessions_of(ids)

    def session_sizes(self, sessions: np.ndarray) -> tuple[np.ndarray, int, int]:
        """(utterances in each of these sessions, sessions with any, utterances in the memory)."""
        turns = self._m.dense.current_turns()
        return turns.sizes(sessions), *turns.sessions()

    def context_vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """Vectors good enough to score with: decoded from the in-RAM ANN index when there is one (cosine to
        the stored ones >= 0.999; no store reads), else the stored ones."""
        approx = self._m.dense.approximate(ids)
        return approx if approx is not None else self.vectors(ids)

    def set_vector(self, uid: int, vector: np.ndarray) -> None:
        """Replace an utterance's vector (after its text changed), noting it for the approximate index."""
        self.con.execute("UPDATE utterances_vec SET embedding = ? WHERE rowid = ?", (vector_blob(vector), uid))
        self.con.execute("UPDATE utterance_vectors SET embedding = ? WHERE id = ?", (vector_blob(vector), uid))
        self.con.execute("INSERT INTO vec_changes(id) VALUES (?)", (uid,))

    def dense_search_exact(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact KNN in sqlite-vec (a scan of every float32 vector)."""
        rows = self.con.execute(
            "SELECT rowid, distance FROM utterances_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (vector_blob(query), k),
        )
        return [(int(r), float(d)) for r, d in rows]

    def rescore(self, query: np.ndarray, candidates: list[int], k: int) -> list[tuple[int, float]]:
        """(id, exact cosine distance) of the k of `candidates` nearest to `query`, by their float32 vectors."""
        vectors = self.vectors(candidates)
        if not vectors:
            return []
        ids = np.array(list(vectors), np.int64)
        similarity = np.stack(list(vectors.values())) @ query
        order = np.argsort(-similarity, kind="stable")[:k]
        return [(int(ids[i]), float(1.0 - similarity[i])) for i in order]

    def bm25_search(
        self, words: Sequence[str], k: int, ids: tuple[int, int] | None = None, postings: int | None = None
    ) -> list[tuple[int, float]]:
        """(utterance id, bm25 score; lower is better) of the utterances holding any of `words`, optionally
        only of those with ids in the range `ids` (inclusive). With `postings`, in a memory larger than that
        the words are taken rarest first while the utterances holding them add up to at most that many
        (BM25 scores every utterance holding a word, so its time grows with their number; a word held by
        more than that many is left out)."""
        return self._bm25(self.con, words, k, ids, postings).ranked

    def bm25_search_async(
        self, words: Sequence[str], k: int, ids: tuple[int, int] | None = None, postings: int | None = None
    ) -> Future[Sparse]:
        """`bm25_search` on a second, read-only connection in a worker thread (SQLite lets go of the GIL
        while it works), so a caller can embed and run the dense search meanwhile. It sees what is
        committed. Its result also lists the utterances holding each word searched."""
        if self._reading is None:
            self._reader = self._m.reader()
            self._reading = ThreadPoolExecutor(1, "bm25")
            self._reading.submit(_warm_fts, self._reader, self._m.cfg.ann_min_utterances)
        return self._reading.submit(self._bm25, self._reader, words, k, ids, postings, True)

    def _bm25(
        self,
        con,
        words: Sequence[str],
        k: int,
        ids: tuple[int, int] | None,
        postings: int | None,
        holders: bool = False,
    ) -> Sparse:
        if postings is not None:
            size = _high_water(con)
            if size > postings:
                docs = {w: self._term_docs(con, w, postings + 1, size) for w in words}
                kept, total = set(), 0
                for w in sorted(words, key=docs.__getitem__):
                    if total + docs[w] > postings:
                        break
                    kept.add(w)
                    total += docs[w]
                words = [w for w in words if w in kept]
        match = fts_match(words)
        if not match:
            return Sparse([], {})
        span = "" if ids is None else "AND rowid BETWEEN ? AND ? "  # FTS5 reads only this stretch of postings
        within = () if ids is None else ids
        rows = con.execute(
            f"SELECT rowid, bm25(utterances_fts) AS s FROM utterances_fts WHERE utterances_fts MATCH ? {span}"
            "ORDER BY s LIMIT ?",
            (match, *within, k),
        )
        ranked = [(int(r), float(s)) for r, s in rows]
        held = {}
        for w in words if holders else ():  # one string per word: SQLite's loop, not Python's, while the
            # caller's thread works beside this one (a row at a time, each handing the GIL over, cost 15 ms)
            listed = f"SELECT group_concat(rowid) FROM utterances_fts WHERE utterances_fts MATCH ? {span}"
            text = con.execute(listed, (fts_match([w]), *within)).fetchone()[0]
            held[w] = np.fromstring(text or "", dtype=np.int64, sep=",")
        return Sparse(ranked, held)

    def _term_docs(self, con, word: str, cap: int, size: int) -> int:
        """How many utterances hold `word`, counted up to `cap` (more is reported as cap); cached until the
        memory (`size`, its high-water mark) grows by a tenth: it only guides which words are worth a BM25
        search, and counting stops early, so a common word costs no more than a rare one."""
        hit = self._word_docs.get(word)
        if hit is not None and size <= hit[1] * 1.1 and hit[2] == cap:
            return hit[0]
        count = con.execute(
            "SELECT count(*) FROM (SELECT rowid FROM utterances_fts WHERE utterances_fts MATCH ? LIMIT ?)",
            (fts_match([word]), cap),
        )
        docs = int(count.fetchone()[0])
        self._word_docs[word] = (docs, size, cap)
        return docs

    def close_reader(self) -> None:
        """Close the read-only BM25 connection, if one was opened (it opens again when next needed)."""
        if self._reading is not None:
            self._reading.shutdown()
            self._reading = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def any_between(self, t0: float, t1: float) -> bool:
        """Whether any utterance starts within [t0, t1] (one index seek)."""
        return (
            self.con.execute("SELECT 1 FROM utterances WHERE t_start BETWEEN ? AND ? LIMIT 1", (t0, t1)).fetchone()
            is not None
        )

    def utterance_ids_between(self, t0: float, t1: float, limit: int) -> list[int] | None:
        """Ids of the utterances starting within [t0, t1] when there are at most `limit` of them, else None."""
        rows = self.con.execute(
            "SELECT id FROM utterances WHERE t_start BETWEEN ? AND ? LIMIT ?", (t0, t1, limit + 1)
        ).fetchall()
        return [int(r[0]) for r in rows] if len(rows) <= limit else None


def _high_water(con) -> int:
    """The largest utterance id: the memory's size, near enough, at the cost of one index lookup."""
    return con.execute("SELECT coalesce(max(id), 0) FROM utterances").fetchone()[0]


def _warm_fts(con, large: int) -> None:
    """Read a large memory's word index and document lengths into this connection's page cache (at a
    million utterances ~85 MB, ~0.5 s from disk): BM25 looks up the length of every utterance it scores,
    and on a cold cache each lookup is a random read (a 1,200-utterance search took 16 ms instead of 1.7)."""
    if _high_water(con) >= large:
        con.execute("SELECT sum(length(sz)) FROM utterances_fts_docsize").fetchone()
        con.execute("SELECT sum(length(substr(block, -1))) FROM utterances_fts_data").fetchone()  # whole blocks
