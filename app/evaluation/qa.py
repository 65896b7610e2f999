"""`eval qa --data locomo10.json`: LoCoMo question answering with the local LLM, scored as the LoCoMo paper does.

A stratified sample (the same number of questions from each category 1-5, drawn with `seed`) is asked of
each conversation's memory, ingested whole into its own temporary encrypted database, as of the end of the
conversation, and answered as `ask --answer` answers (`answer`: gather, choose, read, check; app/ask/answer.py).
Beside LoCoMo's score: the citations' precision (cited lines within the annotated evidence) and the share of
answers that are only a date a session of the conversation happened on, which the annotated answer is not.

Scoring follows LoCoMo's task_eval/evaluation.py: answers normalised (lower case, no punctuation, articles
or "and"), words Porter-stemmed, token F1 against the annotated answer; category 1 (multi-hop) splits both on
commas and averages each gold part's best F1; category 3 keeps the gold answer before its first ';'.
Category 5 (adversarial) counts an answer as right when the model says it does not know or answers "not
mentioned" / "no information available".
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import re
import string
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from app.ask.answer import Answerer
from app.config import Config
from app.errors import AppError, LLMError, MediaError
from app.evaluation.locomo import TURN_S, Question, add_session, load, memory_path
from app.evaluation.locomo import open_memory as open_written
from app.evaluation.plots import grouped_bars
from app.llm import load_llm
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.text.timeexpr import spoken_time

QA_CATEGORIES = ("1", "2", "3", "4", "5")
NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}
METHODS = ("answer",)
MEMORY = "memory"  # `context` over the memory `eval extraction` wrote: the same turns plus facts and summaries


@functools.cache
def _stemmer():
    try:
        # lazy: the optional `eval` extra
        from nltk.stem import PorterStemmer
    except ImportError as e:
        raise AppError("eval qa scores with nltk's Porter stemmer: run `python3 build.py`") from e
    return PorterStemmer()


_PUNCTUATION = frozenset(string.punctuation)


def normalize(text: str) -> str:
    text = str(text).replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the|and)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, truth: str) -> float:
    stem = _stemmer().stem
    pred = [stem(w) for w in normalize(prediction).split()]
    gold = [stem(w) for w in normalize(truth).split()]
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def score(category: str, prediction: str, truth: str, known: bool) -> float:
    """LoCoMo's score of one answer."""
    if category == "5":
        said = prediction.lower()
        return float(not known or "not mentioned" in said or "no information available" in said)
    if category == "1":
        parts = [p.strip() for p in prediction.split(",")]
        return float(np.mean([max(token_f1(p, g.strip()) for p in parts) for g in truth.split(",")]))
    if category == "3":
        truth = truth.split(";", maxsplit=1)[0].strip()
    return token_f1(prediction, truth)


def sample(conversations, per_category: int, seed: int, unseen_by: int = 0) -> list[tuple[int, Question]]:
    """(conversation index, question): `per_category` drawn from each category, in conversation order.
    `unseen_by` N: drawn only among the questions that no seed below N draws (with this `per_category`), so a
    sample can hold only questions that the answer rules, read off the samples of those seeds, were never read on."""
    drawn = {(ci, q.text) for s in range(unseen_by) for ci, q in sample(conversations, per_category, s)}
    rng = random.Random(seed)
    pool: dict[str, list[tuple[int, int, Question]]] = {c: [] for c in QA_CATEGORIES}
    for ci, (_, _, questions, _) in enumerate(conversations):
        for qi, q in enumerate(questions):
            if (ci, q.text) not in drawn:
                pool[q.category].append((ci, qi, q))
    chosen = [item for c in QA_CATEGORIES for item in rng.sample(pool[c], min(per_category, len(pool[c])))]
    return [(ci, q) for ci, _, q in sorted(chosen, key=lambda x: (x[0], x[1]))]


