"""The dialog context: Level 1 (profile) and Level 2 (retrieved) within their token budgets, with citations;
the profile re-rendered only when the identity changes; retrieval scoped by person and by time."""

from __future__ import annotations

from datetime import datetime, timezone

from app.ask.context import PROFILE_TOKENS, RETRIEVED_TOKENS, DialogContext, context
from app.ask.recall import search
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from tests.conftest import DAY, MAY_8


def test_budgets_are_never_exceeded(memory, perception, cfg):
    m, _ = memory
    now = datetime.fromtimestamp(MAY_8 + 3 * DAY, timezone.utc)
    ctx = context(m, perception.text, cfg.recall, "Caroline", "what does Caroline want to study?", now)
    assert 0 < ctx.profile_tokens <= PROFILE_TOKENS and 0 < ctx.retrieved_tokens <= RETRIEVED_TOKENS
    assert perception.text.count_tokens(ctx.profile) <= PROFILE_TOKENS
    assert perception.text.count_tokens(ctx.retrieved) <= RETRIEVED_TOKENS
    assert "counseling counseling" not in ctx.profile  # the 700-word fact does not fit: left out, not cut
    assert "dog: Luna [fact" in ctx.profile and "friend of Melanie" in ctx.profile
    assert "support group" in ctx.profile  # the summary of a conversation with her
    kinds = {c.kind for c in ctx.citations}
    assert {"fact", "relation", "summary", "utterance"} <= kinds
    lines = [line for line in ctx.retrieved.splitlines() if "[fact" not in line and "[relation" not in line]
    assert "[summary" in lines[0]  # the pyramid's top comes before the turns when it covers a hit


def test_tiny_budgets_hold_too(memory, perception, cfg):
    from app.ask.context import render_profile, retrieve

    m, _ = memory
    pid = m.people.person_id("Caroline")
    text, _, used = render_profile(m, pid, perception.text.count_tokens, limit=20)
    assert used <= 20 and perception.text.count_tokens(text) <= 20
    text, cited, used, _ = retrieve(m, perception.text, cfg.recall, "puppy", datetime.now(timezone.utc), limit=3)
    assert used <= 3 and cited == []


def test_profile_is_rendered_only_when_the_identity_changes(memory, perception, cfg):
    m, _ = memory
    dialog = DialogContext(m, perception.text, cfg.recall)
    dialog.person_changed("Caroline")
    dialog.person_changed("Caroline")
    first = dialog("what is her dog called", datetime.now(timezone.utc))
    dialog("and what does she study", datetime.now(timezone.utc))
    assert dialog.renders == 1 and first.person == "Caroline" and "Luna" in first.profile
    dialog.person_changed("Melanie")
    dialog.person_changed(None)
    assert dialog.renders == 3 and dialog("anything", datetime.now(timezone.utc)).profile == ""


def test_time_expressions_filter_by_event_time(memory, perception, cfg):
    m, uids = memory
    now = datetime.fromtimestamp(MAY_8 + 2 * DAY + 3600, timezone.utc)  # the third day, an hour later
    ctx = context(m, perception.text, cfg.recall, None, "what did we do yesterday?", now)
    cited = {c.id for c in ctx.citations if c.kind == "utterance"}
    assert ctx.time_filter is not None and cited == {uids[2], uids[3]}  # only the second day's words


