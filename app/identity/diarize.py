"""Speaker turns inside a stretch of speech: people answer within a fifth of a second and overlap, so one stretch
the VAD finds often holds several voices.

Each stretch is read as voice embeddings over short sliding windows (`turns.window_s`, every `turns.hop_s`: the
voice encoder's own partial embeddings, shorter). Then, per stretch:
1. cut where the voice changes, without knowing whose it is: the cuts that best split the windows into runs of
   one voice (dynamic programming on the sum over runs of the length of their summed unit windows — each run's
   windows against their own mean — less `turns.change_cost` per cut, runs of at least `turns.min_turn_s`);
2. the stretch's runs that sound alike are grouped, and a group whose mean is not within the bar of a voice of
   this conversation is a new voice of it. The bar is `turns.same_voice` for a group of 10 windows or more
   against a voice of 80 or more, lower by SLOPE per e-fold fewer on either side: a mean of few windows is a
   noisy estimate (measured on the tuning readers: the equal-error cosine rises from 0.68 for 5 windows
   against 5 to 0.81 for 10 against 80, and no further). The bar sits above that equal-error point (0.85):
   one voice taken for two is mended when both are given to the same person; two taken for one is not;
3. every window is labelled with the conversation voice it is closest to, smoothed by Viterbi with a cost of
   `turns.switch_cost` per change, and the voices learn the windows given to them.
The labels are the conversation's voices (0, 1, ...), not people: app/recorder/writer.py gives each one to a
person, known or new. Measured on conversations simulated from LibriSpeech readers (README, Conversations).

Online, a voice is born from the first stretch it is heard in, and a conversation that opens with quick exchanges
gives birth to a voice that holds two people and learns both. When the conversation ends, `conversation_voices`
clusters all of its turns' windows at once (spectral clustering with the number of voices read off the eigengap of
a pruned affinity graph: Park et al. 2019, "Auto-Tuning Spectral Clustering for Speaker Diarization Using
Normalized Maximum Eigengap"), and app/recorder/writer.py gives the turns to people again by it.

Then a second speaker model checks each voice found (`split_voices`): two people whose voices are alike for the
windows' model (Resemblyzer) are one voice of the clustering, and CAM++ (3D-Speaker), a stronger model on turns of
1.5 s or more but weaker on 1-s windows, tells them apart. A voice whose checked turns fall into two halves (2-means)
less alike than `turns.split_below`, each of MIN_HALF turns or more, becomes two voices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.cluster.vq import ClusterError, kmeans2

from app.config import TurnsConfig

SLOPE = 0.03  # how much lower the bar is per e-fold fewer windows on either side (see the module's docstring)
FULL_RUN, FULL_VOICE = 10, 80  # windows from which a run's and a voice's means are as sharp as they get
# The whole conversation's clustering (`conversation_voices`): its points are pieces of PIECE_WINDOWS windows of one
# turn (about 1.8 s of speech); with fewer than MIN_PIECES the online voices stand; beyond MAX_PIECES an even sample
# of them is clustered; at most MAX_VOICES voices. On the tuning readers' conversations (27, seeds 0-2) and each
# of their speakers alone (73 one-voice sets), clusters of under MIN_VOICE_PIECES were all one voice split in two
# (2-8 pieces, means 0.74-0.95 alike), while two readers' clusters held 9-29 pieces at most 0.894 alike.
PIECE_WINDOWS, MIN_PIECES, MAX_PIECES, MAX_VOICES = 5, 8, 600, 10
MIN_VOICE_PIECES = 6  # a cluster of fewer pieces (about 6 s of speech) joins its nearest: one voice split in two
# A voice is split by the second model only into halves of MIN_HALF checked turns or more: halves of one or two turns
# of one reader fell to 0.62 alike (README, Conversations).
MIN_HALF = 3
REFINE = 3  # rounds of giving each piece to the cluster mean it is most alike before alike clusters merge


@dataclass(frozen=True)
class VoiceRun:
    """A stretch of one voice inside a stretch of speech, in seconds from the stretch's start."""

    start_s: float
    end_s: float
    voice: int  # the conversation's voice: 0, 1, ... in the order they were first heard
    overlapped: bool = False  # it begins without a pause over the end of the previous voice's speech


