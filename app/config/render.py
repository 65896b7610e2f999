"""Rendering: the configuration as commented YAML (the shipped config.yaml) and the rows it is made of."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from app.config.tree import Config, section_classes


def describe() -> list[tuple[str, Any, str]]:
    """(section.field, default, doc) for every setting: the source of config.yaml's comments and README."""
    rows = []
    for section, cls in section_classes().items():
        for f in dataclasses.fields(cls):
            rows.append((f"{section}.{f.name}", f.default, f.metadata["doc"]))
    return rows


_HEADER = """\
# lifemem configuration. Every value here is the built-in default; change what you need.
# Precedence: this file < APP_<SECTION>_<FIELD> environment variables < --set section.field=value.
# Unknown keys and out-of-range values stop the app before it starts. Secrets never go here:
# the memory key comes from $APP_KEY, a key file ($APP_KEY_FILE) or --key-prompt.
# `python -m app config` prints the settings in effect; `--defaults` prints this file.
"""


def render_yaml(cfg: Config | None = None) -> str:
    """The configuration as commented YAML (the defaults render as the shipped config.yaml)."""
    cfg = cfg or Config()
    lines = [_HEADER]
    for section in dataclasses.fields(Config):
        values = getattr(cfg, section.name)
        lines.append(f"{section.name}:  # {type(values).__doc__.strip()}")
        for f in dataclasses.fields(values):
            lines.append(f"  {f.name}: {json.dumps(getattr(values, f.name))}  # {f.metadata['doc']}")
        lines.append("")
    return "\n".join(lines)
