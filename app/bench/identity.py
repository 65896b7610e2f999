"""`bench identity`: CPU time of one identity poll (EgoMem polls every 2 s): face detection + embedding on a
640x480 frame, the voice embedding of the poll's speech window, and matching both against 1,000 people's keys.

The face part runs only when the novelty gate passes a frame (a changed scene), and embeds only faces that
are new or have moved (`FaceTracker`); the voice embedding and matching run every poll.
"""

from __future__ import annotations

import statistics

import numpy as np

from app.bench.pipeline import _ms
from app.config import Config
from app.events import SAMPLE_RATE_HZ

PEOPLE = 1000


def _keys(rng: np.random.Generator, people: int, per_person: int, dim: int, scale: float) -> dict[int, np.ndarray]:
    keys = rng.standard_normal((people, per_person, dim)).astype(np.float32)
    keys /= np.linalg.norm(keys, axis=2, keepdims=True)
    return {pid + 1: keys[pid] * scale for pid in range(people)}


def bench_identity(cfg: Config, people: int = PEOPLE, repeat: int = 20) -> dict:
    from app.bench.pipeline import _demo
    from app.demo import face_cards, group_photo
    from app.identity.speakers import SpeakerAssigner
    from app.identity.tracker import IdentityTracker
    from app.perception import load_faces, load_voice
    from app.vision.faces import FaceTracker, NoveltyGate

    faces_model, voice_model = load_faces(cfg), load_voice(cfg)
    card = face_cards(group_photo())[0]
    frame = np.full((480, 640, 3), 60, np.uint8)
    h, w = card.shape[:2]
    frame[(480 - h) // 2 : (480 - h) // 2 + h, (640 - w) // 2 : (640 - w) // 2 + w] = card
    audio, script, _ = _demo(cfg)
    turn = script["turns"][0]
    start = int(turn["t_start_s"] * SAMPLE_RATE_HZ)
    window = audio[start : start + int(cfg.identity.window_s * SAMPLE_RATE_HZ)]

    faces_model(frame)  # warm-up
    face_ms = _ms(lambda: faces_model(frame), repeat)
    detect_ms = _ms(lambda: faces_model.detect(frame), repeat)
    tracker_faces = FaceTracker(faces_model)
    moved = [np.roll(frame, dx, axis=1) for dx in (0, 6)]  # the same face, a few pixels apart
    tracker_faces(moved[0], 0.0)
    tracked_ms = [ms for i in range(repeat) for ms in _ms(lambda i=i: tracker_faces(moved[i % 2], 0.1 * i), 1)]
    assert tracker_faces.embedded == 1
    voice_model(window)
    voice_ms = _ms(lambda: voice_model(window), repeat)

    rng = np.random.default_rng(0)
    per = cfg.identity.max_keys
    face_scale = 0.6 if faces_model.metric == "l2" else 1.0  # dlib descriptors have norm about 0.6
    voice_keys = _keys(rng, people, per, len(voice_model(window)), 1.0)
    face_keys = _keys(rng, people, per, len(faces_model(frame)[0].embedding), face_scale)
    seen = faces_model(frame)
    heard = voice_model(window)
    face_keys[people // 2][0], voice_keys[people // 2][0] = seen[0].embedding, heard  # someone is there
    assigner = SpeakerAssigner(cfg.identity, voice_keys, face_keys, faces_model.metric, faces_model.threshold)
    tracker = IdentityTracker(cfg.identity, assigner)
    assert tracker.match(heard, seen).person_id == people // 2
    match_ms = _ms(lambda: tracker.match(heard, seen), max(repeat, 50))
    gate = NoveltyGate(cfg.video.novelty)
    gate_ms = _ms(lambda: gate(frame), 50)

    med = statistics.median
    face, voice, match = med(face_ms), med(voice_ms), med(match_ms)
    return {
        "device": cfg.device.kind,
        "threads": cfg.device.threads,
        "face_backend": faces_model.name,
        "people": people,
        "keys_per_person": per,
        "face_detect_ms": round(med(detect_ms), 1),
        "face_detect_embed_ms": round(face, 1),
        "face_tracked_ms": round(med(tracked_ms), 1),
        "voice_embed_ms": round(voice, 1),
        "voice_window_s": cfg.identity.window_s,
        "match_ms": round(match, 2),
        "novelty_gate_ms": round(med(gate_ms), 2),
        "poll_ms": round(face + voice + match, 1),
        "poll_tracked_face_ms": round(med(tracked_ms) + voice + match, 1),
        "poll_unchanged_scene_ms": round(med(gate_ms) + voice + match, 1),
        "poll_s": cfg.identity.poll_s,
    }


def render(r: dict) -> str:
    rows = [
        ("face detect", f"{r['face_detect_ms']:.1f} ms per 640x480 frame ({r['face_backend']})"),
        ("face detect+embed", f"{r['face_detect_embed_ms']:.1f} ms"),
        ("face detect+track", f"{r['face_tracked_ms']:.1f} ms (the face moved a little: its embedding is kept)"),
        ("voice embed", f"{r['voice_embed_ms']:.1f} ms per {r['voice_window_s']:.0f} s window"),
        ("match", f"{r['match_ms']:.2f} ms against {r['people']} people x {r['keys_per_person']} keys per modality"),
        ("poll, new face", f"{r['poll_ms']:.1f} ms (goal 50 ms) every {r['poll_s']:.0f} s"),
        ("poll, face moved", f"{r['poll_tracked_face_ms']:.1f} ms"),
        (
            "poll, unchanged scene",
            f"{r['poll_unchanged_scene_ms']:.1f} ms (novelty gate {r['novelty_gate_ms']:.2f} ms)",
        ),
    ]
    return "\n".join(f"{k:24s} {v}" for k, v in rows) + "\n"
