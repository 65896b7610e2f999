"""`eval lifelog --spoken`: the lifelog questions asked of a memory the recorder heard, not read.

Each of a set's scenes is said aloud (app/evaluation/spoken.py: conversational timing by default, `--paused` 1.2 s
between lines) and recorded, in the order of its days, into one temporary encrypted memory as `run --source FILE`
records it (each file's origin at the scene's start); memory is then written as the recorder writes it (the
Consolidator, the configured model), the wearer made its owner as `enroll --me` would (the person the recorder
made of the wearer's lines), and every question asked as `eval lifelog` asks it. A set has up to 13 speakers, so each
speaker keeps one voice over every scene from `VOICES`, the wearer, who speaks most, first: flite's four 16-kHz
voices, Piper's joe (models/piper-joe) and two of espeak-ng's, then six of these played 1.25 or 0.8 times as fast
(speed perturbation, as speech corpora make new speakers), each chosen as the least like those before it. For
Resemblyzer, four sentences of one voice are 0.90-0.96 alike and no two of the thirteen voices more than 0.73 (rms
and awb), under the recorder's bar (`identity.voice_threshold` 0.75); flite's four played 1.16 or 0.86 times as
fast were 0.74-0.82 like their own voices, and the recorder heard each as its own voice's person.

What audio forces, read as `eval facts --spoken` reads it (app/evaluation/facts_spoken.py): a cited utterance
stands for the lines it overlaps most in time; a person the recorder made is the speaker whose lines they mostly
spoke, so "unknown_3" in an answer reads as that speaker's name, and a name the recognizer spelled otherwise that
sounds like exactly one of the set's reads as the set spells it ("Hannah" for Hana). A question someone other than
the wearer asks is asked by the person the recorder made of them. The people named by the recorder (by an
introduction or by what others call them) are counted beside the answers: an answer that names someone the
recorder never named is right here only through that reading. With `named` (`--named`), the wearer has named
everyone once, as on the web page: each person the recorder made renamed to the speaker they mostly are, or merged
into the person of that name; what the recorder joined (two speakers heard as one person) stays joined.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.ask.answer import Answerer
from app.companion.tts import CommandVoice, PiperVoice, Voice
from app.config import Config
from app.consolidation.consolidator import Consolidator
from app.demo import STRETCH, speak
from app.evaluation import spoken
from app.evaluation.facts_spoken import SAID_AUTO_NAME, heard_against_said, record
from app.evaluation.lifelog import SETS, ask_all, tally, tally_lines
from app.evaluation.spoken import Speak, SpokenScene, perturbed
from app.identity.naming import AUTO_NAME, as_known
from app.store.keys import Secret
from app.store.memory import Memory

SECRET = Secret(b"eval lifelog spoken", "eval")
# chosen one by one, each the least like the voices before it (four sentences each, Resemblyzer)
PERTURBED = ("espeak:en-us+f2*1.25", "piper*0.8", "piper*1.25", "espeak:en-us+f2*0.8", "awb*1.25", "slt*0.8")
ESPEAK_WPM = 150  # espeak-ng's words a minute: about flite's at the demo's rate
VOICES = (  # the seven that are voices of their own first, then six played faster or slower (the module's text)
    *("slt", "rms", "kal16", "awb", "piper", "espeak:en-us", "espeak:en-us+f2"),
    *PERTURBED,
)


def speaker(models_dir: Path) -> Speak:
    """say(text, voice): `text` in a voice of `VOICES` ("piper": Piper's joe under `models_dir`; "espeak:V":
    espeak-ng's V; else flite's at the demo's rate; "*F": played F times as fast), 16 kHz mono float32."""
    loaded: dict[str, Voice] = {}

    def say(text: str, voice: str) -> np.ndarray:
        name, _, factor = voice.partition("*")
        if name == "piper" or name.startswith("espeak:"):
            if name not in loaded:
                espeak = name.partition(":")[2]
                loaded[name] = (
                    PiperVoice.load(models_dir) if name == "piper" else CommandVoice.espeak_ng(espeak, ESPEAK_WPM)
                )
            audio = loaded[name].speak_16k(text)
        else:
            audio = speak(text, name, STRETCH)
        return perturbed(audio, float(factor or 1.0))

    return say


def voices_of(scenes) -> dict[str, str]:
    """Each speaker of the set's scenes one voice of `VOICES`, the one who says most lines first."""
    said: dict[str, int] = {}
    for scene in scenes:
        for speaker, _ in scene.lines:
            said[speaker] = said.get(speaker, 0) + 1
    speakers = sorted(said, key=lambda s: (-said[s], s))
    if len(speakers) > len(VOICES):
        raise ValueError(f"{len(speakers)} speakers and {len(VOICES)} voices")
    return dict(zip(speakers, VOICES, strict=False))


def eval_lifelog_spoken(
    cfg: Config,
    which: str = "tuning",
    timing: str = "conversational",
    seed: int = 0,
    limit: int | None = None,
    out_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    named: bool = False,
) -> dict:
    """The set's scenes spoken, recorded, written and questioned (the module's text) with the configured models;
    the result, and in `out_dir` each answer in lifelog_spoken_TIMING[_named].jsonl."""
    from app.llm import load_llm
    from app.recorder.perception import load_perception

    data = importlib.import_module(SETS[which])
    models = load_perception(cfg, with_faces=False)  # a WAV has no video: `run --source FILE` loads no faces
    llm = load_llm(cfg)
    try:
        result = spoken_lifelog(cfg, models, llm, data, limit, timing, seed, progress, named) | {"set": which}
    finally:
        llm.close()
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = f"lifelog_spoken_{timing}" + ("_named" if named else "")
        rows = result["rows"]
        (out_dir / f"{stem}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        kept = {k: v for k, v in result.items() if k != "rows"}
        (out_dir / f"{stem}.json").write_text(json.dumps(kept, indent=1, ensure_ascii=False))
    return result


def spoken_lifelog(
    cfg: Config,
    models,
    llm,
    data,
    limit: int | None = None,
    timing: str = "conversational",
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    named: bool = False,
) -> dict:
    """A lifelog set (`data`: its SCENES, QUESTIONS, WEARER, ASKED_AT) spoken, recorded, written and questioned:
    the tally per kind, the people made against the speakers, every answer."""
    tell = progress or (lambda _: None)
    say = speaker(cfg.models_dir)
    questions = data.QUESTIONS[:limit] if limit else data.QUESTIONS
    scenes = sorted(data.SCENES.values(), key=lambda s: s.start)
    voices = voices_of(scenes)
    cfg = dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, background=False))
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="eval-lifelog-spoken-") as tmp,
        Memory.open(Path(tmp) / "lifelog.db", SECRET, cfg.store, create=True) as memory,
    ):
        spokens: list[SpokenScene] = []
        for scene in scenes:
            spokens.append(spoken.render(scene, timing, seed, say, voices))
            run = record(cfg, models, memory, spokens[-1], Path(tmp))
            (Path(tmp) / f"{scene.name}-{timing}.wav").unlink()
            tell(f"{scene.name}: {run['utterances']} utterances of {len(scene.lines)} lines, {run['record_s']} s")
        written = time.perf_counter()
        report = Consolidator(memory, llm, models.text, cfg).run()
        write_s = round(time.perf_counter() - written, 1)
        tell(f"memory written in {write_s} s")
        heard = _heard(memory, spokens)
        if named:
            _name_everyone(memory, heard)
        wearer = heard["as"].get(data.WEARER)
        if wearer:
            memory.people.set_owner(wearer)
        names = sorted({p for s in scenes for p, _ in s.lines})
        rows = ask_all(
            Answerer(llm, memory, models.text, cfg),
            data,
            questions,
            lambda uid: heard["lines"].get(uid, []),
            lambda text: _in_set_terms(text, heard["people"], names),
            lambda asker: heard["as"].get(asker, asker) if asker else asker,
        )
    people = heard["people"]
    return tally(rows) | {
        "model": cfg.llm.model,
        "timing": timing,
        "seed": seed,
        "named": named,
        "voices": voices,
        "speakers": len(voices),
        "people_made": len(people),
        "named_right": sum(p == v["speaker"] for p, v in people.items()),
        "named_wrong": sum(p != v["speaker"] and not AUTO_NAME.fullmatch(p) for p, v in people.items()),
        "wearer_as": wearer,
        "utterances": heard["utterances"],
        "lines": sum(len(s.lines) for s in scenes),
        "memory_write_s": write_s,
        "memory_failed_jobs": report.failed,
        "wall_s": round(time.perf_counter() - started, 1),
        "people": people,
        "rows": rows,
    }


