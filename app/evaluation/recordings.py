"""`eval conversations --real`: real conversational recordings that a package ships, recorded and scored as the
simulated conversations are (app/evaluation/conversations.py).

One so far: pyannote.audio's sample, a two-person telephone call of 30 s (13 turns, replies within a fifth of a
second, one overlap, both saying who they are: "This is Diane in New Jersey." "And I'm Sheila in Texas"), as the
pyannote.audio 4.0.7 wheel ships it with its who-spoke-when (RTTM) and its words by speaker (STM). build.py fetches
it into models/pyannote-sample/ (the registry pins the wheel's and each file's sha256); without it the evaluation
says how to fetch it. The RTTM's speaker labels are given the STM's names by how much of their speech overlaps.

Scored: DER and its parts and JER, cpWER against the STM's words (each line's words spread over its span), the WER
with who said it ignored, people found against true, and whether each person found was named as the speaker whose
speech they hold most (the introductions in fast talk). Never tuned on: it is measured when a change is done.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app import registry
from app.audio.media import read_audio
from app.config import Config
from app.evaluation.conversations import _write, record
from app.evaluation.diarization import Said, pooled, require, score
from app.evaluation.facts_spoken import speakers_of
from app.evaluation.simulate import Conversation, Segment, SpokenWord

RECORDINGS = ("pyannote-sample",)  # registry entries of role "eval": (WAV, RTTM, STM)


def load(models_dir: Path, name: str) -> Conversation:
    """A shipped recording as a conversation: its audio, the RTTM's segments under the STM's speaker names, the
    STM's words. ModelError (naming `build.py --download`) when it is not there."""
    wav, rttm, stm = registry.verify(registry.get(name), models_dir)
    segments = []  # (label, start, end)
    for line in rttm.read_text().splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER":
            segments.append((f[7], float(f[3]), float(f[3]) + float(f[4])))
    lines = []  # (speaker name, start, end, text)
    for line in stm.read_text().splitlines():
        f = line.split(maxsplit=5)
        if len(f) == 6 and not f[0].startswith(";;"):
            lines.append((f[2], float(f[3]), float(f[4]), f[5]))
    names = sorted({who for who, *_ in lines})
    label_name = {  # a label no line overlaps keeps its own name
        label: found["speaker"] or label
        for label, found in speakers_of(
            [(lab, (s, e)) for lab, s, e in segments], [(who, (a, b)) for who, a, b, _ in lines]
        ).items()
    }
    words = []
    for who, a, b, text in lines:
        said = text.split()
        step = (b - a) / max(len(said), 1)
        words += [SpokenWord(who, a + k * step, a + (k + 1) * step, w) for k, w in enumerate(said)]
    return Conversation(
        name=name,
        timing="real",
        noisy=False,
        speakers=tuple(names),
        audio=read_audio(wav),
        turns=(),
        segments=tuple(sorted((Segment(label_name[lab], s, e) for lab, s, e in segments), key=lambda x: x.start_s)),
        words=tuple(sorted(words, key=lambda w: w.start_s)),
    )


def named(conv: Conversation, said: list[Said]) -> dict[str, str | None]:
    """Each person found -> the speaker whose gold speech their utterances overlap most (None: nobody's)."""
    found = speakers_of(
        [(s.speaker, (s.start_s, s.end_s)) for s in said], [(g.speaker, (g.start_s, g.end_s)) for g in conv.segments]
    )
    return {person: f["speaker"] for person, f in found.items()}


def eval_recordings(cfg: Config, out_dir: Path | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Each shipped recording recorded as `run --source FILE` records it, and scored."""
    from app.recorder.perception import load_perception

    require()
    convs = [load(cfg.models_dir, name) for name in RECORDINGS]  # before any model is loaded
    cfg = dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, background=False))
    started = time.perf_counter()
    models = load_perception(cfg, with_faces=False)
    rows, scores = [], []
    with tempfile.TemporaryDirectory(prefix="eval-recordings-") as tmp:
        for conv in convs:
            t0 = time.perf_counter()
            said, summary = record(cfg, models, conv, Path(tmp))
            s = score(conv, said)
            scores.append(s)
            who = named(conv, said)
            row = {
                "name": conv.name,
                "duration_s": round(conv.duration_s, 1),
                "speakers": list(conv.speakers),
                "score": s.as_dict(),
                "people": {person: speaker for person, speaker in sorted(who.items())},
                "named_right": sum(p.lower() == (sp or "").lower() for p, sp in who.items()),
                "utterances": len(said),
                "heard": [dataclasses.asdict(x) for x in said],
                "wall_s": round(time.perf_counter() - t0, 1),
                "errors": summary.get("errors", []),
            }
            rows.append(row)
            if out_dir is not None:
                _write(out_dir, conv, said)
            if progress is not None:
                progress(_line(row))
    return {
        "recordings": rows,
        "pooled": pooled(scores),
        "recorder": {"asr": models.asr.name},
        "wall_s": round(time.perf_counter() - started, 1),
    }


def _line(row: dict) -> str:
    s = row["score"]
    return (
        f"{row['name']:20s} DER {s['der']:.3f} (missed {s['missed_s']:.1f} s, false alarm {s['false_alarm_s']:.1f} s, "
        f"confusion {s['confusion_s']:.1f} s) JER {s['jer']:.3f} cpWER {s['cpwer']:.3f} WER {s['wer']:.3f} "
        f"people {s['people']}/{s['speakers']}, named right {row['named_right']} of {len(row['speakers'])}"
    )


def render(r: dict) -> str:
    lines = ["eval conversations --real: recordings that a package ships, recorded and scored"]
    for row in r["recordings"]:
        lines.append(_line(row))
        lines += [f"  {p} -> {sp or 'nobody'}" for p, sp in row["people"].items()]
    return "\n".join(lines) + "\n"
