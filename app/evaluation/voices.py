"""Real voices for simulated conversations: the LibriSpeech readers in ../shared/data, split into two fixed groups,
each clip with its words and their times, cut into pieces (`Reader`): turns of contiguous words ending at a pause
or a punctuation mark where one is near, and one-word backchannels (app/evaluation/simulate.py places them).

LibriSpeech's transcripts are not in the shared data, so the words are "silver": faster-whisper (the project's
whisper-base, beam 5, word timestamps, Whisper's full 30-s window) run once on each isolated clip and cached as
JSON outside the project (`~/.cache/lifemem/eval-conversations/`, keyed by the clip's path and size and the
model file's sha256). A recorder's words are scored against them, so whisper-base's own errors on a clean clip
count for nothing; its mistakes on the mixture do.

Groups: the readers sorted by their numeric id, the first half `tuning` (367, 533, 1998 F; 1688, 2033 M), the
rest `held-out` (3080, 3331 F; 2414, 2609, 3005 M), which stays blind: the speaker-turn finder
(app/identity/diarize.py) was first tried and its voice bar calibrated on the tuning readers' clips before this
harness existed, and never on the held-out ones. Both groups hold both genders.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.audio.media import read_audio
from app.errors import MediaError, ModelError
from app.frames import SAMPLE_RATE_HZ

_LOGGER = logging.getLogger(__name__)
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
VOICES = SHARED / "librispeech_test_other_resemblyzer"
GROUPS = ("tuning", "held-out")
TARGET_RMS = 0.05  # each clip's speech brought to about -26 dBFS before mixing
FRAME_S = 0.01  # hop of the energy frames that find a piece's speech edges
MARGIN_S = 0.05  # cut this far beyond a piece's first and last word, at most half the pause beside it
BREAK_GAP_S = 0.15  # a pause between words where a turn may end
FILL_S = 0.5  # shorter silences inside a piece are speech in the gold (utterance-level, see simulate.py)
TURN_MIN_S = 0.6  # a clip's rest shorter than this is no turn
BACKCHANNEL_MAX_S = 0.6
BACKCHANNEL_WORDS = (  # the listener's word: the first of these tiers their clips hold, else any short word
    frozenset("yes yeah yep no nay aye well oh ah ay right okay ok mm hmm mhm sure true indeed".split()),
    frozenset("so and but now why what".split()),
)
SILVER = {"language": "en", "beam_size": 5, "word_timestamps": True, "vad_filter": False}


@dataclass(frozen=True)
class Word:
    text: str  # as Whisper wrote it, stripped (may carry punctuation)
    start_s: float  # within its clip
    end_s: float


@dataclass(frozen=True)
class Clip:
    speaker: str
    gender: str
    name: str  # the manifest's path
    audio: np.ndarray  # 16 kHz mono float32, speech at TARGET_RMS
    words: tuple[Word, ...]
    loud: np.ndarray  # per FRAME_S frame: True where the clip's energy is above its speech threshold


class Voices:
    """The readers of a LibriSpeech-style manifest; each one's clips (with their silver words) are read when first
    asked for, transcribing once what the cache lacks."""

    def __init__(
        self, data: Path = VOICES, models_dir: Path | None = None, cache: Path | None = None, threads: int = 2
    ):
        table = data / "manifest.csv"
        if not table.is_file():
            raise MediaError(f"{table} not found: expected the LibriSpeech readers (path, speaker_id, gender)")
        with table.open() as fh:
            self._rows = list(csv.DictReader(fh))
        self.data = data
        self.genders = {r["speaker_id"]: r.get("gender", "?") for r in self._rows}
        models_dir = models_dir or Path(__file__).resolve().parents[2] / "models"
        self._silver = _Silver(models_dir / "whisper-base", cache or default_cache(), threads)
        self._clips: dict[str, tuple[Clip, ...]] = {}

    def group(self, name: str) -> tuple[str, ...]:
        """The readers of a group ("tuning" or "held-out")."""
        if name not in GROUPS:
            raise ValueError(f"unknown group {name!r}: {', '.join(GROUPS)}")
        ranked = sorted(self.genders, key=lambda s: (int(s) if s.isdigit() else 0, s))
        half = (len(ranked) + 1) // 2
        return tuple(ranked[:half] if name == "tuning" else ranked[half:])

    def clips(self, speaker: str) -> tuple[Clip, ...]:
        """A reader's clips, levelled, with their silver words."""
        if speaker not in self._clips:
            out = []
            for r in (r for r in self._rows if r["speaker_id"] == speaker):
                path = self.data / r["path"]
                audio = read_audio(path)
                words = self._silver.words(r["path"], path.stat().st_size, audio)
                audio, loud = _levelled(audio)
                out.append(Clip(speaker, self.genders[speaker], r["path"], audio, words, loud))
            self._clips[speaker] = tuple(out)
        return self._clips[speaker]


