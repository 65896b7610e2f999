"""`eval speakers --data DIR [--data DIR ...]`: speaker verification (EER over all pairs) and identification
(pass@1: each query against one key per speaker, as EgoMem's query/key protocol), without and with adaptive
s-norm; and people counted on streams of real clips. Datasets: a LibriSpeech-style manifest (path,
speaker_id) or FSDD (path, speaker; 8 kHz digits).

Streams: each dataset's speakers back to back (every clip of one, then the next; 1.5-s pauses), and, when the
shared `asr_small_samples` folder lies beside the datasets, the JFK clip and the 8 LJSpeech clips (one
speaker each). They run through the recorder's own parts (Silero VAD turns, voice embeddings, the live
speaker assignment with no one known at the start), and each is scored as people made against speakers
heard: an over-split is a person beyond one per speaker, a merge a speaker left with no person of their own.

FSDD's clips are single digits (~0.4 s), too short for any speaker embedding: keys join one repetition of all
ten digits (~4 s), queries join five digits of another repetition (~2 s), like a short utterance in use.
S-norm cohorts: the device's seed (synthetic voices, see app/identity/cohort.py), the other dataset's real
speakers (what a device learns from the people it meets), and both together (what the device uses).
"""

from __future__ import annotations

import csv
import itertools
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from app.audio.media import read_audio
from app.audio.vad import Reframer, SpeechSegmenter
from app.config import Config
from app.errors import MediaError
from app.evaluation.metrics import eer, roc
from app.evaluation.plots import roc_det
from app.frames import SAMPLE_RATE_HZ, Utterance
from app.identity.cohort import load_seed
from app.identity.sessions import Turn
from app.identity.snorm import AdaptiveSNorm
from app.identity.speakers import SpeakerAssigner
from app.recorder.perception import load_vad, load_voice, single_thread_blas
from app.recorder.turns import MIN_EMBED_S

GAP = np.zeros(1600, np.float32)  # 0.1 s between joined clips
STREAM_PAUSE_S = 1.5  # between the clips of a stream
SINGLE_SPEAKER = "asr_small_samples"  # the shared folder with the JFK clip and LJSpeech clips


def _manifest(data: Path) -> list[dict]:
    path = data / "manifest.csv"
    if not path.is_file():
        raise MediaError(f"{path} not found: expected a speaker dataset with manifest.csv")
    with path.open() as fh:
        return list(csv.DictReader(fh))


def _units(data: Path) -> tuple[str, list[tuple[str, str, list[Path]]]]:
    """(dataset name, [(role, speaker, clip paths)]); role is key or query."""
    rows = _manifest(data)
    if "digit" in rows[0]:  # FSDD
        by = defaultdict(dict)
        for r in rows:
            by[(r["speaker"], int(r["repetition_index"]))][int(r["digit"])] = data / r["path"]
        units = []
        for (spk, rep), digits in sorted(by.items()):
            clips = [digits[d] for d in sorted(digits)]
            units += [("key", spk, clips)] if rep == 0 else [("query", spk, clips[:5]), ("query", spk, clips[5:])]
        return "fsdd", units
    by_spk = defaultdict(list)
    for r in sorted(rows, key=lambda r: r["path"]):
        by_spk[r["speaker_id"]].append(data / r["path"])
    units = []
    for spk, paths in by_spk.items():
        units += [("key", spk, [paths[0]])] + [("query", spk, [p]) for p in paths[1:]]
    return "librispeech", units


def _embed(units, encode) -> np.ndarray:
    out = []
    for _, _, clips in units:
        parts = [x for c in clips for x in (read_audio(c), GAP)]
        out.append(encode(np.concatenate(parts)))
    return np.stack(out)


def _pass_at_1(scores: np.ndarray, query_spk: list[str], key_spk: list[str]) -> float:
    best = np.argmax(scores, axis=1)
    return float(np.mean([key_spk[b] == q for b, q in zip(best, query_spk, strict=True)]))


