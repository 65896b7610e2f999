"""CLI commands, one module per area; each module's `register(add)` declares its subcommands.

Each command imports its machinery (the store, models, recorder, service, evaluations, benches) inside its
function, so `python -m app --help` loads none of it and a light command (facts, people, sessions) only the
store."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from app.config import Config
from app.errors import StoreError
from app.paths import DB_NAME, data_dir
from app.views import when

__all__ = ["db_path", "open_memory", "parse_time", "print_json", "tell", "when"]


def tell(line: str) -> None:
    """One line for the user on stderr, beside the command's output: what the program does on its own (a stop
    writing memory, a missing camera)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def db_path(args: argparse.Namespace) -> Path:
    return data_dir(args.data_dir) / DB_NAME


def open_memory(args: argparse.Namespace, cfg: Config, create: bool = False):
    """The memory for this invocation: its key from the usual sources, created only by a recorder."""
    from app.store.keys import resolve_secret
    from app.store.memory import Memory

    path = db_path(args)
    if not create and not path.exists():
        raise StoreError(f"no memory at {path} yet: record something first (python -m app run --source ...)")
    secret = resolve_secret(args.key_file, args.key_prompt, create=create and not path.exists())
    return Memory.open(path, secret, cfg.store, create=create)


def parse_time(text: str) -> float:
    """An ISO 8601 date or date-time (local time unless it has an offset), or seconds since the epoch."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        raise StoreError(f"{text!r} is not a time: use ISO 8601 (2026-05-14T09:30) or epoch seconds") from None
    return (stamp if stamp.tzinfo else stamp.astimezone()).timestamp()


def print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
