"""A recording with the companion in it: the source through the duplex (play, echo, cancel), the recorder with
the companion's hooks, the shared LLM for answers and memory writing, and, for a replay, the WAV of what was
heard and said."""

from __future__ import annotations

import logging
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.companion.duplex import DuplexSource, Playback
from app.config import Config
from app.errors import AppError
from app.events import SAMPLE_RATE_HZ, PipelineEvent

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


def build(
    cfg: Config,
    memory,
    models,
    source,
    on_event: Callable[[PipelineEvent], None] | None = None,
    simulate_echo=None,
    keep_tracks: bool = False,
    speaker: Callable[[np.ndarray, float], None] | None = None,
    llm=None,
):
    """(recorder, companion, duplex source) ready to run. `simulate_echo`: an EchoPath added to the microphone
    (replays and the benchmark); `llm`: a SharedLLM to use (else one shared by the companion and memory writing)."""
    from app.companion.companion import Companion
    from app.companion.tts import load_voice
    from app.llm import SharedLLM
    from app.recorder.pipeline import Recorder

    voice = load_voice(cfg.models_dir, cfg.companion.voice)
    canceller = None
    if cfg.companion.echo_cancel:
        from app.companion.echo import EchoCanceller

        canceller = EchoCanceller()
    playback = Playback()
    holder: dict = {}

    def emit(kind: str, t_s: float, **detail) -> None:  # the recorder is made after the companion
        holder["recorder"]._emit(kind, t_s, **detail)

    duplex = DuplexSource(
        source,
        playback,
        canceller,
        simulate_echo,
        speaker,
        busy=lambda: holder["companion"].busy,
        tail_s=cfg.companion.tail_s,
        keep_tracks=keep_tracks,
    )
    llm = llm or SharedLLM(cfg)
    try:  # loaded now, before anything runs beside it: llama.cpp silences stdout and stderr while it loads
        llm.get()
    except AppError as e:  # the companion says it cannot answer; recording goes on
        _LOGGER.error("the companion cannot answer: %s", e)
    companion = Companion(
        cfg,
        memory,
        models.text,
        voice,
        models.voice,
        llm,
        playback,
        lambda: duplex.clock_s,
        source.origin_epoch_s,
        emit,
        models.vad.window_samples / SAMPLE_RATE_HZ,
    )
    holder["companion"] = companion
    recorder = Recorder(cfg, memory, models, duplex, on_event=on_event, llm=llm, companion=companion)
    holder["recorder"] = recorder
    return recorder, companion, duplex


async def run(
    cfg: Config,
    memory,
    models,
    source,
    wav: Path | None = None,
    on_event: Callable[[PipelineEvent], None] | None = None,
    simulate_echo=None,
) -> CompanionRun:
    """Record `source` with the companion listening and talking; a replay is paced at real time (the companion
    talks on the clock of what it hears) and, with `wav`, what was heard and said is written there."""
    source.realtime = True
    live = source.duration_s is None
    speaker = open_speaker(cfg) if live and wav is None else None
    recorder, companion, duplex = build(
        cfg, memory, models, source, on_event, simulate_echo, keep_tracks=wav is not None, speaker=speaker
    )
    try:
        summary = await recorder.run()
    finally:
        companion.close()
        companion.llm.close()
    out = CompanionRun(
        summary,
        [r.as_dict() for r in companion.replies],
        companion.barge_ins,
        len(companion.refused),
        companion.voice.name,
    )
    if wav is not None:
        write_wav(wav, duplex.track("mic"), duplex.track("played"))
        out.wav = str(wav)
    return out
