"""`build.py --probe-llm`, inside .venv: the default language model loads and generates in a child process."""

from __future__ import annotations

import os

from app.config import load_config
from app.errors import AppError
from app.llm import model_path
from app.llm.child import probe
from app.setup.common import FAULT_EXIT, MODELS, log


def probe_llm() -> int:
    """Load the default language model and generate a few tokens in a child process (app/llm/child.py): setup
    proves that the compiled llama.cpp runs on this CPU."""
    cfg = load_config(overrides=[f"models.dir={MODELS}"])
    try:
        path = model_path(cfg)
    except AppError as e:
        log(f"language model not checked: {e}")
        return 0
    result = probe(path, threads=os.cpu_count() or 2)
    if not result["ok"]:
        log(result["error"])
        for line in result.get("stderr", "").splitlines()[-12:]:
            log(f"  {line}")
        return FAULT_EXIT if result.get("reason") or "hangs" in result["error"] else 1
    rate = result["tokens"] / max(result["generate_s"], 1e-3)
    log(
        f"{path.name} runs: loaded in {result['load_s']} s, {result['tokens']} tokens at {rate:.1f} tok/s "
        f"(prompt included); llama.cpp {result['system_info']}"
    )
    return 0
