"""Session segmentation (EgoMem's episodic trigger, by rule): where a conversation starts and ends.

A stream of speech turns (each with its speaker, or None when too short to tell) is cut where
- the silence between two turns reaches `gap_s`, or
- the participants change completely: after a pause of at least `change_gap_s`, none of the voices of the
  `window` turns before it is heard again in any turn after it until the next silence of `gap_s` (cosine
  below `same_voice`, stricter than identity's threshold: telling "someone else" apart matters more here than
  naming them). The earlier people must be gone: a conversation that opens with one voice, then goes on with
  others before that voice speaks again, stays whole.
A stretch with less than `min_speech_s` of speech, or no voice long enough to tell whose it is, is not a
conversation (a passing remark, a voice from the next room): its turns belong to no session.
Sessions are labelled per 80 ms frame like EgoMem's tagger: 0 no dialog, 1 start, 2 in session, 3 end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FPS = 12.5  # frames per second (80 ms), EgoMem's step
NONE, START, IN, END = 0, 1, 2, 3


@dataclass(frozen=True, eq=False)
class Turn:
    t_start: float  # s
    t_end: float
    speaker: int | None  # None: too short to say who
    voice: np.ndarray | None = None  # unit speaker embedding, when the turn was long enough


@dataclass(frozen=True)
class Session:
    t_start: float
    t_end: float
    speakers: frozenset[int]


def _speakers(turns: list[Turn]) -> set[int]:
    return {t.speaker for t in turns if t.speaker is not None}


def participants_changed(before: list[Turn], after: list[Turn], same_voice: float) -> bool:
    """No voice after sounds like any voice before (cosine below same_voice); without voices on both sides,
    no speaker id is shared."""
    a = [t.voice for t in before if t.voice is not None]
    b = [t.voice for t in after if t.voice is not None]
    if a and b:
        return float(np.max(np.stack(a) @ np.stack(b).T)) < same_voice
    ids_a, ids_b = _speakers(before), _speakers(after)
    return bool(ids_a) and bool(ids_b) and not ids_a & ids_b


def boundary_before(
    turns: list[Turn], i: int, gap_s: float, change_gap_s: float, window: int, same_voice: float = 0.82
) -> bool:
    """Whether a session ends between turns[i - 1] and turns[i]: `window` turns before against every turn
    after (those known so far). The turns looked at on each side stop at a silence of gap_s, which ends a
    session anyway: the people of the next one are not this one's."""
    gap = turns[i].t_start - turns[i - 1].t_end
    if gap >= gap_s:
        return True
    if gap < change_gap_s:
        return False
    before, after = turns[max(0, i - window) : i], turns[i:]
    while len(before) > 1 and before[1].t_start - before[0].t_end >= gap_s:
        before = before[1:]
    cut = next((k for k in range(1, len(after)) if after[k].t_start - after[k - 1].t_end >= gap_s), len(after))
    return participants_changed(before, after[:cut], same_voice)


def is_conversation(turns: list[Turn], min_speech_s: float) -> bool:
    return bool(_speakers(turns)) and sum(t.t_end - t.t_start for t in turns) >= min_speech_s


def segment(
    turns: list[Turn],
    gap_s: float,
    change_gap_s: float = 1.5,
    window: int = 3,
    min_speech_s: float = 3.0,
    same_voice: float = 0.82,
) -> list[Session]:
    """Sessions of a whole stream of turns (sorted by start)."""
    sessions, start = [], 0
    for i in range(1, len(turns) + 1):
        if i == len(turns) or boundary_before(turns, i, gap_s, change_gap_s, window, same_voice):
            part = turns[start:i]
            if is_conversation(part, min_speech_s):
                sessions.append(Session(part[0].t_start, max(t.t_end for t in part), frozenset(_speakers(part))))
            start = i
    return sessions


def frame_labels(sessions: list[Session], duration_s: float, fps: float = FPS) -> np.ndarray:
    labels = np.full(int(np.ceil(duration_s * fps)), NONE, np.int8)
    for s in sessions:
        a, b = int(round(s.t_start * fps)), min(len(labels) - 1, int(round(s.t_end * fps)))
        labels[a : b + 1] = IN
        labels[a], labels[b] = START, END
    return labels


def jaccard(pred: np.ndarray, true: np.ndarray) -> float:
    """Overlap of the in-session frames."""
    p, t = pred != NONE, true != NONE
    union = np.logical_or(p, t).sum()
    return float(np.logical_and(p, t).sum() / union) if union else 1.0


def boundary_prf(pred: np.ndarray, true: np.ndarray, tolerance: int) -> tuple[float, float, float]:
    """Precision, recall, F1 of start and end frames, each matched once to a true one of the same kind
    within +-tolerance frames (EgoMem's span_match@N)."""
    hits = n_pred = n_true = 0
    for kind in (START, END):
        p_idx, t_idx = list(np.flatnonzero(pred == kind)), list(np.flatnonzero(true == kind))
        n_pred, n_true = n_pred + len(p_idx), n_true + len(t_idx)
        free = set(range(len(t_idx)))
        for p in p_idx:
            near = [(abs(p - t_idx[j]), j) for j in free if abs(p - t_idx[j]) <= tolerance]
            if near:
                free.discard(min(near)[1])
                hits += 1
    precision = hits / n_pred if n_pred else 1.0
    recall = hits / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
