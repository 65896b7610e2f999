"""The microphone for real, and stopping as an ending: a private PulseAudio server with a null sink is the
wearable's microphone (ALSA reaches it through libasound2-plugins, so sounddevice lists `pulse` and `default`);
a spoken conversation is played into it with `paplay` while `python -m app` records, and a Ctrl-C or SIGTERM
ends the conversation: its memory is written before the process exits, without `consolidate`. A second Ctrl-C
leaves it queued, and the next start writes it. A wearable without a camera records its microphone alone."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app.audio.media import write_media
from app.cli import main
from app.config import load_config
from app.errors import AppError
from app.paths import DB_NAME, data_dir
from app.store.keys import Secret
from app.store.memory import Memory
from tests.conftest import LLM_MODEL, ROOT, need_llm, need_models, words

SINK = "wearable"
SCENE = (
    ("slt", "Hi, my name is Emily. I love playing tennis with my friends on the weekend."),
    ("rms", "Hello, my name is John. My colleague Emily works with me at the bank."),
)
DEADLINE_S = 240.0  # only bounds a hang: every wait below polls for its condition
FAST = ["--set", "store.kdf_log2_n=10", "--set", f"llm.model={LLM_MODEL}"]
CONFIG = load_config(ROOT / "config.yaml", env={}, overrides=["store.kdf_log2_n=10"])


@pytest.fixture(scope="module")
def pulse(tmp_path_factory):
    """A PulseAudio server of the test's own (its socket, runtime folder and home in a tmp folder) with a null
    sink whose monitor is the default source: what `paplay` plays into the sink is what the microphone hears.
    Yields the environment that reaches it (without the APP_* settings of the test that started it)."""
    missing = [tool for tool in ("pulseaudio", "pactl", "paplay") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (python3 build.py --dev installs PulseAudio)")
    home = tmp_path_factory.mktemp("pulse")
    server = home / "native"
    env = {k: v for k, v in os.environ.items() if not k.startswith("APP_")} | {"PULSE_SERVER": f"unix:{server}"}
    own = {k: v for k, v in env.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
    proc = subprocess.Popen(
        [
            "pulseaudio",
            "-n",  # no default.pa: only the modules below
            "--daemonize=no",
            "--exit-idle-time=-1",
            "--use-pid-file=no",
            "-L",
            f"module-null-sink sink_name={SINK} rate=44100",
            "-L",
            f"module-native-protocol-unix socket={server} auth-anonymous=1",
        ],
        env=own | {"XDG_RUNTIME_DIR": str(home), "HOME": str(home)},  # as root too: its state stays in `home`
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while _pactl(env, "info").returncode:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"PulseAudio did not start: {proc.stderr.read() if proc.poll() is not None else ''}")
            time.sleep(0.1)
        assert _pactl(env, "set-default-source", f"{SINK}.monitor").returncode == 0
        yield env
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _pactl(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["pactl", *args], env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def scene(tmp_path_factory, speech) -> Path:
    """Emily and John introduce themselves (flite's voices), as one WAV."""
    parts = [np.zeros(16000, np.float32)]
    for voice, text in SCENE:
        parts += [speech(text, voice), np.zeros(int(1.2 * 16000), np.float32)]
    path = tmp_path_factory.mktemp("scene") / "scene.wav"
    write_media(path, np.concatenate(parts))
    return path


class App:
    """`python -m app ARGS` as a user starts it; stdout and stderr read as they come (a pipe nobody reads
    would stall it)."""

    def __init__(self, env: dict, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(pipe, lines), daemon=True)
            for pipe, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(pipe, lines: list[str]) -> None:
        for line in pipe:
            lines.append(line.rstrip("\n"))

    def wait_for(self, condition, what: str, every_s: float = 0.1) -> None:
        """Poll `condition()` until it holds; the process ending first, or the deadline, fails the test."""
        deadline = time.monotonic() + DEADLINE_S
        while not condition():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                self.finish()
                pytest.fail(f"{what}: not before {'it exited' if self.proc.returncode else 'the deadline'}\n{self}")
            time.sleep(every_s)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.err)

    def stop(self, sig: int = signal.SIGINT) -> int:
        self.proc.send_signal(sig)
        return self.finish()

    def finish(self) -> int:
        code = self.proc.wait(timeout=DEADLINE_S)
        for reader in self._readers:
            reader.join(timeout=10)
        return code

    def __str__(self) -> str:
        quiet = [line for line in self.err if not line.startswith("ALSA lib")]  # PortAudio probing ALSA's devices
        return "stdout:\n" + "\n".join(self.out) + "\nstderr:\n" + "\n".join(quiet[-40:])


