"""CLI: version, doctor, asking before anything is recorded, the benchmarks' reports."""

from __future__ import annotations

import json

import pytest

from app import __version__
from app.cli import main
from tests.conftest import need_models


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"lifemem {__version__}"


def test_ask_before_recording(capsys):
    assert main(["ask", "anything"]) == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no memory" in err[0]


def test_doctor_without_a_database(capsys):
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    assert main(["doctor", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["database"]["exists"] is False
    assert {m["name"] for m in report["models"]} >= {"silero-vad", "pocketsphinx-en-us", "resemblyzer"}
    assert "CPUExecutionProvider" in report["runtimes"]["onnx_providers_used"]


def test_doctor_reports_missing_models(tmp_path, capsys):
    assert main(["--set", f"models.dir={tmp_path}", "doctor"]) == 3
    assert "problems found" in capsys.readouterr().out


def test_device_falls_back_to_cpu_with_a_warning(caplog, capsys):
    import logging

    from app.devices import onnx_providers

    onnx_providers.cache_clear()
    with caplog.at_level(logging.WARNING):
        providers = onnx_providers("cuda")
    assert providers[-1] == "CPUExecutionProvider"
    if "CUDAExecutionProvider" not in providers:
        assert "falling back" in caplog.text


def test_bench_pipeline_reports_every_stage(capsys):
    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8")
    assert main(["bench", "pipeline", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in (
        "vad_ms_per_chunk",
        "asr_rtf",
        "voice_embed_ms",
        "face_ms_per_frame",
        "text_embed_ms",
        "store_insert_ms",
        "ask_p50_ms",
        "ask_p95_ms",
    ):
        assert report[key] > 0, key
    assert report["demo"]["utterances"] == 12 and report["demo"]["real_time_factor"] > 0


def test_bench_store_reports_every_representation(capsys):
    need_models("minilm-l6-int8")
    pytest.importorskip("faiss")
    assert main(["bench", "store", "--n", "3000", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["insert_per_s"] > 0 and report["db_bytes_per_1k"] > 0
    (checkpoint,) = report["checkpoints"]
    reps = checkpoint["representations"]
    assert reps["float32 sqlite-vec (exact)"]["recall_at_10"] == 1.0  # the reference is exact
    assert {"int8 sqlite-vec", "binary sqlite-vec + float32 rescoring", "IVF-SQ8 (FAISS, RAM)"} <= set(reps)
    assert all(0.0 <= r["recall_at_10"] <= 1.0 and r["p95_ms"] >= r["p50_ms"] > 0 for r in reps.values())


def test_bench_identity_reports_each_part_of_a_poll(capsys):
    need_models("resemblyzer", "dlib")
    assert main(["bench", "identity", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["people"] == 1000 and report["match_ms"] > 0 and report["face_embed_ms"] > 0
    polls = report["polls_per_scene"]
    # the scenes do what they say: nothing embedded while unchanged, a face moved keeps its track (embedded
    # again only when its embedding is 10 s old), a new face every poll is embedded every poll
    assert report["faces_embedded"]["unchanged"] == 0
    assert 0 < report["faces_embedded"]["moved"] <= polls // 4
    assert report["faces_embedded"]["new_face"] == polls
    for scene in ("unchanged", "moved", "new_face"):
        assert report[f"poll_{scene}_max_ms"] >= report[f"poll_{scene}_p50_ms"] > 0


def test_bench_recall_reports_ingest_and_query_latency(capsys):
    need_models("minilm-l6-int8")
    assert main(["bench", "recall", "--n", "3000", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ingest_per_s"] > 0
    (point,) = report["query"]
    assert point["n"] == 3000 and point["p95_ms"] >= point["p50_ms"] > 0
    assert point["first_p95_ms"] >= point["first_p50_ms"] > 0


def test_device_profiles_change_where_each_model_runs():
    from app.devices import select

    every = ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]
    cpu = select("cpu", every, True, True)
    assert (cpu.onnx_providers, cpu.asr_device, cpu.asr_compute_type, cpu.llm_gpu_layers) == (
        ("CPUExecutionProvider",),
        "cpu",
        "int8",
        0,
    )
    cuda = select("cuda", every, True, True)
    assert cuda.onnx_providers == ("CUDAExecutionProvider", "CPUExecutionProvider")
    assert (cuda.asr_device, cuda.asr_compute_type, cuda.llm_gpu_layers) == ("cuda", "float16", -1)
    jetson = select("jetson", every, True, True)
    assert jetson.onnx_providers == tuple(every) and jetson.asr_compute_type == "int8_float16"
    # asked for a GPU on a machine without one: everything falls back to the CPU
    bare = select("jetson", ["CPUExecutionProvider"], False, False)
    assert (bare.onnx_providers, bare.asr_device, bare.asr_compute_type, bare.llm_gpu_layers) == (
        ("CPUExecutionProvider",),
        "cpu",
        "int8",
        0,
    )


def test_no_command_runs_the_wearable_job_or_says_why_not(capsys):
    """`python -m app --device jetson`: record camera and microphone and serve; here there are none."""
    assert main(["--device", "jetson"]) == 7
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no usable")
