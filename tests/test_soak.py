"""`bench soak`: a short looped replay of real recordings through the real recorder reports the footprint
(the numbers themselves are README's; no timing is asserted here)."""

from __future__ import annotations

import json

import numpy as np

from app.bench.soak import LoopSource, Timed, real_loop
from app.cli import main
from tests.conftest import need_models, run_async


def test_loop_source_repeats_the_recording_to_its_duration():
    audio = np.arange(16000, dtype=np.float32)  # one second
    source = LoopSource(audio, 2.5, "loop")

    async def collect():
        return [c async for c in source.stream()]

    chunks = run_async(collect())
    samples = np.concatenate([c.samples for c in chunks])
    assert len(samples) == 40000 and samples[16000] == 0 and samples[-1] == 7999
    assert [c.t_start_s for c in chunks] == sorted(c.t_start_s for c in chunks)


def test_timed_counts_calls_and_forwards_attributes():
    class Model:
        name = "m"

        def __call__(self, audio):
            return len(audio)

    timed = Timed(Model())
    assert timed(np.zeros(8000)) == 8000 and timed.name == "m"
    assert len(timed.calls) == 1 and timed.calls[0][0] == 0.5 and timed.busy_s >= 0


def test_real_loop_counts_its_voices(shared_data):
    audio, voices = real_loop(shared_data)
    assert voices == 12 and len(audio) / 16000 > 600  # ten LibriSpeech readers, the LJSpeech reader, JFK


def test_bench_soak_reports_the_footprint(shared_data, capsys):
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    assert main(["bench", "soak", "--hours", "0.02", "--idle", "2", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["asr"] == "whisper-base" and r["utterances"] >= 3 and r["people"] >= 1 and r["errors"] == []
    assert 0 < r["rss_mb"]["models_loaded"] <= r["rss_mb"]["max"]
    assert set(r["stage_busy_share"]) == {"vad", "asr", "voice", "store"}
    assert len(r["by_tenth"]["asr_ms_per_speech_s"]) == 10 and r["idle"]["seconds"] > 1
    assert r["one_hour_takes_min"] > 0 and r["cpu_real_time_factor"] > 0


def test_bench_soak_refuses_a_bad_duration(capsys):
    assert main(["bench", "soak", "--hours", "0"]) != 0
    assert "--hours" in capsys.readouterr().err
