"""The process's frame: typed events on one bus, stages kept alive the same way, one runtime that owns the parts."""

from __future__ import annotations

import asyncio

import pytest

from app import supervision
from app.errors import ConfigError
from app.events import Bus, EventKind, Speech, Stored, VoiceActivity
from app.recorder.sources import FileSource
from app.runtime import Lifecycle, Runtime
from app.store.keys import Secret
from app.store.memory import Memory


def test_the_bus_delivers_by_kind_and_one_broken_subscriber_stops_nobody(caplog):
    bus = Bus()
    everything, stored, voice = [], [], []

    def broken(_):
        raise RuntimeError("a subscriber's bug")

    bus.subscribe(broken)
    bus.subscribe(everything.append)
    bus.subscribe(stored.append, EventKind.STORED)
    unsubscribe = bus.subscribe(voice.append, EventKind.VOICE_ACTIVITY)
    assert bus.wants(EventKind.VOICE_ACTIVITY)
    bus.publish(Speech(1.00049, 2.5))
    bus.publish(Stored(1.0, 7, "Emily", "voice", True))
    bus.publish(VoiceActivity(1.032, 0.9))  # a system event: only to who named it, never to "everything"
    assert [e.kind for e in everything] == ["speech", "stored"] and everything[0].t_s == 1.0
    assert stored[0].detail == {"utterance": 7, "person": "Emily", "by": "voice", "kept": True}
    assert [e.probability for e in voice] == [0.9]
    assert "a subscriber to speech events failed" in caplog.text
    unsubscribe()
    assert not bus.wants(EventKind.VOICE_ACTIVITY)


def test_a_failing_stage_is_restarted_fresh_and_one_that_keeps_failing_gives_up(monkeypatch):
    monkeypatch.setattr(supervision, "FIRST_BACKOFF_S", 0.01)
    runs: list[int] = []

    async def flaky() -> None:
        runs.append(len(runs))
        if len(runs) < 3:
            raise RuntimeError("a bug on this input")

    asyncio.run(supervision.supervised("flaky", flaky))
    assert runs == [0, 1, 2]  # twice failed, restarted, then done

    async def broken() -> None:
        raise RuntimeError("never works")

    with pytest.raises(RuntimeError, match="never works"):
        asyncio.run(supervision.supervised("broken", broken))

    async def users() -> None:
        raise ConfigError("the user's to read")

    with pytest.raises(ConfigError):  # not restarted
        asyncio.run(supervision.supervised("config", users))


def test_the_runtime_records_and_stops_in_order_and_a_broken_subscriber_loses_nothing(
    cfg, perception, conversation, tmp_path
):
    path, _ = conversation
    seen: list[str] = []

    def broken(event) -> None:  # every event it gets fails: the recorder must not notice
        seen.append(event.kind)
        raise RuntimeError("a broken listener")

    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store, create=True) as memory:
        runtime = Runtime(cfg, memory, perception, FileSource(path, cfg), on_event=broken)
        assert runtime.state is Lifecycle.NEW
        summary = asyncio.run(runtime.run())
        assert runtime.state is Lifecycle.STOPPED
        assert summary.utterances == 4 and summary.errors == [] and summary.skipped == 0
        assert len(memory.turns.all_utterances()) == 4
    assert seen.count("stored") == 4 and "session_end" in seen
