"""Speech recognition backends behind one call: `asr(audio_16k) -> Transcript`.

- whisper-base (the default) and whisper-tiny.en: faster-whisper (CTranslate2) models that PyPI packages ship,
  prepared and sha256-checked by build.py; any other whisper-* folder a user places under models/;
- pocketsphinx-en-us: the smallest fallback (shipped with the pocketsphinx wheel);
- sherpa-*: a sherpa-onnx offline model folder (transducer, Whisper, NeMo CTC or Paraformer) under models/.

Each backend imports its library when it is built: they are heavy or optional, and one is used.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from app import registry
from app.devices import ctranslate2_cuda, select
from app.errors import ModelError
from app.frames import SAMPLE_RATE_HZ

_LOGGER = logging.getLogger(__name__)
_FILLERS = {"<s>", "</s>", "<sil>", "[NOISE]", "[BREATH]", "[COUGH]", "[UM]", "[UH]", "[SMACK]"}
# Whisper hears words in silence and noise ("you", "I'm going to use the same method as before."). Measured with
# whisper-base on this project's CPUs: 3 s of zeros, white noise, mains hum and dither give no_speech_prob
# 0.73-0.80 at avg_logprob -1.06 to -1.82, while real words (FSDD digits, LJSpeech, JFK) stay below 0.58, or
# above -0.75 where higher. faster-whisper's own rule (above 0.6 and below -1.0) sits on the edge that one CPU's
# kernels cross and another's do not; this one leaves a margin of 0.25 in log-probability on each side.
NO_SPEECH_PROB = 0.6
NO_SPEECH_LOGPROB = -0.8
# Without the segments' timestamps Whisper's first pass sometimes stops after one sentence of several, and the rest
# is lost; with words' times faster-whisper decodes again from the last word's end, which recovers it (it judges
# that no speech at 0.07). What it hears in the pad after the last word ("it.", "Thanks for watching.", a name) it
# judges no speech at 0.42-0.55.
LATER_PASS_NO_SPEECH = 0.35
# A later pass is not decoded at all when the last word ends this near the audio's end (s): what is left is the
# pad, and each pass is a whole window's encoding. On the VAD stretches of the 9 tuning conversations (661 s;
# README, Conversations): plain 145 s of CPU, WER 0.311; words' times with this 153 s, WER 0.303
LATER_PASS_MIN_S = 1.0
# a reading with the names given that has fewer words than this per second of a stretch this long is read again
# without them (people say 2-3 words a second; a stretch the VAD found is mostly speech)
SPARSE_MIN_S = 4.0
SPARSE_WORDS_PER_S = 0.5
MAX_COMPRESSION = 2.4  # a segment that compresses better than this repeats itself: a decoding loop
SILENT_RMS = 3e-4  # below -70 dBFS there is nothing to hear: no decoding at all
# Whisper's encoder is most of its cost, and faster-whisper pads every clip to a 30-s window (3000 frames of
# 10 ms). CTranslate2's encoder takes fewer frames, so an utterance can be read in a window of its own length
# plus a second (MARGIN_FRAMES), with a floor measured per model (README, Speech recognition). whisper-base at
# 15 s: the same words on LJSpeech, JFK, the demo and the companion's questions, 40 % less CPU over all clips
# and 0.35-0.45 s for a 3-s question instead of 0.75-1.2 s; at 10 s it began to mishear ("Him memory"), at 5 s
# it looped. whisper-tiny.en misheard the demo more at 15 and 20 s (WER 0.038 -> 0.090, 0.070), so it and
# folders a user places keep Whisper's 30 s.
MIN_WINDOW_FRAMES = {"whisper-base": 1500}
MARGIN_FRAMES = 100


@dataclass(frozen=True)
class Word:
    text: str  # as written, with its punctuation
    start_s: float  # from the start of the audio
    end_s: float


@dataclass(frozen=True)
class Transcript:
    text: str
    confidence: float  # 0..1
    words: tuple[Word, ...] = ()  # with their times, when they were asked for and the recognizer gives them
    looped: bool = False  # the decoder repeated itself and what it heard was dropped: try shorter audio


class Recognizer(Protocol):
    name: str

    def __call__(self, audio: np.ndarray, words: bool = False, hotwords: str = "") -> Transcript:
        """`words`: the words' times are wanted; `hotwords`: names to listen for (the recognizers that take them)."""
        ...


