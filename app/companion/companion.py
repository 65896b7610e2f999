"""The voice companion inside the recorder: it answers what is addressed to it, aloud, from memory; stops when
spoken over; greets a known person who comes back; and never takes its own voice for someone's speech.

It listens on the recorder's event bus (app/events.py): `VoiceActivity` for every VAD window (speech onsets:
barge-in), `Stored` utterances for the turn-taking machine, `Identity` changes that may bring a greeting; the
recorder asks `refusal` about every utterance before it stores it (the companion's own echo is refused:
app/companion/own_voice.py), and gives it the words it recognised ahead, while the VAD still waits out the
silence after them (`heard_ahead`: a request is answered ahead, and said once the same words close the
utterance: app/companion/ahead.py). Replies run on the companion's own
thread with its own memory connection: the answer, once its check has passed
(app/ask/answer.py), goes sentence by sentence into text-to-speech and onto the `Playback` queue, which the
duplex audio plays on the microphone's clock. A barge-in stops playback at once (on the loop) and cancels the
generation.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone

from app.ask.answer import Answerer, cited_lines
from app.companion.ahead import AnsweredAhead
from app.companion.duplex import Playback, Played
from app.companion.greeting import greeting
from app.companion.keeping import LinesAhead
from app.companion.own_voice import SPOKEN, OwnVoice
from app.companion.reply import Reply
from app.companion.tts import SentenceBuffer, split_sentences
from app.companion.turns import Answer, Greet, GreetingPolicy, Interrupt, State, TurnTaking, wake_phrases
from app.config import Config
from app.errors import AppError, LLMCrashed, LLMUnavailable
from app.events import (
    BargeIn,
    Bus,
    Error,
    Event,
    EventKind,
    Greeting,
    GreetingStart,
    Identity,
    PersonNamed,
    ReplyStart,
    Said,
    SayStart,
    SessionStart,
    Speech,
    Stored,
    VoiceActivity,
)
from app.events import Reply as ReplyEvent
from app.frames import Utterance

_LOGGER = logging.getLogger(__name__)
_CITED = re.compile(r"\s*\[[^\]]*\]")
KEEP_S = 120.0  # how long a heard segment waits for its utterance to be stored
KEEP_POLL_S = 0.1  # how often the idle reply thread looks for a line to have evaluated ahead


class Companion:
    """A subscriber to the recorder's bus plus the reply thread. `voice` is a text-to-speech voice
    (app.companion.tts), `llm` a SharedLLM, `clock` the duplex stream time, `bus` where the recorder's events
    come from and the companion's go, `window_s` the VAD's window."""

    def __init__(
        self,
        cfg: Config,
        memory,
        embedder,
        voice,
        voice_encoder,
        llm,
        playback: Playback,
        clock: Callable[[], float],
        origin_epoch_s: float,
        bus: Bus,
        window_s: float,
    ) -> None:
        c = cfg.companion
        self.cfg, self.memory, self.embedder, self.voice, self.llm = cfg, memory, embedder, voice, llm
        self.playback, self.clock, self.origin, self.bus = playback, clock, origin_epoch_s, bus
        playback.on_start, playback.on_end = self._started, self._ended
        self.turns = TurnTaking(wake_phrases(c.wake), c.barge_in)
        self.policy = GreetingPolicy(
            c.greet_absence_h * 3600, c.greet_gap_s, cfg.privacy.consent == "required", c.greet
        )
        self._lock = threading.RLock()  # the turn-taking state: touched on the loop and on the reply thread
        self._window_s = window_s
        self._onset_windows = max(1, round(c.onset_ms / 1000 / self._window_s))
        self._run_len = 0
        self._pad_s = cfg.vad.pad_ms / 1000
        # recent speech segments' ends (stream s) -> clock when the VAD closed them; accepted utterances by start
        # time until they are stored (both pruned to the last KEEP_S: a segment without words is never stored)
        self._segments: dict[float, float] = {}
        self._pending: dict[float, Utterance] = {}
        self._session_start: float | None = None  # epoch seconds the current conversation started
        self._present: str | None = None  # who the last identity event said is there
        self._current: Reply | None = None
        self._job = None
        self.ahead = AnsweredAhead(self._lock)  # the request being answered ahead, until its utterance closes
        self.replies: list[Reply] = []
        self.barge_ins: list[dict] = []
        self.own_voice = OwnVoice(voice, voice_encoder, playback, c.self_voice)
        self._requests: queue.Queue = queue.Queue()
        self.lines_ahead = LinesAhead(c.keep_lines)  # read ahead while nobody speaks (`companion.keep_lines`)
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="companion", daemon=True)
        self._thread.start()
        heard = (EventKind.SPEECH, EventKind.SESSION_START, EventKind.STORED, EventKind.IDENTITY)
        self._unsubscribe = (
            bus.subscribe(self._voice_activity, EventKind.VOICE_ACTIVITY),
            bus.subscribe(self._heard_event, *heard, EventKind.PERSON_NAMED),
        )

    @property
    def refused(self) -> list[dict]:
        """Utterances refused as the companion's own voice."""
        return self.own_voice.refused

    # ------------------------------------------------------------------ the recorder's events (its threads)
    def _voice_activity(self, ev: Event) -> None:
        """Every VAD window (ending at `t_s`): enough speech in a row is an onset, and an onset over a reply is
        a barge-in."""
        assert isinstance(ev, VoiceActivity)
        t_s = ev.t_s
        if ev.probability >= self.cfg.vad.threshold:
            self.lines_ahead.voiced_s = t_s
            self._run_len += 1
            if self._run_len == self._onset_windows:
                self.ahead.drop()
                with self._lock:
                    actions = self.turns.onset(t_s - self._onset_windows * self._window_s)
                for action in actions:
                    self._interrupt(action)
        else:
            self._run_len = 0

    def refusal(self, utt: Utterance) -> str | None:
        """Why `utt` is not to be stored: the companion's own voice coming back through the microphone."""
        if self.own_voice.heard(utt):
            return "the companion's own voice"
        self._pending = {t: u for t, u in self._pending.items() if t > utt.t_start_s - KEEP_S}
        self._pending[round(utt.t_start_s, 3)] = utt
        return None

    def heard_ahead(self, utt: Utterance) -> None:
        """Words recognised while the VAD still waits out the silence after them (on the loop). A request among
        them is answered ahead on the reply thread, not said: when the silence lasts and the same words close
        the utterance, the answer is ready, or nearer, and is said at once; an onset before that drops it."""
        if not self.cfg.companion.answer_ahead:
            return
        with self._lock:
            request = self.turns.request(utt.text)
            if not request or self.turns.state is not State.LISTENING or self.playback.busy:
                return
            ahead = self.ahead.start(request, self._present, utt.t_end_s - self._pad_s, self.clock())
        self._idle.clear()
        self._requests.put(("ahead", ahead))

    def _heard_event(self, ev: Event) -> None:
        if isinstance(ev, Speech):
            end = round(ev.end_s, 3)
            self._segments = {t: c for t, c in self._segments.items() if t > end - KEEP_S}
            self._segments[end] = self.clock()
        elif isinstance(ev, SessionStart):
            self._session_start = self.origin + ev.t_s
        elif isinstance(ev, Stored):
            utt = self._pending.pop(ev.t_s, None)
            if utt is not None:
                self._heard(utt, ev.person, ev.utterance)
        elif isinstance(ev, Identity):
            self._present = ev.person
            if self._present:
                self._requests.put(("returned", self._present, self.clock()))
        elif isinstance(ev, PersonNamed) and ev.was == self._present:  # the one there said their name
            self._present = ev.person
            self._requests.put(("returned", self._present, self.clock()))

    def _heard(self, utt: Utterance, person: str | None, uid: int | None = None) -> None:
        end_s = utt.t_end_s - self._pad_s  # the segment is padded after the last speech
        with self._lock:
            actions = self.turns.heard(utt.text, person, end_s)
        if not actions and uid is not None and self.cfg.companion.keep_lines:
            self.lines_ahead.add([uid])  # no request: a line a later question may read
        for action in actions:
            if isinstance(action, Interrupt):
                self._interrupt(action)
            elif isinstance(action, Answer):
                closed = self._segments.pop(round(utt.t_end_s, 3), None)
                timings = {"stored_ms": (self.clock() - end_s) * 1e3}
                if closed is not None:
                    timings["vad_ms"] = (closed - end_s) * 1e3
                    timings["asr_ms"] = (self.clock() - closed) * 1e3
                self._idle.clear()
                self._requests.put(("answer", action, timings, uid, self.turns.interrupted))

    def _interrupt(self, action: Interrupt) -> None:
        """Barge-in: stop playback now, cancel the generation; the reply is recorded as interrupted."""
        now = self.clock()
        stopped = self.playback.stop(now, set(SPOKEN))
        reply, job = self._current, self._job
        if reply is not None:
            reply.interrupted = True
        if job is not None:
            job.cancel()
        event = BargeIn(
            action.t_s,
            round(action.t_s, 3),
            round(now, 3),
            action.was.value,
            round((now - action.t_s) * 1e3, 1),
            len(stopped),
        )
        self.barge_ins.append(event.detail)
        self.bus.publish(event)

    # ------------------------------------------------------------------ playback callbacks (the loop)
    def _started(self, item: Played) -> None:
        reply = self._current
        if reply is not None and item in reply.items and reply.first_audio_s is None:
            reply.first_audio_s = item.start_s
        with self._lock:
            self.turns.started_speaking(item.start_s or self.clock())

    def _ended(self, item: Played) -> None:
        reply = self._current
        if reply is not None and item in reply.items and not reply.generating and item is reply.items[-1]:
            with self._lock:
                self.turns.finished(item.end_s or self.clock())

    # ------------------------------------------------------------------ the reply thread
    @property
    def busy(self) -> bool:
        """Thinking or speaking (a replay keeps its clock running while this is so)."""
        return not self._idle.is_set() or self.turns.state is not State.LISTENING or self.playback.busy

    @property
    def thinking(self) -> bool:
        """A reply, greeting or line it has taken up is being worked out, nothing of it ready to play yet (a replay
        run with `--hold` stands its clock still while this is so; an answer worked out ahead is not taken up)."""
        return self.turns.state is State.THINKING and not self.playback.busy

    def say(self, text: str) -> bool:
        """Say `text` (a reminder, or the API's `say`) when nothing else is being said; False when busy."""
        with self._lock:
            if not self.turns.announce(self.clock()):
                return False
        self._idle.clear()
        self._requests.put(("say", text, self.clock()))
        return True

    def push_to_talk(self) -> None:
        with self._lock:
            self.turns.push_to_talk()

    def close(self, timeout: float = 5.0) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        if self._job is not None:
            self._job.cancel()
        self._requests.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        memory = None
        try:
            memory = self.memory.second()
            answerer = Answerer(self.llm.get(), memory, self.embedder, self.cfg)
        except AppError as e:
            _LOGGER.error("the companion cannot answer: %s", e)
            self.bus.publish(Error(self.clock(), "companion", str(e)))
            answerer = None
        if answerer is not None and self.cfg.companion.wearer:  # the wearer asks most: their profile now
            try:
                answerer.warm(self.cfg.companion.wearer, self._now(self.clock()))
            except AppError as e:
                _LOGGER.info("the wearer's profile was not evaluated ahead: %s", e)
        if answerer is not None and memory is not None and self.cfg.companion.keep_lines:
            latest = memory.turns.latest(self.cfg.companion.keep_lines)  # the last said first
            self.lines_ahead.add(reversed(latest))
        self.lines_ahead.begin()
        try:
            while True:
                try:
                    request = self._requests.get(timeout=KEEP_POLL_S)
                except queue.Empty:
                    if answerer is not None:
                        with self._lock:
                            free = not self.busy
                        self.lines_ahead.step(answerer, self.clock(), free)
                    continue
                if request is None:
                    break
                try:
                    if request[0] == "answer":
                        self._answer(answerer, *request[1:])
                    elif request[0] == "ahead":
                        ahead = request[1]
                        self.ahead.answer(answerer, ahead, self._now(ahead.t_s), self.cfg.companion.answer_timeout_s)
                    elif request[0] == "returned":
                        self._returned(memory, *request[1:])
                    elif request[0] == "say":
                        reply = Reply("say", "", None, request[2], text=request[1])
                        self._begin(reply)
                        for sentence in split_sentences(request[1]):
                            self._say(reply, sentence)
                        self._end(reply)
                except AppError as e:  # one line; the recorder goes on
                    _LOGGER.error("companion: %s", e)
                    self.bus.publish(Error(self.clock(), "companion", str(e)))
                except Exception:
                    _LOGGER.exception("companion reply failed")
                finally:
                    if self._requests.empty():
                        self._idle.set()
        finally:
            if memory is not None:
                memory.close()

    def _now(self, t_s: float) -> datetime:
        return datetime.fromtimestamp(self.origin + t_s, timezone.utc)

    def _answer(
        self, answerer, action: Answer, timings: dict[str, float], uid: int | None = None, interrupts: int = 0
    ) -> None:
        reply = Reply("answer", action.question, action.person, action.t_s, timings_ms=timings)
        self._begin(reply)
        reply.interrupted = self.turns.interrupted != interrupts  # spoken over before its turn came
        if uid is not None and answerer is not None:  # the request itself is not memory to answer from
            answerer.memory.turns.mark_addressed(uid)
        if answerer is None:
            reply.error = "no language model"
            self._say(reply, "Sorry, I cannot answer right now.")
            self._end(reply)
            return
        sentences = SentenceBuffer()
        started = time.perf_counter()

        def on_text(piece: str) -> None:
            for sentence in sentences.feed(piece):
                self._say(reply, sentence)

        def on_answered() -> None:  # the answer is complete: say its last words without waiting for citations
            for sentence in sentences.flush():
                self._say(reply, sentence)

        try:
            ahead = self.ahead.take(action.question, action.t_s, action.person)
            if ahead is not None:  # the silence lasted: the answer worked out ahead is said now
                assert ahead.result is not None
                result = ahead.result
                on_text(result.answer)
                on_answered()
                stored_s = action.t_s + timings.get("stored_ms", 0.0) / 1e3
                reply.timings_ms["ahead_ms"] = (stored_s - ahead.started_s) * 1e3
            else:
                result = answerer(
                    action.question,
                    self._now(action.t_s),
                    action.person,
                    on_text=on_text,
                    timeout_s=self.cfg.companion.answer_timeout_s,
                    on_job=self._set_job,
                    on_answered=on_answered,
                )
            for sentence in sentences.flush():
                self._say(reply, sentence)
            reply.text, reply.known = result.answer, result.known
            reply.citations = result.citations
            if result.first_token_ms is not None:
                reply.timings_ms["llm_first_token_ms"] = result.first_token_ms
            reply.timings_ms["answer_ms"] = (time.perf_counter() - started) * 1e3
        except AppError as e:
            if not reply.interrupted:
                reply.error = str(e)
                _LOGGER.error("companion: %s", e)
                crashed = isinstance(e, LLMCrashed | LLMUnavailable)
                self._say(reply, "Sorry, I can't think right now." if crashed else "Sorry, I lost my train of thought.")
        finally:
            self._job = None
            self._end(reply)

    def _set_job(self, job) -> None:
        self._job = job
        if self._current is not None and self._current.interrupted:
            job.cancel()

    def _returned(self, memory, person: str, t_s: float) -> None:
        """A person was confirmed in view: greet them if they were away long enough (and the rest of the policy)."""
        if memory is None or person.startswith(("unknown_", "guest_")) or person == self.cfg.companion.wearer:
            return  # no name to greet them by yet (their introduction may follow), or the wearer
        pid = memory.people.person_id(person)
        if pid is None:
            return
        before = self._session_start if self._session_start is not None else self.origin + t_s
        last, consent = memory.people.last_seen(pid, before)
        now_s = self.origin + t_s
        if not self.policy.decide(person, last, now_s, consent):
            _LOGGER.debug("%s confirmed at %.1f s: no greeting (last seen %s, consent %s)", person, t_s, last, consent)
            return
        with self._lock:
            actions = self.turns.person_returned(person, t_s)
        for action in actions:
            if isinstance(action, Greet):
                self._greet(memory, action, pid)

    def _greet(self, memory, action: Greet, pid: int) -> None:
        reply = Reply("greeting", "", action.person, action.t_s)
        self._begin(reply)
        started = time.perf_counter()
        text, sources = greeting(memory.derived.profile(pid), self.origin + action.t_s)
        reply.timings_ms["compose_ms"] = (time.perf_counter() - started) * 1e3
        reply.text, reply.known = text, bool(sources)
        reply.citations = cited_lines(memory, [s for s in sources if s is not None])
        for sentence in split_sentences(text):  # "Hi David!" plays while the rest is synthesized
            self._say(reply, sentence)
        self._end(reply)

    def _begin(self, reply: Reply) -> None:
        self._current = reply
        self.replies.append(reply)
        start = {"answer": ReplyStart, "greeting": GreetingStart, "say": SayStart}[reply.kind]
        self.bus.publish(start(reply.asked_s, reply.question, reply.person))

    def _say(self, reply: Reply, sentence: str) -> None:
        sentence = _CITED.sub("", sentence).strip()  # "[fact 7]", "[12]": for the eyes, not the ears
        if reply.interrupted or not sentence:
            return
        started = time.perf_counter()
        audio = self.voice.speak_16k(sentence)
        if not reply.items:
            reply.timings_ms["tts_first_ms"] = (time.perf_counter() - started) * 1e3
        item = Played("greeting" if reply.kind == "greeting" else "reply", audio, sentence)
        reply.items.append(item)
        if not reply.interrupted:  # a barge-in may have come during synthesis
            self.playback.play(item)

    def _end(self, reply: Reply) -> None:
        reply.generating = False
        if not reply.items or reply.interrupted or all(p.end_s is not None for p in reply.items):
            with self._lock:
                self.turns.finished(self.clock())
        detail = reply.as_dict()
        del detail["kind"]  # the event's kind says it
        done = {"answer": ReplyEvent, "greeting": Greeting, "say": Said}[reply.kind]
        self.bus.publish(done(reply.asked_s, **detail))
