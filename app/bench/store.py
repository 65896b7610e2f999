"""`bench store --n N`: insert throughput, size, and KNN latency and recall@10 of each vector representation at
10k / 100k / 1M utterances, in a temporary encrypted memory.

Vectors: real MiniLM embeddings of a base set of sentences (LoCoMo's turns when ../shared/data is there,
else generated ones), mixed pairwise with a little noise up to N, so neighbourhoods are as dense as real
lifelog text (independent random vectors would flatter every approximate method). Queries are real questions.
Representations: exact float32 in sqlite-vec; int8 in sqlite-vec; binary in sqlite-vec with float32 rescoring;
FAISS IVF-SQ8 in RAM; FAISS IVF-SQ8 with float32 rescoring from the store (what `ask` uses at scale).
"""

from __future__ import annotations

import json
import secrets
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from app.config import Config
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from app.store.vector_index import IvfIndex

CHECKPOINTS = (10_000, 100_000, 1_000_000)
K = 10
NPROBES = (32, 64, 128, 256)
RESCORE = 5  # IVF candidates per result re-scored exactly
LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "locomo" / "locomo10.json"


def _base_texts() -> tuple[list[str], list[str]]:
    if LOCOMO.is_file():
        data = json.loads(LOCOMO.read_text())
        turns = [
            t["text"]
            for c in data
            for key, v in c["conversation"].items()
            if key.startswith("session_") and isinstance(v, list)
            for t in v
        ]
        return turns, [q["question"] for c in data for q in c["qa"]][:300]
    rng = np.random.default_rng(1)
    who = "Emily John Maria David Anna Tom Sarah Peter".split()
    what = (
        "played tennis",
        "cooked pasta",
        "visited Paris",
        "read a book about birds",
        "fixed the bicycle",
        "went to the doctor",
        "planned a birthday party",
        "started a new job",
        "adopted a cat",
        "ran a marathon",
    )
    when = ("yesterday", "last week", "on Saturday", "in May", "this morning", "two years ago")
    texts = [f"{rng.choice(who)} {rng.choice(what)} {rng.choice(when)} with {rng.choice(who)}" for _ in range(4000)]
    return texts, [f"who {rng.choice(what)} {rng.choice(when)}?" for _ in range(300)]


