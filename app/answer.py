"""Grounded answers: the person's profile and the retrieved evidence go to the local LLM, which answers briefly
and cites the evidence lines it used; citations are checked against what it was given.

The model replies in JSON constrained by a schema whose citation items are exactly the evidence ids, and
the ids are checked again here: an answer can never cite an utterance it was not shown. With no evidence
at all the model is not asked: the memory holds nothing to answer from. The instructions and the profile
form the prompt's cacheable prefix, so the profile of the person there is evaluated once per identity change.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from app.config import Config
from app.consolidation import forgetting
from app.context import DialogContext, retrieve
from app.llm import BACKGROUND, DIALOG, RESTART, Job, LLMWorker, Request
from app.recall import keywords
from app.store.memory import Memory
from app.text.embedder import TextEmbedder

UNKNOWN = "I don't know."
ANSWER_CHARS = 100  # the schema closes the answer's string here: brief, and never cut off mid-JSON
_UNKNOWN_PHRASES = ("don't know", "do not know", "not mentioned", "no information")
# No example facts here: a small model copies them into answers (tests/test_answer.py checks this text).
# The answer comes first and "known" is read from it: asked to decide "known" first, the 0.5B model said it did
# not know to every LoCoMo question of a 20-question sample (F1 0.00); answer-first gave 0.31.
SYSTEM = (
    "You answer the user's questions about conversations they had, using the evidence lines given with each "
    "question. Each line gives when it was said, who said it and what was said, and ends with its id in brackets. "
    "Reply in JSON: answer in a few words with the names, dates and numbers the evidence gives, and cite the ids "
    "of the lines you used. A line that says yesterday, last week or next month counts from the date of that "
    "line; write dates as day, month name and year. "
    f'Only when no line answers the question, answer "{UNKNOWN}" and cite nothing.'
)
PROFILE_HEADER = "\n\nWhat you know about the person you are talking with:\n"


def spoken_time(t: float | None) -> str:
    """A date as the model reads and repeats it: '8 May 2023' (UTC, like the rest of the memory). With the time
    of day too, the 0.5B model wrote it into its answers ('15 July 2023 14:07'), which no answer wants."""
    if t is None:
        return "?"
    d = datetime.fromtimestamp(t, timezone.utc)
    return f"{d.day} {d:%B %Y}"


def says_unknown(answer: str) -> bool:
    text = answer.strip().lower()
    return not text or any(p in text for p in _UNKNOWN_PHRASES)


def supported(answer: str, question: str, evidence: str) -> bool:
    """Whether the answer says something the question did not, found in the evidence: a word of its own whose
    first five letters occur in the evidence text. An answer that only repeats the question ("Melanie" to
    "who is Melanie's husband?") or brings words from nowhere is a guess."""
    asked = set(keywords(question))
    said = evidence.lower()
    new = [w for w in keywords(answer) if w not in asked]
    return any(w[:5] in said for w in new)


def cited_lines(memory: Memory, ids: list[int]) -> list[dict]:
    """The utterances `ids` as citations ({id, person, t_start, text}), in that order; gone ones left out."""
    rows = memory.utterances(ids)
    return [
        {"id": i, "person": rows[i].person, "t_start": rows[i].t_start, "text": rows[i].text} for i in ids if i in rows
    ]


def schema(evidence_ids: list[int]) -> dict:
    """The reply's shape; a citation can only be one of the ids the model was shown."""
    return {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": ANSWER_CHARS},
            "citations": {"type": "array", "items": {"type": "integer", "enum": evidence_ids}, "maxItems": 5},
        },
        "required": ["answer", "citations"],
        "additionalProperties": False,
    }


@dataclass
class Answer:
    question: str
    answer: str
    known: bool
    citations: list[dict] = field(default_factory=list)  # {id, person, t_start, text}
    evidence: list[int] = field(default_factory=list)  # utterance ids the model was shown
    latency_ms: float = 0.0
    first_token_ms: float | None = None
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    finish: str = ""

    def as_dict(self, when: Callable[[float], str]) -> dict:
        return {
            "question": self.question,
            "answer": self.answer,
            "known": self.known,
            "citations": [{**c, "t_start": when(c["t_start"])} for c in self.citations],
            "evidence": self.evidence,
            "latency_ms": round(self.latency_ms, 1),
            "first_token_ms": None if self.first_token_ms is None else round(self.first_token_ms, 1),
            "tokens": {
                "prompt": self.prompt_tokens,
                "cached": self.cached_tokens,
                "completion": self.completion_tokens,
            },
            "finish": self.finish,
        }


class AnswerText:
    """Pulls the value of the "answer" field out of a JSON reply as it streams, for the terminal or speech."""

    def __init__(self) -> None:
        self.buffer, self.pos, self.done = "", -1, False

    def feed(self, piece: str) -> str:
        self.buffer += piece
        if self.pos < 0:
            key = self.buffer.find('"answer"')
            quote = self.buffer.find('"', self.buffer.find(":", key + 8) + 1) if key >= 0 else -1
            if key < 0 or quote < 0 or ":" not in self.buffer[key:]:
                return ""
            self.pos = quote + 1
        out = []
        while not self.done and self.pos < len(self.buffer):
            c = self.buffer[self.pos]
            if c == '"':
                self.done = True
            elif c == "\\":
                size = 6 if self.buffer[self.pos + 1 : self.pos + 2] == "u" else 2
                if self.pos + size > len(self.buffer):
                    break  # the escape is not complete yet
                out.append(json.loads(f'"{self.buffer[self.pos : self.pos + size]}"'))
                self.pos += size
                continue
            else:
                out.append(c)
            self.pos += 1
        return "".join(out)


