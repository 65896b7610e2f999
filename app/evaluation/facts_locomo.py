# ruff: noqa: E501  (the facts are kept whole, as they were written)
"""`eval facts --locomo`: two LoCoMo sessions (conv-41 session 1, conv-49 session 1) and the atomic facts a careful
person would write down from them, written blind from the turns alone by a helper session that never read the
extraction rules, LoCoMo's own observations or this evaluation. The sessions' text is read from the shared
dataset at run time (never copied here); a line is the 0-based turn of its session. Never tuned on, but for one
rule of kind read off its misses (what someone is excited to do is a plan; README, Memory writing), so its kind
figure is no longer blind by one fact.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from app.errors import MediaError
from app.evaluation.gold import GoldFact, Scene
from app.evaluation.locomo import read_samples, session_time, turn_text

SESSIONS: tuple[tuple[str, int], ...] = (("conv-41", 1), ("conv-49", 1))

FACTS: tuple[GoldFact, ...] = (
    # conv-41 session 1, Saturday 17 December 2022 (John and Maria)
    GoldFact("conv-41/1", 1, "John", "John got back from a family road trip", "event", "2022-12-16"),
    GoldFact("conv-41/1", 2, "Maria", "Maria volunteers at a homeless shelter", "habit", None),
    GoldFact("conv-41/1", 2, "Maria", "Maria works on keeping fit", "habit", None),
    GoldFact("conv-41/1", 2, "Maria", "Maria started doing aerial yoga", "event", None),
    GoldFact("conv-41/1", 2, "Maria", "Maria thinks aerial yoga is great", "preference", None),
    GoldFact("conv-41/1", 3, "John", "John does kickboxing", "habit", None),
    GoldFact("conv-41/1", 3, "John", "John finds that kickboxing gives him a lot of energy", "preference", None),
    GoldFact("conv-41/1", 5, "John", "John hopes to get into local politics", "plan", None),
    GoldFact("conv-41/1", 5, "John", "John loves helping the community", "preference", None),
    GoldFact(
        "conv-41/1", 7, "John", "John is passionate about improving education in his community", "preference", None
    ),
    GoldFact(
        "conv-41/1",
        7,
        "John",
        "John is passionate about improving infrastructure in his community",
        "preference",
        None,
    ),
    GoldFact(
        "conv-41/1",
        9,
        "John",
        "John grew up in a neighborhood affected by a lack of education and crumbling infrastructure",
        "attribute",
        None,
    ),
    GoldFact(
        "conv-41/1", 9, "John", "John thinks schools and infrastructure should be funded properly", "preference", None
    ),
    GoldFact(
        "conv-41/1",
        13,
        "John",
        "John is going to talk with local leaders and organizations to get support and ideas for his next political move",
        "plan",
        None,
    ),
    # conv-49 session 1, Thursday 18 May 2023 (Evan and Sam)
    GoldFact("conv-49/1", 1, "Evan", "Evan got back from a trip with his family", "event", None),
    GoldFact("conv-49/1", 1, "Evan", "Evan has a new Prius", "attribute", None),
    GoldFact("conv-49/1", 3, "Evan", "Evan's old Prius broke down", "event", None),
    GoldFact("conv-49/1", 3, "Evan", "Evan is getting his old Prius repaired to sell it", "plan", None),
    GoldFact("conv-49/1", 3, "Evan", "Evan went to the Rockies with his family", "event", None),
    GoldFact("conv-49/1", 5, "Evan", "Evan hiked trails in the Rockies with his family", "event", "2023-05-11"),
    GoldFact("conv-49/1", 6, "Sam", "Sam loves hiking", "preference", None),
    GoldFact("conv-49/1", 6, "Sam", "Sam has not been hiking in ages", "attribute", None),
    GoldFact("conv-49/1", 6, "Sam", "Sam went on a hike with his dad when he was ten", "event", None),
    GoldFact("conv-49/1", 10, "Sam", "Sam is thinking about trying painting", "plan", None),
    GoldFact("conv-49/1", 12, "Sam", "Sam has never tried painting", "attribute", None),
    GoldFact("conv-49/1", 13, "Evan", "Evan started painting a few years ago", "event", None),
    GoldFact("conv-49/1", 13, "Evan", "Evan finds painting a great stress-buster", "preference", None),
    GoldFact("conv-49/1", 14, "Evan", "Evan does watercolor painting", "habit", None),
    GoldFact("conv-49/1", 15, "Evan", "A friend got Evan into watercolor painting", "event", None),
    GoldFact("conv-49/1", 15, "Evan", "Evan was hooked on watercolor painting right away", "preference", None),
    GoldFact("conv-49/1", 18, "Sam", "Sam is going to try new things to find a hobby", "plan", None),
)


def scenes(path: Path) -> dict[str, Scene]:
    """`SESSIONS` as scenes read from the LoCoMo file at `path`, each into a memory of its own."""
    by_id = {s.get("sample_id"): s for s in read_samples(path)}
    out = {}
    for sample_id, n in SESSIONS:
        if sample_id not in by_id:
            raise MediaError(
                f"{path}: no conversation {sample_id} (the LoCoMo gold facts are written for locomo10.json)"
            )
        conv = by_id[sample_id]["conversation"]
        name = f"{sample_id}/{n}"
        start = datetime.fromtimestamp(session_time(conv[f"session_{n}_date_time"]), timezone.utc)
        lines = tuple((t["speaker"], turn_text(t)) for t in conv[f"session_{n}"])
        out[name] = Scene(name, lines, start.isoformat(), name)
    return out
