"""`bench api`: the service under load on loopback, as a companion and a web page would load it.

`python -m app serve` is started on 127.0.0.1 (any free port, with ingest: perception loaded) over a memory
holding the demo's conversation eight times. For `--seconds` (60), `--clients` (20) run at once: one streams
the demo's audio over the ingest WebSocket at real time, one follows the events stream, the others alternate
`ask` and `context` with questions about the demo, as fast as they can or
(`--rate`) at most that many a second. Reported: p50/p95 per route, errors, how far the ingest
stream fell behind real time, event delivery (publication → received), and the server's RSS before and after.
Everything stops by itself; no traffic leaves 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import numpy as np

from app.audio.media import iter_media
from app.config import Config
from app.demo import CREATION_TIME, SCRIPT
from app.frames import AudioChunk
from app.recorder.perception import load_text_embedder
from app.recorder.sources import DEMO_FILE
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

QUESTIONS = (
    "who is allergic to peanuts",
    "when is the meeting with the bank",
    "who plays tennis on Saturday",
    "where did David and John grow up",
    "what food does Emily like",
    "who moved here from Madrid",
)
ROOT = Path(__file__).resolve().parents[2]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 1) if values else 0.0


def _memory(cfg: Config, data: Path, key: str) -> None:
    t0 = datetime.fromisoformat(CREATION_TIME).timestamp()
    embedder = load_text_embedder(cfg)
    vectors = embedder([t for _, t in SCRIPT])
    with Memory.open(data / "memory.db", Secret(key.encode(), "APP_KEY"), cfg.store, create=True) as m:
        ids = {n: m.people.add_person(n).id for n in dict.fromkeys(n for n, _ in SCRIPT)}
        for day in range(8):
            with m.batch():
                session = m.turns.start_session("bench", t0 + day * 86400)
                for i, ((n, t), v) in enumerate(zip(SCRIPT, vectors, strict=True)):
                    at = t0 + day * 86400 + 6 * i
                    m.turns.add_utterance(NewUtterance(session, ids[n], t, at, at + 5, 1.0, "t", False, v))


async def _load(url: str, token: str, seconds: float, clients: int, pcm: np.ndarray, rate: float) -> dict:
    # lazy: httpx and websockets are heavy (~0.1 s each); only the load phase is a client
    import httpx
    from websockets.asyncio.client import connect

    headers = {"Authorization": f"Bearer {token}"}
    latencies: dict[str, list[float]] = {"ask": [], "context": []}
    errors: list[str] = []
    delivery: list[float] = []
    ingest = {"sent_s": 0.0, "lag_ms": []}
    deadline = time.monotonic() + seconds

    async def asker(n: int) -> None:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
            i = n
            while i == n or time.monotonic() < deadline:  # one request at least, however late it got going
                route = "ask" if i % 2 else "context"
                started = time.perf_counter()
                r = await http.post(f"/v1/{route}", json={"question": QUESTIONS[i % len(QUESTIONS)]})
                if r.status_code != 200:
                    errors.append(f"{route}: {r.status_code}")
                spent = time.perf_counter() - started
                latencies[route].append(spent * 1e3)
                i += 1
                if rate > 0:  # a client with something else to do: `rate` requests a second at most
                    await asyncio.sleep(max(0.0, 1.0 / rate - spent))

    async def follower() -> None:
        async with (
            httpx.AsyncClient(base_url=url, headers=headers, timeout=None) as http,
            http.stream("GET", "/v1/events") as r,
        ):
            async for line in r.aiter_lines():
                if line.startswith("data: "):
                    data = json.loads(line[6:])
                    if data["kind"] == "stored":
                        sent = datetime.fromisoformat(data["at"]).timestamp()
                        delivery.append((time.time() - sent) * 1e3)
                if time.monotonic() > deadline:
                    return

    async def glasses() -> None:
        step = 8000  # 0.5 s messages, paced at real time
        async with connect(url.replace("http", "ws") + "/v1/ingest", additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "hello", "stream": "bench", "rate": 16000, "t0": time.time()}))
            json.loads(await ws.recv())
            started, offset = time.monotonic(), 0
            while offset == 0 or time.monotonic() < deadline:  # one message at least, however late it connected
                chunk = pcm[(offset % len(pcm)) : (offset % len(pcm)) + step]
                sent = time.perf_counter()
                await ws.send(b"A" + struct.pack("<Q", offset) + chunk.tobytes())
                reply = json.loads(await ws.recv())
                if reply.get("type") != "ack":
                    errors.append(f"ingest: {reply}")
                ingest["lag_ms"].append((time.perf_counter() - sent) * 1e3)
                offset += len(chunk)
                ingest["sent_s"] = offset / 16000
                ahead = started + offset / 16000 - time.monotonic()
                if ahead > 0:
                    await asyncio.sleep(ahead)
            ingest["wall_s"] = time.monotonic() - started

    alone: dict[str, list[float]] = {"ask": [], "context": []}  # one client, nothing else: the floor
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
        for i in range(60):
            route = "ask" if i % 2 else "context"
            started = time.perf_counter()
            await http.post(f"/v1/{route}", json={"question": QUESTIONS[i % len(QUESTIONS)]})
            alone[route].append((time.perf_counter() - started) * 1e3)
    deadline = time.monotonic() + seconds
    tasks = [glasses(), follower(), *(asker(n) for n in range(max(1, clients - 2)))]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    errors += [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]
    return {
        "routes": {
            route: {
                "requests": len(v),
                "per_s": round(len(v) / seconds, 1),
                "p50_ms": _pct(v, 50),
                "p95_ms": _pct(v, 95),
                "alone_p50_ms": _pct(alone[route], 50),
                "alone_p95_ms": _pct(alone[route], 95),
            }
            for route, v in latencies.items()
        },
        "errors": len(errors),
        "error_examples": errors[:3],
        "ingest": {
            "audio_s": round(ingest["sent_s"], 1),
            "wall_s": round(ingest.get("wall_s", seconds), 1),
            "real_time_kept": round(ingest["sent_s"] / max(ingest.get("wall_s", seconds), 1e-9), 3),
            "ack_p95_ms": _pct(ingest["lag_ms"], 95),
        },
        "events": {"delivered": len(delivery), "p50_ms": _pct(delivery, 50), "p95_ms": _pct(delivery, 95)},
    }


@contextlib.contextmanager
def serving(data: Path, key: str, token: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """`python -m app serve` on 127.0.0.1 over the memory in `data` (memory writing off: the load is the
    API's), listening until the block ends: (its process, its URL)."""
    env = {**os.environ, "APP_DATA_DIR": str(data), "APP_KEY": key, "APP_API_TOKEN": token}
    env["APP_MEMORY_BACKGROUND"] = "false"
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.startswith("serving on "):
            raise RuntimeError(f"serve did not start: {line.strip()}")
        yield proc, line.split()[2]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()


def bench_api(cfg: Config, seconds: float = 60.0, clients: int = 20, rate: float = 0.0) -> dict:
    demo = cfg.models_dir / DEMO_FILE
    pcm = np.concatenate([c.samples for c in iter_media(demo, with_video=False) if isinstance(c, AudioChunk)])
    pcm = (pcm * 32767).astype("<i2")
    token, key = secrets.token_urlsafe(32), secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        data = Path(tmp)
        _memory(cfg, data, key)
        with serving(data, key, token) as (proc, url):
            rss_before = rss_mb(proc.pid)
            result = asyncio.run(_load(url, token, seconds, clients, pcm, rate))
            rss_after = rss_mb(proc.pid)
    return {
        "seconds": seconds,
        "clients": clients,
        "rate_per_client": rate or None,
        **result,
        "rss_mb": {"before": round(rss_before), "after": round(rss_after)},
    }


def render(r: dict) -> str:
    pace = f", each at most {r['rate_per_client']:g}/s" if r.get("rate_per_client") else ", each as fast as it can"
    lines = [f"{r['clients']} clients for {r['seconds']:.0f} s on 127.0.0.1{pace}; errors {r['errors']}"]
    for route, v in r["routes"].items():
        lines.append(
            f"  {route:8s} {v['requests']:5d} requests ({v['per_s']:.0f}/s)  p50 {v['p50_ms']:7.1f} ms  "
            f"p95 {v['p95_ms']:7.1f} ms; alone: p50 {v['alone_p50_ms']:.1f} ms, p95 {v['alone_p95_ms']:.1f} ms"
        )
    i, e = r["ingest"], r["events"]
    lines.append(
        f"  ingest   {i['audio_s']:.1f} s of audio in {i['wall_s']:.1f} s (real time kept: {i['real_time_kept']:.2f}), "
        f"ack p95 {i['ack_p95_ms']:.1f} ms"
    )
    lines.append(f"  events   {e['delivered']} delivered, p50 {e['p50_ms']:.1f} ms, p95 {e['p95_ms']:.1f} ms")
    lines.append(f"  server RSS {r['rss_mb']['before']} MB before, {r['rss_mb']['after']} MB after")
    return "\n".join(lines) + "\n"
