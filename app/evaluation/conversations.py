"""`eval conversations`: the recorder on simulated conversations of real voices with real turn-taking (quick
replies, overlaps, backchannels), beside the same turns with 1.2-s pauses, so the cost of real timing shows.

Each conversation (app/evaluation/simulate.py) and its paused twin is written as a WAV and recorded exactly as
`python -m app run --source FILE` records (the file source, the whole recorder, a fresh encrypted memory with a
random key, memory writing by the LLM off); its stored utterances (person, times from the recording's start,
text) are then scored against the gold (app/evaluation/diarization.py): DER and its parts, JER, cpWER against the
silver words, the WER with who said it ignored, people found against true. The baseline for cpWER is the same
conversational audio cut at the gold turns, each turn recognised alone by the project's recognizer and given to
its true speaker ("oracle cut"): what the words could be with perfect diarization.

Targets (issue 63): DER (no collar, overlap scored) ≤ 0.10 for 2-3 speakers conversational, ≤ 0.15 for 4;
the right number of people in ≥ 95 % of conversations; cpWER ≤ 1.2 × the oracle cut's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.audio.media import write_media
from app.config import Config
from app.errors import ConfigError
from app.evaluation.diarization import Said, Score, pooled, require, score
from app.evaluation.simulate import Conversation, conversation
from app.evaluation.voices import VOICES, Voices
from app.frames import SAMPLE_RATE_HZ
from app.recorder.pipeline import Recorder
from app.recorder.sources import FileSource
from app.store.keys import Secret
from app.store.memory import Memory

ORIGIN_EPOCH_S = 1_750_000_000.0  # the recordings' start: stored times minus this are seconds into the audio
CUT_MARGIN_S = 0.05  # around a gold turn cut for the oracle baseline
NOISY_EVERY = 3  # by default every third conversation of a speaker count is noisy
SILVER_NOTE = "silver: faster-whisper whisper-base, beam 5, word times, on each clean clip alone"
TARGETS = {"der_2_3": 0.10, "der_4": 0.15, "right_count": 0.95, "cpwer_ratio": 1.2}


@dataclasses.dataclass(frozen=True)
class Plan:
    speakers: tuple[int, ...] = (2, 3, 4)
    per: int = 3  # conversations per speaker count
    turns: int = 24
    seed: int = 0  # conversation k of a count has seed 1000 * seed + k
    group: str = "tuning"
    noise: str = "mix"  # mix (every third noisy), all, none
    limit: int | None = None  # at most this many conversations in all
    paused: bool = True  # also record the paused twins

    def conversations(self) -> list[tuple[int, int, bool]]:
        """(speakers, seed, noisy) of each conversation, in order."""
        out = [
            (
                n,
                1000 * self.seed + k,
                self.noise == "all" or (self.noise == "mix" and k % NOISY_EVERY == NOISY_EVERY - 1),
            )
            for n in self.speakers
            for k in range(self.per)
        ]
        return out[: self.limit] if self.limit is not None else out


def record(cfg: Config, models, conv: Conversation, folder: Path) -> tuple[list[Said], dict]:
    """The recorder's utterances of a conversation (run as `run --source FILE` runs), and its run summary."""
    wav = folder / f"{conv.name}.wav"
    write_media(wav, conv.audio)
    source = FileSource(wav, cfg, name=f"file:{wav.name}", realtime=False, origin_epoch_s=ORIGIN_EPOCH_S)
    secret = Secret(secrets.token_hex(16).encode(), "eval conversations")
    with Memory.open(folder / f"{conv.name}.db", secret, cfg.store, create=True) as memory:
        summary = asyncio.run(Recorder(cfg, memory, models, source).run())
        said = [
            Said(u.person, round(u.t_start - ORIGIN_EPOCH_S, 3), round(u.t_end - ORIGIN_EPOCH_S, 3), u.text)
            for u in memory.turns.all_utterances()
        ]
    return said, summary.as_dict()


def oracle_cut(asr, conv: Conversation) -> list[Said]:
    """Each gold turn (backchannels inside it stay in its audio) recognised alone, given to its true speaker."""
    out = []
    for t in conv.turns:
        if t.kind == "turn":
            a, b = max(0.0, t.start_s - CUT_MARGIN_S), min(conv.duration_s, t.end_s + CUT_MARGIN_S)
            out.append(
                Said(
                    t.speaker,
                    t.start_s,
                    t.end_s,
                    asr(conv.audio[int(a * SAMPLE_RATE_HZ) : int(b * SAMPLE_RATE_HZ)]).text,
                )
            )
    return out


