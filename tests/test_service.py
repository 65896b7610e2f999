"""The local service over real HTTP and WebSocket on 127.0.0.1: `python -m app serve` started as a user starts
it, every route behind the token, the CLI's JSON shapes, events resumable by id, the glasses' ingest stream
(reconnects included) giving what `run --source demo` gives, and the OpenAI-compatible endpoint driven by the
official `openai` client."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import struct
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed

from app.cli import main
from app.demo import CREATION_TIME, SCRIPT
from app.errors import ConfigError
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from tests.conftest import MODELS, ROOT, need_default_llm, need_models, words

TOKEN = "test token for the service, long enough to keep"
T0 = datetime.fromisoformat(CREATION_TIME).timestamp()
CATCH_UP_S = 600.0  # longest wait for what the pipeline was sent to be stored: bounds a hang, never paces


class Served:
    def __init__(self, data: Path, *args: str) -> None:
        env = {**os.environ, "APP_DATA_DIR": str(data), "APP_API_TOKEN": TOKEN, "APP_STORE_KDF_LOG2_N": "10"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--port", "0", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()  # "serving on http://127.0.0.1:PORT (token: ...)"
        if not line.startswith("serving on "):
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line}{self.proc.stderr.read()}")
        self.url = line.split()[2]
        self.auth = {"Authorization": f"Bearer {TOKEN}"}
        self.http = httpx.Client(base_url=self.url, headers=self.auth, timeout=120)

    def stop(self) -> int:
        self.http.close()
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=120)


def _cli(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def served(tmp_path_factory, perception, cfg):
    """`serve --no-ingest` over a memory holding the demo's conversation as text."""
    data = tmp_path_factory.mktemp("served")
    mp = pytest.MonkeyPatch()
    mp.setenv("APP_KEY", "service test key")
    with Memory.open(data / "memory.db", Secret(b"service test key", "APP_KEY"), cfg.store, create=True) as m:
        ids = {n: m.people.add_person(n).id for n in dict.fromkeys(n for n, _ in SCRIPT)}
        session = m.turns.start_session("demo", T0)
        vectors = perception.text([t for _, t in SCRIPT])
        for i, ((n, t), v) in enumerate(zip(SCRIPT, vectors, strict=True)):
            t0 = T0 + 6 * i
            m.turns.add_utterance(NewUtterance(session, ids[n], t, t0, t0 + 5, 1.0, "t", False, v))
    server = Served(data, "--no-ingest")
    yield server, data
    assert server.stop() == 0
    mp.undo()


def _routes(server: Served) -> list[tuple[str, str]]:
    spec = server.http.get("/openapi.json").json()
    return [(m.upper(), path) for path, ops in spec["paths"].items() for m in ops] + [
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
    ]


def test_every_route_but_health_needs_the_token(served):
    server, _ = served
    routes = _routes(server)
    assert ("POST", "/v1/chat/completions") in routes and ("GET", "/v1/events") in routes
    for method, route in routes:
        path = route.replace("{name}", "Emily").replace("{session}", "1")
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            r = httpx.request(method, server.url + path, headers=headers, json={}, timeout=30)
            if path == "/health":
                assert r.status_code == 200 and r.json() == {"ok": True}
            else:
                assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", (method, path)
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with pytest.raises(InvalidStatus):
        connect(server.url.replace("http", "ws") + "/v1/ingest", additional_headers={"Authorization": "Bearer x"})


def test_memory_routes_share_the_cli_json(served, monkeypatch):
    server, data = served
    monkeypatch.setenv("APP_KEY", "service test key")
    monkeypatch.setenv("APP_DATA_DIR", str(data))
    assert server.http.get("/v1/people").json() == _cli("people", "--json")
    assert server.http.get("/v1/sessions").json() == _cli("sessions", "--json")
    assert server.http.get("/v1/facts").json() == _cli("facts", "--json")
    assert server.http.get("/v1/people/Emily").json() == _cli("people", "show", "Emily", "--json")
    at = "2026-05-14T12:00:00+00:00"
    api = server.http.post("/v1/ask", json={"question": "who is allergic to peanuts", "at": at}).json()
    cli = _cli("ask", "who is allergic to peanuts", "--at", at, "--json")
    assert api == cli and "peanuts" in api["results"][0]["text"]
    ctx = server.http.post("/v1/context", json={"question": "who teaches history", "person": "John"}).json()
    assert ctx["person"] == "John" and "history" in ctx["retrieved"] and ctx["citations"]
    transcript = server.http.get("/v1/sessions/1").json()["utterances"]
    assert [u["text"] for u in transcript] == [t for _, t in SCRIPT]


