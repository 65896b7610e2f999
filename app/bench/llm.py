"""`bench llm`: load time, prompt and generation speed, first token and whole answer of `ask --answer` (the
first question, which also evaluates the fixed instructions, and the later ones), and peak memory — per
language model present, in the supervised child process (the default), in process, and through a local
OpenAI-compatible server (llama-cpp-python's, started on 127.0.0.1 by the bench and stopped after)."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from app import registry
from app.ask.answer import Answerer
from app.config import Config, child_env
from app.errors import AppError, LLMError, ModelError
from app.llm import DIALOG, LLMWorker, Request, load_llm
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

# A neutral text to evaluate and continue: its facts are never asked about.
_FILLER = (
    "The committee reviewed the quarterly maintenance schedule for the regional water network, compared the "
    "inspection logs of each pumping station, and agreed to publish a summary for residents. "
)


def measure_speed(llm: LLMWorker, prompt_words: int = 240, generate: int = 48) -> dict:
    """Prompt tokens/s (a fresh prompt of ~prompt_words words, nothing cached), generation tokens/s, first token."""
    text = (_FILLER * (prompt_words // len(_FILLER.split()) + 1))[: prompt_words * 7]
    nonce = f"Reference {time.perf_counter_ns()}. "  # a different first token: nothing of it is cached
    request = Request(
        ({"role": "system", "content": nonce + "Continue the text."}, {"role": "user", "content": text}),
        max_tokens=generate,
        temperature=0.0,
    )
    reply = llm.complete(request, DIALOG, timeout=600)
    u = reply.usage
    first = u.first_token_s or u.total_s
    evaluated = max(1, u.prompt_tokens - u.cached_tokens)
    generated = max(0, u.completion_tokens - 1)
    return {
        "prompt_tokens": u.prompt_tokens,
        "prompt_tps": round(evaluated / first, 1),
        "generation_tps": round(generated / max(1e-6, u.total_s - first), 1) if generated else None,
        "first_token_s": round(first, 3),
    }


def _hwm_reset() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM (peak RSS) on Linux
    except OSError:
        pass


def _status_mb(pid: int | str, field: str) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _answer_latency(llm: LLMWorker, cfg: Config, rounds: int = 5) -> dict:
    """`ask --answer` on a small memory of two people with facts: the first question also evaluates the fixed
    instructions (then kept in the prefix cache); the later ones pay only for their own lines."""
    embedder = load_text_embedder(cfg)
    people = {
        "Anna": ["I moved to a flat by the harbour in March.", "I work as a nurse on night shifts at the clinic."],
        "Ben": ["I coach the youth football team on Sundays.", "My sister runs a bakery on the main square."],
    }
    t0 = datetime(2026, 5, 14, 9, 0, tzinfo=timezone.utc).timestamp()
    cold, warm, total = [], [], []
    with (
        tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp,
        Memory.open(Path(tmp) / "m.db", Secret(b"bench", "bench"), cfg.store, create=True) as mem,
    ):
        for i, (name, lines) in enumerate(people.items()):
            pid = mem.people.add_person(name).id
            for j in range(12):  # a profile of a few hundred tokens: their facts and latest words
                text = f"{lines[j % 2]} Day {j}: {_FILLER[: 60 + 7 * j]}"
                t = t0 + (i * 12 + j) * 600
                sid = mem.turns.start_session("bench", t)
                v = embedder([text])[0]
                uid = mem.turns.add_utterance(NewUtterance(sid, pid, text, t, t + 5, 1.0, "bench", False, v))
                mem.derived.add_fact(pid, "note", f"note {j}", _FILLER[: 40 + 5 * j], [uid])
        answerer = Answerer(llm, mem, embedder, cfg)
        now = datetime.fromtimestamp(t0 + 86400, timezone.utc)
        questions = ["Where does Anna live?", "What does Ben do on Sundays?", "Who runs a bakery?"]
        for r in range(rounds):
            for name in people:
                q = questions[r % len(questions)]
                a = answerer(q, now, person=name)
                (cold if not cold else warm).append(a.first_token_ms or a.latency_ms)
                total.append(a.latency_ms)
                prompt = a.prompt_tokens
    return {
        "first_token_uncached_ms": round(float(np.median(cold)), 0),
        "first_token_cached_ms": {
            "p50": round(float(np.percentile(warm, 50)), 0),
            "p95": round(float(np.percentile(warm, 95)), 0),
        },
        "answer_ms": {
            "p50": round(float(np.percentile(total, 50)), 0),
            "p95": round(float(np.percentile(total, 95)), 0),
        },
        "prompt_tokens": prompt,
        "questions": len(total),
    }


def _local(cfg: Config, process: str) -> dict:
    """llama.cpp in a child process or in this one; peak RSS is the model's process's."""
    cfg = replace(cfg, llm=replace(cfg.llm, process=process))
    _hwm_reset()
    started = time.perf_counter()
    llm = load_llm(cfg)
    load_s = time.perf_counter() - started
    child = getattr(llm.backend, "proc", None)
    try:
        out = {"load_s": round(load_s, 2), **measure_speed(llm), "answer": _answer_latency(llm, cfg)}
        out["peak_rss_mb"] = _status_mb(child.pid if child else "self", "VmHWM")
    finally:
        llm.close()
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(model: Path, threads: int, context: int, timeout_s: float = 120) -> tuple[subprocess.Popen, str]:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1, ready to answer; (process, base URL)."""
    # lazy: httpx is heavy (~0.1 s); only the server comparison needs it
    import httpx

    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--n_ctx", str(context), "--n_threads", str(threads), "--n_threads_batch"]
    cmd += [str(threads), "--verbose", "False"]
    env = child_env(OMP_WAIT_POLICY="PASSIVE")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode("utf-8", "replace").strip().splitlines() if proc.stderr else []
            raise LLMError(f"the local LLM server exited: {err[-1] if err else proc.returncode}")
        try:
            if httpx.get(f"{url}/models", timeout=1.0).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise LLMError(f"the local LLM server did not start within {timeout_s:.0f} s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _through_server(cfg: Config, model: Path) -> dict:
    started = time.perf_counter()
    proc, url = start_server(model, cfg.device.threads, cfg.llm.context)
    load_s = time.perf_counter() - started
    server_cfg = replace(cfg, llm=replace(cfg.llm, backend="openai", url=url, model=model.name))
    try:
        llm = load_llm(server_cfg)
        try:
            out = {"load_s": round(load_s, 2), **measure_speed(llm), "answer": _answer_latency(llm, server_cfg)}
        finally:
            llm.close()
        out["peak_rss_mb"] = _status_mb(proc.pid, "VmHWM")
    finally:
        stop_server(proc)
    return out


def bench_llm(cfg: Config, server: bool = True) -> dict:
    """Every language model present (the configured one first), in process and through the local server."""
    names = [s.name for s in registry.REGISTRY.values() if s.role == "llm"]
    names.sort(key=lambda n: n != cfg.llm.model)
    results = []
    for name in names:
        try:
            (path,) = registry.verify(registry.get(name), cfg.models_dir)
        except ModelError as e:
            results.append({"model": name, "skipped": str(e)})
            continue
        model_cfg = replace(cfg, llm=replace(cfg.llm, backend="llama-cpp", model=name))
        row: dict = {"model": name, "bytes": path.stat().st_size, "default": name == cfg.llm.model}
        try:
            row["child"] = _local(model_cfg, "child")
            row["in_process"] = _local(model_cfg, "in-process")
            if server:
                row["server"] = _through_server(model_cfg, path)
        except AppError as e:
            row["error"] = str(e)
        results.append(row)
    return {"threads": cfg.device.threads, "context": cfg.llm.context, "models": results}


def render(r: dict) -> str:
    lines = [f"bench llm: {r['threads']} threads, context {r['context']} tokens"]
    for m in r["models"]:
        if "skipped" in m:
            lines.append(f"  {m['model']}: not present ({m['skipped']})")
            continue
        lines.append(f"  {m['model']} ({m['bytes'] / 1e6:.0f} MB){' [default]' if m['default'] else ''}")
        if "error" in m:
            lines.append(f"    error: {m['error']}")
        for where in ("child", "in_process", "server"):
            if where not in m:
                continue
            x, a = m[where], m[where]["answer"]
            lines.append(
                f"    {where:10s} load {x['load_s']:.2f} s; prompt {x['prompt_tps']} tok/s; generation "
                f"{x['generation_tps']} tok/s; peak RSS {x['peak_rss_mb']} MB"
            )
            lines.append(
                f"               ask --answer: first token {a['first_token_uncached_ms']:.0f} ms for the first "
                f"question, {a['first_token_cached_ms']['p50']:.0f}/{a['first_token_cached_ms']['p95']:.0f} ms "
                f"p50/p95 later; whole answer {a['answer_ms']['p50']:.0f}/{a['answer_ms']['p95']:.0f} ms "
                f"({a['prompt_tokens']} prompt tokens evaluated)"
            )
    return "\n".join(lines) + "\n"
