"""Command line: `python -m app run|ask|people|doctor|bench`; `main(argv) -> int` for tests."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from app import __version__
from app.config import Config, load_config
from app.errors import AppError
from app.paths import DB_NAME, data_dir

_LOGGER = logging.getLogger("app")


def _common(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """Options accepted before or after the command (defaults only at the top level)."""
    d = (lambda v: argparse.SUPPRESS) if suppress else (lambda v: v)
    parser.add_argument("--config", type=Path, default=d(None), help="config file (default: config.yaml)")
    parser.add_argument(
        "--set",
        action="append",
        dest="overrides",
        default=d([]),
        metavar="SECTION.FIELD=V",
        help="override one setting (repeatable)",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "jetson"),
        default=d(None),
        help="where models run (falls back to the CPU with a warning)",
    )
    parser.add_argument("--data-dir", default=d(None), help="data folder (default: $APP_DATA_DIR or per-user)")
    parser.add_argument("--key-file", type=Path, default=d(None), help="file holding the memory key")
    parser.add_argument("--key-prompt", action="store_true", default=d(False), help="type the memory key")
    parser.add_argument("-v", "--verbose", action="count", default=d(0), help="-v info, -vv debug (transcripts)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description="Lifelong memory companion for wearables.")
    parser.add_argument("--version", action="version", version=f"lifemem {__version__}")
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        _common(p, suppress=True)
        return p

    p = add("run", "record from a source into the encrypted memory")
    p.add_argument("--source", required=True, help="mic, camera (with the mic), demo, or a media file")
    p.add_argument("--realtime", action="store_true", help="replay a file at real time")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p = add("ask", "find what was said, by hybrid dense + BM25 search")
    p.add_argument("question")
    p.add_argument("-k", "--top", type=int, default=None, help="results to show (default recall.top_k)")
    p.add_argument("--json", action="store_true")
    p = add("people", "list the people the memory knows")
    p.add_argument("--json", action="store_true")
    p = add("doctor", "check models, runtimes, devices and the database")
    p.add_argument("--json", action="store_true")
    p = add("config", "print the settings in effect as YAML")
    p.add_argument("--defaults", action="store_true", help="print the built-in defaults (the shipped config.yaml)")
    p = add("bench", "measure speed")
    p.add_argument("what", choices=("pipeline",))
    p.add_argument("--json", action="store_true")
    return parser


def _setup_logging(verbose: int) -> None:
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter(
            "%(levelname)s: %(message)s" if verbose <= 1 else "%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def _config(args: argparse.Namespace) -> Config:
    overrides = list(args.overrides)
    if args.device:
        overrides.append(f"device.kind={args.device}")
    return load_config(args.config, overrides=overrides)


def db_path(args: argparse.Namespace) -> Path:
    return data_dir(args.data_dir) / DB_NAME


def open_memory(args: argparse.Namespace, cfg: Config, create: bool = False):
    from app.store.keys import resolve_secret
    from app.store.memory import Memory

    path = db_path(args)
    if not create and not path.exists():
        from app.errors import StoreError

        raise StoreError(f"no memory at {path} yet: record something first (python -m app run --source ...)")
    secret = resolve_secret(args.key_file, args.key_prompt, create=create and not path.exists())
    return Memory.open(path, secret, cfg.store, create=create)


def when(epoch_s: float, timespec: str = "milliseconds") -> str:
    """ISO 8601 in local time with its UTC offset."""
    return dt.datetime.fromtimestamp(epoch_s).astimezone().isoformat(timespec=timespec)


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def cmd_run(args: argparse.Namespace, cfg: Config) -> int:
    from tqdm import tqdm

    from app.perception import load_perception
    from app.pipeline import Recorder
    from app.sources import open_source

    source = open_source(args.source, cfg)
    source.check()  # a missing device fails here, before a key or a database is made
    if args.realtime and hasattr(source, "realtime"):
        source.realtime = True
    models = load_perception(cfg, with_faces=source.has_video)
    with open_memory(args, cfg, create=True) as memory:
        bar = tqdm(
            total=round(source.duration_s or 0, 1) or None,
            unit="s",
            desc=source.name,
            disable=None,
            leave=False,
            file=sys.stderr,
        )
        recorder = Recorder(cfg, memory, models, source, on_progress=lambda s: bar.update(round(s, 3)))

        async def go():
            loop = asyncio.get_running_loop()
            try:
                loop.add_signal_handler(signal.SIGINT, source.stop)
                loop.add_signal_handler(signal.SIGTERM, source.stop)
            except (NotImplementedError, RuntimeError):  # not the main thread (tests) or no signals
                pass
            return await recorder.run()

        summary = asyncio.run(go())
        bar.close()
    out = summary.as_dict()
    if args.json:
        _print_json(out)
    else:
        lines = [
            f"source            {out['source']}",
            f"duration          {out['duration_s']:.1f} s (speech {out['speech_s']:.1f} s)",
            f"utterances        {out['utterances']}",
            f"people            {out['people']} ({out['new_people']} new)",
            f"wall time         {out['wall_s']:.1f} s, real-time factor {out['real_time_factor']:.2f}",
        ]
        if out["skipped"]:
            lines.append(f"skipped           {out['skipped']} segments after failures (see the log)")
        lines += [f"error             {e}" for e in out["errors"]]
        sys.stdout.write("\n".join(lines) + "\n")
    return 4 if summary.errors else 0


def cmd_ask(args: argparse.Namespace, cfg: Config) -> int:
    from app.perception import load_text_embedder
    from app.recall import search

    embedder = load_text_embedder(cfg)
    with open_memory(args, cfg) as memory:
        results = search(memory, embedder, args.question, cfg.recall, args.top)
    rows = [
        {
            "text": r.text,
            "person": r.person,
            "t_start": when(r.t_start),
            "t_end": when(r.t_end),
            "session": r.session,
            "score": r.score,
        }
        for r in results
    ]
    if args.json:
        _print_json({"query": args.question, "results": rows})
        return 0
    if not rows:
        sys.stdout.write("nothing found\n")
    for i, (r, e) in enumerate(zip(rows, results, strict=True), 1):
        sys.stdout.write(
            f"{i}. [{r['score']:.2f}] {r['person'] or 'someone'}, {when(e.t_start, 'seconds')} "
            f"(session {r['session']}): {r['text']}\n"
        )
    return 0


def cmd_people(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        people = memory.people()
    if args.json:
        _print_json({"people": [{"id": p.id, "name": p.name, "utterances": p.utterances} for p in people]})
    else:
        for p in people:
            sys.stdout.write(f"{p.id:4d}  {p.name:20s} {p.utterances} utterances\n")
    return 0


def cmd_doctor(args: argparse.Namespace, cfg: Config) -> int:
    from app.doctor import diagnose, render

    report = diagnose(cfg, db_path(args), args)
    if args.json:
        _print_json(report)
    else:
        sys.stdout.write(render(report))
    return 0 if report["ok"] else 3


def cmd_bench(args: argparse.Namespace, cfg: Config) -> int:
    from app.bench import bench_pipeline, render

    result = bench_pipeline(cfg)
    _print_json(result) if args.json else sys.stdout.write(render(result))
    return 0


def cmd_config(args: argparse.Namespace, cfg: Config) -> int:
    from app.config import render_yaml

    sys.stdout.write(render_yaml(None if args.defaults else cfg))
    return 0


COMMANDS = {
    "config": cmd_config,
    "run": cmd_run,
    "ask": cmd_ask,
    "people": cmd_people,
    "doctor": cmd_doctor,
    "bench": cmd_bench,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _setup_logging(args.verbose)
    try:
        cfg = _config(args)
        return COMMANDS[args.command](args, cfg)
    except AppError as e:
        sys.stderr.write(f"error: {e}\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130


def entry() -> None:
    sys.exit(main(sys.argv[1:]))
