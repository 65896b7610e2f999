"""`eval answers`: the gold questions (`app/evaluation/gold.py`) asked of the memories of the demo, the
companion scene and the memory scene, question by question: is the answer right, does a cited line hold it,
and is "I don't know" said where the memory holds nothing.

The scenes go into encrypted memories as text, with their speakers and times (this measures answering, not
hearing: `eval asr` and `eval speakers` measure that), and their memory is written as the recorder writes it
(`Consolidator`: facts, relations, summaries). Every question is then answered as `ask --answer --as ASKER`
answers it, timed, and scored: right answer (it says one of the accepted phrases), right citation (a cited line
is one that holds the answer), right refusal (a question the memory cannot answer gets "I don't know").
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from app.ask.answer import Answerer
from app.config import Config
from app.consolidation.consolidator import Consolidator
from app.evaluation.gold import GOLD, HELD_OUT, SCENES, Gold, Scene
from app.llm import load_llm
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

LINE_S = 8.0  # seconds between the lines of a scene


def _said(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


def right_answer(gold: Gold, answer: str) -> bool:
    said = _said(answer)
    hits = [_said(a) in said for a in gold.accept]
    return all(hits) if gold.all else any(hits)


def build(
    cfg: Config, folder: Path, embedder, llm, scenes: dict[str, Scene] = SCENES
) -> dict[str, tuple[Path, dict[tuple[str, int], int], datetime]]:
    """The memories the gold questions ask (`scenes`' memories): {memory: (database, (scene, line) -> utterance
    id, last line's time)}."""
    out = {}
    for name in dict.fromkeys(s.memory for s in scenes.values()):
        path = folder / f"{name}.db"
        ids: dict[tuple[str, int], int] = {}
        last = datetime.min.replace(tzinfo=timezone.utc)
        with Memory.open(path, Secret(b"eval answers", "eval"), cfg.store, create=True) as memory:
            for scene in (s for s in scenes.values() if s.memory == name):
                start = datetime.fromisoformat(scene.start)
                session = memory.turns.start_session(scene.name, start.timestamp())
                vectors = embedder([text for _, text in scene.lines])
                for i, ((speaker, text), vec) in enumerate(zip(scene.lines, vectors, strict=True)):
                    pid = memory.people.person_id(speaker) or memory.people.add_person(speaker).id
                    t = start + timedelta(seconds=LINE_S * i)
                    ids[(scene.name, i)] = memory.turns.add_utterance(
                        NewUtterance(
                            session, pid, text, t.timestamp(), t.timestamp() + LINE_S - 1, 1.0, "eval", False, vec
                        )
                    )
                    last = max(last, t)
                memory.writing.enqueue("session", session)
            Consolidator(memory, llm, embedder, cfg).run()
        out[name] = (path, ids, last)
    return out


def eval_answers(cfg: Config, limit: int | None = None, out_dir: Path | None = None, held_out: bool = False) -> dict:
    """Every gold question (the first `limit`; `held_out`: the held-out ones) answered with the configured
    model; the tally and, in `out_dir`, each answer in answers.jsonl."""
    embedder = load_text_embedder(cfg)
    llm = load_llm(cfg)
    golds = HELD_OUT if held_out else GOLD
    golds = golds[:limit] if limit else golds
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="eval-answers-") as tmp:
            memories = build(cfg, Path(tmp), embedder, llm)
            for name, (path, ids, last) in memories.items():
                by_id = {uid: key for key, uid in ids.items()}
                with Memory.open(path, Secret(b"eval answers", "eval"), cfg.store) as memory:
                    answerer = Answerer(llm, memory, embedder, cfg)
                    for gold in (g for g in golds if g.memory == name):
                        now = datetime.fromisoformat(gold.asked_at) if gold.asked_at else last + timedelta(hours=1)
                        started = time.perf_counter()
                        answer = answerer(gold.question, now, gold.asker)
                        seconds = time.perf_counter() - started
                        cited = [by_id.get(c["id"]) for c in answer.citations]
                        row = {
                            "question": gold.question,
                            "memory": name,
                            "asker": gold.asker,
                            "answerable": gold.answerable,
                            "answer": answer.answer,
                            "known": answer.known,
                            "read": answer.read,
                            "why_unknown": answer.why_unknown,
                            "cited": [f"{c[0]}:{c[1]}" if c else "?" for c in cited],
                            "gold_lines": [f"{s}:{i}" for s, i in gold.lines],
                            "seconds": round(seconds, 2),
                            "first_token_s": _seconds(answer.first_token_ms),
                            "prompt_tokens": answer.prompt_tokens,
                        }
                        right = gold.answerable and answer.known and right_answer(gold, answer.answer)
                        row["right_answer"] = right
                        row["right_citation"] = right and any(c in gold.lines for c in cited)
                        row["right_refusal"] = not gold.answerable and not answer.known
                        rows.append(row)
    finally:
        llm.close()
    result = tally(rows)
    result["model"] = cfg.llm.model
    result["set"] = "held-out" if held_out else "gold"
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        (out_dir / "answers.json").write_text(json.dumps(result, indent=1))
    result["rows"] = rows
    return result


