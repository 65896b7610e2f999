"""The language model in a process of its own, supervised by the process that uses it.

A native fault in llama.cpp (a build for another CPU, a bad driver, memory running out) then kills only this
child: the recorder keeps capturing, transcribing and storing. `ChildBackend` is the `Backend` the parent's
`LLMWorker` drives (its queue, priorities, pre-emption and cancellation stay in the parent); it speaks to a
`LlamaBackend` in `python -m app.llm.child` over a socket pair, one pickled message at a time:

    parent → child   ("stream", Request) | ("cancel",) | ("call", method, args)
    child → parent   ("ready", info) | ("failed", line) | ("piece", text) | ("end", usage, stats)
                     | ("error", kind, line) | ("value", result)

When the child dies, the generation in flight raises `LLMCrashed` (the worker runs it again once); the next
call starts a new child after a pause that grows with each death in a row, and after `max_deaths` deaths in a
row the model is disabled for the run (`LLMUnavailable`). The child writes Python's fault handler stack to
its stderr, which the parent keeps and logs when it dies.

`probe(path)` loads a model and generates a few tokens in a child: what setup and `doctor` run to prove that
the compiled llama.cpp works on this CPU.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from app.config import child_env
from app.devices import llama_gpu_layers
from app.errors import LLMCancelled, LLMCrashed, LLMCutOff, LLMError, LLMUnavailable
from app.llm.base import Cancel, Request, Usage
from app.llm.local import LlamaBackend, import_llama_cpp

_LOGGER = logging.getLogger(__name__)
LOAD_TIMEOUT_S = 300.0  # a model that has not loaded by then is reported as hung
POLL_S = 0.02  # how often a waiting parent looks at the cancellation flag
STDERR_LINES = 60  # the child's last stderr lines kept for the report of its death
_ERRORS = {cls.__name__: cls for cls in (LLMError, LLMCancelled, LLMCutOff)}
_PROJECT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ModelSpec:
    """What the child loads: LlamaBackend's arguments (gpu_layers -1: as device_kind wants), and the niceness
    its threads run at."""

    path: str
    context: int
    threads: int
    gpu_layers: int = 0
    prefix_states: int = 4
    nice: int = 0
    device_kind: str = "cpu"
    kept_prompts: int = 0


def death_reason(returncode: int | None) -> str:
    """'SIGSEGV' for a native fault, 'SIGKILL' for kill -9 or the OOM killer, 'exit 3' for an exit."""
    if returncode is None:
        return "no answer"
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-returncode).name
        return f"signal {-returncode}"
    return f"exit {returncode}"


_FAULT_LINE = re.compile(r'^(?:Fatal Python error|Thread 0x|Current thread 0x|\s+File "|Extension modules)')


def _fault_hint(reason: str) -> str:
    if reason in ("SIGSEGV", "SIGILL", "SIGBUS"):
        return "the compiled llama.cpp faults on this CPU; run `python3 build.py` to rebuild it portable"
    if reason == "SIGKILL":
        return "it was killed (out of memory, or by hand)"
    return "see the log for its last words"


def _spawn(args: list[str]) -> tuple[subprocess.Popen, Connection]:
    """`python -X faulthandler -m app.llm.child ARGS` with one end of a socket pair as its fd 3."""
    ours, theirs = socket.socketpair()
    env = child_env(PYTHONPATH=os.pathsep.join(filter(None, [str(_PROJECT), os.environ.get("PYTHONPATH")])))
    try:
        proc = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", "-m", "app.llm.child", str(theirs.fileno()), *args],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
    finally:
        theirs.close()  # the child holds its own copy: its death closes the pair
    return proc, Connection(ours.detach())


class ChildBackend:
    """The Backend protocol over a supervised child process (see the module's docstring)."""

    name = "llama-cpp"

    def __init__(self, spec: ModelSpec, max_deaths: int = 3) -> None:
        self.spec, self.max_deaths = spec, max_deaths
        self.proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._info: dict[str, Any] = {}
        self.deaths = 0  # deaths in a row (a finished generation resets it)
        self.restarts = 0
        self.last_death: str | None = None  # the one line of the last death
        self.disabled: str | None = None  # why the model is off for this run
        self.prefix_evaluations = 0  # the child's count, updated after every generation
        self._talking = threading.Lock()  # one exchange with the child at a time (a generation is one)
        self._start()

    # ------------------------------------------------------------------ the child's life
    def _start(self) -> None:
        proc, conn = _spawn(["--serve", json.dumps(asdict(self.spec))])
        self.proc, self._conn = proc, conn
        self._stderr.clear()
        threading.Thread(target=self._read_stderr, args=(proc,), name="llm-child-stderr", daemon=True).start()
        started = time.monotonic()
        while not conn.poll(POLL_S * 10):
            if time.monotonic() - started > LOAD_TIMEOUT_S:
                self._kill()
                raise LLMError(f"the language model did not load within {LOAD_TIMEOUT_S:.0f} s; it is killed")
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            reason = self._reap()
            raise LLMCrashed(
                f"the language model's process died while loading {Path(self.spec.path).name} ({reason}): "
                f"{_fault_hint(reason)}"
            ) from None
        if kind == "failed":
            self._reap()
            raise LLMError(payload)
        self._info = payload
        _LOGGER.info("language model process %d ready (%s)", proc.pid, payload.get("system_info", ""))

    def _read_stderr(self, proc: subprocess.Popen) -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            self._stderr.append(line)
            _LOGGER.debug("llm child: %s", line)

    def _kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        self._reap()

    def _reap(self) -> str:
        """Wait for the dead child; close the pair; its reason."""
        reason = "gone"
        if self.proc is not None:
            try:
                reason = death_reason(self.proc.wait(timeout=10))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                reason = death_reason(self.proc.wait())
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        return reason

    def _died(self, during: str) -> LLMCrashed:
        """Record a death: its one line (logged), the child's fault stack (logged at INFO), the error to raise."""
        reason = self._reap()
        self.deaths += 1
        line = f"the language model's process died {during} ({reason}): {_fault_hint(reason)}"
        self.last_death = line
        # Python's fault handler's lines (the stack); the rest of what it wrote (its own log, llama.cpp's) may quote a
        # prompt, so it stays at DEBUG, where it was logged as it came
        stack = [ln for ln in self._stderr if _FAULT_LINE.match(ln)]
        if stack:
            _LOGGER.info("the language model's process's last words:\n%s", "\n".join(stack))
        if self.deaths >= self.max_deaths:
            self.disabled = (
                f"the language model is off for this run: its process died {self.deaths} times in a row "
                f"(last: {reason}); run `python -m app doctor`"
            )
            _LOGGER.error("%s", self.disabled)
        return LLMCrashed(line)

    def _ensure(self) -> Connection:
        """The live child's connection: a new child after a death, once a pause that grows with each death in
        a row has passed; LLMUnavailable when the model is off for the run."""
        if self.disabled:
            raise LLMUnavailable(self.disabled)
        if self._conn is None:
            pause = min(30.0, 0.5 * 4 ** max(0, self.deaths - 1))
            _LOGGER.warning("restarting the language model's process in %.1f s", pause)
            time.sleep(pause)
            self.restarts += 1
            try:
                self._start()
            except LLMCrashed as e:
                self.deaths += 1
                self.last_death = str(e)
                if self.deaths >= self.max_deaths:
                    self.disabled = f"the language model is off for this run: {e}"
                raise
        assert self._conn is not None
        return self._conn

    # ------------------------------------------------------------------ the Backend protocol
    def stream(self, request: Request, cancel: Cancel, usage: Usage) -> Iterator[str]:
        with self._talking:
            yield from self._stream(request, cancel, usage)

    def _stream(self, request: Request, cancel: Cancel, usage: Usage) -> Iterator[str]:
        conn = self._ensure()
        try:
            conn.send(("stream", request))
        except OSError:
            raise self._died("before a generation") from None
        told = False
        while True:
            if cancel and not told:
                with contextlib.suppress(OSError):
                    conn.send(("cancel",))
                told = True
            try:
                if not conn.poll(POLL_S):
                    continue
                kind, *payload = conn.recv()
            except (EOFError, OSError):
                raise self._died("during a generation") from None
            if kind == "piece":
                try:
                    yield payload[0]
                except GeneratorExit:  # the caller stopped reading: the child's reply must not reach the next
                    self._abandon(conn)
                    raise
            elif kind == "end":
                for k, v in payload[0].items():
                    if k not in ("queued_s", "first_token_s", "total_s"):  # the parent times these
                        setattr(usage, k, v)
                self.prefix_evaluations = payload[1]["prefix_evaluations"]
                self.deaths = 0
                return
            elif kind == "error":
                self.deaths = 0
                raise _ERRORS.get(payload[0], LLMError)(payload[1])

    def _abandon(self, conn: Connection) -> None:
        """Cancel the generation nobody reads any more and wait for its end; a child that does not end it is
        killed (and started again at the next call)."""
        with contextlib.suppress(OSError, EOFError):
            conn.send(("cancel",))
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if conn.poll(POLL_S) and conn.recv()[0] in ("end", "error"):
                    return
        self._kill()

    def _call(self, method: str, *args: Any) -> Any:
        with self._talking:
            conn = self._ensure()
            try:
                conn.send(("call", method, args))
                kind, *payload = conn.recv()
            except (EOFError, OSError):
                raise self._died(f"in {method}") from None
        if kind == "error":
            raise _ERRORS.get(payload[0], LLMError)(payload[1])
        return payload[0]

    def count_tokens(self, text: str) -> int:
        return self._call("count_tokens", text)

    def prompt_tokens(self, messages, cache_prefix: int = 0) -> tuple[list[int], int]:
        return self._call("prompt_tokens", tuple(messages), cache_prefix)

    def drop_prefixes(self) -> None:
        if self._conn is not None:  # a dead child's cache died with it
            self._call("drop_prefixes")

    def info(self) -> dict[str, Any]:
        return {
            **self._info,
            "process": "child",
            "pid": self.proc.pid if self.proc else None,
            "restarts": self.restarts,
            "last_death": self.last_death,
            "disabled": self.disabled,
        }

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(("close",))
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._reap()


def probe(path: Path, threads: int = 2, tokens: int = 8, timeout_s: float = 600.0) -> dict[str, Any]:
    """Load `path` and generate `tokens` tokens in a child process: {"ok": True, speeds, system_info} or
    {"ok": False, "error": one line} — a native fault or a hang never reaches the caller."""
    proc, conn = _spawn(["--probe", str(path), str(threads), str(tokens)])
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
    reader.start()
    try:
        if conn.poll(timeout_s):
            with contextlib.suppress(EOFError, OSError):
                return conn.recv()
        else:
            proc.kill()
            return {"ok": False, "error": f"llama.cpp did not answer within {timeout_s:.0f} s: it hangs on this CPU"}
        reason = death_reason(proc.wait(timeout=30))
        return {
            "ok": False,
            "reason": reason,
            "error": f"llama.cpp died while loading and running {path.name} ({reason}): {_fault_hint(reason)}",
            "stderr": b"".join(err).decode("utf-8", "replace")[-4000:],
        }
    finally:
        conn.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


# ---------------------------------------------------------------------- the child's side
def _system_info(llama_cpp) -> str:
    return llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()


def _serve(conn: Connection, spec: ModelSpec) -> None:
    if spec.nice:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, spec.nice)  # llama.cpp's threads, started later, inherit it

    try:
        import_llama_cpp()  # its environment first: llama_gpu_layers loads the library
        layers = spec.gpu_layers if spec.gpu_layers >= 0 else llama_gpu_layers(spec.device_kind)
        backend = LlamaBackend(
            Path(spec.path), spec.context, spec.threads, layers, spec.prefix_states, spec.kept_prompts
        )
    except LLMError as e:
        conn.send(("failed", str(e)))
        return
    llama_cpp, _ = import_llama_cpp()
    conn.send(("ready", {**backend.info(), "system_info": _system_info(llama_cpp)}))
    inbox: collections.deque[tuple[tuple, Cancel]] = collections.deque()
    arrived = threading.Condition()
    current: list[Cancel] = [Cancel()]

    def read() -> None:  # a thread of its own, so a cancel arrives while the main thread generates
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                os._exit(0)  # the parent is gone
            if msg[0] == "cancel":
                current[0].set()  # the latest generation asked for, running or still waiting
                continue
            if msg[0] == "stream":
                current[0] = Cancel()
            with arrived:
                inbox.append((msg, current[0]))
                arrived.notify()

    threading.Thread(target=read, name="llm-child-inbox", daemon=True).start()
    while True:
        with arrived:
            while not inbox:
                arrived.wait()
            msg, cancel = inbox.popleft()
        if msg[0] == "close":
            break
        try:
            if msg[0] == "stream":
                usage = Usage()
                for piece in backend.stream(msg[1], cancel, usage):
                    conn.send(("piece", piece))
                conn.send(("end", asdict(usage), {"prefix_evaluations": backend.prefix_evaluations}))
            else:
                conn.send(("value", getattr(backend, msg[1])(*msg[2])))
        except LLMError as e:
            conn.send(("error", type(e).__name__, str(e)))
        except Exception as e:  # the backend's own failure: its line for the parent, its trace in stderr
            _LOGGER.exception("language model failure")
            conn.send(("error", "LLMError", f"the language model failed: {type(e).__name__}: {e}"))
    backend.close()


def _probe(conn: Connection, path: Path, threads: int, tokens: int) -> None:
    started = time.perf_counter()
    try:
        backend = LlamaBackend(path, 512, threads)
    except LLMError as e:
        conn.send({"ok": False, "error": str(e)})
        return
    loaded = time.perf_counter() - started
    llama_cpp, _ = import_llama_cpp()
    usage = Usage()
    request = Request(({"role": "user", "content": "Count from one to ten."},), max_tokens=tokens)
    t0 = time.perf_counter()
    text = "".join(backend.stream(request, Cancel(), usage))
    conn.send(
        {
            "ok": bool(usage.completion_tokens),
            "error": "" if usage.completion_tokens else "llama.cpp generated nothing",
            "load_s": round(loaded, 2),
            "generate_s": round(time.perf_counter() - t0, 2),
            "tokens": usage.completion_tokens,
            "text": text,
            "system_info": _system_info(llama_cpp),
        }
    )
    backend.close()


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s", stream=sys.stderr)
    conn = Connection(int(argv[0]))
    if argv[1] == "--serve":
        _serve(conn, ModelSpec(**json.loads(argv[2])))
    else:
        _probe(conn, Path(argv[2]), int(argv[3]), int(argv[4]))
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
