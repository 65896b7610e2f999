"""An approximate index for dense search at scale: FAISS IVF with 8-bit scalar quantization, in RAM.

Its 8-bit scores are used as they are (`store.ann_rescore` 0): in the hybrid search the top 10 with them and
with exact float32 re-scoring from the store agree on 99.8 % of results at 1M utterances, and the re-scoring's
random reads into the database cost more than the rest of the dense search. With `store.ann_rescore` N, the
candidates are re-scored exactly, which recovers the recall@10 of dense search alone that the 8-bit codes lose
(0.978 -> 0.996 at 1M, `python -m app bench store`). Unit vectors: inner product = cosine.
"""

from __future__ import annotations

import json
import logging
import math
import time

import numpy as np

from app.errors import StoreError
from app.store.db import transaction
from app.store.turns import Turn, Turns, read_turns

_LOGGER = logging.getLogger(__name__)
RESCORED_PLACES = 20
DIM = 384
NPROBE = 64
TRAIN_PER_LIST = 30  # k-means training sample: this many vectors per inverted list


def _faiss():
    try:
        # lazy: faiss is heavy (~0.1 s); only the approximate index of a large memory needs it
        import faiss
    except ImportError as e:
        raise StoreError("faiss-cpu is not installed: pip install faiss-cpu") from e
    return faiss


