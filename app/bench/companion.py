"""`bench companion`: the voice companion on a reactive scripted scene, at real time, through a simulated
speaker-to-microphone echo path (delay, attenuation, a room-like decaying tail).

The memory is the demo conversation, recorded first into a temporary encrypted database (with its memory
written). The scene is the day after: David comes back and says his name (a greeting), Emily asks questions
and waits for each answer, talks over some answers 0.8 s after they start (barge-in), and the companion
reads a long passage while nobody speaks (echo: ERLE, false barge-ins, its own voice stored). A scripted
person reacts to the companion as a person would, so every number is taken on the clock of the audio.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from app.companion.echo import EchoPath, erle_db
from app.config import Config
from app.demo import COMPANION_TIME, SPEAKERS, speak
from app.frames import SAMPLE_RATE_HZ, AudioChunk
from app.recorder.perception import load_perception
from app.recorder.sources import open_source
from app.runtime import Runtime
from app.store.keys import Secret
from app.store.memory import Memory

CHUNK = 512
GREETING_LINE = ("David", "Good morning, my name is David, remember me? I just came back from my trip yesterday.")
QUESTIONS = (  # worded so that PocketSphinx hears them (the LLM cannot answer what was misheard)
    "Hey memory, tell me what David is allergic to.",
    "Hey memory, tell me where Emily works.",
    "Hey memory, when is the meeting with the bank?",
    "Hey memory, tell me what John teaches.",
)
INTERRUPTED = (
    "Hey memory, tell me about Emily's daughter.",
    "Hey memory, tell me about the trip to Paris.",
    "Hey memory, when is the meeting with the bank?",
)
INTERRUPTION = "Wait, stop, thank you."
BARGE_AFTER_S = 2.0  # into the passage being read
THINK_AFTER_S = 0.8  # after the question: the answer is being generated
ECHO_PATH = {"delay_ms": 40.0, "attenuation_db": -10.0, "rt60_ms": 150.0}  # speaker to microphone
PASSAGE = (
    "Here is what I remember from yesterday. Emily works as a nurse at the city hospital, and she plays tennis "
    "every Saturday morning in the park. John teaches history at the high school. His wife Sarah is a doctor, and "
    "she loves tennis too. David is John's brother; they grew up together in Boston. David is allergic to peanuts, "
    "so nobody should bring cookies to the party. Next Friday David plans a trip to Paris for his birthday. The "
    "meeting with the bank is on Monday at ten o'clock. Emily's daughter Anna starts school in September, and she "
    "is very excited. John's new colleague Maria moved here from Madrid last month. David bought a new bicycle, "
    "and he rides it to work every day. Emily's favorite food is Italian pasta with fresh tomatoes."
)


@dataclass
class Step:
    kind: str  # line | ask | interrupt | passage
    speaker: str = "Emily"
    text: str = ""
    gap_s: float = 1.0


def steps(questions: int, interruptions: int, passages: int) -> list[Step]:
    out = [Step("line", *GREETING_LINE, gap_s=10.0)]
    out += [Step("ask", text=q) for q in QUESTIONS[:questions]]
    out += [Step("passage", text=PASSAGE) for _ in range(passages)]  # alone: the echo measures
    out += [Step("barge", text=PASSAGE) for _ in range(interruptions)]  # talked over while it reads
    out += [Step("think", text=q) for q in INTERRUPTED[:interruptions]]  # talked over while it generates
    return out


def _onset(audio: np.ndarray) -> float:
    """Seconds into a clip where speech starts (flite pads the start with near-silence)."""
    loud = np.flatnonzero(np.abs(audio) > 0.02)
    return float(loud[0]) / SAMPLE_RATE_HZ if len(loud) else 0.0


class ScriptedScene:
    """A recorder source that speaks its steps into the microphone at real time and waits for the companion
    where a person would: until it has answered, or until it starts answering (then talks over it)."""

    name, has_video, realtime = "bench-companion", False, True
    # a person who waits for the companion where people would, and talks over it where the bench says

    def __init__(self, script: list[Step], origin_epoch_s: float) -> None:
        voices = {s.name: s.voice for s in SPEAKERS}
        self.script, self.origin_epoch_s = script, origin_epoch_s
        self.duration_s = 0.0  # a replay: the recorder finishes what it heard when the scene ends
        self.clips = {(s.speaker, s.text): speak(s.text, voices[s.speaker]) for s in script if s.kind != "passage"}
        self.interruption = speak(INTERRUPTION, voices["Emily"])
        self.runtime = None  # the runtime it is recorded by: its companion is there once started
        self.onsets: list[float] = []  # true speech onsets of the interruptions while it speaks (stream s)
        self.thinking_onsets: list[float] = []  # ... and while it generates
        self.passages: list[tuple[float, float]] = []  # (start, end) of each read passage
        self.t = 0.0
        self.settled_s = 0.0  # when the companion had evaluated the latest lines ahead and the scene began
        self.stopped = False

    def check(self) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True

    async def _emit(self, audio: np.ndarray, started: float):
        for i in range(0, len(audio), CHUNK):
            part = audio[i : i + CHUNK]
            delay = started + self.t - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            yield AudioChunk(part.astype(np.float32), self.t)
            self.t += len(part) / SAMPLE_RATE_HZ

    async def _silence_until(self, done, started: float, limit_s: float = 90.0):
        end = self.t + limit_s
        quiet = np.zeros(CHUNK, np.float32)
        while not done() and self.t < end and not self.stopped:
            async for chunk in self._emit(quiet, started):
                yield chunk

    async def stream(self):
        companion = self.runtime.companion if self.runtime is not None else None
        assert companion is not None
        started = time.monotonic()
        second = np.zeros(SAMPLE_RATE_HZ, np.float32)
        async for c in self._emit(second, started):
            yield c
        # a companion that has run a while: the latest lines' readings evaluated ahead (`companion.keep_lines`)
        async for c in self._silence_until(lambda: companion.lines_ahead.settled, started, 120.0):
            yield c
        self.settled_s = self.t
        for step in self.script:
            if self.stopped:
                break
            asked = len(companion.replies)
            if step.kind in ("passage", "barge"):
                async for c in self._silence_until(lambda text=step.text: companion.say(text), started):
                    yield c
                t0 = self.t
                if step.kind == "barge":  # talk over it once it has spoken a while
                    async for c in self._silence_until(lambda n=asked: _speaking(companion, n), started):
                        yield c
                    async for c in self._interrupt(BARGE_AFTER_S, started):
                        yield c
                async for c in self._silence_until(lambda: not companion.busy, started):
                    yield c
                if step.kind == "passage":
                    self.passages.append((t0, self.t))
            else:
                async for c in self._emit(self.clips[(step.speaker, step.text)], started):
                    yield c
                if step.kind == "line":
                    async for c in self._emit(np.zeros(int(step.gap_s * SAMPLE_RATE_HZ), np.float32), started):
                        yield c
                    continue
                if step.kind == "think":  # talk over it while the answer is being generated
                    async for c in self._interrupt(THINK_AFTER_S, started, thinking=True):
                        yield c
                async for c in self._silence_until(lambda n=asked: len(companion.replies) > n, started, 15.0):
                    yield c  # heard and taken up (a request the recognizer garbled is never answered)
                async for c in self._silence_until(lambda: not companion.busy, started):
                    yield c
            async for c in self._emit(second, started):
                yield c

    async def _interrupt(self, after_s: float, started: float, thinking: bool = False):
        async for c in self._emit(np.zeros(int(after_s * SAMPLE_RATE_HZ), np.float32), started):
            yield c
        (self.thinking_onsets if thinking else self.onsets).append(self.t + _onset(self.interruption))
        async for c in self._emit(self.interruption, started):
            yield c


def _speaking(companion, asked: int) -> bool:
    """The answer to the request after `asked` replies has started playing (or is over)."""
    if len(companion.replies) <= asked:
        return False
    reply = companion.replies[asked]
    return reply.first_audio_s is not None or (not reply.generating and not companion.busy)


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def bench_companion(cfg: Config, questions: int = 4, interruptions: int = 3, passages: int = 1) -> dict:
    """The scene with the model in its supervised child process (the default), then in process: same run."""
    runs = {}
    for process in ("child", "in-process"):
        run_cfg = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, process=process))
        runs[process] = _scene(run_cfg, questions, interruptions, passages)
    return {"llm_process": runs}


def _scene(cfg: Config, questions: int, interruptions: int, passages: int) -> dict:
    demo = open_source("demo", cfg)
    models = load_perception(cfg, with_faces=demo.has_video)  # the demo needs faces; the scene has no video
    secret = Secret(secrets.token_hex(16).encode(), "bench")
    events: list = []
    with tempfile.TemporaryDirectory() as tmp, Memory.open(Path(tmp) / "bench.db", secret, cfg.store, True) as mem:
        asyncio.run(Runtime(cfg, mem, models, demo).run())
        scene_cfg = dataclasses.replace(
            cfg,
            memory=dataclasses.replace(cfg.memory, background=False),  # memory writing has its own bench
            companion=dataclasses.replace(cfg.companion, wearer="Emily"),
        )
        scene = ScriptedScene(
            steps(questions, interruptions, passages), datetime.fromisoformat(COMPANION_TIME).timestamp()
        )
        echo = EchoPath(**ECHO_PATH)
        runtime = Runtime(
            scene_cfg, mem, models, scene, companion=True, simulate_echo=echo, keep_tracks=True, on_event=events.append
        )
        scene.runtime = runtime
        wall = time.monotonic()
        summary = asyncio.run(runtime.run())
        wall = time.monotonic() - wall
        companion, duplex = runtime.companion, runtime.duplex
    return _report(scene, companion, duplex, events, summary, wall, erle_db)


def _report(scene, companion, duplex, events, summary, wall, erle_db) -> dict:
    replies = [r for r in companion.replies if r.kind == "answer"]
    answered = [r for r in replies if r.first_audio_s is not None and r.first_audio_s > r.asked_s]
    first_audio = [(r.first_audio_s - r.asked_s) * 1e3 for r in answered]
    parts = {
        k: _pct([r.timings_ms[k] for r in answered if k in r.timings_ms], 50)
        for k in ("vad_ms", "asr_ms", "stored_ms", "llm_first_token_ms", "tts_first_ms", "ahead_ms")
    }
    stops = []
    for onset in scene.onsets:
        after = [b for b in companion.barge_ins if b["onset_s"] >= onset - 0.5]
        if after:
            stops.append((after[0]["stopped_s"] - onset) * 1e3)
    cancelled = []
    for onset in scene.thinking_onsets:
        hit = [r for r in companion.replies if r.kind == "answer" and r.asked_s <= onset and r.interrupted]
        after = [b for b in companion.barge_ins if b["onset_s"] >= onset - 0.5]
        if hit and after:
            played_after = any(p.start_s is not None and p.start_s > after[0]["stopped_s"] for p in hit[-1].items)
            cancelled.append(not played_after)
    in_passage = [b for b in companion.barge_ins if any(a <= b["onset_s"] <= z for a, z in scene.passages)]
    stored = [e for e in events if e.kind == "stored" and any(a <= e.t_s <= z for a, z in scene.passages)]
    echo_in, heard = duplex.track("echo"), duplex.track("heard")
    erle = []
    for a, z in scene.passages:
        i, j = int(a * SAMPLE_RATE_HZ), int(z * SAMPLE_RATE_HZ)
        erle.append(erle_db(echo_in[i:j], heard[i:j]))
    greetings = [r for r in companion.replies if r.kind == "greeting"]
    passage_s = sum(z - a for a, z in scene.passages)
    return {
        "scene_s": round(scene.t, 1),
        "wall_s": round(wall, 1),
        "voice": companion.voice.name,
        "echo_path": ECHO_PATH,
        "answers": {
            "asked": len(replies),
            "answered_aloud": len(answered),
            "speech_end_to_first_audio_ms": {"p50": _pct(first_audio, 50), "p95": _pct(first_audio, 95)},
            "breakdown_p50_ms": parts,
            # segments recognised while the VAD still waited for their end: used when the silence lasted
            "recognised_ahead": {"used": summary.eager_used, "wasted": summary.eager_wasted},
            # requests answered from those words before their utterance closed (companion.answer_ahead)
            "answered_ahead": sum("ahead_ms" in r.timings_ms for r in replies),
            # lines whose reading was evaluated ahead (companion.keep_lines); the scene began once the latest were
            "lines_kept_ahead": {"lines": companion.lines_ahead.kept, "scene_began_s": round(scene.settled_s, 1)},
            "replies": [r.as_dict() for r in replies],
        },
        "barge_in": {
            "interruptions": len(scene.onsets),
            "stopped": len(stops),
            "onset_to_stop_ms": {"p50": _pct(stops, 50), "p95": _pct(stops, 95)},
            "during_generation": len(scene.thinking_onsets),
            "generation_cancelled_silently": sum(cancelled),
        },
        "echo": {
            "companion_speech_s": round(passage_s, 1),
            "erle_db": round(float(np.mean(erle)), 1) if erle else None,
            "false_barge_ins": len(in_passage),
            "own_voice_stored": len(stored),
            "own_voice_refused": len(companion.refused),
        },
        "greeting": {
            "greetings": len(greetings),
            "confirmed_to_audio_ms": [
                round((g.first_audio_s - g.asked_s) * 1e3, 1) for g in greetings if g.first_audio_s is not None
            ],
            "text": [g.text for g in greetings],
        },
        "utterances_stored": summary.utterances,
        "errors": summary.errors,
    }


def render(result: dict) -> str:
    out = []
    for process, r in result["llm_process"].items():
        out.append(f"the model {'in a child process' if process == 'child' else 'in process'}:\n")
        out.append(_render_scene(r))
    return "".join(out)


def _render_scene(r: dict) -> str:
    a, b, e, g = r["answers"], r["barge_in"], r["echo"], r["greeting"]
    fa, bd, st = a["speech_end_to_first_audio_ms"], a["breakdown_p50_ms"], b["onset_to_stop_ms"]
    ra = a["recognised_ahead"]
    lines = [
        f"scene {r['scene_s']} s at real time (wall {r['wall_s']} s), voice {r['voice']}, echo path {r['echo_path']}",
        f"answers: {a['answered_aloud']} of {a['asked']} aloud; speech end -> first audio p50 {fa['p50']} ms, "
        f"p95 {fa['p95']} ms (p50 parts: VAD hangover {bd['vad_ms']}, ASR after it {bd['asr_ms']}, "
        f"words stored {bd['stored_ms']} after speech end, LLM first token {bd['llm_first_token_ms']}, "
        f"TTS first chunk {bd['tts_first_ms']} ms)",
        f"recognised ahead of the VAD's end: {ra['used']} used, {ra['wasted']} wasted (the speaker went on); "
        f"answered ahead: {a['answered_ahead']} of {a['asked']}, begun {bd['ahead_ms']} ms (p50) before the words "
        "were stored",
    ]
    for reply in a["replies"]:
        lines.append(f"  {reply['question']!r} -> {reply['text']!r} ({reply['first_audio_ms']} ms)")
    lines += [
        f"barge-in while speaking: {b['stopped']} of {b['interruptions']} stopped; "
        f"onset -> stop p50 {st['p50']} ms, p95 {st['p95']} ms; while generating: "
        f"{b['generation_cancelled_silently']} of {b['during_generation']} cancelled before any audio",
        f"echo: {e['companion_speech_s']} s of the companion alone: ERLE {e['erle_db']} dB, false barge-ins "
        f"{e['false_barge_ins']}, own voice stored {e['own_voice_stored']} (refused {e['own_voice_refused']})",
        f"greeting: {g['greetings']}, confirmed -> audio {g['confirmed_to_audio_ms']} ms: {g['text']}",
    ]
    return "\n".join(lines) + "\n"
