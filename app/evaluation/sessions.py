"""`eval sessions --data LIBRISPEECH`: session segmentation on streams assembled from real speech.

Each stream holds 4 conversations between one or two speakers (turns alternate, 0.3-1.2 s pauses, 15 %
of turns overlapping the previous by 0.3 s). Consecutive conversations are separated either by a long silence
(past session.gap_s) or by a short one (2-6 s) with all participants changed. The truth is each
conversation's span from the first speech onset to the last offset. Prediction runs the recorder's own parts:
Silero VAD and the segmenter, voice embeddings, online speaker assignment (no one known at the start), and
app.identity.sessions. "noised" adds noise at 10-20 dB SNR,
quiet babble from other speakers in the gaps, and (30 % of streams) microphone echo: the stream mixed back
with 0-0.2 gain and 0.1-0.5 s delay (EgoMem's appendix C).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np

from app.audio.media import read_audio
from app.config import Config
from app.errors import MediaError
from app.evaluation.plots import pyplot, saved
from app.evaluation.speakers import assign_turns, attributed, render_people, speaker_counts, summed
from app.frames import SAMPLE_RATE_HZ
from app.identity.sessions import Session, Turn, boundary_prf, frame_labels, jaccard, segment
from app.recorder.perception import load_vad, load_voice, single_thread_blas

STREAMS = 10
SESSIONS_PER_STREAM = 4


def _clips(data: Path, vad) -> dict[str, list[np.ndarray]]:
    """Each speaker's clips, trimmed to the speech (Silero over 32 ms windows) so truth spans are exact."""
    table = data / "manifest.csv"
    if not table.is_file():
        raise MediaError(f"{table} not found: expected a LibriSpeech-style manifest (path, speaker_id)")
    out = defaultdict(list)
    with table.open() as fh:
        for row in csv.DictReader(fh):
            audio = read_audio(data / row["path"])
            vad.reset()
            w = vad.window_samples
            speech = [i for i in range(0, len(audio) - w, w) if vad(audio[i : i + w]) >= 0.5]
            if speech:
                out[row["speaker_id"]].append(audio[speech[0] : speech[-1] + w])
    return out


def _stream(clips: dict[str, list[np.ndarray]], rng: np.random.Generator, gap_s: float):
    """(audio, true sessions, [(start s, end s, speaker)] of each turn)."""
    speakers = sorted(clips)
    placed, spans, truth, t, previous = [], [], [], 1.0, set()
    for k in range(SESSIONS_PER_STREAM):
        pool = [s for s in speakers if s not in previous]
        who = list(rng.choice(pool, 1 if rng.random() < 0.3 else 2, replace=False))
        previous = set(who)
        start = t
        for turn in range(int(rng.integers(3, 6))):
            speaker = who[turn % len(who)]
            clip = clips[speaker][int(rng.integers(len(clips[speaker])))]
            if turn and rng.random() < 0.15:
                t -= 0.3  # overlaps the end of the previous turn
            placed.append((int(t * SAMPLE_RATE_HZ), clip))
            spans.append((t, t + len(clip) / SAMPLE_RATE_HZ, str(speaker)))
            t += len(clip) / SAMPLE_RATE_HZ
            end = t
            t += float(rng.uniform(0.3, 1.2))
        truth.append(Session(start, end, frozenset()))
        t = end + (float(rng.uniform(gap_s + 2, gap_s + 10)) if k % 2 else float(rng.uniform(2.0, 6.0)))
    audio = np.zeros(int((t + 1.0) * SAMPLE_RATE_HZ), np.float32)
    for at, clip in placed:
        audio[at : at + len(clip)] += clip
    return audio, truth, spans


