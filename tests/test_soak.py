"""`bench soak`: a short looped replay of real recordings through the real recorder reports the footprint
(the numbers themselves are README's; no timing is asserted here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.bench.soak import LoopSource, Timed, conversational_loop, heard_voices, real_loop
from app.cli import main
from app.errors import MediaError
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


def test_timed_tells_apart_methods_word_times_and_threads():
    class Model:
        def __call__(self, audio, words=False):
            return words

        def windows(self, audio, window_s, hop_s):
            return len(audio) // int(hop_s * 16000)

    timed = Timed(Model(), ("windows",))
    assert timed.windows(np.zeros(16000), 1.0, 0.25) == 4 and timed(np.zeros(160), words=True) and not timed([1])
    assert [(c.what, c.audio_s) for c in timed.calls] == [("windows", 1.0), ("words", 0.01), ("call", 0.0)]
    assert {c.thread for c in timed.calls} == {"MainThread"} and timed.busy("words") <= timed.busy_s


def test_heard_voices_counts_the_readers_of_the_replayed_part():
    starts = [(0.0, ("a", "b")), (60.0, ("b", "c", "d")), (120.0, ("a", "e"))]
    assert heard_voices(starts, 180.0, 50.0) == 2 and heard_voices(starts, 180.0, 61.0) == 4
    assert heard_voices(starts, 180.0, 500.0) == 5


def test_the_conversational_loop_needs_the_readers(tmp_path):
    with pytest.raises(MediaError, match="--conversational"):
        conversational_loop(tmp_path)


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


def test_conversational_loop_holds_both_groups_of_readers(shared_data):
    need_models("whisper-base")  # the readers' silver words (cached after the first run)
    audio, starts = conversational_loop(shared_data)
    assert len(starts) == 18 and {len(who) for _, who in starts} == {2, 3, 4}
    assert len({s for _, who in starts for s in who}) == 10 and len(audio) / 16000 > 20 * 60


def test_bench_soak_replays_conversations(shared_data, capsys):
    need_models("silero-vad", "whisper-base", "resemblyzer", "minilm-l6-int8")
    assert main(["bench", "soak", "--hours", "0.015", "--idle", "0", "--conversational", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)  # 54 s: the first conversation, two readers
    assert r["loop"]["conversational"] and r["loop"]["voices"] == 2 and r["errors"] == []
    assert r["utterances"] >= 5 and 1 <= r["people"] <= 4 and "idle" not in r
    assert set(r["stage_busy_share"]) == {"vad", "asr", "voice", "store"}
    assert r["calls"]["voice_windows"] >= 1 and r["calls"]["asr_words"] >= 1  # turns were looked for inside speech
    assert r["part_busy_share"]["asr_words"] > 0


def test_bench_soak_refuses_a_bad_duration(capsys):
    assert main(["bench", "soak", "--hours", "0"]) != 0
    assert "--hours" in capsys.readouterr().err
