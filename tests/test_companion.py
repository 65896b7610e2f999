"""The voice companion: the turn-taking machine's event sequences, the greeting policy, the duplex playback
clock, and (with the real models) the companion scene end to end."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from app.companion.duplex import DuplexSource, Playback, Played
from app.companion.greeting import greeting, second_person
from app.companion.turns import (
    Answer,
    Greet,
    GreetingPolicy,
    Interrupt,
    State,
    TurnTaking,
    addressed,
    wake_phrases,
)
from app.events import EventKind
from app.frames import AudioChunk

PHRASES = wake_phrases("hey memory, okay memory, hey computer")
# longest the companion scene may take with the demo remembered first: 100 s idle, 760 s with both cores loaded (the
# model, niced, waits for the CPU: each answer ~90 s, the memory written ~220 s); bounds a hang
SCENE_S = 1800


def machine(**kw) -> TurnTaking:
    return TurnTaking(PHRASES, **kw)


def test_wake_phrases_address_the_companion_only_at_the_start_or_end():
    assert addressed("Hey memory, what is David allergic to?", PHRASES) == "what is David allergic to?"
    assert addressed("hey memory one is david allergic to", PHRASES) == "one is david allergic to"
    assert addressed("Okay memory, where does Emily work?", PHRASES) == "where does Emily work?"
    assert addressed("oh hey computer what time is it", PHRASES) is None  # "oh" is no filler we know
    assert addressed("so hey computer what time is it", PHRASES) == "what time is it"
    assert addressed("when is the bank meeting, hey memory?", PHRASES) == "when is the bank meeting?"
    assert addressed("Hey memory.", PHRASES) == ""  # the phrase alone: the request follows
    assert addressed("I have a terrible memory for names", PHRASES) is None
    assert addressed("John said hey memory is overrated", PHRASES) is None
    assert addressed("", PHRASES) is None
    assert wake_phrases("") == ()


def test_a_question_is_answered_and_other_speech_only_remembered():
    tt = machine()
    assert tt.heard("I love playing tennis.", "Emily", 1.0) == []
    assert tt.state is State.LISTENING
    actions = tt.heard("Hey memory, who loves tennis?", "John", 5.0)
    assert actions == [Answer("who loves tennis?", "John", 5.0)]
    assert tt.state is State.THINKING
    tt.started_speaking(7.0)
    assert tt.state is State.SPEAKING
    tt.finished(9.0)
    assert tt.state is State.LISTENING
    assert [s for _, s in tt.log] == [State.THINKING, State.SPEAKING, State.LISTENING]


def test_speech_onset_while_thinking_or_speaking_is_a_barge_in():
    tt = machine()
    assert tt.onset(0.5) == []  # nobody is being answered: speech is just speech
    tt.heard("hey memory what did John say", "Emily", 2.0)
    assert tt.onset(3.0) == [Interrupt(3.0, State.THINKING)]  # generating: cancelled
    assert tt.state is State.LISTENING
    tt.heard("hey memory what did David say", "Emily", 5.0)
    tt.started_speaking(6.0)
    assert tt.onset(6.5) == [Interrupt(6.5, State.SPEAKING)]
    assert tt.interrupted == 2
    assert tt.onset(6.6) == []  # already listening


def test_barge_in_off_a_new_request_still_replaces_the_old_one():
    tt = machine(barge_in=False)
    tt.heard("hey memory first question", None, 1.0)
    tt.started_speaking(2.0)
    assert tt.onset(2.5) == []
    actions = tt.heard("hey memory second question", None, 4.0)
    assert actions == [Interrupt(4.0, State.SPEAKING), Answer("second question", None, 4.0)]


def test_the_wake_phrase_alone_or_push_to_talk_arms_the_next_utterance():
    tt = machine()
    assert tt.heard("Hey memory.", "Emily", 1.0) == []
    assert tt.armed
    assert tt.heard("What is David allergic to?", "Emily", 3.0) == [Answer("What is David allergic to?", "Emily", 3.0)]
    tt.finished(5.0)
    tt.push_to_talk()
    assert tt.heard("who is Maria", None, 6.0) == [Answer("who is Maria", None, 6.0)]
    tt.finished(8.0)
    assert tt.heard("who is Maria", None, 9.0) == []  # push-to-talk is for one utterance


def test_a_greeting_waits_for_silence_and_can_be_talked_over():
    tt = machine()
    tt.heard("hey memory who is John", None, 1.0)
    assert tt.person_returned("David", 1.5) == []  # busy answering: no greeting over it
    tt.finished(3.0)
    assert tt.person_returned("David", 4.0) == [Greet("David", 4.0)]
    tt.started_speaking(4.2)
    assert tt.onset(5.0) == [Interrupt(5.0, State.SPEAKING)]


def test_greeting_policy():
    hour = 3600.0
    policy = GreetingPolicy(absence_s=2 * hour, min_gap_s=60.0)
    assert not policy.decide("David", None, 10 * hour, "unknown")  # never seen before
    assert not policy.decide("David", 9 * hour, 10 * hour, "unknown")  # away one hour only
    assert not policy.decide("David", 1 * hour, 10 * hour, "refused")
    assert policy.decide("David", 1 * hour, 10 * hour, "unknown")
    assert not policy.decide("David", 1 * hour, 10 * hour + 120, "unknown")  # not twice in the window
    assert not policy.decide("Emily", 1 * hour, 10 * hour + 30, "given")  # rate limit: one a minute
    assert policy.decide("Emily", 1 * hour, 10 * hour + 61, "given")
    assert policy.decide("David", 1 * hour, 12 * hour + 1, "unknown")  # the window has passed
    strict = GreetingPolicy(absence_s=2 * hour, min_gap_s=0.0, consent_required=True)
    assert not strict.decide("David", 1 * hour, 10 * hour, "unknown")
    assert strict.decide("David", 1 * hour, 10 * hour, "given")
    off = GreetingPolicy(absence_s=2 * hour, min_gap_s=0.0, enabled=False)
    assert not off.decide("David", 1 * hour, 10 * hour, "given")


def test_greeting_text_is_grounded_in_the_profile():
    said = datetime(2026, 5, 14, 10, tzinfo=timezone.utc).timestamp()  # a Thursday
    plan = "Next Friday David is planning a trip to Paris for David's birthday"
    profile = {
        "name": "David",
        "facts": [
            {"kind": "attribute", "value": "David is allergic to peanuts", "source": 9, "said": said},
            {"kind": "plan", "value": plan, "source": 6, "said": said, "valid_from": said + 8 * 86400},
        ],
    }
    text, sources = greeting(profile, said + 86400)
    assert text == (  # "next Friday" said yesterday is not next Friday today: the day it named
        "Hi David! Good to see you again. Last time you told me you are planning a trip to Paris for your birthday "
        "on Friday 22 May 2026."
    )
    assert sources == [6]
    # a week later the trip's day (Friday 22 May) is over: what was planned, without its time words
    text, _ = greeting(profile, said + 9 * 86400)
    assert text.endswith("Last time you told me you were planning a trip to Paris for your birthday.")
    assert greeting({"name": "Maria", "facts": []}, said) == ("Hi Maria! Good to see you again.", [])
    assert second_person("Emily has two kids", "Emily") == "you have two kids"
    assert (
        second_person("Next friday we are planning a trip to paris for David's birthday", "David")
        == "next friday you are planning a trip to paris for your birthday"
    )
    assert (  # the fact as memory writing now keeps it: the speaker's "my" after their name is "their"
        second_person("Next Friday David is planning a trip to Paris for their birthday", "David")
        == "next Friday you are planning a trip to Paris for your birthday"
    )


def test_playback_runs_on_the_input_clock_and_stops_at_once():
    starts, ends = [], []
    pb = Playback(on_start=starts.append, on_end=ends.append)
    a = Played("reply", np.full(1000, 0.5, np.float32), "one")
    b = Played("reply", np.full(700, 0.25, np.float32), "two")
    pb.play(a)
    pb.play(b)
    out = pb.pull(800, 1.0)
    assert np.all(out == 0.5) and a.start_s == 1.0 and starts == [a]
    out = pb.pull(800, 1.05)
    assert np.all(out[:200] == 0.5) and np.all(out[200:] == 0.25)
    assert ends == [a] and b.start_s == pytest.approx(1.05 + 200 / 16000)
    stopped = pb.stop(1.1)
    assert stopped == [b] and b.stopped and b.end_s == 1.1
    assert not pb.busy and np.all(pb.pull(100, 1.2) == 0)
    assert pb.playing_at(1.0, 1.01) == [a, b]
    assert pb.playing_at(5.0, 6.0) == []


class _Chunks:
    """A replay of fixed chunks (a stand-in for a file: only the chunk stream matters here)."""

    name, has_video, origin_epoch_s, realtime = "chunks", False, 0.0, False

    def __init__(self, chunks):
        self.chunks, self.duration_s, self.stopped = chunks, sum(len(c) for c in chunks) / 16000, False

    def check(self) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True

    async def stream(self):
        t = 0.0
        for c in self.chunks:
            yield AudioChunk(c, t)
            t += len(c) / 16000


def test_duplex_plays_aligned_with_the_microphone_and_hears_the_reply_out():
    import asyncio

    pb = Playback()
    said = np.linspace(-0.5, 0.5, 4000).astype(np.float32)
    pb.play(Played("reply", said, "hello"))
    mic = [np.full(1024, 0.1, np.float32) for _ in range(2)]

    def echo(x):  # the speaker heard at half the level, no delay
        return 0.5 * x

    duplex = DuplexSource(_Chunks(mic), pb, echo_path=echo, busy=lambda: False, tail_s=2.0, keep_tracks=True)

    async def drain():
        return [item async for item in duplex.stream()]

    items = asyncio.run(drain())
    played = duplex.track("played")
    assert np.array_equal(played[:4000], said)  # the whole reply was played: the clock ran on after the file
    assert len(items) > 2 and duplex.duration_s >= 4000 / 16000
    np.testing.assert_allclose(duplex.track("mic")[:2048], 0.1 + 0.5 * said[:2048], atol=1e-6)
    np.testing.assert_allclose(items[0].samples, 0.1 + 0.5 * said[:1024], atol=1e-6)  # no canceller: as heard


def test_a_held_replay_stands_its_clock_still_at_a_pause_while_the_companion_thinks():
    """`hold` (`run --companion --hold`): while the companion thinks, the replay stops before the next chunk that
    does not go on from speech, and goes on where it stood (the same times, only later); it is never asked inside
    speech. Without it (the default: benches) nothing waits."""
    import asyncio
    import time

    speech, quiet = np.full(1024, 0.1, np.float32), np.zeros(1024, np.float32)
    looks: list[float] = []  # the clock each time the replay asked whether to hold

    def run(hold: bool):
        duplex = DuplexSource(_Chunks([speech, speech, quiet, speech]), Playback(), tail_s=0.0)

        def thinking() -> bool:  # from just after the first chunk, for three more looks
            looks.append(duplex.clock_s)
            return duplex.clock_s > 0.05 and len(looks) <= 4

        if hold:
            duplex.hold = thinking

        async def drain():
            return [item async for item in duplex.stream()]

        started = time.monotonic()
        items = asyncio.run(drain())
        return [round(i.t_start_s, 3) for i in items], time.monotonic() - started, duplex

    times, _, _ = run(False)
    assert times == [0.0, 0.064, 0.128, 0.192] and looks == []
    held_times, wall_s, duplex = run(True)
    assert held_times == times  # the same stream, later
    assert looks == [0.0, 0.128, 0.128, 0.128, 0.128, 0.192]  # never at 0.064, inside the speech
    assert 0.03 <= duplex.held_s <= wall_s and duplex.duration_s == pytest.approx(0.256)


@pytest.mark.timeout(SCENE_S)
def test_companion_scene_greets_answers_aloud_and_never_stores_its_own_voice(tmp_path, monkeypatch):
    """`run --source demo --companion` with the real models: the demo is remembered first (its memory written
    by the default model), then the scene the day after is replayed at real time through a simulated echo path:
    David says his name and is greeted from what he said yesterday, Emily's questions are answered aloud with
    citations, and the companion's voice coming back through the microphone is never stored. `--hold`: the replay
    stands still (at a pause) while the companion works out what to say, so a loaded machine replays the scene as a
    fast one would, not with the next line cutting off an answer not yet begun."""
    import contextlib
    import io
    import json
    import wave

    from app.cli import main
    from tests.conftest import need_default_llm, need_models

    need_models("silero-vad", "whisper-base", "resemblyzer", "dlib", "minilm-l6-int8", "piper-joe")
    need_default_llm()
    monkeypatch.setenv("APP_MEMORY_BACKGROUND", "true")  # the greeting rests on yesterday's written memory
    wav = tmp_path / "companion.wav"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["run", "--source", "demo", "--companion", "--echo", "--hold", "--speak-to", str(wav), "--json"])
    assert code == 0
    run = json.loads(out.getvalue())
    # the five lines of the scene (David's first may be cut in two at the pause after its question), none of the
    # companion's: more would be its own voice stored
    assert run["utterances"] in (5, 6) and run["people"] == 2
    replies = run["companion"]["replies"]
    greetings = [r for r in replies if r["kind"] == "greeting"]
    assert [g["person"] for g in greetings] == ["David"]  # Emily wears the glasses: never greeted
    assert greetings[0]["first_audio_ms"] is not None and greetings[0]["citations"]
    assert "paris" in greetings[0]["text"].lower()
    # David goes on over his greeting (it comes as he says his name): a barge-in stops it, held replay or not
    assert greetings[0]["interrupted"]
    assert any(b["was"] == "speaking" and b["items_stopped"] for b in run["companion"]["barge_ins"])
    allergy = next(r for r in replies if r["kind"] == "answer" and "allergic" in r["question"])
    assert "peanut" in allergy["text"].lower() and allergy["known"]
    assert [c["person"] for c in allergy["citations"]] == ["David"]  # the line it was read from
    assert allergy["first_audio_ms"] is not None
    with wave.open(str(wav)) as w:
        assert (w.getnchannels(), w.getframerate()) == (2, 16000)
        pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2").reshape(-1, 2) / 32768
    frames = pcm[: len(pcm) // 320 * 320, 1].reshape(-1, 320)  # 20 ms each
    voiced = np.sqrt((frames**2).mean(axis=1)) > 0.01
    # seconds of the companion's voice: three short answers ("peanuts", "history", "Monday 18 May 2026") and the
    # greeting, which David cuts short as he goes on (a barge-in; 3.5 s in all on this machine)
    assert voiced.sum() * 0.02 > 1.5
    spoken = np.abs(pcm[:, 1]) > 0.01
    assert np.abs(pcm[spoken, 0]).max() > 0.01  # its echo is in the microphone channel, and was cancelled


def test_a_language_model_server_that_is_down_gets_one_spoken_line(cfg, memory, perception):
    """The LLM server is unreachable when a question comes: the companion says one short line, reports the error
    in its reply event, and takes the next request (the recorder around it is never touched)."""
    import dataclasses
    import time

    from app.companion.companion import Companion
    from app.companion.tts import CommandVoice
    from app.events import Bus, Stored
    from app.frames import Utterance
    from app.llm import SharedLLM
    from tests.conftest import DAY, MAY_8

    m, _ = memory
    down = dataclasses.replace(
        cfg, llm=dataclasses.replace(cfg.llm, backend="openai", url="http://127.0.0.1:9/v1", retries=0, timeout_s=2.0)
    )
    voice = CommandVoice.espeak_ng()
    if not voice.available:
        pytest.skip("espeak-ng is not installed")
    events: list[tuple[str, dict]] = []
    playback = Playback()
    bus = Bus()
    bus.subscribe(lambda e: events.append((e.kind, e.detail)))
    companion = Companion(
        down, m, perception.text, voice, None, SharedLLM(down), playback, lambda: 10.0, MAY_8 + 3 * DAY, bus, 0.032,
    )  # fmt: skip
    try:
        utt = Utterance("hey memory what is Caroline thinking about studying", 8.0, 10.0, 1.0, None, None)
        assert companion.refusal(utt) is None
        bus.publish(Stored(8.0, None, "Melanie", "voice", True))  # as the recorder would, once it stored it
        deadline = time.monotonic() + 60
        while not any(kind == "reply" for kind, _ in events) and time.monotonic() < deadline:
            time.sleep(0.1)
        reply = next(detail for kind, detail in events if kind == "reply")
        assert "unreachable" in reply["error"] and reply["question"] == "what is Caroline thinking about studying"
        queued = playback.stop(11.0)
        assert [p.text for p in queued] == ["Sorry, I lost my train of thought."] and len(queued[0].audio) > 8000
    finally:
        companion.close()
        companion.llm.close()


def test_a_request_heard_ahead_is_answered_before_its_utterance_closes(cfg, llm, memory, perception):
    """The words recognised while the VAD still waits out the silence after them are answered ahead by the real
    0.5B model, but nothing is said until the utterance closes with the same words; then the answer worked out
    ahead is said at once. Speech before that (the speaker went on) drops it, and the longer request that
    closes is answered afresh."""
    import time
    from types import SimpleNamespace

    from app.companion.companion import Companion
    from app.companion.tts import CommandVoice
    from app.events import Bus, Stored, VoiceActivity
    from app.frames import Utterance
    from tests.conftest import DAY, MAY_8

    m, _ = memory
    voice = CommandVoice.espeak_ng()
    if not voice.available:
        pytest.skip("espeak-ng is not installed")
    replies: list[dict] = []
    playback = Playback()
    bus = Bus()
    bus.subscribe(lambda e: replies.append(e.detail), EventKind.REPLY)
    shared = SimpleNamespace(get=lambda: llm)  # the in-process worker, as SharedLLM gives it
    companion = Companion(
        cfg, m, perception.text, voice, None, shared, playback, lambda: 30.0, MAY_8 + 3 * DAY, bus, 0.032
    )

    def settled() -> None:
        deadline = time.monotonic() + 120
        while companion.busy and not playback.busy and time.monotonic() < deadline:
            time.sleep(0.05)

    def closed(utt: Utterance) -> dict:
        assert companion.refusal(utt) is None
        bus.publish(Stored(utt.t_start_s, None, "Melanie", "voice", True))  # as the recorder would, once stored
        deadline = time.monotonic() + 120
        while not replies and time.monotonic() < deadline:
            time.sleep(0.05)
        reply = replies.pop()
        playback.stop(31.0)
        companion.turns.finished(31.0)  # played to its end
        return reply

    try:
        asked = Utterance("hey memory what is the name of Caroline's puppy", 8.0, 10.1, 1.0, None, None)
        companion.heard_ahead(asked)
        settled()
        assert not playback.busy and not replies  # answered ahead, not said
        reply = closed(asked)  # the silence lasted: the same words close the utterance
        assert "ahead_ms" in reply["timings_ms"] and "luna" in reply["text"].lower() and reply["known"]

        went_on = Utterance("hey memory what did Melanie paint", 20.0, 21.6, 1.0, None, None)
        companion.heard_ahead(went_on)
        for t in (21.7, 21.732):  # speech again before the VAD closed the segment: an onset
            bus.publish(VoiceActivity(t, 0.9))
        assert companion.ahead.current is None  # dropped, its job cancelled
        settled()
        reply = closed(Utterance("hey memory what did Melanie paint over the lake", 20.0, 23.1, 1.0, None, None))
        assert "ahead_ms" not in reply["timings_ms"] and "sunrise" in reply["text"].lower()
    finally:
        companion.close()


def test_the_latest_lines_are_read_ahead_only_while_nobody_speaks(cfg, llm, memory, perception):
    """The companion has the latest lines' readings evaluated ahead (`companion.keep_lines`, the real 0.5B): none
    while someone spoke within the last second, then one at a time until all are kept."""
    import time
    from types import SimpleNamespace

    from app.companion.companion import Companion
    from app.events import Bus, VoiceActivity
    from tests.conftest import DAY, MAY_8

    m, uids = memory
    clock = [30.0]
    bus = Bus()
    shared = SimpleNamespace(get=lambda: llm)
    companion = Companion(
        cfg, m, perception.text, None, None, shared, Playback(), lambda: clock[0], MAY_8 + 3 * DAY, bus, 0.032
    )
    try:
        bus.publish(VoiceActivity(29.6, 0.9))  # speech 0.4 s ago: the model is left free
        time.sleep(1.0)
        assert companion.lines_ahead.kept == 0 and not companion.lines_ahead.settled
        clock[0] = 31.0  # quiet for 1.4 s
        deadline = time.monotonic() + 300
        while not companion.lines_ahead.settled and time.monotonic() < deadline:
            time.sleep(0.1)
        assert companion.lines_ahead.settled and companion.lines_ahead.kept == min(cfg.companion.keep_lines, len(uids))
    finally:
        companion.close()


def test_no_speaker_is_one_warning_not_a_crash(cfg):
    """This machine has no audio device: the companion goes on with its replies in events only."""
    import sounddevice

    from app.companion.session import open_speaker

    try:
        devices = [d for d in sounddevice.query_devices() if d["max_output_channels"] > 0]
    except Exception:  # no PortAudio host API at all
        devices = []
    if devices:
        pytest.skip("this machine has a speaker")
    assert open_speaker(cfg) is None


def test_live_microphone_and_speaker_through_the_duplex(cfg, memory, perception, speech):
    """`--source mic --companion` where devices exist. This machine has none, so the microphone is a test double
    (a PortAudio-shaped stream playing a recording at real time) and the speaker a callback; everything else is
    real: the question is heard, answered by the 0.5B model and played block by block on the microphone's clock."""
    import asyncio
    import time

    from app.recorder.sources import MicSource
    from app.runtime import Runtime
    from tests.conftest import need_default_llm, need_models
    from tests.test_sources import FakeInputStream

    need_models("piper-joe")
    need_default_llm()
    m, _ = memory
    question = speech("Hey memory, what is Caroline thinking about studying?", "slt")
    audio = np.concatenate([np.zeros(16000), question, np.zeros(16000)]).astype(np.float32)
    # then silence for as long as the answer takes: the microphone is stopped once it has been said
    mic = MicSource(
        cfg, stream_factory=lambda cb: FakeInputStream(cb, audio, 16000, 512, realtime=True, silence_after=True)
    )
    played: list[tuple[float, np.ndarray]] = []
    runtime = Runtime(cfg, m, perception, mic, companion=True, speaker=lambda b, t: played.append((t, b.copy())))

    async def go():
        task = asyncio.create_task(runtime.run())
        deadline = time.monotonic() + 300  # bounds a hang; a busy machine answers later, never less
        while (
            time.monotonic() < deadline
            and not task.done()
            and not (runtime.companion and runtime.companion.replies and not runtime.companion.busy)
        ):
            await asyncio.sleep(0.2)
        mic.stop()
        return await task

    summary = asyncio.run(go())
    companion = runtime.companion
    assert runtime.state == "stopped"
    (reply,) = companion.replies
    assert reply.kind == "answer" and "caroline" in reply.question.lower()
    assert reply.first_audio_s is not None and reply.first_audio_s > reply.asked_s
    voiced = [t for t, b in played if np.abs(b).max() > 0.01]
    assert len(voiced) * 512 / 16000 > 0.5 and voiced[0] >= reply.first_audio_s - 0.05
    assert [t for t, _ in played] == sorted(t for t, _ in played)  # one block out per block in, in order
    assert summary.utterances == 1  # the question; the companion's voice never came back as speech