def test_bad_requests_get_a_4xx_with_one_line(served):
    server, _ = served
    r = server.http.post("/v1/ask", content=b'{"question":', headers={"content-type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]
    assert server.http.post("/v1/ask", json={"question": ""}).status_code == 400
    r = server.http.get("/v1/people/Nobody")
    assert r.status_code == 404 and r.json()["error"].startswith("nobody called")
    r = server.http.post("/v1/ask", content=b"x" * (5 * 1024 * 1024), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert server.http.post("/v1/forget", json={}).status_code == 400
    for missing in ({"person": ""}, {"person": "Nobody"}, {"session": 999}):  # 404, and no command line in it
        r = server.http.post("/v1/forget", json=missing)
        assert r.status_code == 404 and r.json()["error"].startswith("no ") and "python -m" not in r.json()["error"]
    assert server.http.get("/health").status_code == 200  # still serving


def test_openai_client_gets_answers_with_memory(served):
    need_default_llm()
    import openai

    server, _ = served
    client = openai.OpenAI(base_url=server.url + "/v1", api_key=TOKEN)
    reply = client.chat.completions.create(
        model="lifemem",
        messages=[{"role": "user", "content": "Who is allergic to peanuts?"}],
        max_tokens=40,
        extra_body={"person": "Emily"},
    )
    assert "David" in reply.choices[0].message.content and reply.usage.completion_tokens > 0
    citations = reply.model_extra["citations"]  # the line the answer was read from, checked as ask --answer's
    assert [c["person"] for c in citations] == ["David"] and "peanuts" in citations[0]["text"]
    assert reply.model_extra["known"] and reply.model_extra["memory_person"] == "Emily"
    pieces = [
        chunk.choices[0].delta.content or ""
        for chunk in client.chat.completions.create(
            model="lifemem",
            messages=[{"role": "user", "content": "What does John teach?"}],
            max_tokens=30,
            stream=True,
        )
    ]
    assert len(pieces) > 2 and "history" in "".join(pieces).lower()
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=server.url + "/v1", api_key="wrong").models.list()


def test_ask_streams_the_answer_then_the_result(served):
    need_default_llm()
    server, _ = served
    events = []
    body = {"question": "when is the meeting with the bank", "answer": True, "stream": True}
    with server.http.stream("POST", "/v1/ask", json=body) as r:
        kind = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
    assert events[0][0] == "token" and events[-1][0] == "result"
    result = events[-1][1]
    assert "".join(d["text"] for k, d in events if k == "token") == result["answer"] or not result["known"]
    assert set(result) >= {"answer", "known", "citations", "evidence"}


def test_non_loopback_needs_public(cfg):
    assert main(["serve", "--host", "0.0.0.0", "--no-ingest"]) == 2


# the glasses: the demo's audio and frames over the ingest WebSocket
def _demo_media():
    from app.audio.media import iter_media
    from app.frames import AudioChunk

    path = MODELS / "demo" / "demo.mkv"
    if not path.is_file():
        pytest.skip("the demo recording is missing (run `python3 build.py`)")
    audio, frames = [], []
    for item in iter_media(path):
        if isinstance(item, AudioChunk):
            audio.append(item.samples)
        else:
            frames.append(item)
    # the demo's samples are 16-bit (k / 32768 after decoding): sent as they are, the recognizer reads the very
    # samples the file gives. Scaled by 32767 they differ by a least significant bit, and whisper-base's 15-s
    # window hears "I am a large ectopene" for "I am allergic to peanuts" from that alone on some CPUs
    return np.clip(np.round(np.concatenate(audio) * 32768), -32768, 32767).astype("<i2"), frames


def _send(ws, pcm: np.ndarray, start: int, stop: int, frames, sent_frames: set, step: int = 8000) -> int:
    """Audio from sample `start` to `stop` in 0.5 s messages, each frame once when its time comes; the last ack."""
    import cv2

    acked = start
    for at in range(start, stop, step):
        end = min(stop, at + step)
        for i, f in enumerate(frames):
            if i not in sent_frames and f.t_s * 16000 <= end:
                jpeg = cv2.imencode(".jpg", f.image)[1].tobytes()
                ws.send(b"V" + struct.pack("<d", T0 + f.t_s) + jpeg)
                sent_frames.add(i)
        ws.send(b"A" + struct.pack("<Q", at) + pcm[at:end].tobytes())
        reply = json.loads(ws.recv())
        assert reply["type"] == "ack", reply
        acked = reply["acked"]
    return acked


def test_demo_over_the_ingest_stream_with_reconnects(tmp_path, monkeypatch):
    """Three abrupt disconnects mid-stream; each reconnect resumes from the acknowledged sample. The memory
    ends with the utterances and people `run --source demo` gives, and an events subscriber that dropped
    its connection and came back with Last-Event-ID saw every stored utterance exactly once."""
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    from websockets.sync.client import connect

    pcm, frames = _demo_media()
    monkeypatch.setenv("APP_KEY", "service test key")
    reference = _cli("--data-dir", str(tmp_path / "file"), "run", "--source", "demo", "--json")

    server = Served(tmp_path / "ingest")
    stored: list[dict] = []
    last = None

    def read_events(limit_s: float, want: int) -> None:
        nonlocal last
        headers = {"Last-Event-ID": str(last)} if last is not None else {}
        deadline = time.monotonic() + limit_s
        with (
            contextlib.suppress(httpx.ReadTimeout),
            server.http.stream("GET", "/v1/events", headers=headers, timeout=limit_s) as r,
        ):
            event_id = None
            for line in r.iter_lines():
                if line.startswith("id: "):
                    event_id = int(line[4:])
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                    last = event_id
                    if data["kind"] == "stored":
                        stored.append(data)
                if len(stored) >= want or time.monotonic() > deadline:
                    return

    try:
        ws_url = server.url.replace("http", "ws") + "/v1/ingest"
        sent_frames: set = set()
        cuts = [len(pcm) * k // 4 for k in (1, 2, 3)] + [len(pcm)]
        acked = 0
        read_events(1.0, 0)  # subscribe from the start: remember the id to resume from
        last = last or 0
        for cut in cuts:
            ws = connect(ws_url, additional_headers=server.auth)
            ws.send(json.dumps({"type": "hello", "stream": "glasses-1", "rate": 16000, "t0": T0}))
            ready = json.loads(ws.recv())
            assert ready["type"] == "ready" and ready["acked"] == acked
            acked = _send(ws, pcm, acked, cut, frames, sent_frames)
            ws.close()  # abrupt for the stream: the next hello resumes from `acked`
            read_events(5.0, 99)  # drop the subscription, come back with Last-Event-ID next time
        assert acked == len(pcm)
        read_events(CATCH_UP_S, reference["utterances"])  # the pipeline catches up
    finally:
        assert server.stop() == 0
    ids = [e["utterance"] for e in stored]
    assert len(ids) == len(set(ids)) == reference["utterances"]  # each once: nothing missed, nothing doubled
    assert _said(tmp_path / "ingest") == _said(tmp_path / "file")  # the same people, words and capture times


def _said(data: Path) -> list[tuple[int, list[str], int]]:
    """(how many utterances their speaker has, words, start to the second) of every utterance, in order."""
    from app.config import load_config

    with Memory.open(data / "memory.db", Secret(b"service test key", "APP_KEY"), load_config().store) as m:
        rows = m.turns.all_utterances()
    counts = {p: sum(r.person == p for r in rows) for p in {r.person for r in rows}}
    return [(counts[r.person], words(r.text), round(r.t_start)) for r in rows]


def test_bench_api_runs_a_bounded_load_on_loopback(capsys):
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    assert main(["bench", "api", "--seconds", "3", "--clients", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 0 and report["routes"]["ask"]["requests"] > 0
    assert report["ingest"]["audio_s"] > 0 and report["rss_mb"]["after"] > 0


def test_the_generated_token_is_private_and_kept(tmp_path, monkeypatch):
    from app.service.auth import api_token

    monkeypatch.delenv("APP_API_TOKEN", raising=False)
    token, where = api_token(tmp_path)
    assert len(token) >= 32 and where == str(tmp_path / "api_token")
    assert (tmp_path / "api_token").stat().st_mode & 0o777 == 0o600
    assert api_token(tmp_path)[0] == token  # generated once
    monkeypatch.setenv("APP_API_TOKEN", "from the environment, and long enough")
    assert api_token(tmp_path) == ("from the environment, and long enough", "APP_API_TOKEN")
    monkeypatch.setenv("APP_API_TOKEN", "hunter2")  # a page on this machine could guess it
    with pytest.raises(ConfigError, match="has 7 characters"):
        api_token(tmp_path)


def test_bad_ingest_input_gets_one_line_and_the_stream_goes_on(tmp_path, monkeypatch):
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    from websockets.sync.client import connect

    monkeypatch.setenv("APP_KEY", "service test key")
    server = Served(tmp_path / "ingest")
    try:
        url = server.url.replace("http", "ws") + "/v1/ingest"
        with connect(url, additional_headers=server.auth) as ws:
            ws.send(json.dumps({"type": "hello", "stream": "g", "rate": 1000}))
            assert "1000 Hz is not supported" in json.loads(ws.recv())["error"]
        with connect(url, additional_headers=server.auth) as ws:
            ws.send(json.dumps({"type": "hello", "stream": "g", "rate": 44100, "t0": T0}))
            assert json.loads(ws.recv())["acked"] == 0
            ws.send(b"V" + struct.pack("<d", T0) + b"not a jpeg")
            assert "not a readable JPEG" in json.loads(ws.recv())["error"]
            ws.send(b"A" + b"\x00" * 3)
            assert "8-byte offset" in json.loads(ws.recv())["error"]
            ws.send("text after hello")
            assert "binary" in json.loads(ws.recv())["error"]
            silence = np.zeros(44100, "<i2").tobytes()  # a second at 44.1 kHz, resampled to 16 kHz inside
            ws.send(b"A" + struct.pack("<Q", 0) + silence)
            assert json.loads(ws.recv()) == {"type": "ack", "acked": 44100}
            # holes that would be queued as minutes (or exabytes) of silence, times that are no times
            for offset in (44100 + 31 * 44100, 2**62, 2**64 - 1):
                ws.send(b"A" + struct.pack("<Q", offset) + b"\x00\x00")
                assert "a gap of" in json.loads(ws.recv())["error"]
            for t in (float("nan"), float("inf"), -1.0, 1e12):
                ws.send(b"V" + struct.pack("<d", t) + b"\xff\xd8")
                assert "not a plausible capture time" in json.loads(ws.recv())["error"]
            ws.send(b"A" + struct.pack("<Q", 44100) + silence)  # the stream went on
            assert json.loads(ws.recv()) == {"type": "ack", "acked": 88200}
        for hello in (
            {"type": "hello", "stream": "n", "rate": 16000, "t0": float("nan")},
            {"type": "hello", "stream": "n", "rate": 1e400},
            {"type": "hello", "stream": ["n"], "rate": 16000},
            ["hello"],
        ):
            with connect(url, additional_headers=server.auth) as ws:
                ws.send(json.dumps(hello))
                assert json.loads(ws.recv())["error"].startswith("bad hello")
        for i in range(20):  # streams are capped: the 17th is refused
            with connect(url, additional_headers=server.auth) as ws:
                ws.send(json.dumps({"type": "hello", "stream": f"s{i}", "rate": 16000, "t0": T0}))
                reply = json.loads(ws.recv())
                assert ("acked" in reply) == (i < 15), (i, reply)  # "g" is open already
        with connect(url, additional_headers=server.auth, max_size=None) as ws:  # over what a message can be
            ws.send(json.dumps({"type": "hello", "stream": "g", "rate": 16000, "t0": T0}))
            json.loads(ws.recv())
            ws.send(b"V" + b"\x00" * (8 << 20))
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv()
            assert closed.value.rcvd.code == 1009  # message too big
        assert server.http.get("/health").json() == {"ok": True}
    finally:
        assert server.stop() == 0


def test_run_serve_records_and_serves_in_one_process(conversation, tmp_path, monkeypatch):
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    monkeypatch.setenv("APP_KEY", "service test key")
    env = {**os.environ, "APP_DATA_DIR": str(tmp_path), "APP_API_TOKEN": TOKEN, "APP_STORE_KDF_LOG2_N": "10"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "run", "--source", str(conversation[0]), "--serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().split()[2]
        auth = {"Authorization": f"Bearer {TOKEN}"}
        deadline, people = time.monotonic() + CATCH_UP_S, []
        while time.monotonic() < deadline:  # the file is recorded while the API answers
            people = httpx.get(url + "/v1/people", headers=auth, timeout=120).json()["people"]
            if sum(p["utterances"] for p in people) == 4:
                break
            time.sleep(0.5)
        assert len(people) == 2 and sum(p["utterances"] for p in people) == 4
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0


def test_forgetting_someone_while_the_glasses_stream(tmp_path, monkeypatch):
    """`forget` through the API while the recorder runs: it goes through the recorder's store thread, which
    reloads who it knows; the stream goes on, the rest is stored, nothing refers to the deleted person."""
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    from websockets.sync.client import connect

    pcm, frames = _demo_media()
    monkeypatch.setenv("APP_KEY", "service test key")
    server = Served(tmp_path / "ingest")
    try:
        ws_url = server.url.replace("http", "ws") + "/v1/ingest"
        with connect(ws_url, additional_headers=server.auth) as ws:
            ws.send(json.dumps({"type": "hello", "stream": "g", "rate": 16000, "t0": T0}))
            json.loads(ws.recv())
            half = len(pcm) // 2
            _send(ws, pcm, 0, half, frames, set())
            deadline = time.monotonic() + CATCH_UP_S
            while time.monotonic() < deadline and sum(p["utterances"] for p in _people(server)) < 5:
                time.sleep(0.5)
            first = _people(server)[0]["name"]
            gone = server.http.post("/v1/forget", json={"person": first}).json()
            assert gone["deleted"]["people"] == 1 and gone["deleted"]["utterances"] >= 1
            _send(ws, pcm, half, len(pcm), frames, set(range(len(frames))))
        deadline = time.monotonic() + CATCH_UP_S
        while (
            time.monotonic() < deadline
            and sum(p["utterances"] for p in _people(server)) < 12 - gone["deleted"]["utterances"]
        ):
            time.sleep(0.5)
        people = _people(server)
        assert first not in {p["name"] for p in people}
        assert sum(p["utterances"] for p in people) == 12 - gone["deleted"]["utterances"]
    finally:
        assert server.stop() == 0


def _people(server: Served) -> list[dict]:
    return server.http.get("/v1/people").json()["people"]


def test_the_companion_talks_back_over_the_ingest_stream(tmp_path, monkeypatch, served):
    """`serve --companion`: its state, push-to-talk and `say` over HTTP, and its voice sent back to the glasses
    over the ingest WebSocket on the microphone's clock (the companion speaks as the client's audio arrives)."""
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8", "piper-joe")
    need_default_llm()
    from websockets.sync.client import connect

    other, _ = served
    assert other.http.get("/v1/companion").status_code == 404  # no companion in that one
    monkeypatch.setenv("APP_KEY", "service test key")
    server = Served(tmp_path / "companion", "--companion")
    try:
        assert server.http.get("/v1/companion").json()["state"] == "listening"
        assert server.http.post("/v1/companion/say", json={}).status_code == 400
        with connect(server.url.replace("http", "ws") + "/v1/ingest", additional_headers=server.auth) as ws:
            ws.send(json.dumps({"type": "hello", "stream": "g", "rate": 16000, "t0": T0}))
            assert json.loads(ws.recv())["type"] == "ready"
            assert server.http.post("/v1/companion/say", json={"text": "Hello, I remember you."}).json() == {
                "said": True
            }
            speech, times = [], []
            quiet = np.zeros(4000, "<i2").tobytes()  # 0.25 s of the microphone
            sent, said, deadline = 0, False, time.monotonic() + CATCH_UP_S
            # the microphone runs (6 s at least) until the companion has said it all, however long it takes to
            # synthesize: it speaks only as the microphone's audio comes in
            while (sent < 24 or not said) and time.monotonic() < deadline:
                said = server.http.get("/v1/companion").json()["state"] == "listening"  # checked before the send
                ws.send(b"A" + struct.pack("<Q", sent * 4000) + quiet)
                sent += 1
                time.sleep(0.05)
                while True:
                    try:
                        message = ws.recv(timeout=0.2)
                    except TimeoutError:
                        break
                    if isinstance(message, bytes):
                        assert message[:1] == b"S"
                        times.append(struct.unpack_from("<d", message, 1)[0])
                        speech.append(np.frombuffer(message[9:], "<i2"))
            heard = np.concatenate(speech) if speech else np.zeros(0)
            assert len(heard) / 16000 > 0.8  # "Hello, I remember you." came back as audio
            assert np.abs(heard).max() > 1000
            assert T0 <= times[0] < T0 + sent * 0.25 and times == sorted(times)  # on the microphone's clock
        state = server.http.get("/v1/companion").json()
        assert state["replies"][-1]["kind"] == "say" and state["replies"][-1]["first_audio_ms"] is not None
        assert server.http.post("/v1/companion/listen").json() == {"armed": True}
        assert server.http.get("/v1/companion").json()["armed"] is True
    finally:
        assert server.stop() == 0


def test_a_hostile_page_on_this_machine_gets_nothing(served):
    """DNS rebinding (a foreign Host), another page's origin (another port of 127.0.0.1 is the same site),
    embedding the media elsewhere, and guessing the token: each is refused before any route runs."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    server, _ = served
    port = server.url.rsplit(":", 1)[1]
    people = server.url + "/v1/people"
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost"):
        assert httpx.get(people, headers={**server.auth, "Host": host}).status_code == 200
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", ""):
        r = httpx.get(people, headers={**server.auth, "Host": host})
        assert r.status_code == 421 and "answers only to" in r.json()["error"], host
    own = f"http://127.0.0.1:{port}"
    ask = {"question": "who is allergic to peanuts"}
    assert httpx.post(server.url + "/v1/ask", json=ask, headers={**server.auth, "Origin": own}).status_code == 200
    for origin in ("http://127.0.0.1:1", "http://evil.example", "null", f"https://127.0.0.1:{port}"):
        r = httpx.post(server.url + "/v1/ask", json=ask, headers={**server.auth, "Origin": origin})
        assert r.status_code == 403 and origin in r.json()["error"], origin
    with pytest.raises(InvalidStatus):
        connect(
            server.url.replace("http", "ws") + "/v1/ingest",
            additional_headers={**server.auth, "Origin": "http://evil.example"},
        )
    for site in ("cross-site", "same-site"):
        r = httpx.get(people, headers={**server.auth, "Sec-Fetch-Site": site})
        assert r.status_code == 403, site
    r = httpx.get(people, headers={**server.auth, "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200 and r.headers["cross-origin-resource-policy"] == "same-origin"
    assert httpx.get(server.url + "/login").headers["cross-origin-resource-policy"] == "same-origin"

    import concurrent.futures

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(6) as pool:  # guesses in parallel are answered one at a time
        codes = list(
            pool.map(  # the last waits 3 s behind the others: near httpx's default 5 s on a busy machine
                lambda i: httpx.get(people, headers={"Authorization": f"Bearer guess{i}"}, timeout=120).status_code,
                range(6),
            )
        )
    assert codes == [401] * 6 and time.perf_counter() - started >= 2.5
    assert httpx.get(people, headers=server.auth).status_code == 200  # the right token is not slowed down


def test_bad_input_is_a_4xx_never_a_500(served):
    server, _ = served
    bad = [
        server.http.get(f"/v1/sessions/{2**63}"),
        server.http.get(f"/v1/sessions/{2**70}"),
        server.http.post("/v1/forget", json={"between": ["2026-05-14T12:00:00", "2026-05-14T11:00:00"]}),
        server.http.get("/v1/events", params={"after": 2**64}),
    ]
    for r in bad:
        assert 400 <= r.status_code < 500 and r.json()["error"], (r.request.url, r.status_code, r.text)
    # "²" (latin-1 0xB2, as the server decodes header bytes): "²".isdigit() is True, int("²") raises
    with server.http.stream("GET", "/v1/events", headers={"Last-Event-ID": b"\xb2"}) as r:
        assert r.status_code == 200
    huge = (b"x" * 65536 for _ in range(100))  # chunked, no Content-Length, over service.max_body_kb
    r = server.http.post("/v1/ask", content=huge, headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_https_and_public_listening(tmp_path):
    """--public needs a certificate (or --insecure); with --cert and --key the service speaks HTTPS."""
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    from app.service.server import listen_on

    with pytest.raises(ConfigError, match="add --public"):
        listen_on("0.0.0.0", 8765)
    with pytest.raises(ConfigError, match="in clear"):
        listen_on("0.0.0.0", 8765, public=True)
    assert listen_on("0.0.0.0", 8765, public=True, insecure=True).scheme == "http"
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    tls = ["--cert", str(tmp_path / "cert.pem"), "--key", str(tmp_path / "key.pem")]
    server = Served(tmp_path / "data", "--no-ingest", *tls)
    try:
        assert server.url.startswith("https://127.0.0.1:")
        r = httpx.get(server.url + "/v1/people", headers=server.auth, verify=str(tmp_path / "cert.pem"))
        assert r.status_code == 200
    finally:
        server.http.close()
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=120) == 0


def test_every_route_answers_generated_bad_input_with_a_4xx(served):
    """Hypothesis drives every route of the OpenAPI description with generated path parameters, query
    parameters, headers and JSON bodies: huge and negative numbers, Unicode digits, wrong types, nesting. No
    answer may be a 5xx. (Last in this module: a generated body may forget what the other tests read.)"""
    from urllib.parse import quote

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    server, _ = served
    spec = server.http.get("/openapi.json").json()
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**80), 2**80),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=30),
        st.sampled_from(["²", "٣", "-1", "0", str(2**63), "1e309", "2026-05-14T12:00:00", "Emily", "%", ""]),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )
    words = st.one_of(
        st.integers(-(2**80), 2**80).map(str), st.text(min_size=1, max_size=20), st.sampled_from(["²", "٣", str(2**64)])
    )
    header_words = st.one_of(  # what a header can carry: visible latin-1 characters, no spaces at the ends
        st.text(st.characters(min_codepoint=33, max_codepoint=255, exclude_characters="\x7f"), min_size=1),
        st.sampled_from(["\xb2", "\xb3", str(2**64), "-1"]),
    )
    routes = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            if "$ref" in body:
                body = spec["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
            fields = list(body.get("properties", {}))
            params = [(p["name"], p["in"]) for p in op.get("parameters", [])]
            routes.append((method.upper(), path, params, fields))
    assert len(routes) >= 15
    seen: dict[int, int] = {}

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def probe(data):
        method, path, params, fields = data.draw(st.sampled_from(routes))
        event_id = data.draw(header_words) if path == "/v1/events" else None
        query, headers = {}, {} if event_id is None else {"Last-Event-ID": event_id.encode("latin-1")}
        for name, where in params:
            value = data.draw(words)
            if where == "path":
                path = path.replace("{" + name + "}", quote(value, safe=""))
            elif where == "query" and data.draw(st.booleans()):
                query[name] = value
        path = path.replace("{", "").replace("}", "")
        body = data.draw(st.one_of(values, st.fixed_dictionaries({}, optional={f: values for f in fields})))
        kw = {"json": body} if method in ("POST", "PUT", "PATCH") else {}
        if path == "/v1/events":  # a stream: its status is what counts
            with server.http.stream(method, path, params=query, headers=headers, **kw) as r:
                status = r.status_code
        else:
            status = server.http.request(method, path, params=query, headers=headers, **kw).status_code
        seen[status] = seen.get(status, 0) + 1
        assert status < 500, (method, path, query, body, status)

    probe()
    assert sum(v for k, v in seen.items() if 400 <= k < 500) > 100, seen


def test_the_ingest_protocol_survives_fuzzing(capsys):
    """`bench fuzz` for 2,000 messages (about 20 s; however long a busy machine takes, up to 600 s): random and
    mutated messages get errors, never a crash."""
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    assert main(["bench", "fuzz", "--seconds", "600", "--messages", "2000", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["crashes"] == 0, report["crash_reasons"]
    assert report["tried"] > 300 and report["errors"] > 50 and report["acks"] > 10, report
