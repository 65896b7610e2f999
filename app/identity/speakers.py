"""Speaker assignment per utterance: the known voice it matches best, else a new unknown_N; faces and the
previous speaker settle utterances too short for a reliable voice embedding.

A person's voice is the mean of their voice keys weighted by the seconds of speech behind each
(resemblyzer's own utterance embedding is the mean of its 1.6-s partials, so this is close to the embedding
of all their keyed speech), and the cosine a turn needs to be that person is calibrated on how much speech
is on each side (`voice_threshold`): a short turn, or a person heard little, is a noisy estimate whose
same-speaker cosine is lower, while many seconds of a voice make a sharp one that scores even other voices
higher (measured on LibriSpeech readers: README, Identity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.config import IdentityConfig
from app.frames import Utterance
from app.vision.faces import distances

REDUNDANT = 0.3  # a face key within this fraction of the threshold of an existing own key adds nothing
REDUNDANT_VOICE = 0.97  # cosine above which a voice key adds nothing to an existing own key
# The cosine to a person's mean voice needed to be that person: identity.voice_threshold for a REF_S turn
# against REF_SPEECH_S of their keyed speech, lower by SLOPE_S per e-fold shorter turn and by SLOPE_SPEECH per
# e-fold less keyed speech. A logistic fit of same/different speaker on cosine, ln(turn s) and ln(keyed s)
# over 5 LibriSpeech readers' VAD turns (1.5-12 s) against means of 1-8 of their other turns, with a wrong
# match counted about 30 times a missed one (a merge puts one person's words, facts and keys on another; a
# split is one `people merge` away); checked on the other 5 readers, FSDD, the JFK clip and LJSpeech (README,
# Identity).
REF_S = 6.0
REF_SPEECH_S = 9.0
SLOPE_S = 0.044
SLOPE_SPEECH = 0.033
UNKNOWN_KEY_S = 3.0  # a voice key given without its length counts as a turn this long (s)
# A turn that misses every known voice makes a new person only when it is clearly nobody known (below the
# equal-error point of its best match, AMBIGUOUS under the bar) or long enough to found a voice on
# (NEW_PERSON_S); a near miss shorter than that goes by face or the previous speaker, and keys nobody.
AMBIGUOUS = 0.04
NEW_PERSON_S = 3.0


@dataclass(frozen=True)
class Decision:
    person_id: int | None  # None: a new person is to be created (or, with by="none", nobody)
    by: str  # voice | face | face+new-voice (a known face's first voice) | previous | new | none
    voice_score: float  # best cosine similarity to a known voice, -1 when none
    margin: float = -math.inf  # how far that cosine clears (above 0) or misses (below) that person's bar


class KeyBank:
    """Every person's keys of one modality stacked in one matrix, so a query is one matrix product however
    many people there are; rebuilt lazily after a change. Each key has a weight: for voices, the seconds of
    speech it was made from."""

    def __init__(self, keys: dict[int, np.ndarray], weights: dict[int, np.ndarray] | None = None) -> None:
        self.by_person = dict(keys)
        given = weights or {}
        self.weights = {
            pid: np.asarray(given[pid] if pid in given else np.full(len(m), UNKNOWN_KEY_S), np.float32)
            for pid, m in self.by_person.items()
        }
        self._stack: tuple[np.ndarray, np.ndarray] | None = None
        self._means: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __contains__(self, pid: object) -> bool:
        return pid in self.by_person

    def without(self, people: set[int]) -> KeyBank:
        """The same keys less those of `people`."""
        kept = {p: k for p, k in self.by_person.items() if p not in people}
        return KeyBank(kept, {p: self.weights[p] for p in kept})

    def get(self, pid: int) -> np.ndarray | None:
        return self.by_person.get(pid)

    def add(self, pid: int, key: np.ndarray, weight: float, cap: int) -> None:
        """One more key; beyond `cap` the lightest goes (as the store keeps the best by quality)."""
        mat, w = self.by_person.get(pid), self.weights.get(pid)
        mat = key[None, :] if mat is None else np.vstack([mat, key])
        w = np.array([weight], np.float32) if w is None else np.append(w, np.float32(weight))
        keep = np.sort(np.lexsort((-np.arange(len(w)), -w))[:cap])  # the heaviest, then the newest
        self.by_person[pid], self.weights[pid] = mat[keep], w[keep]
        self._stack = self._means = None

    def pop(self, pid: int, default=None):
        self._stack = self._means = None
        self.weights.pop(pid, None)
        return self.by_person.pop(pid, default)

    def __iter__(self):
        return iter(self.by_person)

    def stacked(self) -> tuple[np.ndarray, np.ndarray]:
        """(all keys, the person of each row)."""
        if self._stack is None:
            items = list(self.by_person.items())
            if not items:
                return np.zeros((0, 1), np.float32), np.zeros(0, np.int64)
            mats = [m for _, m in items]
            owners = np.concatenate([np.full(len(m), pid, np.int64) for pid, m in items])
            self._stack = (np.vstack(mats).astype(np.float32), owners)
        return self._stack

    def means(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(each person's weighted mean key as a unit vector, the person of each row, their summed weight)."""
        if self._means is None:
            items = list(self.by_person.items())
            if not items:
                return np.zeros((0, 1), np.float32), np.zeros(0, np.int64), np.zeros(0, np.float32)
            mean = np.stack([self.weights[pid] @ m for pid, m in items]).astype(np.float32)
            mean /= np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)
            owners = np.array([pid for pid, _ in items], np.int64)
            self._means = (mean, owners, np.array([self.weights[pid].sum() for pid, _ in items], np.float32))
        return self._means


