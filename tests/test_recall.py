"""Hybrid retrieval: query words, FTS5 escaping, score fusion, person and time scoping, finding a stored
utterance."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app.ask.recall import fuse, in_context, search
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.search import fts_match
from app.store.utterances import NewUtterance
from app.text.words import keywords


def test_keywords_drop_stopwords_keep_order():
    assert keywords("Does any of my colleagues love tennis?") == ["colleagues", "love", "tennis"]
    assert keywords("who is it") == ["who", "is", "it"]  # all stopwords: keep them rather than nothing
    assert keywords("Why hadn't Caroline's dog's vet called?") == ["caroline", "dog", "vet", "called"]


def test_fts_match_quotes_every_word_so_syntax_cannot_leak():
    assert fts_match(keywords('tennis" OR (chess')) == '"tennis" OR "chess"'
    assert fts_match(keywords("NEAR(apples pears) AND c*")) == '"near" OR "apples" OR "pears"'
    assert fts_match(keywords("o'clock")) == '"o\'clock"'
    assert fts_match(['say "hi"']) == '"say ""hi"""'
    assert fts_match(keywords("   ")) == ""


def test_fusion_adds_relative_bm25_and_the_person_boost():
    fused = fuse({1: 0.5, 2: 0.45, 3: 0.3}, {2: 8.0, 3: 4.0}, {3: 0.15}, bm25_weight=0.2)
    assert fused[1] == 0.5 and abs(fused[2] - 0.65) < 1e-9 and abs(fused[3] - 0.55) < 1e-9
    assert fuse({1: 0.2}, {}, {}, 0.2) == {1: 0.2}  # no keyword match: cosine alone


def test_an_utterance_is_scored_with_the_turns_around_it():
    e = np.eye(3, dtype=np.float32)
    vectors = {1: e[0], 2: e[1], 3: e[2]}
    around = {1: (None, 2), 2: (1, 3), 3: (2, None)}
    middle = in_context(vectors, around, [2], 0.5)[0]
    assert np.allclose(middle, np.array([0.5, 1.0, 0.5]) / np.linalg.norm([0.5, 1.0, 0.5]))
    assert np.allclose(in_context(vectors, around, [2], 0.0)[0], e[1])  # weight 0: the turn alone
    assert np.allclose(in_context(vectors, {}, [1], 0.5)[0], e[0])  # no neighbours known
    first = in_context(vectors, around, [1], 0.5)[0]
    assert abs(float(np.linalg.norm(first)) - 1.0) < 1e-6 and first[2] == 0.0  # only the session's own turns
    rows = in_context(vectors, around, [3, 1, 2], 0.5)  # many at once, in the order asked
    assert np.allclose(rows[0], in_context(vectors, around, [3], 0.5)[0]) and np.allclose(rows[2], middle)


def test_neighbours_stay_within_a_session(cfg, tmp_path):
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        a, b = memory.turns.start_session("test", 1e9), memory.turns.start_session("test", 1e9)
        vec = np.ones(384, np.float32) / np.sqrt(384)
        ids = [
            memory.turns.add_utterance(NewUtterance(s, None, f"turn {i}", 1e9 + i, 1e9 + i + 1, 1.0, "t", False, vec))
            for i, s in enumerate([a, b, a, a, b])
        ]
        around = memory.search.neighbours(ids)
    assert around[ids[0]] == (None, ids[2])  # the next turn of session a, not b's interleaved one
    assert around[ids[2]] == (ids[0], ids[3]) and around[ids[3]] == (ids[2], None)
    assert around[ids[1]] == (None, ids[4]) and around[ids[4]] == (ids[1], None)
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store) as memory:
        c = memory.turns.start_session("test", 1e9)
        run = [
            memory.turns.add_utterance(NewUtterance(c, None, f"c {i}", 1e9 + i, 1e9 + i, 1.0, "t", False, vec))
            for i in range(4)
        ]
        memory.con.execute("DELETE FROM utterances WHERE id = ?", (run[1],))  # a gap in the session's ids
        around = memory.search.neighbours([run[0], run[2], run[3]])
    assert around == {run[0]: (None, run[2]), run[2]: (run[0], run[3]), run[3]: (run[2], None)}


