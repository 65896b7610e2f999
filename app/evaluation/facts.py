"""`eval facts`: the memory written for the demo, the companion scene and the memory scene against the atomic
facts a careful person would write down from them (`GOLD_FACTS`: who it is about, what, its kind and, for plans
and events, its date).

The scenes are recorded and their memory written exactly as `eval answers` does it (`answers.build`: the
Consolidator with the configured extractor and model). Every fact and relation written is then compared with
the gold facts:
- a written item matches a gold fact when it is about the same person, cites the gold fact's line and says the
  same thing (MiniLM cosine >= `THRESHOLD`, the threshold `eval extraction` reports), one to one, most similar
  first: a compound sentence ("John is David's brother and we grew up together in Boston") stands for one of
  the facts it holds, so recall and precision reward atomic facts;
- recall: the share of gold facts matched; precision: the share of written items that match one;
- kind: of the matched gold facts, the share whose best match has the gold kind (`KINDS` maps the store's
  kinds onto the gold ones); date: of the matched gold plans and events that have a date, the share whose
  match holds from that day (or month);
- summaries: the share of session summaries that name every person who spoke in the session.
"""

from __future__ import annotations

import json
import re
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from app.config import Config
from app.evaluation import facts_held_out, facts_locomo
from app.evaluation.answers import build, share
from app.evaluation.gold import SCENES, GoldFact
from app.facts import DISLIKES, LIKES, FactKind
from app.llm import load_llm
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory

THRESHOLD = 0.65
# the store's kinds (and the types of older stores' preferences) as the gold set names them: `FactKind`
KINDS = {t: FactKind.of_type(t) for t in (*FactKind, LIKES, DISLIKES)}


def _f(line: int, person: str, text: str, kind: str, date: str | None = None, scene: str = "demo") -> GoldFact:
    return GoldFact(scene, line, person, text, kind, date)


GOLD_FACTS: tuple[GoldFact, ...] = (
    # the demo, Thursday 14 May 2026
    _f(0, "Emily", "Emily works as a nurse", "attribute"),
    _f(0, "Emily", "Emily works at the city hospital", "attribute"),
    _f(1, "John", "John teaches history at the high school", "attribute"),
    _f(2, "John", "John is David's brother", "relation"),
    _f(2, "David", "David and John grew up together in Boston", "attribute"),
    _f(3, "Emily", "Emily loves playing tennis", "preference"),
    _f(3, "Emily", "Emily plays tennis every Saturday morning in the park", "habit"),
    _f(4, "Sarah", "Sarah is John's wife", "relation"),
    _f(4, "Sarah", "Sarah is a doctor", "attribute"),
    _f(4, "Sarah", "Sarah loves tennis", "preference"),
    _f(5, "David", "David is planning a trip to Paris for his birthday", "plan", "2026-05-22"),
    _f(6, "Emily", "Emily's favorite food is Italian pasta with fresh tomatoes", "preference"),
    _f(7, "John", "John has a meeting with the bank on Monday at ten o'clock", "plan", "2026-05-18"),
    _f(8, "David", "David is allergic to peanuts", "attribute"),
    _f(9, "Lucy", "Lucy is Emily's daughter", "relation"),
    _f(9, "Lucy", "Lucy starts school in September", "plan", "2026-09"),
    _f(10, "Maria", "Maria is John's new colleague", "relation"),
    _f(10, "Maria", "Maria moved here from Madrid", "event", "2026-04"),
    _f(11, "David", "David bought a new bicycle", "event"),
    _f(11, "David", "David rides his bicycle to work every day", "habit"),
    # the companion scene, Friday 15 May 2026
    _f(0, "David", "David came back from his trip", "event", "2026-05-14", scene="companion"),
    # the memory scene, Monday 1 June 2026
    _f(0, "Emily", "Emily loves playing tennis with her friends on the weekend", "preference", scene="scene"),
    _f(1, "Emily", "Emily is John's colleague", "relation", scene="scene"),
    _f(1, "Emily", "Emily works at the bank", "attribute", scene="scene"),
    _f(2, "John", "John prefers swimming in the lake near his house", "preference", scene="scene"),
    _f(3, "John", "John swims in the lake every morning before work", "habit", scene="scene"),
)


