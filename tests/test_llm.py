"""The LLM runtime on the real 0.5B model in process: streaming, token counts, JSON schemas with validation and
one retry, cancellation, priorities and pre-emption, the prompt-prefix cache, and one-line errors for a
missing, foreign or truncated model file and for a prompt that does not fit."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace

import pytest

from app.errors import LLMCancelled, LLMError
from app.llm import BACKGROUND, DIALOG, RESTART, Request, load_llm
from tests.conftest import LLM_MODEL, MODELS, need_llm, need_models

MODEL = LLM_MODEL


def _cfg(cfg, **llm):
    return replace(cfg, llm=replace(cfg.llm, model=MODEL, **llm))


@pytest.fixture(scope="module")
def llm(cfg):
    need_llm()
    worker = load_llm(_cfg(cfg, context=2048))
    yield worker
    worker.close()


def _ask(text: str, system: str = "You are a terse assistant.", **kw) -> Request:
    return Request(({"role": "system", "content": system}, {"role": "user", "content": text}), **kw)


def test_streams_text_with_token_counts(llm):
    job = llm.submit(_ask("Name three colours, separated by commas.", max_tokens=24))
    pieces = list(job.tokens(timeout=60))
    reply = job.result()
    assert pieces and "".join(pieces) == reply.text and reply.text.strip()
    u = reply.usage
    assert u.prompt_tokens > 10 and 0 < u.completion_tokens <= 24
    assert u.first_token_s is not None and 0 < u.first_token_s <= u.total_s
    assert u.finish in ("stop", "length")
    assert llm.backend.count_tokens("hello world") == 2


def test_json_schema_is_enforced_and_parsed(llm):
    schema = {
        "type": "object",
        "properties": {"colour": {"enum": ["red", "green", "blue"]}, "warm": {"type": "boolean"}},
        "required": ["colour", "warm"],
        "additionalProperties": False,
    }
    reply = llm.complete(_ask("What colour is a ripe tomato, and is it a warm colour?", schema=schema), timeout=60)
    assert reply.data == {"colour": "red", "warm": True}


def test_an_invalid_reply_is_asked_again_once_then_a_clear_error(llm, caplog):
    # multipleOf is checked by the validator but not by the grammar: the model can write 3, which is invalid
    schema = {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 1000}}, "required": ["n"]}
    job = llm.submit(_ask("Reply with n equal to 3.", schema=schema, max_tokens=16))
    seen: list = []
    with pytest.raises(LLMError, match="not valid JSON for its schema") as e, caplog.at_level(logging.INFO):
        for piece in job.tokens(timeout=60):
            seen.append(piece)
    assert RESTART in seen  # the first reply was thrown away and the question asked again, with the reason
    # the error and the log say where and which rule, never what the reply said (a name, a fact)
    assert "'multipleOf' failed at /n" in str(e.value) and "3" not in str(e.value).split("(")[-1]
    assert "multipleOf' failed at /n" in caplog.text and "is not a multiple" not in caplog.text


def test_a_reply_cut_off_by_max_tokens_is_not_asked_again(llm):
    schema = {"type": "object", "properties": {"story": {"type": "string"}}, "required": ["story"]}
    job = llm.submit(_ask("Tell a long story about the sea.", schema=schema, max_tokens=12))
    pieces: list = []
    with pytest.raises(LLMError, match="cut off at 12 tokens"):
        for piece in job.tokens(timeout=60):
            pieces.append(piece)
    assert RESTART not in pieces


def test_cancel_stops_generation_mid_reply(llm):
    job = llm.submit(_ask("Count from one to two hundred in words.", max_tokens=400))
    pieces = []
    for piece in job.tokens(timeout=60):
        pieces.append(piece)
        if len(pieces) == 5:
            job.cancel()
    reply = job.result()
    assert reply.usage.finish == "cancelled"
    assert 5 <= reply.usage.completion_tokens < 50
    # the model is usable right after
    assert llm.complete(_ask("Say yes.", max_tokens=4), timeout=60).text.strip()


def test_dialog_runs_before_queued_background_work(llm):
    blocker = llm.submit(_ask("Count from one to twenty in words.", max_tokens=60), BACKGROUND)
    background = llm.submit(_ask("Say one word.", max_tokens=4), BACKGROUND)
    dialog = llm.submit(_ask("Say one word.", max_tokens=4), DIALOG)
    done: list[str] = []
    for name, job in (("background", background), ("dialog", dialog)):
        job.future.add_done_callback(lambda _, n=name: done.append(n))
    blocker.result(120)
    background.result(120)
    assert done == ["dialog", "background"]


def test_a_reply_someone_waits_for_gets_the_dialog_threads(cfg):
    """Background work beside the recorder keeps one thread; an answer gets every core (`llm.dialog_threads`),
    and the context's own thread count says so."""
    need_llm()
    import llama_cpp

    worker = load_llm(_cfg(cfg, context=1024, threads=1, dialog_threads=2, process="in-process"))
    try:
        ctx = worker.backend.llm._ctx.ctx

        def threads_after(priority: int) -> tuple[int, int]:
            worker.submit(_ask("Say one word.", max_tokens=4), priority).result(120)
            return llama_cpp.llama_n_threads(ctx), llama_cpp.llama_n_threads_batch(ctx)

        assert threads_after(BACKGROUND) == (1, 1)
        assert threads_after(DIALOG) == (2, 2)
        assert threads_after(BACKGROUND) == (1, 1)
    finally:
        worker.close()


