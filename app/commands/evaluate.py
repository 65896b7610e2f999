"""`eval faces|speakers|sessions|conversations|locomo|memorybank|qa|extraction|salience|asr|answers|lifelog|kinds`:
measured on real data (answers, lifelog, kinds: on the project's own questions), a table or `--json`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.commands import print_json
from app.config import Config
from app.errors import ConfigError, MediaError
from app.evaluation.datasets import listed_files, read_table
from app.evaluation.plots import unavailable

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
DEFAULT_DATA = {
    "faces": [SHARED / "deepface_faces"],
    "speakers": [SHARED / "librispeech_test_other_resemblyzer", SHARED / "fsdd_spoken_digits"],
    "sessions": [SHARED / "librispeech_test_other_resemblyzer"],
    "conversations": [SHARED / "librispeech_test_other_resemblyzer"],
    "locomo": [SHARED / "locomo" / "locomo10.json"],
    "qa": [SHARED / "locomo" / "locomo10.json"],
    "extraction": [SHARED / "locomo" / "locomo10.json"],
    "salience": [SHARED / "locomo" / "locomo10.json"],
    "memorybank": [SHARED / "memorybank_siliconfriend"],
    "asr": [SHARED / "asr_small_samples", SHARED / "fsdd_spoken_digits"],
    "answers": [],  # the gold questions are the project's own (app/evaluation/gold.py)
    "lifelog": [],  # so are the lifelog questions (app/evaluation/lifelog.py)
    "facts": [],  # so are the gold facts (app/evaluation/facts.py)
    "kinds": [],  # and the question kinds (app/evaluation/question_kinds.py)
}


def register(add) -> None:
    p = add("eval", "evaluate identity, segmentation, recall and answers on real data", cmd_eval)
    p.add_argument("what", choices=tuple(DEFAULT_DATA))
    p.add_argument("--data", type=Path, action="append", help="dataset folder (repeatable; default ../shared/data)")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for the JSON and plots (default ./eval); conversations: given, also each recording, its gold "
        "and hypothesis RTTM and words",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--k", default="1,5,10,20,50", help="locomo: the k of recall@k, comma-separated")
    p.add_argument("--mode", choices=("offline", "online"), default="offline", help="locomo: when questions are asked")
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help="locomo: only the first N conversations; qa: N questions (default 200); asr: N spoken digits (default "
        "40); answers, lifelog: the first N questions; conversations: N conversations in all",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="qa: the seed of the stratified sample; conversations: of the simulation; facts --spoken: of the timing",
    )
    p.add_argument(
        "--unseen-by",
        type=int,
        default=0,
        metavar="N",
        help="qa: draw only among the questions that no seed below N draws (questions never read before)",
    )
    p.add_argument(
        "--replies",
        type=Path,
        default=None,
        metavar="FILE",
        help="qa: keep the model's replies in FILE and answer the requests it keeps from it, so a change to the rules "
        "is measured on the same readings (created if absent; its times are not the model's)",
    )
    p.add_argument(
        "--with-memory",
        action="store_true",
        help="locomo, qa: over the memories eval extraction wrote under --out, with and without what it wrote; "
        "memorybank: write each user's memory first and list what it holds for each question",
    )
    p.add_argument(
        "--held-out",
        action="store_true",
        help="answers: the held-out questions, written from the transcripts alone and never tuned on; lifelog: the "
        "four held-out sets (written blind); kinds: the half of the question kinds never read; facts: the "
        "held-out scenes and their facts, written blind to the extraction rules; conversations: the held-out readers",
    )
    p.add_argument(
        "--locomo",
        action="store_true",
        help="facts: two LoCoMo sessions (--data, default ../shared/data/locomo/locomo10.json) against atomic facts "
        "written blind for them",
    )
    p.add_argument(
        "--spoken",
        action="store_true",
        help="facts, lifelog: the scenes said aloud in flite voices with conversational timing and heard by the real "
        "recorder, then written and scored (people by the lines they spoke, lines by time)",
    )
    p.add_argument(
        "--paused", action="store_true", help="facts, lifelog --spoken: 1.2 s between lines, none overlapping"
    )
    p.add_argument(
        "--named",
        action="store_true",
        help="lifelog --spoken: the wearer names everyone the recorder made, once, as on the web page, before asking",
    )
    p.add_argument("--conversations", type=int, default=2, help="extraction: how many conversations (default 2)")
    p.add_argument("--first", type=int, default=0, help="extraction: the index of the first conversation (default 0)")
    p.add_argument("--speakers", default="2,3,4", help="conversations: speaker counts, comma-separated (default 2,3,4)")
    p.add_argument("--per", type=int, default=3, help="conversations: conversations per speaker count (default 3)")
    p.add_argument("--turns", type=int, default=24, help="conversations: turns per conversation (default 24)")
    noise = p.add_mutually_exclusive_group()
    noise.add_argument("--noisy", action="store_true", help="conversations: every one in a reverberant, noisy room")
    noise.add_argument("--clean", action="store_true", help="conversations: none noisy (default: every third)")
    p.add_argument("--no-paused", action="store_true", help="conversations: skip the paused twins")
    p.add_argument(
        "--real",
        action="store_true",
        help="conversations: the real recordings a package ships instead (pyannote.audio's sample call; "
        "`python build.py --download pyannote-sample`)",
    )


LIFELOG_HELD_OUT = ("held-out", "held-out-2", "held-out-3", "held-out-4")


def cmd_eval(args: argparse.Namespace, cfg: Config) -> int:
    if args.named and not (args.what == "lifelog" and args.spoken):
        raise ConfigError("--named goes with lifelog --spoken")
    data = args.data or DEFAULT_DATA[args.what]
    real = args.what == "conversations" and args.real
    plan = _conversation_plan(args) if args.what == "conversations" and not real else None  # a usage error first
    if not real:
        _check_audio_data(args.what, data)
    files_out, args.out = args.out, args.out or Path("eval")
    _writable(args.out)
    if real:
        from app.evaluation.recordings import eval_recordings, render

        result = eval_recordings(cfg, files_out, lambda line: sys.stderr.write(line + "\n"))
    elif args.what == "conversations":
        from app.evaluation.conversations import eval_conversations, render

        result = eval_conversations(cfg, plan, data[0], files_out, lambda line: sys.stderr.write(line + "\n"))
    elif args.what == "lifelog" and args.spoken:
        from app.evaluation.lifelog_spoken import eval_lifelogs_spoken, render

        sets = LIFELOG_HELD_OUT if args.held_out else ("tuning",)
        timing = "paused" if args.paused else "conversational"
        report = lambda line: sys.stderr.write(line + "\n")  # noqa: E731
        result = eval_lifelogs_spoken(cfg, sets, timing, args.seed, args.limit, files_out, report, args.named)
    elif args.what == "lifelog":
        from app.evaluation.lifelog import eval_lifelogs, render

        if args.paused:
            raise ConfigError("--paused goes with --spoken")
        result = eval_lifelogs(cfg, LIFELOG_HELD_OUT if args.held_out else ("tuning",), args.limit, files_out)
    elif args.what == "kinds":
        from app.evaluation.kinds import eval_kinds, render

        result = eval_kinds(cfg, args.held_out)
    elif args.what == "answers":
        from app.evaluation.answers import eval_answers, render

        result = eval_answers(cfg, args.limit, args.out, held_out=args.held_out)
    elif args.what == "facts" and args.spoken:
        from app.evaluation.facts_spoken import eval_facts_spoken
        from app.evaluation.facts_spoken import render_result as render

        if args.locomo:
            raise ConfigError("--spoken speaks the gold or held-out scenes; LoCoMo's are text")
        result = eval_facts_spoken(
            cfg, args.out, args.held_out, args.paused, args.seed, lambda line: sys.stderr.write(line + "\n")
        )
    elif args.what == "facts":
        from app.evaluation.facts import eval_facts, render

        if args.paused:
            raise ConfigError("--paused goes with --spoken")
        locomo = (args.data or DEFAULT_DATA["extraction"])[0] if args.locomo else None
        result = eval_facts(cfg, args.out, held_out=args.held_out, locomo=locomo)
    elif args.what == "asr":
        from app.evaluation.asr import eval_asr, render

        result = eval_asr(cfg, data, args.out, args.limit)
    elif args.what == "faces":
        from app.evaluation.faces import eval_faces, render

        result = eval_faces(cfg, data[0], args.out)
    elif args.what == "speakers":
        from app.evaluation.speakers import eval_speakers, render

        result = eval_speakers(cfg, data, args.out)
    elif args.what == "sessions":
        from app.evaluation.sessions import eval_sessions, render

        result = eval_sessions(cfg, data[0], args.out)
    elif args.what == "memorybank":
        from app.evaluation.memorybank import eval_memorybank, render

        result = eval_memorybank(cfg, data[0], with_memory=args.with_memory, out_dir=args.out)
    elif args.what == "qa":
        from app.evaluation.qa import eval_qa, render

        if args.limit is not None and args.limit < 1:
            raise ConfigError("--limit takes a positive number of questions")
        if args.unseen_by < 0:
            raise ConfigError("--unseen-by takes a number of seeds (0: every question)")
        written_under = args.out if args.with_memory else None
        result = eval_qa(
            cfg, data[0], args.limit or 200, args.seed, args.out, written_under, args.unseen_by, args.replies
        )
    elif args.what == "salience":
        from app.evaluation.salience import eval_salience, render

        result = eval_salience(cfg, data[0], args.out)
    elif args.what == "extraction":
        from app.evaluation.extraction import eval_extraction, render

        if args.conversations < 1 or args.first < 0:
            raise ConfigError("--conversations takes a positive number and --first a conversation index")
        result = eval_extraction(cfg, data[0], args.out, args.conversations, args.first)
    else:
        from app.evaluation.locomo import eval_locomo, render

        ks = _ks(args.k)
        if args.with_memory:
            from app.evaluation.locomo import eval_locomo_with_memory

            result = eval_locomo_with_memory(cfg, data[0], ks, args.out)
        else:
            result = eval_locomo(cfg, data[0], ks, args.mode, args.out, args.limit or 0)
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"locomo_{'memory' if args.with_memory else args.mode}" if args.what == "locomo" else args.what
    if args.what == "facts" and args.spoken:
        name = f"facts_spoken_{result['timing']}" + ("_held_out" if args.held_out else "")
    if real:
        name = "conversations_real"
    no_plots = unavailable()
    if no_plots:
        result["plot_note"] = no_plots
    (args.out / f"{name}.json").write_text(json.dumps(result, indent=1))
    print_json(result) if args.json else sys.stdout.write(render(result) + (f"{no_plots}\n" if no_plots else ""))
    return 0


def _conversation_plan(args: argparse.Namespace):
    from app.evaluation.conversations import Plan

    counts = [c.strip() for c in args.speakers.split(",") if c.strip()]
    if not counts or not all(c.isdigit() and 2 <= int(c) <= 5 for c in counts):
        raise ConfigError("--speakers takes speaker counts from 2 to 5, e.g. 2,3,4")
    if args.per < 1 or args.turns < 2 or (args.limit is not None and args.limit < 1):
        raise ConfigError("--per and --limit take a positive number of conversations, --turns at least 2")
    return Plan(
        speakers=tuple(sorted({int(c) for c in counts})),
        per=args.per,
        turns=args.turns,
        seed=args.seed,
        group="held-out" if args.held_out else "tuning",
        noise="all" if args.noisy else "none" if args.clean else "mix",
        limit=args.limit,
        paused=not args.no_paused,
    )


def _ks(text: str) -> list[int]:
    parts = [k.strip() for k in text.split(",") if k.strip()]
    if not parts or not all(k.isdigit() and int(k) > 0 for k in parts):
        raise ConfigError("--k takes positive integers, e.g. 1,5,10")
    return sorted({int(k) for k in parts})


def _writable(out: Path) -> None:
    """--out is a folder that can be written, before any work is done."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".eval-write-test"
        probe.touch()
        probe.unlink()
    except OSError as e:
        raise ConfigError(f"--out {out}: cannot write there ({e.strerror or e})") from None


def _check_audio_data(what: str, data: list[Path]) -> None:
    """The speech datasets' manifests and the clips they list, before any model is loaded."""
    if what not in ("speakers", "sessions", "conversations"):
        return
    librispeech, fsdd = ("path", "speaker_id"), ("path", "speaker", "digit", "repetition_index")
    columns = (librispeech, fsdd) if what == "speakers" else (librispeech,)
    for folder in data:
        table = folder / "manifest.csv"
        rows = read_table(table, "a speech dataset folder with manifest.csv", *columns)
        listed_files(folder, table, [r["path"] for r in rows])
        speakers = {r.get("speaker_id") or r.get("speaker") for r in rows}
        if len(speakers) < {"sessions": 4, "conversations": 4}.get(what, 2):
            raise MediaError(f"{table} lists {len(speakers)} speaker(s): eval {what} needs more")