def eval_lifelogs_spoken(
    cfg: Config,
    which: tuple[str, ...],
    timing: str = "conversational",
    seed: int = 0,
    limit: int | None = None,
    out_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    named: bool = False,
) -> dict:
    """`eval_lifelog_spoken` for each set named, one after the other (`out_dir`: a folder for each)."""
    return {
        "sets": [
            eval_lifelog_spoken(cfg, w, timing, seed, limit, out_dir / w if out_dir else None, progress, named)
            for w in which
        ]
    }


def render(result: dict) -> str:
    return "".join(render_result(r) for r in result["sets"])


def _heard(memory: Memory, spokens: list[SpokenScene]) -> dict:
    """The memory's utterances in the set's terms: the lines each stands for, the speaker each person made is, and
    the person made of each speaker (of those the recorder made someone of)."""
    placed, utts, stands, people = heard_against_said(memory, spokens)
    made: dict[str, tuple[float, str]] = {}  # speaker -> (seconds, the person made of most of them)
    for person, v in people.items():
        if v["speaker"] and v["seconds"][v["speaker"]] > made.get(v["speaker"], (0.0, ""))[0]:
            made[v["speaker"]] = (v["seconds"][v["speaker"]], person)
    return {
        "lines": {
            u.id: [(placed[k][1].scene, placed[k][1].line) for k in sorted(ks)]
            for u, ks in zip(utts, stands, strict=True)
        },
        "people": people,
        "as": {speaker: person for speaker, (_, person) in made.items()},
        "utterances": len(utts),
    }