def change_points(windows: np.ndarray, change_cost: float, min_windows: int) -> list[int]:
    """The indices at which a new run of one voice starts (0 first) that maximise the sum over runs of the
    length of their summed unit windows less `change_cost` per cut; runs of at least `min_windows`."""
    n = len(windows)
    if n < 2 * min_windows:
        return [0]
    cum = np.vstack([np.zeros(windows.shape[1], np.float32), np.cumsum(windows, axis=0, dtype=np.float32)])
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, np.int64)
    for j in range(min_windows, n + 1):
        starts = np.arange(0, j - min_windows + 1)
        starts = starts[np.isfinite(best[starts])]
        if not len(starts):
            continue
        gain = best[starts] + np.linalg.norm(cum[j] - cum[starts], axis=1) - np.where(starts > 0, change_cost, 0.0)
        k = int(np.argmax(gain))
        best[j], back[j] = gain[k], starts[k]
    cuts, j = [], n
    while j > 0:
        j = int(back[j])
        cuts.append(j)
    return sorted(cuts)


def viterbi(scores: np.ndarray, switch_cost: float) -> np.ndarray:
    """The label of each row that maximises the summed scores less `switch_cost` per change of label."""
    n, m = scores.shape
    total = scores[0].astype(np.float64)
    back = np.zeros((n, m), np.int64)
    for i in range(1, n):
        j = int(np.argmax(total))
        switch = total[j] - switch_cost
        stay = total >= switch
        back[i] = np.where(stay, np.arange(m), j)
        total = np.where(stay, total, switch) + scores[i]
    labels = np.zeros(n, np.int64)
    labels[-1] = int(np.argmax(total))
    for i in range(n - 1, 0, -1):
        labels[i - 1] = back[i, labels[i]]
    return labels


def unit(v: np.ndarray) -> np.ndarray:
    """`v` scaled to length 1 (a zero vector stays zero)."""
    return v / max(float(np.linalg.norm(v)), 1e-12)


class Diarizer:
    """The voices of one conversation, learnt as it goes: `runs()` for each stretch of speech in order;
    `reset()` when a conversation ends."""

    def __init__(self, cfg: TurnsConfig) -> None:
        self.cfg = cfg
        self._min_windows = max(1, round(cfg.min_turn_s / cfg.hop_s))
        self.reset()

    def reset(self) -> None:
        self._sums: list[np.ndarray] = []  # each voice's summed window embeddings
        self._counts: list[int] = []  # and how many windows it has learnt

    def copy(self) -> Diarizer:
        """The same voices, to try a stretch on without learning it."""
        other = Diarizer(self.cfg)
        other._sums, other._counts = [s.copy() for s in self._sums], list(self._counts)
        return other

    @property
    def voices(self) -> int:
        return len(self._sums)

    def _means(self) -> np.ndarray:
        return np.stack([unit(s) for s in self._sums]) if self._sums else np.zeros((0, 1), np.float32)

    def bar(self, run_windows: int, voice_windows: int) -> float:
        """The cosine a mean of `run_windows` needs to a mean of `voice_windows` to be the same voice."""
        run, voice = min(run_windows, FULL_RUN), min(voice_windows, FULL_VOICE)
        return self.cfg.same_voice - SLOPE * (np.log(FULL_RUN / max(run, 1)) + np.log(FULL_VOICE / max(voice, 1)))

    def _new_voices(self, windows: np.ndarray) -> None:
        """Runs of a voice the conversation has not heard become its new voices: the stretch's runs are grouped
        when alike (the longest first), and a group not within the bar of a known voice is a new one."""
        cuts = [*change_points(windows, self.cfg.change_cost, self._min_windows), len(windows)]
        groups: list[list] = []  # [summed windows, count]
        for i, j in sorted(zip(cuts, cuts[1:], strict=False), key=lambda r: r[0] - r[1]):  # the longest run first
            run = windows[i:j].sum(axis=0)
            mean, n = unit(run), j - i
            alike = next((g for g in groups if float(unit(g[0]) @ mean) >= self.bar(n, g[1])), None)
            if alike is None:
                groups.append([run, n])
            else:
                alike[0], alike[1] = alike[0] + run, alike[1] + n
        known, counts = self._means(), list(self._counts)
        for run, n in groups:
            scores = known @ unit(run) if counts else np.zeros(0)
            if not any(score >= self.bar(n, c) for score, c in zip(scores, counts, strict=True)):
                self._sums.append(run.astype(np.float32))
                self._counts.append(0)

    def runs(self, windows: np.ndarray, centres_s: np.ndarray, duration_s: float) -> list[VoiceRun]:
        """The runs of one voice in a stretch of speech `duration_s` long, from its window embeddings (unit rows)
        and their centres (s from the stretch's start); the voices learn the windows given to them."""
        if not len(windows):
            return []
        self._new_voices(windows)
        means = self._means()
        labels = viterbi(windows @ means.T, self.cfg.switch_cost) if len(means) > 1 else np.zeros(len(windows), int)
        for k in range(len(means)):
            self._sums[k] = self._sums[k] + windows[labels == k].sum(axis=0)
            self._counts[k] += int(np.count_nonzero(labels == k))
        change = np.flatnonzero(np.diff(labels)) + 1
        bounds = [0.0, *((centres_s[change - 1] + centres_s[change]) / 2).tolist(), duration_s]
        voices = [int(labels[0]), *labels[change].tolist()]
        return [VoiceRun(a, b, v) for a, b, v in zip(bounds, bounds[1:], voices, strict=False)]


