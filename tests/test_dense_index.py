"""Dense search at scale: past a threshold, FAISS IVF-SQ8 (8-bit scores, or exact re-scoring), saved sealed beside the
database, caught up across processes, and never returning (or keeping on disk) what was deleted."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from app.store.forget import forget_session
from app.store.keys import Secret
from app.store.lifecycle import rekey
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from app.store.vector_index import DenseIndex

pytest.importorskip("faiss")
SECRET = Secret(b"dense index test", "test")


def _vectors(n: int, seed: int = 0) -> np.ndarray:
    """Clustered unit vectors (40 topics), like sentence embeddings of a lifelog."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, 384)).astype(np.float32)
    v = centres[rng.integers(0, 40, n)] + 0.6 * rng.standard_normal((n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path, cfg):
    small = replace(cfg.store, ann_min_utterances=500, ann_nprobe=16)
    return tmp_path / "memory.db", small


def _fill(memory: Memory, vectors: np.ndarray, session: int | None = None) -> list[int]:
    session = session or memory.turns.start_session("test", 0.0)
    with memory.batch():
        return [
            memory.turns.add_utterance(NewUtterance(session, None, f"utterance {i}", i, i + 1, 1.0, "t", False, v))
            for i, v in enumerate(vectors)
        ]


def _exact(vectors: dict[int, np.ndarray], q: np.ndarray, k: int) -> list[int]:
    ids = np.array(list(vectors))
    return ids[np.argsort(-(np.stack(list(vectors.values())) @ q))[:k]].tolist()


def test_small_memories_search_exactly(store):
    path, cfg = store
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        ids = _fill(memory, _vectors(100))
        hits = memory.search.dense_search(_vectors(1, seed=5)[0], 5)
        assert memory.dense.ivf is None and len(hits) == 5 and set(u for u, _ in hits) <= set(ids)


@pytest.mark.parametrize("rescore", [5, 0])
def test_large_memories_use_the_index_with_exact_or_8_bit_scores(store, rescore):
    path, cfg = store
    cfg = replace(cfg, ann_rescore=rescore)
    tolerance = 1e-5 if rescore else 5e-3  # exact re-scoring, or the 8-bit codes' own scores
    X = _vectors(3000)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        ids = _fill(memory, X)
        table = dict(zip(ids, X, strict=True))
        recalls = []
        for q in _vectors(30, seed=7):
            got = memory.search.dense_search(q, 10)
            want = _exact(table, q, 10)
            recalls.append(len({u for u, _ in got} & set(want)) / 10)
            exact_d = {u: 1 - table[u] @ q for u in want}
            for u, d in got:
                assert abs(d - (1 - table[u] @ q)) < tolerance
            assert got[0][1] <= min(exact_d.values()) + tolerance or got[0][0] not in exact_d
        assert memory.dense.ivf is not None and np.mean(recalls) >= 0.9
    sealed = (path.parent / "index" / DenseIndex.FILE).read_bytes()
    assert sealed.startswith(b"LMM1") and X[0].tobytes()[:32] not in sealed


def test_the_saved_index_is_caught_up_across_processes(store):
    path, cfg = store
    X = _vectors(1200)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        _fill(memory, X[:1000])
        memory.search.dense_search(X[0], 1)  # builds the index; saved on close
    with Memory.open(path, SECRET, cfg) as reader, Memory.open(path, SECRET, cfg) as writer:
        assert reader.search.dense_search(X[0], 1)[0][1] < 5e-3  # itself (8-bit scores)
        assert reader.dense.loaded_from_file
        new_ids = _fill(writer, X[1000:])  # another process adds rows after the reader loaded
        hit = reader.search.dense_search(X[1100], 1)[0]
        assert hit[0] == new_ids[100] and hit[1] < 5e-3


def test_a_forget_in_another_process_reaches_a_loaded_index(store):
    """The recorder holds the index in RAM while `forget` runs in another process, which saves the index
    without the forgotten rows and prunes the change log: the recorder notices and loads the saved one."""
    path, cfg = store
    X = _vectors(1200)
    with Memory.open(path, SECRET, cfg, create=True) as recorder:
        _fill(recorder, X[:1000])
        doomed = recorder.turns.start_session("doomed", 0.0)
        gone = _fill(recorder, X[1000:], doomed)
        assert recorder.search.dense_search(X[1000], 1)[0][0] == gone[0]  # built, with the doomed rows
        recorder.dense.save()
        assert not recorder.dense.loaded_from_file
        with Memory.open(path, SECRET, cfg) as other:
            forget_session(other, doomed)
        assert recorder.con.execute("SELECT count(*) FROM vec_changes").fetchone()[0] == 0  # pruned
        assert all(recorder.search.dense_search(X[1000 + i], 5)[0][0] not in gone for i in range(0, 200, 20))
        assert recorder.search.turns(gone) == {} and recorder.dense.loaded_from_file
        later = _fill(recorder, X[:10], recorder.turns.start_session("later", 0.0))  # and it goes on from there
        assert recorder.search.dense_search(X[5], 2)[0][0] in (later[5], 6)


def test_deleted_rows_never_come_back_nor_stay_on_disk(store):
    path, cfg = store
    X = _vectors(1200)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        keep = memory.turns.start_session("keep", 0.0)
        _fill(memory, X[:1000], keep)
        doomed = memory.turns.start_session("doomed", 0.0)
        gone = _fill(memory, X[1000:], doomed)
        memory.search.dense_search(X[0], 1)
        forget_session(memory, doomed)
        assert all(memory.search.dense_search(X[1000 + i], 5)[0][0] not in gone for i in range(0, 200, 20))
    with Memory.open(path, SECRET, cfg) as memory:
        memory.dense._load_or_build()
        assert memory.dense.ivf.size == 1000  # the saved file was rewritten without them


def test_a_damaged_index_file_is_rebuilt_and_rekey_drops_it(store, caplog):
    path, cfg = store
    X = _vectors(800)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        _fill(memory, X)
        memory.search.dense_search(X[0], 1)
    index_file = path.parent / "index" / DenseIndex.FILE
    index_file.write_bytes(index_file.read_bytes()[:-100])
    with Memory.open(path, SECRET, cfg) as memory:
        assert memory.search.dense_search(X[3], 1)[0][1] < 5e-3
        assert "rebuilding" in caplog.text and not memory.dense.loaded_from_file
        rekey(memory, Secret(b"new", "test"), cfg)
        assert not index_file.exists()
    with Memory.open(path, Secret(b"new", "test"), cfg) as memory:
        assert memory.search.dense_search(X[5], 1)[0][1] < 5e-3
    assert index_file.exists()  # rebuilt and sealed under the new key


def test_context_vectors_come_from_the_index_and_follow_deletions(store):
    path, cfg = store
    X = _vectors(1200)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        first = _fill(memory, X[:600])
        second = _fill(memory, X[600:])
        memory.search.dense_search(X[0], 1)  # past the threshold: the index is built
        decoded = memory.search.context_vectors(first[:50])
        assert set(decoded) == set(first[:50])
        cosines = [float(decoded[u] @ X[i]) / float(np.linalg.norm(decoded[u])) for i, u in enumerate(first[:50])]
        assert min(cosines) > 0.99  # 8-bit codes decoded: close to the stored vectors
        forget_session(memory, memory.turns.utterances([second[0]])[second[0]].session_id)
        assert memory.dense.approximate(second[:5]) is None  # gone from the index: no stale vectors
        assert memory.search.context_vectors(second[:5]) == {}  # and none from the store either


def test_bm25_beside_the_dense_search_survives_a_rekey(store):
    path, cfg = store
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        session = memory.turns.start_session("test", 0.0)
        vec = _vectors(1)[0]
        uid = memory.turns.add_utterance(
            NewUtterance(session, None, "the violinist tuned up", 0, 1, 1.0, "t", False, vec)
        )
        assert memory.search.bm25_search_async(["violinist"], 5).result().ranked[0][0] == uid
        rekey(memory, Secret(b"new", "test"), cfg)
        later = memory.turns.add_utterance(
            NewUtterance(session, None, "a second violinist", 2, 3, 1.0, "t", False, vec)
        )
        assert {u for u, _ in memory.search.bm25_search_async(["violinist"], 5).result().ranked} == {uid, later}


def test_bm25_on_the_warmed_reader_of_a_large_memory_matches_the_writer(store):
    """Past ann_min_utterances the reader first reads the word index into its cache; results are the same."""
    path, cfg = store
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        ids = _fill(memory, _vectors(600))
        memory.con.execute("UPDATE utterances SET text = 'the violinist tuned up' WHERE id = ?", (ids[7],))
        words = ["violinist", "utterance"]
        assert memory.search.bm25_search_async(words, 5, postings=100).result().ranked == memory.search.bm25_search(
            words, 5, postings=100
        )
        assert memory.search.bm25_search(words, 5, postings=100)[0][0] == ids[7]  # "utterance" is in 599: left out


def _stored_turns(memory: Memory, ids: list[int]) -> dict:
    rows = memory.con.execute(
        f"SELECT id, session_id, person_id, t_start FROM utterances WHERE id IN ({','.join('?' * len(ids))})", ids
    )
    return {uid: (session, person, t) for uid, session, person, t in rows}


@pytest.mark.parametrize("indexed", [True, False])
def test_where_utterances_sit_follows_moves_in_this_and_another_process(store, indexed):
    """Sessions, speakers and neighbours come from RAM (read from the store while the search is exact, saved
    with the index past the threshold); splits, merges and deletions, here or in another process, reach it
    (the vec_changes log)."""
    path, cfg = store
    cfg = cfg if indexed else replace(cfg, ann_min_utterances=10**6)
    X = _vectors(900)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        ann, bob = memory.people.add_person("Ann").id, memory.people.add_person("Bob").id
        ids = []
        with memory.batch():
            sessions = [memory.turns.start_session("test", float(s)) for s in range(3)]
            for i, v in enumerate(X):  # three interleaved conversations, Ann and Bob taking turns
                who = ann if i % 2 else bob
                u = NewUtterance(sessions[i % 3], who, f"utterance {i}", i, i + 1, 1.0, "t", False, v)
                ids.append(memory.turns.add_utterance(u))
        memory.search.dense_search(X[0], 1)
        memory.search.neighbours(ids[:3])  # the turn table is in RAM from here on
        assert (memory.dense.ivf is not None) == indexed and memory.dense.turns is not None
        memory.dense.save()
        with Memory.open(path, SECRET, cfg) as other:  # another process splits a session and merges Bob
            other.turns.split_session(sessions[0], ids[0:30:3], "test")
            other.people.merge_people("Ann", "Bob")
        forget_session(memory, sessions[2])  # and this one forgets a conversation
        asked = ids[:60]
        stored = _stored_turns(memory, asked)
        assert {u: tuple(t) for u, t in memory.search.turns(asked).items()} == stored
        assert {t.person_id for t in memory.search.turns(asked).values()} == {ann}
        by_session = (  # the answer from the session index alone
            "SELECT u.id, (SELECT max(b.id) FROM utterances b WHERE b.session_id = u.session_id AND b.id < u.id), "
            "(SELECT min(a.id) FROM utterances a WHERE a.session_id = u.session_id AND a.id > u.id) "
            f"FROM utterances u WHERE u.id IN ({','.join('?' * len(asked))})"
        )
        by_store = {uid: (before, after) for uid, before, after in memory.con.execute(by_session, asked)}
        assert memory.search.neighbours(asked) == by_store and len(by_store) == len(stored) == 40
        assert memory.dense.current_turns().neighbours(asked)[1] == []  # all answered from RAM
        sizes, sessions_now, utterances = memory.search.session_sizes(np.array(sessions))
        stored_sizes = [
            memory.con.execute("SELECT count(*) FROM utterances WHERE session_id = ?", (s,)).fetchone()[0]
            for s in sessions
        ]
        assert sizes.tolist() == stored_sizes and (sessions_now, utterances) == (3, 600)  # two, and one split off


def test_an_index_saved_before_the_turn_table_reads_it_from_the_store(store):
    path, cfg = store
    X = _vectors(700)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        ids = _fill(memory, X)
        memory.search.dense_search(X[0], 1)
        vault, ivf = memory.dense.vault, memory.dense.ivf
        vault.put_named(DenseIndex.FILE, b'{"max_id": %d, "size": 700}\n' % ids[-1] + ivf.to_bytes())  # old format
        memory.dense.ivf = None
        memory.dense.unsaved = 0
    with Memory.open(path, SECRET, cfg) as memory:
        assert memory.search.dense_search(X[3], 1)[0][0] == ids[3] and memory.dense.loaded_from_file
        assert memory.search.neighbours([ids[5]]) == {ids[5]: (ids[4], ids[6])}
    with Memory.open(path, SECRET, cfg) as memory:  # saved again, now with the table
        memory.dense._load_or_build()
        assert memory.dense.unsaved == 0 and memory.search.turns([ids[0]])[ids[0]].t_start == 0.0


def test_an_index_loaded_after_the_turn_table_is_caught_up_with_the_log(store):
    """A process that read the turn table while the search was exact, then loads the saved index, applies
    what was logged since the file was saved."""
    path, cfg = store
    X = _vectors(900)
    with Memory.open(path, SECRET, cfg, create=True) as memory:
        ids = _fill(memory, X)
        memory.search.dense_search(X[0], 1)  # builds and (on close) saves the index
    with Memory.open(path, SECRET, cfg) as memory:
        memory.dense.cfg = replace(cfg, ann_min_utterances=10**6)  # exact for now
        memory.con.execute("DELETE FROM utterances WHERE id = ?", (ids[5],))  # logged after the file was saved
        memory.search.turns(ids[:1])  # the turn table, read with the deletion; nothing changes from here on
        memory.dense.cfg = cfg
        assert memory.search.dense_search(X[5], 1)[0][0] != ids[5] and memory.dense.loaded_from_file