def voice_threshold(cfg: IdentityConfig, speech_s: float, keyed_s: np.ndarray) -> np.ndarray:
    """The cosine to a person's mean voice that a turn of `speech_s` needs, for people with `keyed_s` seconds
    of speech in their keys; a turn shorter than identity.min_voice_s is held to the bar of one that long."""
    turn = math.log(max(speech_s, cfg.min_voice_s) / REF_S)
    keyed = np.log(np.maximum(keyed_s, cfg.min_voice_s) / REF_SPEECH_S)
    return cfg.voice_threshold + SLOPE_S * turn + SLOPE_SPEECH * keyed


def nearest_voice(
    query: np.ndarray, keys: KeyBank, cfg: IdentityConfig, speech_s: float
) -> tuple[int | None, float, float]:
    """(person, cosine to their mean voice, margin over their calibrated threshold) of the person the turn
    comes closest to clearing; (None, -1, -inf) with no keys."""
    mean, owners, keyed_s = keys.means()
    if not len(owners):
        return None, -1.0, -math.inf
    scores = mean @ query
    margin = scores - voice_threshold(cfg, speech_s, keyed_s)
    i = int(np.argmax(margin))
    return int(owners[i]), float(scores[i]), float(margin[i])


def best_voice(query: np.ndarray, keys: KeyBank) -> tuple[int | None, float]:
    """(person, cosine similarity) of the nearest voice key; (None, -1) with no keys."""
    mat, owners = keys.stacked()
    if not len(owners):
        return None, -1.0
    scores = mat @ query
    i = int(np.argmax(scores))
    return int(owners[i]), float(scores[i])


def face_distances(query: np.ndarray, keys: KeyBank, metric: str, within: float) -> dict[int, float]:
    """The nearest face key distance of each person who has one within `within`."""
    mat, owners = keys.stacked()
    if not len(owners):
        return {}
    d = distances(mat, query, metric)
    close = np.flatnonzero(d <= within)
    nearest: dict[int, float] = {}
    for i in close[np.argsort(d[close])]:
        nearest.setdefault(int(owners[i]), float(d[i]))
    return nearest


def nearest_face(query: np.ndarray, keys: KeyBank, metric: str) -> tuple[int | None, float]:
    """(person, distance) of the nearest face key; (None, inf) with no keys."""
    mat, owners = keys.stacked()
    if not len(owners):
        return None, float("inf")
    d = distances(mat, query, metric)
    i = int(np.argmin(d))
    return int(owners[i]), float(d[i])


