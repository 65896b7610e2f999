"""Speaker turns inside a stretch of speech: where the voice changes (app/identity/diarize.py) and what each
turn becomes (app/recorder/turns.py)."""

from __future__ import annotations

import numpy as np
import pytest

from app.audio.asr import Transcript, Word
from app.config import TurnsConfig
from app.frames import SpeechSegment
from app.identity.diarize import Diarizer, VoiceRun, change_points, conversation_voices, viterbi
from app.recorder.turns import Heard, fill_skipped, is_backchannel, turns


def _voices(rng, n: int, dim: int = 32) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _noisy(centre: np.ndarray, n: int, rng, noise: float = 0.08) -> np.ndarray:
    w = centre + noise * rng.normal(size=(n, len(centre))).astype(np.float32)
    return w / np.linalg.norm(w, axis=1, keepdims=True)


def test_the_cut_falls_where_the_voice_changes_and_nowhere_else():
    rng = np.random.default_rng(0)
    a, b = _voices(rng, 2)
    windows = np.vstack([_noisy(a, 23, rng), _noisy(b, 17, rng)])
    assert change_points(windows, change_cost=0.3, min_windows=5) == [0, 23]
    assert change_points(_noisy(a, 40, rng), change_cost=0.3, min_windows=5) == [0]
    assert change_points(windows[:8], change_cost=0.3, min_windows=5) == [0]  # too short to hold two runs