def written(memory) -> list[dict]:
    """Every fact and relation written (superseded ones too): whom it is about, text, kind, from when, lines."""
    items = [
        {
            "person": f["person"] or "",
            "text": f["value"],
            "kind": KINDS.get(f["kind"], f["kind"]),
            "valid_from": f["valid_from"],
            "sources": set(f["sources"]),
        }
        for f in memory.derived.facts_listed(history=True)
    ]
    items += [
        {
            "person": r["subject"],
            "text": f"{r['subject']} is {r['object']}'s {r['relation']}",
            "kind": FactKind.RELATION,
            "valid_from": r["valid_from"],
            "sources": set(r["sources"]),
        }
        for r in memory.derived.relations_listed()
    ]
    return items


def _on(date: str, t: float | None) -> bool:
    if t is None:
        return False
    day = datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d")
    return day.startswith(date)


def score(
    golds: list[GoldFact], ids: dict[tuple[str, int], int], items: list[dict], embedder
) -> tuple[list[dict], set[int]]:
    """Each gold fact with its best match among `items` (see the module's text), and the indexes of the items that
    match one."""
    similarity = np.full((len(golds), len(items)), -1.0)
    if items:
        g = embedder([x.text for x in golds])
        w = embedder([f"{x['person']}: {x['text']}" if x["person"] not in x["text"] else x["text"] for x in items])
        for i, gold in enumerate(golds):
            line = ids[(gold.scene, gold.line)]
            for j, item in enumerate(items):
                if item["person"].lower() == gold.person.lower() and line in item["sources"]:
                    similarity[i, j] = float(g[i] @ w[j])
    # one to one, most similar first: a compound sentence stands for one gold fact, not two
    pairs = sorted(((similarity[i, j], i, j) for i in range(len(golds)) for j in range(len(items))), reverse=True)
    match: dict[int, int] = {}
    taken: set[int] = set()
    for sim, i, j in pairs:
        if sim >= THRESHOLD and i not in match and j not in taken:
            match[i] = j
            taken.add(j)
    rows = []
    for i, gold in enumerate(golds):
        best = match.get(i, int(similarity[i].argmax()) if items and similarity[i].max() > -1.0 else None)
        best_sim = float(similarity[i, best]) if best is not None else -1.0
        hit = i in match
        item = items[best] if best is not None else None
        rows.append(
            {
                "gold": gold.text,
                "person": gold.person,
                "kind": gold.kind,
                "date": gold.date,
                "written": item["text"] if item else None,
                "written_kind": item["kind"] if item else None,
                "written_from": None
                if not item or item["valid_from"] is None
                else datetime.fromtimestamp(item["valid_from"], timezone.utc).isoformat(timespec="minutes"),
                "similarity": round(best_sim, 3) if item else None,
                "matched": hit,
                "kind_right": hit and item is not None and item["kind"] == gold.kind,
                "date_right": hit and gold.date is not None and item is not None and _on(gold.date, item["valid_from"]),
            }
        )
    return rows, taken


def tally(rows: list[dict], written: int, matching: int) -> dict:
    """Recall and precision, and kind and date accuracy over the matched gold facts."""
    matched = [r for r in rows if r["matched"]]
    dated = [r for r in matched if r["date"]]
    return {
        "gold": len(rows),
        "written": written,
        "recall": share(len(matched), len(rows)),
        "precision": share(matching, written),
        "kind_accuracy": share(sum(r["kind_right"] for r in matched), len(matched)),
        "date_accuracy": share(sum(r["date_right"] for r in dated), len(dated)),
        "dated_matched": len(dated),
    }