def _dataset(name, units, emb: np.ndarray, cohorts: dict[str, np.ndarray]) -> dict:
    keys = [i for i, u in enumerate(units) if u[0] == "key"]
    queries = [i for i, u in enumerate(units) if u[0] == "query"]
    spk = [u[1] for u in units]
    pairs = list(itertools.combinations(range(len(units)), 2))
    labels = np.array([spk[i] == spk[j] for i, j in pairs])
    raw_pairs = np.array([float(emb[i] @ emb[j]) for i, j in pairs])
    eer_raw, thr_raw = eer(raw_pairs, labels)
    out = {
        "utterances": len(units),
        "speakers": len(set(spk)),
        "trials": len(pairs),
        "queries": len(queries),
        "eer": round(eer_raw, 4),
        "threshold_cosine": round(thr_raw, 4),
        "pass_at_1": round(
            _pass_at_1(emb[queries] @ emb[keys].T, [spk[q] for q in queries], [spk[k] for k in keys]), 4
        ),
        "snorm": {},
    }
    curves = {"cosine": roc(raw_pairs, labels)}
    for cname, cohort in cohorts.items():
        norm = AdaptiveSNorm(cohort)
        full = norm.scores(emb, emb)
        sn_pairs = np.array([full[i, j] for i, j in pairs])
        e, t = eer(sn_pairs, labels)
        p1 = _pass_at_1(full[np.ix_(queries, keys)], [spk[q] for q in queries], [spk[k] for k in keys])
        out["snorm"][cname] = {
            "eer": round(e, 4),
            "threshold": round(t, 3),
            "pass_at_1": round(p1, 4),
            "cohort": len(cohort),
        }
        curves[f"s-norm ({cname})"] = roc(sn_pairs, labels)
    return out, curves


def eval_speakers(cfg: Config, datasets: list[Path], out_dir: Path | None = None) -> dict:
    single_thread_blas()  # as the recorder runs
    encoder = load_voice(cfg)
    seed = load_seed(cfg.models_dir, cfg.models.voice)
    loaded, streams = {}, {}
    for data in datasets:
        name, units = _units(data)
        loaded[name] = (units, _embed(units, encoder))
        streams[f"{name} speakers"] = _speaker_clips(units)
    if (beside := datasets[0].parent / SINGLE_SPEAKER).is_dir():
        streams |= _single_speaker_clips(beside)
    result: dict = {"datasets": {}}
    for name, (units, emb) in loaded.items():
        others = [e for n, (_, e) in loaded.items() if n != name]
        cohorts = {"seed": seed}
        if others:
            cohorts["met people"] = np.concatenate(others)
            cohorts["seed + met people"] = np.concatenate([seed, *others])
        scores, curves = _dataset(name, units, emb, cohorts)
        result["datasets"][name] = scores
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            scores["plot"] = roc_det(out_dir / f"speakers_{name}_roc.png", curves, f"speaker verification, {name}")
    first = result["datasets"][next(iter(result["datasets"]))]
    used = first["snorm"].get("seed + met people", first["snorm"]["seed"])
    result.update(
        {
            "eer": first["eer"],
            "pass_at_1": first["pass_at_1"],
            "pass_at_1_snorm": used["pass_at_1"],
            "eer_snorm": used["eer"],
            "trials": first["trials"],
            "streams": stream_people(cfg, streams),
        }
    )
    return result


def attributed(turns, spans: list[tuple[float, float, str]]) -> list[tuple[str, int]]:
    """(true speaker, person) of each turn given a person by voice (`Turn`s): the speaker of the one clip
    that holds the turn's middle."""
    out = []
    for turn in turns:
        mid = (turn.t_start + turn.t_end) / 2
        owners = {who for a, b, who in spans if a <= mid <= b}
        if turn.speaker is not None and len(owners) == 1:
            out.append((owners.pop(), turn.speaker))
    return out


def speaker_counts(pairs: list[tuple[str, int]]) -> dict:
    """People made against speakers heard, from (speaker, person) pairs: each person stands for the speaker of
    most of their turns; over-splits are people beyond one per speaker, merges are speakers with no person."""
    owner = {p: Counter(s for s, q in pairs if q == p).most_common(1)[0][0] for p in {p for _, p in pairs}}
    speakers, owned = {s for s, _ in pairs}, set(owner.values())
    return {
        "speakers": len(speakers),
        "people": len(owner),
        "over_splits": len(owner) - len(owned),
        "merges": len(speakers) - len(owned),
        "wrong_turns": sum(owner[p] != s for s, p in pairs),
        "turns": len(pairs),
    }


def summed(counts: list[dict]) -> dict:
    return {k: sum(c[k] for c in counts) for k in counts[0]} if counts else {}


def _speaker_clips(units) -> dict[str, list[np.ndarray]]:
    """Each speaker's clips in order, as the units above: a LibriSpeech file; FSDD digits joined, all ten of
    the first repetition (~4 s), then five at a time (~2 s)."""
    clips = defaultdict(list)
    for _, spk, paths in units:
        clips[spk].append(np.concatenate([x for c in paths for x in (read_audio(c), GAP)]))
    return dict(clips)


