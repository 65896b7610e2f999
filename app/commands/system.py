"""`doctor`, `config`, `bench`: the state of the installation and its speed."""

from __future__ import annotations

import argparse
import sys

from app.commands import db_path, print_json
from app.config import Config, render_yaml
from app.errors import ConfigError


def register(add) -> None:
    p = add("doctor", "check models, runtimes, devices and the database", cmd_doctor)
    p.add_argument("--json", action="store_true")
    p = add("config", "print the settings in effect as YAML", cmd_config)
    p.add_argument("--defaults", action="store_true", help="print the built-in defaults (the shipped config.yaml)")
    p = add(
        "bench",
        "measure speed: the recorder's stages and footprint, identity polls, recall, the store at scale, the LLM",
        cmd_bench,
    )
    p.add_argument(
        "what",
        choices=("pipeline", "identity", "recall", "store", "durability", "llm", "api", "fuzz", "companion", "soak"),
    )
    p.add_argument(
        "--n", type=int, default=100_000, help="store, recall: utterances to insert (10k/100k/1M checkpoints)"
    )
    p.add_argument("--kills", type=int, default=100, help="durability: how many times to kill -9 the writer")
    p.add_argument(
        "--consolidation", action="store_true", help="durability: kill -9 `consolidate` (the LLM) instead of a writer"
    )
    p.add_argument("--beside-llm", action="store_true", help="pipeline: replay the demo again while the LLM generates")
    p.add_argument("--no-server", action="store_true", help="llm: only in process, not through the local server")
    p.add_argument("--seconds", type=float, default=60.0, help="api, fuzz: how long the load runs")
    p.add_argument("--messages", type=int, default=20000, help="fuzz: most messages to send")
    p.add_argument("--seed", type=int, default=1, help="fuzz: the random generator's seed")
    p.add_argument("--clients", type=int, default=20, help="api: concurrent clients")
    p.add_argument("--rate", type=float, default=0.0, help="api: requests a second per client (0: as fast as it can)")
    p.add_argument("--questions", type=int, default=4, help="companion: questions answered (up to 4)")
    p.add_argument("--interruptions", type=int, default=3, help="companion: answers talked over (up to 3)")
    p.add_argument("--passages", type=int, default=1, help="companion: passages read aloud alone (echo)")
    p.add_argument("--hours", type=float, default=6.0, help="soak: hours of looped real recordings to replay")
    p.add_argument("--idle", type=float, default=30.0, help="soak: seconds of silence at real time (0: skip)")
    p.add_argument(
        "--conversational", action="store_true", help="soak: loop simulated conversations (real turn-taking)"
    )
    p.add_argument("--json", action="store_true")


def cmd_doctor(args: argparse.Namespace, cfg: Config) -> int:
    from app.doctor import diagnose, render

    report = diagnose(cfg, db_path(args), args)
    if args.json:
        print_json(report)
    else:
        sys.stdout.write(render(report))
    return 0 if report["ok"] else 3


def cmd_config(args: argparse.Namespace, cfg: Config) -> int:
    sys.stdout.write(render_yaml(None if args.defaults else cfg))
    return 0


def cmd_bench(args: argparse.Namespace, cfg: Config) -> int:
    if args.what == "store":
        from app.bench.store import bench_store, render

        result = bench_store(cfg, args.n)
    elif args.what == "recall":
        from app.bench.recall import bench_recall, render

        result = bench_recall(cfg, args.n)
    elif args.what == "identity":
        from app.bench.identity import bench_identity, render

        result = bench_identity(cfg)
    elif args.what == "durability":
        from app.bench.durability import bench_durability, consolidation_kill_loop, render

        result = consolidation_kill_loop(cfg, args.kills) if args.consolidation else bench_durability(args.kills)
    elif args.what == "api":
        from app.bench.api import bench_api, render

        result = bench_api(cfg, args.seconds, args.clients, args.rate)
    elif args.what == "fuzz":
        from app.bench.fuzz import bench_fuzz, render

        result = bench_fuzz(cfg, args.seconds, args.messages, args.seed)
    elif args.what == "companion":
        from app.bench.companion import bench_companion, render

        result = bench_companion(cfg, args.questions, args.interruptions, args.passages)
    elif args.what == "soak":
        from app.bench.soak import bench_soak, render

        if args.hours <= 0 or args.idle < 0:
            raise ConfigError("--hours takes a positive number and --idle seconds (0: skip)")
        result = bench_soak(cfg, args.hours, args.idle, conversational=args.conversational)
    elif args.what == "llm":
        from app.bench.llm import bench_llm, render

        result = bench_llm(cfg, server=not args.no_server)
    else:
        from app.bench.pipeline import bench_pipeline, render

        result = bench_pipeline(cfg, args.beside_llm)
    print_json(result) if args.json else sys.stdout.write(render(result))
    return 0
