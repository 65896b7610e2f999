"""Simulated conversations from real voices, with the gold who-spoke-when and the words; deterministic per seed.

Two to four LibriSpeech readers of one group (app/evaluation/voices.py) take turns. A turn is contiguous words of
one of the speaker's clips, cut at word boundaries (the silver word times, 50 ms of margin where the pause allows),
ending at a pause or a punctuation mark when one lies within half the drawn length again. Drawn per turn:
- its length: log-normal, median 2.5 s, sigma 0.75, within 0.6-14 s (most turns 1-4 s, one in fifteen past 7 s).
  Conversational turns are short: Levinson & Torreira (2015, Front. Psychol. 6:731) put the mean turn near 2 s;
  read clips end at a word, so turns here run a little longer;
- who speaks: each person in the first N turns, then anyone else, or (8 %) the same speaker again after a pause
  of 0.4-1.2 s;
- the floor-transfer offset, the time from one speaker's end to the next one's start (negative: overlap). Stivers
  et al. (2009, PNAS 106:10587) found the offsets of answers in ten languages peak at 0-200 ms (English mean
  about 236 ms); Heldner & Edlund (2010, J. Phonetics 38:555) found about 40 % of speaker changes overlap in
  Dutch, Swedish and English corpora, most overlaps and gaps under 0.5 s, with a long tail of pauses; Levinson &
  Torreira (2015) sum up: modal offset about 200 ms, brief overlaps common. Here, of each conversation's speaker
  changes (shares rounded, which changes get them drawn): 25 % overlaps of 0.05-0.5 s (at most half of either
  turn), 8 % pauses of 0.8-1.5 s, the rest gaps of gamma(2.5, 0.08 s), mean 0.2 s, mode 0.12 s, at most 0.7 s.
  The issue's measurement had gaps about 0.2 s, 15 % overlaps up to 0.5 s and a few 1-s pauses;
- backchannels: in 30 % (rounded up) of the turns of 3 s or more that follow another speaker, that listener says
  one short word of their own voice inside the turn, at least 1 s after its start and 0.6 s before its end,
  0-4 dB softer: a "yes", "no", "well", "oh", "ah", "right"... of 0.15-0.6 s when their clips hold one, else a
  "so", "and", "but"..., else any word that short. In the gold it is the listener's speech and word.

Gold speech is each piece's energy above its clip's speech threshold inside the cut, pauses under 0.5 s filled:
the reference is utterance-level, as a memory keeps utterances rather than words (CHiME-6's references are whole
utterances, pauses and all; NIST RT filled pauses under 0.3 s). Words are clamped into their speech.

"noisy": each speaker through a synthetic room impulse response (exponentially decaying noise, RT60 0.3-0.7 s,
direct-to-reverberant 0-8 dB) and pink noise at 10-20 dB SNR over the whole recording; the gold is the dry speech.

The paused twin: the same pieces in the same order, each backchannel as its own turn after the turn it fell in,
1.2 s of silence between all of them (no overlap), the same room and noise level.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.evaluation.voices import GROUPS, TURN_MIN_S, Piece, Reader, Voices
from app.frames import SAMPLE_RATE_HZ

TURN_MEDIAN_S, TURN_SIGMA, TURN_MAX_S = 2.5, 0.75, 14.0
P_SAME, SAME_PAUSE_S = 0.08, (0.4, 1.2)
P_OVERLAP, OVERLAP_S = 0.25, (0.05, 0.5)
P_PAUSE, PAUSE_S = 0.08, (0.8, 1.5)
GAP_SHAPE, GAP_SCALE_S, GAP_MAX_S = 2.5, 0.08, 0.7
P_BACKCHANNEL, BACKCHANNEL_TURN_S = 0.3, 3.0
PAUSED_GAP_S = 1.2
LEAD_S, TAIL_S = 0.5, 1.0
RT60_S, DRR_DB, SNR_DB, GAIN_DB = (0.3, 0.7), (0.0, 8.0), (10.0, 20.0), 3.0


@dataclass(frozen=True)
class Segment:
    speaker: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class SpokenWord:
    speaker: str
    start_s: float
    end_s: float
    text: str


@dataclass(frozen=True)
class Turn:
    speaker: str
    kind: str  # "turn" or "backchannel"
    start_s: float
    end_s: float
    offset_s: float | None  # the floor-transfer offset drawn before it (None: the first turn, a backchannel)
    text: str


@dataclass(frozen=True)
class Conversation:
    name: str
    timing: str  # "conversational" or "paused"
    noisy: bool
    speakers: tuple[str, ...]
    audio: np.ndarray = field(repr=False)  # 16 kHz mono float32
    turns: tuple[Turn, ...]
    segments: tuple[Segment, ...]  # the gold who-spoke-when
    words: tuple[SpokenWord, ...]  # the gold (silver) words, in time order

    @property
    def duration_s(self) -> float:
        return len(self.audio) / SAMPLE_RATE_HZ


@dataclass(frozen=True)
class _Placed:
    piece: Piece
    at_s: float  # the speech onset in the recording
    gain: float
    offset_s: float | None


def conversation(
    voices: Voices, seed: int = 0, speakers: int = 2, group: str = "tuning", turns: int = 24, noisy: bool = False
) -> tuple[Conversation, Conversation]:
    """A conversation of `speakers` readers of `group` in about `turns` turns, and its paused twin."""
    pool = voices.group(group)
    if not 2 <= speakers <= len(pool):
        raise ValueError(f"{speakers} speakers: the {group} group has {len(pool)}")
    rng = np.random.default_rng([seed, speakers, GROUPS.index(group), 0])
    who = tuple(sorted(str(s) for s in rng.choice(pool, speakers, replace=False)))
    readers = {s: Reader(voices.clips(s), rng) for s in who}
    placed = _place(who, readers, rng, turns)
    room = _Room(who, np.random.default_rng([seed, speakers, GROUPS.index(group), 1])) if noisy else None
    gains = {s: 10 ** (float(rng.uniform(-GAIN_DB, GAIN_DB)) / 20) for s in who}
    name = f"{group}-{speakers}sp-s{seed}" + ("-noisy" if noisy else "")
    return (
        _render(name, "conversational", who, placed, gains, room),
        _render(name + "-paused", "paused", who, _paused(placed), gains, room),
    )


def _place(who: tuple[str, ...], readers: dict[str, Reader], rng: np.random.Generator, turns: int) -> list[_Placed]:
    """The turns placed in time (conversational timing), then the backchannels inside them."""
    order = [str(s) for s in rng.permutation(who)]  # everyone speaks in the first turns
    while len(order) < turns:
        same = rng.random() < P_SAME
        order.append(order[-1] if same else str(rng.choice([s for s in who if s != order[-1]])))
    order = order[:turns]
    kinds = iter(_kinds(rng, sum(a != b for a, b in zip(order, order[1:], strict=False))))
    placed: list[_Placed] = []
    ends: list[float] = []  # each turn's end, in order
    for k, speaker in enumerate(order):
        length = float(np.clip(rng.lognormal(np.log(TURN_MEDIAN_S), TURN_SIGMA), TURN_MIN_S, TURN_MAX_S))
        piece = readers[speaker].turn(length)
        if k == 0:
            at, offset = LEAD_S, None
        else:
            offset = _offset(rng, next(kinds) if speaker != order[k - 1] else "same")
            if offset < 0:  # an overlap: at most half of either turn, and never three people at once
                offset = -min(-offset, placed[-1].piece.length_s / 2, piece.length_s / 2)
            at = max(ends[-1] + offset, max(ends[:-1], default=0.0))
            offset = round(at - ends[-1], 4)
        placed.append(_Placed(piece, at, 1.0, offset))
        ends.append(at + piece.length_s)
    return placed + _backchannels(placed, order, readers, rng)


def _kinds(rng: np.random.Generator, changes: int) -> list[str]:
    """What each speaker change is, in a random order: P_OVERLAP of them overlaps, P_PAUSE pauses (rounded), the
    rest gaps, so every conversation holds its share."""
    overlaps, pauses = round(P_OVERLAP * changes), round(P_PAUSE * changes)
    kinds = ["overlap"] * overlaps + ["pause"] * pauses + ["gap"] * max(0, changes - overlaps - pauses)
    return [str(k) for k in rng.permutation(kinds)] if kinds else []


def _offset(rng: np.random.Generator, kind: str) -> float:
    """The floor-transfer offset in seconds (negative: overlap), drawn as the module's docstring says."""
    if kind == "same":
        return float(rng.uniform(*SAME_PAUSE_S))
    if kind == "overlap":
        return -float(rng.uniform(*OVERLAP_S))
    if kind == "pause":
        return float(rng.uniform(*PAUSE_S))
    return float(min(rng.gamma(GAP_SHAPE, GAP_SCALE_S), GAP_MAX_S))


