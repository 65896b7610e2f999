"""The demo recording: three people talking, with their faces on camera, generated deterministically.

Voices are flite's slt (female), rms and kal16 (male), spoken 1.3x slower than flite's default: at its own
rate faster-whisper heard "Emily" as "Amelia" and "my wife Sarah is a doctor" as "my wife's area is a duffer"
(`python -m app eval asr` gives the demo's WER per recognizer). Faces are cropped from the group photo that
the insightface wheel ships (data/images/t1.jpg).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.audio.media import write_media
from app.config import child_env
from app.errors import MediaError
from app.frames import SAMPLE_RATE_HZ

_LOGGER = logging.getLogger(__name__)
GROUP_PHOTO_SHA256 = "47f682e945b659f93a9e490b9c9c4a2a864abe64dace9e1a2893845ddfd69489"
CREATION_TIME = "2026-05-14T09:30:00+00:00"  # the demo's event time: fixed, so answers are reproducible
FRAME_SIZE = (640, 480)  # width, height
FPS = 5.0


@dataclass(frozen=True)
class Speaker:
    name: str
    voice: str  # flite voice
    face_index: int  # face in the group photo, counted from the left


SPEAKERS = (Speaker("Emily", "slt", 0), Speaker("John", "rms", 2), Speaker("David", "kal16", 3))
STRETCH = 1.3  # the voices' duration stretch (see the module's note)


def speakers() -> list[dict]:
    """Who speaks in the recordings, as their JSON lists them (a change makes build.py render them again)."""
    return [{"name": s.name, "voice": f"flite {s.voice}, {STRETCH}x slower"} for s in SPEAKERS]


SCRIPT: tuple[tuple[str, str], ...] = (
    ("Emily", "Hi, my name is Emily. I work as a nurse at the city hospital."),
    ("John", "Nice to meet you Emily. I am John and I teach history at the high school."),
    ("David", "And I am David. John is my brother and we grew up together in Boston."),
    ("Emily", "I love playing tennis. I play every Saturday morning in the park."),
    ("John", "My wife Sarah is a doctor and she loves tennis too."),
    ("David", "Next Friday we are planning a trip to Paris for my birthday."),
    ("Emily", "That sounds wonderful. My favorite food is Italian pasta with fresh tomatoes."),
    ("John", "Please remember that the meeting with the bank is on Monday at ten o'clock."),
    ("David", "I am allergic to peanuts so please do not bring any cookies to the party."),
    ("Emily", "My daughter Lucy starts school in September and she is very excited."),
    ("John", "Our new colleague Maria moved here from Madrid last month."),
    ("David", "I bought a new bicycle and I ride it to work every day."),
)


def flite_available() -> bool:
    return shutil.which("flite") is not None


def speak(text: str, voice: str = "slt", stretch: float = 1.0) -> np.ndarray:
    """Synthesize `text` with a flite voice, `stretch` times slower than its default rate: 16 kHz mono float32."""
    if not flite_available():
        raise MediaError("flite is not installed (apt-get install flite); it voices the demo")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "speech.wav"
        subprocess.run(
            ["flite", "-voice", voice, "--setf", f"duration_stretch={stretch}", "-t", text, "-o", str(out)],
            check=True,
            capture_output=True,
            env=child_env(),
        )
        with wave.open(str(out)) as w:
            if w.getframerate() != SAMPLE_RATE_HZ or w.getsampwidth() != 2:
                raise MediaError(f"flite voice {voice} gave {w.getframerate()} Hz audio; expected 16 kHz")
            pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16)
    return pcm.astype(np.float32) / 32768


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE_HZ), np.float32)


def group_photo() -> Path:
    """insightface's t1.jpg from the installed wheel, checked against its sha256."""
    spec = importlib.util.find_spec("insightface")
    if spec is None or not spec.submodule_search_locations:
        raise MediaError("insightface is not installed; `python build.py` installs it (for its sample photo)")
    path = Path(spec.submodule_search_locations[0]) / "data" / "images" / "t1.jpg"
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != GROUP_PHOTO_SHA256:
        raise MediaError(f"{path} is missing or not the expected group photo")
    return path


