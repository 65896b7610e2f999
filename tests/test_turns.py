"""Where each utterance sits, in RAM beside the ANN index: neighbours within a session across gaps,
interleaved sessions and deletions, session ends, and the round trip through the saved file."""

from __future__ import annotations

import numpy as np
import pytest

from app.store.turns import SCAN, Turn, Turns


def _table(sessions: dict[int, int], people: dict[int, int] | None = None) -> Turns:
    ids = np.array(sorted(sessions))
    turns = Turns()
    people = people or {}
    turns.set(ids, np.array([sessions[i] for i in ids]), np.array([people.get(i, -1) for i in ids]), ids * 10.0)
    return turns


def _reference(sessions: dict[int, int], uid: int) -> tuple[int | None, int | None]:
    same = sorted(i for i, s in sessions.items() if s == sessions[uid])
    at = same.index(uid)
    return (same[at - 1] if at else None, same[at + 1] if at + 1 < len(same) else None)


def test_neighbours_follow_the_session_across_gaps_and_interleaving():
    rng = np.random.default_rng(0)
    sessions = {i: int(s) for i, s in enumerate(rng.integers(0, 4, 300), start=1)}  # four interleaved sessions
    for gone in (5, 6, 7, 150):
        del sessions[gone]
    turns = _table(sessions)
    turns.remove([5, 6, 7, 150])
    asked = [*sessions, 5, 999]  # a deleted id and one never written are left out
    found, unsure = turns.neighbours(asked)
    assert not unsure and set(found) == set(sessions)
    assert all(found[uid] == _reference(sessions, uid) for uid in sessions)


def test_a_neighbour_further_than_the_scan_is_left_to_the_store():
    sessions = {1: 0, **{i: 1 for i in range(2, SCAN + 10)}, SCAN + 10: 0}
    found, unsure = _table(sessions).neighbours([1, SCAN + 10, 2])
    assert unsure == [1, SCAN + 10] and found == {2: (None, 3)}


def test_where_each_utterance_sits():
    turns = _table({3: 7, 4: 7, 9: 8}, people={3: 2})
    assert turns.get([3, 4, 5, 9, -1, 100]) == {3: Turn(7, 2, 30.0), 4: Turn(7, None, 40.0), 9: Turn(8, None, 90.0)}
    assert turns.sessions() == (2, 3) and turns.size[[7, 8]].tolist() == [2, 1]
    turns.set(np.array([4]), np.array([8]), np.array([5]), np.array([41.0]))  # moved to another session
    assert turns.get([4]) == {4: Turn(8, 5, 41.0)} and turns.size[[7, 8]].tolist() == [1, 2]
    assert turns.neighbours([4, 9])[0] == {4: (None, 9), 9: (4, None)}
    turns.remove([3, 3, 12])
    assert turns.sessions() == (1, 2) and Turns.from_bytes(turns.to_bytes()).size.tolist() == turns.size.tolist()


def test_the_table_survives_a_round_trip_and_rejects_a_torn_one():
    turns = _table({i: i // 10 for i in range(1, 95)})
    data = turns.to_bytes()
    again = Turns.from_bytes(data)
    assert again.get(list(range(100))) == turns.get(list(range(100)))
    assert again.neighbours([10, 19])[0] == {10: (None, 11), 19: (18, None)}
    with pytest.raises(ValueError):
        Turns.from_bytes(data[:-8])
