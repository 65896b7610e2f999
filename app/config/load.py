"""Loading: config.yaml < APP_<SECTION>_<FIELD> environment < --set, each value coerced to its field's type and
checked against its bounds, so an unknown key or a bad value fails before anything starts, with one line naming it."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from app.config.base import DEFAULT_CONFIG_FILE, RESERVED_ENV
from app.config.tree import Config, section_classes
from app.errors import ConfigError


def _coerce(value: Any, f: dataclasses.Field, where: str) -> Any:
    """Turn a YAML value or a string into the field's type, then check its bounds."""
    kind = type(f.default)
    try:
        if kind is bool:
            if isinstance(value, bool):
                out: Any = value
            elif str(value).strip().lower() in {"1", "true", "yes", "on"}:
                out = True
            elif str(value).strip().lower() in {"0", "false", "no", "off"}:
                out = False
            else:
                raise ValueError(value)
        elif kind is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError(value)
            out = int(value)
        elif kind is float:
            if isinstance(value, bool):
                raise ValueError(value)
            out = float(value)
        else:
            if isinstance(value, (dict, list)):
                raise ValueError(value)
            out = "" if value is None else str(value)
    except ValueError:
        raise ConfigError(f"{where}: {value!r} is not a valid {kind.__name__}") from None
    meta = f.metadata
    if meta.get("choices") and out not in meta["choices"]:
        raise ConfigError(f"{where}: {out!r} is not one of {', '.join(meta['choices'])}")
    if meta.get("lo") is not None and out < meta["lo"]:
        raise ConfigError(f"{where}: {out} is below the minimum {meta['lo']}")
    if meta.get("hi") is not None and out > meta["hi"]:
        raise ConfigError(f"{where}: {out} is above the maximum {meta['hi']}")
    return out


def _apply(raw: dict[str, dict[str, Any]], section: str, key: str, value: Any, where: str) -> None:
    sections = section_classes()
    if section not in sections:
        raise ConfigError(f"{where}: unknown section {section!r} (known: {', '.join(sections)})")
    fields = {f.name: f for f in dataclasses.fields(sections[section])}
    if key not in fields:
        raise ConfigError(f"{where}: unknown setting {section}.{key} (known: {', '.join(fields)})")
    raw.setdefault(section, {})[key] = _coerce(value, fields[key], where)


def _from_yaml(path: Path, raw: dict[str, dict[str, Any]]) -> None:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ConfigError(f"{path}: cannot read config: {first}") from None
    if doc is None:
        return
    if not isinstance(doc, Mapping):
        raise ConfigError(f"{path}: the top level must be a mapping of sections")
    for section, values in doc.items():
        if values is None:
            continue
        if not isinstance(values, Mapping):
            raise ConfigError(f"{path}: section {section!r} must be a mapping")
        for key, value in values.items():
            _apply(raw, str(section), str(key), value, f"{path}: {section}.{key}")


def _from_env(env: Mapping[str, str], raw: dict[str, dict[str, Any]]) -> None:
    """APP_<SECTION>_<FIELD>; variables whose section is not ours are left alone."""
    sections = section_classes()
    for name, value in env.items():
        if not name.startswith("APP_") or name in RESERVED_ENV:
            continue
        rest = name[4:].lower()
        section = next((s for s in sections if rest.startswith(s + "_")), None)
        if section is not None:
            _apply(raw, section, rest[len(section) + 1 :], value, f"environment {name}")


def _from_overrides(overrides: Sequence[str], raw: dict[str, dict[str, Any]]) -> None:
    for item in overrides:
        key, sep, value = item.partition("=")
        section, dot, name = key.strip().partition(".")
        if not sep or not dot:
            raise ConfigError(f"--set {item!r}: expected section.field=value")
        _apply(raw, section, name, value.strip(), f"--set {key.strip()}")


def load_config(
    path: Path | None = None, env: Mapping[str, str] | None = None, overrides: Sequence[str] = ()
) -> Config:
    """Build the configuration. `path` None means $APP_CONFIG, else the project's config.yaml if present."""
    env = os.environ if env is None else env
    raw: dict[str, dict[str, Any]] = {}
    if path is None and env.get("APP_CONFIG"):
        path = Path(env["APP_CONFIG"])
        if not path.is_file():
            raise ConfigError(f"APP_CONFIG: no such file {path}")
    elif path is None and DEFAULT_CONFIG_FILE.is_file():
        path = DEFAULT_CONFIG_FILE
    if path is not None:
        _from_yaml(path, raw)
    _from_env(env, raw)
    _from_overrides(overrides, raw)
    sections = section_classes()
    built = {name: sections[name](**raw.get(name, {})) for name in sections}
    cfg = Config(**built)
    if cfg.vad.neg_threshold >= cfg.vad.threshold:
        raise ConfigError("vad.neg_threshold must be below vad.threshold")
    return cfg
