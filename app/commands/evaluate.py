"""`eval faces|speakers|sessions`: measurements on real data, as a table or `--json`, with plots."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.commands import print_json
from app.config import Config

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
DEFAULT_DATA = {
    "faces": [SHARED / "deepface_faces"],
    "speakers": [SHARED / "librispeech_test_other_resemblyzer", SHARED / "fsdd_spoken_digits"],
    "sessions": [SHARED / "librispeech_test_other_resemblyzer"],
}


def register(add) -> None:
    p = add("eval", "evaluate identity and segmentation on real data", cmd_eval)
    p.add_argument("what", choices=("faces", "speakers", "sessions"))
    p.add_argument("--data", type=Path, action="append", help="dataset folder (repeatable; default ../shared/data)")
    p.add_argument("--out", type=Path, default=Path("eval"), help="folder for the JSON and plots (default ./eval)")
    p.add_argument("--json", action="store_true")


def cmd_eval(args: argparse.Namespace, cfg: Config) -> int:
    import json

    data = args.data or DEFAULT_DATA[args.what]
    if args.what == "faces":
        from app.evaluation.faces import eval_faces, render

        result = eval_faces(cfg, data[0], args.out)
    elif args.what == "speakers":
        from app.evaluation.speakers import eval_speakers, render

        result = eval_speakers(cfg, data, args.out)
    else:
        from app.evaluation.sessions import eval_sessions, render

        result = eval_sessions(cfg, data[0], args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.what}.json").write_text(json.dumps(result, indent=1))
    print_json(result) if args.json else sys.stdout.write(render(result))
    return 0