def _require(module: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ModelError(f"{module} is not installed: pip install {package}")


class PocketSphinxAsr:
    """CMU PocketSphinx 5 with the en-us acoustic model, 3-gram LM and CMU dictionary."""

    def __init__(self, model_dir: Path) -> None:
        from pocketsphinx import Decoder

        try:
            self._dec = Decoder(
                hmm=str(model_dir / "en-us"),
                lm=str(model_dir / "en-us.lm.bin"),
                dict=str(model_dir / "cmudict-en-us.dict"),
                samprate=SAMPLE_RATE_HZ,
                loglevel="FATAL",
            )
        except (RuntimeError, ValueError) as e:
            raise ModelError(f"cannot load PocketSphinx from {model_dir}: {e}") from e
        self.name = "pocketsphinx-en-us"

    def __call__(self, audio: np.ndarray, words: bool = False, hotwords: str = "") -> Transcript:
        pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16).tobytes()
        self._dec.start_utt()
        self._dec.process_raw(pcm, full_utt=True)
        self._dec.end_utt()
        hyp = self._dec.hyp()
        if hyp is None or not hyp.hypstr.strip():
            return Transcript("", 0.0)
        said = [s for s in self._dec.seg() if s.word not in _FILLERS]
        conf = float(np.mean([min(1.0, max(0.0, s.prob)) for s in said])) if said else 0.0
        # frames of 10 ms; a word's alternative pronunciation is written "word(2)"
        timed = tuple(Word(s.word.split("(")[0], s.start_frame / 100, (s.end_frame + 1) / 100) for s in said)
        return Transcript(hyp.hypstr.strip(), conf, timed if words else ())


class WhisperAsr:
    """faster-whisper on a local CTranslate2 model folder (model.bin, config.json, tokenizer.json, ...)."""

    REQUIRED = ("model.bin", "config.json", "tokenizer.json")

    def __init__(self, model_dir: Path, device: str = "cpu", threads: int = 2, language: str | None = "en"):
        missing = [f for f in self.REQUIRED if not (model_dir / f).is_file()]
        if missing:
            raise ModelError(
                f"faster-whisper model {model_dir} lacks {', '.join(missing)}; place a "
                "CTranslate2 Whisper folder there (see README, Models)"
            )
        profile = select(device, [], ctranslate2_cuda(), False)
        try:
            self._model = _windowed_whisper()(
                str(model_dir),
                device=profile.asr_device,
                compute_type=profile.asr_compute_type,
                cpu_threads=threads,
                local_files_only=True,
            )
        except (RuntimeError, ValueError, OSError) as e:
            raise ModelError(f"cannot load faster-whisper from {model_dir}: {e}") from e
        self._language = language
        self._lock = threading.Lock()
        self.name = model_dir.name
        features = self._model.feature_extractor  # Whisper's own window (30 s) and its frames' hop
        self._window, self._hop = features.nb_max_frames, features.hop_length
        self._min_frames = MIN_WINDOW_FRAMES.get(self.name, self._window)

    def __call__(self, audio: np.ndarray, words: bool = False, hotwords: str = "") -> Transcript:
        audio = audio.astype(np.float32)
        if not len(audio) or float(np.sqrt(np.mean(np.square(audio)))) < SILENT_RMS:
            return Transcript("", 0.0)
        heard = self._decode(audio, words, hotwords)
        seconds = len(audio) / SAMPLE_RATE_HZ
        if hotwords and seconds >= SPARSE_MIN_S and len(heard.text.split()) < SPARSE_WORDS_PER_S * seconds:
            # names as text said before can make Whisper skip most of a long stretch ("San and Francisco." left
            # "The Pacific." of 20 s of speech): the names never cost words, the fuller reading stands
            plain = self._decode(audio, words, "")
            if len(plain.text.split()) > len(heard.text.split()):
                return plain
        return heard

    def _decode(self, audio: np.ndarray, words: bool, hotwords: str) -> Transcript:
        frames = math.ceil(len(audio) / self._hop) + MARGIN_FRAMES
        with self._lock:  # the window belongs to this call until its segments are decoded
            self._model.frames = min(self._window, max(self._min_frames, frames))
            segments, _ = self._model.transcribe(
                audio,
                language=self._language,
                beam_size=1,
                without_timestamps=True,
                vad_filter=False,
                condition_on_previous_text=False,
                word_timestamps=words,  # and with them a pass after a first that stopped early (see below)
                hotwords=hotwords or None,
            )
            decoded, end_s = [], len(audio) / SAMPLE_RATE_HZ
            for segment in segments:  # a generator: each later pass is decoded only when asked for
                if decoded and _repeats(decoded[-1].text, segment.text):
                    break  # a later pass says again what the one before ended with: a loop, pass after pass
                decoded.append(segment)
                said = segment.words or ()
                if words and (not said or end_s - said[-1].end < LATER_PASS_MIN_S):
                    break
            if decoded:  # a later pass (words' times) over the pad after the last word: what it hears there is made up
                first = decoded[0].seek
                decoded = [s for s in decoded if s.seek == first or s.no_speech_prob < LATER_PASS_NO_SPEECH]
            segments = [s for s in decoded if _heard(s)]
        text = " ".join(s.text.strip() for s in segments).strip()
        if not segments:
            return Transcript("", 0.0, looped=any(s.compression_ratio > MAX_COMPRESSION for s in decoded))
        logprob = float(np.mean([s.avg_logprob for s in segments]))
        timed = tuple(
            Word(w.word.strip(), float(w.start), float(w.end))
            for s in segments
            for w in (s.words or ())
            if w.word.strip()
        )
        return Transcript(text, float(min(1.0, math.exp(logprob))), timed)


