"""`bench soak`: the recorder's footprint — hours of real recordings replayed as fast as it goes, idle CPU on
silence, resident memory with every perception model loaded.

The stream loops real recordings (../shared/data: the LibriSpeech readers one after another, the LJSpeech
clips, the JFK clip; else the demo recording) into one long replay through the real recorder and a temporary
encrypted memory. With `conversational`, the loop is simulated conversations instead (app/evaluation/simulate.py:
the LibriSpeech readers of both groups taking turns, 2-4 at a time, with real turn-taking: gaps of a fifth of a
second, overlaps, backchannels), joined by CONVERSATION_GAP_S of silence, shorter than a session's gap, so the
recorder hears one long session and finds the speaker turns inside each stretch of speech. Memory writing by the
LLM is off: it is measured by `bench llm`. Reported:
- the real-time factor and what one hour of audio costs, the process's CPU per audio second, and how long
  each stage was busy (its share of the wall time: stages run side by side, so the shares need not sum to 1),
  and its parts: recognition with and without the words' times, the sliding voice windows, the voice of each
  turn, the identity poll's voice, the rest of the turn finding, text embedding, the rest of storing;
- resident memory after loading and along the replay (its growth per hour of audio);
- per-utterance cost (speech recognition, voice embedding, storing) in each tenth of the replay: a cost that
  grows with the memory's size would show here;
- the people the recorder created against the voices in the loop (conversational: the readers heard in the
  replay);
- the recorder's CPU on `--idle` seconds of silence at real time (goal: ≤ 2 % of one core).
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import resource
import secrets
import statistics
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from app.audio.media import read_audio
from app.bench.pipeline import _demo
from app.config import Config
from app.errors import MediaError
from app.evaluation.simulate import conversation
from app.evaluation.voices import GROUPS, Voices
from app.frames import SAMPLE_RATE_HZ, AudioChunk
from app.recorder.perception import load_perception
from app.recorder.pipeline import Recorder
from app.recorder.sources import Stoppable
from app.store.keys import Secret
from app.store.memory import Memory

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
CHUNK_S = 0.256
GAP_S = 1.5  # between clips of one speaker
TURN_GAP_S = 4.0  # between speakers
CONVERSATION_GAP_S = 3.0  # between simulated conversations: under session.gap_s, so the session goes on
CONVERSATION_SEEDS = (0, 1, 2)
CONVERSATION_SPEAKERS = (2, 3, 4)
CONVERSATION_TURNS = 24
MIN_GROWTH_H = 0.5  # of audio after the first tenth: shorter runs report no growth per hour


def rss_mb() -> float:
    """This process's resident memory now (Linux /proc), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE_HZ), np.float32)


def real_loop(data: Path = SHARED) -> tuple[np.ndarray, int]:
    """One pass of real recordings and how many distinct voices it holds (LibriSpeech readers in turn, the
    LJSpeech reader, JFK)."""
    parts, voices = [], 0
    manifest = data / "librispeech_test_other_resemblyzer" / "manifest.csv"
    if manifest.is_file():
        with manifest.open() as fh:
            rows = list(csv.DictReader(fh))
        for speaker in dict.fromkeys(r["speaker_id"] for r in rows):
            for r in (r for r in rows if r["speaker_id"] == speaker):
                parts += [read_audio(manifest.parent / r["path"]), _silence(GAP_S)]
            parts.append(_silence(TURN_GAP_S))
            voices += 1
    lj = sorted((data / "asr_small_samples" / "ljspeech").glob("*.flac"))
    for path in lj:
        parts += [read_audio(path), _silence(GAP_S)]
    voices += bool(lj)
    jfk = data / "asr_small_samples" / "whisper_jfk" / "jfk.flac"
    if jfk.is_file():
        parts += [_silence(TURN_GAP_S), read_audio(jfk), _silence(TURN_GAP_S)]
        voices += 1
    if not parts:
        raise MediaError(f"no recordings under {data}")
    return np.concatenate(parts), voices


def conversational_loop(
    data: Path = SHARED, models_dir: Path | None = None, threads: int = 2
) -> tuple[np.ndarray, list[tuple[float, tuple[str, ...]]]]:
    """One pass of simulated conversations (each seed, each group of readers, 2-4 speakers, clean) and where
    each starts with who speaks in it (s, readers)."""
    readers = data / "librispeech_test_other_resemblyzer"
    if not (readers / "manifest.csv").is_file():
        raise MediaError(
            f"--conversational needs the LibriSpeech readers: {readers / 'manifest.csv'} not found (../shared/data)"
        )
    voices = Voices(readers, models_dir, threads=threads)
    parts, starts, at = [], [], 0.0
    for seed in CONVERSATION_SEEDS:
        for group in GROUPS:
            for speakers in CONVERSATION_SPEAKERS:
                conv = conversation(voices, seed, speakers, group, CONVERSATION_TURNS)[0]
                starts.append((at, conv.speakers))
                parts += [conv.audio, _silence(CONVERSATION_GAP_S)]
                at += conv.duration_s + CONVERSATION_GAP_S
    return np.concatenate(parts), starts


