"""`eval extraction --data locomo10.json`: how well memory writing finds what LoCoMo's annotators wrote down.

LoCoMo annotates every session with `observation`s: short facts per speaker, each with the turns that
support it. Each chosen conversation is ingested into an encrypted memory kept under `--out` (so a killed run
resumes from its durable queue, and `eval locomo --with-memory` reuses what was written), its sessions are
consolidated by the local LLM exactly as `consolidate` does, and then every fact and relation written is
compared with the gold observations:
- recall: the share of observations matched by a written item that cites at least one of the observation's
  turns and says the same thing (MiniLM cosine >= the threshold; the curve over thresholds is reported);
- precision: the share of written items that match some observation that way;
- duplicates: the share of a person's items that hold at the same time as another of their items saying
  nearly the same (cosine >= 0.90) — what the merge rules are there to prevent;
- recall without the observations that note the exchange itself (`EXCHANGE`: "Tim asked John about ...", "James
  encouraged John ..."), which memory writing does not write (beside the recall, never instead of it).
Cost: CPU seconds of the process and of the model's child process per turn and per hour of conversation,
the hour estimated from the words at 150 spoken words a minute; tokens generated; peak RSS.

The prompts were written against the demo script; the statements extractor's filters (greetings, reactions,
questions) were written looking at conv-26's output, so conv-26 is what they were tuned on and the other
conversations are held out (README, Memory writing).
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from app.config import Config
from app.consolidation.consolidator import Consolidator
from app.errors import ConfigError
from app.evaluation.datasets import SHAPE_ERRORS, shape_error
from app.evaluation.locomo import _EVIDENCE, ingest, load, open_memory, read_samples
from app.evaluation.plots import curves
from app.llm import load_llm
from app.recorder.perception import load_text_embedder

# an observation that notes the exchange itself, not what holds of someone: "Tim asked John about his games",
# "James encouraged John to keep going", "Sam thanked Evan for the advice" (one in eight of LoCoMo's); memory
# writing writes what people said about themselves and others, not who asked or cheered whom, so recall is also
# reported without them (README, Memory writing)
EXCHANGE = re.compile(  # the verbs as verbs ("Evan supports Sam"), not nouns ("a support group", "well wishes")
    r"\b(?:ask(?:s|ed)|inquir(?:es|ed)|encourag(?:es|ed)|congratulat(?:es|ed)|thank(?:s|ed)|appreciat(?:es|ed)|"
    r"advis(?:es|ed)|suggest(?:s|ed)|agree(?:s|d)|compliment(?:s|ed)|prais(?:es|ed)|reassur(?:es|ed)|"
    r"support(?:s|ed)|recommend(?:s|ed)|offer(?:s|ed)|invit(?:es|ed))\b",
    re.IGNORECASE,
)
THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
THRESHOLD = 0.65  # the one reported as the headline
DUPLICATE = 0.90
WORDS_PER_MINUTE = 150


def observations(path: Path) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
    """{sample id: [(speaker, observation, evidence turn ids)]}."""
    out: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
    for i, sample in enumerate(read_samples(path)):
        where = f"{path}, conversation {i + 1} ({sample.get('sample_id', 'no sample_id')}), observation"
        try:
            out[sample["sample_id"]] = _observed(sample.get("observation", {}))
        except SHAPE_ERRORS as e:
            raise shape_error(where, e, "{session_<N>_observation: {speaker: [[fact, evidence], ...]}}") from None
    return out


def _observed(observation: dict) -> list[tuple[str, str, tuple[str, ...]]]:
    rows = []
    for per_speaker in observation.values():
        for speaker, facts in per_speaker.items():
            for text, evidence in facts:
                ids = tuple(
                    f"D{a}:{b}"
                    for e in ([evidence] if isinstance(evidence, str) else evidence)
                    for a, b in _EVIDENCE.findall(e)
                )
                if ids:
                    rows.append((speaker, text, ids))
    return rows


def written(mem) -> list[tuple[str, str, set[int], bool]]:
    """(person, text, cited utterances, holds now) of every fact and relation written, superseded ones too."""
    items = [
        (f["person"] or "", f["value"], set(f["sources"]), f["valid_to"] is None)
        for f in mem.derived.facts_listed(history=True)
    ]
    items += [
        (r["subject"], f"{r['subject']} is {r['object']}'s {r['relation']}", set(r["sources"]), r["valid_to"] is None)
        for r in mem.derived.relations_listed()
    ]
    return items


def similar_where_cited(gold: np.ndarray, evidence: list[set], written: np.ndarray, cites: list[set]) -> np.ndarray:
    """Observations x written items: the cosine of their embeddings where the item cites one of the observation's
    turns, else -1."""
    cited = np.array([[bool(c & turns) for c in cites] for turns in evidence], dtype=bool)
    return np.where(cited, gold @ written.T, -1.0)


def score(
    gold: list[tuple[str, str, tuple[str, ...]]],
    uid_of: dict[str, int],
    items: list[tuple[str, str, set[int], bool]],
    embedder,
) -> dict:
    """Recall, precision and duplicates of `items` against `gold` (see the module's text)."""
    stated = np.array([not EXCHANGE.search(text) for _, text, _ in gold], dtype=bool)  # not a note of the exchange
    notes = int(len(gold) - stated.sum())
    if not gold or not items:
        zero = {f"{t:.2f}": {"recall": 0.0, "precision": 0.0} for t in THRESHOLDS}
        return {
            "gold": len(gold),
            "written": len(items),
            "curve": zero,
            "duplicates": 0.0,
            "exchange_notes": notes,
            "recall_without_exchange": 0.0,
            "matched": [],
        }
    w = embedder([text for _, text, _, _ in items])
    evidence = [{uid_of[e] for e in ev if e in uid_of} for _, _, ev in gold]
    eligible = similar_where_cited(embedder([text for _, text, _ in gold]), evidence, w, [item[2] for item in items])
    nearest = eligible.max(axis=1)  # each observation's most similar cited item
    nearest_gold = eligible.max(axis=0)  # each item's most similar observation it cites
    curve = {
        f"{t:.2f}": {
            "recall": round(float((nearest >= t).mean()), 4),
            "precision": round(float((nearest_gold >= t).mean()), 4),
        }
        for t in THRESHOLDS
    }
    own = w @ w.T
    np.fill_diagonal(own, 0.0)
    people = np.array([p for p, _, _, _ in items])
    holds = np.array([h for _, _, _, h in items])
    same = (people[:, None] == people[None, :]) & holds[:, None] & holds[None, :]
    duplicated = ((own >= DUPLICATE) & same).any(axis=1) & holds
    best = eligible.argmax(axis=1)
    matched = [
        {"gold": gold[i][1], "written": items[int(best[i])][1], "similarity": round(float(eligible[i, best[i]]), 3)}
        for i in range(len(gold))
    ]
    return {
        "gold": len(gold),
        "written": len(items),
        "curve": curve,
        "duplicates": round(float(duplicated.sum() / max(1, holds.sum())), 4),
        "exchange_notes": notes,
        "recall_without_exchange": round(float((nearest[stated] >= THRESHOLD).mean()), 4) if stated.any() else 0.0,
        "matched": matched,
    }


def cpu_seconds(llm) -> float:
    """CPU seconds of this process and of the model's process when it runs in a child (`llm.process: child`):
    the child does the model's work, which `time.process_time` alone does not see."""
    total = time.process_time()
    pid = llm.backend.info().get("pid")
    if pid:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        except (OSError, IndexError, ValueError):
            pass  # not Linux, or the child is gone: its time is not counted
    return total


def eval_extraction(cfg: Config, data: Path, out_dir: Path, conversations: int = 2, first: int = 0) -> dict:
    """Write memory for `conversations` LoCoMo conversations from the `first`-th on, and score it."""
    gold_of = observations(data)
    every = load(data)
    chosen = every[first : first + conversations]
    if not chosen:
        raise ConfigError(f"--first {first}: {data} holds {len(every)} conversations (0 to {len(every) - 1})")
    embedder = load_text_embedder(cfg)
    llm = load_llm(cfg)
    info = llm.backend.info()
    rows = []
    cpu0, wall0 = cpu_seconds(llm), time.perf_counter()
    try:
        for sample_id, turns, _, speakers in chosen:
            with open_memory(cfg, out_dir, sample_id) as mem:
                uid_of = ingest(mem, sample_id, turns, speakers, embedder)
                cpu, wall = cpu_seconds(llm), time.perf_counter()
                pending = mem.writing.queue_state(cfg.memory.attempts)["pending"]
                bar = tqdm(total=pending, unit="job", desc=sample_id, disable=None, mininterval=10, file=sys.stderr)
                try:
                    report = Consolidator(mem, llm, embedder, cfg).run(
                        progress=lambda job, left, bar=bar: bar.update(1)
                    )
                finally:
                    bar.close()
                cpu, wall = cpu_seconds(llm) - cpu, time.perf_counter() - wall
                gold = gold_of.get(sample_id, [])
                result = score(gold, uid_of, written(mem), embedder)
            words = sum(len(t.text.split()) for t in turns)
            rows.append(
                {
                    "conversation": sample_id,
                    "turns": len(turns),
                    "spoken_minutes": round(words / WORDS_PER_MINUTE, 1),
                    "consolidated_now": report.sessions,  # 0: written by an earlier run, cost not measured now
                    "cpu_s": round(cpu, 1),
                    "wall_s": round(wall, 1),
                    "cpu_s_per_turn": round(cpu / len(turns), 2) if report.sessions else None,
                    "cpu_min_per_hour": round(cpu / 60 / (words / WORDS_PER_MINUTE / 60), 1)
                    if report.sessions == len({t.session for t in turns})
                    else None,
                    "generated_tokens": report.completion_tokens,
                    "dropped": report.dropped,
                    **result,
                }
            )
    finally:
        spent = cpu_seconds(llm) - cpu0
        llm.close()
    matched = [m for r in rows for m in r.pop("matched")]
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "extraction_matches.jsonl").write_text("".join(json.dumps(m) + "\n" for m in matched))
    gold = sum(r["gold"] for r in rows)
    total = sum(r["written"] for r in rows)
    notes = sum(r["exchange_notes"] for r in rows)

    def pooled(t: str, key: str) -> float:
        weight = "gold" if key == "recall" else "written"
        return round(sum(r["curve"][t][key] * r[weight] for r in rows) / max(1, sum(r[weight] for r in rows)), 4)

    curve = {t: {k: pooled(t, k) for k in ("recall", "precision")} for t in rows[0]["curve"]} if rows else {}
    result = {
        "model": info.get("model"),
        "threshold": THRESHOLD,
        "conversations": rows,
        "gold": gold,
        "written": total,
        "recall": curve.get(f"{THRESHOLD:.2f}", {}).get("recall", 0.0),
        "precision": curve.get(f"{THRESHOLD:.2f}", {}).get("precision", 0.0),
        "duplicates": round(sum(r["duplicates"] * r["written"] for r in rows) / max(1, total), 4),
        "exchange_notes": notes,
        "recall_without_exchange": round(
            sum(r["recall_without_exchange"] * (r["gold"] - r["exchange_notes"]) for r in rows) / max(1, gold - notes),
            4,
        ),
        "curve": curve,
        "cpu_s": round(spent, 1),
        "wall_s": round(time.perf_counter() - wall0, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0),
        "memories": str(out_dir / "memory"),
    }
    result["plot"] = plot(result, out_dir / "extraction.png")
    return result


