"""Whose a line's words are (app/ask/whose.py): the speaker's, the listener's, someone else's the line names; and the
verb of telling a question asks with. Pure text rules: no model, no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from app.ask.comparing import word_set
from app.ask.grounding import Line
from app.ask.whose import ASKS_WHAT_TOLD, TELLING, said_of_listener, said_of_others

SAID = datetime(2023, 7, 3, 10, tzinfo=timezone.utc).timestamp()


def _line(person: str, text: str, heard: str = "") -> Line:
    line = Line(1, person, SAID, text, text, 1.0)
    return replace(line, heard_by=frozenset({heard.lower()})) if heard else line


def test_what_a_line_says_of_its_listener_is_theirs():
    praise = _line("Melanie", "It's inspiring to see your dedication to helping others.", "Caroline")
    assert said_of_listener(praise, word_set("dedication"), ["inspir"], ["Melanie"])
    assert not said_of_listener(praise, word_set("dedication"), ["inspir"], ["Caroline"])  # not said by Caroline
    own = _line("Melanie", "I'm so proud of my dedication to running, and your support helped.", "Caroline")
    assert not said_of_listener(own, word_set("dedication"), [], ["Melanie"])  # said of herself too
    anyone = _line("Evan", "Find something that motivates you and keep at it.", "Sam")
    assert not said_of_listener(anyone, word_set("motivates"), [], ["Evan"])  # "you" as anyone
    studio = _line("Jon", "Can't wait to see your dance studio done!", "Gina")
    assert said_of_listener(studio, set(), ["studio"], ["Jon"])  # the topic only as the listener's


def test_a_who_answer_read_as_the_speaker_is_whom_the_line_names():
    wife = _line("John", "My wife Sarah is a doctor and she loves tennis too.")
    assert said_of_others(wife, word_set("John"), ["doctor"]) == {"Sarah"}
    mine = _line("Emily", "I work as a nurse at the city hospital.")
    assert said_of_others(mine, word_set("Emily"), ["nurse"]) == set()


def test_the_verb_a_question_asks_what_was_told_with():
    assert ASKS_WHAT_TOLD.search("What did I ask everyone to remember?")[1] == "ask"
    assert ASKS_WHAT_TOLD.search("What book did Caroline recommend to Melanie?")[1] == "recommend"
    assert ASKS_WHAT_TOLD.search("What kind of painting does Tim have as a reminder?") is None
    assert TELLING.search("What did Gina suggest?") and not TELLING.search("What did Gina paint?")
