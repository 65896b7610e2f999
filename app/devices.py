"""Execution providers for --device cpu|cuda|jetson, with a logged fallback to CPU."""

from __future__ import annotations

import functools
import logging

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
    available = set(available_providers())
    wanted = _WANTED[kind]
    chosen = [p for p in wanted if p in available]
    missing = [p for p in wanted if p not in available]
    if missing and kind != "cpu":
        _LOGGER.warning(
            "--device %s: %s not available in this onnxruntime; falling back to %s",
            kind,
            ", ".join(missing),
            ", ".join(chosen),
        )
    return tuple(chosen)


def llama_gpu_layers(kind: str) -> int:
    """GPU layers for llama.cpp: all on cuda/jetson when llama.cpp was built with GPU support, else 0."""
    if kind == "cpu":
        return 0
    try:
        import llama_cpp
    except ImportError:
        return 0
    if not llama_cpp.llama_supports_gpu_offload():
        _LOGGER.warning("--device %s: llama.cpp was built without GPU offload; using the CPU", kind)
        return 0
    return -1


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