def heard_voices(starts: list[tuple[float, tuple[str, ...]]], loop_s: float, duration_s: float) -> int:
    """How many readers speak in the first `duration_s` of the loop replayed (the loop repeats)."""
    heard = {s for at, who in starts if at < duration_s for s in who}
    return len(heard) if duration_s < loop_s else len({s for _, who in starts for s in who})


class LoopSource(Stoppable):
    """A recording looped to `duration_s`, replayed as fast as the recorder takes it (or at real time)."""

    has_video = False

    def __init__(self, audio: np.ndarray, duration_s: float, name: str, realtime: bool = False) -> None:
        self._audio = audio
        self.duration_s = duration_s
        self.name = name
        self.realtime = realtime
        self.origin_epoch_s = time.time() - duration_s
        super().__init__()

    def check(self) -> None:
        """In memory: nothing to check."""

    async def stream(self) -> AsyncIterator[AudioChunk]:
        step = int(CHUNK_S * SAMPLE_RATE_HZ)
        total = int(self.duration_s * SAMPLE_RATE_HZ)
        start = time.monotonic()
        for at in range(0, total, step):
            if self._stop.is_set():
                return
            samples = np.take(self._audio, np.arange(at, min(at + step, total)), mode="wrap")
            if self.realtime:
                delay = start + at / SAMPLE_RATE_HZ - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)
            yield AudioChunk(samples, at / SAMPLE_RATE_HZ)


class Call(NamedTuple):
    """One timed call: the audio it covered, its thread's CPU and wall time, which thread, and what it was."""

    audio_s: float  # 0 for what is not audio
    cpu_s: float
    wall_s: float
    thread: str  # the recorder's pool ("asr", "identity", "store", "vad") or the thread's name
    what: str  # "call", "words" (a recognition asked for the words' times) or the method's name


class Timed:
    """A model (or any callable) whose calls, and those of the named `methods`, are counted with their thread
    CPU time and wall time."""

    def __init__(self, inner, methods: tuple[str, ...] = ()) -> None:
        self._inner = inner
        self._methods = methods
        self.calls: list[Call] = []

    def __getattr__(self, name: str):
        attr = getattr(self._inner, name)
        if name in self._methods:
            return lambda *args, **kw: self._timed(attr, name, *args, **kw)
        return attr

    def __call__(self, audio, *args, **kw):
        return self._timed(self._inner, "words" if kw.get("words") else "call", audio, *args, **kw)

    def _timed(self, fn: Callable, what: str, audio, *args, **kw):
        cpu, wall = time.thread_time(), time.perf_counter()
        out = fn(audio, *args, **kw)
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        seconds = len(audio) / SAMPLE_RATE_HZ if isinstance(audio, np.ndarray) else 0.0
        self.calls.append(Call(seconds, cpu, wall, threading.current_thread().name.split("_")[0], what))
        return out

    def busy(self, what: str | None = None, thread: str | None = None) -> float:
        """Wall seconds in the calls of one kind (all: None) on one thread (any: None)."""
        return sum(c.wall_s for c in self.calls if what in (None, c.what) and thread in (None, c.thread))

    @property
    def busy_s(self) -> float:
        return self.busy()


def _recorder(cfg: Config, memory, models, source, on_progress=None):
    """The real recorder, with its storing step timed per utterance (thread CPU and wall)."""

    class TimedRecorder(Recorder):
        stored: list[tuple[float, float, float]] = []  # (stream time, cpu s, wall s)
        steps: dict[str, float] = {}  # wall s in each of the recognition thread's steps and the identity tracking

        def _write(self, utt) -> None:
            cpu, wall = time.thread_time(), time.perf_counter()
            super()._write(utt)
            self.stored.append((utt.t_start_s, time.thread_time() - cpu, time.perf_counter() - wall))

        def _step(self, name: str, fn: Callable, *args):
            wall = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.steps[name] = self.steps.get(name, 0.0) + time.perf_counter() - wall

        def _recognize(self, *args):
            return self._step("recognize", super()._recognize, *args)

        def _learn(self, *args):
            return self._step("learn", super()._learn, *args)

        def _turns(self, *args):
            return self._step("turns", super()._turns, *args)

        def _track(self, *args):
            return self._step("track", super()._track, *args)

    TimedRecorder.stored, TimedRecorder.steps = [], {}
    return TimedRecorder(cfg, memory, models, source, on_progress=on_progress)


