"""`eval locomo --data locomo10.json`: evidence recall@k of retrieval on LoCoMo (categories 1-4).

Each conversation is ingested as a stream into its own temporary encrypted memory: its two speakers are
people, each session starts at its date-time (turns 30 s apart), and a shared image's BLIP caption is part of
the turn's text. Offline, every question is asked after the whole conversation; online (LifeDialBench §3.6)
the sessions go in in time order and each question is asked right after the last session its evidence
needs, against the memory as it was then. Recall@k of a question is the share of its evidence turns among
the first k results. Questions are asked the way `ask` asks them: a time expression in one ("on 9 November,
2022") becomes an event-time filter, as of the last turn ingested. BM25-only (over the same memories) and
dense-only baselines run in the same pass; the dense baseline embeds each turn as "speaker: text", as the
common LoCoMo baseline does (0.44 recall@10 that way, 0.31 for the text alone).
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from app.ask.context import find
from app.ask.recall import Retriever
from app.config import Config
from app.errors import MediaError
from app.evaluation.datasets import SHAPE_ERRORS, read_json, shape_error
from app.evaluation.plots import recall_at_k
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

CATEGORIES = ("1", "2", "3", "4")
CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop"}
TURN_S = 30.0
_EVIDENCE = re.compile(r"D(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    t: float


@dataclass(frozen=True)
class Question:
    text: str
    category: str
    evidence: tuple[str, ...]
    last_session: int
    answer: str = ""  # the annotated answer (category 5: the adversarial answer it must not give)


SESSION_TIME_FORMATS = ("%I:%M %p on %d %B, %Y", "%d.%m.%Y, %H:%M:%S", "%d.%m.%Y, %H:%M")
EXPECTED = "a LoCoMo file (a JSON list of conversations, as locomo10.json)"
EVAL_KEY = b"locomo extraction eval"  # public data: the memories under --out share one fixed key


def session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023', '29.12.2023, 22:42:04' or ISO 8601 -> epoch seconds (UTC unless it says)."""
    for fmt in SESSION_TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=timezone.utc).timestamp()
        except ValueError:
            continue
    when = datetime.fromisoformat(text.strip())  # a ValueError here: no format fits
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def turn_text(turn: dict) -> str:
    text = turn.get("text", "")
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def read_samples(path: Path) -> list[dict]:
    """The conversations of a LoCoMo file, as they are in it; one line naming the file when it is not one."""
    samples = read_json(path, EXPECTED)
    if not isinstance(samples, list) or not samples or not all(isinstance(s, dict) for s in samples):
        raise MediaError(f"{path} holds no conversations: expected {EXPECTED}")
    return samples


def load(
    path: Path, categories: tuple[str, ...] = CATEGORIES
) -> list[tuple[str, list[Turn], list[Question], tuple[str, str]]]:
    """(sample id, turns in time order, questions with evidence in `categories`, speakers) per conversation."""
    out = []
    for i, sample in enumerate(read_samples(path)):
        where = f"{path}, conversation {i + 1} ({sample.get('sample_id', 'no sample_id')})"
        try:
            out.append(_conversation(sample, where, categories))
        except SHAPE_ERRORS as e:
            raise shape_error(where, e, EXPECTED) from None
    return out


def _turns(conv: dict, where: str) -> list[Turn]:
    turns = []
    numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for n in numbers:
        field = f"session_{n}_date_time"
        try:
            start = session_time(conv[field])
        except ValueError:
            raise MediaError(
                f"{where}: {field} {conv[field]!r} is not a date like '1:56 pm on 8 May, 2023' or "
                "'29.12.2023, 22:42:04'"
            ) from None
        for i, turn in enumerate(conv[f"session_{n}"]):
            turns.append(Turn(turn["dia_id"], n, turn["speaker"], turn_text(turn), start + i * TURN_S))
    return turns


