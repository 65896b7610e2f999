"""`eval facts --spoken`: the memory written from the gold scenes when they are said aloud and heard by the real
recorder, against the same gold facts as `eval facts` (text).

Each scene is spoken (app/evaluation/spoken.py: a flite voice per speaker, conversational timing, or with
`--paused` 1.2 s between lines) and recorded as `run --source FILE` records it (the whole recorder, the file's
origin at the scene's start, a temporary encrypted memory); scenes that share a memory are recorded into it one
after the other. Memory is then written exactly as `eval facts` writes it (the Consolidator, the configured
extractor and model), and the facts and relations written are scored with `facts.score`, after two
translations that audio forces:
- lines: a stored utterance stands for the line it overlaps most in time, and for every line it overlaps more
  than any other utterance does (a line split in two is cited by either half; one utterance holding two lines
  cites both);
- people: each person the recorder made is the gold speaker whose lines their utterances overlap most, so a fact
  about them counts as about that speaker (and "unknown_3" in its text reads as that speaker's name); a person
  whose utterances overlap no line is nobody, and what is written about them matches nothing. People the
  recorder never heard (those named in what was said: "my wife Sarah") keep their names.
Reported per scene and pooled: recall, precision, kind and date as `eval facts` counts them; the people the
recorder made against the scene's speakers and how each maps; the items about unnamed people; every written item
that matched no gold fact, with the words it cites.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from app.audio.media import write_media
from app.config import Config
from app.consolidation.consolidator import Consolidator
from app.evaluation import facts_held_out
from app.evaluation.answers import share
from app.evaluation.facts import GOLD_FACTS, THRESHOLD, score, tally, written
from app.evaluation.gold import SCENES, GoldFact, Scene
from app.evaluation.spoken import SpokenScene, render, timing_of
from app.identity.naming import AUTO_NAME, as_known
from app.recorder.pipeline import Recorder
from app.recorder.sources import FileSource
from app.store.keys import Secret
from app.store.memory import Memory

SECRET = Secret(b"eval facts spoken", "eval")
SAID_AUTO_NAME = re.compile(rf"\b{AUTO_NAME.pattern}\b", re.IGNORECASE)  # "Unknown_2 went hiking ..." too
Span = tuple[float, float]  # (start, end), seconds


def overlap(a: Span, b: Span) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def lines_of(utterances: list[Span], lines: list[Span]) -> list[set[int]]:
    """For each utterance, the indexes of the lines it stands for: the one it overlaps most, and every line it
    overlaps more than any other utterance does (none: it overlaps no line)."""
    out: list[set[int]] = [set() for _ in utterances]
    if not utterances or not lines:
        return out
    m = np.array([[overlap(u, line) for line in lines] for u in utterances])
    for u in range(len(utterances)):
        if m[u].max() > 0:
            out[u].add(int(m[u].argmax()))
    for k in range(len(lines)):
        if m[:, k].max() > 0:
            out[int(m[:, k].argmax())].add(k)
    return out


def speakers_of(said: list[tuple[str | None, Span]], lines: list[tuple[str, Span]]) -> dict[str, dict]:
    """Each person who spoke: the gold speaker whose lines their utterances overlap most (None: no line), and the
    seconds of overlap with each speaker's lines."""
    seconds: dict[str, dict[str, float]] = {}
    for person, span in said:
        if person is None:
            continue
        mine = seconds.setdefault(person, {})
        for speaker, line in lines:
            if (s := overlap(span, line)) > 0:
                mine[speaker] = mine.get(speaker, 0.0) + s
    return {
        p: {
            "speaker": max(by, key=by.__getitem__) if by else None,
            "seconds": {k: round(v, 2) for k, v in sorted(by.items(), key=lambda kv: -kv[1])},
        }
        for p, by in seconds.items()
    }


def as_gold(item: dict, who: dict[str, dict], lines: dict[int, set[int]], names: Sequence[str] = ()) -> dict:
    """A written item read in the gold's terms: its person the gold speaker the recorder's person is (nobody: ""),
    recorder names in its text as that speaker's, a name the recognizer spelled otherwise that sounds like exactly
    one of the gold's `names` as the gold spells it (`naming.as_known`, as a question asked with the gold's
    spelling reads the memory's: "Hannah" heard for Hana, "Meela" for Mila), its sources the lines its utterances
    stand for."""
    person = item["person"]
    # as_known reads a text's first word as a name only when it is a given name; "of " puts the name past it
    mapped = (who[person]["speaker"] or "") if person in who else as_known(f"of {person}", names)[3:]

    def name(m: re.Match) -> str:
        return who.get(m.group(0).lower(), {}).get("speaker") or m.group(0)

    return {
        **item,
        "person": mapped,
        "text": as_known(
            re.sub(rf"\b{re.escape(person)}\b", mapped or person, SAID_AUTO_NAME.sub(name, item["text"])), names
        ),
        "sources": set().union(*(lines.get(u, set()) for u in item["sources"])),
        "written_person": person,
        "cited": sorted(item["sources"]),
    }


