"""`bench durability --kills N`: kill -9 a writer N times mid-write; after each, the memory must open, pass
SQLite's and FTS5's integrity checks and hold every row whose commit was acknowledged.

The writer (`python -m app.bench_durability DB`) stores utterances with vectors, keys and media as fast as
it can, printing each id once its transaction has committed, until it is killed or the disk fills up.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from app.config import StoreConfig
from app.errors import DiskFullError
from app.store.keys import Secret
from app.store.memory import Memory, NewUtterance

SECRET = Secret(b"durability test key", "test")
CFG = StoreConfig(kdf_log2_n=10)
MEDIA_BYTES = 20_000
ROOT = Path(__file__).resolve().parent.parent


def write_until_stopped(db: Path, with_media: bool) -> int:
    rng = np.random.default_rng()
    memory = None
    try:  # the disk may fill while opening (the WAL left by a kill is checkpointed) as well as while writing
        memory = Memory.open(db, SECRET, CFG, create=True)
        session = memory.start_session("crash", 1e9)
        person = memory.add_person().id
        while True:
            vec = rng.standard_normal(384).astype(np.float32)
            vec /= np.linalg.norm(vec)
            with memory.batch():
                uid = memory.add_utterance(
                    NewUtterance(
                        session,
                        person,
                        f"utterance {rng.integers(1e9)} about kites",
                        1e9,
                        1e9 + 1,
                        0.9,
                        "test",
                        False,
                        vec,
                    )
                )
                memory.add_key("voice", person, vec[:256] / np.linalg.norm(vec[:256]), 1.0, 4, "test", uid)
                if with_media:
                    memory.add_media("audio", rng.bytes(MEDIA_BYTES), 1e9, 1e9 + 1, 3600, session, person, uid)
            sys.stdout.write(f"{uid}\n")
            sys.stdout.flush()
    except DiskFullError as e:
        sys.stderr.write(f"error: {e}\n")
        if memory is not None:
            memory.close()
        return 8


def writer(db: Path, media: bool, **popen) -> subprocess.Popen:
    """Start a writer process on `db`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "app.bench_durability", str(db), "media" if media else "-"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def check(db: Path, committed: set[int]) -> int:
    """Raises AssertionError unless the memory is intact and holds every committed row; returns its rows."""
    with Memory.open(db, SECRET, CFG) as memory:
        con = memory.con
        if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise AssertionError("integrity_check failed")
        con.execute("INSERT INTO utterances_fts(utterances_fts) VALUES ('integrity-check')")
        ids = {r[0] for r in con.execute("SELECT id FROM utterances")}
        if not committed <= ids:
            raise AssertionError(f"lost committed rows {sorted(committed - ids)[:5]}")
        if con.execute("SELECT count(*) FROM utterances_vec").fetchone()[0] != len(ids):
            raise AssertionError("the vector index and the utterances disagree")
        for m in memory.media():
            if len(memory.vault.get(m.path)) != MEDIA_BYTES:
                raise AssertionError(f"media file {m.path} is not whole")
        return len(ids)


def kill_loop(db: Path, kills: int, seed: int = 42) -> dict:
    rng = np.random.default_rng(seed)
    committed: set[int] = set()
    rows = 0
    started = time.monotonic()
    for i in range(kills):
        proc = writer(db, media=i % 2 == 0)
        time.sleep(0.6 + float(rng.uniform(0.0, 0.5)))  # past start-up, in the middle of the writes
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        committed |= {int(line) for line in out.split()}
        rows = check(db, committed)
    return {
        "kills": kills,
        "acknowledged": len(committed),
        "rows": rows,
        "intact": True,
        "wall_s": round(time.monotonic() - started, 1),
    }


def bench_durability(kills: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        return kill_loop(Path(tmp) / "memory.db", kills)


def render(r: dict) -> str:
    return (
        f"{r['kills']} kill -9 during writes: the memory opened intact after each (integrity_check, FTS5 "
        f"integrity-check, vectors = rows) with all {r['acknowledged']} acknowledged rows "
        f"({r['rows']} in all) in {r['wall_s']} s\n"
    )


if __name__ == "__main__":
    sys.exit(write_until_stopped(Path(sys.argv[1]), sys.argv[2] == "media"))
