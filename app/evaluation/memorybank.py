"""`eval memorybank --data DIR`: a qualitative check on MemoryBank (SiliconFriend, English): each user's ten
days of chat with an AI companion are ingested (the user and "Companion" as people, each day's turns at
noon, a minute apart) into a temporary encrypted memory, and each of the 100 hand-written probing questions
is asked as the user (their words boosted), the day after the last chat (time expressions such as "on
April 27th" become filters). The set has no gold answers or evidence, so the output is the evidence found
for each question, for a person to judge.
"""

from __future__ import annotations

import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from app.ask.context import find
from app.ask.recall import Retriever
from app.config import Config
from app.consolidation.consolidator import Consolidator
from app.errors import MediaError
from app.evaluation.datasets import SHAPE_ERRORS, read_json, read_json_lines, shape_error
from app.evaluation.plots import boxes
from app.llm import load_llm
from app.recorder.perception import load_text_embedder
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

COMPANION = "Companion"
EXPECTED_BANK = 'MemoryBank\'s memory_bank_en.json ({user: {"history": {"2023-04-27": [{"query", "response"}]}}})'
EXPECTED_PROBES = 'MemoryBank\'s probing_questions_en.jsonl (one {"user": [question, ...]} a line)'


def load(data: Path) -> dict[str, tuple[dict[str, list[dict]], list[str]]]:
    """user -> (history by ISO day, probing questions)."""
    bank_file, probes_file = data / "memory_bank_en.json", data / "probing_questions_en.jsonl"
    bank = read_json(bank_file, EXPECTED_BANK)
    lines = read_json_lines(probes_file, EXPECTED_PROBES)
    try:
        probes = {user.strip(): list(questions) for line in lines for user, questions in line.items()}
    except SHAPE_ERRORS as e:
        raise shape_error(str(probes_file), e, EXPECTED_PROBES) from None
    if not any(probes.values()):
        raise MediaError(f"{probes_file} holds no questions: expected {EXPECTED_PROBES}")
    if not isinstance(bank, dict) or not bank:
        raise MediaError(f"{bank_file} holds no users: expected {EXPECTED_BANK}")
    users = {}
    for user, entry in bank.items():
        try:
            users[user.strip()] = (_history(entry["history"]), probes.get(user.strip(), []))
        except SHAPE_ERRORS as e:
            raise shape_error(f"{bank_file}, user {user.strip()!r}", e, EXPECTED_BANK) from None
    return users


def _history(history: dict) -> dict[str, list[dict]]:
    """{ISO day: [{query, response}]}, checked so that a file of another shape fails here."""
    out = {}
    for day, pairs in history.items():
        datetime.fromisoformat(day)  # the day is a date, or a ValueError names the user
        out[day] = [{"query": str(p["query"]), "response": str(p["response"])} for p in pairs]
    return out


def _written(mem, embedder, question: str, top: int) -> list[dict]:
    """The facts and summaries nearest the question, with what they say."""
    written = mem.derived.written()
    out = []
    for row, similarity in written.nearest(embedder([question])[0], top):
        kind, ident = written.kinds[row], written.ids[row]
        out.append(
            {
                "kind": kind,
                "id": ident,
                "text": mem.derived.written_text(kind, ident),
                "similarity": round(similarity, 3),
            }
        )
    return out


def eval_memorybank(
    cfg: Config, data: Path, top: int = 3, with_memory: bool = False, out_dir: Path | None = None
) -> dict:
    """The evidence each probing question finds; `with_memory`: each user's memory is written first (as
    `consolidate` does) and the facts and summaries nearest each question are listed too; `out_dir`: the
    evidence's scores by rank in memorybank.png."""
    users = load(data)
    embedder = load_text_embedder(cfg)
    out: list[dict] = []
    written_cost = {"jobs": 0, "seconds": 0.0}
    llm = None
    if with_memory:
        llm = load_llm(cfg)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memorybank-") as tmp:
        for user, (history, questions) in users.items():
            with Memory.open(Path(tmp) / "m.db", Secret(b"memorybank", "eval"), cfg.store, create=True) as mem:
                ids = {user: mem.people.add_person(user).id, COMPANION: mem.people.add_person(COMPANION).id}
                last_day = None
                for day, pairs in sorted(history.items()):
                    noon = datetime.fromisoformat(day).replace(hour=12, tzinfo=timezone.utc)
                    turns = [
                        (who, text) for p in pairs for who, text in ((user, p["query"]), (COMPANION, p["response"]))
                    ]
                    vectors = embedder([t for _, t in turns])
                    with mem.batch():
                        session = mem.turns.start_session(user, noon.timestamp())
                        for i, ((who, text), vec) in enumerate(zip(turns, vectors, strict=True)):
                            t = noon.timestamp() + 60 * i
                            mem.turns.add_utterance(
                                NewUtterance(session, ids[who], text, t, t + 30, 1.0, "text", False, vec)
                            )
                    last_day = noon
                now = (last_day or datetime.now(timezone.utc)) + timedelta(days=1)
                if with_memory:
                    mem.writing.enqueue_backlog()
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
    result = {
        "users": len(users),
        "questions": len(out),
        "seconds": round(time.perf_counter() - started, 1),
        **({"memory_jobs": written_cost["jobs"], "memory_s": round(written_cost["seconds"], 1)} if with_memory else {}),
        "answers": out,
    }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result["plot"] = plot(result, top, out_dir / "memorybank.png")
    return result


def plot(r: dict, top: int, path: Path) -> str | None:
    """The retrieval score of the evidence at each rank. The set has no gold answers or evidence, so no
    recall can be computed: the plot shows how clearly the first hit stands out, the JSON what it is."""
    ranks = {
        f"{rank + 1}": [a["evidence"][rank]["score"] for a in r["answers"] if len(a["evidence"]) > rank]
        for rank in range(top)
    }
    ranks = {rank: scores for rank, scores in ranks.items() if scores}
    title = f"MemoryBank: the evidence found for {r['questions']} probing questions\n(no gold answers: judge the JSON)"
    return boxes(path, ranks, ("rank of the evidence", "retrieval score", title))


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
    if r.get("plot"):
        lines.append(f"\nplot: {r['plot']}")
    return "\n".join(lines) + "\n"