def test_the_answer_after_a_question_is_found_by_the_question(cfg, perception, tmp_path):
    """The answer "Three years, and they still make me happy" never says what it is about; the question
    before it does, and it is scored with it."""
    turns = [
        "How long have you had your turtles?",
        "Three years, and they still make me happy.",
        "We should repaint the kitchen walls green.",
        "The quarterly budget review is on Thursday.",
    ]
    sessions = []
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        for i, (t, v) in enumerate(zip(turns, perception.text(turns), strict=True)):
            if i % 2 == 0:
                sessions.append(memory.turns.start_session("test", 1e9 + 100 * i))
            memory.turns.add_utterance(
                NewUtterance(sessions[-1], None, t, 1e9 + 100 * i, 1e9 + 100 * i + 3, 1.0, "t", False, v)
            )
        query = "how many years has the pet turtle lived with them"
        alone = search(memory, perception.text, query, replace(cfg.recall, context_weight=0.0), top_k=4)
        mixed = search(memory, perception.text, query, cfg.recall, top_k=4)
    score = {
        name: next(e.score for e in found if e.text == turns[1]) for name, found in (("alone", alone), ("mixed", mixed))
    }
    assert score["mixed"] > score["alone"] + 0.1  # measured 0.76 vs 0.56
    assert {e.text for e in mixed[:2]} == set(turns[:2])


def test_ask_finds_a_stored_utterance(cfg, perception, tmp_path):
    texts = [
        "we should repaint the kitchen walls green",
        "the quarterly budget review is on Thursday",
        "my nephew just started learning the violin",
        "let us order pizza for dinner tonight",
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        session = memory.turns.start_session("test", 1e9)
        pid = memory.people.add_person().id
        for i, (t, v) in enumerate(zip(texts, perception.text(texts), strict=True)):
            memory.turns.add_utterance(
                NewUtterance(session, pid, t, 1e9 + 10 * i, 1e9 + 10 * i + 3, 0.9, "t", False, v)
            )
        by_meaning = search(memory, perception.text, "who plays a musical instrument", cfg.recall)
        by_word = search(memory, perception.text, "budget", cfg.recall)
    assert by_meaning[0].text == texts[2] and by_meaning[0].person == "unknown_1"
    assert by_word[0].text == texts[1] and by_word[0].t_start == 1e9 + 10
    assert all(isinstance(e.score, float) for e in by_meaning)
    assert np.all(np.diff([e.score for e in by_meaning]) <= 0)


def test_session_bm25_favours_the_conversation_whose_turns_hold_the_words_between_them(cfg, tmp_path):
    from app.ask.recall import session_bm25

    conversations = [
        ["we booked the ferry", "the island hotel has a pool", "see you at the harbour"],  # both words, two turns
        ["the ferry was late again", "lunch was fine", "nothing else happened today", "bye"],  # one of them
        ["my sister called", "the weather is awful"],  # neither
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        vec = np.ones(384, np.float32) / np.sqrt(384)
        sessions = []
        for turns in conversations:
            sessions.append(memory.turns.start_session("test", 1e9))
            for i, text in enumerate(turns):
                memory.turns.add_utterance(
                    NewUtterance(sessions[-1], None, text, 1e9 + i, 1e9 + i, 1.0, "t", False, vec)
                )
        found = memory.search.bm25_search_async(["ferry", "island"], 10).result()
        assert {w: len(ids) for w, ids in found.holders.items()} == {"ferry": 2, "island": 1}
        scores = session_bm25(memory, found.holders)
    assert scores[sessions[0]] == 1.0 and 0 < scores[sessions[1]] < 0.5 and sessions[2] not in scores
    assert session_bm25(memory, {}) == {}
