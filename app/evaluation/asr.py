"""`eval asr`: word error rate and real-time factor of every available speech recognizer, side by side.

Clips with a reference transcript:
- `ljspeech`: the LJSpeech clips in ../shared/data/asr_small_samples (one reader, read speech; the normalized
  column of metadata.csv is the reference);
- `jfk`: the JFK inaugural clip beside them (44.1 kHz stereo; the reference is the dataset README's wording);
- `digits`: Free Spoken Digit Dataset recordings (8 kHz, one word each), a sample spread over speakers;
- `demo`: the turns of the demo recording that `build.py` generates (flite voices; the script is the reference).

Texts are normalized with OpenAI's English normalizer (whisper-normalizer: case, punctuation, spelled-out
numbers) before jiwer computes the WER, so "fifteenth" and "15th" agree. The real-time factor is wall time over
audio time; the CPU factor counts CPU seconds of all threads (both cores busy = 2 per wall second).
"""

from __future__ import annotations

import csv
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import registry
from app.audio.asr import load_recognizer
from app.audio.media import read_audio
from app.config import Config
from app.errors import ConfigError, MediaError, ModelError
from app.evaluation.plots import pyplot, saved
from app.frames import SAMPLE_RATE_HZ
from app.recorder.sources import DEMO_FILE

_LOGGER = logging.getLogger(__name__)
JFK_REFERENCE = (
    "And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
)
DIGITS_DEFAULT = 40  # clips: each digit by each of four speakers, once


@dataclass(frozen=True)
class Clip:
    dataset: str
    name: str
    audio: np.ndarray  # 16 kHz mono float32
    reference: str


def _ljspeech(folder: Path) -> Iterator[Clip]:
    with (folder / "metadata.csv").open(encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("|") for line in fh if line.strip()]
    for row in rows:
        if len(row) != 3:
            raise MediaError(f"{folder / 'metadata.csv'}: a row is not id|raw|normalized: {'|'.join(row)[:60]}")
        audio_path = folder / f"{row[0]}.flac"
        if audio_path.is_file():
            yield Clip("ljspeech", row[0], read_audio(audio_path), row[2])


def _digits(folder: Path, limit: int) -> Iterator[Clip]:
    """`limit` recordings, round-robin over digits and speakers so that a small sample covers both."""
    with (folder / "manifest.csv").open(encoding="utf-8") as fh:
        rows = sorted(csv.DictReader(fh), key=lambda r: (int(r["repetition_index"]), r["speaker"], r["digit"]))
    for row in rows[:limit]:
        yield Clip("digits", Path(row["path"]).stem, read_audio(folder / row["path"]), row["transcript"])


def _demo(cfg: Config) -> Iterator[Clip]:
    path = cfg.models_dir / DEMO_FILE
    if not path.is_file():
        return
    audio = read_audio(path)
    script = json.loads(path.with_suffix(".json").read_text())
    for i, turn in enumerate(script["turns"]):
        seg = audio[int(turn["t_start_s"] * SAMPLE_RATE_HZ) : int(turn["t_end_s"] * SAMPLE_RATE_HZ)]
        yield Clip("demo", f"turn {i + 1} ({turn['speaker']})", seg, turn["text"])


def clips(cfg: Config, data: list[Path], digits: int) -> list[Clip]:
    """Every clip with a reference under the data folders (asr_small_samples, fsdd_spoken_digits) and the demo."""
    found: list[Clip] = []
    for folder in data:
        if not folder.is_dir():
            raise MediaError(f"{folder} is not a folder of recordings (--data)")
        if (folder / "ljspeech" / "metadata.csv").is_file():
            found += _ljspeech(folder / "ljspeech")
        if (folder / "whisper_jfk" / "jfk.flac").is_file():
            found.append(Clip("jfk", "jfk", read_audio(folder / "whisper_jfk" / "jfk.flac"), JFK_REFERENCE))
        if (folder / "manifest.csv").is_file() and (folder / "recordings").is_dir():
            found += _digits(folder, digits)
    found += _demo(cfg)
    return found


def engines(cfg: Config) -> list[str]:
    """The recognizers ready here: prepared registry entries, then whisper-*/sherpa-* folders a user placed."""
    names = []
    for spec in registry.REGISTRY.values():
        if spec.role != "asr":
            continue
        try:
            registry.verify(spec, cfg.models_dir)
            names.append(spec.name)
        except ModelError as e:
            _LOGGER.info("%s is not available: %s", spec.name, e)
    for folder in sorted(cfg.models_dir.glob("whisper-*")) + sorted(cfg.models_dir.glob("sherpa-*")):
        # a sherpa-* folder is a recognizer when it has a tokens file (a speaker model has none)
        recognizer = folder.name.startswith("whisper-") or any(folder.glob("*tokens.txt"))
        if folder.is_dir() and recognizer and folder.name not in registry.REGISTRY:
            names.append(folder.name)
    return names


def _normalizer():
    try:
        # lazy: the optional `eval` extra
        import jiwer
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as e:
        raise ConfigError(f"eval asr needs {e.name}: pip install -e '.[dev]'") from None
    return jiwer, EnglishTextNormalizer()


def _score(jiwer, normalize, refs: list[str], hyps: list[str]) -> dict:
    pairs = [(normalize(r), normalize(h)) for r, h in zip(refs, hyps, strict=True)]
    kept = [(r, h) for r, h in pairs if r.strip()]
    if not kept:
        return {"wer": None}
    out = jiwer.process_words([r for r, _ in kept], [h if h.strip() else "" for _, h in kept])
    words = out.hits + out.substitutions + out.deletions
    return {
        "wer": round(out.wer, 4),
        "words": words,
        "substitutions": out.substitutions,
        "deletions": out.deletions,
        "insertions": out.insertions,
    }