def record(cfg: Config, models, memory: Memory, spoken: SpokenScene, folder: Path) -> dict:
    """Record the spoken scene into `memory` as `run --source FILE` does; the run's summary."""
    wav = folder / f"{spoken.scene.name}-{spoken.timing}.wav"
    write_media(wav, spoken.audio)
    source = FileSource(wav, cfg, name=f"file:{wav.name}", realtime=False, origin_epoch_s=spoken.origin_epoch_s)
    started = time.perf_counter()
    summary = asyncio.run(Recorder(cfg, memory, models, source).run()).as_dict()
    return summary | {"record_s": round(time.perf_counter() - started, 1)}


def spoken_facts(
    cfg: Config,
    models,
    llm,
    scenes: dict[str, Scene],
    golds: list[GoldFact],
    timing: str = "conversational",
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Speak, record, write and score every memory of `scenes` (see the module's text); per scene and pooled."""
    say = progress or (lambda _: None)
    cfg = dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, background=False))
    out: dict = {"scenes": {}, "rows": [], "unmatched": [], "people": {}, "speakers": {}, "written": 0, "matching": 0}
    with tempfile.TemporaryDirectory(prefix="eval-facts-spoken-") as tmp:
        for name in dict.fromkeys(s.memory for s in scenes.values()):
            with Memory.open(Path(tmp) / f"{name}.db", SECRET, cfg.store, create=True) as memory:
                spokens, runs = [], {}
                for scene in (s for s in scenes.values() if s.memory == name):
                    spokens.append(render(scene, timing, seed))
                    runs[scene.name] = record(cfg, models, memory, spokens[-1], Path(tmp))
                    say(
                        f"{scene.name}: recorded {runs[scene.name]['utterances']} utterances of {len(scene.lines)} "
                        f"lines in {runs[scene.name]['record_s']} s"
                    )
                started = time.perf_counter()
                report = Consolidator(memory, llm, models.text, cfg).run()
                write_s = round(time.perf_counter() - started, 1)
                say(f"memory {name}: written in {write_s} s")
                mine = _score(memory, spokens, [g for g in golds if scenes[g.scene].memory == name], models.text)
            for s in spokens:
                row = mine["scenes"][s.scene.name]
                row |= {"timing": timing_of(s), "voices": s.voices, "recorder": _run(runs[s.scene.name])}
                row["recorder"]["memory_write_s"] = write_s
                row["recorder"]["memory_failed_jobs"] = report.failed
                out["scenes"][s.scene.name] = row
            out["people"][name] = mine["people"]
            out["speakers"][name] = sorted({p.speaker for s in spokens for p in s.lines})
            for key in ("rows", "unmatched"):
                out[key] += mine[key]
            out["written"] += mine["written"]
            out["matching"] += mine["matching"]
    return out


def _run(summary: dict) -> dict:
    keep = ("utterances", "people", "new_people", "skipped", "record_s", "real_time_factor", "errors")
    return {k: summary.get(k) for k in keep}


def heard_against_said(memory: Memory, spokens: list[SpokenScene]) -> tuple[list, list, list[set[int]], dict]:
    """The memory's utterances against the lines the scenes said: every line as placed (its scene, the line), the
    utterances, the indexes of the placed lines each stands for (`lines_of`) and the speaker each person made is
    (`speakers_of`)."""
    placed = [(s, p) for s in spokens for p in s.lines]
    spans = [(s.origin_epoch_s + p.start_s, s.origin_epoch_s + p.end_s) for s, p in placed]
    utts = memory.turns.all_utterances()
    stands = lines_of([(u.t_start, u.t_end) for u in utts], spans)
    who = speakers_of(
        [(u.person, (u.t_start, u.t_end)) for u in utts],
        [(p.speaker, sp) for (_, p), sp in zip(placed, spans, strict=True)],
    )
    return placed, utts, stands, who


