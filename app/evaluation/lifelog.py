"""`eval lifelog`: the questions a wearer asks a lifelog, over several days of their conversations, scored kind by
kind: is the answer right, does a cited line hold it, and is "I don't know" said where the memory holds nothing.

Four sets, each written blind by a helper session that had not read the answering code
(app/evaluation/lifelog_tuning.py, lifelog_held_out.py, lifelog_held_out_2.py, lifelog_held_out_3.py): the tuning
set is read while building; the first held-out set's failures have all been read since (README, Lifelog questions);
the second is never read; of the third, only the tally of its kinds against the kinds parsed was read. Each set is
one wearer's memory: every scene one conversation, recorded as text with its speakers and times (this measures
answering; `eval lifelog --spoken`, app/evaluation/lifelog_spoken.py, asks the same sets of a memory
heard), its memory written as the recorder writes it (`Consolidator`), the wearer its owner (`enroll --me`).
Every question is answered as `ask --answer` answers it, at the time it is asked, by the wearer unless it says who
asks.
"""

from __future__ import annotations

import importlib
import json
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from app.ask.answer import Answerer
from app.config import Config
from app.evaluation.answers import _said, build, share
from app.llm import load_llm
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory

SETS = {
    "tuning": "app.evaluation.lifelog_tuning",
    "held-out": "app.evaluation.lifelog_held_out",
    "held-out-2": "app.evaluation.lifelog_held_out_2",
    "held-out-3": "app.evaluation.lifelog_held_out_3",
    "held-out-4": "app.evaluation.lifelog_held_out_4",
}


def says(phrase: str, said: str) -> bool:
    """Whether `said` (as `_said` leaves it) holds `phrase`: anywhere in it ("krak" in "kraków"), but a phrase of
    three characters or fewer only as a word of its own or its plural ("no" is not in "know" or "November", "3"
    not in "2026"; "dog" is in "dogs")."""
    phrase = _said(phrase)
    if len(phrase) > 3:
        return phrase in said
    return re.search(rf"(?<!\w){re.escape(phrase)}(?:e?s)?(?!\w)", said) is not None


def right(question, answer: str) -> bool:
    """Whether `answer` says at least `need` of the accepted phrases (case and punctuation aside)."""
    said = _said(answer)
    return sum(says(a, said) for a in question.accept) >= question.need


def eval_lifelog(cfg: Config, which: str = "tuning", limit: int | None = None, out_dir: Path | None = None) -> dict:
    """Every question of the set (the first `limit`), answered with the configured model; the tally per kind and,
    in `out_dir`, each answer in lifelog.jsonl."""
    data = importlib.import_module(SETS[which])
    questions = data.QUESTIONS[:limit] if limit else data.QUESTIONS
    embedder = load_text_embedder(cfg)
    llm = load_llm(cfg)
    try:
        with tempfile.TemporaryDirectory(prefix="eval-lifelog-") as tmp:
            (path, ids, _last), *_ = build(cfg, Path(tmp), embedder, llm, data.SCENES).values()
            by_id = {uid: key for key, uid in ids.items()}
            with Memory.open(path, Secret(b"eval answers", "eval"), cfg.store) as memory:
                memory.people.set_owner(data.WEARER)
                answerer = Answerer(llm, memory, embedder, cfg)
                rows = ask_all(answerer, data, questions, lambda uid: [by_id[uid]] if uid in by_id else [])
    finally:
        llm.close()
    result = tally(rows)
    result.update(model=cfg.llm.model, set=which)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "lifelog.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        (out_dir / "lifelog.json").write_text(json.dumps(result, indent=1))
    result["rows"] = rows
    return result


