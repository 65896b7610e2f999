"""The sections about what the recorder takes in: the device, the models, audio, VAD, video, faces, who is
there, conversation sessions, and file replay."""

from __future__ import annotations

from dataclasses import dataclass

from app.config.base import opt


@dataclass(frozen=True)
class DeviceConfig:
    """Where inference runs."""

    kind: str = opt(
        "cpu",
        "cpu, cuda (onnxruntime CUDA/TensorRT providers) or jetson (TensorRT first)",
        choices=("cpu", "cuda", "jetson"),
    )
    threads: int = opt(
        2, "CPU threads per model session (VAD, voice and face models: one, their inputs are small)", lo=1, hi=64
    )


@dataclass(frozen=True)
class ModelsConfig:
    """Which registry entry serves each role (see `python -m app doctor`)."""

    dir: str = opt("", "folder holding the prepared models; empty means <project>/models")
    vad: str = opt("silero-vad", "voice activity detector", choices=("silero-vad",))
    asr: str = opt(
        "whisper-base",
        "speech recognizer: whisper-base (faster-whisper, the default), whisper-tiny.en, pocketsphinx-en-us "
        "(the smallest), or the name of a faster-whisper (whisper-*) or sherpa-onnx (sherpa-*) folder under models/",
    )
    voice: str = opt(
        "resemblyzer",
        "speaker embedder: resemblyzer, or the name of a sherpa-onnx speaker model folder (sherpa-*) under models/ "
        "(set identity.voice_threshold for it)",
    )
    face: str = opt(
        "auto",
        "face backend: auto (an insightface pack under models/insightface/ when present, "
        "else dlib), dlib, blazeface-dlib, or insightface-<pack>",
    )
    text: str = opt("minilm-l6-int8", "text embedder for dense search", choices=("minilm-l6-int8", "minilm-l6"))


@dataclass(frozen=True)
class AudioConfig:
    """Audio capture and decoding."""

    min_rate_hz: int = opt(8000, "lowest input sample rate accepted (Hz); lower rates are rejected", lo=4000, hi=48000)
    mic_device: str = opt("", "sounddevice input device name or index; empty means the default")
    queue_s: float = opt(30.0, "audio buffered between capture and VAD before capture waits (s)", lo=1.0, hi=600.0)


@dataclass(frozen=True)
class VadConfig:
    """Silero VAD and the speech segmenter."""

    threshold: float = opt(0.5, "speech probability that opens a segment", lo=0.05, hi=0.99)
    neg_threshold: float = opt(0.35, "probability below which a frame counts as silence", lo=0.01, hi=0.95)
    min_speech_ms: int = opt(250, "shorter segments are dropped (ms)", lo=0, hi=5000)
    min_silence_ms: int = opt(500, "silence that closes a segment (ms)", lo=32, hi=10000)
    pad_ms: int = opt(100, "audio kept before and after each segment (ms)", lo=0, hi=1000)
    max_segment_s: float = opt(20.0, "a longer segment is cut here (s)", lo=2.0, hi=120.0)


@dataclass(frozen=True)
class VideoConfig:
    """Frames from the camera or a video file."""

    max_fps: float = opt(2.0, "frames analysed per second at most", lo=0.1, hi=60.0)
    novelty: float = opt(
        0.04,
        "mean absolute change (0..1) of a 32x32 grey thumbnail below which a frame is skipped as unchanged",
        lo=0.0,
        hi=1.0,
    )
    camera_index: int = opt(0, "OpenCV camera index", lo=0, hi=64)


@dataclass(frozen=True)
class FaceConfig:
    """Face detection and embedding."""

    detect_width_px: int = opt(640, "frames are scaled down to this width before detection (px)", lo=160, hi=4096)
    min_face_px: int = opt(48, "faces narrower than this are ignored (px, at detection scale)", lo=16, hi=1024)
    match_distance: float = opt(
        0.0, "largest embedding distance between faces of one person; 0: the backend's calibrated value", lo=0.0, hi=1.5
    )
    key_min_px: int = opt(80, "a face narrower than this is recognised but never kept as a key (px)", lo=16, hi=1024)
    key_min_sharpness: float = opt(
        50.0, "variance of the Laplacian of the face at 64 px below which it is too blurred to be a key", lo=0.0, hi=1e4
    )
    key_max_yaw: float = opt(
        0.35,
        "nose offset from the eyes' midline over eye distance above which a face is too turned to be a key",
        lo=0.0,
        hi=10.0,
    )