def _recording(env: dict, pid: int) -> bool:
    """Whether process `pid` holds a recording stream on the server (its microphone is open)."""
    listed = _pactl(env, "--format=json", "list", "source-outputs")
    if listed.returncode:
        return False
    return any(o["properties"].get("application.process.id") == str(pid) for o in json.loads(listed.stdout or "[]"))


def _memory() -> Memory:
    return Memory.open(data_dir() / DB_NAME, Secret(os.environ["APP_KEY"].encode(), "APP_KEY"), CONFIG.store)


def _heard() -> list[str]:
    """The words of every utterance stored so far (the recorder writes them as it goes)."""
    if not (data_dir() / DB_NAME).exists():
        return []
    try:
        with _memory() as m:
            return words(" ".join(ln.text for s in m.turns.sessions() for ln in m.writing.transcript(s["id"])))
    except AppError:  # still being created
        return []


def _cli(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--set", "store.kdf_log2_n=10", *args]) == 0
    return json.loads(out.getvalue())


def _tennis(person: str = "Emily") -> list[dict]:
    return [f for f in _cli("facts", "--person", person, "--json")["facts"] if "tennis" in f["value"].lower()]


def _queued() -> int:
    """Memory jobs still queued."""
    with _memory() as m:
        return m.writing.queue_state(CONFIG.memory.attempts)["pending"]


def _say_into_the_microphone(app: App, env: dict, wav: Path) -> None:
    """Once the app's microphone is open, play the scene into the sink; wait until its last words are stored."""
    app.wait_for(lambda: _recording(env, app.proc.pid), "the microphone opened")
    subprocess.run(["paplay", f"--device={SINK}", str(wav)], env=env, check=True, timeout=DEADLINE_S)
    app.wait_for(lambda: {"tennis", "bank"} <= set(_heard()), "the scene stored")


@pytest.fixture
def recording_env(pulse, monkeypatch) -> dict:
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    need_llm()
    monkeypatch.setenv("APP_MEMORY_BACKGROUND", "true")  # memory written while recording, as a user's recorder does
    return {**pulse, **{k: v for k, v in os.environ.items() if k.startswith("APP_")}}


def test_sounddevice_reaches_the_server(pulse):
    """PortAudio, through ALSA's pulse plugin, lists `pulse` and `default`: the microphone is the server's."""
    probe = "import json, sounddevice as sd; print(json.dumps([d['name'] for d in sd.query_devices()]))"
    names = json.loads(subprocess.run([sys.executable, "-c", probe], env=pulse, capture_output=True, check=True).stdout)
    assert {"pulse", "default"} <= set(names), names


def test_ctrl_c_writes_the_memory_of_the_conversation_going_on(recording_env, scene):
    """`run --source mic` on the server's default source; Ctrl-C while the conversation is still going on (no
    silence has ended it): exit 0, the utterances stored, the memory written, and the user told so."""
    app = App(recording_env, "run", "--source", "mic", "--json", *FAST)
    _say_into_the_microphone(app, recording_env, scene)
    assert _tennis() == []  # the conversation is still open: nothing written yet
    started = time.monotonic()
    assert app.stop(signal.SIGINT) == 0, app
    stopping_s = time.monotonic() - started
    assert app.said("stopped (Ctrl-C): writing the memory of the conversation that was going on"), app
    assert app.said("written: the memory of "), app
    summary = json.loads("\n".join(app.out))
    assert summary["source"] == "mic" and summary["utterances"] >= 2 and summary["memory_jobs"] >= 1, summary
    assert summary["memory_error"] is None, summary
    assert _tennis() and _queued() == 0  # no `consolidate`
    people = {p["name"] for p in _cli("people", "--json")["people"]}
    assert {"Emily", "John"} <= people, people
    print(f"stopping took {stopping_s:.1f} s")


def test_sigterm_stops_a_wearable_without_a_camera(recording_env, scene):
    """`python -m app --device jetson` (record camera + microphone, and serve) on a device with a microphone
    (ALSA's `pulse` by name) and no camera: it says so and records the microphone; SIGTERM, as systemd stops
    it, writes the memory of the conversation going on."""
    with socket.socket() as s:  # a free port: the default one may be taken on a shared machine
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["--device", "jetson", "--set", "audio.mic_device=pulse", "--set", f"service.port={port}"]
    app = App(recording_env | {"APP_API_TOKEN": "microphone test token, long enough"}, *args, *FAST)
    _say_into_the_microphone(app, recording_env, scene)
    assert app.said("no camera at index 0: recording the microphone only"), app
    assert any(line.startswith(f"serving on http://127.0.0.1:{port}") for line in app.out), app
    assert app.stop(signal.SIGTERM) == 0, app
    assert app.said("stopped (SIGTERM): writing the memory of the conversation that was going on"), app
    assert app.said("written: the memory of "), app
    assert _tennis() and _queued() == 0


def test_a_second_ctrl_c_leaves_it_queued_and_the_next_start_writes_it(recording_env, scene):
    """Ctrl-C twice: the second leaves the memory queued (durably) and says so; `facts` has nothing yet; the next
    start (`serve`, with nothing to record) writes it at once."""
    app = App(recording_env, "run", "--source", "mic", *FAST)
    _say_into_the_microphone(app, recording_env, scene)
    app.proc.send_signal(signal.SIGINT)
    app.wait_for(lambda: app.said("stopped (Ctrl-C)"), "the first Ctrl-C told", every_s=0.01)  # before the model loads
    assert app.stop(signal.SIGINT) == 0, app
    assert app.said("Ctrl-C again: what is not written yet stays queued"), app
    assert app.said("left queued for the next start"), app
    assert _tennis() == [] and _queued() >= 1

    served = App(recording_env | {"APP_API_TOKEN": "microphone test token, long enough"}, "serve", "--port", "0", *FAST)
    started = time.monotonic()
    served.wait_for(lambda: bool(_tennis()), "the queued memory written by the next start")
    written_s = time.monotonic() - started
    assert served.stop(signal.SIGTERM) == 0, served
    assert _queued() == 0
    print(f"the next start wrote it in {written_s:.1f} s")


@pytest.mark.parametrize("args", [["--device", "jetson"], ["run", "--source", "camera"]])
def test_no_camera_and_no_microphone_is_one_clear_error(args, tmp_path):
    """Neither device (ALSA's pulse device, its server absent): one line, exit 7, before anything is written."""
    env = {**os.environ, "PULSE_SERVER": f"unix:{tmp_path / 'absent'}"}  # and no other server is tried
    done = subprocess.run(
        [sys.executable, "-m", "app", *args, "--set", "audio.mic_device=pulse"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 7 and errors and "microphone" in errors[0], done.stderr
    assert not (data_dir() / DB_NAME).exists()


def test_a_replay_at_real_time_stops_at_once(scene, cfg):
    """A stop ends a `--realtime` replay where its clock is, not after the batch of chunks already decoded
    (seconds of audio): Ctrl-C on a file is as prompt as on the microphone."""
    from app.frames import AudioChunk
    from app.recorder.sources import FileSource
    from tests.conftest import run_async

    source = FileSource(scene, cfg, realtime=True)

    async def play() -> tuple[float, float]:
        t_s, stopped_at = 0.0, None
        async for item in source.stream():
            if isinstance(item, AudioChunk):
                t_s = item.t_start_s
            if t_s >= 1.0 and stopped_at is None:
                source.stop()
                stopped_at = time.monotonic()
        assert stopped_at is not None
        return t_s, time.monotonic() - stopped_at

    last_s, late_s = run_async(play(), 60)
    assert last_s < 1.5 and late_s < 0.5, (last_s, late_s)
