"""What build.py and the model preparation share: the project's folders, logging, commands, checked copies.
Standard library only: build.py imports this with the system Python, before .venv exists."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from app.registry import sha256_file as sha256  # stdlib only, like this module

ROOT = Path(__file__).resolve().parent.parent.parent
MODELS = ROOT / "models"
FAULT_EXIT = 10  # --probe-llm: llama.cpp died (a native fault, a hang), as opposed to a missing model


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def run(cmd: list[str], **kw) -> None:
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, **kw)


def copy_checked(src: Path, dest: Path, want: str | None) -> None:
    got = sha256(src)
    if want is not None and got != want:
        raise SystemExit(f"[build] {src}: sha256 {got} does not match the pinned {want}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(dest.suffix + ".tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)
