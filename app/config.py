"""Configuration: one frozen dataclass tree; config.yaml < APP_<SECTION>_<FIELD> environment < --set.

Every field declares its default, unit and valid range once, in `field(metadata=...)`; loading walks the
dataclasses, so an unknown key or a bad value fails before anything starts, with one line naming it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG_FILE = PROJECT_ROOT / "config.yaml"
# Environment variables with the APP_ prefix that are not settings (secrets and locations).
RESERVED_ENV = frozenset({"APP_KEY", "APP_KEY_FILE", "APP_DATA_DIR", "APP_CONFIG", "APP_LLM_API_KEY", "APP_API_TOKEN"})
SECRET_ENV = ("APP_KEY", "APP_KEY_FILE", "APP_API_TOKEN", "APP_LLM_API_KEY")


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment without its secrets (plus `extra`): what every program it starts gets —
    espeak-ng, flite, the language model's process."""
    return {k: v for k, v in os.environ.items() if k not in SECRET_ENV} | extra


def _opt(
    default: Any, doc: str, *, lo: float | None = None, hi: float | None = None, choices: Sequence[str] | None = None
) -> Any:
    """A field with its documentation and bounds in one place."""
    return field(default=default, metadata={"doc": doc, "lo": lo, "hi": hi, "choices": choices})


@dataclass(frozen=True)
class DeviceConfig:
    """Where inference runs."""

    kind: str = _opt(
        "cpu",
        "cpu, cuda (onnxruntime CUDA/TensorRT providers) or jetson (TensorRT first)",
        choices=("cpu", "cuda", "jetson"),
    )
    threads: int = _opt(
        2, "CPU threads per model session (VAD, voice and face models: one, their inputs are small)", lo=1, hi=64
    )


@dataclass(frozen=True)
class ModelsConfig:
    """Which registry entry serves each role (see `python -m app doctor`)."""

    dir: str = _opt("", "folder holding the prepared models; empty means <project>/models")
    vad: str = _opt("silero-vad", "voice activity detector", choices=("silero-vad",))
    asr: str = _opt(
        "whisper-base",
        "speech recognizer: whisper-base (faster-whisper, the default), whisper-tiny.en, pocketsphinx-en-us "
        "(the smallest), or the name of a faster-whisper (whisper-*) or sherpa-onnx (sherpa-*) folder under models/",
    )
    voice: str = _opt(
        "resemblyzer",
        "speaker embedder: resemblyzer, or the name of a sherpa-onnx speaker model folder (sherpa-*) under models/ "
        "(set identity.voice_threshold for it)",
    )
    face: str = _opt(
        "auto",
        "face backend: auto (an insightface pack under models/insightface/ when present, "
        "else dlib), dlib, blazeface-dlib, or insightface-<pack>",
    )
    text: str = _opt("minilm-l6-int8", "text embedder for dense search", choices=("minilm-l6-int8", "minilm-l6"))


@dataclass(frozen=True)
class AudioConfig:
    """Audio capture and decoding."""

    min_rate_hz: int = _opt(8000, "lowest input sample rate accepted (Hz); lower rates are rejected", lo=4000, hi=48000)
    mic_device: str = _opt("", "sounddevice input device name or index; empty means the default")
    queue_s: float = _opt(30.0, "audio buffered between capture and VAD before capture waits (s)", lo=1.0, hi=600.0)


@dataclass(frozen=True)
class VadConfig:
    """Silero VAD and the speech segmenter."""

    threshold: float = _opt(0.5, "speech probability that opens a segment", lo=0.05, hi=0.99)
    neg_threshold: float = _opt(0.35, "probability below which a frame counts as silence", lo=0.01, hi=0.95)
    min_speech_ms: int = _opt(250, "shorter segments are dropped (ms)", lo=0, hi=5000)
    min_silence_ms: int = _opt(500, "silence that closes a segment (ms)", lo=32, hi=10000)
    pad_ms: int = _opt(100, "audio kept before and after each segment (ms)", lo=0, hi=1000)
    max_segment_s: float = _opt(20.0, "a longer segment is cut here (s)", lo=2.0, hi=120.0)


@dataclass(frozen=True)
class VideoConfig:
    """Frames from the camera or a video file."""

    max_fps: float = _opt(2.0, "frames analysed per second at most", lo=0.1, hi=60.0)
    novelty: float = _opt(
        0.04,
        "mean absolute change (0..1) of a 32x32 grey thumbnail below which a frame is skipped as unchanged",
        lo=0.0,
        hi=1.0,
    )
    camera_index: int = _opt(0, "OpenCV camera index", lo=0, hi=64)


