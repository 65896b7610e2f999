"""What flows between the recorder's stages: small frozen dataclasses with units in their names (what the
stages report about it is in app/events.py).

Stream times (`t_*_s`) are seconds since the source started; `origin_epoch_s` on the source turns them into
wall-clock event times when they are stored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SAMPLE_RATE_HZ = 16000  # every audio chunk inside the pipeline is 16 kHz mono float32 in [-1, 1]


@dataclass(frozen=True, eq=False)
class AudioChunk:
    samples: np.ndarray  # float32, mono, SAMPLE_RATE_HZ
    t_start_s: float
    sample_rate_hz: int = SAMPLE_RATE_HZ

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate_hz


@dataclass(frozen=True, eq=False)
class VideoFrame:
    image: np.ndarray  # BGR uint8, H x W x 3
    t_s: float


@dataclass(frozen=True, eq=False)
class SpeechSegment:
    """A stretch of speech found by the VAD, padded by vad.pad_ms. `final` False: a tentative one, the segment as
    it will be if the silence that has just begun lasts until the VAD closes it (eager recognition)."""

    audio: np.ndarray
    t_start_s: float
    t_end_s: float
    final: bool = True
    speech_probs: np.ndarray | None = None  # the VAD's speech probability of each of its windows, in order

    @property
    def duration_s(self) -> float:
        return self.t_end_s - self.t_start_s


@dataclass(frozen=True, eq=False)
class Face:
    box: tuple[int, int, int, int]  # x, y, width, height in pixels of the original frame
    embedding: np.ndarray  # identity embedding of the backend (dlib: 128-d)
    score: float  # detector confidence
    quality: float = 1.0  # 0..1 from size, sharpness and yaw; ranks identity keys
    defect: str = ""  # "" when fit to be an identity key, else small | blurred | turned


@dataclass(frozen=True, eq=False)
class FaceObservation:
    t_s: float
    faces: tuple[Face, ...]
    jpeg: bytes | None = None  # the frame, kept as raw media evidence when it shows a face


@dataclass(frozen=True, eq=False)
class Utterance:
    """One transcribed speech segment with what identifies its speaker."""

    text: str
    t_start_s: float
    t_end_s: float
    asr_confidence: float  # 0..1
    voice_embedding: np.ndarray | None  # None when the segment is too short to embed reliably
    face: Face | None  # the main face seen while it was spoken
    audio: np.ndarray | None = None  # the speech itself (16 kHz), kept as raw media within retention
    frame_jpeg: bytes | None = None  # the frame that showed `face`
    frame_faces: tuple[Face, ...] = ()  # every face that frame shows, `face` among them
    voice: tuple[int, int] | None = None  # (conversation, voice) the turn was heard in (app/identity/diarize.py)
    overlapped: bool = False  # it began over the end of another voice's speech, or someone spoke over it
    backchannel: bool = False  # only "mm-hm", "yeah", "right"...: a listener's signal, not a turn of its own
    whole: bool = True  # the whole stretch of speech, one voice throughout (not cut out of a longer one)
