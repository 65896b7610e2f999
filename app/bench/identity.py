"""`bench identity`: the CPU time of identity polls (EgoMem polls every 2 s), as the recorder runs them: the
novelty gate on the frame; if it passes, face detection and an embedding for each face that is not already
tracked (`FaceTracker`); the voice embedding of the poll's speech window; and the tracker's poll (matching
against 1,000 people's keys, fusion, unknown faces).

Three scenes, each a run of polls on 640x480 frames built from the demo's faces: the scene unchanged (the
gate skips the frame), the face moved a little while the light changed (the frame is analysed, the face's
track keeps its embedding), and a new face every poll (another person at another place: embedded). Times are
process CPU time (every thread of the process, the model runtimes' included), p50 and max per poll.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from app import registry
from app.bench.pipeline import _demo
from app.config import Config
from app.demo import face_cards, group_photo
from app.frames import SAMPLE_RATE_HZ, Face
from app.identity.speakers import SpeakerAssigner
from app.identity.tracker import IdentityTracker
from app.recorder.perception import face_backend, load_faces, load_voice, single_thread_blas
from app.vision.faces import FaceTracker, NoveltyGate

PEOPLE = 1000
POLLS = 30
GOAL_MS = 50.0
FACE_PX = 240  # the demo face's card is scaled to this square: a face about 100 px wide
PLACES = (20, 380)  # left and right: far enough apart that a face at the other is a new track
NUDGE_PX = 12  # a move that keeps the face's track (IoU about 0.8)


def _cpu_ms(fn: Callable[[], object], repeat: int) -> list[float]:
    """Process CPU time of each call (ms)."""
    out = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        out.append((time.process_time() - t) * 1000)
    return out


def _keys(rng: np.random.Generator, people: int, per_person: int, dim: int, scale: float) -> dict[int, np.ndarray]:
    keys = rng.standard_normal((people, per_person, dim)).astype(np.float32)
    keys /= np.linalg.norm(keys, axis=2, keepdims=True)
    return {pid + 1: keys[pid] * scale for pid in range(people)}


def _scene(card: np.ndarray, x: int, background: int) -> np.ndarray:
    """A 640x480 frame: the card's face square scaled to FACE_PX at column x, on a plain background."""
    # lazy: OpenCV is heavy (~0.1 s)
    import cv2

    h, w = card.shape[:2]
    side = h - 40
    face = cv2.resize(card[20 : 20 + side, (w - side) // 2 : (w + side) // 2], (FACE_PX, FACE_PX))
    frame = np.full((480, 640, 3), background, np.uint8)
    frame[120 : 120 + FACE_PX, x : x + FACE_PX] = face
    return frame


def _scenes(cards: list[np.ndarray], polls: int) -> dict[str, list[np.ndarray]]:
    return {
        "unchanged": [_scene(cards[0], PLACES[0], 60)] * polls,
        "moved": [_scene(cards[0], PLACES[0] + NUDGE_PX * (i % 2), 60 + 30 * (i % 2)) for i in range(polls)],
        "new_face": [_scene(cards[i % len(cards)], PLACES[i % 2], 60) for i in range(polls)],
    }


def _run_polls(
    cfg: Config, faces_model, voice_model, assigner, frames: list[np.ndarray], window: np.ndarray
) -> tuple[list[float], int]:
    """(CPU ms of each poll, faces embedded) over `frames`, one frame per poll: the recorder's face stage on
    the frame, then its identity poll."""
    gate, tracks = NoveltyGate(cfg.video.novelty), FaceTracker(faces_model)
    tracker = IdentityTracker(cfg.identity, assigner)
    gate(frames[0])
    in_view = tracks(frames[0], 0.0)  # the scene the polls start from is already known
    tracks.embedded = 0
    out = []
    for i, frame in enumerate(frames[1:], 1):
        t_s = i * cfg.identity.poll_s
        started = time.process_time()
        if gate(frame):
            in_view = tracks(frame, t_s)
        tracker.poll(t_s, voice_model(window), in_view)
        out.append((time.process_time() - started) * 1000)
    return out, tracks.embedded


def _dlib_wheel_ms(cfg: Config, frame: np.ndarray, faces_model) -> float | None:
    """The dlib wheel's own compute_face_descriptor on the same face, for comparison (None off the dlib path)."""
    # lazy: the dlib wheel, for this comparison only
    import dlib

    if faces_model.name != "dlib":
        return None
    predictor, recognizer = registry.verify(registry.get("dlib"), cfg.models_dir)
    shape_of, wheel = dlib.shape_predictor(str(predictor)), dlib.face_recognition_model_v1(str(recognizer))
    (x, y, w, h), _, _ = faces_model.detect(frame)[0]
    rgb = np.ascontiguousarray(frame[:, :, ::-1])
    shape = shape_of(rgb, dlib.rectangle(x, y, x + w, y + h))
    return statistics.median(_cpu_ms(lambda: wheel.compute_face_descriptor(rgb, shape), 5))


def _speech_window(cfg: Config) -> np.ndarray:
    """The poll's window of the demo's first turn."""
    audio, script, _ = _demo(cfg)
    start = int(script["turns"][0]["t_start_s"] * SAMPLE_RATE_HZ)
    return audio[start : start + int(cfg.identity.window_s * SAMPLE_RATE_HZ)]


def _assigner(cfg: Config, faces_model, seen: Face, heard: np.ndarray, people: int):
    """`people` people with random keys, one of whom has the seen face and the heard voice among theirs."""
    rng = np.random.default_rng(0)
    per = cfg.identity.max_keys
    face_scale = float(np.linalg.norm(seen.embedding)) if faces_model.metric == "l2" else 1.0
    voice_keys = _keys(rng, people, per, len(heard), 1.0)
    face_keys = _keys(rng, people, per, len(seen.embedding), face_scale)
    face_keys[people // 2][0], voice_keys[people // 2][0] = seen.embedding, heard
    return SpeakerAssigner(cfg.identity, voice_keys, face_keys, faces_model.metric, faces_model.threshold)


def bench_identity(cfg: Config, people: int = PEOPLE, polls: int = POLLS) -> dict:
    single_thread_blas()  # as the recorder runs (load_perception)
    faces_model, voice_model = load_faces(cfg), load_voice(cfg)
    scenes = _scenes(face_cards(group_photo()), polls + 1)
    frame, window = scenes["unchanged"][0], _speech_window(cfg)
    (detection,) = faces_model.detect(frame)
    seen, heard = faces_model.embed(frame, detection), voice_model(window)
    assigner = _assigner(cfg, faces_model, seen, heard, people)
    tracker = IdentityTracker(cfg.identity, assigner)
    assert tracker.match(heard, [seen]).person_id == people // 2

    med, gate = statistics.median, NoveltyGate(cfg.video.novelty)
    parts = {
        "face_detect_ms": med(_cpu_ms(lambda: faces_model.detect(frame), 20)),
        "face_embed_ms": med(_cpu_ms(lambda: faces_model.embed(frame, detection), 20)),
        "voice_embed_ms": med(_cpu_ms(lambda: voice_model(window), 20)),
        "match_ms": med(_cpu_ms(lambda: tracker.match(heard, [seen]), 50)),
        "novelty_gate_ms": med(_cpu_ms(lambda: gate(frame), 50)),
    }
    result: dict = {
        "device": cfg.device.kind,
        "threads": cfg.device.threads,
        "face_backend": face_backend(cfg),
        "people": people,
        "keys_per_person": cfg.identity.max_keys,
        "voice_window_s": cfg.identity.window_s,
        "poll_s": cfg.identity.poll_s,
        "goal_ms": GOAL_MS,
        **{k: round(v, 2) for k, v in parts.items()},
    }
    wheel = _dlib_wheel_ms(cfg, frame, faces_model)
    if wheel is not None:
        result["dlib_wheel_descriptor_ms"] = round(wheel, 1)
    result["polls_per_scene"], result["faces_embedded"] = polls, {}
    for name, frames in scenes.items():
        ms, embedded = _run_polls(cfg, faces_model, voice_model, assigner, frames, window)
        result[f"poll_{name}_p50_ms"], result[f"poll_{name}_max_ms"] = round(med(ms), 1), round(max(ms), 1)
        result["faces_embedded"][name] = embedded
    return result


def render(r: dict) -> str:
    rows = [
        ("face detect", f"{r['face_detect_ms']:.1f} ms per 640x480 frame ({r['face_backend']})"),
        ("face embed", f"{r['face_embed_ms']:.1f} ms per new face (landmarks, aligned chip, network, grade)"),
    ]
    if "dlib_wheel_descriptor_ms" in r:
        rows.append(("  dlib wheel's own", f"{r['dlib_wheel_descriptor_ms']:.1f} ms for the same descriptor"))
    rows += [
        ("voice embed", f"{r['voice_embed_ms']:.1f} ms per {r['voice_window_s']:.0f} s window"),
        ("match", f"{r['match_ms']:.2f} ms against {r['people']} people x {r['keys_per_person']} keys per modality"),
        ("novelty gate", f"{r['novelty_gate_ms']:.2f} ms"),
    ]
    for name, label in (("unchanged", "unchanged scene"), ("moved", "face moved"), ("new_face", "new face")):
        p50, top, embedded = r[f"poll_{name}_p50_ms"], r[f"poll_{name}_max_ms"], r["faces_embedded"][name]
        mark = "within" if top <= r["goal_ms"] else "over"
        detail = f"p50 {p50:.1f} ms, max {top:.1f} ms ({mark} {r['goal_ms']:.0f} ms; {embedded} faces embedded)"
        rows.append((f"poll, {label}", detail))
    head = f"CPU time per identity poll (every {r['poll_s']:.0f} s), {r['polls_per_scene']} polls per scene\n"
    return head + "\n".join(f"{k:24s} {v}" for k, v in rows) + "\n"