def ask_all(
    answerer: Answerer,
    data,
    questions,
    lines_of: Callable[[int], list[tuple[str, int]]],
    heard: Callable[[str], str] = str,
    asker: Callable[[str | None], str | None] = lambda name: name,
) -> list[dict]:
    """Each question asked at its time by its asker (`asker`: as the memory calls them), its answer read in the
    set's terms (`heard`: the identity for text) and scored; a citation right when a cited utterance stands for one
    of the question's lines (`lines_of`: (scene, line) for a stored utterance's id)."""
    rows = []
    for q in questions:
        now = datetime.fromisoformat(q.asked_at or data.ASKED_AT)
        started = time.perf_counter()
        answer = answerer(q.question, now, asker(q.asker))
        seconds = time.perf_counter() - started
        said = heard(answer.answer)
        cited = [line for c in answer.citations for line in lines_of(c["id"])]
        ok = q.answerable and answer.known and right(q, said)
        rows.append(
            {
                "question": q.question,
                "kind": q.kind,
                "parsed": answer.kind,
                "asked_at": now.isoformat(),
                "answerable": q.answerable,
                "answer": said,
                "known": answer.known,
                "why_unknown": answer.why_unknown,
                "cited": [f"{c[0]}:{c[1]}" for c in cited],
                "gold_lines": [f"{s}:{i}" for s, i in q.lines],
                "accept": list(q.accept),
                "need": q.need,
                "seconds": round(seconds, 2),
                "right_answer": ok,
                "right_citation": ok and (not q.lines or any(c in q.lines for c in cited)),
                "right_refusal": not q.answerable and not answer.known,
            }
        )
    return rows


def eval_lifelogs(cfg: Config, which: tuple[str, ...], limit: int | None = None, out_dir: Path | None = None) -> dict:
    """`eval_lifelog` for each set named, one after the other (`out_dir`: a folder for each)."""
    return {"sets": [eval_lifelog(cfg, w, limit, out_dir / w if out_dir else None) for w in which]}


def tally(rows: list[dict]) -> dict:
    kinds: dict[str, dict] = defaultdict(
        lambda: {"answerable": 0, "right": 0, "cited": 0, "unanswerable": 0, "refused": 0}
    )
    for r in rows:
        k = kinds[r["kind"]]
        if r["answerable"]:
            k["answerable"] += 1
            k["right"] += r["right_answer"]
            k["cited"] += r["right_citation"]
        else:
            k["unanswerable"] += 1
            k["refused"] += r["right_refusal"]
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    seconds = [r["seconds"] for r in rows]
    return {
        "questions": len(rows),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "right_answers": sum(r["right_answer"] for r in answerable),
        "right_citations": sum(r["right_citation"] for r in answerable),
        "right_refusals": sum(r["right_refusal"] for r in unanswerable),
        "answer_accuracy": share(sum(r["right_answer"] for r in answerable), len(answerable)),
        "refusal_accuracy": share(sum(r["right_refusal"] for r in unanswerable), len(unanswerable)),
        "kinds": dict(sorted(kinds.items())),
        "seconds_p50": round(statistics.median(seconds), 2) if seconds else None,
        "seconds_p95": round(sorted(seconds)[int(0.95 * (len(seconds) - 1))], 2) if seconds else None,
    }


def render(result: dict) -> str:
    return "".join(render_set(r) for r in result["sets"])


def tally_lines(r: dict) -> list[str]:
    """A tally (`tally`) as the report prints it: the totals, then kind by kind."""
    lines = [
        f"  right answers    {r['right_answers']:3d} / {r['answerable']}  ({r['answer_accuracy']:.1%})",
        f"  right citations  {r['right_citations']:3d} / {r['answerable']}",
        f"  right refusals   {r['right_refusals']:3d} / {r['unanswerable']}  ({r['refusal_accuracy']:.1%})",
        f"  whole answer p50 {r['seconds_p50']} s, p95 {r['seconds_p95']} s",
        "  kind          right  cited  refused",
    ]
    for kind, k in r["kinds"].items():
        lines.append(
            f"  {kind:<12} {k['right']:3d}/{k['answerable']:<3d} {k['cited']:3d}/{k['answerable']:<3d} "
            f"{k['refused']:3d}/{k['unanswerable']}"
        )
    return lines


def render_set(r: dict) -> str:
    lines = [
        f"eval lifelog: {r['questions']} {r['set']} questions ({r['answerable']} answerable, {r['unanswerable']} not), "
        f"model {r['model']}",
        *tally_lines(r),
    ]
    for row in r.get("rows", []):
        ok = row["right_refusal"] if not row["answerable"] else row["right_answer"]
        cite = "" if not row["answerable"] or row["right_citation"] or not ok else " (citation wrong)"
        lines.append(
            f"  {'ok ' if ok else 'BAD'} [{row['kind']}/{row['parsed']}] {row['question']!r} -> {row['answer']!r}{cite}"
        )
    return "\n".join(lines) + "\n"
