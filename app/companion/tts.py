"""Offline text to speech: Piper (ONNX), else espeak-ng, else flite; replies spoken sentence by sentence."""

from __future__ import annotations

import importlib.util
import io
import json
import logging
import re
import shutil
import subprocess
import tempfile
import time
import wave
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import soxr

from app import registry
from app.config import child_env
from app.errors import ModelError

_LOGGER = logging.getLogger(__name__)
PIPELINE_RATE_HZ = 16_000
PIPER_MODEL = "piper-joe"
VOICES = ("piper", "espeak-ng", "flite")  # load_voice's fallback order after the preferred one
_COMMAND_TIMEOUT_S = 60.0

# ---------------------------------------------------------------- sentences
# a period after these never ends a sentence ("Dr. Smith", "e.g. tea")
_NEVER_FINAL = frozenset(
    "mr mrs ms dr prof st sr jr mt gen capt lt col sgt rev hon fr e.g i.e vs cf approx fig".split()
)
# these end a sentence only when a capital letter follows ("at 3 p.m. Then" but "No. 5")
_MAYBE_FINAL = frozenset(
    "no etc a.m p.m u.s u.k inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_TERMINATOR = re.compile(r"[.!?;]+[\"')\]\u2019\u201d]*|\n")


def _is_boundary(text: str, start: int, end: int) -> bool | None:
    """Whether the terminator `text[start:end]` ends a sentence; None until enough text follows to tell."""
    if text[start] == "\n":
        return True
    if end >= len(text):
        return None  # "3." may become "3.5", "Dr" + "." + " Smith" is still arriving
    if not text[end].isspace():
        return False  # "3.5", "e.g.", "U.S."
    if text[end - 1] != "." or text[start:end].strip(".") != "":
        return True  # ! ? ; or a closing quote/bracket after the period
    word = text[:start].rsplit(None, 1)[-1].lower() if text[:start].strip() else ""
    word = word.lstrip("\"'([\u2018\u201c")
    if word in _NEVER_FINAL or (len(word) == 1 and word.isalpha()):  # titles, initials ("J. K. Rowling")
        return False
    if word.isdigit() and not text[:start].strip()[: -len(word)].strip():
        return False  # a list marker: "1. First"
    if word in _MAYBE_FINAL:
        rest = text[end:].lstrip()
        return None if not rest else rest[0].isupper()
    return True


def _speakable(sentence: str) -> bool:
    return any(c.isalnum() for c in sentence)


class SentenceBuffer:
    """Collects streamed text (an LLM's tokens) and hands out each sentence as soon as it is complete.

    Splits after . ! ? ; (with any closing quote or bracket) followed by white space, and at newlines; never
    inside decimals ("3.5") or after abbreviations such as "Dr." or "e.g.". Sentences with no letter or digit
    are dropped (nothing to speak).
    """

    def __init__(self) -> None:
        self._text = ""

    def feed(self, piece: str) -> list[str]:
        """Add `piece`; return the sentences it completed, stripped, in order."""
        self._text += piece
        out: list[str] = []
        cut = 0
        for m in _TERMINATOR.finditer(self._text):
            verdict = _is_boundary(self._text[cut:], m.start() - cut, m.end() - cut)
            if verdict is None:
                break
            if verdict:
                sentence = self._text[cut : m.end()].strip()
                if _speakable(sentence):
                    out.append(sentence)
                cut = m.end()
        self._text = self._text[cut:]
        return out

    def flush(self) -> list[str]:
        """The rest, as the last sentence (the reply ended)."""
        rest, self._text = self._text.strip(), ""
        return [rest] if _speakable(rest) else []


def split_sentences(text: str) -> list[str]:
    """`text` cut into the sentences `SentenceBuffer` would give."""
    buffer = SentenceBuffer()
    return buffer.feed(text) + buffer.flush()


# ---------------------------------------------------------------- voices
class Voice(ABC):
    """A text-to-speech voice: float32 mono in [-1, 1] at `sample_rate_hz`."""

    name: str
    sample_rate_hz: int

    @abstractmethod
    def __call__(self, text: str) -> np.ndarray: ...

    def speak_16k(self, text: str) -> np.ndarray:
        """`text` spoken at the pipeline's 16 kHz."""
        audio = self(text)
        if self.sample_rate_hz != PIPELINE_RATE_HZ and audio.size:
            audio = soxr.resample(audio, self.sample_rate_hz, PIPELINE_RATE_HZ)
        return np.clip(audio, -1.0, 1.0).astype(np.float32, copy=False)


class PiperVoice(Voice):
    """A Piper voice (VITS in onnxruntime, espeak-ng phonemes from the piper-tts wheel's own data).

    `deterministic` turns the model's sampling noise off: the same text gives the same samples (tests,
    benchmarks), a little flatter than the voice's own variation.
    """

    def __init__(
        self,
        model_path: Path,
        config_path: Path,
        threads: int = 1,
        name: str = PIPER_MODEL,
        deterministic: bool = False,
    ) -> None:
        try:
            # lazy: onnxruntime and Piper are heavy; only the Piper voice needs them
            import onnxruntime as ort
            from piper import PiperVoice as _Piper
            from piper import SynthesisConfig
            from piper.config import PiperConfig
        except ImportError as e:
            raise ModelError(f"piper-tts is not installed ({e}); run `python build.py`") from e
        try:
            config = PiperConfig.from_dict(json.loads(config_path.read_text(encoding="utf-8")))
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
        except (OSError, ValueError, KeyError, RuntimeError) as e:
            raise ModelError(f"cannot load Piper voice {model_path}: {e}") from e
        self._voice = _Piper(session=session, config=config)
        self._synthesis = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0) if deterministic else None
        self.name = name
        self.sample_rate_hz = config.sample_rate

    @classmethod
    def load(
        cls, models_dir: Path, name: str = PIPER_MODEL, threads: int = 1, deterministic: bool = False
    ) -> PiperVoice:
        """The registry's voice `name`, its sha256 verified first."""
        if importlib.util.find_spec("piper") is None:
            raise ModelError("piper-tts is not installed; run `python build.py`")
        model, config = registry.verify(registry.get(name), models_dir)
        return cls(model, config, threads, name, deterministic)

    def __call__(self, text: str) -> np.ndarray:
        chunks = [c.audio_float_array for c in self._voice.synthesize(text, self._synthesis)]  # one per sentence
        return np.concatenate(chunks) if chunks else np.zeros(0, np.float32)


