"""`eval kinds`: is a question's kind parsed as the asker meant it? Every question of the blind set in
app/evaluation/question_kinds.py (its tuning half, or with `--held-out` the half never read) is parsed as `ask`
parses it, over an encrypted memory that knows the set's people and their relations and nothing they said, and the
parsed kind is counted against the kind it was written as. No model runs: the kind is decided by the parse alone
(app/ask/question.py), so this is the part of the answer path that reads new wording.
"""

from __future__ import annotations

import importlib
import tempfile
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

from app.ask.question import Kind, parse
from app.config import Config
from app.evaluation.answers import share
from app.store.keys import Secret
from app.store.memory import Memory

SET = "app.evaluation.question_kinds"
ASKED_AT = "2026-06-15T09:00:00+00:00"  # a Monday; no question of the set depends on the day


def eval_kinds(cfg: Config, held_out: bool = False) -> dict:
    """The set's tuning half (or its held-out half) parsed; right per kind and what each wrong one became."""
    data = importlib.import_module(SET)
    questions = data.HELD_OUT if held_out else data.TUNING
    now = datetime.fromisoformat(ASKED_AT)
    rows = []
    with (
        tempfile.TemporaryDirectory(prefix="eval-kinds-") as tmp,
        Memory.open(Path(tmp) / "kinds.db", Secret(b"eval kinds", "eval"), cfg.store, create=True) as memory,
    ):
        for name in (data.WEARER, *data.PEOPLE):
            memory.people.add_person(name, now.timestamp())
        memory.people.set_owner(data.WEARER)
        ids = memory.people.person_ids()
        for subject, relation, of in data.RELATIONS:
            memory.derived.add_relation(ids[subject], relation, ids[of], [], now.timestamp())
        for text, kind in questions:
            parsed = parse(text, now, None, memory).kind
            ruled = parse(text, now, None, memory, examples=False).kind
            right = {"right": parsed == Kind(kind), "rules_right": ruled == Kind(kind)}
            rows.append({"question": text, "kind": kind, "parsed": str(parsed), **right})
    result = tally(rows)
    result["set"] = "held-out" if held_out else "tuning"
    result["rows"] = [] if held_out else rows  # the held-out half stays blind: its tally only
    return result


def tally(rows: list[dict]) -> dict:
    kinds: dict[str, dict] = defaultdict(lambda: {"questions": 0, "right": 0, "rules_right": 0, "parsed_as": Counter()})
    for r in rows:
        k = kinds[r["kind"]]
        k["questions"] += 1
        k["right"] += r["right"]
        k["rules_right"] += r["rules_right"]
        if not r["right"]:
            k["parsed_as"][r["parsed"]] += 1
    right, ruled = sum(r["right"] for r in rows), sum(r["rules_right"] for r in rows)
    return {
        "questions": len(rows),
        "right": right,
        "accuracy": share(right, len(rows)),
        "rules_right": ruled,  # the rules alone, without the examples' classifier
        "rules_accuracy": share(ruled, len(rows)),
        "kinds": {kind: {**k, "parsed_as": dict(k["parsed_as"].most_common())} for kind, k in sorted(kinds.items())},
    }


def render(result: dict) -> str:
    lines = [
        f"eval kinds: {result['questions']} {result['set']} questions, kind parsed right {result['right']} "
        f"({result['accuracy']:.1%}); the rules alone {result['rules_right']} ({result['rules_accuracy']:.1%})",
        "  kind            right   rules   parsed instead",
    ]
    for kind, k in result["kinds"].items():
        instead = ", ".join(f"{p} {n}" for p, n in k["parsed_as"].items())
        lines.append(
            f"  {kind:<14} {k['right']:3d}/{k['questions']:<3d} {k['rules_right']:3d}/{k['questions']:<3d}  {instead}"
        )
    lines += [f"  BAD [{r['kind']}/{r['parsed']}] {r['question']!r}" for r in result["rows"] if not r["right"]]
    return "\n".join(lines) + "\n"
