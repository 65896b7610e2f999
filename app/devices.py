"""Execution providers for --device cpu|cuda|jetson, with a logged fallback to CPU. The runtimes
(onnxruntime, CTranslate2, llama.cpp) are imported by the functions that ask them: they are heavy, and no
process needs them all."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

_LOGGER = logging.getLogger(__name__)

_WANTED = {
    "cpu": ["CPUExecutionProvider"],
    "cuda": ["CUDAExecutionProvider", "CPUExecutionProvider"],
    "jetson": ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"],
}


def available_providers() -> list[str]:
    import onnxruntime

    return list(onnxruntime.get_available_providers())


@functools.cache
def onnx_providers(kind: str) -> tuple[str, ...]:
    """The providers to use for `kind`, those not installed dropped with one warning, CPU always last."""
    chosen = list(select(kind, available_providers(), False, False).onnx_providers)
    missing = [p for p in _WANTED[kind] if p not in chosen]
    if missing and kind != "cpu":
        _LOGGER.warning(
            "--device %s: %s not available in this onnxruntime; falling back to %s",
            kind,
            ", ".join(missing),
            ", ".join(chosen),
        )
    return tuple(chosen)


@dataclass(frozen=True)
class Profile:
    """What `--device` changes: where each kind of model runs and how."""

    kind: str
    onnx_providers: tuple[str, ...]  # VAD, voice, text embedder, face models
    asr_device: str  # faster-whisper (CTranslate2): cpu | cuda
    asr_compute_type: str  # int8 on a CPU, float16 on a GPU, int8_float16 on a Jetson (memory-bound)
    llm_gpu_layers: int  # llama.cpp layers offloaded: -1 all, 0 none


def select(kind: str, providers: list[str], ctranslate2_cuda: bool, llama_offload: bool) -> Profile:
    """The profile for `kind` given what this machine has (pure: the selection logic, tested on its own)."""
    wanted = _WANTED[kind]
    gpu = kind != "cpu"
    asr = ("cuda", "int8_float16" if kind == "jetson" else "float16") if gpu and ctranslate2_cuda else ("cpu", "int8")
    return Profile(
        kind,
        tuple(p for p in wanted if p in providers),
        asr[0],
        asr[1],
        -1 if gpu and llama_offload else 0,
    )


def ctranslate2_cuda() -> bool:
    try:
        import ctranslate2
    except ImportError:
        return False
    return ctranslate2.get_cuda_device_count() > 0


def llama_gpu_layers(kind: str) -> int:
    """GPU layers for llama.cpp: all on cuda/jetson when llama.cpp was built with GPU support, else 0."""
    if kind == "cpu":
        return 0
    try:
        import llama_cpp
    except ImportError:
        return 0
    offload = bool(llama_cpp.llama_supports_gpu_offload())
    if not offload:
        _LOGGER.warning("--device %s: llama.cpp was built without GPU offload; using the CPU", kind)
    return select(kind, [], False, offload).llm_gpu_layers


def session_options(threads: int):  # -> onnxruntime.SessionOptions
    import onnxruntime

    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return opts


def onnx_session(path, kind: str, threads: int):  # -> onnxruntime.InferenceSession
    """An InferenceSession on the chosen providers, with pinned threads and quiet logs."""
    import onnxruntime

    providers = onnx_providers(kind)
    sess = onnxruntime.InferenceSession(str(path), sess_options=session_options(threads), providers=list(providers))
    _LOGGER.debug("loaded %s on %s", path, sess.get_providers())
    return sess
