"""Loading the perception models named by the config, each verified against the registry first."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from threadpoolctl import threadpool_info, threadpool_limits

from app import registry
from app.audio.asr import Recognizer, load_recognizer
from app.audio.vad import SileroVad
from app.audio.voice import SherpaVoiceEncoder, VoiceEncoder
from app.config import Config
from app.errors import ModelError
from app.text.embedder import TextEmbedder
from app.vision.blazeface import BlazeFaceDetector
from app.vision.faces import DlibModels, FaceAnalyzer, NoveltyGate, QualityGate
from app.vision.insight import ARCFACE_COSINE_DISTANCE, ArcFaceEmbedder, ScrfdDetector, align

_LOGGER = logging.getLogger(__name__)


def load_text_embedder(cfg: Config) -> TextEmbedder:
    model, tokenizer = registry.verify(registry.get(cfg.models.text), cfg.models_dir)
    return TextEmbedder(model, tokenizer, cfg.device.kind, cfg.device.threads)


def load_vad(cfg: Config) -> SileroVad:
    (model,) = registry.verify(registry.get(cfg.models.vad), cfg.models_dir)
    return SileroVad(model, "cpu", 1)  # 512-sample windows: a GPU round trip costs more than it saves


def load_voice(cfg: Config) -> VoiceEncoder | SherpaVoiceEncoder:
    """resemblyzer (prepared by build.py), or a sherpa-onnx speaker model folder `sherpa-*` under models/."""
    # one thread: a poll's 4-s window is a small batch, and a second onnxruntime thread spins between runs
    # (`bench identity`: 24 ms of CPU per window on 2 threads, 10 ms on 1)
    name = cfg.models.voice
    if name.startswith("sherpa-"):
        return SherpaVoiceEncoder(cfg.models_dir / name, cfg.device.kind, 1)
    encoder, mel = registry.verify(registry.get(name), cfg.models_dir)
    return VoiceEncoder(encoder, mel, cfg.device.kind, 1)


def load_check_voice(cfg: Config) -> SherpaVoiceEncoder | None:
    """The second speaker model that checks a conversation's voices when it ends (`turns.check_voice`), or None
    where it is off, not prepared or sherpa-onnx is missing: the voices then stand unchecked."""
    name = cfg.turns.check_voice
    if not name or not (cfg.turns.enabled and cfg.turns.revise):
        return None
    try:
        (path,) = registry.verify(registry.get(name), cfg.models_dir)
        return SherpaVoiceEncoder(path.parent, cfg.device.kind, 1)
    except ModelError as e:
        _LOGGER.info("the conversation's voices are not checked by a second model: %s", e)
        return None


INSIGHTFACE_DIR = "insightface"
_PACK_PREFERENCE = ("buffalo_l", "antelopev2", "buffalo_m", "buffalo_s")


def _pack_files(pack_dir: Path) -> tuple[Path, Path]:
    """(SCRFD detector, ArcFace recognizer) of an insightface pack folder, told apart by file name."""
    onnx = sorted(pack_dir.glob("*.onnx"))
    det = [p for p in onnx if p.name.startswith(("det_", "scrfd"))]
    rec = [p for p in onnx if p.name.startswith(("w600k", "glintr")) or "arcface" in p.name]
    if not det or not rec:
        raise ModelError(
            f"{pack_dir}: an insightface pack needs a det_*.onnx (SCRFD) and a w600k_*.onnx (ArcFace) file"
        )
    return det[0], rec[0]


def face_backend(cfg: Config) -> str:
    """models.face with `auto` resolved: an insightface pack when one is present, else dlib."""
    if cfg.models.face != "auto":
        return cfg.models.face
    root = cfg.models_dir / INSIGHTFACE_DIR
    packs = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    packs.sort(key=lambda n: (_PACK_PREFERENCE.index(n) if n in _PACK_PREFERENCE else len(_PACK_PREFERENCE), n))
    for pack in packs:
        try:
            _pack_files(root / pack)
            return f"insightface-{pack}"
        except ModelError:
            continue
    return "dlib"


def _dlib(cfg: Config) -> DlibModels:
    predictor, recognizer = registry.verify(registry.get("dlib"), cfg.models_dir)
    return DlibModels(predictor, recognizer, cfg.face.detect_width_px, cfg.device.kind)


def load_faces(cfg: Config) -> FaceAnalyzer:
    """The face analyzer for models.face; a backend's own calibrated threshold unless face.match_distance."""
    backend = face_backend(cfg)
    chosen = cfg.face.match_distance or None
    min_px = cfg.face.min_face_px
    gate = QualityGate(cfg.face.key_min_px, cfg.face.key_min_sharpness, cfg.face.key_max_yaw)
    if backend == "dlib":
        dlib = _dlib(cfg)
        analyzer = FaceAnalyzer("dlib", dlib.detect, dlib.embed, "l2", chosen or DlibModels.L2_THRESHOLD, min_px, gate)
    elif backend == "blazeface-dlib":
        full, _ = registry.verify(registry.get("blazeface"), cfg.models_dir)
        detector, dlib = BlazeFaceDetector(full, threads=1), _dlib(cfg)  # 3 ms a frame: more threads only spin
        analyzer = FaceAnalyzer("dlib", detector, dlib.embed, "l2", chosen or DlibModels.L2_THRESHOLD, min_px, gate)
    elif backend.startswith("insightface-"):
        pack = cfg.models_dir / INSIGHTFACE_DIR / backend.removeprefix("insightface-")
        if not pack.is_dir():
            raise ModelError(f"insightface pack folder {pack} not found (see README, Models)")
        det_path, rec_path = _pack_files(pack)
        detector = ScrfdDetector(det_path, cfg.device.kind, cfg.device.threads)
        embedder = ArcFaceEmbedder(rec_path, cfg.device.kind, cfg.device.threads)
        analyzer = FaceAnalyzer(
            f"arcface:{rec_path.stem}",
            detector,
            lambda img, box, kps: (embedder(align(img, kps)), kps[:3]),
            "cosine",
            chosen or ARCFACE_COSINE_DISTANCE,
            min_px,
            gate,
        )
    else:
        raise ModelError(f"unknown face backend {backend!r}: auto, dlib, blazeface-dlib or insightface-<pack>")
    _LOGGER.info(
        "faces: %s backend (keys: %s, %s distance <= %.2f)", backend, analyzer.name, analyzer.metric, analyzer.threshold
    )
    return analyzer


