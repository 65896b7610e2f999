"""Faces: dlib finds and separates the demo's three faces; the novelty gate skips unchanged frames."""

from __future__ import annotations

import itertools

import numpy as np

from app.vision.faces import NoveltyGate


def test_demo_faces_are_found_and_told_apart(perception):
    from app.demo import face_cards, group_photo

    cards = face_cards(group_photo())
    embeddings = []
    for card in cards:
        faces = perception.faces(card)
        assert len(faces) == 1 and faces[0].box[2] > 100
        embeddings.append(faces[0].embedding)
    for a, b in itertools.combinations(embeddings, 2):
        assert np.linalg.norm(a - b) > 0.6  # dlib: different people
    shifted = np.roll(cards[0], 12, axis=1)  # the same face, moved: same person
    assert np.linalg.norm(perception.faces(shifted)[0].embedding - embeddings[0]) < 0.3


def test_no_face_in_a_blank_frame(perception):
    assert perception.faces(np.full((480, 640, 3), 90, np.uint8)) == []


def test_novelty_gate():
    gate = NoveltyGate(0.04)
    a = np.full((120, 160, 3), 100, np.uint8)
    assert gate(a)
    assert not gate(a.copy())  # unchanged
    assert not gate(np.clip(a.astype(int) + 3, 0, 255).astype(np.uint8))  # sensor noise-sized change
    assert gate(np.full((120, 160, 3), 200, np.uint8))  # a new scene
