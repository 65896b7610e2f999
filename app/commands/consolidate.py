"""`consolidate` (write memory from the queued sessions with the LLM) and `facts` (what is known, with validity
and provenance)."""

from __future__ import annotations

import argparse
import sys

from app import views
from app.commands import open_memory, print_json, when
from app.config import Config


def register(add) -> None:
    p = add("consolidate", "write facts, relations and summaries from recorded sessions with the LLM", cmd_consolidate)
    p.add_argument("--json", action="store_true", help="print what was done as one JSON object")
    p.add_argument("--limit", type=int, help="run at most this many jobs")
    p.add_argument("--retry", action="store_true", help="try again the jobs set aside after failing")
    p = add("facts", "what the memory knows about people, with validity and provenance", cmd_facts)
    p.add_argument("--person", help="only this person")
    p.add_argument("--history", action="store_true", help="superseded facts too")
    p.add_argument("--json", action="store_true")


def cmd_consolidate(args: argparse.Namespace, cfg: Config) -> int:
    from tqdm import tqdm

    from app.consolidation.consolidator import Consolidator
    from app.llm import load_llm
    from app.recorder.perception import load_text_embedder

    with open_memory(args, cfg) as memory:
        if args.retry:
            memory.writing.retry_set_aside()
        queued = memory.writing.enqueue_backlog()
        pending = memory.writing.queue_state(cfg.memory.attempts)["pending"]
        embedder = load_text_embedder(cfg)
        llm = load_llm(cfg)
        bar = tqdm(total=pending, unit="job", desc="consolidate", disable=None, leave=False, file=sys.stderr)
        try:
            report = Consolidator(memory, llm, embedder, cfg).run(
                progress=lambda job, left: (bar.update(1), bar.set_postfix_str(f"{job.kind} {job.ref}")),
                limit=args.limit,
            )
        finally:
            bar.close()
            llm.close()
        state = memory.writing.queue_state(cfg.memory.attempts)
    out = report.as_dict() | {"queued": queued, "left": state["pending"], "set_aside": state["failed"]}
    if args.json:
        print_json(out)
        return 0
    a = report.actions
    sys.stdout.write(
        f"{report.jobs} jobs ({report.sessions} sessions, {report.lines} lines) in {report.seconds:.0f} s: "
        f"{report.items} items ({a['add']} added, {a['update']} updated, {a['supersede']} superseding, "
        f"{a['noop']} already known), {report.dropped} dropped as unsupported, {report.relations} new relations, "
        f"{report.summaries} summaries; {report.completion_tokens} tokens generated\n"
    )
    if state["pending"] or state["failed"]:
        sys.stdout.write(f"{state['pending']} jobs left, {state['failed']} set aside after failing (--retry)\n")
    return 0


def _day(t: float | None) -> str:
    return when(t, "seconds")[:10] if t else "…"


def cmd_facts(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        out = views.facts(memory, args.person, args.history)
    facts, relations = out["facts"], out["relations"]
    if args.json:
        print_json(out)
        return 0
    if not facts and not relations:
        sys.stdout.write("no facts yet (python -m app consolidate writes them from recorded sessions)\n")
    for f in facts:
        span = f"{_day(f['valid_from'])} – {_day(f['valid_to'])}" if f["valid_to"] or f["valid_from"] else "now"
        state = " (superseded)" if f["valid_to"] else " (faded)" if f["faded"] else ""
        sources = ",".join(map(str, f["sources"]))
        sys.stdout.write(
            f"[fact {f['id']}] {f['person']}: {f['value']} — {f['kind']}/{f['key']}, valid {span}{state}, "
            f"said {f['seen']}×, from utterances {sources}\n"
        )
    for r in relations:
        ended = f", until {_day(r['valid_to'])}" if r["valid_to"] else ""
        sources = ",".join(map(str, r["sources"]))
        sys.stdout.write(
            f"[relation {r['id']}] {r['subject']} — {r['relation']} — {r['object']}{ended}, from utterances {sources}\n"
        )
    return 0