def _backchannels(
    turns: list[_Placed], order: list[str], readers: dict[str, Reader], rng: np.random.Generator
) -> list[_Placed]:
    """In P_BACKCHANNEL (rounded up) of the turns long enough that follow another speaker, that speaker's short
    word, at least 1 s after the turn's start and 0.6 s before its end."""
    hosts = [
        k for k in range(1, len(turns)) if order[k] != order[k - 1] and turns[k].piece.length_s >= BACKCHANNEL_TURN_S
    ]
    out = []
    for k in sorted(rng.choice(hosts, int(np.ceil(P_BACKCHANNEL * len(hosts))), replace=False)) if hosts else []:
        word, turn = readers[order[k - 1]].backchannel(rng), turns[k]
        latest = turn.at_s + turn.piece.length_s - 0.6 - word.length_s
        if latest > turn.at_s + 1.0:
            gain = 10 ** (float(rng.uniform(-4.0, 0.0)) / 20)
            out.append(_Placed(word, float(rng.uniform(turn.at_s + 1.0, latest)), gain, None))
    return out


def _paused(placed: list[_Placed]) -> list[_Placed]:
    """The same pieces one after another with PAUSED_GAP_S between them; a backchannel after its turn."""
    turns = [p for p in placed if p.piece.kind == "turn"]
    inside = {
        id(t): [b for b in placed if b.piece.kind == "backchannel" and t.at_s <= b.at_s <= t.at_s + t.piece.length_s]
        for t in turns
    }
    out, at = [], LEAD_S
    for t in turns:
        for p in [t, *sorted(inside[id(t)], key=lambda b: b.at_s)]:
            out.append(_Placed(p.piece, at, p.gain, None if not out else PAUSED_GAP_S))
            at += p.piece.length_s + PAUSED_GAP_S
    return out


