"""Configuration: one frozen dataclass tree; config.yaml < APP_<SECTION>_<FIELD> environment < --set.

Every field declares its default, unit and valid range once, in `field(metadata=...)`; loading walks the
dataclasses, so an unknown key or a bad value fails before anything starts, with one line naming it.

base.py: the project's paths, the environment names that are not settings, `opt`; capture.py and memory.py:
the sections; tree.py: `Config`; load.py: yaml, environment and --set; render.py: config.yaml's text.
"""

from __future__ import annotations

from app.config.base import DEFAULT_CONFIG_FILE, PROJECT_ROOT, RESERVED_ENV, SECRET_ENV, child_env
from app.config.capture import (
    AudioConfig,
    DeviceConfig,
    FaceConfig,
    IdentityConfig,
    ModelsConfig,
    ReplayConfig,
    SessionConfig,
    TurnsConfig,
    VadConfig,
    VideoConfig,
)
from app.config.load import load_config
from app.config.memory import (
    AnswerConfig,
    CompanionConfig,
    LLMConfig,
    MemoryConfig,
    PrivacyConfig,
    RecallConfig,
    RetentionConfig,
    ServiceConfig,
    StoreConfig,
)
from app.config.render import describe, render_yaml
from app.config.tree import Config

__all__ = [
    "DEFAULT_CONFIG_FILE",
    "PROJECT_ROOT",
    "RESERVED_ENV",
    "SECRET_ENV",
    "AnswerConfig",
    "AudioConfig",
    "CompanionConfig",
    "Config",
    "DeviceConfig",
    "FaceConfig",
    "IdentityConfig",
    "LLMConfig",
    "MemoryConfig",
    "ModelsConfig",
    "PrivacyConfig",
    "RecallConfig",
    "ReplayConfig",
    "RetentionConfig",
    "ServiceConfig",
    "SessionConfig",
    "StoreConfig",
    "TurnsConfig",
    "VadConfig",
    "VideoConfig",
    "child_env",
    "describe",
    "load_config",
    "render_yaml",
]