def summaries_naming_everyone(memory) -> list[dict]:
    """Each session summary with the people who spoke in its session and are not named in it."""
    rows = memory.con.execute(
        "SELECT m.text, (SELECT group_concat(DISTINCT p.name) FROM utterances u JOIN people p ON "
        "p.id = u.person_id WHERE u.session_id = m.session_id) FROM summaries m WHERE m.kind = 'session'"
    ).fetchall()
    return [
        {
            "summary": text,
            "missing": [n for n in (names or "").split(",") if n and not re.search(rf"\b{re.escape(n)}\b", text, re.I)],
        }
        for text, names in rows
    ]


def eval_facts(cfg: Config, out_dir: Path | None = None, held_out: bool = False, locomo: Path | None = None) -> dict:
    """Write the scenes' memory with the configured extractor and model, and score it against `GOLD_FACTS`
    (`held_out`: the held-out scenes against their facts, `facts_held_out`; `locomo`: two sessions of the LoCoMo
    file at that path against `facts_locomo`)."""
    if locomo is not None:
        which, scenes, gold_facts = "locomo", facts_locomo.scenes(locomo), facts_locomo.FACTS
    elif held_out:
        which, scenes, gold_facts = "held-out", facts_held_out.SCENES, facts_held_out.FACTS
    else:
        which, scenes, gold_facts = "gold", SCENES, GOLD_FACTS

    embedder = load_text_embedder(cfg)
    llm = load_llm(cfg)
    rows: list[dict] = []
    summaries: list[dict] = []
    written_n = matching = 0
    unmatched: list[str] = []  # what was written that no gold fact is: precision's misses, to be read one by one
    try:
        with tempfile.TemporaryDirectory(prefix="eval-facts-") as tmp:
            for name, (path, ids, _) in build(cfg, Path(tmp), embedder, llm, scenes).items():
                with Memory.open(path, Secret(b"eval answers", "eval"), cfg.store) as memory:
                    items = written(memory)
                    golds = [g for g in gold_facts if scenes[g.scene].memory == name]
                    mine, hits = score(golds, ids, items, embedder)
                    rows += mine
                    written_n, matching = written_n + len(items), matching + len(hits)
                    unmatched += [f"{x['person']}: {x['text']}" for j, x in enumerate(items) if j not in hits]
                    summaries += summaries_naming_everyone(memory)
    finally:
        llm.close()
    result = {
        "set": which,
        "model": cfg.llm.model,
        "extractor": cfg.memory.extractor,
        "threshold": THRESHOLD,
        **tally(rows, written_n, matching),
        "summaries_naming_everyone": share(sum(not x["missing"] for x in summaries), len(summaries)),
        "summaries": summaries,
        "rows": rows,
        "unmatched": unmatched,
    }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        name = {"gold": "facts.json", "held-out": "facts_held_out.json", "locomo": "facts_locomo.json"}[which]
        (out_dir / name).write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return result


def render(r: dict) -> str:
    lines = [
        f"eval facts ({r['set']}): {r['gold']} gold facts, {r['written']} written ({r['extractor']}, "
        f"model {r['model']}; a match: same person, cites the line, cosine >= {r['threshold']})",
        f"  recall {r['recall']:.1%}  precision {r['precision']:.1%}  kind right {r['kind_accuracy']:.1%}  "
        f"date right {r['date_accuracy']:.1%} (of {r['dated_matched']} dated plans and events matched)",
        f"  session summaries naming everyone who spoke: {r['summaries_naming_everyone']:.1%}",
    ]
    for row in r["rows"]:
        mark = "ok " if row["matched"] else "---"
        extra = (
            ""
            if not row["matched"]
            else f" [{row['written_kind']}" + (f", from {row['written_from']}]" if row["date"] else "]")
        )
        lines.append(f"  {mark} {row['gold']!r} ({row['kind']}) <- {row['written']!r}{extra}")
    lines += [f"  +   written, no gold fact: {text!r}" for text in r["unmatched"]]
    for s in r["summaries"]:
        lacking = f" (without {', '.join(s['missing'])})" if s["missing"] else ""
        lines.append(f"  summary{lacking}: {s['summary']!r}")
    return "\n".join(lines) + "\n"
