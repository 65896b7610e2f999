"""What one utterance becomes in the memory: its session, its speaker, the identity keys and raw media it
adds, written in one transaction on the recorder's single writer thread.

In consent mode (`privacy.consent: required`) a voice that is not a consenting person becomes a transient
identity (a negative id, called guest_N): it is recognised within the current session from keys held in
memory only, its words are stored without a speaker, and no raw media or keys of it reach the disk.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from app.audio.media import encode_wav
from app.config import Config
from app.events import Event, PersonNamed, PersonNew, SessionEnd, SessionSplit, SessionStart, Stored
from app.frames import Face, Utterance
from app.identity.diarize import MIN_HALF, unit
from app.identity.naming import AUTO_NAME, is_given_name, names_by_address, self_introduction
from app.identity.sessions import Turn, boundary_before
from app.identity.speakers import AMBIGUOUS, NEW_PERSON_S, Decision, KeyBank, SpeakerAssigner, nearest_voice
from app.store.memory import Memory
from app.store.people import Person
from app.store.utterances import NewUtterance
from app.vision.faces import distances

_LOGGER = logging.getLogger(__name__)


@dataclass
class _Voice:
    """A voice of the open conversation (app/identity/diarize.py) and the person it was given to."""

    person: int | None = None
    heard: np.ndarray | None = None  # its turns' voice embeddings weighted by their seconds, summed
    seconds: float = 0.0
    waiting: list[int] = field(default_factory=list)  # its utterances stored before it was anyone's


@dataclass
class _Said:
    """A stored turn of the open conversation, as `revise` needs it."""

    uid: int
    person: int | None
    seconds: float
    voice: np.ndarray | None  # its voice embedding
    text: str
    t_start_s: float
    overlapped: bool

    def heard(self) -> Utterance:
        """Its voice as the speaker assignment takes one."""
        return Utterance(self.text, 0.0, self.seconds, 1.0, self.voice, None)


A_NEW_PERSON = 0  # the person a conversation's voice goes to when it is nobody known (people's ids start at 1)
UNSURE = 0.01  # how much a second of a person's turn that does not sound like them weighs in whose voice it is
HOTWORDS = 24  # names the recognizer is told to listen for, at most
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")  # not the first word of a sentence
_PROPER_RUN = re.compile(
    r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b"
)  # "San Francisco", "Alan Newberg": no given name said
_MAPS = ("voice", "new", "face+new-voice")  # decisions by voice: the conversation's voice is that person's


def given_names_in(text: str) -> list[str]:
    """The given names said inside sentences of `text` ("with my daughter Mia"), not a word of a longer proper name
    ("San Francisco": Francisco is no one here) nor a sentence's first word."""
    alone = _PROPER_RUN.sub(lambda m: "x" * len(m.group()), text)
    return [w for w in _CAPITALISED.findall(alone) if is_given_name(w)]


