"""`bench fuzz`: the ingest protocol (`/v1/ingest`) against random and mutated messages, on 127.0.0.1 only.

A `serve` of its own (a temporary memory, a random token) is started; one connection after another opens with
a hello (mostly valid, sometimes mutated), then sends a mix of valid audio and frames, the same mutated (bits
flipped, cut short, offsets and times replaced by extreme values), random bytes and random text. It stops by
itself after `seconds` or `messages`. What counts as a crash: the server process exits, `/health` stops
answering 200, or a connection is dropped other than by the protocol's own closes (1000, 1003 for a bad hello,
1009 for a message over the limit). Reported: messages tried, errors returned, acks, closes by code, crashes
(the goal is 0) and the server's RSS before and after.
"""

from __future__ import annotations

import json
import random
import secrets
import struct
import tempfile
import time
from pathlib import Path

import numpy as np

from app.bench.api import rss_mb, serving
from app.config import Config

EXPECTED_CLOSES = {1000, 1003, 1009}
EXTREME_NUMBERS = (0, 1, 2**31, 2**32, 2**62, 2**63, 2**64 - 1)
EXTREME_TIMES = (float("nan"), float("inf"), -float("inf"), -1.0, 0.0, 1e12, 1e308, 1.7e9)


def _jpeg() -> bytes:
    # lazy: OpenCV is heavy (~0.1 s); one JPEG is all this needs
    import cv2

    ok, buf = cv2.imencode(".jpg", np.full((48, 64, 3), 128, np.uint8))
    assert ok
    return buf.tobytes()


class _Messages:
    """Random and mutated ingest messages from one seeded generator."""

    def __init__(self, seed: int, t0: float) -> None:
        self.rng, self.t0, self.jpeg = random.Random(seed), t0, _jpeg()
        self.offset = 0

    def hello(self) -> str:
        r = self.rng
        hello: dict = {"type": "hello", "stream": f"fuzz-{r.randrange(24)}", "rate": 16000, "t0": self.t0}
        if r.random() < 0.3:
            key = r.choice(["stream", "rate", "t0", "type"])
            hello[key] = r.choice([None, "", "x" * 300, -1, 2**64, 1e400, float("nan"), [], {}, 44100, 8000])
        if r.random() < 0.05:
            return r.choice(["", "{", "[]", "null", "\x00" * 10, json.dumps([hello])])
        return json.dumps(hello)

    def _mutate(self, message: bytes) -> bytes:
        r, data = self.rng, bytearray(message)
        for _ in range(r.randrange(1, 6)):
            choice = r.random()
            if choice < 0.4 and data:
                i = r.randrange(len(data))
                data[i] ^= 1 << r.randrange(8)
            elif choice < 0.7:
                data = data[: r.randrange(len(data) + 1)]
            else:
                data += r.randbytes(r.randrange(1, 64))
        return bytes(data)

    def next(self) -> bytes | str:
        r = self.rng
        kind = r.random()
        if kind < 0.35:  # valid audio, then maybe mutated or with an extreme offset
            samples = r.randrange(0, 4000)
            pcm = (np.sin(np.arange(samples) / 7.0) * 3000).astype("<i2").tobytes()
            offset = self.offset
            if r.random() < 0.3:
                offset = r.choice(EXTREME_NUMBERS)
            else:
                self.offset += samples
            message = b"A" + struct.pack("<Q", offset) + pcm
            return self._mutate(message) if r.random() < 0.3 else message
        if kind < 0.55:  # a frame: real, mutated, or with an extreme time
            t = r.choice(EXTREME_TIMES) if r.random() < 0.4 else self.t0 + r.random() * 60
            message = b"V" + struct.pack("<d", t) + self.jpeg
            return self._mutate(message) if r.random() < 0.5 else message
        if kind < 0.8:
            return r.randbytes(r.randrange(0, 2048))
        if kind < 0.95:
            return r.choice([self.hello(), "", "text", json.dumps({"type": "ack"}), "é" * r.randrange(100)])
        return b"V" + b"\0" * r.choice([9, 1 << 20, (4 << 20) + 16])  # around the frame limit


def bench_fuzz(cfg: Config, seconds: float = 60.0, messages: int = 20000, seed: int = 1) -> dict:
    # lazy: httpx and websockets are heavy (~0.1 s each)
    import httpx
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    token, key = secrets.token_urlsafe(32), secrets.token_hex(16)
    counts = {"tried": 0, "errors": 0, "acks": 0, "connections": 0, "crashes": 0}
    closes: dict[str, int] = {}
    crashes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as tmp, serving(Path(tmp), key, token) as (proc, url):
        auth = {"Authorization": f"Bearer {token}"}
        rss_before = rss_mb(proc.pid)
        gen = _Messages(seed, time.time() - 3600)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and counts["tried"] < messages:
            counts["connections"] += 1
            try:
                with connect(url.replace("http", "ws") + "/v1/ingest", additional_headers=auth) as ws:
                    ws.send(gen.hello())
                    counts["tried"] += 1
                    reply = json.loads(ws.recv(timeout=30))
                    if reply.get("type") == "error":
                        counts["errors"] += 1
                        continue
                    gen.offset = reply.get("acked", 0)
                    for _ in range(gen.rng.randrange(5, 200)):
                        if time.monotonic() >= deadline or counts["tried"] >= messages:
                            break
                        ws.send(gen.next())
                        counts["tried"] += 1
                        try:
                            answer = ws.recv(timeout=0.2 if gen.rng.random() < 0.5 else 0.02)
                        except TimeoutError:
                            continue
                        kind = json.loads(answer).get("type") if isinstance(answer, str) else "speech"
                        counts["errors" if kind == "error" else "acks"] += kind in ("error", "ack")
            except ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd is not None else None
                closes[str(code)] = closes.get(str(code), 0) + 1
                if code not in EXPECTED_CLOSES:
                    crashes.append(f"connection dropped (close code {code})")
            except (OSError, TimeoutError) as e:
                crashes.append(f"{type(e).__name__}: {e}")
            if proc.poll() is not None:
                crashes.append(f"the server exited ({proc.returncode})")
                break
        try:
            healthy = httpx.get(url + "/health", timeout=10).status_code == 200
        except httpx.HTTPError:
            healthy = False
        if not healthy:
            crashes.append("/health does not answer 200")
        rss_after = rss_mb(proc.pid) if proc.poll() is None else 0.0
    counts["crashes"] = len(crashes)
    return {
        "seconds": seconds,
        "seed": seed,
        **counts,
        "closes": closes,
        "crash_reasons": crashes[:10],
        "rss_mb": {"before": round(rss_before), "after": round(rss_after)},
    }


def render(r: dict) -> str:
    return (
        f"ingest fuzz on 127.0.0.1 for up to {r['seconds']:.0f} s (seed {r['seed']}): {r['tried']} messages over "
        f"{r['connections']} connections; {r['errors']} errors returned, {r['acks']} acks; closes {r['closes']}; "
        f"crashes {r['crashes']}{' ' + str(r['crash_reasons']) if r['crashes'] else ''}; server RSS "
        f"{r['rss_mb']['before']} -> {r['rss_mb']['after']} MB\n"
    )