def prompt(evidence: str, question: str, now: datetime, profile: str = "") -> tuple[dict, ...]:
    """System (instructions, then the profile: the cacheable prefix) and user (time, evidence, question)."""
    system = SYSTEM + (PROFILE_HEADER + profile if profile else "")
    user = f"Now: {spoken_time(now.timestamp())}.\nEvidence:\n{evidence}\n\nQuestion: {question}"
    return {"role": "system", "content": system}, {"role": "user", "content": user}


class Answerer:
    """Answers questions from memory with the LLM; keeps the profile of the person there between questions."""

    def __init__(self, llm: LLMWorker, memory: Memory, embedder: TextEmbedder, cfg: Config) -> None:
        self.llm, self.memory, self.embedder, self.cfg = llm, memory, embedder, cfg
        self.dialog = DialogContext(memory, embedder, cfg.recall)

    def messages(self, question: str, now: datetime) -> tuple[tuple[dict, ...], list[int]]:
        """The prompt (system prefix with the profile, then the evidence and the question) and the evidence ids."""
        text, cited, _, _ = retrieve(
            self.memory,
            self.embedder,
            self.cfg.recall,
            question,
            now,
            self.dialog.person,
            self.cfg.llm.evidence_tokens,
            stamp=spoken_time,
            media=False,
            recalled=lambda ids: forgetting.recalled(self.memory, self.cfg.memory, ids),
        )
        profile, known, _ = self.dialog.profile  # its latest words carry their ids too: citable
        ids = list(dict.fromkeys(c.id for c in [*known, *cited] if c.kind == "utterance"))
        return prompt(text, question, now, profile), ids

    def warm(self, person: str | None, now: datetime) -> Job:
        """Have the instructions and `person`'s profile evaluated in the background (the cached prefix), so that
        their first question pays only for its evidence (the voice companion does this for the wearer)."""
        self.dialog.person_changed(person)
        system = prompt("", "", now, self.dialog.profile[0])[0]
        request = Request((system, {"role": "user", "content": "."}), max_tokens=1, cache_prefix=1, temperature=0.0)
        return self.llm.submit(request, BACKGROUND)

    def __call__(
        self,
        question: str,
        now: datetime,
        person: str | None = None,
        on_text: Callable[[str], None] | None = None,
        timeout_s: float | None = None,
        on_job: Callable[[Job], None] | None = None,
        on_answered: Callable[[], None] | None = None,
    ) -> Answer:
        """Answer `question` asked by (or about) `person` at `now`; `on_text` receives the answer as it streams,
        `on_job` the model's job as soon as it is submitted (to cancel it: the voice loop on barge-in),
        `on_answered` is called once the answer's text is complete (its citations are still to come)."""
        started = time.perf_counter()
        self.dialog.person_changed(person)
        messages, ids = self.messages(question, now)
        return self.answer_from(messages, ids, question, on_text, timeout_s, started, on_job, on_answered)

    def answer_from(
        self,
        messages: tuple[dict, ...],
        ids: list[int],
        question: str,
        on_text: Callable[[str], None] | None = None,
        timeout_s: float | None = None,
        started: float | None = None,
        on_job: Callable[[Job], None] | None = None,
        on_answered: Callable[[], None] | None = None,
    ) -> Answer:
        """Ask the model with this prompt, whose evidence lines carry `ids`; check what it cites."""
        started = time.perf_counter() if started is None else started
        if not ids:
            if on_text:
                on_text(UNKNOWN)
            return Answer(question, UNKNOWN, False, latency_ms=(time.perf_counter() - started) * 1e3, finish="stop")
        request = Request(
            messages, max_tokens=self.cfg.llm.answer_tokens, schema=schema(ids), cache_prefix=1, temperature=0.0
        )
        job = self.llm.submit(request, DIALOG)
        if on_job:
            on_job(job)
        stream, first = AnswerText(), None
        for piece in job.tokens(timeout=timeout_s):
            if piece is RESTART:
                stream = AnswerText()
                continue
            shown = stream.feed(piece)  # type: ignore[arg-type]
            if shown:
                first = first or time.perf_counter()
                if on_text:
                    on_text(shown)
            if stream.done and on_answered:
                on_answered()
                on_answered = None
        reply = job.result()
        shown = "\n".join(m["content"] for m in messages)  # the profile is evidence too
        return self._grounded(question, reply, ids, started, first, shown)

    def _grounded(
        self, question: str, reply, ids: list[int], started: float, first: float | None, evidence: str
    ) -> Answer:
        data = reply.data or {}
        shown = set(ids)
        text = str(data.get("answer", "")).strip()
        known = not says_unknown(text) and supported(text, question, evidence)
        cited = list(dict.fromkeys(int(i) for i in data.get("citations", []) if int(i) in shown)) if known else []
        u = reply.usage
        return Answer(
            question,
            text if known else UNKNOWN,
            known,
            cited_lines(self.memory, cited),
            ids,
            (time.perf_counter() - started) * 1e3,
            None if first is None else (first - started) * 1e3,
            u.prompt_tokens,
            u.cached_tokens,
            u.completion_tokens,
            u.finish,
        )