@dataclass(frozen=True)
class IdentityConfig:
    """Who is speaking (per utterance, voice-led) and who is there (polled, face and voice fused)."""

    voice_threshold: float = opt(
        0.75,
        "cosine to a person's mean voice that a 6-s turn needs against 9 s of their keyed speech (shorter turns "
        "and people heard less need less, calibrated); the identity poll's bar against any one voice key",
        lo=0.0,
        hi=1.0,
    )
    min_voice_s: float = opt(
        1.5,
        "shorter utterances are attributed by face or to the previous speaker instead of by voice (s)",
        lo=0.2,
        hi=10.0,
    )
    max_keys: int = opt(8, "voice and face keys kept per person (the best by quality)", lo=1, hi=100)
    poll_s: float = opt(2.0, "how often the recorder checks who is there (s of stream time)", lo=0.2, hi=60.0)
    window_s: float = opt(4.0, "each check looks at the speech of this last stretch (s)", lo=0.5, hi=60.0)
    poll_min_speech_s: float = opt(
        1.0, "less speech than this in the window is not used to tell who is there (s)", lo=0.2, hi=60.0
    )
    confirm_polls: int = opt(2, "checks in a row that must agree before the person there changes", lo=1, hi=20)
    new_face_s: float = opt(
        6.0, "an unknown face of key quality in view this long becomes a new person (s)", lo=0.0, hi=3600.0
    )


@dataclass(frozen=True)
class TurnsConfig:
    """Speaker turns inside a stretch of speech: where the voice changes, and which voice of the conversation."""

    enabled: bool = opt(True, "look for a change of speaker inside each stretch of speech")
    window_s: float = opt(1.0, "voice embeddings are taken over sliding windows this long (s)", lo=0.5, hi=1.6)
    hop_s: float = opt(0.2, "step between the windows (s)", lo=0.05, hi=1.0)
    min_turn_s: float = opt(
        1.0, "a stretch of one voice shorter than this is not cut out of its neighbours (s)", lo=0.2, hi=10.0
    )
    change_cost: float = opt(
        0.3,
        "how much more alike the windows must be on each side of a cut than across it (sum of cosines)",
        lo=0.0,
        hi=10.0,
    )
    same_voice: float = opt(
        0.85,
        "cosine of the mean of 10 windows to a voice of the conversation heard for 80 for it to be that voice "
        "(fewer on either side need less, calibrated)",
        lo=0.0,
        hi=1.0,
    )
    switch_cost: float = opt(
        0.3, "cosine a window must gain by changing voice before its label changes (smoothing)", lo=0.0, hi=5.0
    )
    revise: bool = opt(True, "when a conversation ends, cluster all its turns' voices at once and give turns again")
    revise_same_voice: float = opt(
        0.89, "cosine of two voices' means over a whole conversation above which they are one voice", lo=0.0, hi=1.0
    )
    check_voice: str = opt(
        "campplus",
        "a second speaker model that checks each voice of a conversation when it ends (campplus: fetched by build.py; "
        "empty: no check; used when its files are under models/)",
    )
    split_below: float = opt(
        0.72,
        "a voice whose turns fall into two halves less alike than this (cosine, by the second model) becomes two",
        lo=0.0,
        hi=1.0,
    )
    check_same: float = opt(
        0.75,
        "cosine (by the second model) of a turn to the mean of a voice's checked turns at or above which it is that "
        "voice: someone the conversation made and nobody named whose turns all are (half their seconds or more "
        "checked) goes whole to the voice's person",
        lo=0.0,
        hi=1.0,
    )


@dataclass(frozen=True)
class SessionConfig:
    """How the stream is split into conversation sessions (app/identity/sessions.py)."""

    gap_s: float = opt(60.0, "a silence this long ends a session (s)", lo=1.0, hi=86400.0)
    change_gap_s: float = opt(
        1.5, "a shorter silence ends a session when the participants change completely across it (s)", lo=0.0, hi=3600.0
    )
    window_turns: int = opt(
        3, "turns looked at on each side of a silence to see whether the participants changed", lo=1, hi=20
    )
    min_speech_s: float = opt(
        3.0, "less speech than this, or none long enough to tell who spoke, is not a conversation (s)", lo=0.0, hi=600.0
    )
    same_voice: float = opt(
        0.82, "voices across a silence this similar (cosine) are the same participant", lo=0.0, hi=1.0
    )


@dataclass(frozen=True)
class ReplayConfig:
    """File and demo sources."""

    realtime: bool = opt(False, "pace file replay at real time instead of as fast as possible")
