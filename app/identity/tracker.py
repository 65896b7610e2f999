"""Who is there now (EgoMem §3.1.1): every `identity.poll_s` the recorder embeds the speech of the last
`identity.window_s` and takes the faces in view, matches both against every person's keys, fuses them, and
reports `IdentityChanged` when the person in front of the wearer changes.

Scores are margins over each modality's calibrated threshold, scaled to 0..1 (voice: cosine above
`identity.voice_threshold`; face: distance below the face backend's threshold), fused per person as
1 - (1 - face)(1 - voice), so agreeing modalities reinforce each other and either alone suffices. A change
(to another person, or to nobody) must hold for `identity.confirm_polls` polls, so one bad poll does not
flip the dialog's context. An unknown face of key quality that stays in view for `identity.new_face_s`
becomes a new person; unknown voices become people through the utterance writer, which sees whole turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.config import IdentityConfig
from app.frames import Face
from app.identity.speakers import SpeakerAssigner, best_voice, face_distances
from app.vision.faces import distances


@dataclass(frozen=True)
class Presence:
    person_id: int | None  # None: nobody known is there
    by: str  # face+voice | face | voice | none
    score: float  # fused confidence, 0..1


NOBODY = Presence(None, "none", 0.0)


@dataclass(frozen=True)
class IdentityChanged:
    t_s: float
    now: Presence
    before: Presence


@dataclass
class _UnknownFace:
    embedding: np.ndarray  # the latest sighting
    first_s: float
    last_s: float
    polls: int
    best: Face  # the sighting of the highest quality, which becomes the key


class IdentityTracker:
    def __init__(self, cfg: IdentityConfig, assigner: SpeakerAssigner) -> None:
        self.cfg = cfg
        self.assigner = assigner
        self.current = NOBODY
        self._candidate: tuple[int | None, int] = (None, 0)  # (person, consecutive polls) of a pending change
        self._unknown: list[_UnknownFace] = []

    def match(self, voice: np.ndarray | None, faces: Sequence[Face]) -> Presence:
        """The best-supported person for this speech and these faces (NOBODY when no score is positive)."""
        a = self.assigner
        voice_score: dict[int, float] = {}
        if voice is not None:
            pid, cos = best_voice(voice, a.voice_keys)
            if pid is not None and cos >= self.cfg.voice_threshold:
                voice_score[pid] = (cos - self.cfg.voice_threshold) / max(1e-6, 1.0 - self.cfg.voice_threshold)
        face_score: dict[int, float] = {}
        for face in faces:
            for pid, d in self._face_matches(face.embedding):
                face_score[pid] = max(face_score.get(pid, 0.0), 1.0 - d / a.face_threshold)
        best = NOBODY
        for pid in voice_score.keys() | face_score.keys():
            sv, sf = voice_score.get(pid, 0.0), face_score.get(pid, 0.0)
            fused = 1.0 - (1.0 - sf) * (1.0 - sv)
            if fused > best.score:
                by = "face+voice" if sv > 0 and sf > 0 else "face" if sf > 0 else "voice"
                best = Presence(pid, by, round(fused, 4))
        return best

    def _face_matches(self, embedding: np.ndarray) -> list[tuple[int, float]]:
        """(person, nearest key distance) for every person with a key within the face threshold."""
        a = self.assigner
        return list(face_distances(embedding, a.face_keys, a.face_metric, a.face_threshold).items())

    def poll(
        self, t_s: float, voice: np.ndarray | None, faces: Sequence[Face]
    ) -> tuple[IdentityChanged | None, list[Face]]:
        """(the change this poll confirms, if any; faces that persisted unknown long enough to become people)."""
        seen = self.match(voice, faces)
        change = None
        if seen.person_id == self.current.person_id:
            self.current = seen if seen.person_id is not None else self.current
            self._candidate = (None, 0)
        else:
            pid, count = self._candidate
            count = count + 1 if pid == seen.person_id else 1
            self._candidate = (seen.person_id, count)
            if count >= self.cfg.confirm_polls:
                change = IdentityChanged(t_s, seen, self.current)
                self.current, self._candidate = seen, (None, 0)
        return change, self._track_unknown(t_s, faces)

    def _track_unknown(self, t_s: float, faces: Sequence[Face]) -> list[Face]:
        a = self.assigner
        stale = t_s - 2 * self.cfg.poll_s  # a track missed by more than one poll is gone
        self._unknown = [u for u in self._unknown if u.last_s >= stale]
        ready = []
        for face in faces:
            if face.defect or self._face_matches(face.embedding):
                continue
            near = [
                u
                for u in self._unknown
                if distances(u.embedding[None], face.embedding, a.face_metric)[0] <= a.face_threshold
            ]
            if not near:
                self._unknown.append(_UnknownFace(face.embedding, t_s, t_s, 1, face))
                continue
            u = near[0]
            u.embedding, u.last_s, u.polls = face.embedding, t_s, u.polls + 1
            if face.quality > u.best.quality:
                u.best = face
            if u.last_s - u.first_s >= self.cfg.new_face_s and u.polls >= 3:
                ready.append(u.best)
                self._unknown.remove(u)
        return ready
