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
import time
from pathlib import Path

import numpy as np

from tests.conftest import ROOT
from tests.crash_writer import CFG, SECRET

KILLS = 20


def _check(db: Path, committed: set[int]) -> int:
    """The memory opens, passes SQLite's and FTS5's integrity checks, and holds every committed row."""
    from app.store.memory import Memory

    with Memory.open(db, SECRET, CFG) as memory:
        con = memory.con
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.execute("INSERT INTO utterances_fts(utterances_fts) VALUES ('integrity-check')")
        ids = {r[0] for r in con.execute("SELECT id FROM utterances")}
        assert committed <= ids, f"lost committed rows {sorted(committed - ids)[:5]}"
        assert con.execute("SELECT count(*) FROM utterances_vec").fetchone()[0] == len(ids)
        for m in memory.media():
            assert len(memory.vault.get(m.path)) == 20_000  # every recorded media file is whole
        return len(ids)


def _writer(db: Path, media: bool, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "tests.crash_writer", str(db), "media" if media else "-"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def test_kill_9_never_corrupts_or_loses_a_committed_row(tmp_path):
    db = tmp_path / "memory.db"
    rng = np.random.default_rng(42)
    committed: set[int] = set()
    rows = 0
    for i in range(KILLS):
        proc = _writer(db, media=i % 2 == 0)
        time.sleep(0.6 + float(rng.uniform(0.0, 0.5)))  # past start-up, in the middle of the writes
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        committed |= {int(line) for line in out.split()}
        rows = _check(db, committed)
    print(f"{KILLS} kills, {len(committed)} committed rows acknowledged, {rows} in the memory, all intact")
    assert len(committed) > KILLS  # the writers did get work done between kills


def _limited(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_stops_the_writer_cleanly(tmp_path):
    db = tmp_path / "memory.db"
    proc = _writer(db, media=True)
    time.sleep(1.5)
    proc.send_signal(signal.SIGKILL)
    committed = {int(x) for x in proc.communicate(timeout=30)[0].split()}
    size = db.stat().st_size
    proc = _writer(db, media=True, preexec_fn=_limited(size + 150_000))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 8
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "full" in lines[0]
    committed |= {int(x) for x in out.split()}
    _check(db, committed)


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
    assert len(summary["errors"]) == 1 and "is the disk full?" in summary["errors"][0]
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