def plot(r: dict, path: Path) -> str | None:
    """Recall and precision over the similarity threshold, pooled over the conversations."""
    x = [float(t) for t in r["curve"]]
    series = {key: [v[key] for v in r["curve"].values()] for key in ("recall", "precision")}
    title = f"Memory writing on LoCoMo ({r['model']})\n{r['gold']} gold observations, {r['written']} items written"
    labels = ("MiniLM cosine a match needs (and a cited evidence turn)", "recall / precision", title)
    return curves(path, x, series, labels, r["threshold"])


def render(r: dict) -> str:
    lines = [
        f"Memory writing on LoCoMo ({r['model']}); match = cites an evidence turn and cosine >= threshold",
        f"{'conversation':14s}{'turns':>7s}{'gold':>6s}{'written':>9s}{'recall':>8s}{'precision':>10s}"
        f"{'dupes':>7s}{'CPU s/turn':>11s}{'CPU min/h':>10s}",
    ]
    t = f"{r['threshold']:.2f}"
    for c in r["conversations"]:
        per_turn = f"{c['cpu_s_per_turn']:11.2f}" if c["cpu_s_per_turn"] is not None else f"{'-':>11s}"
        per_hour = f"{c['cpu_min_per_hour']:10.1f}" if c["cpu_min_per_hour"] is not None else f"{'-':>10s}"
        lines.append(
            f"{c['conversation']:14s}{c['turns']:7d}{c['gold']:6d}{c['written']:9d}{c['curve'][t]['recall']:8.3f}"
            f"{c['curve'][t]['precision']:10.3f}{c['duplicates']:7.3f}{per_turn}{per_hour}"
        )
    lines.append(
        f"{'all':14s}{'':7s}{r['gold']:6d}{r['written']:9d}{r['recall']:8.3f}{r['precision']:10.3f}{r['duplicates']:7.3f}"
    )
    lines.append(
        f"recall without the {r['exchange_notes']} observations that note the exchange itself "
        f"(asked, thanked, encouraged ...): {r['recall_without_exchange']:.3f}"
    )
    lines.append("threshold  " + "".join(f"{k:>7s}" for k in r["curve"]))
    for key in ("recall", "precision"):
        lines.append(f"{key:11s}" + "".join(f"{v[key]:7.3f}" for v in r["curve"].values()))
    lines.append(f"peak RSS {r['peak_rss_mb']:.0f} MB; memories kept in {r['memories']}")
    if r.get("plot"):
        lines.append(f"plot: {r['plot']}")
    return "\n".join(lines) + "\n"
