"""Raw media: encrypted and authenticated on disk, deleted exactly when due (age per kind, then budget)."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest

from app.config import RetentionConfig
from app.errors import StoreError
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.retention import sweep
from app.store.vault import MediaVault, media_key

SECRET = Secret(b"retention test key", "test")


@pytest.fixture
def memory(tmp_path, cfg):
    with Memory.open(tmp_path / "memory.db", SECRET, cfg.store, create=True) as m:
        yield m


def test_media_round_trip_and_nothing_readable(memory):
    payload = b"RIFF raw speech of Brunhilde " * 100
    mid = memory.media.add_media("audio", payload, 1.0, 2.0, keep_s=3600)
    (row,) = memory.media.rows("id = ?", (mid,))
    assert memory.vault.get(row.path) == payload
    on_disk = (memory.vault.folder / row.path).read_bytes()
    assert b"Brunhilde" not in on_disk and row.bytes == len(on_disk)
    assert oct((memory.vault.folder / row.path).stat().st_mode)[-3:] == "600"


@pytest.mark.parametrize("damage", ["flip", "truncate", "swap", "other_key"])
def test_tampered_media_is_one_clear_error(memory, damage):
    a = memory.vault.put(b"first clip " * 50)[0]
    b = memory.vault.put(b"second clip " * 50)[0]
    path = memory.vault.folder / a
    if damage == "flip":
        data = bytearray(path.read_bytes())
        data[40] ^= 0x01
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(path.read_bytes()[:30])
    elif damage == "swap":
        path.write_bytes((memory.vault.folder / b).read_bytes())
    vault = MediaVault(memory.vault.folder, media_key(b"\x01" * 32)) if damage == "other_key" else memory.vault
    with pytest.raises(StoreError) as err:
        vault.get(a)
    assert "\n" not in str(err.value) and ("tampered" in str(err.value) or "damaged" in str(err.value))
    assert memory.vault.get(b) == b"second clip " * 50  # the others are untouched


def test_sweep_deletes_exactly_what_is_due(memory):
    now = time.time()
    keep = {
        memory.media.add_media("audio", b"a" * 100, 0, 1, keep_s=3600): "keep",
        memory.media.add_media("frame", b"f" * 100, 0, 1, keep_s=10): "due",
        memory.media.add_media("audio", b"b" * 100, 0, 1, keep_s=60): "due",
    }
    result = sweep(memory, RetentionConfig(), now=now + 120)
    left = {m.id for m in memory.media.rows()}
    assert left == {i for i, what in keep.items() if what == "keep"}
    assert result.expired == 2 and result.over_budget == 0
    assert len(memory.vault.files()) == 1  # the files went with their rows


def test_budget_drops_the_oldest_first(memory):
    ids = [memory.media.add_media("audio", bytes(1000), t, t + 1, keep_s=3600) for t in (30.0, 10.0, 20.0)]
    budget = replace(RetentionConfig(), max_gb=(2 * 1000 + 2 * 32) / 1e9)  # room for two files
    result = sweep(memory, budget)
    assert result.over_budget == 1
    assert {m.id for m in memory.media.rows()} == {ids[0], ids[2]}  # the one recorded at t=10 went


def test_orphan_and_trash_files_are_removed(memory):
    name, _ = memory.vault.put(b"written, then the process died before its row was committed")
    old = time.time() - 3600
    os.utime(memory.vault.folder / name, (old, old))
    fresh, _ = memory.vault.put(b"a write that may still be committing")
    result = sweep(memory, RetentionConfig())
    assert result.orphans == 1 and memory.vault.files() == [fresh]


def test_per_kind_hours():
    cfg = RetentionConfig(raw_hours=24, audio_hours=-1, frame_hours=2)
    assert cfg.keep_s("audio") == 24 * 3600 and cfg.keep_s("frame") == 2 * 3600
    assert RetentionConfig(raw_hours=0).keep_s("audio") == 0  # nothing kept
