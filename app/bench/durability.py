"""`bench durability --kills N`: kill -9 a writer N times mid-write; after each, the memory must open, pass
SQLite's and FTS5's integrity checks and hold every row whose commit was acknowledged.

The writer (`python -m app.bench.durability DB`) stores utterances with vectors, keys and media as fast as
it can, printing each id once its transaction has committed, until it is killed or the disk fills up. Each
writer is killed once it has acknowledged a random number of rows (read from its output, never guessed from
a clock), so every kill lands in the middle of the writes however slow the machine is.

`--consolidation`: the same for memory writing: `python -m app consolidate` (the real local LLM) on a queue
of 10N sessions of two of the demo's lines, killed N times at random points (loading the model, in the middle
of a generation, between jobs); after each kill the memory must be intact, every written session must have
exactly one summary and no fact may be doubled; then a last run finishes the queue, and every session must
be written exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from app.config import StoreConfig
from app.demo import SCRIPT
from app.errors import DiskFullError
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

SECRET = Secret(b"durability test key", "test")
CFG = StoreConfig(kdf_log2_n=10)
MEDIA_BYTES = 20_000
ROOT = Path(__file__).resolve().parent.parent
MOST_ROWS_BEFORE_KILL = 150  # a writer is killed after 1 to this many acknowledged rows (about 0.6 s of writes)
HANG_S = 300.0  # longest wait for a writer's rows: bounds a hang, never decides when a kill lands


def write_until_stopped(db: Path, with_media: bool) -> int:
    rng = np.random.default_rng()
    memory = None
    try:  # the disk may fill while opening (the WAL left by a kill is checkpointed) as well as while writing
        memory = Memory.open(db, SECRET, CFG, create=True)
        session = memory.turns.start_session("crash", 1e9)
        person = memory.people.add_person().id
        while True:
            vec = rng.standard_normal(384).astype(np.float32)
            vec /= np.linalg.norm(vec)
            with memory.batch():
                uid = memory.turns.add_utterance(
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
                memory.people.add_key("voice", person, vec[:256] / np.linalg.norm(vec[:256]), 1.0, 4, "test", uid)
                if with_media:
                    memory.media.add_media("audio", rng.bytes(MEDIA_BYTES), 1e9, 1e9 + 1, 3600, session, person, uid)
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
        [sys.executable, "-m", "app.bench.durability", str(db), "media" if media else "-"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def acknowledged(proc: subprocess.Popen, rows: int, timeout_s: float = HANG_S) -> set[int]:
    """The ids of the first `rows` rows the writer `proc` acknowledges, read as it prints them; fewer if it
    ends first. A writer still short of them after `timeout_s` is hung: it is killed, and its ids so far are
    returned."""
    assert proc.stdout is not None
    watchdog = threading.Timer(timeout_s, proc.kill)
    watchdog.start()
    ids: set[int] = set()
    try:
        while len(ids) < rows and (line := proc.stdout.readline()):
            ids.add(int(line))
    finally:
        watchdog.cancel()
    return ids


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
        for m in memory.media.rows():
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
        want = int(rng.integers(1, MOST_ROWS_BEFORE_KILL + 1))
        ids = acknowledged(proc, want)  # past start-up (the database exists), in the middle of the writes
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=HANG_S)
        if len(ids) < want:  # it ended by itself or hung: no kill of ours to check
            raise RuntimeError(f"a writer acknowledged {len(ids)} of {want} rows and ended: {err.strip()[-300:]}")
        committed |= ids | {int(line) for line in out.split()}
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


def _written_once(memory: Memory) -> tuple[int, int]:
    """(sessions written, facts) after checking that no session was written twice and no fact doubled."""
    con = memory.con
    if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        raise AssertionError("integrity_check failed")
    twice = con.execute(
        "SELECT session_id FROM summaries WHERE kind = 'session' GROUP BY session_id HAVING count(*) > 1"
    ).fetchall()
    if twice:
        raise AssertionError(f"sessions written twice: {[r[0] for r in twice]}")
    written = {r[0] for r in con.execute("SELECT id FROM sessions WHERE consolidated_at IS NOT NULL")}
    queued = {r[0] for r in con.execute("SELECT ref FROM consolidation_queue WHERE kind = 'session'")}
    every = {r[0] for r in con.execute("SELECT id FROM sessions")}
    if written & queued or (every - written) - queued:
        raise AssertionError("a session is both written and queued, or neither (lost)")
    facts = [(f["person"], f["value"]) for f in memory.derived.facts_listed(history=True)]
    if len(facts) != len(set(facts)):
        raise AssertionError("a fact was written twice")
    return len(written), len(facts)


def consolidation_kill_loop(cfg, kills: int, seed: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    embedder = load_text_embedder(cfg)
    sessions = 10 * kills  # more than the killed runs can finish: every kill lands mid-queue
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        with Memory.open(data / "memory.db", SECRET, CFG, create=True) as m:
            ids = {name: m.people.add_person(name).id for name in dict.fromkeys(name for name, _ in SCRIPT)}
            vectors = embedder([text for _, text in SCRIPT])
            for s in range(sessions):  # two lines each: jobs of a few seconds, so kills land everywhere
                session = m.turns.start_session("bench", 1e9 + s * 3600)
                for i in ((2 * s) % len(SCRIPT), (2 * s + 1) % len(SCRIPT)):
                    t0 = 1e9 + s * 3600 + 6 * i
                    name, text = SCRIPT[i]
                    m.turns.add_utterance(
                        NewUtterance(session, ids[name], text, t0, t0 + 5, 1.0, "t", False, vectors[i])
                    )
            m.writing.enqueue_backlog()
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "APP_KEY": SECRET.value.decode(),
            "APP_STORE_KDF_LOG2_N": str(CFG.kdf_log2_n),
            "APP_MEMORY_ATTEMPTS": str(kills + 5),  # killed jobs are tried again, never set aside here
        }
        command = [sys.executable, "-m", "app", "--data-dir", str(data), "consolidate", "--json"]
        started = time.monotonic()
        during = []
        for _ in range(kills):
            proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(float(rng.uniform(1.5, 10.0)))  # loading the model, or some jobs in
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            with Memory.open(data / "memory.db", SECRET, CFG) as m:
                during.append(_written_once(m)[0])
        done = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise AssertionError(f"the last run failed: {done.stderr.strip()[-300:]}")
        with Memory.open(data / "memory.db", SECRET, CFG) as m:
            written, facts = _written_once(m)
            left = m.writing.queue_state(kills + 5)["pending"]
        if written != sessions or left:
            raise AssertionError(f"{written} of {sessions} sessions written, {left} jobs left")
        return {
            "kills": kills,
            "sessions": sessions,
            "written_after_each_kill": during,
            "written_before_the_last_run": during[-1] if during else 0,
            "facts": facts,
            "lost": 0,
            "doubled": 0,
            "wall_s": round(time.monotonic() - started, 1),
        }


def render(r: dict) -> str:
    if "sessions" in r:
        return (
            f"{r['kills']} kill -9 of `consolidate` (real LLM): after each the memory was intact, no session written "
            f"twice, none lost; {r['written_before_the_last_run']} of {r['sessions']} sessions written between the "
            f"kills, the last run wrote the rest: {r['facts']} facts, {r['lost']} lost, {r['doubled']} doubled, "
            f"in {r['wall_s']} s\n"
        )
    return (
        f"{r['kills']} kill -9 during writes: the memory opened intact after each (integrity_check, FTS5 "
        f"integrity-check, vectors = rows) with all {r['acknowledged']} acknowledged rows "
        f"({r['rows']} in all) in {r['wall_s']} s\n"
    )


if __name__ == "__main__":
    sys.exit(write_until_stopped(Path(sys.argv[1]), sys.argv[2] == "media"))