@dataclass(frozen=True)
class FaceConfig:
    """Face detection and embedding."""

    detect_width_px: int = _opt(640, "frames are scaled down to this width before detection (px)", lo=160, hi=4096)
    min_face_px: int = _opt(48, "faces narrower than this are ignored (px, at detection scale)", lo=16, hi=1024)
    match_distance: float = _opt(
        0.0, "largest embedding distance between faces of one person; 0: the backend's calibrated value", lo=0.0, hi=1.5
    )
    key_min_px: int = _opt(80, "a face narrower than this is recognised but never kept as a key (px)", lo=16, hi=1024)
    key_min_sharpness: float = _opt(
        50.0, "variance of the Laplacian of the face at 64 px below which it is too blurred to be a key", lo=0.0, hi=1e4
    )
    key_max_yaw: float = _opt(
        0.35,
        "nose offset from the eyes' midline over eye distance above which a face is too turned to be a key",
        lo=0.0,
        hi=10.0,
    )


@dataclass(frozen=True)
class IdentityConfig:
    """Who is speaking (per utterance, voice-led) and who is there (polled, face and voice fused)."""

    voice_threshold: float = _opt(
        0.75,
        "cosine to a person's mean voice that a 6-s turn needs against 9 s of their keyed speech (shorter turns "
        "and people heard less need less, calibrated); the identity poll's bar against any one voice key",
        lo=0.0,
        hi=1.0,
    )
    min_voice_s: float = _opt(
        1.5,
        "shorter utterances are attributed by face or to the previous speaker instead of by voice (s)",
        lo=0.2,
        hi=10.0,
    )
    max_keys: int = _opt(8, "voice and face keys kept per person (the best by quality)", lo=1, hi=100)
    poll_s: float = _opt(2.0, "how often the recorder checks who is there (s of stream time)", lo=0.2, hi=60.0)
    window_s: float = _opt(4.0, "each check looks at the speech of this last stretch (s)", lo=0.5, hi=60.0)
    poll_min_speech_s: float = _opt(
        1.0, "less speech than this in the window is not used to tell who is there (s)", lo=0.2, hi=60.0
    )
    confirm_polls: int = _opt(2, "checks in a row that must agree before the person there changes", lo=1, hi=20)
    new_face_s: float = _opt(
        6.0, "an unknown face of key quality in view this long becomes a new person (s)", lo=0.0, hi=3600.0
    )


@dataclass(frozen=True)
class SessionConfig:
    """How the stream is split into conversation sessions (app/identity/sessions.py)."""

    gap_s: float = _opt(60.0, "a silence this long ends a session (s)", lo=1.0, hi=86400.0)
    change_gap_s: float = _opt(
        1.5, "a shorter silence ends a session when the participants change completely across it (s)", lo=0.0, hi=3600.0
    )
    window_turns: int = _opt(
        3, "turns looked at on each side of a silence to see whether the participants changed", lo=1, hi=20
    )
    min_speech_s: float = _opt(
        3.0, "less speech than this, or none long enough to tell who spoke, is not a conversation (s)", lo=0.0, hi=600.0
    )
    same_voice: float = _opt(
        0.82, "voices across a silence this similar (cosine) are the same participant", lo=0.0, hi=1.0
    )


@dataclass(frozen=True)
class StoreConfig:
    """The encrypted memory database."""

    cache_mb: int = _opt(
        256, "SQLCipher page cache (MiB); encrypted scans decrypt pages again without it", lo=2, hi=16384
    )
    kdf_log2_n: int = _opt(15, "scrypt cost: N = 2**this (memory = 128 * 8 * N bytes)", lo=10, hi=22)
    ann_min_utterances: int = _opt(
        30000,
        "from this many utterances on, dense search uses the FAISS IVF-SQ8 index instead of an exact scan",
        lo=100,
        hi=10**9,
    )
    ann_nprobe: int = _opt(128, "inverted lists the IVF index probes per query", lo=1, hi=65536)
    ann_rescore: int = _opt(
        0, "IVF candidates re-scored exactly per result wanted (0: the 8-bit scores, no store reads)", lo=0, hi=100
    )


