"""`bench recall --n N`: ingest throughput of the real path (text embedding, encrypted insert)
and end-to-end query latency (embed the question, dense + BM25 search, fuse, render the Level-2 context)
at 10k / 100k / 1M utterances, in a temporary encrypted memory.

Ingest is timed on real conversation turns (LoCoMo's when ../shared/data is there). The large memories
are filled the way `bench store` fills them — real sentence vectors mixed pairwise with noise, each with
the text of the sentence it mostly is — because embedding a million turns would take hours on this CPU.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from app.ask.context import retrieve
from app.bench.store import CHECKPOINTS, _base_texts, _corpus, insert_rows
from app.config import Config
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory

INGEST_SAMPLE = 2000
SESSION_TURNS = 40  # the large memories are conversations of this many turns
PEOPLE = 20  # taking turns at being the other speaker


def _ingest(memory: Memory, embed, texts: list[str]) -> float:
    """Utterances per second through the recorder's own path: embedding, encrypted insert."""
    session, person = memory.turns.start_session("ingest", 1e9), memory.people.add_person().id
    started = time.perf_counter()
    vectors = embed(texts)
    insert_rows(memory, session, person, texts, vectors, 0)
    return len(texts) / (time.perf_counter() - started)


def _timed(memory: Memory, embed, cfg: Config, questions: list[str], now: datetime) -> list[float]:
    """Milliseconds per question, end to end (the Level-2 context as a dialog model would get it)."""
    times = []
    for q in questions:
        t = time.perf_counter()
        retrieve(memory, embed, cfg.recall, q, now)
        times.append((time.perf_counter() - t) * 1000)
    return times


def bench_recall(cfg: Config, n: int, queries: int = 50) -> dict:
    texts, questions = _base_texts()
    embed = load_text_embedder(cfg)
    now = datetime.now(timezone.utc)
    result: dict = {"n": n, "queries": min(queries, len(questions) // 2), "query": []}
    with tempfile.TemporaryDirectory() as tmp:
        secret = Secret(secrets.token_hex(16).encode(), "bench")
        with Memory.open(Path(tmp) / "ingest.db", secret, cfg.store, create=True) as memory:
            result["ingest_per_s"] = round(_ingest(memory, embed, texts[:INGEST_SAMPLE]), 1)
        X, which = _corpus(n, embed(texts))
        with Memory.open(Path(tmp) / "memory.db", secret, cfg.store, create=True) as memory:
            people = [memory.people.add_person().id for _ in range(PEOPLE)]
            done = 0
            for stop in sorted({c for c in CHECKPOINTS if c < n} | {n}):
                while done < stop:
                    with memory.batch():
                        for start in range(done, min(stop, done + 5000), SESSION_TURNS):
                            end = min(stop, start + SESSION_TURNS)
                            session = memory.turns.start_session("bench", 1e9 + start)
                            person = people[(start // SESSION_TURNS) % PEOPLE]
                            insert_rows(
                                memory, session, person, [texts[i] for i in which[start:end]], X[start:end], start
                            )
                    done = min(stop, done + 5000)
                _timed(memory, embed, cfg, questions[:1], now)  # builds the ANN index past its threshold
                first = _timed(memory, embed, cfg, questions[: result["queries"]], now)
                then = _timed(memory, embed, cfg, questions[result["queries"] : 2 * result["queries"]], now)
                result["query"].append(
                    {
                        "n": stop,
                        "p50_ms": round(statistics.median(then), 2),
                        "p95_ms": round(float(np.percentile(then, 95)), 2),
                        "first_p50_ms": round(statistics.median(first), 2),
                        "first_p95_ms": round(float(np.percentile(first, 95)), 2),
                        "dense": memory.dense.describe(),
                    }
                )
    return result


def render(r: dict) -> str:
    lines = [f"ingest (embed + encrypted insert): {r['ingest_per_s']:.0f} utterances/s"]
    header = f"{'utterances':>12s} {'p50 ms':>8s} {'p95 ms':>8s} {'first p50':>10s} {'first p95':>10s}"
    lines.append(header + "  dense search")
    for q in r["query"]:
        lines.append(
            f"{q['n']:12,d} {q['p50_ms']:8.2f} {q['p95_ms']:8.2f} {q['first_p50_ms']:10.2f} {q['first_p95_ms']:10.2f}"
            f"  {q['dense']}"
        )
    lines.append(
        f"(end to end per question: embed, dense + BM25, neighbours, fuse, Level-2 context; p50/p95 over {r['queries']}"
        f" questions after {r['queries']} others were asked, 'first' over those first ones, asked right after the"
        " memory was filled)"
    )
    return "\n".join(lines) + "\n"