def test_dialog_pre_empts_background_json_work(llm):
    words = {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 30}
    schema = {"type": "object", "properties": {"animals": words}, "required": ["animals"]}
    long_job = llm.submit(_ask("List thirty animals.", schema=schema, max_tokens=400), BACKGROUND)
    stream = long_job.tokens(timeout=60)
    next(stream)  # it is generating
    started = time.perf_counter()
    urgent = llm.complete(_ask("Say hi.", max_tokens=4), DIALOG, timeout=60)
    waited = time.perf_counter() - started
    assert urgent.text.strip()
    assert RESTART in list(stream)  # stepped aside and ran again from the start
    assert isinstance(long_job.result(120).data, dict)
    assert waited < long_job.result().usage.total_s  # the dialog did not wait for the whole background job


def test_profile_prefix_is_evaluated_once_per_person(llm):
    backend = llm.backend
    profiles = {name: f"You are talking with {name}. " + f"{name} likes walks by the river. " * 30 for name in "AB"}

    def ask(name: str, question: str):
        return llm.complete(_ask(question, system=profiles[name], max_tokens=2, cache_prefix=1), timeout=60)

    before = backend.prefix_evaluations
    n_prefix = backend.prompt_tokens(_ask("?", system=profiles["A"]).messages, 1)[1]
    assert n_prefix > 200
    first = ask("A", "What does A like?")
    again = ask("A", "Where does A walk?")  # the prefix is still loaded
    ask("B", "What does B like?")  # another person: evaluated, A's saved
    back = ask("A", "Does A like rivers?")  # A's state loaded from the cache, not evaluated
    assert backend.prefix_evaluations - before == 2
    assert first.usage.cached_tokens == 0 or first.usage.cached_tokens < 40
    assert again.usage.cached_tokens >= n_prefix and back.usage.cached_tokens == n_prefix


def test_a_prompt_kept_ahead_is_reused_by_a_later_prompt_that_begins_alike(cfg):
    """`Request.keep` on the real 0.5B in its child process: nothing is generated, the prompt's state is kept, and
    the next prompt beginning with the same tokens evaluates only the rest and says what it says cold; kept
    states beyond `llm.kept_prompts` go, the least recently used first."""
    need_llm()
    worker = load_llm(_cfg(cfg, context=2048, kept_prompts=2, process="child"))
    try:
        lines = {
            "peanuts": "David: David is allergic to peanuts, so nobody should bring cookies to the party.",
            "bank": "John: The meeting with the bank is on Monday at ten o'clock.",
            "tennis": "Emily: Emily plays tennis with her friends every Saturday morning.",
        }

        def read(line: str, question: str, **kw) -> Request:
            return _ask(f"{line}\n\nQuestion: {question}", system="Answer from the line in a few words.", **kw)

        question = "What is David allergic to?"
        cold = worker.complete(read(lines["peanuts"], question, max_tokens=6, cache_prefix=1), timeout=120)
        for name in ("peanuts", "bank"):
            kept = worker.complete(read(lines[name], "", max_tokens=1, cache_prefix=1, keep=True), timeout=120)
            assert kept.text == "" and kept.usage.completion_tokens == 0 and kept.usage.finish == "stop"
        worker.complete(_ask("Something else.", max_tokens=1), timeout=120)  # another prompt in the context
        warm = worker.complete(read(lines["peanuts"], question, max_tokens=6, cache_prefix=1), timeout=120)
        line_tokens = worker.backend.count_tokens(lines["peanuts"])
        n_prefix = worker.backend.prompt_tokens(read(lines["peanuts"], question).messages, 1)[1]  # the instructions
        assert warm.usage.cached_tokens >= n_prefix + line_tokens - 1, (cold.usage, warm.usage)
        assert warm.text == cold.text and "peanut" in warm.text.lower()
        # a third kept prompt: the least recently used of two ("bank") goes
        worker.complete(read(lines["tennis"], "", max_tokens=1, cache_prefix=1, keep=True), timeout=120)
        worker.complete(_ask("Something else.", max_tokens=1), timeout=120)
        bank = worker.complete(read(lines["bank"], "When is the meeting?", max_tokens=6, cache_prefix=1), timeout=120)
        assert bank.usage.cached_tokens <= n_prefix + 3, bank.usage  # the instructions (and the "John" in both)
    finally:
        worker.close()


