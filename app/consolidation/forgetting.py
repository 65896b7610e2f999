"""Forgetting by competition and inhibition (MOOM §3.3).

A fact's strength S = inhibition · (α / (exp(γ (r_c − b)) + 1 − ε) + β Σ_{r ∈ R} 1 / (r_c − r + ε)): it decays
with the rounds since it was learned (b) and grows with each round it was recalled or said again (R); a round
is one conversation session written to memory. When facts are retrieved, the top k are reinforced (this round
joins their R) and the next k, the ones that competed and lost, are inhibited (their strength halves). Each
person keeps their `capacity` strongest facts in the profile and in search; the rest fade — still stored,
exportable and deletable, and back as soon as they are said again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.config import MemoryConfig
from app.store.db import transaction
from app.store.memory import Memory

EPSILON = 1e-3


def strength(cfg: MemoryConfig, now: int, learned: int, recalled: Sequence[int], inhibition: float) -> float:
    decay = cfg.alpha / (math.exp(min(cfg.gamma * (now - learned), 700.0)) + 1 - EPSILON)
    return inhibition * (decay + cfg.beta * sum(1.0 / (now - r + EPSILON) for r in recalled if r <= now))


def fade(memory: Memory, cfg: MemoryConfig, people: Sequence[int] | None = None) -> int:
    """Keep each person's `capacity` strongest current facts; mark the rest faded. Returns how many are faded.
    Part of the caller's transaction when there is one."""
    now = memory.writing.memory_round()
    con = memory.con
    where = f"AND f.person_id IN ({','.join('?' * len(people))})" if people else ""
    rows = con.execute(
        "SELECT f.id, f.person_id, f.round, f.inhibition, group_concat(r.round) FROM facts f "
        "LEFT JOIN fact_recalls r ON r.fact_id = f.id WHERE f.valid_to IS NULL "
        f"{where} GROUP BY f.id",
        tuple(people or ()),
    ).fetchall()
    by_person: dict[int, list[tuple[float, int]]] = {}
    for fid, pid, learned, inhibition, recalls in rows:
        rounds = [int(x) for x in recalls.split(",")] if recalls else []
        by_person.setdefault(pid, []).append((strength(cfg, now, learned, rounds, inhibition), fid))
    faded, kept = [], []
    for scored in by_person.values():
        scored.sort(reverse=True)
        kept += [fid for _, fid in scored[: cfg.capacity]]
        faded += [fid for _, fid in scored[cfg.capacity :]]
    with transaction(con):
        con.executemany("UPDATE facts SET faded = 1 WHERE id = ?", [(f,) for f in faded])
        con.executemany("UPDATE facts SET faded = 0 WHERE id = ?", [(f,) for f in kept])
    return len(faded)


def recalled(memory: Memory, cfg: MemoryConfig, ranked: Sequence[int]) -> None:
    """Retrieval found these facts, best first: the top k are reinforced, the next k inhibited."""
    if not ranked:
        return
    now = memory.writing.memory_round()
    k = cfg.recall_k
    with transaction(memory.con):
        memory.con.executemany("INSERT INTO fact_recalls(fact_id, round) VALUES (?, ?)", [(f, now) for f in ranked[:k]])
        memory.con.executemany(
            "UPDATE facts SET inhibition = inhibition * 0.5 WHERE id = ?", [(f,) for f in ranked[k : 2 * k]]
        )
