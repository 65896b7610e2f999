"""What one stretch of speech becomes: the turns of the voices in it, each an Utterance of its own.

The voices' runs (app/identity/diarize.py) are cut where the recognizer put a pause between two words near the
change of voice, and each turn takes the words said within it. A run with no words is dropped. A listener's
"mm-hm" or "yeah" inside someone else's turn is not a turn of its own: its time goes to the voice it was said
over, which is marked as overlapped, and its words go. A run that begins without a pause after another voice
(the VAD never heard silence between them) is marked as overlapped too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from app.audio.asr import Transcript, Word
from app.frames import SAMPLE_RATE_HZ, SpeechSegment, Utterance
from app.identity.diarize import VoiceRun

MIN_EMBED_S = 0.5  # a turn shorter than this gets no voice embedding
SNAP_S = 0.6  # a change of voice is moved to the pause between two words this near it (s)
MIN_GAP_S = 0.05  # a pause between two words at least this long (the recognizer often leaves none)
PAUSE_S = 0.15  # the VAD is looked at this far on each side of a change of voice for a pause (s)
BACKCHANNEL_S = 1.5  # a listener's signal is shorter than this (s)
# a voice's run this long (s) with fewer words a second than this in the reading of its whole stretch was passed
# over by Whisper (people say 2-3 words a second) and is read again on its own
SKIPPED_MIN_S = 1.0
SKIPPED_WORDS_PER_S = 1.0
_BACKCHANNEL_WORDS = frozenset(
    """mm mhm mmhmm mm-hmm mm-hm hmm hm uh-huh uh huh um yeah yes yep yup ya right okay ok sure wow oh ah aha
    really exactly true totally absolutely indeed cool nice great alright i see got it""".split()
)
_TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*")


def is_backchannel(text: str) -> bool:
    """Whether `text` is only a listener's signal ("Mm-hmm.", "Yeah, right.", "Oh, okay"): at most three words,
    each a signal."""
    tokens = _TOKEN.findall(text.lower())
    return 0 < len(tokens) <= 3 and all(t in _BACKCHANNEL_WORDS for t in tokens)


@dataclass(frozen=True)
class Heard:
    """What recognition made of a stretch of speech: its words and its voices' runs (with the voice windows
    they were found from, so a tentative recognition can be judged again when the stretch closes)."""

    transcript: Transcript
    runs: tuple[VoiceRun, ...]
    windows: tuple[np.ndarray, np.ndarray] | None = None  # (unit embeddings, centres in s)
    texts: tuple[str, ...] | None = None  # each run's words recognised on its own (the whole stretch looped)


def _cut(bound: float, words: tuple[Word, ...]) -> float:
    """The middle of the pause between two words nearest `bound` within SNAP_S, else `bound`."""
    gaps = [((a.end_s + b.start_s) / 2, b.start_s - a.end_s) for a, b in zip(words, words[1:], strict=False)]
    near = [(abs(mid - bound), mid) for mid, gap in gaps if gap >= MIN_GAP_S and abs(mid - bound) <= SNAP_S]
    return min(near)[1] if near else bound


def _paused(seg: SpeechSegment, at_s: float, threshold: float) -> bool:
    """Whether the VAD heard a pause (a window under `threshold`) within PAUSE_S of `at_s`."""
    probs = seg.speech_probs
    if probs is None or not len(probs):
        return True
    per = len(seg.audio) / len(probs) / SAMPLE_RATE_HZ  # seconds per VAD window
    lo, hi = max(0, int((at_s - PAUSE_S) / per)), min(len(probs), int(np.ceil((at_s + PAUSE_S) / per)))
    return lo >= hi or float(np.min(probs[lo:hi])) < threshold


def _voiced(seg: SpeechSegment, start: float, end: float, threshold: float, lead_s: float) -> tuple[float, float]:
    """The part of [start, end) from `lead_s` before its first window the VAD heard as speech (its probability
    rises a little after the speech begins) to its last (the segment's pads and the pause before a change of
    voice are no one's speech); [start, end) when it heard none."""
    probs = seg.speech_probs
    if probs is None or not len(probs):
        return start, end
    per = len(seg.audio) / len(probs) / SAMPLE_RATE_HZ
    lo, hi = int(start / per), min(len(probs), int(np.ceil(end / per)))
    voiced = np.flatnonzero(probs[lo:hi] >= threshold)
    if not len(voiced):
        return start, end
    return max(start, (lo + int(voiced[0])) * per - lead_s), min(end, (lo + int(voiced[-1]) + 1) * per)


def _spread(runs: list[VoiceRun], texts: tuple[str, ...]) -> tuple[Word, ...]:
    """Words recognised run by run, given times evenly across their run (the cuts fall between runs)."""
    out = []
    for run, text in zip(runs, texts, strict=True):
        said = text.split()
        step = (run.end_s - run.start_s) / max(len(said), 1)
        out += [Word(w, run.start_s + k * step, run.start_s + (k + 1) * step) for k, w in enumerate(said)]
    return tuple(out)


def fill_skipped(
    transcript: Transcript, runs: tuple[VoiceRun, ...], read: Callable[[VoiceRun], str]
) -> tuple[Transcript, int]:
    """The stretch's words with each voice's run that Whisper passed over (SKIPPED_MIN_S or more of it with under
    SKIPPED_WORDS_PER_S: read over several voices, it sometimes drops a quick answer whole) read again on its own
    by `read`, its words spread over the run; and how many runs were read again."""
    if len(runs) < 2 or not transcript.words:
        return transcript, 0
    words, again = list(transcript.words), 0
    for run in runs:
        seconds = run.end_s - run.start_s
        held = _words_in(words, run.start_s, run.end_s)
        if seconds < SKIPPED_MIN_S or len(held) >= SKIPPED_WORDS_PER_S * seconds:
            continue
        text = read(run)
        if len(text.split()) <= len(held):
            continue
        words = sorted([w for w in words if w not in held] + list(_spread([run], (text,))), key=lambda w: w.start_s)
        again += 1
    if not again:
        return transcript, 0
    return replace(transcript, text=" ".join(w.text for w in words), words=tuple(words)), again


def _words_in(words: Sequence[Word], start: float, end: float) -> list[Word]:
    return [w for w in words if start <= (w.start_s + w.end_s) / 2 < end]


def turns(
    seg: SpeechSegment,
    heard: Heard,
    conversation: int,
    embed: Callable[[np.ndarray], np.ndarray],
    pause_threshold: float,
    lead_s: float = 0.1,
) -> list[Utterance]:
    """The utterances of one stretch of speech: one per turn of a voice, or one for the whole stretch, each
    from its speech's start (`lead_s` before the VAD's first window above `pause_threshold`) to its end."""
    text, runs = heard.transcript.text, list(heard.runs)
    conf = heard.transcript.confidence
    if heard.texts is not None and len(heard.texts) == len(runs):  # each run heard on its own: its words
        transcript = Transcript(" ".join(t for t in heard.texts if t), conf, _spread(runs, heard.texts))
        heard = Heard(transcript, heard.runs, heard.windows)

    def utterance(said: str, cut_start: float, cut_end: float, **fields) -> Utterance:
        """The turn said in [cut_start, cut_end) of the stretch, over the part of it that is speech."""
        start, end = _voiced(seg, cut_start, cut_end, pause_threshold, lead_s)
        audio = seg.audio[int(start * SAMPLE_RATE_HZ) : int(end * SAMPLE_RATE_HZ)]
        embedding = embed(audio) if end - start >= MIN_EMBED_S else None
        start_s, end_s = seg.t_start_s + start, seg.t_start_s + end
        return Utterance(said, start_s, end_s, conf, embedding, None, audio, backchannel=is_backchannel(said), **fields)

    if len(runs) <= 1 or not heard.transcript.words:
        voice = (conversation, runs[0].voice) if runs and heard.windows is not None else None
        return [utterance(text, 0.0, seg.duration_s, voice=voice)]
    words = heard.transcript.words
    bounds = [0.0, *(_cut(r.start_s, words) for r in runs[1:]), seg.duration_s]
    pieces = []  # [start, end, voice, words, overlapped]
    for k, run in enumerate(runs):
        start, end = bounds[k], max(bounds[k], bounds[k + 1])
        overlapped = k > 0 and not _paused(seg, start, pause_threshold)
        pieces.append([start, end, run.voice, _words_in(words, start, end), overlapped])
    # a listener's signal inside another voice's turn: its time to that voice, its words dropped
    k = len(pieces) - 2
    while k >= 1:
        if k + 1 >= len(pieces):
            k -= 1
            continue
        before, this, after = pieces[k - 1], pieces[k], pieces[k + 1]
        signal = " ".join(w.text for w in this[3])
        if (
            before[2] == after[2] != this[2]
            and this[1] - this[0] < BACKCHANNEL_S
            and (not signal or is_backchannel(signal))
        ):
            before[1], before[3], before[4] = after[1], before[3] + after[3], True
            del pieces[k : k + 2]
        k -= 1
    return [  # a piece with nothing recognised in it is no turn
        utterance(" ".join(w.text for w in said), start, end, voice=(conversation, voice), overlapped=over, whole=False)
        for start, end, voice, said, over in pieces
        if said
    ]