def _noised(audio: np.ndarray, clips: dict[str, list[np.ndarray]], rng: np.random.Generator) -> np.ndarray:
    out = audio.copy()
    if rng.random() < 0.3:  # microphone echo
        delay = int(rng.uniform(0.1, 0.5) * SAMPLE_RATE_HZ)
        out[delay:] += float(rng.uniform(0.0, 0.2)) * audio[:-delay]
    quiet = np.flatnonzero(np.convolve(np.abs(audio) > 1e-4, np.ones(SAMPLE_RATE_HZ), "same") == 0)
    for _ in range(int(rng.integers(1, 4))):  # distant babble from other people, in the gaps
        if len(quiet):
            pool = clips[sorted(clips)[int(rng.integers(len(clips)))]]
            clip = pool[int(rng.integers(len(pool)))][: 2 * SAMPLE_RATE_HZ]
            at = int(rng.choice(quiet))
            out[at : at + len(clip)] += 0.06 * clip[: len(out) - at]
    power = float(np.mean(audio[np.abs(audio) > 1e-4] ** 2)) if np.any(np.abs(audio) > 1e-4) else 1e-4
    snr_db = float(rng.uniform(10, 20))
    noise = np.cumsum(rng.standard_normal(len(out)).astype(np.float32))  # brown: most energy low, like rooms
    noise = noise - np.convolve(noise, np.ones(400) / 400, "same")
    noise *= np.sqrt(power / 10 ** (snr_db / 10) / max(float(np.mean(noise**2)), 1e-12))
    return (out + noise).astype(np.float32)


def predict(turns: list[Turn], cfg: Config) -> list[Session]:
    """Sessions as the recorder would cut them from its turns."""
    s = cfg.session
    return segment(turns, s.gap_s, s.change_gap_s, s.window_turns, s.min_speech_s, s.same_voice)


def eval_sessions(cfg: Config, data: Path, out_dir: Path | None = None, streams: int = STREAMS) -> dict:
    single_thread_blas()  # as the recorder runs
    vad, encoder = load_vad(cfg), load_voice(cfg)
    clips = _clips(data, vad)
    result = {"streams": streams, "sessions": streams * SESSIONS_PER_STREAM, "fps": 12.5}
    for condition in ("clean", "noised"):
        rng = np.random.default_rng(2024)
        pred_all, true_all, people = [], [], []
        for _ in range(streams):
            audio, truth, spans = _stream(clips, rng, cfg.session.gap_s)
            if condition == "noised":
                audio = _noised(audio, clips, rng)
            duration = len(audio) / SAMPLE_RATE_HZ
            turns = assign_turns(audio, cfg, vad, encoder)
            pred_all.append(frame_labels(predict(turns, cfg), duration))
            true_all.append(frame_labels(truth, duration))
            people.append(speaker_counts(attributed(turns, spans)))
        pred, true = np.concatenate(pred_all), np.concatenate(true_all)
        scores = {"jaccard": round(jaccard(pred, true), 4)}
        for n in (0, 5, 10):
            p, r, f = boundary_prf(pred, true, n)
            scores.update({f"p@{n}": round(p, 4), f"r@{n}": round(r, 4), f"f1@{n}": round(f, 4)})
        result[condition] = scores | {"people": summed(people)}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result["plot"] = _plot(out_dir / "sessions_f1.png", result)
    return result


def _plot(path: Path, r: dict) -> str | None:
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for condition in ("clean", "noised"):
        ax.plot([0, 5, 10], [r[condition][f"f1@{n}"] for n in (0, 5, 10)], marker="o", label=condition)
    ax.set_xlabel("tolerance (frames of 80 ms)")
    ax.set_ylabel("boundary F1")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(f"session boundaries, {r['sessions']} sessions")
    return saved(plt, fig, path)


def render(r: dict) -> str:
    lines = [f"session segmentation: {r['streams']} streams, {r['sessions']} sessions, frames of 80 ms"]
    for condition in ("clean", "noised"):
        c = r[condition]
        lines.append(
            f"  {condition:7s} Jaccard {c['jaccard']:.3f}  "
            + "  ".join(f"P/R/F1@{n} {c[f'p@{n}']:.3f}/{c[f'r@{n}']:.3f}/{c[f'f1@{n}']:.3f}" for n in (0, 5, 10))
        )
        lines.append(f"  {'':7s} people, summed over the streams: {render_people(c['people'])}")
    if r.get("plot"):
        lines.append(f"  plot: {r['plot']}")
    return "\n".join(lines) + "\n"
