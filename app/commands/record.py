"""`run`: record from a source into the encrypted memory (the runtime's parts are imported when a command runs:
`python -m app --help` and the memory's commands should not load the recorder, the model and the web stack)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from pathlib import Path

from app.commands import db_path, open_memory, print_json, tell
from app.commands.serve import add_serving, serving_address, serving_speaker
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
    p.add_argument(
        "--hold",
        action="store_true",
        help="with --companion on a file: the replay stands still while the companion works out what to say (a "
        "slow machine replays it as a fast one would; for tests, not timings)",
    )

    add_serving(p)


def cmd_run(args: argparse.Namespace, cfg: Config) -> int:
    from tqdm import tqdm

    from app.recorder.perception import load_perception
    from app.recorder.sources import open_checked
    from app.runtime import Runtime

    if args.companion and not args.serve:
        return cmd_companion(args, cfg)
    source = open_checked(args.source, cfg, tell)  # a missing device fails here, before a key or a database is made
    if args.realtime:
        source.realtime = True
    models = load_perception(cfg, with_faces=source.has_video)
    if args.serve:
        listen = serving_address(args, cfg)
        with open_memory(args, cfg, create=True) as memory:
            speaker = serving_speaker(cfg, source) if args.companion else None
            runtime = Runtime(cfg, memory, models, source, companion=args.companion, speaker=speaker, tell=tell)
            return asyncio.run(runtime.serve(listen, models.text, db_path(args).parent))
    with open_memory(args, cfg, create=True) as memory:
        total = round(source.duration_s or 0, 1) or None
        bar = tqdm(total=total, unit="s", desc=source.name, disable=None, leave=False, file=sys.stderr)
        runtime = Runtime(
            cfg,
            memory,
            models,
            source,
            on_progress=lambda s: bar.update(round(s, 3)),
            tell=lambda line: bar.write(line, file=sys.stderr),
        )
        summary = asyncio.run(runtime.run())
        bar.close()
    out = summary.as_dict()
    if args.json:
        print_json(out)
    else:
        sys.stdout.write("\n".join(summary_lines(out)) + "\n")
    return summary.exit_code


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
    from app.recorder.perception import load_perception
    from app.recorder.sources import companion_scene, open_checked, open_source
    from app.runtime import Runtime

    scene = args.source == "demo"
    if scene and not cfg.companion.wearer:  # in the scene Emily wears the glasses
        cfg = dataclasses.replace(cfg, companion=dataclasses.replace(cfg.companion, wearer="Emily"))
    source = companion_scene(cfg) if scene else open_checked(args.source, cfg, tell)
    models = load_perception(cfg, with_faces=source.has_video)
    echo = None
    if args.echo and source.duration_s is not None:
        from app.companion.echo import EchoPath

        echo = EchoPath()
    wav = args.speak_to or (Path("companion.wav") if source.duration_s is not None else None)
    with open_memory(args, cfg, create=True) as memory:
        if scene and not memory.turns.has_source("demo"):  # the scene is the day after the demo: remember it first
            sys.stderr.write("recording the demo conversation first (the companion scene is the day after it)\n")
            asyncio.run(Runtime(cfg, memory, models, open_source("demo", cfg)).run())
        run = asyncio.run(_companion_run(cfg, memory, models, source, wav, echo, args.hold))
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


async def _companion_run(cfg: Config, memory, models, source, wav: Path | None, echo, hold: bool = False):
    """Record `source` with the companion listening and talking; a replay is paced at real time (the companion
    talks on the clock of what it hears), with `hold` it stands still while the companion thinks, and, with
    `wav`, what was heard and said is written there."""
    from app.companion.session import CompanionRun, open_speaker, write_wav
    from app.runtime import Runtime

    source.realtime = True
    speaker = open_speaker(cfg) if source.duration_s is None and wav is None else None
    runtime = Runtime(
        cfg,
        memory,
        models,
        source,
        companion=True,
        speaker=speaker,
        simulate_echo=echo,
        keep_tracks=wav is not None,
        hold=hold,
        tell=tell,
    )
    summary = await runtime.run()
    companion, duplex = runtime.companion, runtime.duplex
    assert companion is not None and duplex is not None
    out = CompanionRun(
        summary,
        [r.as_dict() for r in companion.replies],
        companion.barge_ins,
        len(companion.refused),
        companion.voice.name,
    )
    if wav is not None:
        write_wav(wav, duplex.track("mic"), duplex.track("played"))
        out.wav = str(wav)
    return out
