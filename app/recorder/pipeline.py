"""The recorder: one asyncio task per stage, bounded queues, blocking inference on per-model threads.

capture ─AudioChunk─▶ vad ─SpeechSegment─▶ asr (+ voice embedding) ─Utterance─▶ store (speaker, text
   │                   └─every poll_s: the window's speech─▶ identity ─┐          embedding, write)
   └────VideoFrame (bounded, oldest dropped)─▶ faces (novelty-gated) ─ face timeline ─┘
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from app.audio.asr import Transcript
from app.audio.vad import Reframer, SpeechSegmenter
from app.config import Config
from app.consolidation.background import BackgroundWriter
from app.errors import AppError, DiskFullError
from app.events import (
    Bus,
    Error,
    Event,
    EventKind,
    Identity,
    MemoryWritten,
    Skipped,
    Speech,
    VoiceActivity,
)
from app.frames import SAMPLE_RATE_HZ, AudioChunk, Face, FaceObservation, SpeechSegment, Utterance, VideoFrame
from app.identity.diarize import Diarizer, VoiceRun, conversation_voices, split_voices
from app.identity.tracker import IdentityTracker
from app.recorder.perception import Perception
from app.recorder.sources import Source
from app.recorder.summary import RunSummary
from app.recorder.turns import MIN_EMBED_S, Heard, fill_skipped, turns
from app.recorder.writer import UtteranceWriter
from app.store.memory import Memory
from app.store.retention import sweep
from app.supervision import supervised
from app.vision.faces import FaceTracker
from app.vision.timeline import FaceTimeline

_LOGGER = logging.getLogger(__name__)
_END = None  # end-of-stream marker on every queue
VIDEO_QUEUE = 8
SEGMENT_QUEUE = 16


# The second speaker model embeds a turn of CHECK_MIN_S or more (CAM++ tells one reader from two on turns of 1.5 s as
# well as Resemblyzer and better from 3 s: README, Conversations), at most its first CHECK_MAX_S, and at most
# CHECK_PER_VOICE turns of each voice a conversation heard, so an hour-long conversation costs it a few seconds.
CHECK_MIN_S, CHECK_MAX_S, CHECK_PER_VOICE = 1.5, 4, 20


@dataclasses.dataclass(frozen=True)
class _Turn:
    """A turn of the conversation for its clustering when it ends: its times, its voice windows (unit rows) and
    its embedding by the second speaker model (None: too short, or that voice had enough)."""

    start_s: float
    end_s: float
    windows: np.ndarray
    check: np.ndarray | None


@dataclasses.dataclass(frozen=True)
class _Revision:
    """A conversation ended: each of its turns' voice over all of it, (start s, end s, voice), and its embedding by
    the second speaker model where it was checked (writer.revise)."""

    voices: tuple[tuple[float, float, int], ...]
    checks: tuple[np.ndarray | None, ...]


class Recorder:
    """Runs a source through the stages into the memory; `run()` returns when the source ends or stops."""

    def __init__(
        self,
        cfg: Config,
        memory: Memory,
        models: Perception,
        source: Source,
        on_event: Callable[[Event], None] | None = None,
        on_progress: Callable[[float], None] | None = None,
        llm=None,
        bus: Bus | None = None,
        refuse: Callable[[Utterance], str | None] | None = None,
        eager: bool = False,
        heard_ahead: Callable[[Utterance], None] | None = None,
    ) -> None:
        self.cfg = cfg
        # recognise a segment while the VAD still waits for its end (someone waits for the words: the companion),
        # and give what was recognised to `heard_ahead` (on the loop: it must return at once)
        self._eager = eager
        self._heard_ahead = heard_ahead
        self.bus = bus or Bus()  # what it reports (app/events.py); `on_event` is one more subscriber
        if on_event is not None:
            self.bus.subscribe(on_event)
        self._refuse = refuse  # why an utterance is not to be stored (the companion's own voice), else None
        self._llm = llm  # a SharedLLM for background memory writing (the service's), else it loads its own
        self.memory = memory
        self.models = models
        self.source = source
        self.summary = RunSummary(source.name)
        self._on_progress = on_progress
        self._pools = {
            name: ThreadPoolExecutor(1, thread_name_prefix=name)
            for name in ("vad", "asr", "faces", "identity", "store")
        }
        self._audio_q: asyncio.Queue = asyncio.Queue(max(8, int(cfg.audio.queue_s / 0.064)))
        self._video_q: asyncio.Queue = asyncio.Queue(VIDEO_QUEUE)
        self._segment_q: asyncio.Queue = asyncio.Queue(SEGMENT_QUEUE)
        self._utterance_q: asyncio.Queue = asyncio.Queue(SEGMENT_QUEUE)
        self._poll_q: asyncio.Queue = asyncio.Queue(SEGMENT_QUEUE)
        self.tracker: IdentityTracker | None = None  # set once the keys are loaded
        self._face_tracker = FaceTracker(models.faces) if models.faces is not None else None
        self._faces = FaceTimeline()
        self._stored_all = asyncio.Event()
        self._full = False  # the disk filled up: nothing more can be stored
        self._conversation = 0  # which conversation the diarizer's voices belong to (a long silence ends one)
        faces = models.faces
        self.running = False  # between the start and the end of run()
        self.background = None  # memory writing beside the recorder (memory.background), started by run()
        self.writer = UtteranceWriter(
            cfg,
            memory,
            source.name,
            source.origin_epoch_s,
            models.asr.name,
            models.text,
            faces.name if faces else "",
            faces.metric if faces else "l2",
            faces.threshold if faces else 0.0,
            self.bus.publish,
        )

    async def _in(self, pool: str, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pools[pool], fn, *args)

    async def on_store_thread(self, fn, *args):
        """Run `fn(memory, *args)` on the recorder's store thread with its connection (a change the recorder
        must see at once, such as `forget`), then reload its identities from the store."""

        def run():
            out = fn(self.memory, *args)
            self.writer.reload()
            if self.tracker is not None:
                self.tracker.assigner = self.writer.assigner
            return out

        return await self._in("store", run)

    async def run(self) -> RunSummary:
        started = time.monotonic()
        self.running = True
        await self._in("store", self.writer.load)
        woken = None
        if self.cfg.memory.background:
            self.background = BackgroundWriter(
                self.memory, self.models.text, self.cfg, self._written, self._llm, self._llm_fault
            )
            # a closed session is queued: its memory can be written
            woken = self.bus.subscribe(lambda _: self.background.wake(), EventKind.SESSION_END, EventKind.SESSION_SPLIT)
        assert self.writer.assigner is not None
        self.tracker = IdentityTracker(self.cfg.identity, self.writer.assigner)
        # every stage is supervised (app/supervision.py): a failure is logged, the stage restarted with fresh
        # state after a back-off; capture is not restarted (a file would play again) but ends the stream
        stages = {
            "capture": self._capture(),
            "vad": supervised("vad", self._vad),
            "asr": supervised("asr", self._asr),
            "faces": supervised("faces", self._face_stage),
            "identity": supervised("identity", self._identity),
            "store": self._store(),
            "retention": self._retention(),
        }
        tasks = [asyncio.create_task(coro, name=name) for name, coro in stages.items()]
        try:
            await asyncio.gather(*tasks)
        finally:
            self.running = False
            if woken is not None:
                woken()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for pool in self._pools.values():
                pool.shutdown(wait=True)
            self.summary.wall_s = time.monotonic() - started
            if self.background is not None:  # what was recorded gets its memory written, after a stop too
                stopped = self.source.duration_s is None or self.source.stopped  # (bounded: background.py)
                if self._full:  # the disk filled up: nothing more can be written
                    report = await asyncio.to_thread(self.background.stop)
                else:
                    report = await asyncio.to_thread(self.background.wind_up, stopped)
                self.summary.memory_jobs, self.summary.memory_s = report.jobs, round(report.seconds, 1)
                self.summary.memory_error = self.background.error
        return self.summary

    async def _capture(self) -> None:
        # a live source cannot wait for the face stage: drop the oldest frames; a replay waits instead
        lossy_video = self.source.duration_s is None or self.source.realtime
        try:
            async for item in self.source.stream():
                if isinstance(item, AudioChunk) or not lossy_video:
                    await (self._audio_q if isinstance(item, AudioChunk) else self._video_q).put(item)
                elif self._video_q.full():
                    self._video_q.get_nowait()  # video is not ground truth: drop the oldest, count it
                    self.summary.frames_dropped += 1
                    self._video_q.put_nowait(item)
                else:
                    self._video_q.put_nowait(item)
        except AppError as e:  # reported in the run summary; everything before it is still processed
            _LOGGER.info("capture ended: %s", e)
            self._fail(e)
            self.bus.publish(Error(self.summary.duration_s, "capture", str(e)))
        except Exception as e:  # the source broke: what it gave is still processed
            _LOGGER.exception("capture failed; the stream ends here")
            self.summary.errors.append(f"capture failed: {e}")
            self.bus.publish(Error(self.summary.duration_s, "capture", str(e)))
        finally:
            await self._audio_q.put(_END)
            await self._video_q.put(_END)

    async def _vad(self) -> None:
        vad = self.models.vad
        reframer = Reframer(vad.window_samples)
        segmenter = SpeechSegmenter(self.cfg.vad, vad.window_samples, self._eager)
        await self._in("vad", vad.reset)

        def probs(windows: list[np.ndarray]) -> list[float]:
            return [vad(w) for w in windows]

        window_s = vad.window_samples / SAMPLE_RATE_HZ
        ident = self.cfg.identity
        voiced = self.bus.wants(EventKind.VOICE_ACTIVITY)  # barge-in listens to every window
        speech: collections.deque[tuple[float, np.ndarray]] = collections.deque()  # (end time, window)
        t, next_poll = 0.0, ident.poll_s
        first = True
        while (chunk := await self._audio_q.get()) is not _END:
            if first:  # the stream's clock: 0 for a file, the glasses' capture time for ingest
                t, next_poll, segmenter.origin_s, first = (
                    chunk.t_start_s,
                    chunk.t_start_s + ident.poll_s,
                    chunk.t_start_s,
                    False,
                )
            windows = reframer.push(chunk.samples)
            self.summary.duration_s += chunk.duration_s
            if self._on_progress is not None:
                self._on_progress(chunk.duration_s)
            for window, p in zip(windows, await self._in("vad", probs, windows), strict=True):
                t += window_s
                if voiced:
                    self.bus.publish(VoiceActivity(t, p))
                if p >= self.cfg.vad.threshold:
                    speech.append((t, window))
                for seg in segmenter.push(window, p):
                    await self._segment(seg)
                if t >= next_poll:
                    while speech and speech[0][0] <= t - ident.window_s:
                        speech.popleft()
                    heard = np.concatenate([w for _, w in speech]) if speech else None
                    await self._poll(t, heard)
                    next_poll += ident.poll_s
        last = reframer.flush()
        if last is not None:
            for seg in segmenter.push(last, (await self._in("vad", probs, [last]))[0]):
                await self._segment(seg)
        for seg in segmenter.flush():
            await self._segment(seg)
        await self._segment_q.put(_END)
        await self._poll_q.put(_END)

    async def _poll(self, t_s: float, speech: np.ndarray | None) -> None:
        """Ask the identity stage who is there; a live source skips a poll rather than fall behind."""
        if self.source.duration_s is not None:
            await self._poll_q.put((t_s, speech))
        elif not self._poll_q.full():
            self._poll_q.put_nowait((t_s, speech))

    async def _identity(self) -> None:
        """Every poll: embed the window's speech, take the faces in view, and let the tracker decide (on the
        store thread, where the keys change and new people are written)."""
        ident = self.cfg.identity
        min_samples = ident.poll_min_speech_s * SAMPLE_RATE_HZ
        while (item := await self._poll_q.get()) is not _END:
            t_s, speech = item
            try:
                voice = None
                if speech is not None and len(speech) >= min_samples:
                    voice = await self._in("identity", self.models.voice, speech)
                await self._faces_until(t_s)
                faces = self._faces.scene(t_s, ident.window_s)
                if not self._full:
                    await self._in("store", self._track, t_s, voice, faces)
            except DiskFullError as e:
                self._disk_full(e)
            except Exception:
                _LOGGER.exception("the identity poll at %.1f s failed; skipped", t_s)

    def _track(self, t_s: float, voice: np.ndarray | None, faces: tuple[Face, ...]) -> None:
        assert self.tracker is not None
        change, new_faces = self.tracker.poll(t_s, voice, faces)
        for face in new_faces:
            self.writer.add_face_person(face, t_s)
        if change is not None:
            names = self.writer.names
            now, before = change.now, change.before
            self.bus.publish(Identity(t_s, names.get(now.person_id), names.get(before.person_id), now.by, now.score))

    @property
    def present(self) -> str | None:
        """Who is there now by name, by the last confirmed poll (None before the first, or nobody known)."""
        seen = self.tracker.current if self.tracker is not None else None
        return self.writer.names.get(seen.person_id) if seen is not None and seen.person_id is not None else None

    async def _segment(self, seg: SpeechSegment) -> None:
        if not seg.final:  # tentative: recognised ahead only while recognition keeps up
            if self._segment_q.empty():
                self._segment_q.put_nowait(seg)
            return
        self.summary.speech_s += seg.duration_s
        self.bus.publish(Speech(seg.t_start_s, round(seg.t_end_s, 3)))
        await self._segment_q.put(seg)

    def _recognize(self, seg: SpeechSegment, diarizer: Diarizer) -> Heard:
        """The words of a stretch of speech and the runs of the voices in it, as the conversation's voices
        would have them (they learn nothing yet: see `_learn`). The words' times are asked for only where the
        voice changes."""
        runs: tuple[VoiceRun, ...] = (VoiceRun(0.0, seg.duration_s, 0),)
        windows = None
        if self.cfg.turns.enabled and seg.duration_s >= MIN_EMBED_S:
            windows = self.models.voice.windows(seg.audio, self.cfg.turns.window_s, self.cfg.turns.hop_s)
            runs = tuple(diarizer.copy().runs(*windows, seg.duration_s))
        hotwords = self.writer.hotwords  # the names known and said so far (the store thread sets them)
        transcript = self.models.asr(seg.audio, words=len(runs) > 1, hotwords=hotwords)
        if transcript.looped and len(runs) > 1:  # long speech of several voices can send Whisper round in a loop
            return Heard(transcript, runs, windows, self._each_run(seg, runs, hotwords))
        return Heard(self._fill_skipped(seg, transcript, runs, hotwords), runs, windows)

    def _fill_skipped(
        self, seg: SpeechSegment, transcript: Transcript, runs: tuple[VoiceRun, ...], hotwords: str
    ) -> Transcript:
        """The stretch's words with the voices' runs Whisper passed over read again (turns.fill_skipped)."""
        filled, again = fill_skipped(transcript, runs, lambda run: self._read_run(seg, run, hotwords))
        self.summary.runs_read_again += again
        return filled

    def _each_run(self, seg: SpeechSegment, runs: tuple[VoiceRun, ...], hotwords: str) -> tuple[str, ...]:
        """Each voice's run recognised on its own (when the stretch as a whole looped)."""
        return tuple(self._read_run(seg, run, hotwords) for run in runs)

    def _read_run(self, seg: SpeechSegment, run: VoiceRun, hotwords: str) -> str:
        rate = SAMPLE_RATE_HZ
        return self.models.asr(seg.audio[int(run.start_s * rate) : int(run.end_s * rate)], hotwords=hotwords).text

    def _learn(self, seg: SpeechSegment, heard: Heard, diarizer: Diarizer) -> Heard:
        """A stretch with words, closed: the conversation's voices learn it and give its runs (the same as
        recognition saw, unless a tentative recognition ran before the stretch before it closed)."""
        if heard.windows is None:
            return heard
        runs = tuple(diarizer.runs(*heard.windows, seg.duration_s))
        if heard.texts is not None and len(runs) == len(heard.texts):
            return dataclasses.replace(heard, runs=runs)
        if len(runs) > 1 and not heard.transcript.words:
            hotwords = self.writer.hotwords
            transcript = self.models.asr(seg.audio, words=True, hotwords=hotwords)
            return Heard(self._fill_skipped(seg, transcript, runs, hotwords), runs, heard.windows)
        return dataclasses.replace(heard, runs=runs)

    def _turns(self, seg: SpeechSegment, heard: Heard) -> list[Utterance]:
        vad = self.cfg.vad  # a turn is cut where the VAD heard a pause, and ends where its speech does
        return turns(seg, heard, self._conversation, self.models.voice, vad.neg_threshold, vad.pad_ms / 1000)

    def _windows_of(
        self,
        seg: SpeechSegment,
        heard: Heard,
        said: list[Utterance],
        checked: collections.Counter[tuple[int, int] | None],
    ) -> list[_Turn]:
        """The voice windows of each turn cut from a stretch (their centres inside it), for the conversation's
        clustering when it ends; a listener's "mm-hm" and turns without windows take no part. A turn of CHECK_MIN_S
        or more is also embedded by the second speaker model (its first CHECK_MAX_S), the first CHECK_PER_VOICE of
        each voice as the conversation heard it (`checked` counts them)."""
        if heard.windows is None:
            return []
        windows, centres = heard.windows
        at = seg.t_start_s + centres
        out = []
        for utt in said:
            inside = (at >= utt.t_start_s) & (at <= utt.t_end_s)
            if utt.voice is None or utt.backchannel or not inside.any():
                continue
            check = None
            long = utt.t_end_s - utt.t_start_s >= CHECK_MIN_S
            if self.models.check is not None and long and checked[utt.voice] < CHECK_PER_VOICE:
                checked[utt.voice] += 1
                start = max(0, round((utt.t_start_s - seg.t_start_s) * SAMPLE_RATE_HZ))
                end = min(round((utt.t_end_s - seg.t_start_s) * SAMPLE_RATE_HZ), start + CHECK_MAX_S * SAMPLE_RATE_HZ)
                try:
                    check = self.models.check(seg.audio[start:end])
                except Exception:  # the turn still takes part, unchecked
                    _LOGGER.exception("the second speaker model failed on the turn at %.1f s", utt.t_start_s)
            out.append(_Turn(utt.t_start_s, utt.t_end_s, windows[inside], check))
        return out

    async def _revise(self, turns: list[_Turn]) -> None:
        """The conversation ended: its turns' voices clustered over all of it and checked by the second model go to
        the store stage, which gives its turns to people again (UtteranceWriter.revise)."""
        if not self.cfg.turns.revise or not turns:
            return
        try:
            voices = await self._in("asr", self._conversation_voices, turns)
        except Exception:
            _LOGGER.exception("clustering the conversation's voices failed; its turns stay as they were given")
            return
        if voices is not None:
            spans = tuple((turn.start_s, turn.end_s, v) for turn, v in zip(turns, voices, strict=True))
            await self._utterance_q.put(_Revision(spans, tuple(turn.check for turn in turns)))

    def _conversation_voices(self, turns: list[_Turn]) -> list[int] | None:
        windows = [turn.windows for turn in turns]
        voices = conversation_voices(windows, self.cfg.turns.revise_same_voice)
        if voices is None or self.models.check is None:
            return voices
        split = split_voices(voices, [turn.check for turn in turns], windows, self.cfg.turns.split_below)
        if more := len(set(split)) - len(set(voices)):
            self.summary.voices_split += more
            _LOGGER.info("the second speaker model split %d voice(s) of the conversation", more)
        return split

    async def _asr(self) -> None:
        ahead: tuple[SpeechSegment, Heard] | None = None  # a tentative segment and what was recognised in it
        diarizer, last_end = Diarizer(self.cfg.turns), None
        conversation: list[_Turn] = []  # its turns' times, voice windows and second model's embeddings
        checked: collections.Counter[tuple[int, int] | None] = (
            collections.Counter()
        )  # turns embedded by the second model, per voice
        while (seg := await self._segment_q.get()) is not _END:
            if seg.final:  # a silence that ends a session ends the conversation's voices
                if last_end is not None and seg.t_start_s - last_end >= self.cfg.session.gap_s:
                    await self._revise(conversation)
                    conversation = []
                    checked.clear()
                    diarizer.reset()
                    self._conversation += 1
                last_end = seg.t_end_s
            if ahead is not None and seg.final and np.array_equal(ahead[0].audio, seg.audio):
                heard, ahead = ahead[1], None  # the silence lasted: the words are ready
                self.summary.eager_used += 1
            else:
                if ahead is not None:  # the speaker went on after a pause: that recognition was not needed
                    self.summary.eager_wasted += 1
                    ahead = None
                try:
                    heard = await self._in("asr", self._recognize, seg, diarizer)
                except Exception:
                    if seg.final:  # a tentative segment will be tried when it closes
                        self._skip(seg, "speech recognition failed")
                    continue
                if not seg.final:
                    ahead = (seg, heard)
                    if self._heard_ahead is not None and heard.transcript.text:
                        t = heard.transcript
                        self._tell_ahead(Utterance(t.text, seg.t_start_s, seg.t_end_s, t.confidence, None, None))
                    continue
            if not heard.transcript.text and not any(heard.texts or ()):
                self.bus.publish(Skipped(seg.t_start_s, "asr", "no words"))
                continue
            _LOGGER.debug("heard %r at %.1f s", heard.transcript.text, seg.t_start_s)
            try:
                heard = await self._in("asr", self._learn, seg, heard, diarizer)
                said = await self._in("asr", self._turns, seg, heard)
            except Exception:
                self._skip(seg, "telling its turns apart failed")
                continue
            conversation += await self._in("asr", self._windows_of, seg, heard, said, checked)
            for utt in said:
                await self._utterance_q.put(utt)
        await self._revise(conversation)
        await self._utterance_q.put(_END)

    def _skip(self, seg: SpeechSegment, what: str) -> None:
        _LOGGER.exception("%s on the segment at %.1f s; skipped", what, seg.t_start_s)
        self.summary.skipped += 1
        self.bus.publish(Skipped(seg.t_start_s, "asr"))

    def _tell_ahead(self, utt: Utterance) -> None:
        assert self._heard_ahead is not None
        try:
            self._heard_ahead(utt)
        except Exception:  # the recorder goes on: the words are stored when the segment closes
            _LOGGER.exception("what was recognised ahead at %.1f s could not be given on", utt.t_start_s)

    def _analyse(self, image: np.ndarray, t_s: float) -> tuple[list[Face], bytes | None]:
        """Faces in a frame, and the frame as JPEG when it shows one and frames are kept."""
        # lazy: OpenCV is heavy (~0.1 s); recording audio alone does without it
        import cv2

        assert self._face_tracker is not None
        faces = self._face_tracker(image, t_s)
        if not faces or self.cfg.retention.keep_s("frame") <= 0:
            return faces, None
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return faces, buf.tobytes() if ok else None

    async def _face_stage(self) -> None:
        detector = self.models.faces
        gate = self.models.novelty()
        while (frame := await self._video_q.get()) is not _END:
            frame: VideoFrame
            if detector is not None and gate(frame.image):
                try:
                    faces, jpeg = await self._in("faces", self._analyse, frame.image, frame.t_s)
                    self._faces.add(FaceObservation(frame.t_s, tuple(faces), jpeg))
                    self.summary.frames_analysed += 1
                except Exception:
                    _LOGGER.exception("face analysis failed on the frame at %.1f s; skipped", frame.t_s)
            await self._faces.advance(frame.t_s)
        await self._faces.advance(None)

    async def _faces_until(self, t_s: float) -> None:
        """Wait until the face stage has seen the video up to `t_s`: a replay waits as long as it takes, a
        live source at most 2 s (its frames may be dropped)."""
        if not self.source.has_video:
            return
        try:
            await self._faces.wait_until(t_s, 2.0 if self.source.duration_s is None else None)
        except asyncio.TimeoutError:
            pass

    async def _store(self) -> None:
        try:
            await supervised("store", self._store_loop)
            if not self._full:
                await self._in("store", self.writer.close)
        finally:
            self._stored_all.set()

    async def _store_loop(self) -> None:
        while (utt := await self._utterance_q.get()) is not _END:
            if isinstance(utt, _Revision):
                await self._give_again(utt)
                continue
            await self._faces_until((utt.t_start_s + utt.t_end_s) / 2)
            seen = self._faces.main_face(utt.t_start_s, utt.t_end_s)
            if seen is not None:
                utt = dataclasses.replace(utt, face=seen[0], frame_jpeg=seen[1].jpeg, frame_faces=seen[1].faces)
            self._faces.prune(utt.t_start_s - 10.0)
            if self._full:
                self.summary.unstored += 1
                continue
            if self._refuse is not None and (why := self._refuse(utt)) is not None:
                self.bus.publish(Skipped(utt.t_start_s, "refused", why))
                continue
            try:
                await self._in("store", self._write, utt)
            except DiskFullError as e:
                self.summary.unstored += 1
                self._disk_full(e)
            except AppError as e:
                self._fail(e)
                raise
            except Exception:
                _LOGGER.exception("storing the utterance at %.1f s failed; skipped", utt.t_start_s)
                self.summary.skipped += 1
                self.bus.publish(Skipped(utt.t_start_s, "store"))

    async def _give_again(self, revision: _Revision) -> None:
        if self._full:
            return
        try:
            given = await self._in("store", self.writer.revise, revision.voices, revision.checks)
            self.summary.turns_given_again += given
            self._tally()
        except DiskFullError as e:
            self._disk_full(e)
        except Exception:  # the turns stay as they were given
            _LOGGER.exception("giving the conversation's turns to people again failed")

    def _written(self, kind: str, ref: int) -> None:
        """From the memory writer's thread: a job's facts, relations and summary are committed."""
        self.bus.publish(MemoryWritten(self.summary.duration_s, kind, ref))

    def _llm_fault(self, line: str) -> None:
        """From the model's worker thread: the model failed (its process died, or it cannot load); recording
        goes on, the job is retried or waits in the queue."""
        self.summary.llm_faults.append(line)
        self.bus.publish(Error(self.summary.duration_s, "llm", line))

    def _disk_full(self, err: DiskFullError) -> None:
        """Stop recording; what was committed is intact."""
        if self._full:
            return
        self._full = True
        self._fail(err)
        _LOGGER.info("%s; recording stopped", err)
        self.source.stop()

    def _fail(self, err: AppError) -> None:
        self.summary.errors.append(str(err))
        self.summary.exit_code = self.summary.exit_code or err.exit_code

    async def _retention(self) -> None:
        """Sweep expired and over-budget raw media now and every retention.sweep_s until the run ends."""
        while True:
            try:
                await self._in("store", sweep, self.memory, self.cfg.retention)
            except Exception:
                _LOGGER.exception("the retention sweep failed; retrying in %.0f s", self.cfg.retention.sweep_s)
            try:
                await asyncio.wait_for(self._stored_all.wait(), self.cfg.retention.sweep_s)
                return
            except asyncio.TimeoutError:
                continue

    def _write(self, utt: Utterance) -> None:
        self.writer.write(utt)
        self._tally()

    def _tally(self) -> None:
        """The run summary's counts of what the writer stored and who it heard."""
        w = self.writer
        self.summary.utterances, self.summary.new_people = w.utterances, w.new_people
        self.summary.people = len(w.people_seen)
