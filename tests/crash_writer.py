"""A writer process for the durability tests: stores utterances (with vectors and media) as fast as it can,
printing each id once its transaction has committed, until it is killed or the disk fills up."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from app.config import StoreConfig
from app.errors import DiskFullError
from app.store.keys import Secret
from app.store.memory import Memory, NewUtterance

SECRET = Secret(b"durability test key", "test")
CFG = StoreConfig(kdf_log2_n=10)


def main(db: str, with_media: str) -> int:
    rng = np.random.default_rng()
    memory = Memory.open(Path(db), SECRET, CFG, create=True)
    session = memory.start_session("crash", 1e9)
    person = memory.add_person().id
    try:
        while True:
            vec = rng.standard_normal(384).astype(np.float32)
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
                        vec / np.linalg.norm(vec),
                    )
                )
                memory.add_key("voice", person, vec[:256] / np.linalg.norm(vec[:256]), 1.0, 4, "test", uid)
                if with_media == "media":
                    memory.add_media("audio", rng.bytes(20_000), 1e9, 1e9 + 1, 3600, session, person, uid)
            sys.stdout.write(f"{uid}\n")
            sys.stdout.flush()
    except DiskFullError as e:
        sys.stderr.write(f"error: {e}\n")
        memory.close()
        return 8


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