def test_forgetting_drops_the_prompts_queued_to_be_kept(llm):
    """After a deletion nothing may keep what was deleted: prompts still queued to be kept ahead are dropped, not
    evaluated, while other queued work runs."""
    running = llm.submit(_ask("Count from one to forty in words.", max_tokens=60), DIALOG)
    next(running.tokens(timeout=120))  # it has begun
    kept = [llm.submit(_ask(f"Line {i}: something said.", max_tokens=1, keep=True), BACKGROUND) for i in range(3)]
    other = llm.submit(_ask("Say yes.", max_tokens=2), BACKGROUND)
    llm.forget_prefixes()
    running.result(timeout=120)
    for job in kept:
        with pytest.raises(LLMCancelled):
            job.result(timeout=120)
    assert other.result(timeout=120).text


def test_context_overflow_is_one_clear_line(llm):
    with pytest.raises(LLMError, match="exceed the model's context of 2048 tokens"):
        llm.complete(_ask("word " * 3000, max_tokens=16), timeout=60)
    assert llm.complete(_ask("Say ok.", max_tokens=3), timeout=60).text  # still serving


def test_async_wait_does_not_block_the_loop(llm):
    import asyncio

    async def main():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.create_task(tick())
        reply = await asyncio.wait_for(llm.submit(_ask("Say hello.", max_tokens=8)).wait(), 60)
        ticker.cancel()
        return reply, ticks

    reply, ticks = asyncio.run(main())
    assert reply.text and ticks > 3


@pytest.mark.parametrize("content", [None, b"", b"not a model at all", "truncated"])
def test_bad_model_files_are_one_clear_line(cfg, tmp_path, content):
    pytest.importorskip("llama_cpp")
    path = tmp_path / "model.gguf"
    if content == "truncated":
        need_models(MODEL)
        with (MODELS / "qwen2.5-coder-0.5b" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf").open("rb") as fh:
            path.write_bytes(fh.read(2_000_000))
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(LLMError) as err:
        load_llm(replace(cfg, llm=replace(cfg.llm, model=str(path))))
    message = str(err.value)
    assert "\n" not in message and str(path) in message


def test_a_corrupt_registry_model_names_the_fix(cfg, tmp_path):
    from app.errors import ModelError

    target = tmp_path / "qwen2.5-coder-0.5b" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    target.parent.mkdir()
    target.write_bytes(b"GGUF" + b"\0" * 100)
    broken = replace(cfg, models=replace(cfg.models, dir=str(tmp_path)), llm=replace(cfg.llm, model=MODEL))
    with pytest.raises(ModelError, match="checksum mismatch.*build.py"):
        load_llm(broken)


def test_worker_close_cancels_and_refuses_more(cfg):
    need_models(MODEL)
    worker = load_llm(_cfg(cfg, context=1024))
    job = worker.submit(_ask("Count to one hundred.", max_tokens=300))
    next(job.tokens(timeout=60))
    closer = threading.Thread(target=worker.close)
    closer.start()
    closer.join(60)
    assert job.result(10).usage.finish == "cancelled"
    with pytest.raises(LLMError, match="stopped"):
        worker.submit(_ask("hi"))


def test_kept_replies_answer_again_without_the_model(cfg, tmp_path):
    """`load_llm(..., replies=FILE)` (`eval qa --replies`): the model's replies are kept in a file (0600) when the
    worker closes; a second worker answers the same requests from it without loading the model, streaming the same
    text with the same token counts, and asks the model only what is new."""
    need_llm()
    from app.errors import ConfigError, MediaError

    kept = tmp_path / "replies.json"
    config = _cfg(cfg, context=1024, process="in-process")
    first = load_llm(config, replies=kept)
    try:
        said = first.submit(_ask("Name one colour.", max_tokens=8)).result(120)
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        parsed = first.submit(_ask("Is water wet? Answer in JSON.", max_tokens=16, schema=schema)).result(120)
    finally:
        first.close()
    assert kept.stat().st_mode & 0o777 == 0o600 and said.text
    again = load_llm(config, replies=kept)
    try:
        same = again.submit(_ask("Name one colour.", max_tokens=8)).result(10)
        assert same.text == said.text and same.usage.completion_tokens == said.usage.completion_tokens
        assert again.submit(_ask("Is water wet? Answer in JSON.", max_tokens=16, schema=schema)).result(10).data == (
            parsed.data
        )
        assert again.backend.info()["replies_kept"] == 2 and "context" not in again.backend.info()  # no model loaded
        assert again.submit(_ask("Name one animal.", max_tokens=8)).result(120).text  # new: the model answers
        assert again.backend.info()["replies_asked"] == 1
    finally:
        again.close()
    with pytest.raises(ConfigError, match="not of llm.model"):  # another model's replies are not this one's
        load_llm(replace(config, llm=replace(config.llm, model=str(tmp_path / "other.gguf"))), replies=kept)
    kept.write_text("{not json")
    with pytest.raises(MediaError, match="not a file of kept model replies"):
        load_llm(config, replies=kept)