def _perception_alone(cfg: Config) -> Config:
    return dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, background=False))


def _idle(cfg: Config, models, seconds: float) -> dict:
    """The recorder's CPU share on silence replayed at real time (a wearable that hears nothing)."""
    source = LoopSource(_silence(10.0), seconds, "silence", realtime=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory.open(
            Path(tmp) / "idle.db", Secret(secrets.token_hex(16).encode(), "bench"), cfg.store, create=True
        ) as memory,
    ):
        recorder = _recorder(cfg, memory, models, source)
        cpu, wall = time.process_time(), time.perf_counter()
        asyncio.run(recorder.run())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"seconds": round(wall, 1), "cpu_s": round(cpu, 3), "core_percent": round(100 * cpu / wall, 2)}


def _tenths(values: list[float]) -> list[float]:
    """The median of each tenth of a series in stream order, x1000 (ms)."""
    n = len(values)
    parts = [values[n * i // 10 : n * (i + 1) // 10] for i in range(10)]
    return [round(1000 * statistics.median(p), 1) if p else 0.0 for p in parts]


def _parts(timed: dict[str, Timed], steps: dict[str, float], store_s: float) -> dict[str, float]:
    """Wall seconds busy in each part of the work (see the module's docstring)."""
    asr, voice = timed["asr"], timed["voice"]
    turns_s = voice.busy("call", "asr")
    thread_s = sum(steps.get(k, 0.0) for k in ("recognize", "learn", "turns"))
    text_s = timed["text"].busy()
    return {
        "asr_plain": asr.busy("call"),
        "asr_words": asr.busy("words"),
        "voice_windows": voice.busy("windows"),
        "voice_turns": turns_s,
        "voice_poll": voice.busy("call", "identity"),
        "turns_rest": max(0.0, thread_s - asr.busy() - voice.busy("windows") - turns_s),
        "identity_track": steps.get("track", 0.0),
        "text_embedding": text_s,
        "store_rest": max(0.0, store_s - text_s),
        "vad": timed["vad"].busy(),
    }


def bench_soak(
    cfg: Config, hours: float, idle_s: float = 30.0, data: Path = SHARED, conversational: bool = False
) -> dict:
    cfg = _perception_alone(cfg)
    duration = hours * 3600
    rss_start = rss_mb()
    models = load_perception(cfg)
    rss_loaded = rss_mb()
    if conversational:  # no fallback: the point is the turn-taking
        audio, starts = conversational_loop(data, cfg.models_dir, cfg.device.threads)
        voices = heard_voices(starts, len(audio) / SAMPLE_RATE_HZ, duration)
        recording = f"simulated conversations ({len(starts)}, 2-4 readers each)"
    else:
        try:
            audio, voices = real_loop(data)
            recording = "real recordings"
        except MediaError:
            audio, voices, recording = _demo(cfg)[0], 3, "the demo"
    timed = {
        "vad": Timed(models.vad),
        "asr": Timed(models.asr),
        "voice": Timed(models.voice, ("windows",)),
        "text": Timed(models.text),
    }
    models = dataclasses.replace(models, **timed)
    result: dict = {
        "device": cfg.device.kind,
        "threads": cfg.device.threads,
        "asr": models.asr.name,
        "loop": {
            "recording": recording,
            "conversational": conversational,
            "minutes": round(len(audio) / SAMPLE_RATE_HZ / 60, 2),
            "voices": voices,  # conversational: the readers heard in the replay
        },
        "rss_mb": {"before_models": round(rss_start), "models_loaded": round(rss_loaded)},
    }
    if idle_s > 0:
        result["idle"] = _idle(cfg, models, idle_s)
        for t in timed.values():
            t.calls.clear()
    rss: list[tuple[float, float]] = []  # (stream time, MB), 50 samples along the replay
    heard = [0.0]

    def progress(chunk_s: float) -> None:
        heard[0] += chunk_s
        if not rss or heard[0] - rss[-1][0] >= duration / 50:
            rss.append((heard[0], rss_mb()))

    source = LoopSource(audio, duration, "soak")
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory.open(
            Path(tmp) / "soak.db", Secret(secrets.token_hex(16).encode(), "bench"), cfg.store, create=True
        ) as memory,
    ):
        recorder = _recorder(cfg, memory, models, source, progress)
        cpu, wall = time.process_time(), time.perf_counter()
        summary = asyncio.run(recorder.run())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        people = len(memory.people.all())
        db_mb = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file()) / 1e6
    rss.append((duration, rss_mb()))
    busy = {name: timed[name].busy_s for name in ("vad", "asr", "voice")}
    busy["store"] = sum(w for _, _, w in recorder.stored)
    parts = _parts(timed, recorder.steps, busy["store"])
    first, last = rss[len(rss) // 10][1], rss[-1][1]  # after the first tenth: caches and the index have warmed
    span_h = (duration - rss[len(rss) // 10][0]) / 3600
    result.update(
        {
            "hours": hours,
            "wall_s": round(wall, 1),
            "real_time_factor": round(wall / duration, 4),
            "one_hour_takes_min": round(60 * wall / duration, 2),
            "cpu_real_time_factor": round(cpu / duration, 4),
            "stage_busy_share": {k: round(v / max(wall, 1e-9), 3) for k, v in busy.items()},
            "part_busy_share": {k: round(v / max(wall, 1e-9), 3) for k, v in parts.items()},
            "calls": {
                "asr_plain": sum(c.what == "call" for c in timed["asr"].calls),
                "asr_words": sum(c.what == "words" for c in timed["asr"].calls),
                "voice_windows": sum(c.what == "windows" for c in timed["voice"].calls),
                "voice_turns": sum(c.what == "call" and c.thread == "asr" for c in timed["voice"].calls),
                "voice_poll": sum(c.what == "call" and c.thread == "identity" for c in timed["voice"].calls),
            },
            "utterances": summary.utterances,
            "people": people,
            "errors": summary.errors,
            "database_mb": round(db_mb, 1),
            "by_tenth": {  # medians in each tenth of the replay: flat when nothing grows with the memory
                "asr_ms_per_speech_s": _tenths([c.wall_s / max(c.audio_s, 0.1) for c in timed["asr"].calls]),
                "store_ms_per_utterance": _tenths([w for _, _, w in recorder.stored]),
            },
        }
    )
    result["rss_mb"].update(
        {
            "max": round(max(v for _, v in rss)),
            "end": round(last),
            # None under half an hour: the allocator's and the page cache's swings outweigh any trend (0.25 h
            # runs of the same code gave -182 to +261 MB per hour)
            "growth_mb_per_hour": round((last - first) / span_h, 1) if span_h >= MIN_GROWTH_H else None,
        }
    )
    return result


def render(r: dict) -> str:
    rss, share = r["rss_mb"], r["stage_busy_share"]
    lines = [
        f"soak: {r['hours']} h of {r['loop']['recording']} (a {r['loop']['minutes']} min loop, "
        f"{r['loop']['voices']} voices), {r['asr']}, {r['threads']} threads",
        f"{'end to end':26s} {r['wall_s']:.0f} s: real-time factor {r['real_time_factor']:.3f} — one hour of audio "
        f"takes {r['one_hour_takes_min']:.1f} min (goal ≤ 6); CPU {r['cpu_real_time_factor']:.3f} s per audio s",
        f"{'stage busy, share of wall':26s} " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in share.items()),
        f"{'  parts':26s} "
        + ", ".join(f"{k.replace('_', ' ')} {100 * v:.1f}%" for k, v in r["part_busy_share"].items()),
        f"{'  calls':26s} " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in r["calls"].items()),
        f"{'utterances / people':26s} {r['utterances']} / {r['people']} (voices "
        f"{'heard' if r['loop'].get('conversational') else 'in the loop'}: {r['loop']['voices']})",
        f"{'resident memory':26s} {rss['models_loaded']} MB with the models loaded (goal ≤ 1,500), max {rss['max']}, "
        + (
            f"growth {rss['growth_mb_per_hour']:+.1f} MB per hour of audio"
            if rss["growth_mb_per_hour"] is not None
            else "growth not measured (under half an hour of audio)"
        ),
        f"{'ASR ms per speech s':26s} {r['by_tenth']['asr_ms_per_speech_s']} (median of each tenth of the replay)",
        f"{'store ms per utterance':26s} {r['by_tenth']['store_ms_per_utterance']}",
        f"{'database':26s} {r['database_mb']} MB",
    ]
    if "idle" in r:
        i = r["idle"]
        lines.append(
            f"{'idle on silence':26s} {i['core_percent']:.2f}% of one core over {i['seconds']:.0f} s (goal ≤ 2%)"
        )
    if r["errors"]:
        lines.append(f"{'errors':26s} {r['errors']}")
    return "\n".join(lines) + "\n"