def test_viterbi_pays_for_every_change_of_label():
    scores = np.array([[1.0, 0.0], [0.4, 0.6], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    assert viterbi(scores, switch_cost=0.3).tolist() == [0, 0, 0, 1, 1]  # one blip is not worth two changes
    assert viterbi(scores, switch_cost=0.0).tolist() == [0, 1, 0, 1, 1]


def test_a_conversation_keeps_its_voices_from_one_stretch_to_the_next():
    rng = np.random.default_rng(1)
    a, b, c = _voices(rng, 3)
    d = Diarizer(TurnsConfig())
    first = np.vstack([_noisy(a, 20, rng), _noisy(b, 20, rng)])
    runs = d.runs(first, np.arange(40) * 0.2 + 0.5, 9.0)
    assert [r.voice for r in runs] == [0, 1] and abs(runs[1].start_s - (19.5 * 0.2 + 0.5)) < 0.5
    second = np.vstack([_noisy(b, 12, rng), _noisy(c, 15, rng), _noisy(a, 12, rng)])
    assert [r.voice for r in d.runs(second, np.arange(39) * 0.2 + 0.5, 8.5)] == [1, 2, 0]
    copy = d.copy()
    copy.runs(_noisy(_voices(rng, 1)[0], 12, rng), np.arange(12) * 0.2 + 0.5, 3.0)
    assert copy.voices == 4 and d.voices == 3  # a copy learns, the original does not
    d.reset()
    assert d.voices == 0


def test_a_whole_conversation_is_clustered_into_its_voices():
    """Turns of three voices, in any order: the clustering over all of them finds the three, and each turn goes
    to its own; one voice throughout is one voice; a conversation too short to cluster is left alone."""
    rng = np.random.default_rng(2)
    centres = _voices(rng, 3)
    order = [0, 1, 0, 2, 1, 0, 2, 2, 1, 0, 1, 2]
    turns = [_noisy(centres[v], int(rng.integers(6, 20)), rng, noise=0.12) for v in order]
    voices = conversation_voices(turns, same_voice=0.87)
    assert voices is not None and len(set(voices)) == 3
    assert all((voices[i] == voices[j]) == (order[i] == order[j]) for i in range(12) for j in range(12))
    one = [_noisy(centres[0], 12, rng, noise=0.12) for _ in range(6)]
    assert set(conversation_voices(one, same_voice=0.87) or ()) == {0}
    assert conversation_voices(turns[:2], same_voice=0.87) is None  # 2-4 pieces of 1.8 s: too little to tell


def test_centring_on_the_conversations_mean_splits_no_voice():
    """The clustering also runs on the pieces centred on the conversation's mean (what one recording's voices
    share, a telephone line or a room, taken out), and the one that finds more voices stands: two alike voices
    through one channel stay two and each turn goes to its own, and one voice through that channel stays one in
    either clustering, centring included (centred, what is left of one voice is noise, which must not make two).
    That the centred clustering finds a voice the other misses is shown on the real call (test_conversations)."""
    from app.identity.diarize import _pieces, _voices_in

    rng = np.random.default_rng(3)
    channel, a, b = _voices(rng, 3)
    alike = [_unit_rows(2.5 * channel + v) for v in (a, b)]
    assert float(alike[0] @ alike[1]) > 0.89  # more alike than the bar that joins two voices
    order = [0, 1, 0, 1, 1, 0, 1, 0, 0, 1]
    turns = [_noisy(alike[v], int(rng.integers(8, 16)), rng, noise=0.06) for v in order]
    voices = conversation_voices(turns, same_voice=0.89)
    assert voices is not None
    assert all((voices[i] == voices[j]) == (order[i] == order[j]) for i in range(10) for j in range(10))
    for _ in range(5):
        one = [_noisy(alike[0], int(rng.integers(8, 16)), rng, noise=0.12) for _ in range(10)]
        points = _pieces(one)
        centred = points - points.mean(axis=0)
        centred /= np.linalg.norm(centred, axis=1, keepdims=True)
        assert len(_voices_in(points, centred, 0.89)) == 1
        assert set(conversation_voices(one, same_voice=0.89) or ()) == {0}


def _unit_rows(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def test_two_real_voices_without_a_pause_are_two_runs(speech, perception):
    """flite's slt answered by rms with no silence between them: the change is found within half a second."""
    first, second = (
        speech("I moved to Lisbon last spring for the new job.", "slt"),
        speech("Oh nice, I have always wanted to see the old town there.", "rms"),
    )
    audio = np.concatenate([first, second])
    cfg = TurnsConfig()
    windows, centres = perception.voice.windows(audio, cfg.window_s, cfg.hop_s)
    runs = Diarizer(cfg).runs(windows, centres, len(audio) / 16000)
    assert [r.voice for r in runs] == [0, 1]
    assert abs(runs[1].start_s - len(first) / 16000) < 0.5


def _segment(seconds: float, quiet_at: list[float] = ()) -> SpeechSegment:
    probs = np.full(int(seconds / 0.032), 0.9, np.float32)
    for t in quiet_at:
        probs[int(t / 0.032)] = 0.1
    return SpeechSegment(np.zeros(int(seconds * 16000), np.float32), 10.0, 10.0 + seconds, speech_probs=probs)


def _words(*timed: tuple[str, float, float]) -> tuple[Word, ...]:
    return tuple(Word(w, a, b) for w, a, b in timed)


def test_a_stretch_is_cut_at_the_pause_between_words_and_each_turn_takes_its_words():
    words = _words(
        ("Where", 0.1, 0.4),
        ("were", 0.4, 0.6),
        ("you?", 0.6, 1.0),
        ("At", 1.3, 1.5),
        ("home,", 1.5, 1.9),
        ("with", 2.0, 2.2),
        ("Mia.", 2.2, 2.8),
    )
    heard = Heard(
        Transcript("Where were you? At home, with Mia.", 0.9, words), (VoiceRun(0, 1.4, 0), VoiceRun(1.4, 3.0, 1))
    )
    out = turns(_segment(3.0, quiet_at=[1.15]), heard, 7, lambda a: np.ones(4, np.float32), 0.35, 0.0)
    assert [(u.text, u.voice, round(u.t_start_s, 2), u.overlapped, u.whole) for u in out] == [
        ("Where were you?", (7, 0), 10.0, False, False),
        ("At home, with Mia.", (7, 1), 11.16, False, False),  # after the pause, not at the run's 1.4 s
    ]
    no_pause = turns(_segment(3.0), heard, 7, lambda a: np.ones(4, np.float32), 0.35, 0.0)
    assert [u.overlapped for u in no_pause] == [False, True]  # the second voice began over the first


def test_a_run_with_almost_no_words_is_read_again_and_only_it():
    """fill_skipped: a run of 2 s holding one word of the stretch's reading is read again (its words spread over
    it); a run with its words, or one too short to judge, is not."""
    words = _words(("I", 0.1, 0.3), ("moved", 0.3, 0.7), ("to", 0.7, 0.9), ("Lisbon", 0.9, 1.6), ("Oh", 2.2, 2.4))
    runs = (VoiceRun(0.0, 2.0, 0), VoiceRun(2.0, 4.0, 1), VoiceRun(4.0, 4.6, 0))
    asked = []

    def read(run):
        asked.append(run)
        return "Oh nice, I have always wanted to go."

    filled, again = fill_skipped(Transcript("I moved to Lisbon Oh", 0.9, words), runs, read)
    assert asked == [runs[1]] and again == 1
    assert filled.text == "I moved to Lisbon Oh nice, I have always wanted to go."
    assert all(2.0 <= w.start_s < 4.0 for w in filled.words[4:])
    unchanged = Transcript("I moved to Lisbon", 0.9, words[:4])
    assert fill_skipped(unchanged, runs[:1] + (VoiceRun(2.0, 2.8, 1),), read) == (unchanged, 0)


def test_a_listeners_mm_hm_inside_a_turn_is_no_turn_of_its_own():
    words = _words(
        ("I", 0.1, 0.3), ("started", 0.3, 0.8), ("Mm-hmm.", 1.6, 1.9), ("a", 2.4, 2.5), ("bakery.", 2.5, 3.2)
    )
    runs = (VoiceRun(0, 1.5, 0), VoiceRun(1.5, 2.1, 1), VoiceRun(2.1, 3.5, 0))
    out = turns(_segment(3.5), Heard(Transcript("", 0.9, words), runs), 0, lambda a: np.ones(4, np.float32), 0.35, 0.0)
    assert [(u.text, u.voice, u.overlapped, round(u.t_end_s - u.t_start_s, 1)) for u in out] == [
        ("I started a bakery.", (0, 0), True, 3.5)
    ]


def test_what_is_a_backchannel():
    assert all(is_backchannel(t) for t in ("Mm-hmm.", "Yeah, right.", "Oh, okay", "uh-huh", "Yes."))
    assert not any(
        is_backchannel(t) for t in ("Yes, I moved to Lisbon.", "Right after lunch", "", "Okay okay okay sure")
    )


# Two people in fast talk, each saying three lines: a nurse (slt) and a teacher (rms).
NURSE_AND_TEACHER = [
    ("slt", "I have been working at the hospital for many years now, mostly at night."),
    ("rms", "I teach history at the high school, and I have done so for a long time."),
    ("slt", "My daughter wants to study medicine when she finishes school next year."),
    ("rms", "Then she should talk to my brother, he is a surgeon in the city hospital."),
    ("slt", "That would be kind of him, she has so many questions about the work."),
    ("rms", "He likes to talk about it, and he remembers how hard the first years were."),
]


def _merge_voices_online(monkeypatch) -> None:
    """A double of the diarizer (the real one inside, its cuts kept) that labels every run as the conversation's
    first voice: two clear voices taken for one online cannot be called up at will."""
    import dataclasses

    from app.identity import diarize

    class Merging(diarize.Diarizer):
        def runs(self, windows, centres_s, duration_s):
            return [dataclasses.replace(r, voice=0) for r in super().runs(windows, centres_s, duration_s)]

    monkeypatch.setattr("app.recorder.pipeline.Diarizer", Merging)


def _flite_turn(perception, speech, text: str, voice: str, start: float, label: int, whole: bool = False):
    """A turn said by a flite voice at `start` s in the conversation's online voice `label`."""
    from app.frames import Utterance

    audio = speech(text, voice)
    loud = np.flatnonzero(np.abs(audio) > 0.02 * np.abs(audio).max())
    audio = audio[loud[0] : loud[-1] + 1]  # flite's own silence before and after the words
    end = start + len(audio) / 16000
    return Utterance(text, start, end, 0.9, perception.voice(audio), None, audio, voice=(0, label), whole=whole)


def _new_writer(cfg, memory, perception):
    from app.recorder.writer import UtteranceWriter

    writer = UtteranceWriter(cfg, memory, "t", 0.0, "whisper-base", perception.text, "", "l2", 0.0, lambda e: None)
    writer.load()
    return writer


def _one_after_another(writer, make, lines: list[tuple]) -> list:
    """Each line made into a turn (`make(start_s, *line)`) a fifth of a second after the one before, and written."""
    said, t = [], 0.0
    for line in lines:
        said.append(make(t, *line))
        writer.write(said[-1])
        t = said[-1].t_end_s + 0.2
    return said


def _fast_talk(speech, lines: list[tuple[str, str]], gap_s: float = 0.2) -> np.ndarray:
    """Lines said one after another with `gap_s` between them (negative: overlapping), as people talk."""
    out = np.zeros(16000, np.float32)
    for voice, text in lines:
        said = speech(text, voice)
        loud = np.flatnonzero(np.abs(said) > 0.02 * np.abs(said).max())
        said = said[loud[0] : loud[-1] + 1]  # flite's own silence before and after the words
        at = len(out) + int(gap_s * 16000)
        out = np.concatenate([out, np.zeros(max(0, at + len(said) - len(out)), np.float32)])
        out[at : at + len(said)] += said
    return np.concatenate([out, np.zeros(16000, np.float32)])


def test_introductions_in_fast_talk_name_the_right_people(cfg, perception, speech, tmp_path):
    """Two people introduce themselves a fifth of a second apart (one stretch of speech for the VAD): each
    turn is theirs, and each is named by their own introduction."""
    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    lines = [
        ("slt", "Hi, I'm Emily. I work as a nurse at the city hospital."),
        ("rms", "And I'm John. I teach history at the high school."),
        ("slt", "Oh nice, my daughter loves history."),
        ("rms", "That is good to hear, it is my favourite subject."),
    ]
    write_media(tmp_path / "fast.wav", _fast_talk(speech, lines))
    events, summary = record(cfg, perception, tmp_path / "fast.wav", tmp_path / "m.db")
    assert [e.kind for e in events].count("speech") < len(lines)  # the VAD heard fewer stretches than turns
    named = sorted(e.detail["person"] for e in events if e.kind == "person_named")
    assert named == ["Emily", "John"] and summary.people == 2
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        said = [(u.person, u.text) for u in memory.turns.all_utterances()]
    speakers = [p for p, text in said]
    assert speakers[0] == "Emily" and "John" in speakers
    assert all(("history at the high school" in t) == (p == "John") for p, t in said if "high school" in t)
    assert all(p == "Emily" for p, t in said if "nurse" in t)


def test_people_who_never_say_their_names_are_named_by_what_the_others_call_them(cfg, perception, speech, tmp_path):
    """Three people in fast talk who never introduce themselves, only call each other by name: when the
    conversation closes each is named (before its memory is written), and their words are theirs by name."""
    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    lines = [
        ("slt", "Morning, David. Did you finish the report for Friday?"),
        ("rms", "Almost, I will send it tonight. Thanks for asking, Maria."),
        ("kal16", "David, can you send me a copy as well?"),
        ("rms", "Sure, Peter, no problem at all."),
        ("slt", "Peter, how was your trip to the mountains?"),
        ("kal16", "It was great, we walked every day and the weather was lovely."),
    ]
    write_media(tmp_path / "called.wav", _fast_talk(speech, lines))
    events, summary = record(cfg, perception, tmp_path / "called.wav", tmp_path / "m.db")
    named = sorted(e.detail["person"] for e in events if e.kind == "person_named")
    assert named == ["David", "Maria", "Peter"] and summary.people == 3
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        said = [(u.person, u.text) for u in memory.turns.all_utterances()]
    print(said)
    assert any("walked" in t for _, t in said) and any("tonight" in t for _, t in said)
    assert all(p == "Peter" for p, t in said if "mountains" not in t and "walked" in t)
    assert all(p == "David" for p, t in said if "tonight" in t)


def test_a_stretch_whisper_loops_on_is_recognised_voice_by_voice(cfg, perception, speech, tmp_path):
    """When Whisper goes round in a loop on a long stretch of several voices, what it heard is dropped: each
    voice's run is then recognised on its own. Whisper's loops cannot be called up at will, so this double of
    the recognizer (the real one inside) reports one for any audio longer than 5 s."""
    from dataclasses import replace

    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    real = perception.asr

    class Looping:
        name = real.name

        def __call__(self, audio, words=False, hotwords=""):
            if len(audio) > 5 * 16000:
                return Transcript("", 0.0, looped=True)
            return real(audio, words, hotwords)

    lines = [("slt", "I moved to Lisbon last spring for the new job."), ("rms", "Oh nice, I have always wanted to go.")]
    write_media(tmp_path / "loop.wav", _fast_talk(speech, lines))
    record(cfg, replace(perception, asr=Looping()), tmp_path / "loop.wav", tmp_path / "m.db")
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        said = [(u.person, u.text) for u in memory.turns.all_utterances()]
    assert len(said) == 2 and said[0][0] != said[1][0]
    assert "new job" in said[0][1] and "always wanted" in said[1][1]


def test_a_voice_whisper_passed_over_in_a_stretch_is_read_again_on_its_own(cfg, perception, speech, tmp_path):
    """Read over several voices, Whisper sometimes drops a quick answer whole (its words' times jump over it): a
    run of a voice with almost no words in the stretch's reading is read again on its own and keeps its words.
    Whisper's skips cannot be called up at will, so this double of the recognizer (the real one inside) drops
    every word after the first voice's line from the reading of a stretch of more than 5 s."""
    from dataclasses import replace

    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    real = perception.asr
    lines = [("slt", "I moved to Lisbon last spring for the new job."), ("rms", "Oh nice, I have always wanted to go.")]
    first = speech(lines[0][1], lines[0][0])
    loud = np.flatnonzero(np.abs(first) > 0.02 * np.abs(first).max())
    first_s = (loud[-1] - loud[0]) / 16000 + 0.2  # in the stretch: 0.1 s of the VAD's pad, half the 0.2-s gap

    class Skipping:
        name = real.name

        def __call__(self, audio, words=False, hotwords=""):
            heard = real(audio, words, hotwords)
            if len(audio) <= 5 * 16000 or not words:
                return heard
            kept = tuple(w for w in heard.words if w.start_s < first_s)
            return Transcript(" ".join(w.text for w in kept), heard.confidence, kept)

    write_media(tmp_path / "skip.wav", _fast_talk(speech, lines))
    _, summary = record(cfg, replace(perception, asr=Skipping()), tmp_path / "skip.wav", tmp_path / "m.db")
    with Memory.open(tmp_path / "m.db", Secret(b"k", "test"), cfg.store) as memory:
        said = [(u.person, u.text) for u in memory.turns.all_utterances()]
    assert summary.runs_read_again == 1
    assert len(said) == 2 and said[0][0] != said[1][0]
    assert "new job" in said[0][1] and "always wanted" in said[1][1]


def test_scraps_of_a_voice_make_no_person_until_there_is_enough_of_it(cfg, perception, speech, tmp_path):
    """The writer, with real voices: a conversation voice heard only in short turns (often two voices at once)
    makes a person only with 3 s of it, and that person's first voice key comes from a turn long enough to tell,
    never from a scrap (a person made from scraps once drew the turns of six readers to their thin key). The scraps'
    words wait and are given to the person when the voice is theirs."""
    from app.store.keys import Secret
    from app.store.memory import Memory

    def turn(text, voice, start, label, whole=False):
        return _flite_turn(perception, speech, text, voice, start, label, whole)

    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        writer = _new_writer(cfg, memory, perception)
        a = turn("I have been working at the hospital for many years now, mostly at night.", "slt", 0.0, 0)
        scraps = [turn(t, "rms", a.t_end_s + 1.2 * k, 1) for k, t in enumerate(("Really?", "Oh, I see.", "Is it?"))]
        seconds = [s.t_end_s - s.t_start_s for s in scraps]  # each too short to tell, together 1.5-3 s
        assert max(seconds) < cfg.identity.min_voice_s <= sum(seconds) < 3.0, seconds
        b = turn("I teach history at the high school, and I have done so for a long time.", "rms", 9.0, 1, True)
        for utt in [a, *scraps, b]:
            writer.write(utt)
        said = [(u.person, u.text) for u in memory.turns.all_utterances()]
        assert len({p for p, _ in said}) == 2 and said[0][0] != said[-1][0]
        assert [p for p, _ in said[1:]] == [said[-1][0]] * 4  # the scraps' words are the second person's
        b_id = next(pid for pid, name in writer.names.items() if name == said[-1][0])
        assert [round(s, 1) for s in memory.people.voice_key_seconds(cfg.models.voice)[b_id]] == [
            round(b.t_end_s - b.t_start_s, 1)
        ]


def test_a_conversation_heard_as_one_voice_is_given_again_to_its_two_people(cfg, perception, speech, tmp_path):
    """The writer, with real voices: the online voices took two people for one (as when a conversation opens with
    quick exchanges), so all their turns went to one person. Clustered over the whole conversation, the second
    voice's turns go to a new person with the keys learnt from them; a person the clustering joins with another
    keeps their turns (nobody is merged); a voice of someone known goes to them."""
    from app.store.keys import Secret
    from app.store.memory import Memory

    def turn(text, voice, start, label):
        return _flite_turn(perception, speech, text, voice, start, label)

    lines = [
        ("slt", "I have been working at the hospital for many years now, mostly at night."),
        ("rms", "I teach history at the high school, and I have done so for a long time."),
        ("slt", "My daughter wants to study medicine when she finishes school next year."),
        ("rms", "Then she should talk to my brother, he is a surgeon in the city."),
    ]
    voice_of = {"slt": 0, "rms": 1}

    def by_voice(said):  # each turn's true voice, as the clustering of the whole conversation gives it
        return [(u.t_start_s, u.t_end_s, voice_of[who]) for u, (who, _) in zip(said, lines, strict=True)]

    def conversation(writer, start):
        said, t = [], start
        for who, text in lines:
            said.append(turn(text, who, t, 0))  # one online voice for both
            writer.write(said[-1])
            t = said[-1].t_end_s + 0.2
        return said

    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        writer = _new_writer(cfg, memory, perception)
        said = conversation(writer, 0.0)
        assert len({u.person for u in memory.turns.all_utterances()}) == 1
        joined = [(u.t_start_s, u.t_end_s, 0) for u in said]
        assert writer.revise(joined) == 0  # the clustering heard one voice: nothing changes
        given = writer.revise(by_voice(said))
        assert given == 2
        stored = memory.turns.all_utterances()
        people = [u.person for u in stored]
        assert people[0] == people[2] != people[1] == people[3]
        keys = memory.people.voice_key_seconds(cfg.models.voice)
        b_id = next(pid for pid, name in writer.names.items() if name == people[1])
        assert len(keys[b_id]) >= 1  # the keys learnt from the second voice's turns went with them
        assert writer.revise(joined) == 0  # one voice for two people's turns: nobody is merged
        assert [u.person for u in memory.turns.all_utterances()] == people

        # the next conversation: both are known now, heard again as one online voice
        again = conversation(writer, 700.0)  # after a long silence: the next conversation
        known = writer.revise(by_voice(again))
        after = [u.person for u in memory.turns.all_utterances()][-4:]
        assert known in (0, 2) and after == people and writer.new_people == 2


@pytest.mark.parametrize("spoken_over", [False, True])
def test_a_turn_given_to_the_wrong_one_of_two_alike_voices_goes_to_the_one_it_sounds_more_like(
    cfg, perception, speech, tmp_path, spoken_over
):
    """The writer, with real voices: two alike voices (flite's slt, and slt lowered by three semitones: like two
    sisters, each turn of one clears the other's bar). The online voices gave one of the first voice's turns to
    the second person; clustered over the whole conversation, it goes back to the first, whose keys it sounds
    more like, or, when every turn of hers was spoken over and she has no keys, by the clustering's word. A turn
    that sounds like the person it was given to no longer keeps them on that alone (on simulated four-reader
    conversations two women's turns stayed with the wrong one of them)."""
    from scipy.signal import resample_poly

    from app.frames import Utterance
    from app.store.keys import Secret
    from app.store.memory import Memory

    def turn(text, sister, start, label):
        audio = speech(text, "slt")
        loud = np.flatnonzero(np.abs(audio) > 0.02 * np.abs(audio).max())
        audio = audio[loud[0] : loud[-1] + 1]  # flite's own silence before and after the words
        if sister:  # played slower: three semitones lower
            audio = resample_poly(audio, 1189, 1000).astype(np.float32)
        end = start + len(audio) / 16000
        over = spoken_over and not sister and label == 0
        return Utterance(
            text, start, end, 0.9, perception.voice(audio), None, audio, voice=(0, label), whole=False, overlapped=over
        )

    lines = [  # (the second voice, the online label)
        (False, 0, "I have been working at the hospital for many years now, mostly at night."),
        (True, 1, "I teach history at the high school, and I have done so for a long time."),
        (False, 0, "My daughter wants to study medicine when she finishes school next year."),
        (True, 1, "Then she should talk to my brother, he is a surgeon in the city hospital."),
        (False, 1, "That would be kind of him, she has so many questions about the work."),
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        writer = _new_writer(cfg, memory, perception)
        said = _one_after_another(writer, lambda t, sister, label, text: turn(text, sister, t, label), lines)
        people = [u.person for u in memory.turns.all_utterances()]
        assert people[0] == people[2] != people[1] == people[3] == people[4]  # the online voices' mistake
        ids = {name: pid for pid, name in writer.names.items()}
        assert writer.assigner.sounds_like(ids[people[1]], said[4])  # the voices are that alike
        assert (ids[people[0]] in writer.assigner.voice_keys) != spoken_over
        truth = [(u.t_start_s, u.t_end_s, int(sister)) for u, (sister, _, _) in zip(said, lines, strict=True)]
        given = writer.revise(truth)
        assert given == 1
        assert [u.person for u in memory.turns.all_utterances()] == [*people[:4], people[0]]


def test_the_recorder_gives_a_conversation_heard_as_one_voice_to_its_two_people(
    cfg, perception, speech, tmp_path, monkeypatch
):
    """The whole recorder: when the conversation ends, its turns are clustered over all of it, and two people the
    online voices took for one become two. The online merge cannot be called up at will with two clear voices, so
    this double of the diarizer (the real one inside, its cuts kept) labels every run as the conversation's first
    voice; without the revision the recording is one person."""
    import dataclasses

    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    _merge_voices_online(monkeypatch)
    lines = NURSE_AND_TEACHER
    write_media(tmp_path / "talk.wav", _fast_talk(speech, lines))
    people = {}
    for revise in (False, True):
        run_cfg = dataclasses.replace(cfg, turns=dataclasses.replace(cfg.turns, revise=revise))
        _, summary = record(run_cfg, perception, tmp_path / "talk.wav", tmp_path / f"{revise}.db")
        with Memory.open(tmp_path / f"{revise}.db", Secret(b"k", "test"), cfg.store) as memory:
            said = [(u.person, u.text) for u in memory.turns.all_utterances()]
        people[revise] = {p for p, _ in said}
        if revise:
            assert summary.turns_given_again >= 2 and summary.people == 2
            hospital = {p for p, t in said if "hospital for many years" in t or "so many questions" in t}
            teacher = {p for p, t in said if "teach history" in t or "how hard" in t}
            assert len(hospital) == len(teacher) == 1 and hospital != teacher
    assert len(people[False]) == 1 and len(people[True]) == 2


def test_a_voice_whose_checked_turns_fall_into_two_halves_becomes_two():
    """The second model's check: a voice holding two groups of checked turns less alike than the bar becomes two,
    each checked turn going to its half and each unchecked (short) one to the half its windows sound like; one
    voice stays one; a half of fewer than MIN_HALF turns splits nothing; a voice that split is checked again."""
    from app.identity.diarize import MIN_HALF, split_voices

    rng = np.random.default_rng(4)
    x, y, z = _voices(rng, 3, dim=24)  # the second model's voices
    a, b, c = _voices(rng, 3)  # the windows' model's
    order = [0, 1, 0, 1, 0, 1, 1, 0, 0, 1]
    checks = [_noisy([x, y][v], 1, rng, noise=0.1)[0] for v in order]
    windows = [_noisy([a, b][v], 8, rng) for v in order]
    checks[4] = checks[5] = None  # too short to check: they go by their windows
    split = split_voices([0] * 10, checks, windows, split_below=0.72)
    assert all((split[i] == split[j]) == (order[i] == order[j]) for i in range(10) for j in range(10))
    assert split_voices([0] * 10, [_noisy(x, 1, rng, noise=0.1)[0] for _ in range(10)], windows, 0.72) == [0] * 10
    few = [1, 0, 0, 0, 0, 0, 0, 0]  # one turn of another voice: under MIN_HALF, no voice of its own
    assert MIN_HALF > 1 and split_voices([0] * 8, [[x, y][v] for v in few], windows[:8], 0.72) == [0] * 8
    three = [0, 1, 2] * 4
    split = split_voices([0] * 12, [[x, y, z][v] for v in three], [windows[0]] * 12, 0.72)
    assert len(set(split)) == 3 and all(
        (split[i] == split[j]) == (three[i] == three[j]) for i in range(12) for j in range(12)
    )


def test_the_second_model_tells_two_real_readers_apart_and_keeps_one_whole(shared_data):
    """CAM++ on turns of two LibriSpeech readers, both women (the tuning readers 367 and 533): taken for one voice,
    they are split into the two, every turn to its reader; each reader's own turns stay one voice."""
    import soundfile as sf

    from tests.conftest import MODELS, need_models

    need_models("campplus")
    pytest.importorskip("sherpa_onnx")
    from app.audio.voice import SherpaVoiceEncoder
    from app.identity.diarize import split_voices

    check = SherpaVoiceEncoder(MODELS / "campplus")
    readers = shared_data / "librispeech_test_other_resemblyzer"
    turns: dict[str, list[np.ndarray]] = {}
    for reader in ("367", "533"):
        turns[reader] = []
        for path in sorted((readers / reader).glob("*.flac"))[:3]:
            wav, _ = sf.read(path, dtype="float32")
            turns[reader] += [check(wav[i : i + 40000]) for i in range(0, len(wav) - 40000, 40000)][:3]
    order = [r for pair in zip(turns["367"], turns["533"], strict=False) for r in ("367", "533")]
    checks = [t for pair in zip(turns["367"], turns["533"], strict=False) for t in pair]
    windows = [np.ones((1, 4), np.float32)] * len(checks)  # every turn is checked: the windows are not read
    split = split_voices([0] * len(checks), checks, windows, split_below=0.72)
    assert all((split[i] == split[j]) == (order[i] == order[j]) for i in range(len(order)) for j in range(len(order)))
    for reader in ("367", "533"):
        own = turns[reader]
        assert split_voices([0] * len(own), own, windows[: len(own)], split_below=0.72) == [0] * len(own)


def test_the_recorder_splits_a_voice_the_second_model_hears_as_two(cfg, perception, speech, tmp_path, monkeypatch):
    """The whole recorder, where the windows' model takes two people for one voice online and over the whole
    conversation: that cannot be called up at will with two clear voices, so these doubles of the diarizer (the
    real one inside, its cuts kept) and of the conversation's clustering give every turn the first voice. The second
    model (CAM++, real) hears two voices in it: two people, each turn to its own; without it, one."""
    import dataclasses

    from app.audio.media import write_media
    from app.store.keys import Secret
    from app.store.memory import Memory
    from tests.conftest import record

    if perception.check is None:
        pytest.skip("the second speaker model (campplus) is not prepared: python3 build.py --download campplus")

    _merge_voices_online(monkeypatch)
    monkeypatch.setattr("app.recorder.pipeline.conversation_voices", lambda turns, same: [0] * len(turns))
    lines = [
        *NURSE_AND_TEACHER,
        ("slt", "I will tell her tonight, she will be so pleased to hear it from you."),
        ("rms", "Tell her to call me on Sunday afternoon, I am at home all day then."),
    ]
    write_media(tmp_path / "talk.wav", _fast_talk(speech, lines))
    for checked in (False, True):
        run = dataclasses.replace(perception, check=perception.check if checked else None)
        _, summary = record(cfg, run, tmp_path / "talk.wav", tmp_path / f"{checked}.db")
        with Memory.open(tmp_path / f"{checked}.db", Secret(b"k", "test"), cfg.store) as memory:
            said = [(u.person, u.text) for u in memory.turns.all_utterances()]
        nurse = {p for p, t in said if "hospital for many years" in t or "so many questions" in t}
        teacher = {p for p, t in said if "teach history" in t or "how hard" in t}
        if checked:
            assert summary.voices_split == 1 and summary.people == 2
            assert len(nurse) == len(teacher) == 1 and nurse != teacher
        else:
            assert summary.voices_split == 0 and nurse == teacher  # one of them for both


def test_a_person_made_of_scraps_goes_into_the_person_their_voice_goes_to(cfg, perception, speech, tmp_path):
    """The writer, with real voices: a voice of the conversation heard only in scraps (turns too short to tell) made a
    person online once it had 3 s of them. When the conversation ends, the clustering (given here, as the test of
    the whole conversation's voices above does) hears those scraps as another person's voice: the scraps a person
    was made of would stay with them (too short to move), so that person, holding nothing but scraps, goes whole into
    the one their voice goes to, and nobody made of scraps is left."""
    from app.store.keys import Secret
    from app.store.memory import Memory

    def turn(text, voice, start, label):
        return _flite_turn(perception, speech, text, voice, start, label)

    lines = [  # (flite voice, text, the online voice)
        ("slt", "I have been working at the hospital for many years now, mostly at night.", 0),
        ("rms", "I teach history at the high school, and I have done so for a long time.", 1),
        ("kal16", "Yes, I see.", 2),
        ("slt", "My daughter wants to study medicine when she finishes school next year.", 0),
        ("kal16", "Oh, really?", 2),
        ("rms", "Then she should talk to my brother, he is a surgeon in the city.", 1),
        ("kal16", "Good point.", 2),
        ("kal16", "I could not help it.", 2),
    ]
    with Memory.open(tmp_path / "m.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
        writer = _new_writer(cfg, memory, perception)
        said = _one_after_another(writer, lambda t, who, text, label: turn(text, who, t, label), lines)
        scraps = [u for u, (who, *_) in zip(said, lines, strict=True) if who == "kal16"]
        assert all(u.t_end_s - u.t_start_s < cfg.identity.min_voice_s for u in scraps)
        made = {u.person for u in memory.turns.all_utterances()}
        if len(made) < 3:
            pytest.skip("the scraps made no person online on this machine's voices: nothing to test")
        voice_of = {"slt": 0, "rms": 1, "kal16": 1}  # the clustering hears the scraps as the teacher's voice
        writer.revise([(u.t_start_s, u.t_end_s, voice_of[who]) for u, (who, *_) in zip(said, lines, strict=True)])
        stored = memory.turns.all_utterances()
        people = {who: {u.person for u, (w, *_) in zip(stored, lines, strict=True) if w == who} for who in voice_of}
        assert people["kal16"] == people["rms"] and len(people["rms"]) == 1 and people["slt"] != people["rms"]
        assert len(memory.people.all()) == 2 and writer.new_people == 2


def test_someone_made_of_one_short_turn_the_second_model_hears_as_a_voice_goes_into_its_person(
    cfg, perception, speech, tmp_path
):
    """The writer, with real voices and the real second speaker model: a turn of 2.3 s (long enough to tell, under
    the 3 s a person needs) that the first model did not know made a person of its own online, as one reader's turn
    did in the soak's hour (12 people for 10 readers). When the conversation ends, the clustering (given here) hears
    it as the teacher's voice, and the second model hears it so too: that person goes whole into the teacher. A
    stranger's short turn the clustering also put in the teacher's voice stays someone else, for the second model
    hears another voice: nobody is merged on the clustering's word alone. Without the second model's embeddings both
    stay (the rule before). The first model's embedding of the turn it did not know is stood in for by a vector like
    nobody's: which short turn the first model misses cannot be called up at will."""
    import dataclasses

    from app.identity.speakers import NEW_PERSON_S
    from app.recorder.pipeline import CHECK_MIN_S
    from app.store.keys import Secret
    from app.store.memory import Memory

    if perception.check is None:
        pytest.skip("the second speaker model (campplus) is not prepared: python3 build.py --download campplus")
    odd = np.random.default_rng(0).standard_normal(perception.voice(speech("Hello.", "rms")).shape).astype(np.float32)
    odd /= np.linalg.norm(odd)
    lines = [  # (flite voice, text, the online voice)
        (*NURSE_AND_TEACHER[0], 0),
        (*NURSE_AND_TEACHER[1], 1),
        (*NURSE_AND_TEACHER[2], 0),
        (*NURSE_AND_TEACHER[3], 1),
        ("rms", "We went there last summer.", 2),  # the turn the first model did not know
        (*NURSE_AND_TEACHER[4], 0),
        ("kal16", "We went there last summer.", 3),  # a stranger
        (*NURSE_AND_TEACHER[5], 1),
    ]

    def make(t, who, text, label):
        turn = _flite_turn(perception, speech, text, who, t, label)
        return dataclasses.replace(turn, voice_embedding=odd) if label == 2 else turn

    for checking in (False, True):
        with Memory.open(tmp_path / f"{checking}.db", Secret(b"k", "t"), cfg.store, create=True) as memory:
            writer = _new_writer(cfg, memory, perception)
            said = _one_after_another(writer, make, lines)
            short = [u for u in said if u.voice[1] in (2, 3)]
            assert all(cfg.identity.min_voice_s <= u.t_end_s - u.t_start_s < NEW_PERSON_S for u in short)
            assert len(memory.people.all()) == 4  # nurse, teacher, the turn not known, the stranger
            voice_of = {0: 0, 1: 1, 2: 1, 3: 1}  # the clustering hears both short turns as the teacher's voice
            long = [checking and u.t_end_s - u.t_start_s >= CHECK_MIN_S for u in said]  # the turns the pipeline checks
            checks = [perception.check(u.audio) if check else None for u, check in zip(said, long, strict=True)]
            writer.revise([(u.t_start_s, u.t_end_s, voice_of[u.voice[1]]) for u in said], checks)
            stored = memory.turns.all_utterances()
            person = {
                label: {u.person for u, s in zip(stored, said, strict=True) if s.voice[1] == label}
                for label in range(4)
            }
            assert len(person[1]) == 1 and person[3] != person[1] and person[0] != person[1]
            if checking:
                assert person[2] == person[1] and len(memory.people.all()) == writer.new_people == 3
            else:
                assert person[2] != person[1] and len(memory.people.all()) == 4