def _pieces(turn_windows: Sequence[np.ndarray]) -> np.ndarray:
    """Unit means of consecutive PIECE_WINDOWS windows of each turn (a short tail joins the piece before)."""
    means = []
    for windows in turn_windows:
        starts = list(range(0, len(windows), PIECE_WINDOWS))
        if len(starts) > 1 and len(windows) - starts[-1] <= PIECE_WINDOWS // 2:
            starts.pop()
        means += [unit(windows[a:b].sum(axis=0)) for a, b in zip(starts, [*starts[1:], len(windows)], strict=True)]
    return np.asarray(means, np.float32)


def _spectral(points: np.ndarray) -> np.ndarray:
    """Cluster labels of unit rows: for each pruning p (each row keeps its p most alike), the Laplacian's largest
    gap among its smallest eigenvalues gives a number of clusters; the p with the largest gap for its pruning wins
    (Park et al. 2019), and k-means on its first eigenvectors labels the rows."""
    n = len(points)
    affinity = points @ points.T
    order = np.argsort(-affinity, axis=1)
    step = max(1, n // 50)
    low = max(2, step)
    best: tuple[float, int, np.ndarray] | None = None
    for p in range(low, max(low + 1, n // 4), step):
        kept = np.zeros_like(affinity)
        np.put_along_axis(kept, order[:, :p], 1.0, axis=1)
        kept = (kept + kept.T) / 2
        values, vectors = np.linalg.eigh(np.diag(kept.sum(axis=1)) - kept)
        gaps = np.diff(values[: MAX_VOICES + 1])
        ratio = p / n / max(float(gaps.max()), 1e-10)
        if best is None or ratio < best[0]:
            best = (ratio, int(np.argmax(gaps)) + 1, vectors)
    assert best is not None
    _, k, vectors = best
    if k == 1:
        return np.zeros(n, np.int64)
    labels = _kmeans(vectors[:, :k], k)
    return labels if labels is not None else np.zeros(n, np.int64)


def _kmeans(points: np.ndarray, k: int) -> np.ndarray | None:
    """k-means labels of the rows from five starts, the tightest kept; a start that empties a cluster is dropped, and
    None when every start does."""
    tries = []
    for seed in range(5):
        try:
            tries.append(kmeans2(points, k, minit="++", seed=seed, missing="raise"))
        except ClusterError:
            continue
    if not tries:
        return None
    inertia = [float(((points - centres[labels]) ** 2).sum()) for centres, labels in tries]
    return tries[int(np.argmin(inertia))][1].astype(np.int64)


def _voices_in(points: np.ndarray, space: np.ndarray, same_voice: float) -> list[list]:
    """[summed points, count] of each voice: `space`'s rows (the points, or as seen another way) clustered, then
    clusters under MIN_VOICE_PIECES joined to the one they are most alike and clusters whose means (of `points`)
    are `same_voice` alike or more joined."""
    labels = _spectral(space)
    for _ in range(REFINE):  # each piece to the voice it is most alike, as the turns will be
        means = np.stack([unit(space[labels == k].sum(axis=0)) for k in np.unique(labels)])
        labels = np.argmax(space @ means.T, axis=1)
    groups = [[points[labels == k].sum(axis=0), int(np.count_nonzero(labels == k))] for k in np.unique(labels)]
    while len(groups) > 1:
        means = np.stack([unit(v) for v, _ in groups])
        alike = means @ means.T
        np.fill_diagonal(alike, -1.0)
        small = min(range(len(groups)), key=lambda i: groups[i][1])
        if groups[small][1] < MIN_VOICE_PIECES:  # too little of it to be a voice of its own: its nearest takes it
            a, b = small, int(np.argmax(alike[small]))
        else:
            a, b = np.unravel_index(int(np.argmax(alike)), alike.shape)
            if alike[a, b] < same_voice:
                break
        merged = [groups[a][0] + groups[b][0], groups[a][1] + groups[b][1]]
        groups = [g for i, g in enumerate(groups) if i not in (a, b)] + [merged]
    return groups


def conversation_voices(turn_windows: Sequence[np.ndarray], same_voice: float) -> list[int] | None:
    """Each turn's voice over the whole conversation, from its windows' embeddings (unit rows, at least one per
    turn): their pieces are clustered twice (`_voices_in`), as they are and centred on the conversation's mean (what
    every voice of one recording shares, its channel and room, taken out: on a real telephone call two women's turns
    were as alike across them as within one, 0.71 and 0.73, and only the centred pieces told them apart), and the
    clustering that finds more voices stands (each alone keeps every tuning reader heard alone one voice, and each
    misses pairs the other finds: centred, a noisy room's two readers were one). Each turn goes to the voice its
    windows' mean is most alike. None when the conversation is too short to cluster."""
    points = _pieces(turn_windows)
    if len(points) < MIN_PIECES:
        return None
    points = points[np.linspace(0, len(points) - 1, min(len(points), MAX_PIECES)).round().astype(np.int64)]
    centred = points - points.mean(axis=0)
    centred /= np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12)
    groups = max(_voices_in(points, points, same_voice), _voices_in(points, centred, same_voice), key=len)
    centres = np.stack([unit(v) for v, _ in groups])
    return [int(np.argmax(centres @ unit(w.sum(axis=0)))) for w in turn_windows]


def split_voices(
    voices: Sequence[int], checks: Sequence[np.ndarray | None], turn_windows: Sequence[np.ndarray], split_below: float
) -> list[int]:
    """Each turn's voice after the second model's check: a voice whose checked turns (unit embeddings by the second
    model; None for a turn too short to check) fall into two halves less than `split_below` alike, each of MIN_HALF
    or more, becomes two, until none splits or there are MAX_VOICES. A checked turn goes to the half its embedding
    is most alike; an unchecked one to the half whose turns' windows (the first model's) its windows are most like."""
    labels = list(voices)
    todo = sorted(set(labels))
    while todo and len(set(labels)) < MAX_VOICES:
        voice = todo.pop()
        turns = [i for i, v in enumerate(labels) if v == voice]
        checked = [i for i in turns if checks[i] is not None]
        if len(checked) < 2 * MIN_HALF:
            continue
        points = np.stack([checks[i] for i in checked])
        halves = _kmeans(points, 2)
        if halves is None or np.bincount(halves, minlength=2).min() < MIN_HALF:
            continue
        means = np.stack([unit(points[halves == h].sum(axis=0)) for h in (0, 1)])
        if float(means[0] @ means[1]) >= split_below:
            continue
        windows = np.stack(
            [
                unit(np.vstack([turn_windows[i] for i, h in zip(checked, halves, strict=True) if h == k]).sum(0))
                for k in (0, 1)
            ]
        )
        new = max(labels) + 1
        for i in turns:
            check = checks[i]
            side = means @ check if check is not None else windows @ unit(turn_windows[i].sum(axis=0))
            if int(np.argmax(side)) == 1:
                labels[i] = new
        if new in labels:  # (every split adds a voice, so this ends)
            todo += [voice, new]  # either half may hold two voices yet
    return labels
