"""`bench pipeline`: per-stage latency on the demo recording and the end-to-end real-time factor.

Runs in a temporary encrypted database; the user's memory is not touched.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from app.ask.recall import search
from app.audio.media import read_audio
from app.config import Config
from app.demo import face_cards, group_photo
from app.errors import MediaError
from app.frames import SAMPLE_RATE_HZ
from app.llm import BACKGROUND, Request, load_llm
from app.recorder.perception import load_perception, load_text_embedder
from app.recorder.pipeline import Recorder
from app.recorder.sources import DEMO_FILE, open_source
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

QUERIES = (
    "who is allergic to peanuts",
    "does anyone love tennis",
    "where did David grow up",
    "when is the meeting with the bank",
    "what does Emily do for work",
    "trip to Paris",
    "new colleague from Madrid",
    "favorite food",
)


def _ms(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def _demo(cfg: Config) -> tuple[np.ndarray, dict, Path]:
    path = cfg.models_dir / DEMO_FILE
    if not path.is_file():
        raise MediaError(f"{path} is missing: run `python build.py` to generate the demo")
    script = json.loads(path.with_suffix(".json").read_text())
    return read_audio(path), script, path


def _stage_latencies(cfg: Config, audio: np.ndarray, script: dict) -> dict:
    models = load_perception(cfg)
    turns = [audio[int(t["t_start_s"] * SAMPLE_RATE_HZ) : int(t["t_end_s"] * SAMPLE_RATE_HZ)] for t in script["turns"]]
    window = models.vad.window_samples
    windows = [audio[i : i + window] for i in range(0, len(audio) - window, window)]
    models.vad.reset()
    t = time.perf_counter()
    for w in windows:
        models.vad(w)
    vad_ms = (time.perf_counter() - t) * 1000 / len(windows)
    t = time.perf_counter()
    for seg in turns:
        models.asr(seg)
    asr_rtf = (time.perf_counter() - t) / (sum(len(s) for s in turns) / SAMPLE_RATE_HZ)
    voice = [ms for seg in turns for ms in _ms(lambda s=seg: models.voice(s), 1)]
    card = face_cards(group_photo())[0]
    assert models.faces is not None
    face = _ms(lambda: models.faces(card), 10)
    texts = [t["text"] for t in script["turns"]]
    text = [ms for s in texts for ms in _ms(lambda s=s: models.text([s]), 3)]
    return {
        "vad_ms_per_chunk": round(vad_ms, 3),
        "vad_chunk_ms": round(1000 * window / SAMPLE_RATE_HZ, 1),
        "asr": models.asr.name,
        "asr_rtf": round(asr_rtf, 3),
        "voice_embed_ms": round(statistics.mean(voice), 1),
        "voice_utterance_s": round(statistics.mean(len(s) for s in turns) / SAMPLE_RATE_HZ, 2),
        "face_ms_per_frame": round(statistics.median(face), 1),
        "text_embed_ms": round(statistics.median(text), 2),
    }


def _store_and_ask(cfg: Config, data: Path, n_insert: int = 300) -> dict:
    embedder = load_text_embedder(cfg)
    rng = np.random.default_rng(0)
    words = "tennis paris doctor meeting school birthday bicycle peanuts pasta colleague brother park".split()
    texts = [" ".join(rng.choice(words, 12)) for _ in range(n_insert)]
    vectors = embedder(texts)
    secret = Secret(secrets.token_hex(16).encode(), "bench")
    with Memory.open(data / "memory.db", secret, cfg.store, create=True) as memory:
        session = memory.turns.start_session("bench", time.time())
        person = memory.people.add_person().id

        def insert(i: int) -> None:
            memory.turns.add_utterance(
                NewUtterance(session, person, texts[i], 1e9 + i, 1e9 + i + 2, 0.9, "bench", False, vectors[i])
            )

        insert_ms = [ms for i in range(n_insert) for ms in _ms(lambda i=i: insert(i), 1)]
        ask = [ms for q in QUERIES for ms in _ms(lambda q=q: search(memory, embedder, q, cfg.recall), 5)]
    return {
        "store_insert_ms": round(statistics.median(insert_ms), 2),
        "store_insert_p95_ms": round(_pct(insert_ms, 95), 2),
        "ask_p50_ms": round(_pct(ask, 50), 2),
        "ask_p95_ms": round(_pct(ask, 95), 2),
        "ask_corpus": n_insert,
    }


def _end_to_end(cfg: Config, data: Path) -> dict:
    source = open_source("demo", cfg)
    models = load_perception(cfg)
    secret = Secret(secrets.token_hex(16).encode(), "bench")
    cfg = dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, background=False))  # perception alone
    with Memory.open(data / "e2e.db", secret, cfg.store, create=True) as memory:
        summary = asyncio.run(Recorder(cfg, memory, models, source).run())
    return {
        "duration_s": round(summary.duration_s, 2),
        "wall_s": round(summary.wall_s, 2),
        "real_time_factor": round(summary.rtf, 3),
        "utterances": summary.utterances,
    }


def _end_to_end_beside_llm(cfg: Config, data: Path) -> dict:
    """The demo again while the language model generates without pause, as background memory work would
    (one thread, lower priority: what `load_llm(beside_capture=True)` gives the recorder)."""
    llm = load_llm(cfg, beside_capture=True)
    stop, generated = threading.Event(), []
    request = Request(
        ({"role": "user", "content": "Write a long story about a lighthouse keeper and the sea."},), max_tokens=256
    )

    def churn() -> None:
        while not stop.is_set():
            job = llm.submit(request, BACKGROUND)
            while not job.future.done():
                if stop.wait(0.05):
                    job.cancel()
            generated.append(job.result().usage.completion_tokens)

    worker = threading.Thread(target=churn, name="bench-llm-load", daemon=True)
    started = time.perf_counter()
    worker.start()
    try:
        result = _end_to_end(cfg, data)
    finally:
        stop.set()
        worker.join(timeout=60)
        llm.close()
    wall = time.perf_counter() - started
    return {**result, "llm_tokens": sum(generated), "llm_tps": round(sum(generated) / wall, 1)}


def bench_pipeline(cfg: Config, beside_llm: bool = False) -> dict:
    audio, script, _ = _demo(cfg)
    result: dict = {"device": cfg.device.kind, "threads": cfg.device.threads}
    result.update(_stage_latencies(cfg, audio, script))
    with tempfile.TemporaryDirectory() as tmp:
        result.update(_store_and_ask(cfg, Path(tmp)))
        result["demo"] = _end_to_end(cfg, Path(tmp))
        if beside_llm:
            result["demo_beside_llm"] = _end_to_end_beside_llm(cfg, Path(tmp) / "beside")
    return result


def render(r: dict) -> str:
    d = r["demo"]
    rows = [
        (
            "VAD per chunk",
            f"{r['vad_ms_per_chunk']:.3f} ms per {r['vad_chunk_ms']} ms chunk "
            f"({r['vad_chunk_ms'] / max(r['vad_ms_per_chunk'], 1e-9):.0f}x real time)",
        ),
        (f"ASR ({r['asr']})", f"real-time factor {r['asr_rtf']:.3f}"),
        ("voice embedding", f"{r['voice_embed_ms']:.1f} ms per {r['voice_utterance_s']:.1f} s utterance"),
        ("face detect+embed", f"{r['face_ms_per_frame']:.1f} ms per 640x480 frame"),
        ("text embedding", f"{r['text_embed_ms']:.2f} ms per utterance"),
        ("store insert", f"{r['store_insert_ms']:.2f} ms (p95 {r['store_insert_p95_ms']:.2f} ms), encrypted, fsync"),
        ("ask", f"p50 {r['ask_p50_ms']:.2f} ms, p95 {r['ask_p95_ms']:.2f} ms over {r['ask_corpus']} utterances"),
        (
            "demo end to end",
            f"{d['duration_s']:.1f} s in {d['wall_s']:.1f} s: real-time factor {d['real_time_factor']:.3f}",
        ),
    ]
    if "demo_beside_llm" in r:
        b = r["demo_beside_llm"]
        rows.append(
            (
                "demo beside the LLM",
                f"{b['duration_s']:.1f} s in {b['wall_s']:.1f} s: real-time factor {b['real_time_factor']:.3f} "
                f"(x{b['real_time_factor'] / max(d['real_time_factor'], 1e-9):.2f}) while the LLM generated "
                f"{b['llm_tokens']} tokens ({b['llm_tps']} tok/s)",
            )
        )
    return "\n".join(f"{k:26s} {v}" for k, v in rows) + "\n"
