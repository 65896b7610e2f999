"""`run`: record from a source into the encrypted memory."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from app.commands import open_memory, print_json
from app.config import Config


def register(add) -> None:
    p = add("run", "record from a source into the encrypted memory", cmd_run)
    p.add_argument("--source", required=True, help="mic, camera (with the mic), demo, or a media file")
    p.add_argument("--realtime", action="store_true", help="replay a file at real time")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--serve", action="store_true", help="serve the memory meanwhile (and after a file ends)")
    from app.commands.serve import add_serving

    add_serving(p)


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
    if args.serve:
        from app.commands import db_path
        from app.service.server import check_host, serve

        host = args.host or cfg.service.host
        check_host(host, args.public)
        port = cfg.service.port if args.port is None else args.port
        with open_memory(args, cfg, create=True) as memory:
            return asyncio.run(serve(cfg, memory, models.text, db_path(args).parent, host, port, source, models))
    with open_memory(args, cfg, create=True) as memory:
        total = round(source.duration_s or 0, 1) or None
        bar = tqdm(total=total, unit="s", desc=source.name, disable=None, leave=False, file=sys.stderr)
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
        print_json(out)
    else:
        lines = [
            f"source            {out['source']}",
            f"duration          {out['duration_s']:.1f} s (speech {out['speech_s']:.1f} s)",
            f"utterances        {out['utterances']}",
            f"people            {out['people']} ({out['new_people']} new)",
            f"wall time         {out['wall_s']:.1f} s, real-time factor {out['real_time_factor']:.2f}",
        ]
        if out["memory_jobs"] or out["memory_error"]:
            lines.append(
                f"memory written    {out['memory_jobs']} jobs in {out['memory_s']:.0f} s (see `python -m app facts`)"
                + (f"; stopped: {out['memory_error']}" if out["memory_error"] else "")
            )
        if out["unstored"]:
            lines.append(f"not stored        {out['unstored']} utterances heard after the disk filled up")
        if out["skipped"]:
            lines.append(f"skipped           {out['skipped']} segments after failures (see the log)")
        lines += [f"error             {e}" for e in out["errors"]]
        sys.stdout.write("\n".join(lines) + "\n")
    return summary.exit_code