def _conversation(
    sample: dict, where: str, categories: tuple[str, ...]
) -> tuple[str, list[Turn], list[Question], tuple[str, str]]:
    conv = sample["conversation"]
    turns = _turns(conv, where)
    if not turns:
        raise MediaError(f"{where}: no turns (session_1, session_2, ...): expected {EXPECTED}")
    known = {t.dia_id for t in turns}
    questions = []
    for qa in sample.get("qa", []):
        category = str(qa.get("category"))
        evidence = tuple(dict.fromkeys(f"D{m[0]}:{m[1]}" for e in qa.get("evidence", []) for m in _EVIDENCE.findall(e)))
        evidence = tuple(e for e in evidence if e in known)
        if category in categories and evidence:
            last = max(int(_EVIDENCE.fullmatch(e).group(1)) for e in evidence)  # type: ignore[union-attr]
            answer = str(qa.get("answer", qa.get("adversarial_answer", "")))
            questions.append(Question(qa["question"], category, evidence, last, answer))
    return sample["sample_id"], turns, questions, (conv["speaker_a"], conv["speaker_b"])


def add_session(mem, source: str, turns: list[Turn], people: dict[str, int], vectors: np.ndarray) -> dict[str, int]:
    """One LoCoMo session into a memory, in one transaction: {dia_id: utterance id}."""
    with mem.batch():
        sid = mem.turns.start_session(source, turns[0].t)
        return {
            t.dia_id: mem.turns.add_utterance(
                NewUtterance(sid, people.get(t.speaker), t.text, t.t, t.t + TURN_S, 1.0, "locomo", False, v)
            )
            for t, v in zip(turns, vectors, strict=True)
        }


def memory_path(out_dir: Path, sample_id: str) -> Path:
    return out_dir / "memory" / f"{sample_id}.db"