class IvfIndex:
    def __init__(self, index) -> None:
        self._index = index
        faiss = _faiss()
        if index.direct_map.type != faiss.DirectMap.Hashtable:  # id -> code, for `reconstruct`
            index.set_direct_map_type(faiss.DirectMap.Hashtable)

    @classmethod
    def train(cls, sample: np.ndarray, nlist: int, nprobe: int = NPROBE) -> IvfIndex:
        """An empty index whose coarse quantizer (nlist lists) and 8-bit ranges are learned from `sample`."""
        faiss = _faiss()
        index = faiss.IndexIVFScalarQuantizer(
            faiss.IndexFlatIP(DIM), DIM, nlist, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        index.cp.min_points_per_centroid = TRAIN_PER_LIST // 2  # our sample size is deliberate: no warning
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
        index.nprobe = min(nprobe, nlist)
        return cls(index)

    @classmethod
    def build(cls, vectors: np.ndarray, ids: np.ndarray, nprobe: int = NPROBE, seed: int = 0) -> IvfIndex:
        """Train on a sample, then add every vector under its utterance id."""
        n = len(vectors)
        nlist = max(8, min(int(4 * math.sqrt(n)), n // TRAIN_PER_LIST))
        rng = np.random.default_rng(seed)
        index = cls.train(vectors[rng.choice(n, min(n, TRAIN_PER_LIST * nlist * 2), replace=False)], nlist, nprobe)
        index.add(vectors, ids)
        return index

    @property
    def size(self) -> int:
        return int(self._index.ntotal)

    @property
    def nbytes(self) -> int:
        """RAM held by the codes and ids (the centroids add nlist x 1.5 kB)."""
        return self.size * (self._index.code_size + 8) + self._index.nlist * DIM * 4

    @property
    def nprobe(self) -> int:
        return int(self._index.nprobe)

    @nprobe.setter
    def nprobe(self, value: int) -> None:
        self._index.nprobe = max(1, min(value, self._index.nlist))

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids, approximate cosine similarities), best first; fewer than k when the index is small. One
        question is searched on one thread: OpenMP's idle threads would otherwise spin on the core the BM25
        search runs on beside it."""
        faiss = _faiss()
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            scores, ids = self._index.search(np.ascontiguousarray(query[None, :], dtype=np.float32), k)
        finally:
            faiss.omp_set_num_threads(threads)
        keep = ids[0] >= 0
        return ids[0][keep], scores[0][keep]

    def add(self, vectors: np.ndarray, ids: np.ndarray) -> None:
        self._index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), np.asarray(ids, np.int64))

    def reconstruct(self, ids: list[int]) -> np.ndarray:
        """The 8-bit codes of these ids decoded back to vectors (cosine to the originals >= 0.999 on
        LoCoMo-like text); raises KeyError when one is not in the index."""
        try:
            return self._index.reconstruct_batch(np.asarray(ids, np.int64))
        except RuntimeError as e:
            raise KeyError(str(e)) from None

    def remove(self, ids: list[int]) -> int:
        return int(self._index.remove_ids(np.asarray(ids, np.int64)))

    def to_bytes(self) -> bytes:
        return _faiss().serialize_index(self._index).tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> IvfIndex:
        return cls(_faiss().deserialize_index(np.frombuffer(data, np.uint8)))


class DenseIndex:
    """Dense search for one Memory, and where each utterance sits (`Turns`, read from the store on first use).
    Exact (sqlite-vec) while small; past `ann_min_utterances` an IvfIndex, saved with the turn table in one
    encrypted file (or built from the store). Both are caught up with rows added since and with the changes
    logged since (`vec_changes`: rows deleted, re-embedded, moved to another session or person), here or by
    another process."""

    FILE = "dense.ivf"

    def __init__(self, memory, cfg, vault) -> None:
        self.memory = memory
        self.cfg = cfg
        self.vault = vault  # the index file is sealed like media: AES-GCM under the media key
        self.ivf: IvfIndex | None = None
        self.turns: Turns | None = None
        self.max_id = 0  # every utterance up to this id is in `turns` and `ivf` (as of `seq`)
        self.seq = 0  # every change logged in vec_changes up to this number is applied
        self.unsaved = 0
        self.loaded_from_file = False
        self._stamp: tuple[int, int] | None = None  # (data_version, total_changes) when last caught up

    # ------------------------------------------------------------ search
    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self.ivf is None:
            count = self.memory.con.execute("SELECT count(*) FROM utterances").fetchone()[0]
            if count < self.cfg.ann_min_utterances:
                return self.memory.search.dense_search_exact(query, k)
            self._load_or_build()
        self._catch_up()
        assert self.ivf is not None
        if self.cfg.ann_rescore == 0:  # the 8-bit scores as they are: no store reads
            ids, scores = self.ivf.search(query, k)
            return [(int(uid), 1.0 - float(score)) for uid, score in zip(ids, scores, strict=True)]
        # re-score ann_rescore x the first places (where recall@10 is decided), one extra per place beyond
        extra = (self.cfg.ann_rescore - 1) * min(k, RESCORED_PLACES)
        candidates = self.ivf.search(query, k + extra)[0].tolist()
        return self.memory.search.rescore(query, candidates, k)

    def approximate(self, ids: list[int]) -> dict[int, np.ndarray] | None:
        """Vectors of these utterances decoded from the in-RAM index, without reading the store; None while
        the search is exact or when one of them is not in the index."""
        if self.ivf is None or not ids:
            return None
        self._catch_up()
        try:
            decoded = self.ivf.reconstruct(ids)
        except KeyError:
            return None
        return dict(zip(ids, decoded, strict=True))

    def current_turns(self) -> Turns:
        """Where every utterance sits, caught up with the store (read from it on first use while the search
        is exact: 24 bytes an utterance, ~20 ms at 30,000)."""
        if self.turns is None:
            self.turns = self._read_turns()
        self._catch_up()
        return self.turns

    def added(self, uid: int, vector: np.ndarray, turn: Turn) -> None:
        """A committed utterance (called after its transaction)."""
        if self.turns is None or uid <= self.max_id:
            return
        if self.ivf is not None:
            self.ivf.add(vector[None, :], np.array([uid]))
            self.unsaved += 1
        person = -1 if turn.person_id is None else turn.person_id
        self.turns.set(np.array([uid]), np.array([turn.session]), np.array([person]), np.array([turn.t_start]))
        self.max_id = uid

    # ------------------------------------------------------------ keeping it current
    def _catch_up(self) -> None:
        """Apply the changes logged since (deletions, re-embeddings, moves) and the rows added since. When
        changes this process has not applied were pruned (another process saved a newer index, which holds
        them), that index is loaded again (or the turn table read again)."""
        assert self.turns is not None
        con = self.memory.con
        # nothing committed by another connection and nothing written by this one: nothing to do (a question
        # asks several times; this costs one pragma instead of three queries)
        stamp = (con.execute("PRAGMA data_version").fetchone()[0], con.total_changes)
        if stamp == self._stamp:
            return
        self._stamp = stamp  # read before looking: what changes after is seen next time
        since = "SELECT seq, id FROM vec_changes WHERE seq > ? ORDER BY seq"
        changes = con.execute(since, (self.seq,)).fetchall()
        if con.execute("SELECT upto FROM vec_changes_pruned").fetchone()[0] > self.seq:  # read after: no race
            _LOGGER.info("the vector index was saved by another process since; loading it again")
            if self.ivf is not None:
                self._load_or_build()
            else:
                self.turns = self._read_turns()
            changes = con.execute(since, (self.seq,)).fetchall()
        newer = [r[0] for r in con.execute("SELECT id FROM utterances WHERE id > ? ORDER BY id", (self.max_id,))]
        if not changes and not newer:
            return
        dirty = sorted({uid for _, uid in changes})
        changed = sorted(set(dirty) | set(newer))
        self.turns.remove(dirty)
        self.turns.set(*read_turns(con, changed))
        if self.ivf is not None:
            self.ivf.remove(dirty)
            vectors = self.memory.search.vectors(changed)  # deleted rows have none
            if vectors:
                ids = np.array(sorted(vectors), np.int64)
                self.ivf.add(np.stack([vectors[i] for i in ids]), ids)
            self.unsaved += len(changed)
        self.max_id = max([self.max_id, *newer])
        self.seq = changes[-1][0] if changes else self.seq

    def _logged(self) -> int:
        """The number of the latest change logged (pruned ones included)."""
        return self.memory.con.execute(
            "SELECT max(coalesce((SELECT max(seq) FROM vec_changes), 0), (SELECT upto FROM vec_changes_pruned))"
        ).fetchone()[0]

    def _read_turns(self) -> Turns:
        """The turn table from the store; `max_id` and `seq` follow it."""
        turns = Turns()
        self._stamp = None  # a fresh table: the next catch-up looks
        self.seq = self._logged()  # before reading: a change made meanwhile is applied again, harmlessly
        ids, sessions, people, starts = read_turns(self.memory.con)
        turns.set(ids, sessions, people, starts)
        self.max_id = int(ids.max()) if len(ids) else 0
        return turns

    def _load_or_build(self) -> None:
        self._stamp = None  # a fresh index: the next catch-up looks
        try:
            data = self.vault.get(self.FILE) if (self.vault.folder / self.FILE).exists() else None
        except StoreError as e:  # derived data: a damaged index is rebuilt, never trusted
            _LOGGER.warning("the vector index file is unusable (%s); rebuilding it", e)
            data = None
        if data is not None:
            header, _, body = data.partition(b"\n")
            meta = json.loads(header)
            if "turns" in meta:
                self.turns = Turns.from_bytes(body[: meta["turns"]])
                body = body[meta["turns"] :]
            else:  # saved before the turn table existed: read it from the store (it is saved with the index)
                self.turns = self._read_turns()
                self.unsaved += 1
            self.max_id = int(meta["max_id"])
            self.seq = int(meta.get("seq", 0))  # saved before the log was numbered: its changes are all logged
            self.ivf = IvfIndex.from_bytes(body)
            self.loaded_from_file = True
        else:
            self._build()
        self.ivf.nprobe = self.cfg.ann_nprobe

    def _build(self) -> None:
        """Train on a sample of the stored vectors, then stream all of them in."""
        con = self.memory.con
        started = time.monotonic()
        self.turns = self._read_turns()
        ids = np.flatnonzero(self.turns.session >= 0)
        nlist = max(8, min(int(4 * math.sqrt(len(ids))), len(ids) // TRAIN_PER_LIST))
        rng = np.random.default_rng(0)
        sample_ids = sorted(rng.choice(ids, min(len(ids), TRAIN_PER_LIST * nlist * 2), replace=False).tolist())
        sample = self.memory.search.vectors(sample_ids)
        self.ivf = IvfIndex.train(np.stack([sample[i] for i in sample_ids]), nlist)
        batch: list[tuple[int, bytes]] = []
        for row in con.execute("SELECT id, embedding FROM utterance_vectors WHERE id <= ?", (self.max_id,)):
            batch.append(row)
            if len(batch) == 50_000:
                self._add_rows(batch)
                batch = []
        self._add_rows(batch)
        self.unsaved = self.ivf.size
        _LOGGER.info("built the vector index over %d utterances in %.1f s", self.ivf.size, time.monotonic() - started)

    def _add_rows(self, rows: list[tuple[int, bytes]]) -> None:
        if rows and self.ivf is not None:
            vectors = np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), -1)
            self.ivf.add(vectors, np.array([r[0] for r in rows], np.int64))

    # ------------------------------------------------------------ persistence
    def save(self) -> None:
        """Write the index (sealed) and prune the logged changes it now holds; no-op when nothing changed. One
        process saves at a time (the write lock), and never over an index newer than its own."""
        if self.ivf is None:
            return
        self._catch_up()
        if not self.unsaved and (self.vault.folder / self.FILE).exists():
            return
        assert self.turns is not None
        turns = self.turns.to_bytes()
        meta = {"max_id": self.max_id, "seq": self.seq, "size": self.ivf.size, "turns": len(turns)}
        con = self.memory.con
        with transaction(con):
            if con.execute("SELECT upto FROM vec_changes_pruned").fetchone()[0] > self.seq:
                return  # another process saved a newer one meanwhile
            self.vault.put_named(self.FILE, json.dumps(meta).encode() + b"\n" + turns + self.ivf.to_bytes())
            con.execute("DELETE FROM vec_changes WHERE seq <= ?", (self.seq,))
            con.execute("UPDATE vec_changes_pruned SET upto = ?", (self.seq,))
        self.unsaved = 0

    def describe(self) -> str:
        """How dense search runs now, for `doctor`."""
        path = self.vault.folder / self.FILE
        count = self.memory.con.execute("SELECT count(*) FROM utterances").fetchone()[0]
        if count < self.cfg.ann_min_utterances:
            return f"exact (sqlite-vec) below {self.cfg.ann_min_utterances} utterances"
        saved = f"saved {path.stat().st_size / 1e6:.0f} MB" if path.exists() else "built on first search"
        scores = f"exact re-scoring of {self.cfg.ann_rescore}x" if self.cfg.ann_rescore else "8-bit scores"
        return f"FAISS IVF-SQ8, {scores}, nprobe {self.cfg.ann_nprobe} ({saved})"

    def drop_file(self) -> None:
        """Remove the saved index (after a rekey); it is rebuilt when next needed."""
        self.vault.delete(self.FILE)

    def rewrite_file(self) -> None:
        """After a deletion: the saved index must not keep the codes of deleted rows."""
        if self.ivf is None and (self.vault.folder / self.FILE).exists():
            self._load_or_build()
        self.save()