def _seconds(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 1e3, 2)


def share(n: int, of: int) -> float:
    """n of `of` as a fraction (0 of nothing is 0)."""
    return round(n / of, 3) if of else 0.0


def tally(rows: list[dict]) -> dict:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    seconds = [r["seconds"] for r in rows]
    first = [r["first_token_s"] for r in rows if r["first_token_s"] is not None]

    right = sum(r["right_answer"] for r in answerable)
    cited = sum(r["right_citation"] for r in answerable)
    refused = sum(r["right_refusal"] for r in unanswerable)
    return {
        "questions": len(rows),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "right_answers": right,
        "right_citations": cited,
        "right_refusals": refused,
        "answer_accuracy": share(right, len(answerable)),
        "citation_accuracy": share(cited, len(answerable)),
        "refusal_accuracy": share(refused, len(unanswerable)),
        "false_refusals": sum(not r["known"] for r in answerable),
        "seconds_p50": round(statistics.median(seconds), 2) if seconds else None,
        "seconds_p95": round(sorted(seconds)[int(0.95 * (len(seconds) - 1))], 2) if seconds else None,
        "first_token_p50_s": round(statistics.median(first), 2) if first else None,
        "prompt_tokens_p50": statistics.median([r["prompt_tokens"] for r in rows]) if rows else 0,
    }


def render(r: dict) -> str:
    lines = [
        f"eval answers: {r['questions']} {r['set']} questions ({r['answerable']} answerable, {r['unanswerable']} not), "
        f"model {r['model']}",
        f"  right answers    {r['right_answers']:3d} / {r['answerable']}  ({r['answer_accuracy']:.1%})",
        f"  right citations  {r['right_citations']:3d} / {r['answerable']}  ({r['citation_accuracy']:.1%})",
        f"  right refusals   {r['right_refusals']:3d} / {r['unanswerable']}  ({r['refusal_accuracy']:.1%}); "
        f"answerable but refused: {r['false_refusals']}",
        f"  whole answer p50 {r['seconds_p50']} s, p95 {r['seconds_p95']} s; first token p50 "
        f"{r['first_token_p50_s']} s; prompt tokens p50 {r['prompt_tokens_p50']}",
    ]
    for row in r.get("rows", []):
        ok = row["right_refusal"] if not row["answerable"] else row["right_answer"]
        mark = "ok " if ok else "BAD"
        cite = "" if not row["answerable"] or row["right_citation"] or not ok else " (citation wrong)"
        lines.append(f"  {mark} {row['question']!r} -> {row['answer']!r}{cite} {row['cited']}")
    return "\n".join(lines) + "\n"
