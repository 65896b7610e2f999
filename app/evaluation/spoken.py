"""The gold scenes spoken aloud (`eval facts --spoken`): each line in its speaker's flite voice, placed in one
recording with conversational timing or with long pauses, and where every line lies in it.

Voices: the demo's people keep the demo's voices (app/demo.py `SPEAKERS`: Emily slt, John rms, David kal16);
anyone else takes the first of `VOICES` no one in the scene has yet, in the order they first speak, so every
speaker of a scene has a voice of their own. All at the demo's rate (`STRETCH`), which Whisper hears. `perturbed`
plays a voice faster or slower, higher or lower with it: the speed perturbation speech corpora use to make new
speakers from recorded ones, for sets with more people than voices (app/evaluation/lifelog_spoken.py).

Timing, drawn per scene from a seeded generator (the same seed gives the same recording). Of a scene's speaker
changes, `P_OVERLAP` (rounded) start before the previous line ends, by 0.05-0.4 s (at most half of either line),
`P_PAUSE` (rounded) after a pause of 0.8-1.2 s, and the rest after a gap of gamma(4, 0.05 s): mean 0.2 s, most
between 0.1 and 0.3 s, 0.05-0.6 s. Which changes get which is a random permutation, so every scene holds its
share. The same speaker twice in a row goes on after 0.4-1.2 s. These follow `eval conversations`
(app/evaluation/simulate.py: Stivers et al. 2009, Heldner & Edlund 2010), with the overlaps the issue measured.
"paused": the same lines, PAUSED_GAP_S apart, none overlapping: how every recording was made until now.

The recording starts LEAD_S before the first line, so its origin (the wall-clock time of sample 0) is the
scene's `start` minus LEAD_S and dates said in it resolve against the scene's day, as in the text evaluation.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

import numpy as np
from scipy.signal import resample_poly

from app.demo import SPEAKERS, STRETCH, speak
from app.evaluation.gold import Scene
from app.frames import SAMPLE_RATE_HZ

VOICES = ("slt", "rms", "kal16", "awb")  # flite's 16-kHz voices (kal is 8 kHz)
P_OVERLAP, OVERLAP_S = 0.2, (0.05, 0.4)
P_PAUSE, PAUSE_S = 0.1, (0.8, 1.2)
GAP_SHAPE, GAP_SCALE_S, GAP_S = 4.0, 0.05, (0.05, 0.6)
SAME_PAUSE_S = (0.4, 1.2)
PAUSED_GAP_S = 1.2
LEAD_S, TAIL_S = 1.0, 2.0
TIMINGS = ("conversational", "paused")

Speak = Callable[[str, str], np.ndarray]  # (text, flite voice) -> 16 kHz mono float32


@dataclass(frozen=True)
class PlacedLine:
    scene: str
    line: int  # index of the scene's line
    speaker: str
    text: str
    start_s: float  # from the recording's start
    end_s: float
    offset_s: float | None  # from the previous line's end (negative: overlap); None for the first


@dataclass(frozen=True)
class SpokenScene:
    scene: Scene
    timing: str  # conversational | paused
    voices: dict[str, str]  # speaker -> flite voice
    lines: tuple[PlacedLine, ...]
    audio: np.ndarray = field(repr=False)  # 16 kHz mono float32

    @property
    def origin_epoch_s(self) -> float:
        """The wall-clock time of the recording's first sample: the scene's start is its first line's."""
        return datetime.fromisoformat(self.scene.start).timestamp() - LEAD_S

    @property
    def duration_s(self) -> float:
        return len(self.audio) / SAMPLE_RATE_HZ


def perturbed(audio: np.ndarray, factor: float) -> np.ndarray:
    """`audio` played `factor` times faster (higher and quicker), resampled so that it stays 16 kHz."""
    if factor == 1.0:
        return audio
    ratio = Fraction(factor).limit_denominator(50)
    return resample_poly(audio, ratio.denominator, ratio.numerator).astype(np.float32)


def voices_for(scene: Scene) -> dict[str, str]:
    """Each speaker's flite voice: the demo's for its people, else the first one free in the scene."""
    demo = {s.name: s.voice for s in SPEAKERS}
    out: dict[str, str] = {}
    for speaker in dict.fromkeys(s for s, _ in scene.lines):
        if speaker in demo and demo[speaker] not in out.values():
            out[speaker] = demo[speaker]
    for speaker in dict.fromkeys(s for s, _ in scene.lines):
        if speaker not in out:
            free = [v for v in VOICES if v not in out.values()]
            if not free:
                raise ValueError(f"scene {scene.name}: more speakers than the {len(VOICES)} flite voices")
            out[speaker] = free[0]
    return out


