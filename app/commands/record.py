"""`run`: record from a source into the encrypted memory."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import signal
import sys
from pathlib import Path

from app.commands import open_memory, print_json
from app.config import Config


def register(add) -> None:
    p = add("run", "record from a source into the encrypted memory", cmd_run)
    p.add_argument("--source", required=True, help="mic, camera (with the mic), demo, or a media file")
    p.add_argument("--realtime", action="store_true", help="replay a file at real time")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--serve", action="store_true", help="serve the memory meanwhile (and after a file ends)")
    p.add_argument(
        "--companion",
        action="store_true",
        help="the voice companion listens and talks (with --source demo: the companion scene, the day after the demo)",
    )
    p.add_argument("--speak-to", type=Path, metavar="WAV", help="with --companion: write what was heard and said here")
    p.add_argument(
        "--echo", action="store_true", help="with --companion on a file: simulate the speaker-to-microphone echo"
    )
    from app.commands.serve import add_serving

    add_serving(p)


def cmd_run(args: argparse.Namespace, cfg: Config) -> int:
    from tqdm import tqdm

    from app.recorder.perception import load_perception
    from app.recorder.pipeline import Recorder
    from app.recorder.sources import open_source

    if args.companion and not args.serve:
        return cmd_companion(args, cfg)
    source = open_source(args.source, cfg)
    source.check()  # a missing device fails here, before a key or a database is made
    if args.realtime:
        source.realtime = True
    models = load_perception(cfg, with_faces=source.has_video)
    if args.serve:
        from app.commands import db_path
        from app.commands.serve import serving_address
        from app.service.server import serve

        listen = serving_address(args, cfg)
        with open_memory(args, cfg, create=True) as memory:
            return asyncio.run(
                serve(cfg, memory, models.text, db_path(args).parent, listen, source, models, args.companion)
            )
    with open_memory(args, cfg, create=True) as memory:
        total = round(source.duration_s or 0, 1) or None
        bar = tqdm(total=total, unit="s", desc=source.name, disable=None, leave=False, file=sys.stderr)
        recorder = Recorder(cfg, memory, models, source, on_progress=lambda s: bar.update(round(s, 3)))

        summary = asyncio.run(_stoppable(source, recorder.run()))
        bar.close()
    out = summary.as_dict()
    if args.json:
        print_json(out)
    else:
        sys.stdout.write("\n".join(summary_lines(out)) + "\n")
    return summary.exit_code


async def _stoppable(source, work):
    """Run `work` with SIGINT/SIGTERM stopping the source (what was captured is kept)."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, source.stop)
        loop.add_signal_handler(signal.SIGTERM, source.stop)
    except (NotImplementedError, RuntimeError):  # not the main thread (tests) or no signals
        pass
    return await work


def summary_lines(out: dict) -> list[str]:
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
    return lines


def cmd_companion(args: argparse.Namespace, cfg: Config) -> int:
    """`run --companion`: record with the voice companion answering what is addressed to it, aloud."""
    from app.companion import session
    from app.recorder.perception import load_perception
    from app.recorder.pipeline import Recorder
    from app.recorder.sources import companion_scene, open_source

    scene = args.source == "demo"
    if scene and not cfg.companion.wearer:  # in the scene Emily wears the glasses
        cfg = dataclasses.replace(cfg, companion=dataclasses.replace(cfg.companion, wearer="Emily"))
    source = companion_scene(cfg) if scene else open_source(args.source, cfg)
    source.check()
    models = load_perception(cfg, with_faces=source.has_video)
    echo = None
    if args.echo and source.duration_s is not None:
        from app.companion.echo import EchoPath

        echo = EchoPath()
    wav = args.speak_to or (Path("companion.wav") if source.duration_s is not None else None)
    with open_memory(args, cfg, create=True) as memory:
        if scene and not memory.has_source("demo"):  # the scene is the day after the demo: remember it first
            sys.stderr.write("recording the demo conversation first (the companion scene is the day after it)\n")
            asyncio.run(Recorder(cfg, memory, models, open_source("demo", cfg)).run())
        run = asyncio.run(_stoppable(source, session.run(cfg, memory, models, source, wav, simulate_echo=echo)))
    out = run.as_dict()
    if args.json:
        print_json(out)
        return run.summary.exit_code  # type: ignore[attr-defined]
    lines = summary_lines(out)
    for r in run.replies:
        heard = f"{r['person'] or '?'}: {r['question']}" if r["kind"] == "answer" else f"(greeting {r['person']})"
        latency = f"{r['first_audio_ms'] / 1000:.1f} s" if r["first_audio_ms"] is not None else "no audio"
        said = r["text"] + (" [interrupted]" if r["interrupted"] else "")
        cites = ", ".join(str(c["id"]) for c in r["citations"])
        lines.append(f"companion         {heard} -> {said} ({latency}{'; cites ' + cites if cites else ''})")
    if run.wav:
        lines.append(f"spoken            {run.wav} (left: microphone, right: the companion; voice {run.voice})")
    sys.stdout.write("\n".join(lines) + "\n")
    return run.summary.exit_code  # type: ignore[attr-defined]