@dataclass(frozen=True)
class RetentionConfig:
    """How long raw media (speech audio, face frames) stays; the transcripts and derived memory stay."""

    raw_hours: float = _opt(24.0, "raw media older than this (since it was stored) is deleted (h)", lo=0.0, hi=87600.0)
    audio_hours: float = _opt(
        -1.0, "speech audio clips: negative means raw_hours, 0 keeps none (h)", lo=-1.0, hi=87600.0
    )
    frame_hours: float = _opt(-1.0, "face frames: negative means raw_hours, 0 keeps none (h)", lo=-1.0, hi=87600.0)
    max_gb: float = _opt(2.0, "storage budget for raw media; beyond it the oldest go first (GB)", lo=0.0, hi=100000.0)
    sweep_s: float = _opt(60.0, "how often the sweeper runs while recording (s)", lo=1.0, hi=86400.0)

    def keep_s(self, kind: str) -> float:
        """Seconds a media kind is kept (0: not stored at all)."""
        hours = {"audio": self.audio_hours, "frame": self.frame_hours}[kind]
        return 3600.0 * (self.raw_hours if hours < 0 else hours)


@dataclass(frozen=True)
class PrivacyConfig:
    """Whose data may be kept."""

    consent: str = _opt(
        "implicit",
        "implicit: everyone heard is remembered; required: people who have not "
        "consented (python -m app consent NAME given) keep no raw media and no face or voice "
        "keys beyond the current session, and their words are kept without them",
        choices=("implicit", "required"),
    )


@dataclass(frozen=True)
class RecallConfig:
    """Hybrid dense + BM25 search (app/ask/recall.py); weights chosen on LoCoMo (eval locomo)."""

    top_k: int = _opt(5, "results returned by ask", lo=1, hi=100)
    candidates: int = _opt(100, "candidates taken from each of dense and BM25 search", lo=1, hi=1000)
    bm25_weight: float = _opt(
        0.2, "weight of the BM25 score (relative to the best candidate's) added to cosine similarity", lo=0.0, hi=10.0
    )
    person_boost: float = _opt(0.25, "added to the score of utterances by a person the question names", lo=0.0, hi=10.0)
    graph_hops: int = _opt(2, "relations followed from the people a question names or implies", lo=0, hi=5)
    graph_decay: float = _opt(0.7, "the person boost is multiplied by this per relation followed", lo=0.0, hi=1.0)
    session_weight: float = _opt(
        0.4, "weight of the best score in an utterance's session added to its own (0: turns alone)", lo=0.0, hi=2.0
    )
    session_bm25_weight: float = _opt(
        0.15,
        "weight of its session's BM25 score (sessions as documents, relative to the best) added to an utterance's",
        lo=0.0,
        hi=2.0,
    )
    context_weight: float = _opt(
        0.5,
        "weight of the turns just before and after an utterance in its dense score (0: the turn alone)",
        lo=0.0,
        hi=2.0,
    )
    written_weight: float = _opt(
        0.1,
        "weight of the best matching fact or summary's similarity added to the turns it cites (0: turns alone)",
        lo=0.0,
        hi=2.0,
    )
    written_k: int = _opt(
        10, "facts and summaries matched per question whose cited turns join the candidates", lo=0, hi=100
    )