class _Tally:
    def __init__(self) -> None:
        self.scores: dict[str, list[float]] = {c: [] for c in QA_CATEGORIES}
        self.unknown: dict[str, int] = dict.fromkeys(QA_CATEGORIES, 0)
        self.seconds: list[float] = []
        self.first_token: list[float] = []
        self.prompt_tokens: list[int] = []
        self.cited = self.cited_in_evidence = self.dated = self.answered = 0
        self.errors = 0

    def add(self, category: str, value: float, answer, seconds: float, evidence: set[int], dates: set[str]) -> None:
        self.scores[category].append(value)
        self.unknown[category] += not answer.known
        self.seconds.append(seconds)
        if answer.first_token_ms is not None:
            self.first_token.append(answer.first_token_ms / 1e3)
        self.prompt_tokens.append(answer.prompt_tokens)
        cited = [c["id"] for c in answer.citations]
        self.cited += len(cited)
        self.cited_in_evidence += sum(c in evidence for c in cited)
        if answer.known:
            self.answered += 1
            self.dated += normalize(answer.answer) in dates

    def table(self) -> dict:
        def mean(xs) -> float:
            return round(float(np.mean(xs)), 4) if len(xs) else 0.0

        answered = [v for c in ("1", "2", "3", "4") for v in self.scores[c]]
        return {
            "f1_1_4": mean(answered),
            "by_category": {
                c: {
                    ("not_mentioned" if c == "5" else "f1"): mean(self.scores[c]),
                    "questions": len(self.scores[c]),
                    "said_unknown": self.unknown[c],
                }
                for c in QA_CATEGORIES
            },
            "citation_precision": round(self.cited_in_evidence / self.cited, 4) if self.cited else None,
            "citations": self.cited,
            "date_answers": round(self.dated / self.answered, 4) if self.answered else 0.0,
            "s_per_question": mean(self.seconds),
            "first_token_s": mean(self.first_token),
            "prompt_tokens": mean(self.prompt_tokens),
            "errors": self.errors,
        }