@dataclass(frozen=True)
class Piece:
    """Words of one clip in one voice: the audio cut with its margins and the speech in it."""

    speaker: str
    kind: str  # "turn" or "backchannel"
    audio: np.ndarray
    onset_s: float  # where the speech starts in `audio`
    spans: tuple[tuple[float, float], ...]  # the speech, from the onset (the first starts at 0)
    words: tuple[Word, ...]  # from the onset, inside the spans

    @property
    def length_s(self) -> float:
        return self.spans[-1][1]


def default_cache() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("lifemem")) / "eval-conversations"


def _levelled(audio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The clip at TARGET_RMS over its speech, and which frames are speech by energy: above both the noise floor
    (10th percentile) + 10 dB and the speech level (95th percentile) - 35 dB."""
    hop = int(FRAME_S * SAMPLE_RATE_HZ)
    n = max(1, len(audio) // hop)
    frames = audio[: n * hop].reshape(n, hop)
    db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-12)
    floor, speech = np.percentile(db, 10), np.percentile(db, 95)
    loud = db > max(floor + 10.0, speech - 35.0)
    rms = float(np.sqrt(np.mean(frames[loud] ** 2))) if loud.any() else float(np.sqrt(np.mean(audio**2)) + 1e-9)
    return (audio * (TARGET_RMS / max(rms, 1e-6))).astype(np.float32), loud


class _Silver:
    """faster-whisper's words for a clip, from the cache or transcribed once (the model loads on first need)."""

    def __init__(self, model_dir: Path, cache: Path, threads: int) -> None:
        self.model_dir, self.cache, self.threads = model_dir, cache, threads
        self._model = None

    def words(self, name: str, size: int, audio: np.ndarray) -> tuple[Word, ...]:
        key = hashlib.sha256(f"{name}|{size}|{_model_sha(self.model_dir / 'model.bin')}|{SILVER}".encode()).hexdigest()
        path = self.cache / f"{Path(name).stem}.{key[:16]}.json"
        if path.is_file():
            return tuple(Word(t, s, e) for t, s, e in json.loads(path.read_text())["words"])
        words = self._transcribe(audio)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "clip": name,
            "model": self.model_dir.name,
            "settings": SILVER,
            "words": [[w.text, w.start_s, w.end_s] for w in words],
        }
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record))
        tmp.replace(path)
        return words

    def _transcribe(self, audio: np.ndarray) -> tuple[Word, ...]:
        if self._model is None:
            try:
                from faster_whisper import WhisperModel

                _LOGGER.warning("transcribing the LibriSpeech clips once for their silver words (cached)")
                self._model = WhisperModel(
                    str(self.model_dir),
                    device="cpu",
                    compute_type="int8",
                    cpu_threads=self.threads,
                    local_files_only=True,
                )
            except (ImportError, RuntimeError, ValueError, OSError) as e:
                raise ModelError(
                    f"cannot load faster-whisper from {self.model_dir}: {e} (run `python3 build.py`)"
                ) from e
        segments, _ = self._model.transcribe(audio, condition_on_previous_text=False, **SILVER)
        out = []
        for segment in segments:
            for w in segment.words or ():
                text = w.word.strip()
                if text and w.end > w.start:
                    out.append(Word(text, round(float(w.start), 3), round(float(w.end), 3)))
        return tuple(out)


