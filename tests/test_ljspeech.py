"""Real speech: the 8 LJSpeech clips joined with pauses, recorded, and each found again by its words."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np

from app.audio.media import read_audio, write_media
from app.cli import main
from app.text.words import keywords

PAUSE_S = 1.5


def test_each_clip_is_found_again_by_a_few_content_words(shared_data, tmp_path, capsys, perception):
    folder = shared_data / "asr_small_samples" / "ljspeech"
    rows = [line.strip().split("|") for line in (folder / "metadata.csv").read_text().splitlines() if line]
    parts, spans, t = [np.zeros(16000, np.float32)], [], 1.0
    for clip_id, _, _ in rows:
        audio = read_audio(folder / f"{clip_id}.flac")
        spans.append((t, t + len(audio) / 16000))
        parts += [audio, np.zeros(int(PAUSE_S * 16000), np.float32)]
        t += len(audio) / 16000 + PAUSE_S
    recording = tmp_path / "ljspeech.wav"
    write_media(recording, np.concatenate(parts))
    origin = 1_760_000_000.0
    import os

    os.utime(recording, (origin + t, origin + t))  # mtime - duration = the event time of the start
    assert main(["run", "--source", str(recording), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["utterances"] >= len(rows)
    assert summary["people"] == 1 and summary["new_people"] == 1  # one reader: one person
    found, report = 0, []
    for i, (clip_id, _, normalized) in enumerate(rows):
        query = " ".join(keywords(normalized)[:3])
        assert main(["ask", query, "--json", "-k", "3"]) == 0
        results = json.loads(capsys.readouterr().out)["results"]
        t0, t1 = spans[i]
        hit = any(t0 - 0.5 <= dt.datetime.fromisoformat(r["t_start"]).timestamp() - origin <= t1 for r in results)
        report.append(f"{clip_id} {query!r}: {'found' if hit else 'MISSED'} -> {[r['text'] for r in results]}")
        found += hit
    print("\n".join([*report, f"LJSpeech clips found in the top 3: {found} of {len(rows)}"]))
    assert found >= 7
