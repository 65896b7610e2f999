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
    by: str  # voice | face | previous | new | none
    voice_score: float  # best cosine similarity to a known voice, -1 when none


def best_voice(query: np.ndarray, keys: dict[int, np.ndarray]) -> tuple[int | None, float]:
    """(person, cosine similarity) of the nearest voice key; (None, -1) with no keys."""
    best: tuple[int | None, float] = (None, -1.0)
    for pid, mat in keys.items():
        score = float(np.max(mat @ query))
        if score > best[1]:
            best = (pid, score)
    return best


def nearest_face(query: np.ndarray, keys: dict[int, np.ndarray], metric: str) -> tuple[int | None, float]:
    """(person, distance) of the nearest face key; (None, inf) with no keys."""
    best: tuple[int | None, float] = (None, float("inf"))
    for pid, mat in keys.items():
        d = float(np.min(distances(mat, query, metric)))
        if d < best[1]:
            best = (pid, d)
    return best


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
        self.voice_keys = dict(voice_keys)
        self.face_keys = dict(face_keys)

    def decide(self, utt: Utterance, previous: int | None) -> Decision:
        long_enough = utt.t_end_s - utt.t_start_s >= self.cfg.min_voice_s
        score = -1.0
        if utt.voice_embedding is not None:
            pid, score = best_voice(utt.voice_embedding, self.voice_keys)
            needed = self.cfg.voice_threshold + (0.0 if long_enough else SHORT_MARGIN)
            if pid is not None and score >= needed:
                return Decision(pid, "voice", score)
            if long_enough:
                return Decision(None, "new", score)
        if utt.face is not None:
            fid, dist = nearest_face(utt.face.embedding, self.face_keys, self.face_metric)
            if fid is not None and dist <= self.face_threshold:
                return Decision(fid, "face", score)
        if previous is not None:
            return Decision(previous, "previous", score)
        return Decision(None, "none", score)

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
