"""Loading the perception models named by the config, each verified against the registry first."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from app import registry
from app.audio.asr import Recognizer, load_recognizer
from app.audio.vad import SileroVad
from app.audio.voice import VoiceEncoder
from app.config import Config
from app.text.embedder import TextEmbedder
from app.vision.faces import DlibFaces, NoveltyGate

_LOGGER = logging.getLogger(__name__)


def load_text_embedder(cfg: Config) -> TextEmbedder:
    model, tokenizer = registry.verify(registry.get(cfg.models.text), cfg.models_dir)
    return TextEmbedder(model, tokenizer, cfg.device.kind, cfg.device.threads)


def load_vad(cfg: Config) -> SileroVad:
    (model,) = registry.verify(registry.get(cfg.models.vad), cfg.models_dir)
    return SileroVad(model, "cpu", 1)  # 512-sample windows: a GPU round trip costs more than it saves


def load_voice(cfg: Config) -> VoiceEncoder:
    encoder, mel = registry.verify(registry.get(cfg.models.voice), cfg.models_dir)
    return VoiceEncoder(encoder, mel, cfg.device.kind, cfg.device.threads)


def load_faces(cfg: Config) -> DlibFaces:
    predictor, recognizer = registry.verify(registry.get(cfg.models.face), cfg.models_dir)
    return DlibFaces(predictor, recognizer, cfg.face.detect_width_px, cfg.face.min_face_px)


@dataclass
class Perception:
    vad: SileroVad
    asr: Recognizer
    voice: VoiceEncoder
    faces: DlibFaces | None
    text: TextEmbedder
    cfg: Config

    def novelty(self) -> NoveltyGate:
        return NoveltyGate(self.cfg.video.novelty)


def load_perception(cfg: Config, with_faces: bool = True) -> Perception:
    """Every model the recorder needs; a missing or corrupt one fails here, naming the fix."""
    return Perception(
        vad=load_vad(cfg),
        asr=load_recognizer(cfg.models.asr, cfg.models_dir, cfg.device.kind, cfg.device.threads),
        voice=load_voice(cfg),
        faces=load_faces(cfg) if with_faces else None,
        text=load_text_embedder(cfg),
        cfg=cfg,
    )
