"""`eval facts --spoken`: utterances stand for the lines they overlap in time, people for the speakers whose lines
they spoke, the timing is drawn as documented and deterministically, and one short scene spoken with conversational
timing goes through the real recorder, the memory writer and the scorer consistently."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import numpy as np
import pytest

from app.evaluation.facts_spoken import as_gold, lines_of, speakers_of
from app.evaluation.gold import SCENES
from app.evaluation.spoken import GAP_S, LEAD_S, OVERLAP_S, PAUSED_GAP_S, render, voices_for
from app.frames import SAMPLE_RATE_HZ
from tests.conftest import LLM_MODEL


def _noise(text: str, voice: str) -> np.ndarray:
    """A stand-in for flite: 60 ms per character, its voice's own level."""
    rng = np.random.default_rng(len(text))
    return (0.1 + 0.05 * len(voice)) * rng.standard_normal(int(0.06 * len(text) * SAMPLE_RATE_HZ)).astype(np.float32)


def test_an_utterance_stands_for_the_lines_it_overlaps_most():
    lines = [(0.0, 3.0), (3.2, 6.0), (6.1, 9.0)]
    utterances = [
        (0.0, 1.6),  # line 0, split in two ...
        (1.6, 3.3),  # ... the second half reaching 0.1 s into line 1
        (3.3, 9.2),  # lines 1 and 2 heard as one
        (20.0, 21.0),  # no line: noise
    ]
    assert lines_of(utterances, lines) == [{0}, {0}, {1, 2}, set()]
    assert lines_of([], lines) == [] and lines_of(utterances[:1], []) == [set()]


def test_a_person_is_the_speaker_whose_lines_they_mostly_spoke():
    lines = [("Emily", (0.0, 3.0)), ("John", (3.0, 6.0)), ("Emily", (6.0, 9.0))]
    said = [
        ("unknown_1", (0.0, 3.5)),  # Emily's line and 0.5 s of John's
        ("unknown_1", (6.0, 9.0)),
        ("John", (3.5, 6.0)),
        ("unknown_2", (30.0, 31.0)),  # on no line
        (None, (1.0, 2.0)),  # nobody's
    ]
    who = speakers_of(said, lines)
    assert who["unknown_1"]["speaker"] == "Emily" and who["unknown_1"]["seconds"] == {"Emily": 6.0, "John": 0.5}
    assert who["John"]["speaker"] == "John"
    assert who["unknown_2"]["speaker"] is None and set(who) == {"unknown_1", "unknown_2", "John"}


def test_written_items_are_read_in_the_golds_terms():
    who = {"unknown_1": {"speaker": "Felix"}, "unknown_2": {"speaker": None}}
    stands = {10: {0}, 11: {1, 2}, 12: set()}
    item = {"person": "Ines", "text": "Ines is Unknown_1's daughter", "kind": "relation", "sources": {11}}
    mine = as_gold(item, who, stands)
    assert (mine["person"], mine["text"], mine["sources"]) == ("Ines", "Ines is Felix's daughter", {1, 2})
    about = as_gold(
        {"person": "unknown_1", "text": "likes tea", "kind": "preference", "sources": {10, 12}}, who, stands
    )
    assert (about["person"], about["sources"], about["written_person"]) == ("Felix", {0}, "unknown_1")
    assert (
        as_gold({"person": "unknown_2", "text": "x", "kind": "attribute", "sources": set()}, who, stands)["person"]
        == ""
    )
    # a name the recognizer spelled otherwise that sounds like exactly one of the gold's reads as the gold spells it
    names = ["Hana", "Greta", "Luca", "Mila", "Theo"]
    wife = as_gold(
        {"person": "Hannah", "text": "Hannah is Greta's wife", "kind": "relation", "sources": {10}}, who, stands, names
    )
    assert (wife["person"], wife["text"], wife["written_person"]) == ("Hana", "Hana is Greta's wife", "Hannah")
    girl = as_gold(
        {"person": "Meela", "text": "Meela is Theo's girlfriend", "kind": "relation", "sources": set()},
        who,
        stands,
        names,
    )
    assert (girl["person"], girl["text"]) == ("Mila", "Mila is Theo's girlfriend")
    other = as_gold(
        {"person": "Karim", "text": "Karim works in solar", "kind": "attribute", "sources": set()}, who, stands, names
    )
    assert (other["person"], other["text"]) == ("Karim", "Karim works in solar")


def test_conversational_timing_is_drawn_as_documented_and_deterministic():
    demo = SCENES["demo"]
    a, b = render(demo, "conversational", 0, _noise), render(demo, "conversational", 0, _noise)
    assert a.lines == b.lines and np.array_equal(a.audio, b.audio)
    assert render(demo, "conversational", 1, _noise).lines != a.lines
    assert a.voices == voices_for(demo) == {"Emily": "slt", "John": "rms", "David": "kal16"}
    offsets = [p.offset_s for p in a.lines[1:]]
    assert a.lines[0].start_s == LEAD_S and a.lines[0].offset_s is None
    assert sum(o < 0 for o in offsets) == round(0.2 * 11)  # every change is a speaker change in the demo
    assert all(-OVERLAP_S[1] <= o < 0 or GAP_S[0] <= o <= 1.2 for o in offsets)
    assert sum(o >= 0.8 for o in offsets) == 1
    for prev, p in zip(a.lines, a.lines[1:], strict=False):
        assert p.start_s == pytest.approx(prev.end_s + p.offset_s, abs=1e-3)
    start = datetime.fromisoformat(demo.start).timestamp()
    assert a.origin_epoch_s + a.lines[0].start_s == start  # the first line is said at the scene's start
    paused = render(demo, "paused", 0, _noise)
    assert [p.offset_s for p in paused.lines[1:]] == [PAUSED_GAP_S] * 11
    assert [p.end_s - p.start_s for p in paused.lines] == pytest.approx([p.end_s - p.start_s for p in a.lines])


def test_a_spoken_scene_is_recorded_written_and_scored(speech, cfg, perception, llm):
    """The memory scene (4 lines, Emily and John introduce themselves) spoken with conversational timing."""
    from app.evaluation.facts import GOLD_FACTS
    from app.evaluation.facts_spoken import pooled, spoken_facts

    cfg = replace(cfg, llm=replace(cfg.llm, model=LLM_MODEL))
    golds = [g for g in GOLD_FACTS if g.scene == "scene"]
    r = pooled(spoken_facts(cfg, perception, llm, {"scene": SCENES["scene"]}, golds, "conversational", 0))
    scene = r["scenes"]["scene"]
    assert scene["timing"]["overlaps"] == 1 and scene["recorder"]["errors"] == []
    assert scene["lines_unheard"] == 0 and all(h["lines"] for h in scene["heard"])
    assert {p: v["speaker"] for p, v in r["people"]["scene"].items()} == {"Emily": "Emily", "John": "John"}
    assert scene["people"] == scene["speakers"] == 2 and scene["about_unnamed"] == 0
    matched = [row for row in r["rows"] if row["matched"]]
    assert r["gold"] == len(golds) and r["recall"] == round(len(matched) / len(golds), 3)
    assert r["written"] == scene["written"] and len(r["unmatched"]) == r["written"] - len(matched)
    assert r["precision"] == round(len(matched) / r["written"], 3)
    assert len(matched) >= 3, r["rows"]  # the words are heard well enough to write most of them