def offsets(speakers: list[str], rng: np.random.Generator) -> list[float | None]:
    """The offset before each line (seconds from the previous line's end; negative: overlap), as the module says;
    overlaps are not yet bounded by the lines' lengths."""
    changes = sum(a != b for a, b in zip(speakers, speakers[1:], strict=False))
    overlaps, pauses = round(P_OVERLAP * changes), round(P_PAUSE * changes)
    kinds = iter(rng.permutation(["overlap"] * overlaps + ["pause"] * pauses + ["gap"] * (changes - overlaps - pauses)))
    out: list[float | None] = [None]
    for prev, speaker in zip(speakers, speakers[1:], strict=False):
        kind = next(kinds) if speaker != prev else "same"
        if kind == "overlap":
            out.append(-float(rng.uniform(*OVERLAP_S)))
        elif kind == "pause":
            out.append(float(rng.uniform(*PAUSE_S)))
        elif kind == "same":
            out.append(float(rng.uniform(*SAME_PAUSE_S)))
        else:
            out.append(float(np.clip(rng.gamma(GAP_SHAPE, GAP_SCALE_S), *GAP_S)))
    return out


def place(lengths: list[float], drawn: list[float | None]) -> list[tuple[float, float | None]]:
    """Each line's start and its offset from the previous line's end, from the lengths and the drawn offsets:
    an overlap is at most half of either line, and never three lines at once."""
    out: list[tuple[float, float | None]] = []
    ends: list[float] = []
    for k, (length, want) in enumerate(zip(lengths, drawn, strict=True)):
        if want is None:
            out.append((LEAD_S, None))
        else:
            offset = want if want >= 0 else -min(-want, length / 2, lengths[k - 1] / 2)
            start = max(ends[-1] + offset, max(ends[:-1], default=0.0))
            out.append((round(start, 4), round(start - ends[-1], 4)))
        ends.append(out[-1][0] + length)
    return out


def seed_of(scene: str, seed: int) -> list[int]:
    """The generator's seed for a scene: its name's CRC (stable across runs, unlike hash()) and `seed`."""
    return [seed, zlib.crc32(scene.encode())]


def render(
    scene: Scene,
    timing: str = "conversational",
    seed: int = 0,
    say: Speak | None = None,
    voices: dict[str, str] | None = None,
) -> SpokenScene:
    """The scene spoken in one recording with `timing`, and where each line lies; each speaker in `voices` (a
    speaker -> voice map over several scenes), else as `voices_for` gives them."""
    if timing not in TIMINGS:
        raise ValueError(f"timing: one of {', '.join(TIMINGS)}")
    voices = {s: voices[s] for s, _ in scene.lines} if voices else voices_for(scene)
    say = say or (lambda text, voice: speak(text, voice, STRETCH))
    speech = [say(text, voices[speaker]) for speaker, text in scene.lines]
    speakers = [speaker for speaker, _ in scene.lines]
    if timing == "paused":
        drawn: list[float | None] = [None] + [PAUSED_GAP_S] * (len(speech) - 1)
    else:
        drawn = offsets(speakers, np.random.default_rng(seed_of(scene.name, seed)))
    starts = place([len(a) / SAMPLE_RATE_HZ for a in speech], drawn)
    placed = [
        PlacedLine(scene.name, i, speaker, text, start, round(start + len(a) / SAMPLE_RATE_HZ, 4), offset)
        for i, ((speaker, text), a, (start, offset)) in enumerate(zip(scene.lines, speech, starts, strict=True))
    ]
    mix = np.zeros(int((placed[-1].end_s + TAIL_S) * SAMPLE_RATE_HZ) + 1, np.float32)
    for p, audio in zip(placed, speech, strict=True):
        at = int(round(p.start_s * SAMPLE_RATE_HZ))
        mix[at : at + len(audio)] += audio[: len(mix) - at]
    peak = float(np.max(np.abs(mix))) if len(mix) else 0.0
    if peak > 0.99:
        mix *= 0.99 / peak
    return SpokenScene(scene, timing, voices, tuple(placed), mix)


def timing_of(spoken: SpokenScene) -> dict:
    """How the scene's lines were timed: speaker changes, overlaps, gaps and pauses."""
    changes = [
        p.offset_s
        for prev, p in zip(spoken.lines, spoken.lines[1:], strict=False)
        if p.offset_s is not None and p.speaker != prev.speaker
    ]
    a = np.array(changes or [0.0])
    return {
        "lines": len(spoken.lines),
        "speaker_changes": len(changes),
        "overlaps": int(np.sum(a < 0)),
        "longest_overlap_s": round(max(0.0, -float(a.min())), 3),
        "median_offset_s": round(float(np.median(a)), 3),
        "pauses_over_0_8_s": int(np.sum(a >= 0.8)),
        "duration_s": round(spoken.duration_s, 1),
    }
