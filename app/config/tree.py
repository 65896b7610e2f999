"""The configuration tree: one frozen dataclass per section, in the order config.yaml lists them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from app.config.base import PROJECT_ROOT
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


@dataclass(frozen=True)
class Config:
    device: DeviceConfig = field(default_factory=DeviceConfig)
    models: ModelsConfig = field(default_factory=ModelsConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    vad: VadConfig = field(default_factory=VadConfig)
    video: VideoConfig = field(default_factory=VideoConfig)
    face: FaceConfig = field(default_factory=FaceConfig)
    identity: IdentityConfig = field(default_factory=IdentityConfig)
    turns: TurnsConfig = field(default_factory=TurnsConfig)
    session: SessionConfig = field(default_factory=SessionConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    retention: RetentionConfig = field(default_factory=RetentionConfig)
    privacy: PrivacyConfig = field(default_factory=PrivacyConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    answer: AnswerConfig = field(default_factory=AnswerConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    companion: CompanionConfig = field(default_factory=CompanionConfig)

    @property
    def models_dir(self) -> Path:
        return Path(self.models.dir).expanduser() if self.models.dir else PROJECT_ROOT / "models"


def section_classes() -> dict[str, type]:
    """Section name -> its dataclass, in the tree's order."""
    return {f.name: f.default_factory for f in dataclasses.fields(Config)}  # type: ignore[misc]
