"""The companion's own voice coming back through the microphone is not someone's speech: an utterance heard while
a reply or greeting played is refused when it sounds like the companion's voice (the recorder's voice encoder)
or says mostly the words being played (app/companion/companion.py asks before the recorder stores it)."""

from __future__ import annotations

import logging
import re

import numpy as np

from app.companion.duplex import Playback
from app.frames import Utterance

_LOGGER = logging.getLogger(__name__)
_WORD = re.compile(r"[a-z']+")
SELF_SAMPLE = "Hello, I am your memory companion. Ask me about the people you met and what they said."
SPOKEN = ("reply", "greeting")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class OwnVoice:
    """Tells the companion's own voice (`voice`, a text-to-speech voice) from people's, as `voice_encoder` hears
    it (None: by the words alone), while `playback` plays; `similar` is the cosine from which a voice is its own."""

    def __init__(self, voice, voice_encoder, playback: Playback, similar: float) -> None:
        self.playback, self.similar = playback, similar
        self.key = self._key(voice, voice_encoder)
        self.refused: list[dict] = []  # utterances refused as the companion's own voice

    @staticmethod
    def _key(voice, voice_encoder) -> np.ndarray | None:
        if voice_encoder is None:
            return None
        key = np.asarray(voice_encoder(voice.speak_16k(SELF_SAMPLE)), np.float32)
        return key / (np.linalg.norm(key) or 1.0)

    def heard(self, utt: Utterance) -> bool:
        """Whether `utt` is the companion's own voice (and then it is counted in `refused`)."""
        played = [p for p in self.playback.playing_at(utt.t_start_s, utt.t_end_s) if p.tag in SPOKEN]
        if not played:
            return False
        similarity = None
        if utt.voice_embedding is not None and self.key is not None:
            v = np.asarray(utt.voice_embedding, np.float32)
            similarity = float(v @ self.key / (np.linalg.norm(v) or 1.0))
        heard = words(utt.text)
        said = set().union(*(words(p.text) for p in played))
        overlap = len(heard & said) / max(1, len(heard))
        if (similarity is not None and similarity >= self.similar) or overlap >= 0.5:
            self.refused.append({"t_s": utt.t_start_s, "similarity": similarity, "overlap": round(overlap, 2)})
            _LOGGER.info("refused an utterance at %.1f s as the companion's own voice", utt.t_start_s)
            return True
        return False
