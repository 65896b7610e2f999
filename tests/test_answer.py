"""Grounded answers on the real 0.5B model: the answer, `known`, citations that are always evidence the model
was shown, unknown without evidence, the answer streamed out of the JSON reply, and a prompt that carries no
example facts for a small model to copy."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from app.answer import SYSTEM, UNKNOWN, Answerer, AnswerText, schema, spoken_time, supported
from app.llm import Request
from app.store.keys import Secret
from app.store.memory import Memory
from tests.conftest import DAY, MAY_8

NOW = datetime.fromtimestamp(MAY_8 + 3 * DAY, timezone.utc)


def test_answers_from_evidence_and_cites_it(llm, memory, perception, cfg):
    m, uids = memory
    streamed: list[str] = []
    complete: list[str] = []  # the answer as it stood when its closing quote came (before the citations)
    answer = Answerer(llm, m, perception.text, cfg)(
        "What is the name of Caroline's puppy?",
        NOW,
        None,
        streamed.append,
        on_answered=lambda: complete.append("".join(streamed)),
    )
    assert answer.known and "Luna" in answer.answer
    assert "".join(streamed).strip() == answer.answer and [c.strip() for c in complete] == [answer.answer]
    cited = [c["id"] for c in answer.citations]
    assert cited and set(cited) <= set(answer.evidence) and uids[4] in answer.evidence
    rows = m.utterances(cited)  # which lines a 0.5B model cites varies; that each citation is real does not
    for c in answer.citations:
        assert (c["person"], c["text"], c["t_start"]) == (
            rows[c["id"]].person,
            rows[c["id"]].text,
            rows[c["id"]].t_start,
        )
    assert answer.prompt_tokens > 0 and answer.completion_tokens > 0 and answer.latency_ms > 0


def test_says_it_does_not_know_when_the_memory_holds_nothing(llm, cfg, tmp_path, perception):
    with Memory.open(tmp_path / "empty.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        answer = Answerer(llm, m, perception.text, cfg)("What is Melanie's favourite opera?", NOW)
    assert not answer.known and answer.answer == UNKNOWN and answer.citations == []
    assert answer.prompt_tokens == 0  # nothing to answer from: the model is not asked


def test_an_unsupported_question_is_not_answered_with_a_guess(llm, memory, perception, cfg):
    m, _ = memory
    answer = Answerer(llm, m, perception.text, cfg)("What is the name of Melanie's husband?", NOW)
    assert not answer.known and answer.answer == UNKNOWN and answer.citations == []


def test_citations_are_only_ever_evidence_ids(llm, memory, perception, cfg):
    m, _ = memory
    answerer = Answerer(llm, m, perception.text, cfg)
    messages, ids = answerer.messages("Who went camping?", NOW)
    assert ids and all(f"[{i}]" in messages[1]["content"] for i in ids)
    reply = llm.complete(Request(messages, schema=schema(ids), max_tokens=64), timeout=120)
    assert set(reply.data["citations"]) <= set(ids)
    # what the checker does with an id the model was not shown (a server that ignores the schema could send it)
    reply.data = {"answer": "Melanie", "citations": [ids[0], 999999]}
    checked = answerer._grounded("Who went camping?", reply, ids, 0.0, None, messages[1]["content"])
    assert [c["id"] for c in checked.citations] == [ids[0]]


def test_the_profile_of_the_person_asking_answers_too(llm, memory, perception, cfg):
    m, uids = memory
    answer = Answerer(llm, m, perception.text, cfg)("What is the name of my dog?", NOW, person="Caroline")
    assert answer.known and "Luna" in answer.answer


def test_an_answer_must_add_something_the_evidence_says():
    evidence = "8 May 2023 Caroline: I adopted a puppy named Luna. [5]"
    assert supported("Luna", "What is the name of Caroline's puppy?", evidence)
    assert not supported("Caroline", "What is the name of Caroline's puppy?", evidence)  # repeats the question
    assert not supported("Max", "What is the name of Caroline's puppy?", evidence)  # not in the evidence
    assert supported("adopting a puppy", "What did Caroline do in May?", evidence)  # adopt- matches adopted


def test_evidence_is_dated_the_way_answers_should_be():
    assert spoken_time(MAY_8) == "8 May 2023"


def test_the_answer_streams_out_of_the_json_reply():
    reply = '{"answer": "Luna, the \\"puppy\\" \\u00e9t\\u00e9", "citations": [5]}'
    for size in (1, 2, 3, 7, len(reply)):
        stream = AnswerText()
        text = "".join(stream.feed(reply[i : i + size]) for i in range(0, len(reply), size))
        assert text == json.loads(reply)["answer"], size
        assert stream.done


def test_the_prompt_holds_no_example_facts():
    """A small model copies names, dates and numbers out of its instructions into answers."""
    assert not re.search(r"\d", SYSTEM)
    sentence_starts = {m.group(1) for m in re.finditer(r"(?:^|[.:]\s+)([A-Z]\w*)", SYSTEM)}
    capitalised = set(re.findall(r"\b[A-Z]\w*", SYSTEM))
    assert capitalised - sentence_starts <= {"JSON", "I"}, capitalised - sentence_starts
