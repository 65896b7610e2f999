"""The OpenAI-compatible backend against a real server: llama-cpp-python's `python -m llama_cpp.server` with the
0.5B model, started by the test on 127.0.0.1. Streaming, JSON schemas (the server takes the json_object
shape, so the backend learns it), cancellation, token counts, and a one-line error when nothing listens."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from app.errors import LLMError
from app.llm import DIALOG, Request, load_llm
from tests.conftest import MODELS, need_models

MODEL = "qwen2.5-coder-0.5b"
GGUF = MODELS / "qwen2.5-coder-0.5b" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


@pytest.fixture(scope="module")
def server(cfg):
    need_models(MODEL)
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed (build.py --dev)")
    from app.bench.llm import start_server, stop_server

    proc, url = start_server(GGUF, threads=2, context=2048)
    yield url
    stop_server(proc)


@pytest.fixture(scope="module")
def llm(cfg, server):
    worker = load_llm(replace(cfg, llm=replace(cfg.llm, backend="openai", url=server, model="local")))
    yield worker
    worker.close()


def _ask(text: str, **kw) -> Request:
    return Request(({"role": "system", "content": "You are terse."}, {"role": "user", "content": text}), **kw)


def test_streams_over_http(llm):
    job = llm.submit(_ask("Name three colours, separated by commas.", max_tokens=24))
    pieces = list(job.tokens(timeout=60))
    reply = job.result()
    assert len(pieces) > 1 and "".join(pieces) == reply.text and reply.text.strip()
    assert reply.usage.completion_tokens > 1 and reply.usage.first_token_s is not None
    assert reply.usage.finish in ("stop", "length")


def test_json_schema_through_the_server(llm):
    schema = {
        "type": "object",
        "properties": {"colour": {"enum": ["red", "green", "blue"]}, "warm": {"type": "boolean"}},
        "required": ["colour", "warm"],
    }
    reply = llm.complete(_ask("What colour is a ripe tomato, and is it warm?", schema=schema), DIALOG, timeout=60)
    assert reply.data == {"colour": "red", "warm": True}
    assert llm.backend._shape == "json_object"  # llama-cpp-python refuses OpenAI's json_schema shape


def test_cancel_closes_the_stream(llm):
    job = llm.submit(_ask("Count from one to two hundred in words.", max_tokens=400))
    for n, _ in enumerate(job.tokens(timeout=60), 1):
        if n == 3:
            job.cancel()
    reply = job.result()
    assert reply.usage.finish == "cancelled" and len(reply.text) < 200
    assert llm.complete(_ask("Say yes.", max_tokens=3), timeout=60).text  # the server still serves


def test_token_count_comes_from_the_server(llm):
    assert llm.backend.count_tokens("hello world") == 2


def test_unreachable_server_is_one_line_after_retries(cfg):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    worker = load_llm(replace(cfg, llm=replace(cfg.llm, backend="openai", url=url, retries=1, timeout_s=2)))
    started = time.perf_counter()
    try:
        with pytest.raises(LLMError) as err:
            worker.complete(_ask("hi"), timeout=30)
    finally:
        worker.close()
    assert f"LLM server at {url}: unreachable" in str(err.value) and "\n" not in str(err.value)
    assert time.perf_counter() - started < 10


def test_an_empty_url_is_a_config_problem(cfg):
    with pytest.raises(LLMError, match="llm.url is empty"):
        load_llm(replace(cfg, llm=replace(cfg.llm, backend="openai", url="")))
