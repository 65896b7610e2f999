"""The language model in a supervised process of its own (app/llm/child.py), on the real 0.5B model: a child
killed mid-generation (SIGKILL, as the OOM killer does) or faulting (SIGSEGV, as a llama.cpp built for another
CPU does) costs one line and a retried job, never the caller; a model that keeps dying is turned off for the
run; a model that cannot load is one line; during a replay of the demo the recorder stores every utterance and
writes the session's memory exactly once after the restart. The faults are real signals sent to the real
child process: a native fault cannot be provoked on purpose in a healthy llama.cpp build."""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.errors import LLMCrashed, LLMError, LLMUnavailable
from app.llm import RESTART, Request, SharedLLM, load_llm, model_path
from app.llm.child import probe
from tests.conftest import LLM_MODEL, MODELS, need_llm, need_models, run_async

REPLAY_S = 1800.0  # longest the demo's replay with memory writing may take (about 100 s idle): bounds a hang


def _cfg(cfg, **llm):
    return replace(cfg, llm=replace(cfg.llm, model=LLM_MODEL, process="child", **llm))


def _ask(text: str, max_tokens: int = 48) -> Request:
    return Request(({"role": "user", "content": text},), max_tokens=max_tokens)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


def _kill_when_generating(worker, sig: int, not_pid: int | None = None) -> int:
    """Wait for a child (other than `not_pid`) to stream a token of the running job, then send it `sig`; its pid."""
    deadline = time.monotonic() + 300
    seen: dict[int, int] = {}  # pid -> the job's pieces when that child was first seen
    while time.monotonic() < deadline:
        job, proc = worker._current, worker.backend.proc
        if job is not None and proc is not None and proc.pid != not_pid and proc.poll() is None:
            pieces = job._pieces.qsize()
            if pieces > seen.setdefault(proc.pid, pieces):
                os.kill(proc.pid, sig)
                return proc.pid
        time.sleep(0.01)
    raise AssertionError("no generation started")


@pytest.fixture
def worker(cfg):
    need_llm()
    w = load_llm(_cfg(cfg, context=1024))
    yield w
    w.close()


def test_a_killed_child_costs_one_line_and_the_job_runs_again(worker, caplog):
    heard: list[str] = []
    worker.listen(heard.append)
    job = worker.submit(_ask("Count from one to thirty in words.", 80))
    killed = _kill_when_generating(worker, signal.SIGKILL)
    pieces = list(job.tokens(timeout=120))
    reply = job.result()
    assert RESTART in pieces and reply.text.strip() and reply.usage.completion_tokens > 5
    assert len(heard) == 1 and "SIGKILL" in heard[0] and "\n" not in heard[0]
    assert worker.faults == heard and worker.backend.restarts == 1
    assert not _alive(killed) and worker.backend.proc.pid != killed
    assert worker.complete(_ask("Say yes.", 4), timeout=60).text.strip()  # the new child serves on


def test_a_native_fault_names_the_rebuild_and_leaves_its_stack_in_the_log(worker, caplog):
    caplog.set_level(logging.INFO, logger="app.llm.child")
    job = worker.submit(_ask("Name ten animals.", 60))
    _kill_when_generating(worker, signal.SIGSEGV)
    job.result(120)
    (line,) = worker.faults
    assert "SIGSEGV" in line and "rebuild it portable" in line
    stacks = [r.getMessage() for r in caplog.records if "last words" in r.getMessage()]
    assert stacks and "Segmentation fault" in stacks[0]  # Python's fault handler in the child wrote it
    assert "animals" not in stacks[0]  # only the stack: nothing else the child wrote, which may quote a prompt


def test_a_model_that_keeps_dying_is_off_for_the_run(cfg):
    need_llm()
    worker = load_llm(_cfg(cfg, context=1024, max_deaths=2))
    try:
        job = worker.submit(_ask("Count from one to thirty in words.", 80))
        first = _kill_when_generating(worker, signal.SIGKILL)
        _kill_when_generating(worker, signal.SIGKILL, not_pid=first)  # the retry, in the restarted child
        with pytest.raises(LLMCrashed, match="SIGKILL"):
            job.result(120)
        assert worker.backend.disabled and "2 times in a row" in worker.backend.disabled
        with pytest.raises(LLMUnavailable, match="off for this run"):
            worker.complete(_ask("Say yes.", 4), timeout=60)
        assert worker.backend.info()["disabled"]
    finally:
        worker.close()


def test_a_model_that_cannot_load_is_one_line(cfg, tmp_path):
    need_llm()
    truncated = tmp_path / "truncated.gguf"
    with model_path(_cfg(cfg)).open("rb") as fh:
        truncated.write_bytes(fh.read(4 << 20))
    with pytest.raises(LLMError) as err:
        load_llm(replace(_cfg(cfg, context=1024), llm=replace(_cfg(cfg).llm, model=str(truncated))))
    assert "truncated.gguf" in str(err.value) and "\n" not in str(err.value)


