"""Voice embeddings: one voice's long utterances are closer to each other than to other voices."""

from __future__ import annotations

import itertools

import numpy as np

from app.audio.voice import HOP, PARTIAL_FRAMES, partial_slices

TEXTS = (
    "Yesterday I walked along the river and watched the boats. The weather was warm and the water was calm.",
    "My grandmother grew tomatoes in her garden every summer. She gave the biggest ones to her neighbours.",
)


def test_same_voice_closer_than_different_voices(perception, speech):
    emb = {}
    for voice in ("slt", "rms", "kal16"):
        for i, text in enumerate(TEXTS):
            audio = speech(text, voice)
            assert len(audio) / 16000 >= 5.0
            emb[voice, i] = perception.voice(audio)
    same = [float(emb[v, 0] @ emb[v, 1]) for v in ("slt", "rms", "kal16")]
    diff = [float(emb[a] @ emb[b]) for a, b in itertools.combinations(emb, 2) if a[0] != b[0]]
    print(f"same-voice cosine min {min(same):.3f}; different-voice max {max(diff):.3f}")
    assert min(same) > max(diff) + 0.1
    for v in emb.values():
        assert abs(np.linalg.norm(v) - 1) < 1e-5


def test_partials_cover_the_utterance():
    for seconds in (0.3, 1.6, 2.5, 7.0):
        n = int(seconds * 16000)
        slices = partial_slices(n)
        assert all(s.stop - s.start == PARTIAL_FRAMES for s in slices)
        assert slices[-1].stop * HOP >= n * 0.75 or len(slices) == 1
