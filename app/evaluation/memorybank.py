"""`eval memorybank --data DIR`: a qualitative check on MemoryBank (SiliconFriend, English): each user's ten
days of chat with an AI companion are ingested (the user and "Companion" as people, each day's turns at
noon, a minute apart) into a temporary encrypted memory, and each of the 100 hand-written probing questions
is asked as the user (their words boosted), the day after the last chat (time expressions such as "on
April 27th" become filters). The set has no gold answers or evidence, so the output is the evidence found
for each question, for a person to judge.
"""

from __future__ import annotations

import json
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from app.config import Config
from app.errors import MediaError

COMPANION = "Companion"


def load(data: Path) -> dict[str, tuple[dict[str, list[dict]], list[str]]]:
    """user -> (history by ISO day, probing questions)."""
    try:
        bank = json.loads((data / "memory_bank_en.json").read_text())
        probes: dict[str, list[str]] = {}
        for line in (data / "probing_questions_en.jsonl").read_text().splitlines():
            if line.strip():
                for user, questions in json.loads(line).items():
                    probes[user.strip()] = questions
    except (OSError, ValueError) as e:
        raise MediaError(f"{data}: not the MemoryBank data folder ({e})") from None
    return {user.strip(): (entry["history"], probes.get(user.strip(), [])) for user, entry in bank.items()}


def _written(mem, embedder, question: str, top: int) -> list[dict]:
    """The facts and summaries nearest the question, with what they say."""
    written = mem.written()
    out = []
    for row, similarity in written.nearest(embedder([question])[0], top):
        kind, ident = written.kinds[row], written.ids[row]
        out.append(
            {"kind": kind, "id": ident, "text": mem.written_text(kind, ident), "similarity": round(similarity, 3)}
        )
    return out


def eval_memorybank(cfg: Config, data: Path, top: int = 3, with_memory: bool = False) -> dict:
    """The evidence each probing question finds; `with_memory`: each user's memory is written first (as
    `consolidate` does) and the facts and summaries nearest each question are listed too."""
    from app.context import find
    from app.perception import load_text_embedder
    from app.recall import Retriever
    from app.store.keys import Secret
    from app.store.memory import Memory, NewUtterance

    embedder = load_text_embedder(cfg)
    users = load(data)
    out: list[dict] = []
    written_cost = {"jobs": 0, "seconds": 0.0}
    llm = None
    if with_memory:
        from app.consolidation.consolidator import Consolidator
        from app.llm import load_llm

        llm = load_llm(cfg)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memorybank-") as tmp:
        for user, (history, questions) in users.items():
            with Memory.open(Path(tmp) / "m.db", Secret(b"memorybank", "eval"), cfg.store, create=True) as mem:
                ids = {user: mem.add_person(user).id, COMPANION: mem.add_person(COMPANION).id}
                last_day = None
                for day, pairs in sorted(history.items()):
                    noon = datetime.fromisoformat(day).replace(hour=12, tzinfo=timezone.utc)
                    turns = [
                        (who, text) for p in pairs for who, text in ((user, p["query"]), (COMPANION, p["response"]))
                    ]
                    vectors = embedder([t for _, t in turns])
                    with mem.batch():
                        session = mem.start_session(user, noon.timestamp())
                        for i, ((who, text), vec) in enumerate(zip(turns, vectors, strict=True)):
                            t = noon.timestamp() + 60 * i
                            mem.add_utterance(NewUtterance(session, ids[who], text, t, t + 30, 1.0, "text", False, vec))
                    last_day = noon
                now = (last_day or datetime.now(timezone.utc)) + timedelta(days=1)
                if with_memory:
                    mem.enqueue_backlog()
                    report = Consolidator(mem, llm, embedder, cfg).run()
                    written_cost["jobs"] += report.jobs
                    written_cost["seconds"] += report.seconds
                retriever = Retriever(mem, embedder, cfg.recall)
                for q in questions:
                    found = find(retriever, q, now, top, about=(user,))
                    span = found.window.epoch() if found.window and found.filtered else None
                    out.append(
                        {
                            "user": user,
                            "question": q,
                            "time_filter": [_day(t) for t in span] if span else None,
                            "evidence": [
                                {"person": h.person, "day": _day(h.t_start), "text": h.text, "score": h.score}
                                for h in found.evidence
                            ],
                            **({"memory": _written(mem, embedder, q, top)} if with_memory else {}),
                        }
                    )
            for path in Path(tmp).glob("m.db*"):
                path.unlink()
    if llm is not None:
        llm.close()
    return {
        "users": len(users),
        "questions": len(out),
        "seconds": round(time.perf_counter() - started, 1),
        **({"memory_jobs": written_cost["jobs"], "memory_s": round(written_cost["seconds"], 1)} if with_memory else {}),
        "answers": out,
    }


def _day(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d")


def render(r: dict) -> str:
    lines = [f"MemoryBank: {r['questions']} probing questions of {r['users']} users in {r['seconds']:.0f} s"]
    for a in r["answers"]:
        lines.append(
            f"\n{a['user']}: {a['question']}" + (f"  (between {a['time_filter']})" if a["time_filter"] else "")
        )
        for e in a["evidence"]:
            lines.append(f"   {e['day']} {e['person']}: {e['text'][:160]}")
        for m in a.get("memory", []):
            lines.append(f"   [{m['kind']} {m['id']}] {m['text'][:160]}")
    return "\n".join(lines) + "\n"