def _score(memory: Memory, spokens: list[SpokenScene], golds: list[GoldFact], embedder) -> dict:
    """One memory's written items scored against its gold facts, split by scene."""
    placed, utts, stands, who = heard_against_said(memory, spokens)
    keys = {(p.scene, p.line): k for k, (_, p) in enumerate(placed)}
    by_uid = {u.id: stands[i] for i, u in enumerate(utts)}
    scene_of = {u.id: _scene_at(spokens, (u.t_start + u.t_end) / 2) for u in utts}
    texts = {u.id: u.text for u in utts}
    names = sorted({g.person for g in golds} | {p.speaker for _, p in placed})
    items = [as_gold(x, who, by_uid, names) for x in written(memory)]
    rows, hits = score(golds, keys, items, embedder)
    for row, gold in zip(rows, golds, strict=True):
        row["scene"], row["line"] = gold.scene, gold.line
    item_scene = [scene_of[min(x["cited"])] if x["cited"] else spokens[0].scene.name for x in items]
    out: dict = {"scenes": {}, "rows": rows, "people": who, "written": len(items), "matching": len(hits)}
    out["unmatched"] = [
        {
            "scene": item_scene[j],
            "person": x["written_person"],
            "as": x["person"],
            "text": x["text"],
            "kind": x["kind"],
            "lines": sorted(f"{placed[k][1].scene}:{placed[k][1].line}" for k in x["sources"]),
            "cited": [texts.get(u, "?") for u in x["cited"]],
        }
        for j, x in enumerate(items)
        if j not in hits
    ]
    for s in spokens:
        name = s.scene.name
        mine = [j for j in range(len(items)) if item_scene[j] == name]
        heard = [(u, stands[i]) for i, u in enumerate(utts) if scene_of[u.id] == name]
        people = {u.person for u, _ in heard if u.person}
        lines_hit = [k for _, ls in heard for k in ls]
        out["scenes"][name] = {
            "memory": s.scene.memory,
            **tally([r for r in rows if r["scene"] == name], len(mine), len(hits & set(mine))),
            "speakers": len({p.speaker for p in s.lines}),
            "people": len(people),
            "named": sorted(p for p in people if not AUTO_NAME.fullmatch(p)),
            "as": {p: who[p]["speaker"] for p in sorted(people)},
            "about_unnamed": sum(bool(AUTO_NAME.fullmatch(items[j]["written_person"])) for j in mine),
            "utterances": len(heard),
            "without_person": sum(u.person is None for u, _ in heard),
            "lines_split": sum(lines_hit.count(keys[(name, p.line)]) > 1 for p in s.lines),
            "utterances_holding_lines": sum(len(ls) > 1 for _, ls in heard),
            "lines_unheard": sum(keys[(name, p.line)] not in lines_hit for p in s.lines),
            "heard": [  # times in seconds from the recording's start, as the lines' are
                {
                    "person": u.person,
                    "start_s": round(u.t_start - s.origin_epoch_s, 2),
                    "end_s": round(u.t_end - s.origin_epoch_s, 2),
                    "lines": sorted(placed[k][1].line for k in ls),
                    "text": u.text,
                }
                for u, ls in heard
            ],
            "lines": [dataclasses.asdict(p) for p in s.lines],
        }
    return out


def _scene_at(spokens: list[SpokenScene], t: float) -> str:
    """The scene whose recording holds wall-clock time `t` (the nearest one if none does)."""
    return min(spokens, key=lambda s: max(0.0, s.origin_epoch_s - t, t - s.origin_epoch_s - s.duration_s)).scene.name