@functools.cache
def _model_sha(path: Path) -> str:
    if not path.is_file():
        raise ModelError(f"{path} not found (run `python3 build.py`)")
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Reader:
    """One speaker's clips, cut into turns in reading order (a clip's words are used once while any are left)."""

    def __init__(self, clips: tuple[Clip, ...], rng: np.random.Generator) -> None:
        self.clips, self.rng = clips, rng
        self.cursor = [0] * len(clips)
        short = [
            (c, i) for c in clips for i, w in enumerate(c.words) if 0.15 <= w.end_s - w.start_s <= BACKCHANNEL_MAX_S
        ]
        tiers = [[(c, i) for c, i in short if _bare(c.words[i].text) in words] for words in BACKCHANNEL_WORDS]
        self.short = next((tier for tier in tiers if tier), short)

    def turn(self, length_s: float) -> Piece:
        left = np.array([self._left_s(n) for n in range(len(self.clips))])
        if not np.any(left >= TURN_MIN_S):  # every clip read: read them again
            self.cursor = [0] * len(self.clips)
            left = np.array([self._left_s(n) for n in range(len(self.clips))])
        left[left < TURN_MIN_S] = 0.0
        n = int(self.rng.choice(len(self.clips), p=left / left.sum()))
        clip, i = self.clips[n], self.cursor[n]
        words, j = clip.words, i + 1
        while j < len(words) and words[j - 1].end_s - words[i].start_s < length_s:
            j += 1
        reach = words[i].start_s + length_s * 1.5
        k = j
        while k < len(words) and not _ends(words, k - 1) and words[k].end_s <= reach:
            k += 1
        if k == len(words) or _ends(words, k - 1):
            j = k
        if j < len(words) and words[-1].end_s - words[j].start_s < TURN_MIN_S:
            j = len(words)  # what would be left of the clip is too short for a turn
        self.cursor[n] = j
        return _piece(clip, i, j, "turn")

    def _left_s(self, n: int) -> float:
        words, k = self.clips[n].words, self.cursor[n]
        return words[-1].end_s - words[k].start_s if k < len(words) else 0.0

    def backchannel(self, rng: np.random.Generator) -> Piece:
        clip, i = self.short[int(rng.integers(len(self.short)))]
        return _piece(clip, i, i + 1, "backchannel")


def _bare(text: str) -> str:
    return re.sub(r"[^a-z']", "", text.lower())


def _ends(words: tuple[Word, ...], k: int) -> bool:
    """Whether a turn may end after word k: the clip's last word, a punctuation mark or a pause after it."""
    if k + 1 >= len(words):
        return True
    return words[k].text[-1:] in ".,;:?!" or words[k + 1].start_s - words[k].end_s >= BREAK_GAP_S


def _piece(clip: Clip, i: int, j: int, kind: str) -> Piece:
    """Words i..j-1 of a clip, cut with their margins; the speech in the cut from the clip's energy."""
    words, duration = clip.words, len(clip.audio) / SAMPLE_RATE_HZ
    before = words[i].start_s - (words[i - 1].end_s if i else 0.0)
    after = (words[j].start_s if j < len(words) else duration) - words[j - 1].end_s
    a = max(0.0, words[i].start_s - min(MARGIN_S, max(before, 0.0) / (2 if i else 1)))
    b = min(duration, words[j - 1].end_s + min(MARGIN_S, max(after, 0.0) / (2 if j < len(words) else 1)))
    spans = _speech(clip.loud, a, b) or [(words[i].start_s, words[j - 1].end_s)]
    onset = spans[0][0]
    a, b = max(a, onset - MARGIN_S), min(b, spans[-1][1] + MARGIN_S)  # no long silence kept around the speech
    rel = tuple((s - onset, e - onset) for s, e in spans)
    cut = clip.audio[int(a * SAMPLE_RATE_HZ) : int(b * SAMPLE_RATE_HZ)]
    return Piece(clip.speaker, kind, cut, onset - a, rel, tuple(_clamped(w, onset, rel) for w in words[i:j]))


def _speech(loud: np.ndarray, a: float, b: float) -> list[tuple[float, float]]:
    """The loud stretches of frames within [a, b] s, silences under FILL_S filled."""
    lo, hi = int(np.ceil(a / FRAME_S)), int(b / FRAME_S)
    frames = np.flatnonzero(loud[lo:hi]) + lo
    if not len(frames):
        return []
    spans, start, last = [], frames[0], frames[0]
    for f in frames[1:]:
        if (f - last - 1) * FRAME_S >= FILL_S:
            spans.append((start * FRAME_S, (last + 1) * FRAME_S))
            start = f
        last = f
    spans.append((start * FRAME_S, min((last + 1) * FRAME_S, b)))
    return [(round(float(s), 3), round(float(e), 3)) for s, e in spans]


def _clamped(w: Word, onset: float, spans: tuple[tuple[float, float], ...]) -> Word:
    """A word's times from the onset, moved into the speech span it overlaps most."""
    s, e = w.start_s - onset, w.end_s - onset
    best = max(spans, key=lambda sp: (min(e, sp[1]) - max(s, sp[0]), -abs(s - sp[0])))
    s, e = min(max(s, best[0]), best[1]), min(max(e, best[0]), best[1])
    return Word(w.text, round(s, 3), round(max(s, e), 3))
