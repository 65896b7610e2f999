"""What a question gets back (app/ask/answer.py): the answer, whether the memory holds it, the lines it cites, and
what it cost — the one record every door returns (`ask --answer`, `/v1/ask`, the web page, the companion, the
chat endpoint)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Answer:
    question: str
    answer: str
    known: bool
    citations: list[dict] = field(default_factory=list)  # {id, person, t_start, text}
    evidence: list[int] = field(default_factory=list)  # the candidate lines' utterance ids
    chosen: list[int] = field(default_factory=list)  # the lines the answer was read from
    latency_ms: float = 0.0
    first_token_ms: float | None = None  # the reading's first token
    prompt_tokens: int = 0  # evaluated (not reused from the cache), selection and reading together
    cached_tokens: int = 0
    completion_tokens: int = 0
    finish: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)  # gather, select, read
    read: str = ""  # what the model read from the chosen lines, before the check
    why_unknown: str = ""  # asker | nothing found | none chosen | the model did not know | not in the lines
    guess: bool = False  # a likely guess ("Probably ...") asked for, from the lines that bear on it
    kind: str = ""  # the kind of question it was parsed as (app/ask/question.py)

    def as_dict(self, when: Callable[[float], str]) -> dict:
        return {
            "question": self.question,
            "answer": self.answer,
            "known": self.known,
            "citations": [{**c, "t_start": when(c["t_start"])} for c in self.citations],
            "evidence": self.evidence,
            "chosen": self.chosen,
            "read": self.read,
            "why_unknown": self.why_unknown,
            "guess": self.guess,
            "kind": self.kind,
            "latency_ms": round(self.latency_ms, 1),
            "first_token_ms": None if self.first_token_ms is None else round(self.first_token_ms, 1),
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
            "tokens": {
                "prompt": self.prompt_tokens,
                "cached": self.cached_tokens,
                "completion": self.completion_tokens,
            },
            "finish": self.finish,
        }
