"""Durability: kill -9 during writes never corrupts the memory or loses a committed row; a full disk (a real
EFBIG from a file-size limit on the writing process) stops recording with one clear message, losing nothing
that was committed."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys

from app.bench.durability import HANG_S, acknowledged, check, kill_loop, render, writer
from tests.conftest import ROOT

KILLS = 20


def test_kill_9_never_corrupts_or_loses_a_committed_row(tmp_path):
    result = kill_loop(tmp_path / "memory.db", KILLS)  # raises if any check fails after any kill
    print(render(result))
    assert result["intact"] and result["acknowledged"] > KILLS  # the writers got work done between kills


def _limited(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_stops_the_writer_cleanly(tmp_path):
    db = tmp_path / "memory.db"
    proc = writer(db, media=True)
    committed = acknowledged(proc, 300)  # a memory with some rows in it
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert len(committed) == 300, err
    committed |= {int(x) for x in out.split()}
    size = db.stat().st_size
    proc = writer(db, media=True, preexec_fn=_limited(size + 150_000))
    out, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 8
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "full" in lines[0]
    committed |= {int(x) for x in out.split()}
    check(db, committed)


def test_recording_stops_on_a_full_disk_and_keeps_what_was_stored(conversation, tmp_path):
    env = dict(os.environ, APP_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    run = [sys.executable, "-m", "app", "run", "--source", str(conversation[0]), "--json"]
    first = subprocess.run(run, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(
        run,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limited(200_000),  # per file: the WAL fills up after a couple of utterances
    )
    assert second.returncode == 8, second.stderr
    summary = json.loads(second.stdout)
    # the WAL or an utterance's sealed audio (whichever outgrows the limit first) cannot be written
    assert len(summary["errors"]) == 1 and "full" in summary["errors"][0]
    assert summary["utterances"] + summary["unstored"] <= 4 and summary["unstored"] >= 1
    people = subprocess.run(
        [sys.executable, "-m", "app", "people", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    counts = sum(p["utterances"] for p in json.loads(people.stdout)["people"])
    assert counts == 4 + summary["utterances"]  # the first run, and what the second stored before the limit
