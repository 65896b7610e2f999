"""Session segmentation on synthetic turn streams, its frame labels and metrics, and the evaluation on real
speech (a short run; skipped without the shared data)."""

from __future__ import annotations

import numpy as np
import pytest

from app.identity.sessions import END, IN, NONE, START, Session, Turn, boundary_prf, frame_labels, jaccard, segment


def _voice(k: int) -> np.ndarray:
    v = np.zeros(8, np.float32)
    v[k] = 1.0
    return v


def _turns(spec: list[tuple[float, float, int]]) -> list[Turn]:
    return [Turn(a, b, who, _voice(who)) for a, b, who in spec]


def test_a_conversation_with_alternating_turns_stays_one_session():
    turns = _turns([(0, 3, 1), (3.8, 6, 2), (6.5, 9, 1), (10.6, 12, 2), (12.5, 15, 1)])  # 1.6 s pause inside
    (s,) = segment(turns, gap_s=60, change_gap_s=1.5)
    assert (s.t_start, s.t_end, s.speakers) == (0, 15, frozenset({1, 2}))


def test_a_long_silence_ends_a_session():
    turns = _turns([(0, 3, 1), (3.5, 6, 2), (70, 73, 1), (73.5, 76, 2)])
    assert [(s.t_start, s.t_end) for s in segment(turns, gap_s=60)] == [(0, 6), (70, 76)]


def test_new_participants_after_a_short_pause_start_a_new_session():
    turns = _turns([(0, 3, 1), (3.5, 6, 2), (6.5, 9, 1), (12, 15, 3), (15.5, 18, 4), (18.4, 21, 3)])
    sessions = segment(turns, gap_s=60, change_gap_s=1.5)
    assert [(s.t_start, s.t_end, s.speakers) for s in sessions] == [
        (0, 9, frozenset({1, 2})),
        (12, 21, frozenset({3, 4})),
    ]
    # the same voices across the pause: one conversation
    assert len(segment(_turns([(0, 3, 1), (3.5, 6, 2), (9, 12, 2), (12.5, 15, 1)]), gap_s=60)) == 1


def test_the_turns_compared_across_a_pause_stop_at_a_long_silence():
    """The people of the next conversation, a minute later, are not this one's: a change just before a long
    silence is judged on the turns before that silence."""
    turns = _turns([(0, 3, 1), (3.5, 6, 2), (6.5, 9, 1), (12, 15.5, 3), (90, 93, 1), (93.5, 96, 2)])
    sessions = segment(turns, gap_s=60, change_gap_s=1.5, window=3)
    assert [(s.t_start, s.t_end, s.speakers) for s in sessions] == [
        (0, 9, frozenset({1, 2})),
        (12, 15.5, frozenset({3})),
        (90, 96, frozenset({1, 2})),
    ]


def test_a_change_of_people_just_before_the_end_is_split_when_the_session_closes(cfg, perception, speech, tmp_path):
    """Fewer turns than session.window_turns after the change, then the recording ends: the recorder judges
    the change on the turns it has when it closes the session."""
    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    turns = [
        ("slt", "Did you water the plants on the balcony this morning?"),
        ("rms", "Yes, and I moved the tomatoes into the sun as well."),
        ("slt", "Thank you, they looked rather dry yesterday evening."),
        ("kal16", "Excuse me, is this the right platform for the train to Leeds?"),
    ]
    parts = [np.zeros(16000, np.float32)]
    for i, (voice, text) in enumerate(turns):
        parts += [speech(text, voice), np.zeros(int((3.0 if i == 2 else 0.8) * 16000), np.float32)]
    path = tmp_path / "late.wav"
    write_media(path, np.concatenate(parts))
    events, summary = record(cfg, perception, path, tmp_path / "m.db")
    assert summary.utterances == 4 and [e.kind for e in events].count("session_split") == 1
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        sessions = memory.turns.sessions()
    assert [(s["utterances"], len(s["people"])) for s in sessions] == [(3, 2), (1, 1)]
    kinds = [e.kind for e in events if e.kind.startswith("session_")]
    assert kinds == ["session_start", "session_split", "session_end"]


def test_someone_joining_does_not_split_the_conversation():
    turns = _turns([(0, 3, 1), (3.5, 6, 2), (8, 11, 3), (11.5, 14, 1)])
    assert len(segment(turns, gap_s=60, change_gap_s=1.5)) == 1


def test_a_passing_remark_is_not_a_conversation():
    turns = _turns([(0, 3, 1), (3.5, 6, 2), (100, 101.2, 3), (200, 203, 1), (203.5, 206, 4)])
    sessions = segment(turns, gap_s=60, min_speech_s=3.0)
    assert [(s.t_start, s.t_end) for s in sessions] == [(0, 6), (200, 206)]
    unknown = [Turn(300, 304, None), Turn(304.5, 308, None)]  # nobody identifiable: background
    assert segment(turns + unknown, gap_s=60) == sessions


def test_frame_labels_and_metrics():
    labels = frame_labels([Session(0.8, 1.6, frozenset()), Session(2.4, 3.2, frozenset())], duration_s=4.0)
    assert (
        labels.tolist()
        == [NONE] * 10 + [START] + [IN] * 9 + [END] + [NONE] * 9 + [START] + [IN] * 9 + [END] + [NONE] * 9
    )
    assert jaccard(labels, labels) == 1.0
    shifted = np.roll(labels, 3)
    assert boundary_prf(shifted, labels, 0) == (0.0, 0.0, 0.0)
    assert boundary_prf(shifted, labels, 3) == (1.0, 1.0, 1.0)
    assert jaccard(np.zeros_like(labels), labels) == 0.0


def test_eval_sessions_on_real_speech(shared_data, cfg, tmp_path):
    from app.evaluation.sessions import eval_sessions

    pytest.importorskip("soxr")
    r = eval_sessions(cfg, shared_data / "librispeech_test_other_resemblyzer", tmp_path, streams=2)
    assert set(r["clean"]) >= {"jaccard", "f1@0", "f1@5", "f1@10"} and set(r["noised"]) >= {"jaccard", "f1@5"}
    assert r["clean"]["jaccard"] >= 0.95 and r["clean"]["f1@5"] >= 0.9
    assert all(0.0 <= v <= 1.0 for c in ("clean", "noised") for k, v in r[c].items() if k != "people")
    people = r["clean"]["people"]  # speakers counted per stream, summed
    assert people["speakers"] >= 8 and people["over_splits"] == 0 and people["merges"] <= 1, people
