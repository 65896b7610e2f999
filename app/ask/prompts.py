"""What the model is told: the instructions of each step of a grounded answer (app/ask/answer.py) and the
messages that carry a question's lines to it — read (`READ`, or `GUESS` for a likely guess), choose by number
(`SELECT`, `answer.select: model`) and check a name again (`VERIFY`). The instructions come first in every prompt,
the part the model caches, so a question pays only for its own few lines."""

from __future__ import annotations

import re

from app.ask.comparing import YES_NO
from app.ask.grounding import Line, options

UNKNOWN = "I don't know."
# No example facts here: a small model copies them into answers (tests/test_answer.py checks these texts).
SELECT = (
    "You choose which numbered lines answer a question. Reply in JSON with the numbers of the lines that answer "
    "it, best first, at most three; an empty list when none of them answers it."
)
SELECT_ONE = (
    "You choose the numbered line that answers a question. Reply in JSON with the number of the line that "
    "answers it, or zero when none of them does."
)
READ = (
    "You answer a question from the lines given, in as few words as possible: a name, a place, a time, a thing "
    "or a short phrase; to a yes-or-no question, yes or no and who or what makes it so. Use only what the lines "
    f"say. When the lines do not answer the question, answer exactly: {UNKNOWN}"
)
GUESS = (
    "You make a likely guess about someone from the lines given, in at most ten words{kind}. Do not repeat the "
    "question. Guess only from what the lines say about them. When the lines say nothing that bears on the "
    f"question, answer exactly: {UNKNOWN}"
)
CHANGE = (
    "You tell what changed from the lines given, which are in the order they were said. Reply in JSON: what it was "
    "before and what it is now, in a few words each, only as the lines say them; both empty when the lines do not "
    "say that it changed."
)
CHANGE_SCHEMA = {
    "type": "object",
    "properties": {k: {"type": "string", "maxLength": 100} for k in ("before", "now")},
    "required": ["before", "now"],
    "additionalProperties": False,
}
GUESS_KINDS = {
    "yes or no": ": yes or no",
    "choice": ": the one of the choices offered that is likelier",
    "what": ": the likeliest thing, without yes or no",
}

VERIFY = (
    "You check an answer against a line of a conversation. Reply in JSON: true when the line says what the "
    "answer says and it answers the question asked, false when it does not."
)
VERIFY_SCHEMA = {
    "type": "object",
    "properties": {"supported": {"type": "boolean"}},
    "required": ["supported"],
    "additionalProperties": False,
}


def verify_messages(question: str, answer: str, line: Line) -> tuple[dict, ...]:
    user = f"Line: {line.render()}\nQuestion: {question}\nAnswer: {answer}"
    return {"role": "system", "content": VERIFY}, {"role": "user", "content": user}


def select_schema(n: int, most: int) -> dict:
    """The selection's reply: one of the line numbers 1..n or 0 (`most` 1), else a list of up to `most`."""
    if most == 1:
        line = {"type": "integer", "enum": list(range(n + 1))}
        return {"type": "object", "properties": {"line": line}, "required": ["line"], "additionalProperties": False}
    numbers = {"type": "integer", "enum": list(range(1, n + 1))}
    lines = {"type": "array", "items": numbers, "maxItems": most}
    return {"type": "object", "properties": {"lines": lines}, "required": ["lines"], "additionalProperties": False}


def select_messages(question: str, lines: list[Line], most: int = 1) -> tuple[dict, ...]:
    numbered = "\n".join(f"{i}. {line.render()}" for i, line in enumerate(lines, 1))
    user = f"Question: {question}\n\nLines:\n{numbered}"
    return {"role": "system", "content": SELECT_ONE if most == 1 else SELECT}, {"role": "user", "content": user}


def guess_kind(question: str) -> str:
    """What a guess asked for is: one of the choices the question offers ("a ski trip or a beach holiday?",
    "which would he prefer, tennis or swimming?"), yes or no, or a thing."""
    if re.search(r"\bor\b", question, re.I):
        return "choice"
    return "yes or no" if YES_NO.match(question) else "what"


def read_messages(question: str, lines: list[Line], guess: bool = False, change: bool = False) -> tuple[dict, ...]:
    shown = "\n".join(line.render() for line in lines)
    system = GUESS.format(kind=GUESS_KINDS[guess_kind(question)]) if guess else CHANGE if change else READ
    if not guess and YES_NO.match(question) and (offered := options(question)):
        question = f"{question} Answer with one of: {offered[0]}; {offered[1]}."  # not "No" to "history or math?"
    return {"role": "system", "content": system}, {"role": "user", "content": f"{shown}\n\nQuestion: {question}"}