class CommandVoice(Voice):
    """A voice from a command-line synthesizer that reads its text on stdin and writes a 16-bit WAV file.

    `command` holds a "{wav}" placeholder; a WAV at another rate is resampled to `sample_rate_hz`. The text is never
    on the command line (another local user could read it there, and a failure's message would repeat it) and
    the WAV is in a private temporary folder, deleted once read.
    """

    def __init__(self, name: str, command: Sequence[str], sample_rate_hz: int) -> None:
        self.name = name
        self.sample_rate_hz = sample_rate_hz
        self._command = tuple(command)

    @classmethod
    def espeak_ng(cls, voice: str = "en-us", words_per_min: int = 165) -> CommandVoice:
        return cls(
            f"espeak-ng {voice}", ["espeak-ng", "-v", voice, "-s", str(words_per_min), "-w", "{wav}", "--stdin"], 22_050
        )

    @classmethod
    def flite(cls, voice: str = "slt") -> CommandVoice:
        return cls(f"flite {voice}", ["flite", "-voice", voice, "-f", "/dev/stdin", "-o", "{wav}"], 16_000)

    @property
    def available(self) -> bool:
        return shutil.which(self._command[0]) is not None

    def __call__(self, text: str) -> np.ndarray:
        if not text.strip():
            return np.zeros(0, np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            wav = Path(tmp) / "speech.wav"
            argv = [a.replace("{wav}", str(wav)) for a in self._command]
            try:
                subprocess.run(
                    argv,
                    input=text.lstrip("-").encode(),  # a leading "-" is not spoken as "minus"
                    check=True,
                    capture_output=True,
                    timeout=_COMMAND_TIMEOUT_S,
                    env=child_env(),
                )
                data = wav.read_bytes()
            except (OSError, subprocess.SubprocessError) as e:  # the message says why, never what was to be said
                raise ModelError(f"{self.name} failed: {_why(e)}") from e
        audio, rate_hz = _decode_wav(data, self.name)
        if rate_hz != self.sample_rate_hz and audio.size:  # e.g. an MBROLA espeak-ng voice (16 kHz)
            audio = soxr.resample(audio, rate_hz, self.sample_rate_hz)
        return audio


def _why(e: OSError | subprocess.SubprocessError) -> str:
    if isinstance(e, subprocess.CalledProcessError):
        return f"exit status {e.returncode}"
    if isinstance(e, subprocess.TimeoutExpired):
        return f"no audio within {e.timeout:.0f} s"
    return e.strerror if isinstance(e, OSError) and e.strerror else type(e).__name__


def _decode_wav(data: bytes, name: str) -> tuple[np.ndarray, int]:
    """16-bit mono WAV bytes -> (float32 samples, rate in Hz)."""
    try:
        with wave.open(io.BytesIO(data)) as w:
            if w.getsampwidth() != 2 or w.getnchannels() != 1:
                raise ModelError(
                    f"{name} gave {w.getnchannels()} channels of {8 * w.getsampwidth()} bit; expected mono 16 bit"
                )
            rate_hz = w.getframerate()
            pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16)
    except (wave.Error, EOFError) as e:
        raise ModelError(f"{name} wrote an unreadable WAV: {e}") from e
    return pcm.astype(np.float32) / 32768, rate_hz


def _load(kind: str, models_dir: Path) -> Voice:
    if kind == "piper":
        return PiperVoice.load(models_dir)
    voice = CommandVoice.espeak_ng() if kind == "espeak-ng" else CommandVoice.flite()
    if not voice.available:
        raise ModelError(f"{kind} is not installed (apt-get install {kind})")
    return voice


def load_voice(models_dir: Path, preferred: str = "piper") -> Voice:
    """The preferred voice (piper | espeak-ng | flite), else the first of the others that is available."""
    if preferred not in VOICES:
        raise ModelError(f"unknown voice {preferred!r} (known: {', '.join(VOICES)})")
    problems: list[str] = []
    for kind in (preferred, *(v for v in VOICES if v != preferred)):
        try:
            voice = _load(kind, models_dir)
        except ModelError as e:
            problems.append(f"{kind}: {e}")
            _LOGGER.info("voice %s unavailable: %s", kind, e)
            continue
        _LOGGER.info("speaking with %s%s", voice.name, "" if kind == preferred else f" ({preferred} unavailable)")
        return voice
    raise ModelError("no text-to-speech voice available: " + "; ".join(problems))


def real_time_factor(voice: Voice, text: str) -> float:
    """Synthesis time over the duration of the speech it made (below 1: faster than real time)."""
    started = time.perf_counter()
    audio = voice(text)
    elapsed_s = time.perf_counter() - started
    return elapsed_s / max(audio.size / voice.sample_rate_hz, 1e-9)
