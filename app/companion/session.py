"""What a recording with the companion in it needs besides the runtime (app/runtime.py builds the duplex and
the companion): its report, the speaker it talks through, and, for a replay, the WAV of what was heard and
said."""

from __future__ import annotations

import logging
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.config import Config
from app.frames import SAMPLE_RATE_HZ

_LOGGER = logging.getLogger(__name__)


@dataclass
class CompanionRun:
    summary: object  # the recorder's RunSummary
    replies: list[dict] = field(default_factory=list)
    barge_ins: list[dict] = field(default_factory=list)
    refused: int = 0  # utterances refused as the companion's own voice
    voice: str = ""
    wav: str | None = None

    def as_dict(self) -> dict:
        return {
            **self.summary.as_dict(),  # type: ignore[attr-defined]
            "companion": {
                "voice": self.voice,
                "replies": self.replies,
                "barge_ins": self.barge_ins,
                "own_voice_refused": self.refused,
                "wav": self.wav,
            },
        }


def open_speaker(cfg: Config) -> Callable[[np.ndarray, float], None] | None:
    """The default output device, fed block by block from the duplex (None when there is none: the
    companion still answers in events and logs)."""
    try:
        # lazy: sounddevice needs PortAudio; without a speaker the companion still answers
        import sounddevice as sd

        stream = sd.OutputStream(samplerate=SAMPLE_RATE_HZ, channels=1, dtype="float32")
        stream.start()
    except Exception as e:  # PortAudio missing (OSError), no device (PortAudioError), …
        _LOGGER.warning("no speaker (%s): the companion's replies go to events only", e)
        return None

    def play(block: np.ndarray, t_s: float) -> None:
        stream.write(block.reshape(-1, 1))

    return play


def write_wav(path: Path, mic: np.ndarray, played: np.ndarray) -> None:
    """Two channels at 16 kHz: the microphone (speech and the companion's echo) and what the companion said."""
    n = max(len(mic), len(played))
    both = np.zeros((n, 2), np.float32)
    both[: len(mic), 0], both[: len(played), 1] = mic, played
    pcm = (np.clip(both, -1.0, 1.0) * 32767).astype("<i2")
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE_HZ)
        w.writeframes(pcm.tobytes())