def _name_everyone(memory: Memory, heard: dict) -> None:
    """Each person the recorder made named as the speaker they mostly are, or merged into the person already so
    named (`heard` then says each speaker is their own name)."""
    for person, v in heard["people"].items():
        speaker = v["speaker"]
        if not speaker or person == speaker:
            continue
        if memory.people.person_id(speaker) is None:
            memory.people.rename_person(person, speaker)
        else:
            memory.people.merge_people(speaker, person)
        heard["as"][speaker] = speaker


def _in_set_terms(text: str, people: dict[str, dict], names: list[str]) -> str:
    """An answer as the set would say it: each person the recorder made named as the speaker they are (an
    unnamed one, or one named otherwise), a name spelled otherwise as the set spells it."""

    def speaker(m: re.Match) -> str:
        return people.get(m.group(0).lower(), people.get(m.group(0), {})).get("speaker") or m.group(0)

    text = SAID_AUTO_NAME.sub(speaker, text)
    for person, v in people.items():
        if v["speaker"] and person != v["speaker"] and not AUTO_NAME.fullmatch(person):
            text = re.sub(rf"\b{re.escape(person)}\b", v["speaker"], text)
    return as_known(text, names)


def render_result(r: dict) -> str:
    lines = [
        f"eval lifelog --spoken ({r['set']}, {r['timing']} timing, seed {r['seed']}"
        f"{', everyone named by the wearer' if r['named'] else ''}): {r['questions']} questions "
        f"({r['answerable']} answerable, {r['unanswerable']} not), model {r['model']}",
        f"  heard: {r['lines']} lines as {r['utterances']} utterances; {r['people_made']} people made for "
        f"{r['speakers']} speakers, {r['named_right']} named right, {r['named_wrong']} wrong; the wearer as "
        f"{r['wearer_as'] or 'nobody'}; memory written in {r['memory_write_s']} s ({r['wall_s']:.0f} s in all)",
        *tally_lines(r),
    ]
    who = ", ".join(f"{p} -> {v['speaker'] or 'nobody'}" for p, v in r["people"].items())
    lines.append(f"  people: {who}")
    return "\n".join(lines) + "\n"