def eval_qa(
    cfg: Config,
    data: Path,
    limit: int = 200,
    seed: int = 0,
    out_dir: Path | None = None,
    written_under: Path | None = None,
    unseen_by: int = 0,
    replies: Path | None = None,
) -> dict:
    """Answer a stratified sample of `limit` LoCoMo questions both ways; F1 per category and seconds each
    (`out_dir`: each answer in qa_answers.jsonl, the scores per category in qa.png).
    `written_under` (the --out folder of `eval extraction`): only the conversations it wrote, each question
    also answered from its written memory (`memory`), so with and without memory compare on the same questions.
    `unseen_by` N: only questions no seed below N draws (`sample`). `replies`: a file of the model's replies
    (`app.llm.replies`): the requests it keeps are answered from it, the new ones kept in it, so a change to the rules
    is measured on the same readings; the seconds then are not the model's."""
    _stemmer()  # before any work: a missing stemmer should not cost a run
    conversations = load(data, QA_CATEGORIES)
    if written_under is not None:
        conversations = [c for c in conversations if memory_path(written_under, c[0]).exists()]
        if not conversations:
            raise AppError(f"no memory written under {written_under}: run `python -m app eval extraction` first")
    methods = (*METHODS, MEMORY) if written_under is not None else METHODS
    per_category = max(1, -(-limit // len(QA_CATEGORIES)))
    chosen = sample(conversations, per_category, seed, unseen_by)
    if not chosen:
        raise MediaError(f"{data}: no question has evidence among its turns: nothing to ask")
    embedder = load_text_embedder(cfg)
    llm = load_llm(cfg, replies=replies)
    info = llm.backend.info()
    tallies = {m: _Tally() for m in methods}
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="locomo-qa-") as tmp:
            for ci in sorted({ci for ci, _ in chosen}):
                sample_id, turns, _, speakers = conversations[ci]
                path = Path(tmp) / f"{sample_id}.db"
                with (
                    contextlib.ExitStack() as stack,
                    Memory.open(path, Secret(b"locomo qa eval", "eval"), cfg.store, True) as mem,
                ):
                    people = {name: mem.people.add_person(name).id for name in speakers}
                    vectors = embedder([t.text for t in turns])
                    ids: dict[str, int] = {}
                    for session in sorted({t.session for t in turns}):
                        idx = [i for i, t in enumerate(turns) if t.session == session]
                        ids |= add_session(mem, sample_id, [turns[i] for i in idx], people, vectors[idx])
                    dates = {normalize(spoken_time(t.t)) for t in turns}  # the days its sessions happened on
                    now = datetime.fromtimestamp(turns[-1].t + TURN_S, timezone.utc)
                    answerer = Answerer(llm, mem, embedder, cfg)
                    written = (
                        stack.enter_context(open_written(cfg, written_under, sample_id)) if written_under else None
                    )
                    with_memory = Answerer(llm, written, embedder, cfg) if written is not None else None
                    for q in (q for c, q in chosen if c == ci):
                        row = {"conversation": sample_id, "category": q.category, "question": q.text, "gold": q.answer}
                        evidence = {ids[d] for d in q.evidence if d in ids}
                        wrong_dates = {d for d in dates if d not in normalize(q.answer)}
                        for method in methods:
                            started = time.perf_counter()
                            try:
                                use = with_memory if method == MEMORY else answerer
                                answer = use(q.text, now)  # type: ignore[misc]
                            except LLMError as e:  # counted as a wrong answer, and the run goes on
                                tallies[method].errors += 1
                                tallies[method].scores[q.category].append(0.0)
                                row[method] = {"error": str(e), "score": 0.0}
                                continue
                            seconds = time.perf_counter() - started
                            value = score(q.category, answer.answer, q.answer, answer.known)
                            tallies[method].add(q.category, value, answer, seconds, evidence, wrong_dates)
                            row[method] = {
                                "answer": answer.answer,
                                "known": answer.known,
                                "score": round(value, 4),
                                "cited": [c["id"] for c in answer.citations],
                                "candidates": answer.evidence,
                                "chosen": answer.chosen,
                                "read": answer.read,
                                "why_unknown": answer.why_unknown,
                                "evidence": sorted(evidence),
                            }
                        rows.append(row)
        served = llm.backend.info()  # with `replies`: how many came from the file
    finally:
        llm.close()  # which writes the new replies to `replies`
    result = {
        "model": info.get("model"),
        "backend": info.get("backend"),
        "questions": len(chosen),
        "per_category": per_category,
        "seed": seed,
        "unseen_by": unseen_by,
        "candidates": cfg.answer.candidates,
        "select": cfg.answer.select,
        "chosen": cfg.answer.chosen,
        "more": cfg.answer.more,
        "methods": list(methods),
        **{m: tallies[m].table() for m in methods},
    }
    if replies is not None:
        result["replies"] = {"file": str(replies), "kept": served["replies_kept"], "asked": served["replies_asked"]}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "qa_answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        result["plot"] = plot(result, out_dir / "qa.png")
    return result


def plot(r: dict, path: Path) -> str | None:
    """Each method's score per category (F1; category 5: the share answered "not mentioned") as bars."""
    groups = [f"{c} {NAMES[c]}" + ("\n(not mentioned)" if c == "5" else "") for c in QA_CATEGORIES] + ["F1 1-4"]
    key = {c: "not_mentioned" if c == "5" else "f1" for c in QA_CATEGORIES}
    series = {m: [r[m]["by_category"][c][key[c]] for c in QA_CATEGORIES] + [r[m]["f1_1_4"]] for m in r["methods"]}
    title = f"LoCoMo QA: {r['questions']} questions, {r['model']}"
    return grouped_bars(path, groups, series, "score (token F1; 5: share not mentioned)", title)


def render(r: dict) -> str:
    lines = [
        f"LoCoMo QA: {r['questions']} questions ({r['per_category']} per category, seed {r['seed']}"
        + (f", none drawn by seeds 0-{r['unseen_by'] - 1}" if r.get("unseen_by") else "")
        + "), "
        f"model {r['model']} ({r['backend']}), {r.get('select', '?')} chooses {r.get('chosen', '?')} of "
        f"{r.get('candidates', '?')} lines",
        f"{'':30s}" + "".join(f"{m:>10s}" for m in r.get("methods", METHODS)),
    ]
    methods = r.get("methods", METHODS)
    for c in QA_CATEGORIES:
        key = "not_mentioned" if c == "5" else "f1"
        label = f"{c} {NAMES[c]} ({key})"
        lines.append(f"{label:30s}" + "".join(f"{r[m]['by_category'][c][key]:10.3f}" for m in methods))
    lines.append(f"{'F1 over 1-4':30s}" + "".join(f"{r[m]['f1_1_4']:10.3f}" for m in methods))
    lines.append(
        f"{'citation precision':30s}" + "".join(f"{r[m].get('citation_precision') or 0:10.3f}" for m in methods)
    )
    lines.append(
        f"{'answers that are a session date':30s}" + "".join(f"{r[m].get('date_answers', 0):10.3f}" for m in methods)
    )
    lines.append(f"{'s per question':30s}" + "".join(f"{r[m]['s_per_question']:10.2f}" for m in methods))
    lines.append(f"{'first token (s)':30s}" + "".join(f"{r[m]['first_token_s']:10.2f}" for m in methods))
    lines.append(f"{'prompt tokens':30s}" + "".join(f"{r[m]['prompt_tokens']:10.0f}" for m in methods))
    if kept := r.get("replies"):
        lines.append(f"model replies: {kept['kept']} from {kept['file']} (no model seconds), {kept['asked']} asked")
    if r.get("plot"):
        lines.append(f"plot: {r['plot']}")
    return "\n".join(lines) + "\n"
