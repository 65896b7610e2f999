"""Faces: dlib finds and separates the demo's three faces; quality gating (size, blur, yaw, calibrated on real
photos); the novelty gate skips unchanged frames."""

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


def test_quality_gate_keeps_good_faces_and_flags_small_blurred_and_turned(perception):
    import cv2

    from app.demo import face_cards, group_photo

    card = face_cards(group_photo())[0]
    (good,) = perception.faces(card)
    assert good.defect == "" and good.quality > 0.5
    small = cv2.resize(card, None, fx=0.45, fy=0.45, interpolation=cv2.INTER_AREA)
    small = cv2.copyMakeBorder(small, 100, 100, 100, 100, cv2.BORDER_CONSTANT)  # room for the detector
    faces = perception.faces(small)
    assert faces and faces[0].defect == "small" and faces[0].quality < good.quality
    blurred = cv2.GaussianBlur(card, (0, 0), good.box[2] / 25)
    faces = perception.faces(blurred)
    assert not faces or faces[0].defect == "blurred"


def test_yaw_from_landmarks_follows_a_turning_head():
    from app.vision.faces import QualityGate, yaw

    # a head seen from above: eyes 6.4 cm apart, nose 3.5 cm in front of them, turned by `deg`
    def landmarks(deg: float) -> np.ndarray:
        a = np.radians(deg)
        points = np.array([[-3.2, 0.0], [3.2, 0.0], [0.0, 3.5]])  # (x, depth)
        x = points[:, 0] * np.cos(a) + points[:, 1] * np.sin(a)
        return np.stack([x * 10, [0, 0, 20]], axis=1)  # image x, and the nose below the eyes

    turns = [yaw(landmarks(d)) for d in (0, 15, 30, 45, 60)]
    assert turns[0] < 1e-9 and all(a < b for a, b in itertools.pairwise(turns))
    gate = QualityGate()
    assert turns[1] < gate.max_yaw < turns[3]  # 15 degrees keeps, 45 does not
    assert yaw(np.zeros((3, 2))) == float("inf")  # degenerate landmarks are never frontal


def test_real_photos_pass_the_gate_and_their_blurred_copies_do_not(perception, shared_data):
    import cv2

    images = sorted((shared_data / "deepface_faces" / "images").glob("*.jpg"))[:30]
    passed = blurred_flagged = seen = 0
    for path in images:
        image = cv2.imread(str(path))
        faces = perception.faces(image, max_faces=1)
        if not faces:
            continue
        seen += 1
        passed += faces[0].defect == ""
        again = perception.faces(cv2.GaussianBlur(image, (0, 0), faces[0].box[2] / 25), max_faces=1)
        blurred_flagged += not again or again[0].defect == "blurred"
    assert seen >= 25 and passed >= seen - 1 and blurred_flagged == seen


def test_face_tracker_embeds_only_new_or_moved_faces(perception):
    import cv2

    from app.demo import face_cards, group_photo
    from app.vision.faces import FaceTracker

    card = cv2.copyMakeBorder(face_cards(group_photo())[0], 60, 60, 160, 160, cv2.BORDER_CONSTANT)
    tracker = FaceTracker(perception.faces, min_iou=0.6, max_age_s=10.0)
    first = tracker(card, 0.0)
    nudged = tracker(np.roll(card, 5, axis=1), 1.0)  # a few pixels: the same face, not embedded again
    assert tracker.embedded == 1 and np.array_equal(first[0].embedding, nudged[0].embedding)
    tracker(np.roll(card, 150, axis=1), 2.0)  # moved far: embedded again
    assert tracker.embedded == 2
    tracker(np.roll(card, 150, axis=1), 13.0)  # too long since it was embedded: again
    assert tracker.embedded == 3