def face_cards(photo: Path) -> list[np.ndarray]:
    """One 640x480 frame per speaker, showing their face cropped from the group photo."""
    # lazy: OpenCV and dlib are heavy; only the face cards need them
    import cv2
    import dlib

    image = cv2.imread(str(photo))
    rects, _, _ = dlib.get_frontal_face_detector().run(np.ascontiguousarray(image[:, :, ::-1]), 1, 0.0)
    rects = sorted(rects, key=lambda r: r.left())
    cards = []
    w, h = FRAME_SIZE
    for speaker in SPEAKERS:
        r = rects[speaker.face_index]
        cx, cy, half = r.center().x, r.center().y, int(r.width() * 1.4)
        x0, y0 = max(0, cx - half), max(0, cy - half)
        crop = image[y0 : cy + half, x0 : cx + half]
        side = h - 40
        card = np.full((h, w, 3), 40, np.uint8)
        card[20 : 20 + side, (w - side) // 2 : (w + side) // 2] = cv2.resize(
            crop, (side, side), interpolation=cv2.INTER_CUBIC
        )
        cards.append(card)
    return cards


# The companion scene, the day after the demo: David comes back and says his name (the demo's recognizer
# did not catch it the day before), which brings a greeting; Emily — wearing the glasses —
# asks the companion about what was said, and talks over its last answer (a barge-in). Each line is
# (speaker, text, seconds of silence after it: room for the companion to answer).
COMPANION_TIME = "2026-05-15T09:30:00+00:00"
COMPANION_SCRIPT: tuple[tuple[str, str, float], ...] = (
    ("David", "Good morning, my name is David, remember me? I just came back from my trip yesterday.", 10.0),
    ("Emily", "Hey memory, tell me what David is allergic to.", 14.0),
    ("Emily", "Hey memory, what does John teach at the high school?", 14.0),
    ("Emily", "Hey memory, when is the meeting with the bank?", 8.0),
    ("Emily", "Okay, thank you, that is enough.", 3.0),
)


def _render(out_dir: Path, stem: str, lines: list[tuple[str, str, float]], creation_time: str) -> dict:
    """Write <stem>.mkv (the voices, and the speaker's face on camera) and <stem>.json (who said what, when)."""
    cards = dict(zip([s.name for s in SPEAKERS], face_cards(group_photo()), strict=True))
    voices = {s.name: s.voice for s in SPEAKERS}
    parts, frames, turns = [silence(1.0)], [(0.0, cards[lines[0][0]])], []
    t = 1.0
    for name, text, gap in lines:
        speech = speak(text, voices[name], STRETCH)
        frames.append((max(0.0, t - 0.3), cards[name]))
        turns.append(
            {
                "speaker": name,
                "text": text,
                "t_start_s": round(t, 3),
                "t_end_s": round(t + len(speech) / SAMPLE_RATE_HZ, 3),
            }
        )
        parts += [speech, silence(gap)]
        t += len(speech) / SAMPLE_RATE_HZ + gap
    audio = np.concatenate(parts)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_media(out_dir / f"{stem}.mkv", audio, frames, fps=FPS, creation_time=creation_time)
    script = {
        "creation_time": creation_time,
        "duration_s": round(len(audio) / SAMPLE_RATE_HZ, 3),
        "speakers": speakers(),
        "turns": turns,
    }
    (out_dir / f"{stem}.json").write_text(json.dumps(script, indent=1))
    return script


def build_demo(out_dir: Path) -> dict:
    """Write demo.mkv (speech + faces) and demo.json (who said what, when) into `out_dir`."""
    rng = np.random.default_rng(7)
    lines = [(name, text, float(rng.uniform(0.9, 1.4))) for name, text in SCRIPT]
    return _render(out_dir, "demo", lines, CREATION_TIME)


def build_companion_scene(out_dir: Path) -> dict:
    """Write companion.mkv and companion.json: the scene `run --source demo --companion` replays."""
    return _render(out_dir, "companion", list(COMPANION_SCRIPT), COMPANION_TIME)
