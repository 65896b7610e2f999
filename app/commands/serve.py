"""`serve`: the memory, its events and an OpenAI-compatible endpoint on loopback HTTP (see README, API)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands import db_path, open_memory, tell
from app.config import Config

if TYPE_CHECKING:
    import numpy as np


def add_serving(p) -> None:
    p.add_argument("--host", help="address to listen on (default service.host, 127.0.0.1)")
    p.add_argument("--port", type=int, help="TCP port (default service.port; 0: any free one)")
    p.add_argument("--public", action="store_true", help="allow an address other than loopback (needs --cert/--key)")
    p.add_argument("--cert", type=Path, help="TLS certificate (PEM) to serve HTTPS with")
    p.add_argument("--key", dest="tls_key", type=Path, help="the certificate's private key (PEM)")
    p.add_argument("--insecure", action="store_true", help="with --public: serve plain HTTP all the same")


def serving_address(args: argparse.Namespace, cfg: Config):
    """Where to listen (a `Listen`) from the options, else the config; anything but loopback needs --public,
    and --public needs a certificate unless --insecure."""
    from app.service.server import listen_on

    host = args.host or cfg.service.host
    port = cfg.service.port if args.port is None else args.port
    return listen_on(host, port, args.public, args.cert, args.tls_key, args.insecure)


def register(add) -> None:
    p = add("serve", "serve the memory over loopback HTTP: the web page, API, events, ingest, OpenAI chat", cmd_serve)
    add_serving(p)
    p.add_argument("--no-ingest", action="store_true", help="serve the memory only: no recorder, no perception models")
    p.add_argument(
        "--companion",
        action="store_true",
        help="the voice companion answers the glasses aloud (speech back over ingest)",
    )


def cmd_serve(args: argparse.Namespace, cfg: Config) -> int:
    from app.recorder.perception import load_text_embedder
    from app.runtime import Runtime

    listen = serving_address(args, cfg)
    source = models = None
    if args.no_ingest:
        embedder = load_text_embedder(cfg)
    else:
        from app.recorder.perception import load_perception
        from app.service.ingest import IngestSource

        source = IngestSource(cfg)
        models = load_perception(cfg, with_faces=True)
        embedder = models.text
    with open_memory(args, cfg, create=True) as memory:
        companion = args.companion and source is not None
        runtime = Runtime(
            cfg,
            memory,
            models,
            source,
            companion=companion,
            speaker=serving_speaker(cfg, source) if companion else None,
            tell=tell,
        )
        return asyncio.run(runtime.serve(listen, embedder, db_path(args).parent))


def serving_speaker(cfg: Config, source) -> Callable[[np.ndarray, float], None] | None:
    """Where the companion's voice goes while serving: back to the glasses (ingest), the default output device
    (a live source), nowhere for a replay — paced at real time, the companion talks on the clock of what it
    hears."""
    from app.companion.session import open_speaker
    from app.service.ingest import IngestSource

    if isinstance(source, IngestSource):
        return source.speak
    if source is None or source.duration_s is not None:
        if source is not None:
            source.realtime = True
        return None
    return open_speaker(cfg)
