"""Command line: `python -m app COMMAND`; `main(argv) -> int` so tests can call it directly."""

from __future__ import annotations

import argparse
import faulthandler
import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from app import __version__
from app.commands import consolidate, evaluate, memory, people, record, serve, system
from app.config import Config, load_config
from app.errors import AppError

Command = Callable[[argparse.Namespace, Config], int]


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
    parser = argparse.ArgumentParser(
        prog="python -m app", description="Lifelong memory companion for wearables.", allow_abbrev=False
    )
    parser.add_argument("--version", action="version", version=f"lifemem {__version__}")
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str, handler: Command) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_, allow_abbrev=False)
        _common(p, suppress=True)
        p.set_defaults(handler=handler)
        return p

    for module in (record, serve, memory, consolidate, people, system, evaluate):
        module.register(add)
    return parser


def _setup_logging(verbose: int) -> None:
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    fmt = "%(levelname)s: %(message)s" if verbose <= 1 else "%(asctime)s %(levelname)s %(name)s: %(message)s"
    handler.setFormatter(logging.Formatter(fmt))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def _config(args: argparse.Namespace) -> Config:
    overrides = list(args.overrides)
    if args.device:
        overrides.append(f"device.kind={args.device}")
    return load_config(args.config, overrides=overrides)


DEFAULT_JOB = ("run", "--source", "camera", "--serve")  # a wearable's job: record camera + microphone, serve


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    if args.command is None:  # `python -m app --device jetson`: the default job for a wearable
        args = build_parser().parse_args([*argv, *DEFAULT_JOB])
    _setup_logging(args.verbose)
    if not faulthandler.is_enabled():  # a fault in any native library leaves its Python stack in the log
        faulthandler.enable()
    # SIGTERM is a Ctrl-C: the runtime catches both while it runs (app/runtime.py), and before it, both interrupt
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler) if main_thread else None
    try:
        return args.handler(args, _config(args))
    except AppError as e:
        sys.stderr.write(f"error: {e}" + (f" (see `python -m app {e.see}`)" if e.see else "") + "\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def entry() -> None:
    sys.exit(main(sys.argv[1:]))