def timing(conv: Conversation) -> dict:
    """How the conversation's turns were timed: speaker changes, overlaps, gaps, pauses, backchannels."""
    turns = [t for t in conv.turns if t.kind == "turn"]
    pairs = zip(turns, turns[1:], strict=False)
    changes = [t.offset_s for prev, t in pairs if t.offset_s is not None and t.speaker != prev.speaker]
    changes_a = np.array(changes or [0.0])
    return {
        "turns": len(turns),
        "backchannels": sum(t.kind == "backchannel" for t in conv.turns),
        "speaker_changes": len(changes),
        "overlap_share": round(float(np.mean(changes_a < 0)), 3),
        "median_offset_s": round(float(np.median(changes_a)), 3),
        "pauses_over_0_8_s": int(np.sum(changes_a >= 0.8)),
        "median_turn_s": round(float(np.median([t.end_s - t.start_s for t in turns])), 2),
    }


def eval_conversations(
    cfg: Config,
    plan: Plan,
    data: Path = VOICES,
    out_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict:
    from app.recorder.perception import load_perception

    require()
    say = progress or (lambda _: None)
    cfg = dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, background=False))
    started = time.perf_counter()
    voices = Voices(data, cfg.models_dir, threads=cfg.device.threads)
    group = voices.group(plan.group)
    if max(plan.speakers) > len(group) or min(plan.speakers) < 2:
        raise ConfigError(f"--speakers: between 2 and {len(group)} (the {plan.group} group's readers)")
    models = load_perception(cfg, with_faces=False)  # a WAV has no video: `run --source FILE` loads no faces
    rows: list[dict] = []
    scores: dict[str, list[tuple[int, Score]]] = {"conversational": [], "paused": [], "oracle_cut": []}
    with tempfile.TemporaryDirectory(prefix="eval-conversations-") as tmp:
        for n, seed, noisy in plan.conversations():
            conv, twin = conversation(voices, seed, n, plan.group, plan.turns, noisy)
            row: dict = {"name": conv.name, "speakers": n, "who": list(conv.speakers), "noisy": noisy}
            row |= {"duration_s": round(conv.duration_s, 1), "timing": timing(conv)}
            for c in (conv, twin) if plan.paused else (conv,):
                t0 = time.perf_counter()
                said, summary = record(cfg, models, c, Path(tmp))
                s = score(c, said)
                scores[c.timing].append((n, s))
                row[c.timing] = s.as_dict() | {
                    "utterances": len(said),
                    "duration_s": round(c.duration_s, 1),
                    "wall_s": round(time.perf_counter() - t0, 1),
                    "errors": summary.get("errors", []),
                    "voices_split": summary.get("voices_split", 0),
                }
                if out_dir is not None:
                    _write(out_dir, c, said)
            t0 = time.perf_counter()
            s = score(conv, oracle_cut(models.asr, conv))
            scores["oracle_cut"].append((n, s))
            row["oracle_cut"] = {k: v for k, v in s.as_dict().items() if k in ("cpwer", "wer", "cp_errors", "words")}
            row["oracle_cut"]["wall_s"] = round(time.perf_counter() - t0, 1)
            rows.append(row)
            say(_line(row))
    result = {
        "group": plan.group,
        "readers": list(group),
        "plan": dataclasses.asdict(plan),
        "words": SILVER_NOTE,
        "recorder": {
            "asr": models.asr.name,
            "vad": dataclasses.asdict(cfg.vad),
            "check_voice": cfg.turns.check_voice if models.check is not None else None,
        },
        "targets": TARGETS,
        "conversations": rows,
        "pooled": _pools(scores, plan.speakers),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if out_dir is not None:
        result["files"] = str(out_dir / "conversations")
    return result


def _pools(scores: dict[str, list[tuple[int, Score]]], counts: tuple[int, ...]) -> dict:
    out = {}
    for key, ns in [(str(n), {n}) for n in counts] + [("all", set(counts))]:
        pool = {kind: pooled([s for n, s in pairs if n in ns]) for kind, pairs in scores.items()}
        pool["oracle_cut"] = {
            k: v for k, v in pool["oracle_cut"].items() if k in ("conversations", "words", "cpwer", "wer")
        }
        cp, base = pool["conversational"].get("cpwer"), pool["oracle_cut"].get("cpwer")
        if cp is not None and base:
            pool["cpwer_ratio"] = round(cp / base, 3)
        out[key] = pool
    return out


def rttm(name: str, said: list[tuple[str, float, float]]) -> str:
    return "".join(
        f"SPEAKER {name} 1 {s:.3f} {e - s:.3f} <NA> <NA> {who.replace(' ', '_')} <NA> <NA>\n"
        for who, s, e in said
        if e > s
    )


def _write(out_dir: Path, conv: Conversation, said: list[Said]) -> None:
    """The recording, the gold and hypothesis RTTM and the words, for a person to look at."""
    folder = out_dir / "conversations"
    folder.mkdir(parents=True, exist_ok=True)
    write_media(folder / f"{conv.name}.wav", conv.audio)
    (folder / f"{conv.name}.gold.rttm").write_text(
        rttm(conv.name, [(s.speaker, s.start_s, s.end_s) for s in conv.segments])
    )
    hyp = [(s.speaker or "nobody", s.start_s, s.end_s) for s in said]
    (folder / f"{conv.name}.hyp.rttm").write_text(rttm(conv.name, hyp))
    words = {
        "gold_turns": [dataclasses.asdict(t) for t in conv.turns],
        "gold_words": [dataclasses.asdict(w) for w in conv.words],
        "hypothesis": [dataclasses.asdict(s) for s in said],
    }
    (folder / f"{conv.name}.words.json").write_text(json.dumps(words, indent=1))


def _f(v: float | None, digits: int = 3) -> str:
    return "   -" if v is None else f"{v:.{digits}f}"


def _line(row: dict) -> str:
    c = row["conversational"]
    text = f"{row['name']:24s} DER {_f(c['der'])} cpWER {_f(c['cpwer'])} people {c['people']}/{c['speakers']}"
    text += f" (split {c['voices_split']})" if c.get("voices_split") else ""
    if "paused" in row:
        p = row["paused"]
        text += f" | paused DER {_f(p['der'])} cpWER {_f(p['cpwer'])} people {p['people']}/{p['speakers']}"
        text += f" (split {p['voices_split']})" if p.get("voices_split") else ""
    return text + f" ({row['conversational']['wall_s'] + row.get('paused', {}).get('wall_s', 0):.0f} s)"


def _cells(s: dict) -> str:
    return (
        f"{_f(s['der'])} {_f(s['missed'] if 'missed' in s else s['missed_s'] / max(s['total_s'], 1e-9), 2)}"
        f"/{_f(s['false_alarm'] if 'false_alarm' in s else s['false_alarm_s'] / max(s['total_s'], 1e-9), 2)}"
        f"/{_f(s['confusion'] if 'confusion' in s else s['confusion_s'] / max(s['total_s'], 1e-9), 2)}"
        f" {_f(s['jer'])} {_f(s.get('cpwer'))} {s['people']:>3}/{s['speakers']:<3}"
    )


def render(r: dict) -> str:
    has_paused = r["plan"]["paused"]
    head = "DER   miss/FA/conf     JER   cpWER  people"
    lines = [
        f"eval conversations: {r['group']} readers {', '.join(r['readers'])}; {r['plan']['per']} per speaker count, "
        f"{r['plan']['turns']} turns, seed {r['plan']['seed']}; words {r['words']}",
        f"{'conversation':26s} {'dur s':>6s}  conversational: {head}"
        + (f" | paused: {head}" if has_paused else "")
        + " | oracle-cut cpWER",
    ]
    for row in r["conversations"]:
        line = f"{row['name']:26s} {row['duration_s']:6.1f}  {'':16s}{_cells(row['conversational'])}"
        if has_paused:
            line += f" | {'':8s}{_cells(row['paused'])}"
        lines.append(line + f" | {_f(row['oracle_cut']['cpwer'])}")
    lines.append("pooled (parts summed; people: summed, right count: share of conversations)")
    for key, pool in r["pooled"].items():
        if not pool["conversational"]:
            continue
        label = f"{key} speakers" if key != "all" else "all"
        line = f"{label:33s} {'':16s}{_cells(pool['conversational'])}"
        if has_paused:
            line += f" | {'':8s}{_cells(pool['paused'])}"
        line += f" | {_f(pool['oracle_cut'].get('cpwer'))}"
        c = pool["conversational"]
        line += f"  right count {100 * c['right_count']:.0f} %"
        if "cpwer_ratio" in pool:
            line += f", cpWER / oracle {pool['cpwer_ratio']:.2f}x"
        lines.append(line)
    t = r["targets"]
    lines.append(
        f"targets: DER ≤ {t['der_2_3']} (2-3 speakers), ≤ {t['der_4']} (4); "
        f"right count ≥ {100 * t['right_count']:.0f} %; "
        f"cpWER ≤ {t['cpwer_ratio']}x the oracle cut's. {r['wall_s']:.0f} s in all"
    )
    if r.get("files"):
        lines.append(f"recordings, RTTM and words: {r['files']}")
    return "\n".join(lines) + "\n"