def test_a_time_asked_about_holds_what_was_told_of_it_later(cfg, perception, tmp_path):
    """ "What did Maria do on 8 May?" is answered by "My mom and I made dinner last night", said on 9 May; what
    was said on 9 May of that day, or said weeks later of another night, is not. When nothing was said on the
    day asked about, the lines told of it come first."""
    from app.ask.context import find
    from app.ask.recall import Retriever

    lines = [
        (MAY_8, "I went to the gym this morning."),
        (MAY_8 + DAY, "My mom and I made dinner together last night!"),
        (MAY_8 + DAY + 600, "I made dinner with my sister today."),
        (MAY_8 + DAY + 1200, "Two days ago I went swimming in the lake."),
        (MAY_8 + 20 * DAY, "My brother and I made dinner last night."),
    ]
    with Memory.open(tmp_path / "t.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        maria = m.people.add_person("Maria").id
        uids = []
        for (t, text), vec in zip(lines, perception.text([x for _, x in lines]), strict=True):
            session = m.turns.start_session("t", t)
            uids.append(m.turns.add_utterance(NewUtterance(session, maria, text, t, t + 5, 1, "t", False, vec)))
        retriever, now = (
            Retriever(m, perception.text, cfg.recall),
            datetime.fromtimestamp(MAY_8 + 30 * DAY, timezone.utc),
        )
        found = find(retriever, "What did Maria make for dinner on 8 May?", now, 4)
        assert found.filtered and {e.utterance_id for e in found.evidence} == {uids[0], uids[1]}
        found = find(retriever, "Where did Maria swim on 7 May?", now, 4)
        assert found.evidence[0].utterance_id == uids[3]


def test_scoping_by_person_and_the_named_person_boost(memory, perception, cfg):
    m, uids = memory
    only_melanie = search(m, perception.text, "what happened", cfg.recall, top_k=6, people=["Melanie"])
    assert {e.person for e in only_melanie} == {"Melanie"} and len(only_melanie) == 3
    named = search(m, perception.text, "What did Melanie do outdoors?", cfg.recall, top_k=1)
    assert named[0].utterance_id == uids[3]  # camping, by the person the question names


def test_relation_words_and_graph_expansion(cfg, perception, tmp_path):
    """'Does any of my colleagues love tennis?': the people in a colleague relation come first; a friend of a
    named person is boosted less (one hop, decay 0.7)."""
    lines = [
        ("John", "I love tennis, I play every weekend."),
        ("David", "I love tennis too, since school."),
        ("Anna", "Tennis is my favourite sport to watch."),
        ("Emily", "I went hiking on Sunday."),
    ]
    with Memory.open(tmp_path / "g.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        ids = {name: m.people.add_person(name).id for name in ("Emily", "John", "David", "Anna")}
        session = m.turns.start_session("t", MAY_8)
        uids = {}
        for (name, text), vec in zip(lines, perception.text([t for _, t in lines]), strict=True):
            uids[name] = m.turns.add_utterance(
                NewUtterance(session, ids[name], text, MAY_8, MAY_8 + 5, 1, "t", False, vec)
            )
        m.derived.add_relation(ids["John"], "colleague", ids["Emily"], [uids["John"]])
        m.derived.add_relation(ids["Anna"], "friend", ids["Emily"], [uids["Emily"]])
        top = search(m, perception.text, "Does any of my colleagues love tennis?", cfg.recall, top_k=3)
        assert top[0].person == "John"
        from app.ask.recall import Retriever

        weights = Retriever(m, perception.text, cfg.recall).graph_weights(["Emily"], "who plays tennis")
        assert weights["Emily"] == 1.0 and abs(weights["John"] - 0.7) < 1e-9 and abs(weights["Anna"] - 0.7) < 1e-9
        assert "David" not in weights


def test_facts_matching_the_question_come_first_in_level_2(memory, perception, cfg):
    m, _ = memory
    ctx = context(
        m, perception.text, cfg.recall, None, "what is the name of Caroline's dog?", datetime.now(timezone.utc)
    )
    first = ctx.retrieved.splitlines()[0]
    assert first.startswith("Caroline — dog: Luna [fact") and ctx.citations[0].kind == "fact"
    assert ctx.retrieved_tokens <= RETRIEVED_TOKENS  # the 700-word career fact (about Caroline) did not fit


def test_the_same_answers_from_the_ann_index_and_its_turn_table(memory, perception, cfg, tmp_path):
    """Past `store.ann_min_utterances` the dense search runs on the IVF index, its 8-bit scores and the turn
    table saved with it: scoping by person and time, the named-person boost and Level 2 answer the same."""
    from dataclasses import replace

    m, uids = memory
    things, places = ["parcel", "dry cleaning", "bike", "prescription"], ["post office", "shop", "garage", "pharmacy"]
    fillers = [f"Reminder {i}: collect the {things[i % 4]} from the {places[i // 4 % 4]}." for i in range(300)]
    with m.batch():
        for start in range(0, 300, 20):  # nobody known said these, ten days before
            t = MAY_8 - 10 * DAY + start
            session = m.turns.start_session("t", t)
            for i, vec in enumerate(perception.text(fillers[start : start + 20])):
                text = fillers[start + i]
                m.turns.add_utterance(NewUtterance(session, None, text, t + i, t + i + 1, 1.0, "t", False, vec))
    at_scale = replace(cfg.store, ann_min_utterances=200, ann_nprobe=16)
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), at_scale) as big:
        answers = []
        for mem in (m, big):
            scoped = search(mem, perception.text, "what happened", cfg.recall, top_k=6, people=["Melanie"])
            named = search(mem, perception.text, "What did Melanie do outdoors?", cfg.recall, top_k=1)
            day = (MAY_8 + DAY - 1, MAY_8 + DAY + 10)
            window = search(mem, perception.text, "what did they do", cfg.recall, top_k=5, between=day)
            errands = search(mem, perception.text, "where is the bike", cfg.recall, top_k=5)
            now = datetime.fromtimestamp(MAY_8 + 2 * DAY + 3600, timezone.utc)
            ctx = context(mem, perception.text, cfg.recall, "Caroline", "what did we do yesterday?", now)
            answers.append(
                (
                    {e.utterance_id for e in scoped},
                    named[0].utterance_id,
                    {e.utterance_id for e in window},
                    {e.person for e in errands},
                    [c.id for c in ctx.citations if c.kind == "utterance"],
                )
            )
        assert big.dense.ivf is not None and m.dense.ivf is None  # one searched through the index, one exactly
    assert answers[0] == answers[1]
    assert answers[0][:3] == ({uids[1], uids[3], uids[5]}, uids[3], {uids[2], uids[3]}) and answers[0][3] == {None}


def test_a_written_fact_counts_for_the_turn_it_cites(memory, perception, cfg):
    """Memory writing joins what was said into a sentence a question matches better than the turn did;
    the hit lifts the turn it cites (recall.written_weight), and with the weight at 0 it does not."""
    import dataclasses

    from app.ask.recall import Retriever

    m, uids = memory
    question = "who has a new pet at home?"
    turns_only = Retriever(m, perception.text, dataclasses.replace(cfg.recall, written_weight=0.0))
    before = [e.utterance_id for e in turns_only.search(question, 6)]
    fact = "Caroline has a new pet at home, a puppy"  # cites an unrelated turn: only the citation can lift it
    with m.batch():
        m.writing.insert_fact(
            m.people.person_id("Caroline"),
            "attribute",
            "pet",
            fact,
            0,
            [uids[1]],
            None,
            MAY_8,
            1,
            perception.text([fact])[0],
        )
    weighted = dataclasses.replace(cfg.recall, written_weight=0.5)  # the mechanism, clearly (default: eval locomo)
    with_memory = [e.utterance_id for e in Retriever(m, perception.text, weighted).search(question, 6)]
    assert with_memory.index(uids[1]) < before.index(uids[1])
    assert [e.utterance_id for e in turns_only.search(question, 6)] == before
    m.con.execute("UPDATE facts SET faded = 1")  # a faded fact no longer counts
    assert [e.utterance_id for e in Retriever(m, perception.text, weighted).search(question, 6)] == before
