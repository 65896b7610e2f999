"""`eval lifelog --spoken`: every speaker of a set keeps one voice over its scenes, a perturbed voice is heard as
another voice, an answer is read in the set's terms, and two short days spoken with conversational timing go
through the real recorder, the memory writer and the answerer, scored against the lines said."""

from __future__ import annotations

import importlib
from dataclasses import replace
from types import SimpleNamespace

import pytest

from app.evaluation.gold import LifeQuestion, Scene
from app.evaluation.lifelog import SETS
from app.evaluation.lifelog_spoken import VOICES, _in_set_terms, voices_of
from app.evaluation.spoken import perturbed
from app.identity.diarize import unit
from tests.conftest import LLM_MODEL


@pytest.mark.parametrize("which", sorted(SETS))
def test_every_speaker_of_a_set_keeps_a_voice_of_their_own(which):
    data = importlib.import_module(SETS[which])
    voices = voices_of(data.SCENES.values())
    speakers = {s for scene in data.SCENES.values() for s, _ in scene.lines}
    assert set(voices) == speakers and len(set(voices.values())) == len(speakers)
    assert voices[data.WEARER] == VOICES[0]  # the wearer, who says most, the plainest voice


def test_a_set_with_more_speakers_than_voices_is_refused():
    crowd = Scene("crowd", tuple((f"P{k}", "Hello.") for k in range(len(VOICES) + 1)), "2026-01-01T10:00:00", "m")
    with pytest.raises(ValueError, match="speakers"):
        voices_of([crowd])


def test_a_perturbed_voice_is_quicker_and_sounds_like_someone_else(speech, perception):
    said = ["I went to the market this morning and bought apples.", "We should meet for coffee after work."]
    plain = [speech(s, "slt") for s in said]
    quick = [perturbed(a, 1.16) for a in plain]
    assert [len(q) / len(a) for q, a in zip(quick, plain, strict=True)] == pytest.approx([1 / 1.16] * 2, abs=0.01)
    voice = [unit(perception.voice(a)) for a in (plain[0], plain[1], quick[1])]
    same, other = float(voice[0] @ voice[1]), float(voice[0] @ voice[2])
    assert same > other + 0.1, (same, other)  # Resemblyzer: 0.9 and more for one voice, about 0.8 across


def test_an_answer_is_read_in_the_sets_terms():
    people = {"unknown_3": {"speaker": "Ola"}, "Hannah": {"speaker": "Hana"}, "Theo": {"speaker": "Theo"}}
    said = _in_set_terms("Unknown_3 and Hannah met Theo and Luke.", people, ["Hana", "Luca", "Ola", "Theo"])
    assert said == "Ola and Hana met Theo and Luca."


def test_two_spoken_days_are_recorded_written_and_asked(speech, cfg, perception, llm):
    """Ana wears the glasses; Tom introduces himself on Monday, Mia on Tuesday; who was met each day is read from
    the conversations the recorder heard (no model), and every citation stands for a line said."""
    from app.evaluation.lifelog_spoken import spoken_lifelog

    scenes = {
        "monday": Scene(
            "monday",
            (
                ("Tom", "Hi Ana, I'm Tom, I just moved in next door."),
                ("Ana", "Welcome, Tom! How do you like the street?"),
                ("Tom", "It's quiet. My dog Rex loves the park."),
            ),
            "2026-03-02T09:00:00+00:00",
            "spoken",
        ),
        "tuesday": Scene(
            "tuesday",
            (
                ("Mia", "Hello Ana, I'm Mia from the library."),
                ("Ana", "Hi Mia. Is my book in yet?"),
                ("Mia", "It came this morning, you can pick it up today."),
            ),
            "2026-03-03T15:00:00+00:00",
            "spoken",
        ),
    }
    data = SimpleNamespace(
        SCENES=scenes,
        WEARER="Ana",
        ASKED_AT="2026-03-04T09:00:00+00:00",
        QUESTIONS=(
            LifeQuestion("who did I meet on Monday?", "met", ("tom",), 1, (("monday", 0),)),
            LifeQuestion("who did I meet on Tuesday?", "met", ("mia",), 1, (("tuesday", 0),)),
            LifeQuestion("where was Tom born?", "lookup"),
        ),
    )
    cfg = replace(cfg, llm=replace(cfg.llm, model=LLM_MODEL))
    r = spoken_lifelog(cfg, perception, llm, data)
    assert r["speakers"] == 3 and r["voices"]["Ana"] == VOICES[0] and r["lines"] == 6
    assert {v["speaker"] for v in r["people"].values()} == {"Ana", "Tom", "Mia"}
    assert r["wearer_as"] is not None and r["people"][r["wearer_as"]]["speaker"] == "Ana"
    assert r["questions"] == 3 and r["answerable"] == 2 and r["unanswerable"] == 1
    met = r["rows"][:2]
    assert all(row["right_answer"] and row["right_citation"] for row in met), met
    assert all(c.split(":")[0] in scenes for row in r["rows"] for c in row["cited"])
    assert r["right_answers"] == sum(row["right_answer"] for row in r["rows"])
