"""The impostor cohort for adaptive s-norm, on a device that has no speech corpus.

It starts as a *seed* that `build.py` synthesises: English sentences in ~150 espeak-ng voice configurations
(accents x variants) and flite's voices, embedded with the device's own voice encoder. As the device meets
people, their voice keys join it: the impostors that matter most are the other people this wearer talks to.
`eval speakers` measures both.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np
import soxr

from app.config import child_env
from app.demo import speak
from app.errors import ModelError

COHORT_DIR = "cohort"
ACCENTS = ("en", "en-us", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-us-nyc")
SENTENCES = (
    "The weather was lovely so we walked along the river after lunch.",
    "Could you remind me what time the train leaves on Sunday morning?",
)
FLITE_SENTENCES = SENTENCES + (
    "My neighbour painted his fence green last summer.",
    "Please send the report before Friday.",
)
VOICES_WANTED = 150


def seed_path(models_dir: Path, encoder: str) -> Path:
    return models_dir / COHORT_DIR / f"{encoder}-seed.npy"


def _espeak_variants() -> list[str]:
    listing = ["espeak-ng", "--voices=variant"]
    out = subprocess.run(listing, capture_output=True, text=True, check=True, env=child_env()).stdout
    return sorted(line.split()[-1].split("/")[-1] for line in out.splitlines()[1:] if line.strip())


def _espeak(text: str, voice: str) -> np.ndarray:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "s.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice, "-w", str(out), text], check=True, capture_output=True, env=child_env()
        )
        with wave.open(str(out)) as w:
            rate, pcm = w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), np.int16)

    return soxr.resample(pcm.astype(np.float32) / 32768, rate, 16000).astype(np.float32)


def build_seed(encode, seed: int = 0) -> np.ndarray:
    """Embeddings of synthetic voices: (n, dim). `encode(audio_16k) -> unit vector`."""
    if shutil.which("espeak-ng") is None:
        raise ModelError("espeak-ng is not installed (apt-get install espeak-ng); it voices the s-norm cohort")
    rng = np.random.default_rng(seed)
    configs = [f"{a}+{v}" for a in ACCENTS for v in _espeak_variants()]
    chosen = sorted(rng.choice(configs, min(VOICES_WANTED, len(configs)), replace=False).tolist())
    embeddings = [encode(_espeak(text, voice)) for voice in chosen for text in SENTENCES]
    embeddings += [encode(speak(text, voice)) for voice in ("slt", "rms", "awb", "kal16") for text in FLITE_SENTENCES]
    return np.stack(embeddings).astype(np.float32)


def load_seed(models_dir: Path, encoder: str) -> np.ndarray:
    path = seed_path(models_dir, encoder)
    if not path.is_file():
        raise ModelError(f"the s-norm seed cohort {path} is missing: run `python build.py` to make it")
    return np.load(path)