def _single_speaker_clips(folder: Path) -> dict[str, dict[str, list[np.ndarray]]]:
    jfk, lj = folder / "whisper_jfk" / "jfk.flac", sorted((folder / "ljspeech").glob("*.flac"))
    out = {"jfk": {"jfk": [read_audio(jfk)]}} if jfk.is_file() else {}
    return out | ({"ljspeech": {"lj": [read_audio(p) for p in lj]}} if lj else {})


def back_to_back(clips: dict[str, list[np.ndarray]]) -> tuple[np.ndarray, list[tuple[float, float, str]]]:
    """(audio, [(start s, end s, speaker)] of each clip): every speaker's clips, one speaker after another."""
    pause = np.zeros(int(STREAM_PAUSE_S * SAMPLE_RATE_HZ), np.float32)
    parts, spans, t = [pause], [], STREAM_PAUSE_S
    for spk, audios in clips.items():
        for audio in audios:
            spans.append((t, t + len(audio) / SAMPLE_RATE_HZ, spk))
            parts += [audio, pause]
            t += (len(audio) + len(pause)) / SAMPLE_RATE_HZ
    return np.concatenate(parts), spans


def assign_turns(audio: np.ndarray, cfg: Config, vad, encoder) -> list[Turn]:
    """Turns as the recorder hears them: VAD segments, voice embeddings, online speaker assignment with no
    one known at the start (a turn settled by the previous speaker has speaker None)."""
    vad.reset()
    segmenter = SpeechSegmenter(cfg.vad, vad.window_samples)
    segments = []
    for window in Reframer(vad.window_samples).push(audio):
        segments += segmenter.push(window, vad(window))
    segments += segmenter.flush()
    assigner = SpeakerAssigner(cfg.identity, {}, {})
    pad = cfg.vad.pad_ms / 1000
    turns, previous, new_id = [], None, 0
    for seg in segments:
        voice = encoder(seg.audio) if seg.duration_s >= MIN_EMBED_S else None
        utt = _as_utterance(seg, voice)
        decision = assigner.decide(utt, previous)
        pid = decision.person_id
        if decision.by == "new":
            new_id += 1
            pid = new_id
        if pid is not None and assigner.adds_voice_key(decision, utt):
            assigner.remember("voice", pid, voice, cfg.identity.max_keys, seg.duration_s)
        previous = pid if pid is not None else previous
        turns.append(Turn(seg.t_start_s + pad, seg.t_end_s - pad, pid if decision.by != "previous" else None, voice))
    return turns


def _as_utterance(seg, voice):
    return Utterance("", seg.t_start_s, seg.t_end_s, 1.0, voice, None)


def stream_people(cfg: Config, streams: dict[str, dict[str, list[np.ndarray]]]) -> dict[str, dict]:
    """People counted on each stream of real clips, heard through the recorder's own parts."""
    vad, encoder = load_vad(cfg), load_voice(cfg)
    out = {}
    for name, clips in streams.items():
        audio, spans = back_to_back(clips)
        out[name] = speaker_counts(attributed(assign_turns(audio, cfg, vad, encoder), spans))
    return out


def render(r: dict) -> str:
    lines = []
    for name, d in r["datasets"].items():
        lines.append(
            f"{name}: {d['speakers']} speakers, {d['utterances']} utterances, {d['trials']} trials, "
            f"{d['queries']} queries"
        )
        lines.append(
            f"  {'cosine':28s} EER {d['eer']:.4f}  pass@1 {d['pass_at_1']:.4f}  (threshold {d['threshold_cosine']:.3f})"
        )
        for cname, s in d["snorm"].items():
            lines.append(
                f"  {'s-norm, ' + cname + ' cohort':28s} EER {s['eer']:.4f}  pass@1 {s['pass_at_1']:.4f}  "
                f"(cohort {s['cohort']}, threshold {s['threshold']:.2f})"
            )
        if d.get("plot"):
            lines.append(f"  ROC plot: {d['plot']}")
    lines.append("people on streams of real clips (one speaker after another):")
    lines += [f"  {name:20s} {render_people(c)}" for name, c in r["streams"].items()]
    return "\n".join(lines) + "\n"


def render_people(c: dict) -> str:
    return (
        f"{c['speakers']} speakers -> {c['people']} people: {c['over_splits']} over-splits, {c['merges']} merges, "
        f"{c['wrong_turns']} of {c['turns']} turns given to another speaker's person"
    )