def eval_facts_spoken(
    cfg: Config,
    out_dir: Path | None = None,
    held_out: bool = False,
    paused: bool = False,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """The gold scenes (`held_out`: the held-out ones) spoken with conversational timing (`paused`: 1.2 s
    between lines), recorded, written and scored; the result, also in `out_dir`."""
    from app.llm import load_llm
    from app.recorder.perception import load_perception

    if held_out:
        which, scenes, golds = "held-out", facts_held_out.SCENES, facts_held_out.FACTS
    else:
        which, scenes, golds = "gold", SCENES, GOLD_FACTS
    timing = "paused" if paused else "conversational"
    started = time.perf_counter()
    models = load_perception(cfg, with_faces=False)  # a WAV has no video: `run --source FILE` loads no faces
    llm = load_llm(cfg)
    try:
        r = spoken_facts(cfg, models, llm, scenes, list(golds), timing, seed, progress)
    finally:
        llm.close()
    result = {
        "set": which,
        "timing": timing,
        "seed": seed,
        "model": cfg.llm.model,
        "extractor": cfg.memory.extractor,
        "asr": models.asr.name,
        "threshold": THRESHOLD,
        **pooled(r),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = f"facts_spoken_{timing}" + ("_held_out" if held_out else "")
        (out_dir / f"{stem}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return result


def pooled(r: dict) -> dict:
    """The scenes' figures and their pool (recall, precision, kind, date over every gold fact and written item)."""
    scenes = r["scenes"]
    made = [(p, v) for people in r["people"].values() for p, v in people.items()]
    return {
        **tally(r["rows"], r["written"], r["matching"]),
        "speakers": sum(len(s) for s in r["speakers"].values()),  # each memory's, scenes that share it together
        "people_made": sum(len(p) for p in r["people"].values()),
        # the people the recorder named (by an introduction, or by what the others called them) and who they are
        "named_right": sum(p == v["speaker"] for p, v in made),
        "named_wrong": sum(p != v["speaker"] and not AUTO_NAME.fullmatch(p) for p, v in made),
        "about_unnamed": sum(s["about_unnamed"] for s in scenes.values()),
        "share_about_unnamed": share(sum(s["about_unnamed"] for s in scenes.values()), r["written"]),
        "scenes": scenes,
        "people": r["people"],
        "rows": r["rows"],
        "unmatched": r["unmatched"],
    }


def _scores(s: dict) -> str:
    """gold, written, recall, precision, kind and date ("-": nothing to count them over)."""
    cells = [(s["recall"], s["gold"]), (s["precision"], s["written"]), (s["kind_accuracy"], s["recall"])]
    cells.append((s["date_accuracy"], s["dated_matched"]))
    return f"{s['gold']:4d} {s['written']:4d} " + " ".join(f"{100 * v:6.1f}" if n else f"{'-':>6s}" for v, n in cells)


def render_result(r: dict) -> str:
    lines = [
        f"eval facts --spoken ({r['set']}, {r['timing']} timing, seed {r['seed']}): {r['gold']} gold facts, "
        f"{r['written']} written ({r['extractor']}, model {r['model']}, recognizer {r['asr']}; a match: the "
        f"speaker the person mostly is, cites a line the utterance overlaps most, cosine >= {r['threshold']})",
        f"{'scene':20s} {'lines':>5s} {'utts':>4s} {'people':>6s} {'gold':>4s} {'writ':>4s} {'recall':>6s} "
        f"{'prec':>6s} {'kind':>6s} {'date':>6s} {'unnamed':>7s}  overlaps, median offset",
    ]
    for name, s in r["scenes"].items():
        t = s["timing"]
        lines.append(
            f"{name:20s} {t['lines']:5d} {s['utterances']:4d} {s['people']:>3d}/{s['speakers']:<2d} {_scores(s)} "
            f"{s['about_unnamed']:7d}  {t['overlaps']}, {t['median_offset_s']:.2f} s"
        )
    lines.append(
        f"{'pooled':20s} {'':5s} {sum(s['utterances'] for s in r['scenes'].values()):4d} "
        f"{r['people_made']:>3d}/{r['speakers']:<2d} {_scores(r)} {r['about_unnamed']:7d}  ({r['wall_s']:.0f} s in all)"
    )
    lines.append(f"  people named: {r['named_right']} right, {r['named_wrong']} wrong, of {r['people_made']} made")
    for memory, people in r["people"].items():
        who = ", ".join(f"{p} -> {v['speaker'] or 'nobody'} {v['seconds']}" for p, v in people.items())
        lines.append(f"  people of memory {memory}: {who}")
    for name, s in r["scenes"].items():
        odd = (s["lines_split"], s["utterances_holding_lines"], s["lines_unheard"], s["without_person"])
        if any(odd):
            lines.append(
                f"  {name}: {odd[0]} lines split, {odd[1]} utterances holding several lines, {odd[2]} lines "
                f"unheard, {odd[3]} utterances without a person"
            )
    for row in (x for x in r["rows"] if not x["matched"]):
        lines.append(f"  --- {row['scene']}:{row['line']} {row['gold']!r} ({row['kind']}) <- {row['written']!r}")
    for x in r["unmatched"]:
        lines.append(
            f"  +   {x['scene']} {x['person']} (as {x['as'] or 'nobody'}): {x['text']!r} [{x['kind']}] "
            f"lines {','.join(x['lines']) or '-'}; cites {x['cited']!r}"
        )
    return "\n".join(lines) + "\n"
