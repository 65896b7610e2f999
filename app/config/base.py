"""What every part of the configuration shares: where the project is, which environment variables are not
settings, and `opt`, the field that declares a setting's default, documentation and bounds in one place."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_CONFIG_FILE = PROJECT_ROOT / "config.yaml"
# Environment variables with the APP_ prefix that are not settings (secrets and locations).
RESERVED_ENV = frozenset({"APP_KEY", "APP_KEY_FILE", "APP_DATA_DIR", "APP_CONFIG", "APP_LLM_API_KEY", "APP_API_TOKEN"})
SECRET_ENV = ("APP_KEY", "APP_KEY_FILE", "APP_API_TOKEN", "APP_LLM_API_KEY")


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment without its secrets (plus `extra`): what every program it starts gets —
    espeak-ng, flite, the language model's process."""
    return {k: v for k, v in os.environ.items() if k not in SECRET_ENV} | extra


def opt(
    default: Any, doc: str, *, lo: float | None = None, hi: float | None = None, choices: Sequence[str] | None = None
) -> Any:
    """A field with its documentation and bounds in one place."""
    return field(default=default, metadata={"doc": doc, "lo": lo, "hi": hi, "choices": choices})