@dataclass
class Perception:
    vad: SileroVad
    asr: Recognizer
    voice: VoiceEncoder | SherpaVoiceEncoder
    check: SherpaVoiceEncoder | None  # the second opinion on a conversation's voices (turns.check_voice)
    faces: FaceAnalyzer | None
    text: TextEmbedder
    cfg: Config

    def novelty(self) -> NoveltyGate:
        return NoveltyGate(self.cfg.video.novelty)


def single_thread_blas() -> None:
    """numpy's and scipy's BLAS on one thread, for the whole process: the recorder's matrix products are small
    (mel filters, key banks, a conversation's clustering) and OpenBLAS's idle threads spin after each, which costs
    more CPU than they save (`bench identity`: a poll's voice embedding 25 -> 10 ms of CPU, its matching 8 -> 0.8
    ms). Whisper's and the ONNX models' own thread pools are left as they are."""
    import scipy.cluster.vq  # noqa: F401  (loads scipy's own OpenBLAS, so that it is limited too)

    ours = {
        i["prefix"]
        for i in threadpool_info()
        if i["user_api"] == "blas" and ("numpy" in i["filepath"] or "scipy" in i["filepath"])
    }
    if ours:
        threadpool_limits({prefix: 1 for prefix in ours})


def load_perception(cfg: Config, with_faces: bool = True) -> Perception:
    """Every model the recorder needs; a missing or corrupt one fails here, naming the fix."""
    single_thread_blas()
    return Perception(
        vad=load_vad(cfg),
        asr=load_recognizer(cfg.models.asr, cfg.models_dir, cfg.device.kind, cfg.device.threads),
        voice=load_voice(cfg),
        check=load_check_voice(cfg),
        faces=load_faces(cfg) if with_faces else None,
        text=load_text_embedder(cfg),
        cfg=cfg,
    )
