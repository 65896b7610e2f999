"""Commands on what the memory holds: ask, sessions, consent, forget, export, purge, rekey."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from datetime import datetime
from pathlib import Path

from app import views
from app.commands import db_path, open_memory, parse_time, print_json, when
from app.config import Config
from app.errors import ConfigError, StoreError, StoreKeyError

CONSENT = ("given", "refused", "unknown")


def register(add) -> None:
    p = add("ask", "find what was said, by hybrid dense + BM25 search", cmd_ask)
    p.add_argument("question")
    p.add_argument("-k", "--top", type=int, default=None, help="results to show (default recall.top_k)")
    p.add_argument(
        "--as", dest="person", help="who asks: whom I and my mean in the question (default: companion.wearer)"
    )
    p.add_argument("--at", help="when the question is asked (ISO 8601; default now): 'last Tuesday' counts from it")
    p.add_argument("--context", action="store_true", help="print the dialog context (profile + retrieved, cited)")
    p.add_argument("--answer", action="store_true", help="answer with the local LLM, citing what was said")
    p.add_argument(
        "--explain", action="store_true", help="print how the question is read: its kind, asker, people, time, topic"
    )
    p.add_argument("--json", action="store_true")
    p = add("sessions", "list the conversation sessions with their people", cmd_sessions)
    p.add_argument("--json", action="store_true")
    p = add("consent", "record whether a person consents to being remembered", cmd_consent)
    p.add_argument("name")
    p.add_argument("state", choices=CONSENT)
    p = add("forget", "delete a person, a session or a time span, and everything derived from it", cmd_forget)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--person", metavar="NAME")
    what.add_argument("--session", type=int, metavar="ID")
    what.add_argument("--between", nargs=2, metavar=("T1", "T2"), help="ISO 8601 times or epoch seconds")
    p.add_argument("--anonymize", action="store_true", help="with --person: keep their words, without them")
    p.add_argument("--json", action="store_true")
    p = add("export", "write the memory (or one person's) as JSON + Markdown with its raw media", cmd_export)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--person", metavar="NAME")
    p.add_argument("--json", action="store_true")
    p = add("purge", "delete the whole memory: database, media, everything", cmd_purge)
    p.add_argument("--yes", action="store_true", help="really delete everything")
    p = add("rekey", "change the memory key (database and media)", cmd_rekey)
    new = p.add_mutually_exclusive_group()
    new.add_argument("--new-key-file", type=Path, help="file holding the new key")
    new.add_argument("--generate", type=Path, metavar="PATH", help="write a new random key to PATH and use it")
    new.add_argument("--new-key-prompt", action="store_true", help="type the new key")


def _asked_at(text: str | None) -> datetime:
    if text is None:
        return datetime.now().astimezone()
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"--at {text!r}: expected ISO 8601, e.g. 2026-05-14T18:00") from None
    return at if at.tzinfo else at.astimezone()


def cmd_ask(args: argparse.Namespace, cfg: Config) -> int:
    from app.recorder.perception import load_text_embedder

    now = _asked_at(args.at)
    embedder = load_text_embedder(cfg)
    with open_memory(args, cfg) as memory:
        if args.person:
            views.person_id(memory, args.person)
        if args.explain:
            from app.ask.question import parse

            read = parse(args.question, now, args.person or cfg.companion.wearer or None, memory).explain()
            if args.json and not args.answer:
                print_json(read)
                return 0
            for key, value in read.items():
                sys.stderr.write(f"{key:>12}: {value}\n")
        if args.answer:
            return _answer(args, cfg, memory, embedder, now)
        out, found = views.ask(memory, embedder, cfg, args.question, now, args.top, args.person, args.context)
    rows, results, window, filtered = out["results"], found.evidence, found.window, out["time_filter"]
    if args.json:
        print_json(out)
        return 0
    if filtered:
        sys.stdout.write(f'between {filtered[0]} and {filtered[1]} ("{window.expression}")\n')
    elif window is not None:
        sys.stdout.write(f"nothing said {window.expression}; from any time:\n")
    if not rows:
        sys.stdout.write("nothing found\n")
    for i, (r, e) in enumerate(zip(rows, results, strict=True), 1):
        sys.stdout.write(
            f"{i}. [{r['score']:.2f}] {r['person'] or 'someone'}, {when(e.t_start, 'seconds')} "
            f"(session {r['session']}): {r['text']}\n"
        )
    if "context" in out:
        ctx = out["context"]
        sys.stdout.write(f"\n--- profile ({ctx['profile_tokens']} tokens)\n{ctx['profile']}\n")
        sys.stdout.write(f"--- retrieved ({ctx['retrieved_tokens']} tokens)\n{ctx['retrieved']}\n")
    return 0


def _answer(args: argparse.Namespace, cfg: Config, memory, embedder, now: datetime) -> int:
    """ask --answer: the answer streamed to the terminal with its citations, or one JSON object."""
    from app.ask.answer import Answerer
    from app.llm import load_llm

    llm = load_llm(cfg)
    try:
        stream = None if args.json else (lambda text: (sys.stdout.write(text), sys.stdout.flush()))
        result = Answerer(llm, memory, embedder, cfg)(args.question, now, args.person, stream)
    finally:
        llm.close()
    if args.json:
        print_json({"query": args.question, "at": now.isoformat(), **result.as_dict(when)})
        return 0
    sys.stdout.write("\n")
    for c in result.citations:
        sys.stdout.write(f"  [{c['id']}] {c['person'] or 'someone'}, {when(c['t_start'], 'seconds')}: {c['text']}\n")
    return 0


def cmd_sessions(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        out = views.sessions(memory)
    rows = out["sessions"]
    if args.json:
        print_json(out)
    else:
        for r in rows:
            sys.stdout.write(
                f"{r['id']:4d}  {r['t_start'][:19].replace('T', ' ')} – {r['t_end'][11:19]}  "
                f"{r['utterances']:3d} utterances  {', '.join(r['people']) or 'nobody known'}\n"
            )
    return 0


def cmd_consent(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        memory.people.set_consent(args.name, args.state)
    sys.stdout.write(f"{args.name}: consent {args.state}\n")
    return 0


def cmd_forget(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        embedder = None
        if args.person is not None:
            from app.recorder.perception import load_text_embedder

            embedder = load_text_embedder(cfg)
        between = (parse_time(args.between[0]), parse_time(args.between[1])) if args.between else None
        out = views.forget(memory, embedder, args.person, args.session, between, args.anonymize)
    if args.json:
        print_json(out)
    else:
        parts = [f"{table.replace('_', ' ')} {n}" for table, n in out["deleted"].items() if n]
        sys.stdout.write(f"deleted: {', '.join(parts) or 'nothing'}\n")
        if out["redacted"]:
            sys.stdout.write(f"redacted the name in {out['redacted']} other utterances\n")
        if out["anonymized"]:
            sys.stdout.write(f"kept {out['anonymized']} utterances without their speaker\n")
    return 0


def cmd_export(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        counts = views.export(memory, args.out, args.person)
    if args.json:
        print_json(counts)
    else:
        sys.stdout.write(
            f"wrote {args.out}/memory.json, transcript.md and {counts['media']} media files "
            f"({counts['utterances']} utterances); the export is NOT encrypted\n"
        )
    return 0


def cmd_purge(args: argparse.Namespace, cfg: Config) -> int:
    from app.store.lifecycle import purge

    path = db_path(args)
    if not args.yes:
        raise StoreError(f"purge deletes the whole memory at {path.parent}; run again with --yes")
    gone = purge(path)
    sys.stdout.write(f"deleted {len(gone)} files and folders under {path.parent}\n")
    return 0


def _new_secret(args: argparse.Namespace):
    from app.store.keys import Secret, create_key_file, read_key_file

    if args.generate is not None:
        if args.generate.exists():
            raise StoreKeyError(f"{args.generate} exists; --generate writes a new key file")
        return create_key_file(args.generate)
    if args.new_key_file is not None:
        return read_key_file(args.new_key_file)
    if os.environ.get("APP_NEW_KEY"):
        return Secret(os.environ["APP_NEW_KEY"].encode(), "APP_NEW_KEY")
    if args.new_key_prompt:
        first, again = getpass.getpass("new memory key: "), getpass.getpass("again: ")
        if not first or first != again:
            raise StoreKeyError("the new keys were empty or did not match")
        return Secret(first.encode(), "prompt")
    raise StoreKeyError("no new key: use --new-key-file, --generate PATH, --new-key-prompt or APP_NEW_KEY")


def cmd_rekey(args: argparse.Namespace, cfg: Config) -> int:
    from app.store.lifecycle import rekey

    with open_memory(args, cfg) as memory:
        new = _new_secret(args)
        count = rekey(memory, new, cfg.store)
    sys.stdout.write(f"re-keyed the database and {count} media files; from now on use the key from {new.source}\n")
    return 0
