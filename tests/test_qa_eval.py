"""`eval qa`: LoCoMo's answer metric as its paper scores it, the stratified sample, and a short real run."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.evaluation.qa import QA_CATEGORIES, normalize, sample, score, token_f1
from tests.conftest import LLM_MODEL, need_default_llm, need_llm, need_models


def test_normalisation_and_stemmed_f1():
    assert normalize("The cat, and a Dog!") == "cat dog"
    assert token_f1("7 May 2023", "7 May, 2023") == 1.0
    assert token_f1("she plays tennis", "playing tennis") == pytest.approx(0.8)  # stems: play, tenni
    assert token_f1("nothing alike", "7 May 2023") == 0.0


def test_scores_by_category():
    # multi-hop: each gold part's best match among the answer's parts, averaged
    assert score("1", "pottery, camping", "camping, pottery, painting", True) == pytest.approx(2 / 3)
    assert score("3", "likely yes", "Likely yes; she cares about it", True) == 1.0  # gold cut at ';'
    assert score("5", "I don't know.", "Sweden", False) == 1.0
    assert score("5", "It is not mentioned.", "Sweden", True) == 1.0
    assert score("5", "Sweden", "Sweden", True) == 0.0


def test_sample_is_stratified_and_seeded(shared_data):
    from app.evaluation.locomo import load

    conversations = load(shared_data / "locomo" / "locomo10.json", QA_CATEGORIES)
    first = sample(conversations, 40, seed=0)
    assert len(first) == 200
    counts = {c: sum(q.category == c for _, q in first) for c in QA_CATEGORIES}
    assert counts == dict.fromkeys(QA_CATEGORIES, 40)
    assert first == sample(conversations, 40, seed=0) and first != sample(conversations, 40, seed=1)
    assert all(q.answer for _, q in first)
    # a sample of questions no earlier seed drew: none of seeds 0 and 1's
    drawn = {(ci, q.text) for s in (0, 1) for ci, q in sample(conversations, 40, s)}
    unseen = sample(conversations, 40, seed=2, unseen_by=2)
    assert unseen and not {(ci, q.text) for ci, q in unseen} & drawn
    assert {(ci, q.text) for ci, q in sample(conversations, 40, seed=2)} & drawn  # which a plain seed 2 does draw
    assert sample(conversations, 40, seed=0, unseen_by=1) != first


def test_a_short_real_run(shared_data, tmp_path, capsys):
    need_default_llm()
    need_models("minilm-l6-int8")
    data = shared_data / "locomo" / "locomo10.json"
    kept = tmp_path / "replies.json"
    run = ["eval", "qa", "--data", str(data), "--limit", "5", "--out", str(tmp_path), "--json", "--replies", str(kept)]
    assert main(run) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["replies"]["asked"] > 0 and result["replies"]["kept"] == 0 and kept.exists()
    assert result["questions"] == 5 and "qwen2.5-coder" in result["model"]  # by its name: the model loads later
    table = result["answer"]
    assert set(table["by_category"]) == set(QA_CATEGORIES)
    assert 0.0 <= table["f1_1_4"] <= 1.0 and table["s_per_question"] > 0
    assert 0.0 <= table["date_answers"] <= 1.0 and (table["citation_precision"] is None) == (table["citations"] == 0)
    rows = [json.loads(line) for line in (tmp_path / "qa_answers.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and all(r["answer"]["answer"] for r in rows)
    for r in rows:  # what was read, and why an answer is unknown when it is
        assert r["answer"]["known"] == (r["answer"]["why_unknown"] == ""), r
        assert set(r["answer"]["cited"]) <= set(r["answer"]["chosen"])
    assert result["plot"] == str(tmp_path / "qa.png") and (tmp_path / "qa.png").stat().st_size > 10_000
    # again with the replies kept: the same answers, the model asked nothing
    assert main(run) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["replies"] == {"file": str(kept), "kept": result["replies"]["asked"], "asked": 0}
    assert [json.loads(line) for line in (tmp_path / "qa_answers.jsonl").read_text().splitlines()] == rows


def test_eval_answers_on_the_gold_questions(tmp_path, capsys):
    """`eval answers`: the project's gold questions over the demo, the companion scene and the memory scene,
    scored question by question (answer, citation, refusal); a short run of the default model."""
    need_default_llm()
    need_models("minilm-l6-int8")
    from app.evaluation.gold import GOLD, HELD_OUT

    assert len(GOLD) >= 60 and sum(not g.answerable for g in GOLD) >= 15
    assert len(HELD_OUT) >= 30 and not {g.question for g in HELD_OUT} & {g.question for g in GOLD}
    assert main(["eval", "answers", "--limit", "10", "--out", str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 10 and len(result["rows"]) == 10
    assert result["right_answers"] >= 8, [(r["question"], r["answer"]) for r in result["rows"]]
    assert result["right_citations"] >= 8 and result["seconds_p50"] > 0
    saved = json.loads((tmp_path / "answers.json").read_text())
    assert saved["right_answers"] == result["right_answers"]
    assert len((tmp_path / "answers.jsonl").read_text().splitlines()) == 10
    assert main(["eval", "answers", "--held-out", "--limit", "2", "--out", str(tmp_path), "--json"]) == 0
    held = json.loads(capsys.readouterr().out)
    assert held["set"] == "held-out" and [r["question"] for r in held["rows"]] == [g.question for g in HELD_OUT[:2]]


def test_eval_facts_scores_the_written_memory_against_gold_facts(tmp_path, capsys):
    """`eval facts`: the scenes' memory written as the recorder writes it (the 0.5B writes the summaries), then
    each gold atomic fact matched or not, with its kind and date, and whether summaries name everyone."""
    need_llm()
    need_models("minilm-l6-int8")
    from app.evaluation.facts import GOLD_FACTS

    assert main(["--set", f"llm.model={LLM_MODEL}", "eval", "facts", "--out", str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["gold"] == len(GOLD_FACTS) == len(result["rows"]) and result["written"] > 0
    rows = {r["gold"]: r for r in result["rows"]}
    assert rows["David is allergic to peanuts"]["matched"], rows["David is allergic to peanuts"]
    assert not any(r["matched"] and r["similarity"] < result["threshold"] for r in result["rows"])
    assert 0 < result["recall"] <= 1 and 0 < result["precision"] <= 1
    assert result["summaries"] and 0 <= result["summaries_naming_everyone"] <= 1
    assert json.loads((tmp_path / "facts.json").read_text())["recall"] == result["recall"]


def test_the_lifelog_sets_are_whole():
    """The lifelog sets (`eval lifelog`): every kind asked, a fifth or more unanswerable (or 20), every cited line
    there."""
    from app.evaluation import (
        lifelog_held_out,
        lifelog_held_out_2,
        lifelog_held_out_3,
        lifelog_held_out_4,
        lifelog_tuning,
    )

    for data in (lifelog_tuning, lifelog_held_out, lifelog_held_out_2, lifelog_held_out_3, lifelog_held_out_4):
        assert {q.kind for q in data.QUESTIONS} == set(data.KINDS)
        assert sum(not q.answerable for q in data.QUESTIONS) >= min(20, len(data.QUESTIONS) // 5)
        for q in data.QUESTIONS:
            assert all(i < len(data.SCENES[scene].lines) for scene, i in q.lines), q
            assert 1 <= q.need <= max(len(q.accept), 1), q
    sets = (lifelog_held_out, lifelog_held_out_2, lifelog_held_out_3, lifelog_held_out_4)
    held = [q for data in sets for q in data.QUESTIONS]
    assert len(held) >= 550 and sum(not q.answerable for q in held) >= 110


@pytest.mark.parametrize(
    ("phrase", "answer", "says"),
    [
        ("dog", "A cat and two dogs.", True),  # a short phrase: a word of its own, or its plural
        ("no", "I don't know.", False),
        ("no", "Probably not, no.", True),
        ("3", "Friday 3 October 2026", True),
        ("3", "In 2023.", False),
        ("krak", "She moved to Kraków.", True),  # a longer one: anywhere, so a stem takes every ending
    ],
)
def test_a_lifelog_answer_says_a_short_phrase_only_as_a_word(phrase, answer, says):
    from app.evaluation.answers import _said
    from app.evaluation.lifelog import says as said

    assert said(phrase, _said(answer)) is says


def test_eval_lifelog_scores_each_kind(tmp_path, capsys):
    """`eval lifelog`: a wearer's days written into memory by the default model, the first questions answered
    and scored per kind."""
    need_default_llm()
    need_models("minilm-l6-int8")
    assert main(["eval", "lifelog", "--limit", "4", "--out", str(tmp_path), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["sets"]
    assert result["set"] == "tuning" and result["questions"] == 4 and len(result["rows"]) == 4
    assert {r["parsed"] for r in result["rows"]} >= {"recap"}  # the set opens with recaps: told from summaries
    assert result["right_answers"] >= 1, [(r["question"], r["answer"]) for r in result["rows"]]
    saved = json.loads((tmp_path / "tuning" / "lifelog.json").read_text())
    assert saved["kinds"] == result["kinds"]


def test_the_question_kinds_are_whole_and_apart_from_the_examples():
    """`eval kinds`' set: 15 questions of every kind in each half, none twice, none among the examples the kinds
    are learnt from (app/ask/kind_examples.py, 50 of every kind)."""
    from app.ask.kind_examples import CONTRASTS, EXAMPLES
    from app.ask.question import Kind
    from app.evaluation import question_kinds as data

    kinds = {str(k) for k in Kind}
    assert set(data.KINDS) == kinds and {k for _, k in EXAMPLES} == kinds
    for half in (data.TUNING, data.HELD_OUT):
        assert all(sum(k == kind for _, k in half) == 15 for kind in kinds)
    asked = [q.lower() for q, _ in (*data.TUNING, *data.HELD_OUT)]
    assert len(set(asked)) == len(asked) and not set(asked) & {q.lower() for q, _ in (*EXAMPLES, *CONTRASTS)}
    assert all(sum(k == kind for _, k in EXAMPLES) == 50 for kind in kinds)


def test_eval_kinds_parses_each_half_and_keeps_the_held_out_blind(tmp_path, capsys):
    """`eval kinds`: no model, the parse alone over a memory of the set's people and relations; the held-out
    half's questions are never printed nor kept, only its tally."""
    assert main(["eval", "kinds", "--out", str(tmp_path), "--json"]) == 0
    tuning = json.loads(capsys.readouterr().out)
    assert tuning["questions"] == 285 and len(tuning["rows"]) == 285
    assert tuning["accuracy"] >= 0.8, tuning["kinds"]  # 0.87 when written
    assert tuning["rules_accuracy"] < tuning["accuracy"]  # the rules alone: 0.59
    assert main(["eval", "kinds", "--held-out", "--out", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "BAD" not in shown and "held-out questions, kind parsed right" in shown
    assert json.loads((tmp_path / "kinds.json").read_text())["rows"] == []
