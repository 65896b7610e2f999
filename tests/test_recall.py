"""Hybrid retrieval: query words, FTS5 escaping, score fusion, person and time scoping, finding a stored
utterance."""

from __future__ import annotations

import numpy as np

from app.recall import dense_document, fts_query, fuse, keywords, search
from app.store.keys import Secret
from app.store.memory import Memory, NewUtterance


def test_keywords_drop_stopwords_keep_order():
    assert keywords("Does any of my colleagues love tennis?") == ["colleagues", "love", "tennis"]
    assert keywords("who is it") == ["who", "is", "it"]  # all stopwords: keep them rather than nothing


def test_fts_query_quotes_every_word_so_syntax_cannot_leak():
    assert fts_query('tennis" OR (chess') == '"tennis" OR "chess"'
    assert fts_query("NEAR(apples pears) AND c*") == '"near" OR "apples" OR "pears"'
    assert fts_query("o'clock") == '"o\'clock"'
    assert fts_query("   ") == ""


def test_fusion_adds_relative_bm25_and_the_person_boost():
    fused = fuse({1: 0.5, 2: 0.45, 3: 0.3}, {2: 8.0, 3: 4.0}, {3: 0.15}, bm25_weight=0.2)
    assert fused[1] == 0.5 and abs(fused[2] - 0.65) < 1e-9 and abs(fused[3] - 0.55) < 1e-9
    assert fuse({1: 0.2}, {}, {}, 0.2) == {1: 0.2}  # no keyword match: cosine alone


def test_dense_document_adds_the_end_of_the_previous_turn():
    assert dense_document("I painted it last year.", None) == "I painted it last year."
    previous = " ".join(f"w{i}" for i in range(30)) + " what did you paint?"
    doc = dense_document("A sunrise over the lake.", previous)
    assert doc.startswith("A sunrise over the lake. (after: ") and "w13 " not in doc and doc.endswith("paint?)")


def test_ask_finds_a_stored_utterance(cfg, perception, tmp_path):
    texts = [
        "we should repaint the kitchen walls green",
        "the quarterly budget review is on Thursday",
        "my nephew just started learning the violin",
        "let us order pizza for dinner tonight",
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        session = memory.start_session("test", 1e9)
        pid = memory.add_person().id
        for i, (t, v) in enumerate(zip(texts, perception.text(texts), strict=True)):
            memory.add_utterance(NewUtterance(session, pid, t, 1e9 + 10 * i, 1e9 + 10 * i + 3, 0.9, "t", False, v))
        by_meaning = search(memory, perception.text, "who plays a musical instrument", cfg.recall)
        by_word = search(memory, perception.text, "budget", cfg.recall)
    assert by_meaning[0].text == texts[2] and by_meaning[0].person == "unknown_1"
    assert by_word[0].text == texts[1] and by_word[0].t_start == 1e9 + 10
    assert all(isinstance(e.score, float) for e in by_meaning)
    assert np.all(np.diff([e.score for e in by_meaning]) <= 0)
