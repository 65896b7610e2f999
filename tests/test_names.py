"""One rule for where a name is said (app/store/names.py), and forgetting and renaming by it: a short name
inside a longer word ("Al" in "allergic"), a name of SQL wildcards ("%"), a name that ends in punctuation
("J.R.") and a name in another case with non-ASCII letters ("ZOË" for "Zoë") — each forgets and renames
exactly its own mentions, on the real encrypted store."""

from __future__ import annotations

import pytest

from app.store import names
from app.store.forget import forget_person
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

T0 = 1_750_000_000.0


@pytest.mark.parametrize(
    ("text", "name", "said"),
    [
        ("David is allergic to peanuts", "Al", False),
        ("Al is allergic to peanuts", "Al", True),
        ("ask al, he knows", "Al", True),
        ("100% sure", "%", False),
        ("it was % of it", "%", True),
        ("the o_k sign", "o_k", True),
        ("the ok sign", "o_k", False),
        ("J.R. came late", "J.R.", True),
        ("ask J.R.", "J.R.", True),
        ("J.R.R. Tolkien", "J.R.", False),
        ("ZOË SAID SO", "Zoë", True),
        ("zoë said so", "ZOË", True),
        ("Zoëlle said so", "Zoë", False),
        ("HERR STRAUSS", "Strauß", True),
        ("Herr Strauß", "Strauss", True),
        ("Émile's bike", "émile", True),
        ("", "Al", False),
        ("anything", " ", False),
    ],
)
def test_the_rule(text, name, said):
    assert names.mentions(text, name) is said


def test_replace_keeps_everything_else():
    assert names.replace("Zoë met ZOË and zoëlle", "Zoë", "Chloé") == "Chloé met Chloé and zoëlle"
    assert names.replace("J.R. and J.R.R.", "J.R.", "[someone]") == "[someone] and J.R.R."


@pytest.fixture
def memory(tmp_path, cfg, perception):
    m = Memory.open(tmp_path / "m.db", Secret(b"names test", "test"), cfg.store, create=True)
    yield m
    m.close()


def _say(memory: Memory, embed, person: str, *texts: str) -> list[int]:
    pid = memory.people.person_id(person) or memory.people.add_person(person).id
    sid = memory.turns.start_session("test", T0)
    uids = []
    for i, (text, vec) in enumerate(zip(texts, embed(list(texts)), strict=True)):
        uids.append(
            memory.turns.add_utterance(NewUtterance(sid, pid, text, T0 + i, T0 + i + 2, 0.9, "test", False, vec))
        )
    return uids


def _facts(memory: Memory) -> list[str]:
    return sorted(r[0] for r in memory.con.execute("SELECT value FROM facts"))


def test_forgetting_al_spares_the_allergy_and_a_wildcard_name_spares_everyone(memory, perception):
    embed = perception.text
    (david_said,) = _say(memory, embed, "David", "I am allergic to peanuts, 100% sure")
    (sarah_said,) = _say(memory, embed, "Sarah", "I am a doctor")
    (pct_said,) = _say(memory, embed, "%", "hello")
    david, sarah, pct = (memory.people.person_id(n) for n in ("David", "Sarah", "%"))
    memory.derived.add_fact(david, "attribute", "health", "David is allergic to peanuts", [david_said])
    memory.derived.add_fact(sarah, "attribute", "job", "Sarah is a doctor", [sarah_said])
    memory.derived.add_fact(pct, "attribute", "other", "% says hello", [pct_said])
    memory.people.rename_person("Sarah", "Al")
    assert _facts(memory) == ["% says hello", "Al is a doctor", "David is allergic to peanuts"]

    forget_person(memory, "Al", embed)
    assert _facts(memory) == ["% says hello", "David is allergic to peanuts"]
    assert [u.text for u in memory.turns.all_utterances()] == ["I am allergic to peanuts, 100% sure", "hello"]

    forget_person(memory, "%", embed)
    assert _facts(memory) == ["David is allergic to peanuts"]
    assert [u.text for u in memory.turns.all_utterances()] == ["I am allergic to peanuts, 100% sure"]


@pytest.mark.parametrize(("name", "said_as", "renamed"), [("J.R.", "J.R.", "Jim"), ("Zoë", "ZOË", "Zoe")])
def test_a_name_with_punctuation_or_other_case_is_renamed_and_forgotten_everywhere(
    memory, perception, name, said_as, renamed
):
    embed = perception.text
    (own,) = _say(memory, embed, name, "I collect stamps")
    (other,) = _say(memory, embed, "Maria", f"{said_as} collects stamps, ask {said_as}.")
    pid, maria = memory.people.person_id(name), memory.people.person_id("Maria")
    memory.derived.add_fact(pid, "attribute", "hobby", f"{said_as} collects stamps", [own])
    memory.derived.add_fact(maria, "attribute", "other", f"Maria knows {said_as}", [other])
    memory.derived.add_summary(1, T0, T0 + 9, f"Maria and {said_as} talked about stamps.", utterances=[own, other])

    memory.people.rename_person(name, renamed)
    assert _facts(memory) == sorted([f"Maria knows {renamed}", f"{renamed} collects stamps"])
    assert memory.con.execute("SELECT text FROM summaries").fetchone()[0] == f"Maria and {renamed} talked about stamps."
    memory.people.rename_person(renamed, name)  # and back: the name with its punctuation or accent is written again
    assert _facts(memory) == sorted([f"Maria knows {name}", f"{name} collects stamps"])

    forget_person(memory, name, embed)
    assert _facts(memory) == []  # Maria's fact named them
    assert [u.text for u in memory.turns.all_utterances()] == ["[someone] collects stamps, ask [someone]."]
    assert memory.con.execute("SELECT count(*) FROM summaries").fetchone()[0] == 0