def _run_engine(cfg: Config, name: str, all_clips: list[Clip], jiwer, normalize) -> dict:
    started = time.perf_counter()
    try:
        asr = load_recognizer(name, cfg.models_dir, cfg.device.kind, cfg.device.threads)
    except ModelError as e:
        return {"error": str(e)}
    load_s = time.perf_counter() - started
    asr(np.zeros(SAMPLE_RATE_HZ, np.float32))  # first-call setup is not per-clip cost
    by_set: dict[str, dict] = {}
    for clip in all_clips:
        wall, cpu = time.perf_counter(), time.process_time()
        text = asr(clip.audio).text
        row = by_set.setdefault(clip.dataset, {"refs": [], "hyps": [], "wall": 0.0, "cpu": 0.0, "audio": 0.0})
        row["wall"] += time.perf_counter() - wall
        row["cpu"] += time.process_time() - cpu
        row["audio"] += len(clip.audio) / SAMPLE_RATE_HZ
        row["refs"].append(clip.reference)
        row["hyps"].append(text)
        _LOGGER.debug("%s %s: %r", name, clip.name, text)
    datasets = {}
    for ds, row in by_set.items():
        score = _score(jiwer, normalize, row["refs"], row["hyps"])
        worst = max(
            zip(row["refs"], row["hyps"], strict=True),
            key=lambda rh: _score(jiwer, normalize, [rh[0]], [rh[1]])["wer"] or 0.0,
        )
        datasets[ds] = {
            **score,
            "clips": len(row["refs"]),
            "audio_s": round(row["audio"], 1),
            "rtf": round(row["wall"] / row["audio"], 3),
            "cpu_rtf": round(row["cpu"] / row["audio"], 3),
            "worst": {"reference": worst[0], "heard": worst[1]},
        }
    wall = sum(r["wall"] for r in by_set.values())
    cpu = sum(r["cpu"] for r in by_set.values())
    audio = sum(r["audio"] for r in by_set.values())
    overall = _score(
        jiwer, normalize, sum((r["refs"] for r in by_set.values()), []), sum((r["hyps"] for r in by_set.values()), [])
    )
    return {
        "load_s": round(load_s, 2),
        "datasets": datasets,
        "overall": {
            **overall,
            "rtf": round(wall / audio, 3),
            "cpu_rtf": round(cpu / audio, 3),
            "audio_s": round(audio, 1),
        },
    }


def eval_asr(cfg: Config, data: list[Path], out_dir: Path | None = None, digits: int | None = None) -> dict:
    jiwer, normalize = _normalizer()
    all_clips = clips(cfg, data, DIGITS_DEFAULT if digits is None else digits)
    if not all_clips:
        raise MediaError(f"no clips with a reference transcript under {', '.join(map(str, data))}")
    names = engines(cfg)
    if not names:
        raise ModelError("no speech recognizer is prepared: run `python build.py`")
    result = {
        "default": cfg.models.asr,
        "threads": cfg.device.threads,
        "clips": {ds: sum(c.dataset == ds for c in all_clips) for ds in dict.fromkeys(c.dataset for c in all_clips)},
        "engines": {name: _run_engine(cfg, name, all_clips, jiwer, normalize) for name in names},
        "plot": None,
    }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result["plot"] = _plot(out_dir / "asr.png", result)
    return result


def _plot(path: Path, result: dict) -> str | None:
    """WER and CPU real-time factor per dataset, one bar per engine."""
    plt = pyplot()
    if plt is None:
        return None
    ok = {n: e for n, e in result["engines"].items() if "datasets" in e}
    sets = list(result["clips"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=110)
    width = 0.8 / max(1, len(ok))
    for i, (name, e) in enumerate(ok.items()):
        x = np.arange(len(sets)) + i * width
        axes[0].bar(x, [e["datasets"].get(s, {}).get("wer") or 0.0 for s in sets], width, label=name)
        axes[1].bar(x, [e["datasets"].get(s, {}).get("cpu_rtf", 0.0) for s in sets], width, label=name)
    for ax, title in zip(axes, ("word error rate", "CPU seconds per audio second"), strict=True):
        ax.set_xticks(np.arange(len(sets)) + 0.4 - width / 2, sets)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"speech recognizers ({result['threads']} threads)")
    return saved(plt, fig, path)


def render(r: dict) -> str:
    sets = list(r["clips"])
    lines = [
        f"speech recognition: {', '.join(f'{ds} {n} clips' for ds, n in r['clips'].items())}; "
        f"default {r['default']}, {r['threads']} threads",
        f"{'engine':22} " + " ".join(f"{s + ' WER':>12}" for s in sets) + f" {'all WER':>8} {'RTF':>6} {'CPU-RTF':>8}",
    ]
    for name, e in r["engines"].items():
        if "error" in e:
            lines.append(f"{name:22} not available: {e['error']}")
            continue
        cells = " ".join(
            f"{e['datasets'][s]['wer']:>12.3f}"
            if s in e["datasets"] and e["datasets"][s]["wer"] is not None
            else f"{'-':>12}"
            for s in sets
        )
        o = e["overall"]
        lines.append(f"{name:22} {cells} {o['wer']:>8.3f} {o['rtf']:>6.3f} {o['cpu_rtf']:>8.3f}")
    if r.get("plot"):
        lines.append(f"plot: {r['plot']}")
    return "\n".join(lines) + "\n"
