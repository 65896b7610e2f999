"""A first speaker assignment: the nearest known voice, else a new unknown_N; faces and the previous speaker
settle utterances too short for a reliable voice embedding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.config import IdentityConfig
from app.events import Utterance
from app.vision.faces import distances

SHORT_MARGIN = 0.05  # a short utterance needs this much more voice similarity to match
REDUNDANT = 0.3  # a face key within this fraction of the threshold of an existing own key adds nothing
REDUNDANT_VOICE = 0.97  # cosine above which a voice key adds nothing to an existing own key


@dataclass(frozen=True)
class Decision:
    person_id: int | None  # None: a new person is to be created (or, with by="none", nobody)
    by: str  # voice | face | face+new-voice (a known face's first voice) | previous | new | none
    voice_score: float  # best cosine similarity to a known voice, -1 when none


class KeyBank:
    """Every person's keys of one modality stacked in one matrix, so a query is one matrix product however
    many people there are; rebuilt lazily after a change."""

    def __init__(self, keys: dict[int, np.ndarray]) -> None:
        self.by_person = dict(keys)
        self._stack: tuple[np.ndarray, np.ndarray] | None = None

    def __contains__(self, pid: object) -> bool:
        return pid in self.by_person

    def get(self, pid: int) -> np.ndarray | None:
        return self.by_person.get(pid)

    def __setitem__(self, pid: int, mat: np.ndarray) -> None:
        self.by_person[pid] = mat
        self._stack = None

    def pop(self, pid: int, default=None):
        self._stack = None
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
    ) -> None:
        self.cfg = cfg
        self.face_metric = face_metric
        self.face_threshold = face_threshold
        self.voice_keys = KeyBank(voice_keys)
        self.face_keys = KeyBank(face_keys)

    def decide(self, utt: Utterance, previous: int | None) -> Decision:
        long_enough = utt.t_end_s - utt.t_start_s >= self.cfg.min_voice_s
        score = -1.0
        if utt.voice_embedding is not None:
            pid, score = best_voice(utt.voice_embedding, self.voice_keys)
            needed = self.cfg.voice_threshold + (0.0 if long_enough else SHORT_MARGIN)
            if pid is not None and score >= needed:
                return Decision(pid, "voice", score)
            if long_enough:
                fid = self._known_face(utt)
                if fid is not None and fid not in self.voice_keys:  # first heard: someone so far only seen
                    return Decision(fid, "face+new-voice", score)
                return Decision(None, "new", score)
        fid = self._known_face(utt)
        if fid is not None:
            return Decision(fid, "face", score)
        if previous is not None:
            return Decision(previous, "previous", score)
        return Decision(None, "none", score)

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

    def voice_is_new_key(self, person_id: int, voice_embedding: np.ndarray) -> bool:
        """A voice sample adds a key unless one of the person's keys is nearly the same."""
        own = self.voice_keys.get(person_id)
        return own is None or float(np.max(own @ voice_embedding)) < REDUNDANT_VOICE

    def remember(self, kind: str, person_id: int, embedding: np.ndarray, cap: int) -> None:
        keys = self.voice_keys if kind == "voice" else self.face_keys
        mat = keys.get(person_id)
        keys[person_id] = embedding[None, :] if mat is None else np.vstack([mat, embedding])[-cap:]