@dataclass(frozen=True)
class LLMConfig:
    """The local language model (app/llm/): llama.cpp on this machine, or an OpenAI-compatible server."""

    backend: str = _opt(
        "llama-cpp",
        "llama-cpp: a GGUF model on this machine; openai: an OpenAI-compatible server at llm.url (llama.cpp "
        "server, vLLM, Ollama), its bearer token in $APP_LLM_API_KEY if it wants one",
        choices=("llama-cpp", "openai"),
    )
    model: str = _opt(
        "qwen2.5-coder-1.5b",
        "llama-cpp: a registry name (qwen2.5-coder-0.5b, qwen2.5-coder-1.5b) or the path of a .gguf file; "
        "openai: the model name the server serves",
    )
    url: str = _opt("", "the server's base URL for llm.backend openai, e.g. http://127.0.0.1:8080/v1")
    process: str = _opt(
        "child",
        "llama-cpp: child runs the model in a supervised process of its own, so a native fault never stops the "
        "recorder; in-process runs it in this process (tests and benchmarks)",
        choices=("child", "in-process"),
    )
    max_deaths: int = _opt(
        3, "deaths in a row of the model's process after which the model is off for the run", lo=1, hi=100
    )
    context: int = _opt(4096, "context window of the in-process model (tokens)", lo=512, hi=131072)
    threads: int = _opt(
        0,
        "CPU threads for the in-process model; 0: device.threads, or 1 while the recorder runs beside it",
        lo=0,
        hi=64,
    )
    dialog_threads: int = _opt(
        0,
        "CPU threads for a reply someone waits for (an answer, a greeting); background memory writing keeps "
        "llm.threads (one beside the recorder); 0: device.threads",
        lo=0,
        hi=64,
    )
    gpu_layers: int = _opt(
        -1,
        "layers offloaded to the GPU; -1: all of them on --device cuda|jetson when llama.cpp was built with GPU "
        "support, none on cpu",
        lo=-1,
        hi=1000,
    )
    nice: int = _opt(10, "scheduling niceness of the LLM thread, so capture always wins the CPU (0-19)", lo=0, hi=19)
    prefix_cache: int = _opt(
        4, "prompt prefixes (instructions + a person's profile) whose evaluated state is kept", lo=0, hi=64
    )
    timeout_s: float = _opt(60.0, "llm.backend openai: time allowed for the server to answer (s)", lo=1.0, hi=3600.0)
    retries: int = _opt(2, "llm.backend openai: retries after a connection failure or a 5xx answer", lo=0, hi=10)


@dataclass(frozen=True)
class AnswerConfig:
    """Grounded answers (app/ask/answer.py): code gathers, ranks and checks the lines; the model reads a few of them."""

    candidates: int = _opt(6, "lines gathered and ranked for a question", lo=1, hi=20)
    chosen: int = _opt(2, "lines the answer is read from (the best-ranked ones, or those the model picks)", lo=1, hi=6)
    select: str = _opt(
        "retriever",
        "retriever: the best-ranked lines are read; model: the language model first picks among the candidates "
        "(measured worse and slower with the 0.5B and 1.5B models: README, Answers)",
        choices=("retriever", "model"),
    )
    read_tokens: int = _opt(32, "longest answer read from the chosen lines (tokens)", lo=4, hi=512)
    verify: str = _opt(
        "names",
        "after the word check, the model is asked (true or false under a grammar) whether the cited line says that "
        "the answer answers the question, and false is I don't know: names (an answer that is only people's names, "
        "whose role the word check cannot see), all, or off",
        choices=("names", "all", "off"),
    )


@dataclass(frozen=True)
class MemoryConfig:
    """Memory writing (app/consolidation/): extraction, merging, summaries and forgetting on the local LLM."""

    background: bool = _opt(
        True, "write memory from closed sessions in the recorder's background while it runs (else: `consolidate`)"
    )
    extractor: str = _opt(
        "statements",
        "statements: each line's own statements become its speaker's facts (code; the model writes summaries); "
        "llm: the model reads the lines and writes the facts (measured worse with the 0.5B: README)",
        choices=("statements", "llm"),
    )
    chunk_lines: int = _opt(16, "transcript lines the model reads per extraction call", lo=2, hi=200)
    facts_per_line: int = _opt(2, "most facts the model may take from one transcript line", lo=1, hi=10)
    item_tokens: int = _opt(40, "generation budget per fact (tokens)", lo=8, hi=400)
    summary_tokens: int = _opt(80, "longest summary the model writes (tokens)", lo=16, hi=1024)
    duplicate: float = _opt(
        0.80, "similarity at or above which a new item restates a held fact (merged: provenance added)", lo=0.0, hi=1.0
    )
    related: float = _opt(
        0.60,
        "similarity at or above which a new item that changes a number, negation or polarity supersedes",
        lo=0.0,
        hi=1.0,
    )
    day_min: int = _opt(2, "session summaries a day needs before it gets a day summary", lo=1, hi=100)
    person_every: int = _opt(
        5, "new session summaries with a person that rebuild their global state (MOOM's θ = 5)", lo=1, hi=100
    )
    attempts: int = _opt(3, "tries of one queued job before it is set aside with its error", lo=1, hi=100)
    alpha: float = _opt(0.1, "forgetting: weight of temporal decay (MOOM's α)", lo=0.0, hi=10.0)
    beta: float = _opt(0.9, "forgetting: weight of recall reinforcement (MOOM's β)", lo=0.0, hi=10.0)
    gamma: float = _opt(
        1.0, "forgetting: decay rate per round, a round being a conversation session (MOOM's γ)", lo=0.0, hi=10.0
    )
    recall_k: int = _opt(
        9, "forgetting: facts reinforced per retrieval; the next as many are inhibited (MOOM's k)", lo=1, hi=100
    )
    capacity: int = _opt(
        200,
        "forgetting: facts per person kept in the profile and search; the weakest beyond it fade",
        lo=1,
        hi=100000,
    )