class SpeakerAssigner:
    """Holds every person's voice and face keys in memory, mirrored from the store."""

    def __init__(
        self,
        cfg: IdentityConfig,
        voice_keys: dict[int, np.ndarray],
        face_keys: dict[int, np.ndarray],
        face_metric: str = "l2",
        face_threshold: float = 0.55,
        voice_seconds: dict[int, np.ndarray] | None = None,
    ) -> None:
        self.cfg = cfg
        self.face_metric = face_metric
        self.face_threshold = face_threshold
        self.voice_keys = KeyBank(voice_keys, voice_seconds)
        self.face_keys = KeyBank(face_keys)

    def decide(self, utt: Utterance, previous: int | None) -> Decision:
        duration = utt.t_end_s - utt.t_start_s
        long_enough = duration >= self.cfg.min_voice_s
        score, margin = -1.0, -math.inf
        if utt.voice_embedding is not None:
            pid, score, margin = nearest_voice(utt.voice_embedding, self.voice_keys, self.cfg, duration)
            if margin >= 0:
                return Decision(pid, "voice", score, margin)
            if long_enough:
                fid = self._known_face(utt)
                if fid is not None and fid not in self.voice_keys:  # first heard: someone so far only seen
                    return Decision(fid, "face+new-voice", score, margin)
                if margin < -AMBIGUOUS or duration >= NEW_PERSON_S:
                    return Decision(None, "new", score, margin)
        fid = self._known_face(utt)
        if fid is not None:
            return Decision(fid, "face", score, margin)
        if previous is not None:
            return Decision(previous, "previous", score, margin)
        return Decision(None, "none", score, margin)

    def sounds_like(self, person_id: int, utt: Utterance, slack: float = 0.0) -> bool:
        """Whether the utterance's voice clears `person_id`'s calibrated bar less `slack` (False without a voice
        of either)."""
        return self.voice_margin(person_id, utt) >= -slack

    def voice_margin(self, person_id: int, utt: Utterance) -> float:
        """How far the utterance's voice is over `person_id`'s calibrated bar (-inf without a voice of either)."""
        mean, owners, keyed_s = self.voice_keys.means()
        rows = np.flatnonzero(owners == person_id)
        if utt.voice_embedding is None or not len(rows):
            return -math.inf
        i = int(rows[0])
        bar = voice_threshold(self.cfg, utt.t_end_s - utt.t_start_s, keyed_s[i : i + 1])[0]
        return float(mean[i] @ utt.voice_embedding) - float(bar)

    def _known_face(self, utt: Utterance) -> int | None:
        return self.known_face(utt.face.embedding) if utt.face is not None else None

    def known_face(self, embedding: np.ndarray) -> int | None:
        """The person whose face key is nearest to `embedding`, if within the face threshold."""
        fid, dist = nearest_face(embedding, self.face_keys, self.face_metric)
        return fid if fid is not None and dist <= self.face_threshold else None

    def face_is_new_key(self, person_id: int, face_embedding: np.ndarray) -> bool:
        """A face seen while `person_id` spoke becomes their key unless it is someone else's face or nearly
        the same as a key they already have."""
        fid, dist = nearest_face(face_embedding, self.face_keys, self.face_metric)
        if fid is None or dist > self.face_threshold:
            return True
        return fid == person_id and dist > REDUNDANT * self.face_threshold

    def adds_voice_key(self, decision: Decision, utt: Utterance) -> bool:
        """Whether the utterance's voice becomes a key of the person it was given to: a person's first voice,
        and every later turn matched by voice that is long enough to tell (identity.min_voice_s) and not
        nearly the same as a key they have, so their mean voice sharpens as they talk."""
        if utt.voice_embedding is None:
            return False
        if decision.by != "voice" or decision.person_id is None:
            return decision.by in ("new", "face+new-voice")
        own = self.voice_keys.get(decision.person_id)
        long_enough = utt.t_end_s - utt.t_start_s >= self.cfg.min_voice_s
        return long_enough and (own is None or float(np.max(own @ utt.voice_embedding)) < REDUNDANT_VOICE)

    def remember(self, kind: str, person_id: int, embedding: np.ndarray, cap: int, quality: float) -> None:
        """A key the store now holds: `quality` is a voice key's seconds of speech, a face key's grade."""
        (self.voice_keys if kind == "voice" else self.face_keys).add(person_id, embedding, quality, cap)