def test_the_child_holds_no_secrets(worker):
    """The memory key and the API token never reach the model's process (nor any other child)."""
    environ = Path(f"/proc/{worker.backend.proc.pid}/environ").read_bytes().split(b"\0")
    assert os.environ.get("APP_KEY")  # the tests set one
    assert not [v for v in environ if v.startswith((b"APP_KEY=", b"APP_API_TOKEN=", b"APP_LLM_API_KEY="))]


def test_closing_ends_the_child(worker):
    pid = worker.backend.proc.pid
    assert _alive(pid)
    worker.close()
    assert not _alive(pid)


def test_probe_proves_the_model_runs():
    need_llm()
    result = probe(MODELS / "qwen2.5-coder-0.5b" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", threads=2, tokens=4)
    assert result["ok"] and result["tokens"] >= 1, result
    assert "AVX2 = 1" in result["system_info"] or "NEON = 1" in result["system_info"]
    assert "AVX512 = 1" not in result["system_info"]  # the portable build: no instructions only some CPUs have


def test_the_recorder_outlives_a_killed_model_and_writes_memory_once(cfg, perception, tmp_path):
    """The demo replayed with memory written beside it; the model's child is killed mid-generation: the
    replay finishes, every utterance is stored, the session's memory is written exactly once after the
    restart, and the death is one `error` event and one line in the run summary."""
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8", LLM_MODEL)
    demo = MODELS / "demo"
    if not (demo / "demo.mkv").is_file():
        pytest.skip("the demo recording is missing (run `python3 build.py`)")
    from app.recorder.pipeline import Recorder
    from app.recorder.sources import open_source
    from app.store.keys import Secret
    from app.store.memory import Memory

    script = json.loads((demo / "demo.json").read_text())
    # the model reads the lines (the default extractor writes the demo's memory with code alone: nothing to kill)
    run_cfg = replace(_cfg(cfg), memory=replace(cfg.memory, background=True, extractor="llm"))
    shared = SharedLLM(run_cfg)
    killed: list[int] = []

    def killer() -> None:
        deadline = time.monotonic() + REPLAY_S
        while time.monotonic() < deadline and shared._worker is None:
            time.sleep(0.05)
        if shared._worker is not None:
            killed.append(_kill_when_generating(shared._worker, signal.SIGKILL))

    threading.Thread(target=killer, daemon=True).start()
    events: list = []
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        source = open_source("demo", run_cfg)
        summary = run_async(Recorder(run_cfg, memory, perception, source, events.append, llm=shared).run(), REPLAY_S)
        shared.close()
        assert killed, "the model's child was never seen generating"
        assert summary.utterances == len(script["turns"]) and summary.unstored == 0
        assert len(summary.llm_faults) == 1 and "SIGKILL" in summary.llm_faults[0]
        errors = [e for e in events if e.kind == "error"]
        assert [e.detail["stage"] for e in errors] == ["llm"]
        written = [e.detail["ref"] for e in events if e.kind == "memory_written" and e.detail["job"] == "session"]
        sessions = [s for s in memory.con.execute("SELECT id, consolidated_at FROM sessions")]
        assert sorted(written) == sorted(sid for sid, _ in sessions)  # each session's memory written once
        assert all(at is not None for _, at in sessions) and summary.memory_error is None
        assert memory.writing.queue_state(cfg.memory.attempts) == {"pending": 0, "failed": 0}
        facts = memory.con.execute("SELECT person_id, value FROM facts").fetchall()
        assert facts and len(facts) == len(set(facts))  # nothing written twice


def test_a_model_that_cannot_load_leaves_recording_untouched(cfg, conversation, tmp_path, monkeypatch, capsys):
    """A truncated GGUF: the child fails to load it; the recorder stores every turn and says why in one line,
    and `doctor` names the same cause."""
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8", LLM_MODEL)
    from app.cli import main
    from tests.conftest import TURNS

    truncated = tmp_path / "truncated.gguf"
    with model_path(_cfg(cfg)).open("rb") as fh:
        truncated.write_bytes(fh.read(4 << 20))
    wav, _ = conversation
    monkeypatch.setenv("APP_MEMORY_BACKGROUND", "true")
    model = ["--set", f"llm.model={truncated}"]
    capsys.readouterr()
    assert main([*model, "run", "--source", str(wav), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["utterances"] == len(TURNS) and summary["errors"] == []
    line = summary["memory_error"]
    assert "truncated.gguf" in line and "\n" not in line and summary["llm_faults"] == [line]
    assert main([*model, "doctor", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert "truncated.gguf" in report["llm"]["state"] and not report["ok"]
    assert report["database"]["memory_jobs"] >= 1  # the session waits for a model that loads
    assert report["database"]["heard_most"] and report["database"]["wearer"] is None  # a wearer to confirm
    assert "avx2" in report["cpu"]["features"] or report["cpu"]["machine"] != "x86_64"
    assert "GGML_NATIVE=OFF" in report["cpu"]["llama_cpp_build"]