def open_memory(cfg: Config, out_dir: Path, sample_id: str):
    path = memory_path(out_dir, sample_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    return Memory.open(path, Secret(EVAL_KEY, "eval"), cfg.store, True)


def ingest(mem, sample_id: str, turns: list[Turn], speakers: tuple[str, str], embedder) -> dict[str, int]:
    """The conversation into `mem` once, each session queued for writing: {dia_id: utterance id}. A memory
    that already holds it (a resumed run) is only read back."""
    have = [r[0] for r in mem.con.execute("SELECT id FROM utterances ORDER BY id")]
    if len(have) == len(turns):
        return {t.dia_id: uid for t, uid in zip(turns, have, strict=True)}
    if have:
        raise MediaError(f"{sample_id}: the memory under --out holds another conversation; delete it")
    people = {name: mem.people.add_person(name).id for name in speakers}
    vectors = embedder([t.text for t in turns])
    uid_of: dict[str, int] = {}
    for session in sorted({t.session for t in turns}):
        idx = [i for i, t in enumerate(turns) if t.session == session]
        uid_of.update(add_session(mem, sample_id, [turns[i] for i in idx], people, vectors[idx]))
    mem.writing.enqueue_backlog()
    return uid_of


def _recall(ranked: list[int], evidence: set[int], k: int) -> float:
    return len(evidence.intersection(ranked[:k])) / len(evidence)


class _Scores:
    """Recall@k sums per method and category."""

    def __init__(self, methods: list[str], ks: list[int]) -> None:
        self.ks = ks
        self.sums = {m: {c: np.zeros(len(ks)) for c in (*CATEGORIES, "all")} for m in methods}
        self.counts = dict.fromkeys((*CATEGORIES, "all"), 0)

    def add(self, category: str, rankings: dict[str, list[int]], evidence: set[int]) -> None:
        self.counts[category] += 1
        self.counts["all"] += 1
        for method, ranked in rankings.items():
            r = np.array([_recall(ranked, evidence, k) for k in self.ks])
            self.sums[method][category] += r
            self.sums[method]["all"] += r

    def table(self, method: str) -> dict:
        def row(c: str) -> dict:
            n = max(1, self.counts[c])
            return {f"recall@{k}": round(float(v) / n, 4) for k, v in zip(self.ks, self.sums[method][c], strict=True)}

        return {
            "overall": row("all"),
            "by_category": {c: {**row(c), "questions": self.counts[c]} for c in CATEGORIES},
        }


def eval_locomo(
    cfg: Config, data: Path, ks: list[int], mode: str = "offline", out_dir: Path | None = None, limit: int = 0
) -> dict:
    conversations = load(data)[: limit or None]
    embedder = load_text_embedder(cfg)
    store_cfg = cfg.store
    methods = ["ours", "bm25", "dense"]
    scores = {m: _Scores(methods, ks) for m in ("offline", "online")}
    ingest_s = 0.0
    questions = 0
    depth = max(ks)
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        for sample_id, turns, qs, speakers in conversations:
            started = time.perf_counter()
            vectors = embedder([t.text for t in turns])
            ingest_s += time.perf_counter() - started
            baseline = embedder([f"{t.speaker}: {t.text}" for t in turns])
            with Memory.open(Path(tmp) / f"{sample_id}.db", Secret(b"locomo eval", "eval"), store_cfg, True) as mem:
                started = time.perf_counter()
                people = {name: mem.people.add_person(name).id for name in speakers}
                ingest_s += time.perf_counter() - started
                retriever = Retriever(mem, embedder, cfg.recall)
                asker = _Asker(retriever, embedder, turns, baseline, depth)
                uid_of = asker.uid_of
                by_session: dict[int, list[int]] = {}
                for i, t in enumerate(turns):
                    by_session.setdefault(t.session, []).append(i)
                asked_online: dict[int, list[Question]] = {}
                for q in qs:
                    asked_online.setdefault(q.last_session, []).append(q)
                for session, indices in sorted(by_session.items()):
                    started = time.perf_counter()
                    uid_of.update(add_session(mem, sample_id, [turns[i] for i in indices], people, vectors[indices]))
                    asker.ingested.extend(indices)
                    ingest_s += time.perf_counter() - started
                    if mode == "online":
                        for q in asked_online.get(session, []):
                            asker.ask(q, scores["online"])
                for q in qs:
                    asker.ask(q, scores["offline"])
                    questions += 1
    offline = scores["offline"]
    result: dict = {
        "mode": mode,
        "questions": questions,
        "conversations": len(conversations),
        "ingest_s": round(ingest_s, 2),
        **offline.table("ours"),
        "baselines": {m: offline.table(m) for m in ("bm25", "dense")},
    }
    if mode == "online":
        online = scores["online"]
        result.update(online.table("ours"))
        result["baselines"] = {m: online.table(m) for m in ("bm25", "dense")}
        result["offline"] = offline.table("ours")
        result["offline_minus_online"] = {
            key: round(result["offline"]["overall"][key] - result["overall"][key], 4) for key in result["overall"]
        }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result["plot"] = _plot(result, ks, out_dir / f"locomo_{mode}.png")
    return result


def eval_locomo_with_memory(cfg: Config, data: Path, ks: list[int], out_dir: Path) -> dict:
    """Recall@k over the memories `eval extraction` wrote under `out_dir`, with the facts and
    summaries counting for the turns they cite ("ours") and without them (`recall.written_weight` 0:
    "turns"), in one pass over the same databases."""
    conversations = [c for c in load(data) if memory_path(out_dir, c[0]).exists()]
    if not conversations:
        raise MediaError(f"no memory written under {out_dir}: run `python -m app eval extraction` first")
    embedder = load_text_embedder(cfg)
    turns_only = dataclasses.replace(cfg.recall, written_weight=0.0)
    scores = _Scores(["ours", "turns", "bm25", "dense"], ks)
    facts = questions = 0
    for sample_id, turns, qs, speakers in conversations:
        baseline = embedder([f"{t.speaker}: {t.text}" for t in turns])
        with open_memory(cfg, out_dir, sample_id) as mem:
            others = {"turns": Retriever(mem, embedder, turns_only)}
            asker = _Asker(Retriever(mem, embedder, cfg.recall), embedder, turns, baseline, max(ks), others)
            asker.uid_of.update(ingest(mem, sample_id, turns, speakers, embedder))
            asker.ingested.extend(range(len(turns)))
            facts += len(mem.derived.written().ids)
            for q in qs:
                asker.ask(q, scores)
                questions += 1
    result = {
        "mode": "offline, with memory",
        "questions": questions,
        "conversations": len(conversations),
        "which": [c[0] for c in conversations],
        "written_items": facts,
        "ingest_s": 0.0,
        **scores.table("ours"),
        "baselines": {m: scores.table(m) for m in ("turns", "bm25", "dense")},
    }
    result["plot"] = _plot(result, ks, out_dir / "locomo_memory.png")
    return result


class _Asker:
    """Asks one conversation's questions of its memory as it is so far, with the baselines (and `others`:
    more retrievers over the same memory, by name)."""

    def __init__(
        self, retriever, embedder, turns: list[Turn], baseline: np.ndarray, depth: int, others: dict | None = None
    ) -> None:
        self.retriever, self.embedder, self.turns, self.baseline, self.depth = (
            retriever,
            embedder,
            turns,
            baseline,
            depth,
        )
        self.others = others or {}
        self.uid_of: dict[str, int] = {}
        self.ingested: list[int] = []  # indices of the turns in the memory so far

    def ask(self, q: Question, scores: _Scores) -> None:
        now = datetime.fromtimestamp(self.turns[self.ingested[-1]].t + TURN_S, timezone.utc)
        seen = np.array(self.ingested)
        similarity = self.baseline[seen] @ self.embedder([q.text])[0]
        nearest = seen[np.argsort(-similarity, kind="stable")[: self.depth]]
        rankings = {
            "ours": [e.utterance_id for e in find(self.retriever, q.text, now, self.depth).evidence],
            "bm25": self.retriever.rank_bm25(q.text, self.depth),
            "dense": [self.uid_of[self.turns[i].dia_id] for i in nearest],
            **{
                name: [e.utterance_id for e in find(r, q.text, now, self.depth).evidence]
                for name, r in self.others.items()
            },
        }
        scores.add(q.category, rankings, {self.uid_of[e] for e in q.evidence if e in self.uid_of})


def _plot(result: dict, ks: list[int], path: Path) -> str | None:
    """Recall@k of ours and the baselines, overall and per category."""
    tables = {"ours": result, **result["baselines"]}
    panels = {"all categories": {m: [t["overall"][f"recall@{k}"] for k in ks] for m, t in tables.items()}}
    for c in CATEGORIES:
        title = f"{c}: {CATEGORY_NAMES[c]} ({result['by_category'][c]['questions']})"
        panels[title] = {m: [t["by_category"][c][f"recall@{k}"] for k in ks] for m, t in tables.items()}
    title = f"LoCoMo evidence recall@k ({result['mode']}): {result['questions']} questions"
    return recall_at_k(path, panels, ks, f"{title}, {result['conversations']} conversations")


def render(r: dict) -> str:
    ks = [int(k.split("@")[1]) for k in r["overall"]]
    head = f"{'':22s}" + "".join(f"{'R@' + str(k):>8s}" for k in ks)
    lines = [
        f"LoCoMo {r['mode']}: {r['questions']} questions, {r['conversations']} conversations, "
        f"ingested in {r['ingest_s']:.1f} s",
        head,
    ]

    def line(name: str, row: dict) -> str:
        return f"{name:22s}" + "".join(f"{row[f'recall@{k}']:8.3f}" for k in ks)

    lines.append(line("ours", r["overall"]))
    for c in CATEGORIES:
        lines.append(line(f"  {c} {CATEGORY_NAMES[c]} ({r['by_category'][c]['questions']})", r["by_category"][c]))
    for name, table in r["baselines"].items():
        lines.append(line(f"{name} baseline", table["overall"]))
    if "offline_minus_online" in r:
        lines.append(line("offline - online", r["offline_minus_online"]))
    if r.get("plot"):
        lines.append(f"plot: {r['plot']}")
    return "\n".join(lines) + "\n"
