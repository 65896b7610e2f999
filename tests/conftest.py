"""Shared fixtures: an isolated data folder and key for every test, loaded models, generated speech."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from app import registry
from app.audio.media import write_media
from app.config import Config, load_config
from app.errors import ModelError
from app.events import Event
from app.recorder.pipeline import Recorder
from app.recorder.sources import FileSource
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
MODELS = ROOT / "models"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Every test gets its own data folder, key and config folder; no APP_* setting leaks in; recordings do not
    write memory with the LLM unless the test turns it on (test_demo, test_memory_scene)."""
    import os

    for name in list(os.environ):
        if name.startswith("APP_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("APP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("APP_KEY", "test key, not a secret")
    monkeypatch.setenv("APP_MEMORY_BACKGROUND", "false")  # the LLM writes memory only where a test asks for it
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    return tmp_path


@pytest.fixture(scope="session")
def cfg() -> Config:
    # a cheap scrypt keeps the many database opens in the suite fast; the default is tested on its own; memory
    # writing beside the recorder (the real LLM) is tested on its own too, not in every recording
    return load_config(ROOT / "config.yaml", env={}, overrides=["store.kdf_log2_n=10", "memory.background=false"])


def need_models(*names: str) -> None:
    """Skip, naming the command that prepares them, when the prepared models are absent."""
    for name in names:
        try:
            registry.verify(registry.get(name), MODELS)
        except ModelError as e:
            pytest.skip(f"{e} (run `python3 build.py`)")


LLM_MODEL = "qwen2.5-coder-0.5b"  # the smallest real language model that exercises the code


def need_llm(name: str = LLM_MODEL) -> None:
    """Skip unless the GGUF (the 0.5B by default) is prepared and llama-cpp-python is installed."""
    need_models(name)
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (python3 build.py)")


def need_default_llm() -> None:
    """The model the shipped configuration answers with (what the CLI, the service and the companion use)."""
    need_llm(load_config(ROOT / "config.yaml", env={}).llm.model)


@pytest.fixture(scope="module")
def llm(cfg):
    """The 0.5B model in process on its worker thread, one per test module."""
    need_llm()
    from app.llm import load_llm

    worker = load_llm(replace(cfg, llm=replace(cfg.llm, model=LLM_MODEL)))
    yield worker
    worker.close()


@pytest.fixture(scope="session")
def perception(cfg):
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    from app.recorder.perception import load_perception

    return load_perception(cfg)


@pytest.fixture(scope="session")
def speech() -> Callable[[str, str], np.ndarray]:
    """speech(text, voice) -> 16 kHz audio from flite (slt: female; rms, kal16: male)."""
    from app.demo import STRETCH, flite_available, speak

    if not flite_available():
        pytest.skip("flite is not installed (python3 build.py installs it)")
    return lambda text, voice="slt": speak(text, voice, STRETCH)  # the demo's rate, which Whisper hears


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared datasets not found at {SHARED_DATA}")
    return SHARED_DATA


def run_async(coro, timeout_s: float = 300):
    return asyncio.run(asyncio.wait_for(coro, timeout_s))


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower().replace("o'clock", "o clock"))


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate after OpenAI's English normalizer (case, punctuation, numbers), as `eval asr` counts."""
    import jiwer
    from whisper_normalizer.english import EnglishTextNormalizer

    normalize = EnglishTextNormalizer()
    return jiwer.wer(normalize(reference), normalize(hypothesis) or "")


# a two-voice recording with known turns, shared by the pipeline, consent and store tests
TURNS = (
    ("slt", "Good morning. I finally booked the flights to Lisbon for the conference in October."),
    ("rms", "That is great news. My sister lives in Lisbon and she can show you the old town."),
    ("slt", "I would love that. Does she still work at the aquarium near the river?"),
    ("rms", "Yes she does, and she just adopted a grey cat called Pepper last spring."),
)
GAP_S = 1.2


@pytest.fixture(scope="session")
def conversation(tmp_path_factory, speech) -> tuple[Path, list[tuple[float, float]]]:
    """A two-voice WAV with known turn times."""
    parts, spans, t = [np.zeros(16000, np.float32)], [], 1.0
    for voice, text in TURNS:
        audio = speech(text, voice)
        spans.append((t, t + len(audio) / 16000))
        parts += [audio, np.zeros(int(GAP_S * 16000), np.float32)]
        t += len(audio) / 16000 + GAP_S
    path = tmp_path_factory.mktemp("rec") / "conversation.wav"
    write_media(path, np.concatenate(parts))
    return path, spans


def record(cfg, perception, path: Path, db: Path, eager: bool = False) -> tuple[list[Event], object]:
    events: list[Event] = []
    source = FileSource(path, cfg, origin_epoch_s=1_750_000_000.0)
    with Memory.open(db, Secret(b"k", "test"), cfg.store, create=True) as memory:
        summary = run_async(Recorder(cfg, memory, perception, source, on_event=events.append, eager=eager).run())
    return events, summary


MAY_8 = datetime(2023, 5, 8, 14, 0, tzinfo=timezone.utc).timestamp()
DAY = 86400.0


@pytest.fixture
def memory(cfg, perception, tmp_path):
    """Two people over three days, with facts, a relation and a summary citing their words."""
    lines = [
        ("Caroline", 0, "I went to an LGBTQ support group yesterday and it was powerful."),
        ("Melanie", 0, "I painted a sunrise over the lake last week."),
        ("Caroline", 1, "I am thinking about studying counseling and mental health."),
        ("Melanie", 1, "My kids and I went camping in the mountains."),
        ("Caroline", 2, "I adopted a puppy named Luna, she loves tennis balls."),
        ("Melanie", 2, "I signed up for a pottery class on Saturdays."),
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        ids = {name: m.people.add_person(name).id for name in ("Caroline", "Melanie")}
        uids = []
        vectors = perception.text([text for _, _, text in lines])
        for (name, day, text), vec in zip(lines, vectors, strict=True):
            t = MAY_8 + day * DAY
            session = m.turns.start_session("t", t)
            uids.append(m.turns.add_utterance(NewUtterance(session, ids[name], text, t, t + 5, 1.0, "t", False, vec)))
        m.derived.add_fact(ids["Caroline"], "plan", "career", "counseling " * 700, [uids[2]], importance=0.9)  # long
        m.derived.add_fact(ids["Caroline"], "pet", "dog", "Luna", [uids[4]])
        m.derived.add_relation(ids["Caroline"], "friend", ids["Melanie"], [uids[0]])
        m.derived.add_summary(1, MAY_8, MAY_8 + 5, "Caroline told Melanie about the support group.", [uids[0]])
        yield m, uids