def _corpus(n: int, base: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, index of the base sentence each one mostly is)."""
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, len(base), n), rng.integers(0, len(base), n)
    a = rng.uniform(0.55, 0.95, (n, 1)).astype(np.float32)
    v = a * base[i] + (1 - a) * base[j] + 0.04 * rng.standard_normal((n, base.shape[1])).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32), i


def insert_rows(memory: Memory, session: int, person: int, texts: list[str], X: np.ndarray, first: int) -> None:
    """Utterances `first`, `first + 1`, ... with these texts and vectors, one second apart, in one transaction."""
    with memory.batch():
        for r, (text, vec) in enumerate(zip(texts, X, strict=True), first):
            memory.turns.add_utterance(
                NewUtterance(session, person, text, 1e9 + r, 1e9 + r + 2, 0.9, "bench", False, vec)
            )


def _quantized(con, vectors: np.ndarray, start: int) -> None:
    ids = range(start + 1, start + 1 + len(vectors))
    q8 = np.clip(np.round(vectors * 127), -127, 127).astype(np.int8)
    con.executemany(
        "INSERT INTO bench_int8(rowid, embedding) VALUES (?, vec_int8(?))",
        [(r, q.tobytes()) for r, q in zip(ids, q8, strict=True)],
    )
    bits = np.packbits(vectors > 0, axis=1)
    con.executemany(
        "INSERT INTO bench_bit(rowid, embedding) VALUES (?, vec_bit(?))",
        [(r, b.tobytes()) for r, b in zip(ids, bits, strict=True)],
    )


def _timed(search, queries: np.ndarray, truth: list[set[int]]) -> dict:
    lat, rec = [], []
    for q, want in zip(queries, truth, strict=True):
        t = time.perf_counter()
        got = search(q)
        lat.append((time.perf_counter() - t) * 1000)
        rec.append(len(set(got) & want) / K)
    return {
        "p50_ms": round(float(np.percentile(lat, 50)), 2),
        "p95_ms": round(float(np.percentile(lat, 95)), 2),
        "recall_at_10": round(statistics.mean(rec), 4),
        "queries": len(lat),
    }


def _measure(memory: Memory, X: np.ndarray, Q: np.ndarray, slow_queries: int) -> dict:
    con, n = memory.con, len(X)
    truth = [set((np.argpartition(-(X @ q), K)[:K] + 1).tolist()) for q in Q]
    slow = slice(0, slow_queries if n > 200_000 else len(Q))

    def knn(table: str, fn: str, k: int):
        return lambda q: [
            r[0]
            for r in con.execute(
                f"SELECT rowid FROM {table} WHERE embedding MATCH {fn}(?) AND k = ? ORDER BY distance", (q.tobytes(), k)
            )
        ]

    def bit_rescored(q):
        cand = knn("bench.bench_bit", "vec_bit", 10 * K)(np.packbits(q > 0).astype(np.uint8))
        return [u for u, _ in memory.search.rescore(q, cand, K)]

    t = time.perf_counter()
    ivf = IvfIndex.build(X, np.arange(1, n + 1))
    build_s = time.perf_counter() - t
    out = {
        "float32 sqlite-vec (exact)": _timed(
            lambda q: [u for u, _ in memory.search.dense_search_exact(q, K)], Q[slow], truth[slow]
        ),
        "int8 sqlite-vec": _timed(
            knn("bench.bench_int8", "vec_int8", K),
            np.clip(np.round(Q[slow] * 127), -127, 127).astype(np.int8),
            truth[slow],
        ),
        "binary sqlite-vec + float32 rescoring": _timed(bit_rescored, Q, truth),
        "IVF-SQ8 (FAISS, RAM)": _timed(lambda q: ivf.search(q, K)[0].tolist(), Q, truth),
    }
    for nprobe in NPROBES:
        ivf.nprobe = nprobe
        out[f"IVF-SQ8 nprobe {ivf.nprobe} + float32 rescoring"] = _timed(
            lambda q: [u for u, _ in memory.search.rescore(q, ivf.search(q, RESCORE * K)[0].tolist(), K)], Q, truth
        )
    out["IVF-SQ8 (FAISS, RAM)"]["ram_mb"] = round(ivf.nbytes / 1e6, 1)
    out["IVF-SQ8 (FAISS, RAM)"]["build_s"] = round(build_s, 1)
    return out


def bench_store(cfg: Config, n: int, queries: int = 50, slow_queries: int = 8) -> dict:
    texts, questions = _base_texts()
    embed = load_text_embedder(cfg)
    base, Q = embed(texts), embed(questions[:queries])
    X, which = _corpus(n, base)
    result: dict = {"n": n, "queries": len(Q), "checkpoints": []}
    with tempfile.TemporaryDirectory() as tmp:
        secret = Secret(secrets.token_hex(16).encode(), "bench")
        with Memory.open(Path(tmp) / "memory.db", secret, cfg.store, create=True) as memory:
            con = memory.con
            # the representations only compared here live in a second encrypted file, so the size reported
            # is the memory's own
            con.execute(f"ATTACH DATABASE ? AS bench KEY \"x'{secrets.token_hex(32)}'\"", (str(Path(tmp) / "b.db"),))
            con.execute("CREATE VIRTUAL TABLE bench.bench_int8 USING vec0(embedding int8[384] distance_metric=cosine)")
            con.execute("CREATE VIRTUAL TABLE bench.bench_bit USING vec0(embedding bit[384])")
            session, person = memory.turns.start_session("bench", 1e9), memory.people.add_person().id
            done, insert_s, batch = 0, 0.0, 5000
            for stop in sorted({c for c in CHECKPOINTS if c < n} | {n}):
                while done < stop:
                    end = min(stop, done + batch)
                    t = time.perf_counter()
                    insert_rows(memory, session, person, [texts[i] for i in which[done:end]], X[done:end], done)
                    insert_s += time.perf_counter() - t
                    with memory.batch():
                        _quantized(con, X[done:end], done)
                    done = end
                size = sum(p.stat().st_size for p in Path(tmp).glob("memory.db*"))
                result["checkpoints"].append(
                    {
                        "n": stop,
                        "db_mb": round(size / 1e6, 1),
                        "representations": _measure(memory, X[:stop], Q, slow_queries),
                    }
                )
            result["insert_per_s"] = round(done / insert_s)
            result["db_bytes_per_1k"] = round(size / done * 1000)
    return result


def render(r: dict) -> str:
    lines = [
        f"insert: {r['insert_per_s']} utterances/s (text, FTS5 and float32 vector, encrypted); "
        f"database: {r['db_bytes_per_1k'] / 1e3:.0f} kB per 1,000 utterances",
        "",
    ]
    for cp in r["checkpoints"]:
        lines.append(f"{cp['n']:,} utterances ({cp['db_mb']} MB):")
        for name, m in cp["representations"].items():
            lines.append(
                f"  {name:40s} p50 {m['p50_ms']:8.2f} ms  p95 {m['p95_ms']:8.2f} ms  "
                f"recall@10 {m['recall_at_10']:.3f}  ({m['queries']} queries)"
            )
    return "\n".join(lines) + "\n"