class UtteranceWriter:
    def __init__(
        self,
        cfg: Config,
        memory: Memory,
        source_name: str,
        origin_epoch_s: float,
        asr_name: str,
        text_embed: Callable,
        face_space: str,
        face_metric: str,
        face_threshold: float,
        publish: Callable[[Event], None],
    ) -> None:
        self.cfg = cfg
        self.memory = memory
        self.source_name = source_name
        self.origin = origin_epoch_s
        self.asr_name = asr_name
        self.text_embed = text_embed
        self.voice_model = cfg.models.voice
        self.face_model = face_space
        self._face = (face_metric, face_threshold)
        self._publish = publish
        self.required = cfg.privacy.consent == "required"
        self.assigner: SpeakerAssigner | None = None
        self.names: dict[int, str] = {}
        self.consented: set[int] = set()
        self.session: tuple[int, float] | None = None  # (id, end time) of the open session
        self.recent: list[tuple[int, Turn]] = []  # (utterance id, turn) of the open session's turns
        self.voices: dict[tuple[int, int], _Voice] = {}  # the conversations' voices, and whose they are
        self.said_turns: dict[tuple[float, float], _Said] = {}  # the open conversation's turns by (start, end) s
        self.said: dict[str, None] = {}  # names said in the open conversation, in order
        self.introduced: dict[int, str] = {}  # who the open conversation named by their own introduction, as what
        self.made: set[int] = set()  # the people the open conversation made
        self.hotwords = ""  # the names the recognizer listens for, as a sentence ("Ana, Mia and Tom.")
        self.previous: int | None = None
        self.people_seen: set[int] = set()
        self.new_people = 0
        self.utterances = 0
        self._transient = 0

    def load(self) -> None:
        """Identity keys and names from the store (in consent mode, after dropping non-consenting keys)."""
        if self.required:
            dropped = self.memory.people.enforce_consent()
            if dropped:
                _LOGGER.info("consent mode: removed %d keys and media files of people without consent", dropped)
            self.consented = self.memory.people.consented()
        self.names = {p.id: p.name for p in self.memory.people.all()}
        self._listen_for()
        self.assigner = SpeakerAssigner(
            self.cfg.identity,
            self.memory.people.voice_keys(self.voice_model),
            self.memory.people.face_keys(self.face_model),
            *self._face,
            self.memory.people.voice_key_seconds(self.voice_model),
        )

    def reload(self) -> None:
        """After people or sessions were deleted while recording (`forget` through the service): keys and
        names from the store again, and the open session, if it is still there, ends here."""
        if self.session is not None and any(s["id"] == self.session[0] for s in self.memory.turns.sessions()):
            self.memory.writing.enqueue("session", self.session[0])
        self.session, self.previous, self.recent = None, None, []
        self.voices, self.said_turns = {}, {}
        self.load()
        self.people_seen &= set(self.names)

    def _keeps(self, pid: int | None) -> bool:
        """Whether this speaker's identity (keys, media, the link to their words) may be stored."""
        return pid is not None and pid > 0 and (not self.required or pid in self.consented)

    def _new_keys(self, decision: Decision, utt: Utterance) -> list[tuple[str, np.ndarray, float]]:
        """(kind, embedding, quality) of the identity keys this utterance adds to its speaker."""
        assert self.assigner is not None
        if decision.by not in ("new", "voice", "face+new-voice") or utt.voice_embedding is None:
            return []
        pid, keys = decision.person_id, []
        if self._clearly_theirs(decision, utt) and self.assigner.adds_voice_key(decision, utt):
            keys.append(("voice", utt.voice_embedding, utt.t_end_s - utt.t_start_s))
        face = utt.face
        if face is not None and not face.defect and self.assigner.face_is_new_key(pid, face.embedding):
            keys.append(("face", face.embedding, face.quality))
        return keys

    def _clearly_theirs(self, decision: Decision, utt: Utterance) -> bool:
        """Whether the utterance's voice may become a key of the person it was given to: nobody spoke over it,
        it is no mere "mm-hm", and it sounds like them (unless it is their first voice); a person made from a
        conversation's voice heard only in short turns takes their first key from a turn long enough to tell (their
        turns are theirs by that voice meanwhile)."""
        if utt.overlapped or utt.backchannel:
            return False
        assert self.assigner is not None and utt.voice_embedding is not None
        if (
            decision.by == "new"
            and utt.voice is not None
            and utt.t_end_s - utt.t_start_s < self.cfg.identity.min_voice_s
        ):
            return False  # made from scraps of a conversation's voice: a scrap's key would draw anyone to them
        if decision.by in ("new", "face+new-voice") or decision.person_id not in self.assigner.voice_keys:
            return True
        return self.assigner.sounds_like(decision.person_id, utt)

    def _decide(self, utt: Utterance) -> Decision:
        """Who said it: the person its conversation's voice was given to, unless the turn's own voice (long
        enough to tell) clearly says someone else known — clearing their bar by the ambiguity margin and missing
        that person's by it — or, for a whole stretch of one voice, clearly nobody known (the conversation took
        two alike voices for one). A voice not yet anyone's is given by the first turn long enough to tell (to
        someone the conversation already heard as another voice only by the ambiguity margin), else judged on
        all of it heard so far (calibrated; README, Identity). A voice heard too little to tell, or that said
        only "mm-hm", makes nobody: its words wait without a speaker until the voice is someone's."""
        assert self.assigner is not None
        if utt.voice is None:  # no conversation's voice (turns off, or too short to have one)
            return self.assigner.decide(utt, self.previous)
        voice = self.voices.setdefault(utt.voice, _Voice())
        long_enough = utt.t_end_s - utt.t_start_s >= self.cfg.identity.min_voice_s
        own = None
        if utt.voice_embedding is not None and long_enough and not utt.backchannel:
            own = self.assigner.decide(utt, None)
        if voice.person is not None:
            if own is not None and not self.assigner.sounds_like(voice.person, utt, AMBIGUOUS):
                if own.by == "voice" and own.person_id != voice.person and own.margin >= AMBIGUOUS:
                    return own
                if own.by == "new" and utt.whole and voice.person in self.assigner.voice_keys:
                    return own  # clearly nobody known, this person's voice among them
            return Decision(voice.person, "voice", -1.0)
        if own is not None and own.by in _MAPS:
            taken = {v.person for k, v in self.voices.items() if k != utt.voice and v.person is not None}
            if own.by != "voice" or own.person_id not in taken or own.margin >= AMBIGUOUS:
                return own
            if utt.t_end_s - utt.t_start_s >= NEW_PERSON_S:  # the conversation heard that person as another voice
                return Decision(None, "new", own.voice_score, own.margin)
        if utt.voice_embedding is not None and not utt.backchannel:
            seconds = utt.t_end_s - utt.t_start_s
            weighted = utt.voice_embedding * seconds
            voice.heard = weighted if voice.heard is None else voice.heard + weighted
            voice.seconds += seconds
        if voice.heard is None:
            heard = dataclasses.replace(utt, voice_embedding=None)
        else:
            mean = unit(voice.heard)
            heard = dataclasses.replace(utt, voice_embedding=mean, t_start_s=0.0, t_end_s=voice.seconds)
        decision = self.assigner.decide(heard, None)
        if decision.by == "new" and (utt.backchannel or voice.seconds < NEW_PERSON_S):
            # a new person from scraps of a voice (often two voices at once) needs as much of it as a new person
            # from a turn of someone the conversation already heard
            return Decision(None, "none", decision.voice_score)
        return decision

    def _listen_for(self) -> None:
        """The names the recognizer is told to listen for: the people heard in this recording, the names said in
        this conversation, then everyone else known by name (HOTWORDS at most). Whisper takes them as text said
        before: a punctuated sentence, so that it goes on punctuating (README, Conversations)."""
        named = {pid: n for pid, n in self.names.items() if pid > 0 and not AUTO_NAME.fullmatch(n)}
        ordered = [named[p] for p in self.people_seen if p in named] + list(self.said) + list(named.values())
        names = list(dict.fromkeys(ordered))[:HOTWORDS]
        self.hotwords = (", ".join(names[:-1]) + " and " if len(names) > 1 else "") + (f"{names[-1]}." if names else "")

    def _heard_names(self, text: str) -> None:
        """Given names said in the conversation ("my daughter Mia") are listened for in the rest of it."""
        new = [w for w in given_names_in(text) if w not in self.said]
        if new:
            self.said.update(dict.fromkeys(new))
            self._listen_for()

    def _start_session(self) -> None:
        """Transient identities, the voices of a conversation and the names said in it last one session."""
        assert self.assigner is not None
        self.voices, self.said, self.said_turns, self.introduced, self.made = {}, {}, {}, {}, set()
        for pid in [p for p in self.assigner.voice_keys if p < 0]:
            self.assigner.voice_keys.pop(pid, None)
            self.assigner.face_keys.pop(pid, None)
        self.previous = None

    def write(self, utt: Utterance) -> None:
        assert self.assigner is not None
        t0, t1 = self.origin + utt.t_start_s, self.origin + utt.t_end_s
        embedding = self.text_embed([utt.text])[0]
        new_session = self.session is None or t0 - self.session[1] > self.cfg.session.gap_s
        if new_session:
            self._name_by_address()
            self._split_closing_session()
            self._start_session()
        closed = self.session[0] if new_session and self.session is not None else None
        decision = self._decide(utt)
        keys = self._new_keys(decision, utt)
        cap = self.cfg.identity.max_keys
        with self.memory.batch():
            if new_session and self.session is not None:
                self.memory.writing.enqueue("session", self.session[0])  # closed: its memory can be written
            session = self.memory.turns.start_session(self.source_name, t0) if new_session else self.session[0]
            person = None
            if decision.by == "new" and not self.required:
                person = self.memory.people.add_person()
                pid = person.id
            elif decision.by == "new":
                self._transient += 1
                pid = -self._transient
            else:
                pid = decision.person_id
            keeps = self._keeps(pid)
            uid = self.memory.turns.add_utterance(
                NewUtterance(
                    session,
                    pid if keeps else None,
                    utt.text,
                    t0,
                    t1,
                    utt.asr_confidence,
                    self.asr_name,
                    utt.face is not None,
                    embedding,
                    utt.overlapped,
                )
            )
            if keeps and utt.voice is not None and decision.by in _MAPS:
                voice = self.voices[utt.voice]
                if voice.waiting:  # the voice's earlier words are theirs now
                    self.memory.turns.give(pid, voice.waiting)
            if keeps:
                for kind, key, quality in keys:
                    model = self.voice_model if kind == "voice" else self.face_model
                    self.memory.people.add_key(kind, pid, key, quality, cap, model, uid)
                self._keep_media(utt, uid, pid, session, t0, t1, keys)
        if closed is not None:
            self._publish(SessionEnd(utt.t_start_s, closed))
        if new_session:
            self._publish(SessionStart(utt.t_start_s, session))
        self._committed(utt, uid, session, t1, pid, person, keys, decision)
        if utt.voice is not None:
            stored = pid if keeps else None
            seconds = utt.t_end_s - utt.t_start_s
            self.said_turns[(utt.t_start_s, utt.t_end_s)] = _Said(
                uid, stored, seconds, utt.voice_embedding, utt.text, utt.t_start_s, utt.overlapped
            )
        self._name_from_speech(utt.text, utt.t_start_s, pid)
        self._heard_names(utt.text)
        if new_session:
            self.recent = []
        if not utt.backchannel:  # a listener's "mm-hm" is no turn in who takes part
            voiced = utt.voice_embedding if utt.t_end_s - utt.t_start_s >= 1.0 else None
            self.recent.append((uid, Turn(t0, t1, pid if decision.by not in ("previous", "none") else None, voiced)))

    def close(self) -> None:
        """The source ended: the open session is closed and queued for memory writing."""
        if self.session is not None:
            self._name_by_address()
            self._split_closing_session()
            self.memory.writing.enqueue("session", self.session[0])
            self._publish(SessionEnd(self.session[1] - self.origin, self.session[0]))

    def revise(self, voices: Sequence[tuple[float, float, int]], checks: Sequence[np.ndarray | None] = ()) -> int:
        """The conversation ended and its voices were clustered over all of it (app/identity/diarize.py,
        `conversation_voices`): `voices` gives each stored turn's voice by its (start, end) s. Each voice goes to
        the person who holds most of its seconds in turns that sound like them (one person per voice); a voice
        nobody holds (two people the conversation heard as one) goes to someone else its mean voice is known as,
        else to a new person when there is enough of it (`_owner_of`). Turns then follow their voice, with the
        keys learnt from them and their media, in one transaction. A person never loses their turns to another
        unless another voice is theirs (the clustering can join two voices, the online voices rarely do): nobody
        is merged, but for someone the conversation made and nobody named who holds only scraps of another's
        voice, or turns the second speaker model hears as another's voice (`_ghosts`).
        `checks`: each turn's embedding by the second speaker model, in `voices`' order (None: not checked). The
        number of turns given again."""
        assert self.assigner is not None
        if self.required or self.session is None:
            return 0  # transient identities hold no stored turns to give again
        said = [(self.said_turns[(a, b)], voice) for a, b, voice in voices if (a, b) in self.said_turns]
        checked = {
            self.said_turns[(a, b)].uid: check
            for (a, b, _), check in zip(voices, checks, strict=False)
            if check is not None and (a, b) in self.said_turns
        }
        if len({v for _, v in said}) < 2 and len({t.person for t, _ in said}) < 2:
            return 0
        people = sorted({t.person for t, _ in said if t.person is not None and t.person > 0})
        n_voices = max(v for _, v in said) + 1
        margins = {  # how far each turn is over the bar of the person it was given to (>= 0: it sounds like them)
            t.uid: self.assigner.voice_margin(t.person, t.heard())
            for t, _ in said
            if t.person in people and t.voice is not None
        }
        held = np.zeros((n_voices, max(1, len(people))))
        for turn, voice in said:
            if turn.person in people:  # a person is who their keys say: turns that do not sound like them weigh little
                sure = margins.get(turn.uid, -math.inf) >= 0
                held[voice, people.index(turn.person)] += turn.seconds * (1.0 if sure else UNSURE)
        owner: dict[int, int] = {}  # voice -> person (A_NEW_PERSON: one to be made)
        for voice, column in zip(*linear_sum_assignment(-held), strict=True):
            if held[voice, column] > 0:
                owner[int(voice)] = people[column]
        held_voices = set(owner)
        for voice in range(n_voices):
            if voice not in owner and (mine := [t for t, v in said if v == voice]):
                known = {p for p in owner.values() if p != A_NEW_PERSON}
                if (found := self._owner_of(mine, known)) is not None:
                    owner[voice] = found
        owners = set(owner.values())
        moving = {
            turn.uid: voice
            for turn, voice in said
            if voice in owner
            and owner[voice] != turn.person
            and self._may_move(turn, owner[voice], owners, voice not in held_voices, margins.get(turn.uid, -math.inf))
        }
        owned_by = {v: p for v, p in owner.items() if p != A_NEW_PERSON}  # voice -> a person who is there already
        ghosts = {} if moving else self._ghosts(said, {}, owned_by, checked)  # else found once the turns moved
        if not moving and not ghosts:
            return 0
        created: dict[int, Person] = {}  # voice -> the new person
        with self.memory.batch():
            for voice in sorted({v for v in moving.values() if owner[v] == A_NEW_PERSON}):
                created[voice] = self.memory.people.add_person()
                key = self._first_key([t for t, v in said if t.uid in moving and v == voice])
                if key is not None:  # (the turns that found the person may have stayed with someone else)
                    cap, model = self.cfg.identity.max_keys, self.voice_model
                    self.memory.people.add_key("voice", created[voice].id, key.voice, key.seconds, cap, model, key.uid)
            moves = {uid: created[voice].id if voice in created else owner[voice] for uid, voice in moving.items()}
            if moves:
                self.memory.people.reattribute(moves)
                owned_by |= {v: person.id for v, person in created.items()}
                ghosts = self._ghosts(said, moves, owned_by, checked)
            for ghost, into in ghosts.items():
                self.memory.people.merge_people(self.names[into], self.names[ghost])
        self._revised(said, moves, created, ghosts)
        return len(moves)

    def _ghosts(
        self,
        said: list[tuple[_Said, int]],
        moves: dict[int, int],
        owners: dict[int, int],
        checked: dict[int, np.ndarray],
    ) -> dict[int, int]:
        """People this conversation made, still unnamed once it was clustered, who hold either only scraps (turns
        under `identity.min_voice_s`, which stay where they were given; under NEW_PERSON_S in all) or turns the
        second speaker model hears as the voice of most of their seconds (`_heard_as`; their turns stay with them
        because the clustering may join two people's voices, and nobody is merged on its word alone): made online
        from a scrap of a voice whose other turns were waiting for a speaker, from turns of a known voice the first
        model did not know (the soak's hour made 12 and 13 people of 10 readers so), or left so when their longer
        turns went to someone else. The clustering makes nobody of scraps (`_owner_of`), so each goes whole to the
        person that voice goes to. Person id -> the person they go to."""
        left: dict[int, dict[int, float]] = {}  # person -> their voice -> seconds left with them
        longest: dict[int, float] = {}  # person -> their longest turn left
        for turn, voice in said:
            if turn.person in self.made and turn.uid not in moves:
                seconds = left.setdefault(turn.person, {})
                seconds[voice] = seconds.get(voice, 0.0) + turn.seconds
                longest[turn.person] = max(longest.get(turn.person, 0.0), turn.seconds)
        unnamed = {
            pid: max(seconds, key=lambda v: seconds[v])  # their voice
            for pid, seconds in left.items()
            if AUTO_NAME.fullmatch(self.names.get(pid, ""))
        }
        into = {pid: owners.get(voice) for pid, voice in unnamed.items()}
        gone = {
            pid
            for pid, voice in unnamed.items()
            if into[pid] not in (None, pid)  # their voice is someone else's
            and (
                (sum(left[pid].values()) < NEW_PERSON_S and longest[pid] < self.cfg.identity.min_voice_s)
                or self._heard_as(pid, voice, said, moves, checked)
            )
        }
        return {pid: into[pid] for pid in gone if into[pid] not in gone}

    def _heard_as(
        self, pid: int, voice: int, said: list[tuple[_Said, int]], moves: dict[int, int], checked: dict[int, np.ndarray]
    ) -> bool:
        """Whether the second speaker model heard most of what is left with `pid` (half their seconds or more) and
        hears each turn of it as `voice`: at least `turns.check_same` alike to the mean of the voice's checked turns
        not theirs (MIN_HALF or more; set on the tuning readers: a 1.5-4 s turn against the mean of ten of the same
        reader's turns from other recordings fell under 0.75 in 2-4 % of draws, another reader's never reached it,
        clean or at 10 dB SNR)."""
        theirs = [t for t, _ in said if t.person == pid and t.uid not in moves]
        mine = [checked[t.uid] for t in theirs if t.uid in checked]
        others = [checked[t.uid] for t, v in said if v == voice and t.person != pid and t.uid in checked]
        heard_s = sum(t.seconds for t in theirs if t.uid in checked)
        if not mine or len(others) < MIN_HALF or heard_s < sum(t.seconds for t in theirs) / 2:
            return False
        mean = unit(np.sum(others, axis=0))
        return all(float(c @ mean) >= self.cfg.turns.check_same for c in mine)

    def _may_move(self, turn: _Said, to: int, owners: set[int], split: bool, margin: float) -> bool:
        """Whether a turn given to someone may go to the person `to` its voice goes to: not when it is too short
        to tell (`identity.min_voice_s`), nor when the person it was given to holds no other voice of the
        conversation (the clustering joined their voice with another: nobody is merged). Between two voices the
        online voices had already told apart, not either when it sounds like the person it was given to (its
        `margin` over their bar is not negative) at least as much as like `to` (a short conversation's clustering
        gave such turns to the other voice where the online voices had them right; two alike voices each clear the
        other's bar), when `to` has voice keys to weigh it against; a voice split off someone (`split`) takes their
        turns whatever their keys say, since those keys were learnt while the two were heard as one. A turn given
        to nobody yet may always go."""
        if turn.person is None:
            return True
        if turn.voice is None or turn.seconds < self.cfg.identity.min_voice_s or turn.person not in owners:
            return False
        if split or margin < 0:
            return True
        assert self.assigner is not None
        if to not in self.assigner.voice_keys:  # nothing of theirs to weigh the turn against: the clustering's word
            return True
        return self.assigner.voice_margin(to, turn.heard()) > margin

    def _owner_of(self, turns: list[_Said], taken: set[int]) -> int | None:
        """Whose a voice is that no person of the conversation holds: someone else known by its mean voice, else
        a new person (A_NEW_PERSON) when there is NEW_PERSON_S or more of it, else None (its turns stay). The
        people holding the conversation's other voices are not asked: the clustering heard this voice apart from
        theirs, and their keys may hold some of it (learnt while the two were heard as one)."""
        assert self.assigner is not None
        voiced = [t for t in turns if t.voice is not None]
        seconds = sum(t.seconds for t in voiced)
        if seconds < NEW_PERSON_S or self._first_key(turns) is None:
            return None  # too little of it, or only scraps (often two voices at once, or one word): as online
        mean = unit(sum(t.voice * t.seconds for t in voiced))
        pid, _, margin = nearest_voice(mean, self.assigner.voice_keys.without(taken), self.cfg.identity, seconds)
        return pid if pid is not None and margin >= 0 else A_NEW_PERSON

    def _first_key(self, turns: list[_Said]) -> _Said | None:
        """The turn a person made when a conversation was clustered is keyed by: their longest nobody spoke over."""
        clear = [
            t for t in turns if t.voice is not None and not t.overlapped and t.seconds >= self.cfg.identity.min_voice_s
        ]
        return max(clear, key=lambda t: t.seconds, default=None)

    def _revised(
        self, said: list[tuple[_Said, int]], moves: dict[int, int], created: dict[int, Person], ghosts: dict[int, int]
    ) -> None:
        """The in-memory state follows the turns given again (committed): the keys from the store, the people
        made and those left with only scraps gone into another, who took part, and introductions now said by
        someone still unnamed."""
        assert self.assigner is not None
        for ghost, into in ghosts.items():
            moves |= {t.uid: into for t, _ in said if t.person == ghost and t.uid not in moves}
            moves |= {uid: into for uid, turn in self.recent if turn.speaker == ghost}  # their "mm-hm"s too
            self._publish(
                PersonNamed(min(t.t_start_s for t, _ in said if t.person == ghost), self.names[ghost], self.names[into])
            )
            _LOGGER.info(
                "%s, made of scraps once their turns went to others, is %s", self.names[ghost], self.names[into]
            )
            del self.names[ghost]
            self.people_seen.discard(ghost)
            self.made.discard(ghost)
            self.new_people -= 1
            for voice in self.voices.values():
                if voice.person == ghost:
                    voice.person = into
        people = self.memory.people
        self.assigner.voice_keys = KeyBank(
            people.voice_keys(self.voice_model), people.voice_key_seconds(self.voice_model)
        )
        self.assigner.face_keys = KeyBank(people.face_keys(self.face_model))
        for voice, person in created.items():
            self.names[person.id] = person.name
            self.new_people += 1
            self.made.add(person.id)
            first = min(t.t_start_s for t, v in said if v == voice and t.uid in moves)
            self._publish(PersonNew(first, person.name, "speech"))
        _LOGGER.info("gave %d turns of the conversation to other people (%d new)", len(moves), len(created))
        self.recent = [
            (uid, dataclasses.replace(turn, speaker=moves[uid]) if uid in moves else turn) for uid, turn in self.recent
        ]
        for turn, _ in said:
            if turn.uid in moves:
                was, turn.person = turn.person, moves[turn.uid]
                self.people_seen.add(turn.person)
                self._introduction_moved(turn.text, turn.t_start_s, was, turn.person)
        # then every turn, moved or not: someone whose name went with a moved turn is unnamed again and may have
        # introduced themselves in a turn that stayed ("And I'm Sheila...", said in a voice first named Diane)
        for turn, _ in said:
            self._name_from_speech(turn.text, turn.t_start_s, turn.person)
        self._listen_for()

    def add_face_person(self, face: Face, t_s: float) -> int | None:
        """A face that stayed unknown in view becomes a new person keyed by it (not in consent mode, where
        nobody's biometrics are kept without consent); None when someone has meanwhile got this face."""
        assert self.assigner is not None
        a = self.assigner
        if self.required or face.defect or a.known_face(face.embedding) is not None:
            return None
        with self.memory.batch():
            person = self.memory.people.add_person()
            self.memory.people.add_key(
                "face", person.id, face.embedding, face.quality, self.cfg.identity.max_keys, self.face_model
            )
        a.remember("face", person.id, face.embedding, self.cfg.identity.max_keys, face.quality)
        self._claim_frames(person.id, face)
        self.names[person.id] = person.name
        self.new_people += 1
        self._publish(PersonNew(t_s, person.name, "face"))
        return person.id

    def _claim_frames(self, person_id: int, face: Face) -> None:
        """Faces in frames kept before this person was known by their face are theirs when they match it."""
        rows = [(r, v) for r, v in self.memory.media.unknown_frame_faces() if v.shape == face.embedding.shape]
        if not rows:
            return
        metric, threshold = self._face
        near = distances(np.stack([v for _, v in rows]), face.embedding, metric) <= threshold
        self.memory.media.claim_frame_faces(person_id, [r for (r, _), hit in zip(rows, near, strict=True) if hit])

    def _name_from_speech(self, text: str, t_s: float, pid: int | None) -> None:
        """ "My name is Emily" said by someone still called unknown_N names them."""
        if pid is None or pid < 0 or not AUTO_NAME.fullmatch(self.names.get(pid, "")):
            return
        name = self_introduction(text)
        if name is not None and self._name(pid, name, t_s):
            self.introduced[pid] = name

    def _introduction_moved(self, text: str, t_s: float, was: int | None, now: int) -> None:
        """A turn given again to `now` introduces who `was` was named as in this conversation ("This is Diane in
        New Jersey", heard at first in the other woman's voice): the name goes with the turn, and `was` is called
        unknown_N again."""
        name = self_introduction(text)
        if was is None or name is None or self.introduced.get(was) != name or name != self.names.get(was):
            return
        if not AUTO_NAME.fullmatch(self.names.get(now, "")):
            return
        unnamed = self.memory.people.unname(name)
        self._publish(PersonNamed(t_s, name, unnamed))
        self.names[was] = unnamed
        del self.introduced[was]
        _LOGGER.info("an introduction was given again to another voice: its name went with it")

    def _name_by_address(self) -> None:
        """The conversation is closing: someone still called unknown_N takes the name the others called them by
        ("Thanks, Nadia, it smells amazing"; app/identity/naming.py `names_by_address`), before its memory is
        written."""
        if not self.recent or self.session is None:
            return
        stored = self.memory.turns.utterances([uid for uid, _ in self.recent])
        turns = [(stored[uid].person, stored[uid].text) for uid, _ in self.recent if uid in stored]
        named = {n: n for n in self.names.values() if not AUTO_NAME.fullmatch(n)}
        ids = {n: pid for pid, n in self.names.items()}
        for old, name in names_by_address(turns, named).items():
            if old is not None and AUTO_NAME.fullmatch(old) and old in ids:
                self._name(ids[old], name, self.session[1] - self.origin)

    def _name(self, pid: int, name: str, t_s: float) -> bool:
        """Someone still called unknown_N is `name` now, unless that is someone else's name already; whether they
        are."""
        if self.memory.people.person_id(name) is not None:
            _LOGGER.info("heard a name already given to someone else; not renaming (see `people merge`)")
            return False
        self.memory.people.rename_person(self.names[pid], name)
        _LOGGER.debug("%s is %s", self.names[pid], name)
        self._publish(PersonNamed(t_s, self.names[pid], name))
        self.names[pid] = name
        self._listen_for()
        return True

    def _split_closing_session(self) -> None:
        """The session is closing: wherever its participants changed completely across a pause (the earlier
        people never heard again in it), the turns after move to a session of their own."""
        s = self.cfg.session
        k, turns = 1, [t for _, t in self.recent]
        while k < len(turns):
            if boundary_before(turns, k, s.gap_s, s.change_gap_s, s.window_turns, s.same_voice):
                self._split_at(k)  # the open session is now the turns from k on
                k, turns = 1, turns[k:]
            else:
                k += 1

    def _split_at(self, k: int) -> None:
        """The open session's turns from recent[k] on move to a session of their own."""
        turns = [t for _, t in self.recent]
        moved = [u for u, _ in self.recent[k:]]
        assert self.session is not None
        with self.memory.batch():
            new = self.memory.turns.split_session(self.session[0], moved, self.source_name)
            self.memory.writing.enqueue("session", self.session[0])
        self.session = (new, self.session[1])
        self.recent = self.recent[k:]
        self._publish(SessionSplit(turns[k].t_start - self.origin, new))

    def _committed(
        self, utt: Utterance, uid: int, session: int, t1: float, pid: int | None, person, keys, decision: Decision
    ) -> None:
        """The in-memory state follows the store only once the transaction committed."""
        assert self.assigner is not None
        self.session = (session, t1)
        if pid is not None and pid < 0 and pid not in self.names:
            self.names[pid] = f"guest_{-pid}"
        if person is not None:
            self.names[person.id] = person.name
        if decision.by == "new":
            self.new_people += 1
            self.made.add(pid)
            self._publish(PersonNew(utt.t_start_s, self.names[pid], "speech"))
        for kind, key, quality in keys:
            self.assigner.remember(kind, pid, key, self.cfg.identity.max_keys, quality)
        if utt.voice is not None:
            voice = self.voices[utt.voice]
            if pid is not None and decision.by in _MAPS:  # the latest clear word on whose voice it is
                voice.person, voice.waiting = pid, []
            elif pid is None:
                voice.waiting.append(uid)
        if pid is not None:
            if pid not in self.people_seen:
                self.people_seen.add(pid)
                self._listen_for()
            self.previous = pid
        self.utterances += 1
        self._publish(Stored(utt.t_start_s, uid, self.names.get(pid), decision.by, self._keeps(pid)))

    def _keep_media(
        self, utt: Utterance, uid: int, pid: int | None, session: int, t0: float, t1: float, keys: list
    ) -> None:
        """The utterance's speech audio and face frame, encrypted, for as long as retention allows; the frame
        with whose faces it shows (the speaker's, when their face becomes a key now)."""
        retention = self.cfg.retention
        if utt.audio is not None and (keep := retention.keep_s("audio")) > 0:
            self.memory.media.add_media("audio", encode_wav(utt.audio), t0, t1, keep, session, pid, uid)
        if utt.frame_jpeg is not None and (keep := retention.keep_s("frame")) > 0:
            media_id = self.memory.media.add_media("frame", utt.frame_jpeg, t0, t1, keep, session, pid, uid)
            assert self.assigner is not None
            new_face = next((key for kind, key, _ in keys if kind == "face"), None)
            faces = []
            for face in utt.frame_faces or ((utt.face,) if utt.face is not None else ()):
                owner = self.assigner.known_face(face.embedding)
                if owner is None and new_face is not None and np.array_equal(face.embedding, new_face):
                    owner = pid
                faces.append((owner if owner is None or owner > 0 else None, face.embedding))
            self.memory.media.add_frame_faces(media_id, faces)