@dataclass(frozen=True)
class ServiceConfig:
    """The local API (`serve`, `run --serve`): loopback only unless told otherwise, a bearer token on every route."""

    host: str = _opt("127.0.0.1", "address to listen on; anything but loopback needs `serve --public`")
    port: int = _opt(8765, "TCP port", lo=1, hi=65535)
    max_body_kb: int = _opt(4096, "largest request body accepted (KiB); a bigger one gets 413", lo=1, hi=1048576)
    readers: int = _opt(2, "connections (and threads) serving reads side by side", lo=1, hi=16)
    events_kept: int = _opt(
        10000, "events kept in RAM for subscribers that reconnect with Last-Event-ID", lo=100, hi=1000000
    )


@dataclass(frozen=True)
class CompanionConfig:
    """The voice companion (`run --companion`): who is answered, barge-in, echo, speech out, greetings."""

    wake: str = _opt(
        "hey memory, okay memory, hey computer",
        "comma-separated phrases that address the companion at the start or end of an utterance (other speech "
        "is only remembered; chosen so that the embedded recognizer hears them); empty: push-to-talk only",
    )
    voice: str = _opt(
        "piper",
        "text-to-speech: piper (the joe voice under models/), else espeak-ng, else flite",
        choices=("piper", "espeak-ng", "flite"),
    )
    barge_in: bool = _opt(True, "speech over a reply (being generated or played) stops it")
    onset_ms: int = _opt(
        64, "speech above the VAD threshold this long (ms, in 32-ms windows) is an onset (barge-in)", lo=32, hi=1000
    )
    echo_cancel: bool = _opt(True, "cancel the companion's own voice in the microphone (WebRTC AEC3)")
    self_voice: float = _opt(
        0.80,
        "an utterance heard while the companion spoke whose voice is this close (cosine) to the companion's "
        "own, or whose words are mostly what it said, is its echo: never stored, never answered",
        lo=0.0,
        hi=1.0,
    )
    wearer: str = _opt(
        "", "the wearer's name: never greeted, and who 'I' and 'my' are in a question that names no one asking"
    )
    greet: bool = _opt(True, "greet a known person who is back after greet_absence_h")
    greet_absence_h: float = _opt(2.0, "hours away after which a returning person is greeted", lo=0.0, hi=720.0)
    greet_gap_s: float = _opt(60.0, "at most one greeting this often (seconds)", lo=0.0, hi=86400.0)
    answer_timeout_s: float = _opt(60.0, "longest wait for the next token of a spoken answer", lo=1.0, hi=600.0)
    tail_s: float = _opt(
        30.0, "after a replayed file ends, keep listening this long while the companion still talks", lo=0.0, hi=600.0
    )


@dataclass(frozen=True)
class ReplayConfig:
    """File and demo sources."""

    realtime: bool = _opt(False, "pace file replay at real time instead of as fast as possible")


@dataclass(frozen=True)
class Config:
    device: DeviceConfig = field(default_factory=DeviceConfig)
    models: ModelsConfig = field(default_factory=ModelsConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    vad: VadConfig = field(default_factory=VadConfig)
    video: VideoConfig = field(default_factory=VideoConfig)
    face: FaceConfig = field(default_factory=FaceConfig)
    identity: IdentityConfig = field(default_factory=IdentityConfig)
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


def _sections() -> dict[str, type]:
    return {f.name: f.default_factory for f in dataclasses.fields(Config)}  # type: ignore[misc]


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
    sections = _sections()
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
    sections = _sections()
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
    sections = _sections()
    built = {name: sections[name](**raw.get(name, {})) for name in sections}
    cfg = Config(**built)
    if cfg.vad.neg_threshold >= cfg.vad.threshold:
        raise ConfigError("vad.neg_threshold must be below vad.threshold")
    return cfg


def describe() -> list[tuple[str, Any, str]]:
    """(section.field, default, doc) for every setting: the source of config.yaml's comments and README."""
    rows = []
    for section, cls in _sections().items():
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