class _Room:
    """A synthetic room: each speaker's impulse response (direct path + exponentially decaying noise) and the
    pink noise's level."""

    def __init__(self, who: tuple[str, ...], rng: np.random.Generator) -> None:
        self.rt60_s = float(rng.uniform(*RT60_S))
        self.snr_db = float(rng.uniform(*SNR_DB))
        t = np.arange(int(self.rt60_s * SAMPLE_RATE_HZ)) / SAMPLE_RATE_HZ
        self.rirs = {}
        for s in who:
            tail = rng.standard_normal(len(t)) * np.exp(-6.91 * t / self.rt60_s)
            tail[: int(0.003 * SAMPLE_RATE_HZ)] = 0.0  # the first reflections come a few ms after the direct sound
            drr = float(rng.uniform(*DRR_DB))
            tail *= np.sqrt(10 ** (-drr / 10) / np.sum(tail**2))
            tail[0] = 1.0
            self.rirs[s] = tail.astype(np.float32)
        self.seed = int(rng.integers(2**31))

    def reverberant(self, speaker: str, audio: np.ndarray) -> np.ndarray:
        h = self.rirs[speaker]
        n = len(audio) + len(h) - 1
        size = 1 << (n - 1).bit_length()
        return np.fft.irfft(np.fft.rfft(audio, size) * np.fft.rfft(h, size), size)[:n].astype(np.float32)

    def noise(self, n: int, speech_power: float) -> np.ndarray:
        white = np.random.default_rng(self.seed).standard_normal(n)
        spectrum = np.fft.rfft(white)
        spectrum[1:] /= np.sqrt(np.arange(1, len(spectrum)))  # 1/f power: pink
        spectrum[0] = 0.0
        pink = np.fft.irfft(spectrum, n)
        pink *= np.sqrt(speech_power / 10 ** (self.snr_db / 10) / max(float(np.mean(pink**2)), 1e-12))
        return pink.astype(np.float32)


def _render(
    name: str, timing: str, who: tuple[str, ...], placed: list[_Placed], gains: dict[str, float], room: _Room | None
) -> Conversation:
    """The mixture and its gold."""
    end = max(p.at_s + p.piece.length_s for p in placed) + TAIL_S
    audio = np.zeros(int(end * SAMPLE_RATE_HZ) + 1, np.float32)
    segments, words, turns = [], [], []
    for p in sorted(placed, key=lambda p: p.at_s):
        signal = p.piece.audio * (p.gain * gains[p.piece.speaker])
        if room is not None:
            signal = room.reverberant(p.piece.speaker, signal)
        at = int(round((p.at_s - p.piece.onset_s) * SAMPLE_RATE_HZ))
        signal = signal[: len(audio) - at]
        audio[at : at + len(signal)] += signal
        segments += [Segment(p.piece.speaker, round(p.at_s + s, 3), round(p.at_s + e, 3)) for s, e in p.piece.spans]
        said = [
            SpokenWord(p.piece.speaker, round(p.at_s + w.start_s, 3), round(p.at_s + w.end_s, 3), w.text)
            for w in p.piece.words
        ]
        words += said
        turns.append(
            Turn(
                p.piece.speaker,
                p.piece.kind,
                round(p.at_s, 3),
                round(p.at_s + p.piece.length_s, 3),
                p.offset_s,
                " ".join(w.text for w in said),
            )
        )
    if room is not None:
        mask = np.zeros(len(audio), bool)
        for s in segments:
            mask[int(s.start_s * SAMPLE_RATE_HZ) : int(s.end_s * SAMPLE_RATE_HZ)] = True
        audio += room.noise(len(audio), float(np.mean(audio[mask] ** 2)))
    peak = float(np.max(np.abs(audio)))
    if peak > 0.99:
        audio *= 0.99 / peak
    words.sort(key=lambda w: (w.start_s, w.end_s))
    return Conversation(name, timing, room is not None, who, audio, tuple(turns), tuple(segments), tuple(words))
