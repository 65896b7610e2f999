"""Whose a line's words are (app/ask/whose.py): the speaker's, the listener's, someone else's the line names; and the
verb of telling a question asks with. Pure text rules: no model, no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from app.ask.comparing import canonical, held, says, word_set
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
    # what is asked about only in a question to the listener: the answer's words are not the speaker's either
    asks = _line("Melanie", "Loving the patience and humor. Anything you're nervous about in the move?", "Caroline")
    topic = [canonical(w) for w in ("nervous", "move")]
    assert said_of_listener(asks, word_set("patience humor"), topic, ["Melanie"])
    own = _line("Melanie", "I'm nervous about the move. Anything you're nervous about in the move?", "Caroline")
    assert not said_of_listener(own, word_set("move"), topic, ["Melanie"])  # she says it of herself too
    # how it was for them, and what a question to them asks about their doing
    scary = _line("Caroline", "Oh no, that must have been scary for you guys. Glad everyone is fine.", "Melanie")
    assert said_of_listener(scary, word_set("scary"), [canonical("feel")], ["Caroline"])
    jewelry = _line("Andrew", "Those earrings look great! Do you make jewelry to sell or to give away?", "Audrey")
    assert said_of_listener(jewelry, word_set("sell"), [canonical("jewelry")], ["Andrew"])
    mine = _line("Andrew", "Do you know I sell jewelry online now?", "Audrey")
    assert not said_of_listener(mine, word_set("sell"), [canonical("jewelry")], ["Andrew"])  # his own selling
    # a guess at what the listener lived ("must have been"), and what they showed, after a "Wow"
    island = _line("Sam", "Wow, that spot looks gorgeous. Growing up there must have been so peaceful.", "Evan")
    assert said_of_listener(island, word_set("peaceful"), [canonical("island")], ["Sam"])
    assert said_of_listener(island, word_set("gorgeous"), [canonical("spot")], ["Sam"])
    dog = _line("John", "Max must be having so much fun swimming and playing - it's the best!", "James")
    assert said_of_listener(dog, word_set("swimming playing"), [canonical("max")], ["John"])
    young = _line("Sam", "I must have been ten when we moved to the island. It was peaceful.", "Evan")
    assert not said_of_listener(young, word_set("ten"), [canonical("island")], ["Sam"])  # his own


def test_kin_whose_words_begin_alike_are_not_one_word():
    assert says(canonical("grandpa"), word_set("a gift from my grandfather"))
    assert not says(canonical("grandpa"), word_set("a gift from my grandma"))
    assert not says(canonical("stepson"), word_set("my stepdaughter"))
    assert held(canonical("adopted"), word_set("we adopt dogs"))  # one stem
    assert held(canonical("healthier"), word_set("healthy recipes"))  # a -y adjective's comparative
    # words that only begin alike are two words (the five-letter prefix match this replaced held them)
    assert not held(canonical("interview"), word_set("an international school"))
    assert not held(canonical("concert"), word_set("a concern of mine"))
    assert not held(canonical("transfer"), word_set("public transport"))


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
    assert TELLING.search("What did I remind everyone to bring?")
    # a reminder is a thing, and what reminds someone of a trip tells nobody anything
    assert not TELLING.search("What kind of painting does Tim keep as a reminder?")
    assert not TELLING.search("What was the necklace meant to remind him of?")