def _windowed_whisper():
    """faster-whisper's WhisperModel whose encoder reads `frames` of the 30-s window it is given (the rest is the
    padding faster-whisper added; None: all of it): see MIN_WINDOW_FRAMES."""
    from faster_whisper import WhisperModel

    class WindowedWhisper(WhisperModel):
        frames: int | None = None

        def encode(self, features: np.ndarray):
            return super().encode(features[..., : self.frames])

    return WindowedWhisper


def _repeats(before: str, later: str) -> bool:
    """Whether a later pass's text is what the pass before ended with ("... every purpose. Miss Inns." then "Miss
    Inns." eleven times over a tuning conversation's stretch)."""
    later = later.strip().lower()
    return bool(later) and before.strip().lower().endswith(later)


def _heard(segment) -> bool:
    """False for what Whisper makes up in silence or noise, or a decoding loop."""
    if segment.no_speech_prob > NO_SPEECH_PROB and segment.avg_logprob < NO_SPEECH_LOGPROB:
        return False
    return segment.compression_ratio <= MAX_COMPRESSION


def _one(model_dir: Path, pattern: str) -> str:
    found = sorted(model_dir.glob(pattern))
    if not found:
        raise ModelError(f"sherpa-onnx model {model_dir}: no file matching {pattern}")
    int8 = [f for f in found if ".int8." in f.name]
    return str((int8 or found)[0])


class SherpaAsr:
    """sherpa-onnx offline recognizer. The type is told by the folder: a joiner file means a transducer,
    encoder + decoder files Whisper, "nemo" in the folder name a NeMo CTC model, else Paraformer."""

    def __init__(self, model_dir: Path, device: str = "cpu", threads: int = 2) -> None:
        if not model_dir.is_dir():
            raise ModelError(f"sherpa-onnx model folder {model_dir} not found")
        _require("sherpa_onnx", "sherpa-onnx")
        import sherpa_onnx

        provider = "cuda" if device != "cpu" else "cpu"
        tokens = _one(model_dir, "*tokens.txt")
        common = {"num_threads": threads, "provider": provider, "sample_rate": SAMPLE_RATE_HZ}
        try:
            if list(model_dir.glob("*joiner*.onnx")):
                self._rec = sherpa_onnx.OfflineRecognizer.from_transducer(
                    encoder=_one(model_dir, "*encoder*.onnx"),
                    decoder=_one(model_dir, "*decoder*.onnx"),
                    joiner=_one(model_dir, "*joiner*.onnx"),
                    tokens=tokens,
                    **common,
                )
            elif list(model_dir.glob("*encoder*.onnx")):
                common.pop("sample_rate")
                self._rec = sherpa_onnx.OfflineRecognizer.from_whisper(
                    encoder=_one(model_dir, "*encoder*.onnx"),
                    decoder=_one(model_dir, "*decoder*.onnx"),
                    tokens=tokens,
                    **common,
                )
            elif "nemo" in model_dir.name:
                self._rec = sherpa_onnx.OfflineRecognizer.from_nemo_ctc(
                    model=_one(model_dir, "*.onnx"), tokens=tokens, **common
                )
            else:
                self._rec = sherpa_onnx.OfflineRecognizer.from_paraformer(
                    paraformer=_one(model_dir, "*.onnx"), tokens=tokens, **common
                )
        except (RuntimeError, ValueError) as e:
            raise ModelError(f"cannot load sherpa-onnx model {model_dir}: {e}") from e
        self.name = model_dir.name

    def __call__(self, audio: np.ndarray, words: bool = False, hotwords: str = "") -> Transcript:
        stream = self._rec.create_stream()
        stream.accept_waveform(SAMPLE_RATE_HZ, audio.astype(np.float32))
        self._rec.decode_stream(stream)
        text = stream.result.text.strip()
        return Transcript(text, 1.0 if text else 0.0)


def load_recognizer(name: str, models_dir: Path, device: str = "cpu", threads: int = 2) -> Recognizer:
    """The recognizer for config `models.asr`."""
    if name in registry.REGISTRY and registry.get(name).runtime.startswith("faster-whisper"):
        registry.verify(registry.get(name), models_dir)
        return WhisperAsr(models_dir / name, device, threads)
    if name.startswith("whisper-"):
        return WhisperAsr(models_dir / name, device, threads)
    if name.startswith("sherpa-"):
        return SherpaAsr(models_dir / name, device, threads)
    spec = registry.get(name)
    if spec.runtime != "pocketsphinx":
        raise ModelError(f"{name} is not a speech recognizer")
    registry.verify(spec, models_dir)
    return PocketSphinxAsr(models_dir / name)
