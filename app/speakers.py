"""A first speaker assignment: the nearest known voice, else a new unknown_N; faces and the previous speaker
settle utterances too short for a reliable voice embedding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.config import FaceConfig, IdentityConfig
from app.events import Utterance

SHORT_MARGIN = 0.05  # a short utterance needs this much more voice similarity to match


@dataclass(frozen=True)
class Decision:
    person_id: int | None  # None: a new person is to be created (or, with by="none", nobody)
    by: str  # voice | face | previous | new | none
    voice_score: float  # best cosine similarity to a known voice, -1 when none


def best_match(query: np.ndarray, keys: dict[int, np.ndarray], metric: str) -> tuple[int | None, float]:
    """(person, score): cosine similarity (higher is nearer) or L2 distance (lower is nearer)."""
    best: tuple[int | None, float] = (None, -1.0 if metric == "cosine" else float("inf"))
    for pid, mat in keys.items():
        if metric == "cosine":
            score = float(np.max(mat @ query))
            if score > best[1]:
                best = (pid, score)
        else:
            score = float(np.min(np.linalg.norm(mat - query, axis=1)))
            if score < best[1]:
                best = (pid, score)
    return best


class SpeakerAssigner:
    """Holds every person's voice and face keys in memory, mirrored from the store."""

    def __init__(
        self,
        cfg: IdentityConfig,
        face_cfg: FaceConfig,
        voice_keys: dict[int, np.ndarray],
        face_keys: dict[int, np.ndarray],
    ) -> None:
        self.cfg = cfg
        self.face_cfg = face_cfg
        self.voice_keys = dict(voice_keys)
        self.face_keys = dict(face_keys)

    def decide(self, utt: Utterance, previous: int | None) -> Decision:
        long_enough = utt.t_end_s - utt.t_start_s >= self.cfg.min_voice_s
        pid, score = (None, -1.0)
        if utt.voice_embedding is not None:
            pid, score = best_match(utt.voice_embedding, self.voice_keys, "cosine")
            needed = self.cfg.voice_threshold + (0.0 if long_enough else SHORT_MARGIN)
            if pid is not None and score >= needed:
                return Decision(pid, "voice", score)
        if long_enough and utt.voice_embedding is not None:
            return Decision(None, "new", score)
        if utt.face is not None:
            fid, dist = best_match(utt.face.embedding, self.face_keys, "l2")
            if fid is not None and dist <= self.face_cfg.match_distance:
                return Decision(fid, "face", score)
        if previous is not None:
            return Decision(previous, "previous", score)
        return Decision(None, "none", score)

    def face_is_new_key(self, person_id: int, face_embedding: np.ndarray) -> bool:
        """A face seen while `person_id` spoke is kept as their key unless it is someone else's face."""
        fid, dist = best_match(face_embedding, self.face_keys, "l2")
        return fid is None or dist > self.face_cfg.match_distance or fid == person_id

    def remember(self, kind: str, person_id: int, embedding: np.ndarray, cap: int) -> None:
        keys = self.voice_keys if kind == "voice" else self.face_keys
        mat = keys.get(person_id)
        keys[person_id] = embedding[None, :] if mat is None else np.vstack([mat, embedding])[-cap:]
