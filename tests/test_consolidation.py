"""Memory writing: typing and wording of items, relations, the typed merge rules on the real text embedder,
bi-temporal facts in the real encrypted store, forgetting, and the real 0.5B model consolidating the demo's
conversation, surviving kill -9, and everything it wrote going with what it came from."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from app.cli import main
from app.consolidation import forgetting
from app.consolidation.atoms import atoms
from app.consolidation.clauses import clauses, without_time
from app.consolidation.consolidator import Consolidator
from app.consolidation.extract import check, names_in, said, sentence_time, statement
from app.consolidation.items import Item
from app.consolidation.kinds import planned_span, typed, was_planned
from app.consolidation.merge import ADD, NOOP, SUPERSEDE, UPDATE, decide, negated, numbers
from app.consolidation.person import third_person
from app.consolidation.relations import relations_in, yours
from app.consolidation.salience import load_salience
from app.consolidation.summaries import digest
from app.demo import CREATION_TIME, SCRIPT
from app.facts import past_tense
from app.store.forget import forget_person, forget_session
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from app.store.writing import Line
from app.text.timeexpr import plan_window
from tests.conftest import ROOT, need_llm

T0 = datetime.fromisoformat(CREATION_TIME).timestamp()  # Thursday 14 May 2026


def test_first_person_facts_are_said_about_the_speaker():
    assert third_person("Hi, my name is Emily and I work as a nurse.", "Emily") == "Emily works as a nurse"
    assert third_person("I teach history", "John") == "John teaches history"
    assert third_person("I almost forgot", "Tom") == "Tom almost forgot"  # not "almosts"
    assert third_person("I am allergic to peanuts", "David") == "David is allergic to peanuts"
    assert third_person("I bought a bicycle and I ride it", "David") == "David bought a bicycle and David rides it"
    assert third_person("My wife Sarah is a doctor", "John") == "John's wife Sarah is a doctor"
    assert third_person("I love my dog", "Emily") == "Emily loves their dog"
    # a recognizer that writes lower case (PocketSphinx)
    assert third_person("hi my name is emily and i work as a nurse", "Emily") == "Emily works as a nurse"
    assert (
        third_person("that is true i swim there and i'm happy", "John")
        == "That is true John swims there and John is happy"
    )


def test_copied_greetings_thanks_and_questions_are_not_facts():
    from app.consolidation.extract import statement

    assert statement("Thanks, Caroline! I adopted a dog last week. Is this yours?") == "I adopted a dog last week"
    assert statement("Wow, that's cool, Caroline! What happened?") == ""
    assert statement("Keiko, great to see you!") == ""
    no = "No regrets about the move"  # "No, " is an answer, "No regrets" is not "Regrets"
    assert statement(f"No, I moved to Boston. {no}.") == f"I moved to Boston. {no}"
    lines = [Line(1, 2, "Melanie", "Thanks, Caroline! That's really sweet. Is this your own painting?", T0)]
    raw = {"lines": [{"line": 1, "facts": [{"who": "Melanie", "fact": "Thanks, Caroline! That's really sweet."}]}]}
    assert check(raw, lines, ["Melanie", "Caroline"], set()) == ([], 1)


def test_a_fact_about_someone_else_is_filed_under_them():
    lines = [Line(1, 1, "Emily", "john prefers swimming in the lake near his house", T0)]
    raw = {"lines": [{"line": 1, "facts": [{"who": "Emily", "fact": "John prefers swimming in the lake"}]}]}
    items, dropped = check(raw, lines, ["Emily", "John"], set())
    assert [(i.who, i.what) for i in items] == [("John", "John prefers swimming in the lake")] and dropped == 0


def test_items_are_typed_by_what_they_say():
    assert typed("Emily loves playing tennis") == ("likes", "hobby")
    assert typed("David hates peanuts") == ("dislikes", "food")
    assert typed("David is allergic to peanuts") == ("attribute", "health")
    assert typed("David is planning a trip to Paris") == ("plan", "travel")
    assert typed("Emily works as a nurse") == ("attribute", "job")
    assert typed("Maria moved here from Madrid last month") == ("event", "home")
    assert typed("Maria is from Madrid")[1] == "home" and typed("Ana sees the park from the kitchen")[1] != "home"
    assert typed("John swims in the lake every morning") == ("habit", "hobby")
    assert typed("John prefers swimming in the lake") == ("likes", "hobby")
    assert typed("John is hoping to get into local politics")[0] == "plan"  # hoping to: ahead; get into: not likes
    assert typed("Sam is into jazz")[0] == "likes"
    assert typed("Evan's friend got Evan into painting")[0] == "event"  # what happened, not what Evan likes
    assert typed("Sam gets really into music")[0] == "likes"
    assert typed("Sam is in a lot of pain")[1] == "health" and typed("Sam took up painting")[1] == "hobby"
    assert typed("Sam takes painkillers for his back")[1] == "health"
    assert typed("Luca has always wanted to live by the sea")[0] == "likes"  # a long-held wish
    assert typed("Theo has got a dentist appointment")[0] == "plan" and typed("Theo got a job")[0] == "event"
    assert not past_tense("Theo has got a dentist appointment") and past_tense("Theo got a dentist appointment")
    assert typed("Evan's old prius broke down")[0] == "event"  # any past tense tells what happened
    assert typed("Maria is excited about the trip")[0] == "attribute"  # a participle that says how she is
    assert typed("Maria has been busy volunteering at the homeless shelter")[0] == "habit"  # what she does of late
    assert typed("Sam has been thinking about trying painting")[0] == "plan"  # a wish or a plan
    assert typed("Evan can't wait to get it repaired")[0] == "plan"  # what someone looks forward to doing
    assert typed("Sam is excited to try new things")[0] == "plan"  # not "excited about the trip", how she is
    assert typed("John thinks schools should be funded properly")[0] == "likes"  # a view held
    assert typed("James thinks he will call tomorrow")[0] == "plan"  # of something to come: a plan still
    assert typed("Sam thinks about moving")[0] != "likes"
    assert typed("Evan decided to get it repaired and sell it")[0] == "plan"  # a decision to do something


def test_a_clause_without_a_time_takes_its_sentence_s():
    """A plan or an event split from its sentence keeps the sentence's time; two times in it give neither."""
    said = datetime(2026, 5, 18, 9, tzinfo=timezone.utc).timestamp()  # a Monday
    line = Line(1, 1, "Theo", "Sorry, I missed the bus this morning. I'm flying to Rome, I leave on Friday.", said)
    window, _ = sentence_time("Theo is flying to Rome", line, past=False)
    assert window.start == datetime(2026, 5, 22, tzinfo=timezone.utc)
    two = Line(2, 1, "Theo", "I flew back on Friday and I'm off to Rome, I leave next Monday.", said)
    assert sentence_time("Theo is off to Rome", two, past=False) is None
    # a time past for a clause that tells a plan is another clause's
    lost = Line(3, 1, "Theo", "I lost my job last month and I am planning a trip to Japan.", said)
    assert sentence_time("Theo is planning a trip to Japan", lost, past=False) is None


def test_relations_are_read_from_what_speakers_say_about_people():
    lines = [
        Line(1, 2, "John", "My wife Sarah is a doctor and she loves tennis too.", T0),
        Line(2, 3, "David", "And I am David. John is my brother.", T0),
        Line(3, 2, "John", "Our new colleague Maria moved here from Madrid.", T0),
        Line(4, 1, "Emily", "Paris is lovely in spring.", T0),  # a capitalised place is nobody
    ]
    names = names_in(lines, {"John", "David", "Emily"})
    assert set(names) == {"John", "David", "Emily", "Sarah", "Maria"}
    assert relations_in(lines[0], names) == [("wife", "Sarah")]
    assert relations_in(lines[1], names) == [("brother", "John")]
    assert relations_in(lines[2], names) == [("colleague", "Maria")]
    assert relations_in(lines[3], names) == []
    # lower-case speech recognition: a known person is still found, an unknown word is nobody
    heard = Line(5, 2, "John", "hello my name is john my colleague emily works with me", T0)
    assert relations_in(heard, names_in([heard], {"John", "Emily"})) == [("colleague", "Emily")]
    assert relations_in(Line(6, 2, "John", "my wife loves tennis", T0), ["John", "Emily"]) == []
    # a kinship word's short form is that relation ("my sis Rosa": sister)
    sis = Line(7, 4, "Paula", "My sis Rosa is a nurse, my bro Tom is a cook.", T0)
    assert relations_in(sis, ["Paula", "Rosa", "Tom"]) == [("sister", "Rosa"), ("brother", "Tom")]
    assert yours("How's your sis Rosa?", ["Rosa"]) == [("sister", "Rosa")]


@pytest.mark.parametrize(
    "heard",
    [
        "Hello, my name is John. My colleague Emily works with me at the bank.",
        "Hello, my name is John. My colleague, Emily, works with me at the bank.",
        "hello my name is john my colleague emily works with me at the bank",
        "My colleagues Emily works with me at the bank.",
        "Emily, my colleague, works with me at the bank.",
        "Emily is my colleague at the bank.",
        "Emily's my co-worker at the bank.",
        "My colleague is Emily. She works with me at the bank.",
    ],
)
def test_a_relation_survives_how_the_recognizer_words_and_punctuates_it(heard):
    """Another CPU's kernels give Whisper's decoder other scores, so the same speech comes out with other commas,
    case and small words: the relation must be read from each of them."""
    line = Line(7, 2, "John", heard, T0)
    (found,) = relations_in(line, names_in([line], {"John", "Emily"}))
    assert found in (("colleague", "Emily"), ("coworker", "Emily"))


def _day(t: float | None) -> str | None:
    return datetime.fromtimestamp(t, timezone.utc).date().isoformat() if t is not None else None


def _talk(*said: tuple[str, str]) -> list[Line]:
    return [Line(40 + i, 2 + i % 2, who, text, T0 + 5 * i) for i, (who, text) in enumerate(said)]


@pytest.mark.parametrize(
    ("talk", "expected"),
    [
        # an echo of what the other just said
        (
            (("Ines", "Bad night. Jonas phoned at two, he's stuck in Lyon."), ("Paul", "Your brother? Again?")),
            ("Jonas", "brother", "Ines"),
        ),
        # asking after the listener's relative: the answer begins with their name
        (
            (("Paul", "How's your son liking the new school?"), ("Ines", "Oh, Matteo adores it, he's made friends.")),
            ("Matteo", "son", "Ines"),
        ),
        # "my husband" with no name, the sentence going on with it
        ((("Ines", "My husband will be pleased, Karim hates cooking anyway."),), ("Karim", "husband", "Ines")),
        # asking whether the listener's relative does something: the answer goes on with her name
        (
            (("Paul", "Congratulations! Is your wife moving too?"), ("Ines", "Yes, Sofia found a job in Porto.")),
            ("Sofia", "wife", "Ines"),
        ),
    ],
)
def test_a_relation_the_talk_around_it_says_is_written(talk, expected):
    """People rarely say "my brother Jonas": the name is said a line before, or in the answer to a question about
    the relative. The relation is written, and the one it names may have facts of their own."""
    lines = _talk(*talk)
    names = names_in(lines, set())
    assert expected[0] in names
    items, _ = check(said(lines, names), lines, names, refused=set())
    assert [(i.who, i.what, i.other) for i in items if i.kind == "relation"] == [expected]


def test_she_is_still_the_one_named_lines_before_while_each_line_speaks_of_her():
    """ "She" is the one named a line or two before; a line between that speaks of her only as "she" keeps her the
    one, so the fifth line's "she" is still Ruth."""
    lines = _talk(
        ("Mara", "Ruth texted me last night, she wants to visit."),
        ("Paul", "Your sister? When?"),
        ("Mara", "On Friday. She gets in at nine."),
        ("Paul", "Is she still on that boat?"),
        ("Mara", "Yeah, she's a marine biologist in Plymouth now."),
    )
    names = names_in(lines, set())
    items, _ = check(said(lines, names), lines, names, refused=set())
    assert ("Ruth", "Ruth is a marine biologist in Plymouth now") in [(i.who, i.what) for i in items]


def test_a_reply_affirms_the_question_it_answers():
    """In talk much is said as a reply that leaves out what it answers: a question asked of the one who replies,
    answered yes or with a time alone, is their statement (dated by that time); a no, a question asked of several
    and a request are none."""
    lines = _talk(
        ("Nadia", "Ha. Are you still doing that half marathon?"),
        ("Kwame", "The eighteenth of May. I'm up at six to train."),
        ("Nadia", "Kwame! When do you start the new job?"),
        ("Kwame", "Next Monday. I handed in my notice today."),
        ("Nadia", "Still selling cars on Sundays?"),
        ("Kwame", "Not really."),
        ("Nadia", "Did you both have a good weekend?"),
        ("Kwame", "Yes, lovely."),
        ("Nadia", "Can you book the restaurant?"),
        ("Kwame", "Sure."),
        ("Nadia", "Ola, do you climb?"),
        ("Ola", "Ha, yes, bouldering."),
        ("Nadia", "Ha. And the motorbike?"),  # a thing asked after alone is what "it" is; the "I" left out is said
        ("Ola", "Sold it on Friday. A student bought it."),
    )
    names = names_in(lines, set())
    items, _ = check(said(lines, names), lines, names, refused=set())
    told = {i.what: i for i in items}
    marathon = told["Kwame is still doing that half marathon on the eighteenth of May"]
    assert marathon.kind == "plan" and _day(marathon.valid_from) == "2026-05-18", told
    job = told["Kwame starts the new job next Monday"]
    assert job.kind == "plan" and _day(job.valid_from) == "2026-05-18", told
    assert "Ola climbs" in told and "Kwame handed in their notice today" in told, told
    assert "Ola sold the motorbike on Friday" in told, told
    assert not [w for w in told if re.search(r"selling|weekend|book", w)], told
    assert not [w for w in told if "eighteenth" in w and "train" in w], told  # the time went to what it answers


def test_he_is_the_last_one_named_in_the_order_they_were_said():
    """ "Kwame's coming, and my cousin Teodor, he just moved here": "he" two lines on is Teodor, whatever the order
    the conversation's names come in."""
    lines = _talk(
        ("Petra", "Kwame's coming, and my cousin Teodor, he just moved here from Lisbon."),
        ("Rosa", "Oh nice, what brings him here?"),
        ("Petra", "He's a sound engineer, he's looking for theatre work."),
    )
    for names in (["Kwame", "Petra", "Rosa", "Teodor"], ["Teodor", "Rosa", "Petra", "Kwame"]):
        items, _ = check(said(lines, names), lines, names, refused=set())
        assert ("Teodor", "Teodor is a sound engineer") in [(i.who, i.what) for i in items], names


@pytest.mark.parametrize(
    "talk",
    [
        (("Paul", "What did your mother do on Sundays?"), ("Ines", "Gardening was her great love.")),  # not "how's"
        (("Paul", "How's your wife?"), ("Ines", "Great, thanks. Busy.")),  # nobody named
        (("Paul", "How's your sister doing?"), ("Ines", "Fine. Jonas and Lea came over, Lea is a baker.")),  # two
        (("Ines", "A walk with my husband by the lake. Water was freezing."),),  # a sentence later, a common word
        (("Ines", "Your brother?"), ("Paul", "Yes, Paris is where he lives now.")),  # not the line before
        (("Ines", "I'm off to Lyon."), ("Paul", "Your sister? Mm-hm.")),  # a place, not the subject of a verb
        (("Paul", "Does your mother still paint?"), ("Ines", "No, Travel takes all her time.")),  # no given name
    ],
)
def test_a_relation_is_not_guessed_from_talk_that_does_not_name_one(talk):
    lines = _talk(*talk)
    items, _ = check(said(lines, names_in(lines, set())), lines, names_in(lines, set()), refused=set())
    assert [i for i in items if i.kind == "relation"] == []


def test_a_greeting_is_not_a_relation():
    line = Line(8, 2, "John", "Hi Emily, my wife, Sarah, is a doctor.", T0)
    assert relations_in(line, ["John", "Emily", "Sarah"]) == [("wife", "Sarah")]


def test_unsupported_items_are_dropped_and_plans_get_their_date():
    lines = [
        Line(10, 3, "David", "Next Friday we are planning a trip to Paris.", T0),
        Line(11, 1, "Emily", "That sounds wonderful.", T0 + 5),
    ]
    raw = {
        "lines": [
            {"line": 1, "facts": [{"who": "David", "fact": "David plans a trip to Paris"}]},
            {
                "line": 2,
                "facts": [
                    {"who": "Emily", "fact": "Emily is a pilot"},  # not in the line
                    {"who": "David", "fact": "David sounds wonderful"},  # the line is not David's and names nobody
                ],
            },
        ]
    }
    items, dropped = check(raw, lines, ["David", "Emily"], refused=set())
    assert [(i.who, i.what, i.kind) for i in items] == [("David", "David plans a trip to Paris", "plan")]
    assert dropped == 2
    assert datetime.fromtimestamp(items[0].valid_from, timezone.utc).date().isoformat() == "2026-05-22"
    assert check(raw, lines, ["David", "Emily"], refused={"David"})[0] == []  # no consent: nothing kept


NAMES = ["Emily", "John", "David", "Sarah", "Lucy", "Maria"]


@pytest.mark.parametrize(
    ("speaker", "text", "expected"),
    [
        (
            "David",
            "And I am David. John is my brother and we grew up together in Boston.",
            [("David", "David and John grew up together in Boston")],  # the brother is a relation row
        ),
        (  # as the recognizer punctuates it
            "David",
            "And I am David, John is my brother and we grew up together in Boston.",
            [("David", "David and John grew up together in Boston")],
        ),
        (
            "John",
            "My wife Sarah is a doctor and she loves tennis too.",
            [("Sarah", "Sarah is a doctor"), ("Sarah", "Sarah loves tennis")],
        ),
        (
            "David",
            "I am allergic to peanuts so please do not bring any cookies.",
            [("David", "David is allergic to peanuts")],
        ),
        (
            "Emily",
            "My daughter Lucy starts school in September and she is very excited.",
            [("Lucy", "Lucy starts school in September")],  # how she feels now, about nothing said: no fact
        ),
        (
            "John",
            "Our new colleague Maria moved here from Madrid last month.",
            [("Maria", "Maria moved here from Madrid last month")],
        ),
        (
            "David",
            "I bought a new bicycle and I ride it to work every day.",
            [("David", "David bought a new bicycle"), ("David", "David rides the new bicycle to work every day")],
        ),
        (
            "John",
            "Please remember that the meeting with the bank is on Monday.",
            [("John", "The meeting with the bank is on Monday")],
        ),
        (
            "David",
            "Next Friday we are planning a trip to Paris.",
            [("David", "Next Friday David is planning a trip to Paris")],
        ),
        ("John", "My colleague Emily works with me at the bank.", [("Emily", "Emily works with John at the bank")]),
        ("Emily", "She said it was fine and he agreed with her.", []),  # pronouns that name nobody: no facts
        (
            "Emily",
            "Emily and John went to the lake on Sunday.",
            [("Emily", "Emily and John went to the lake on Sunday")],
        ),
        # a chat's courtesies, opinions and advice are about no one; its dropped "I" and "gonna" are the speaker's
        ("Gina", "Way to go, John! Marketing is key. Parenting's such a big job. Use social media.", []),
        ("Gina", "Sorry about your job John, but you will be fine.", []),
        (
            "John",
            "Still working on my biz. I'm gonna take a shot at starting a studio.",
            [
                ("John", "John is still working on their biz"),
                ("John", "John is going to take a shot at starting a studio"),
            ],
        ),
        (
            "John",
            "I just think about dance and how it makes me feel.",
            [("John", "John just thinks about dance and how it makes John feel")],
        ),
        # the "I" a chat leaves out is the speaker's; a reaction after the statement, "check it out" and
        # "I'll keep you posted" are said to the listener; "we all" without names is the speaker
        (
            "John",
            "Just got back from a family road trip yesterday, it was fun! Been busy volunteering.",
            [
                ("John", "John just got back from a family road trip yesterday"),
                ("John", "John has been busy volunteering"),
            ],
        ),
        ("Evan", "We all hiked the trails last week, check it out.", [("Evan", "Evan hiked the trails last week")]),
        # "here's a pic" after a dash is show-and-tell; "since we last spoke" without its comma is chat about the
        # chat, and "That's why" only ties a sentence to the one before it
        (
            "Dave",
            "Been restoring this vintage beauty - here is the final result pic! Since we last chat I sold a car. "
            "That's why I'm so into auto engineering.",
            [
                ("Dave", "Dave has been restoring this vintage beauty"),
                ("Dave", "Dave sold a car"),
                ("Dave", "Dave is so into auto engineering"),
            ],
        ),
        (
            "Dave",
            "Since I talked to my mom, I feel better.",
            [("Dave", "Since Dave talked to their mom, Dave feels better")],
        ),
        ("Sam", "Yeah, I'll keep you posted. See you soon!", []),
        ("John", "Growing up, I saw how my town changed.", [("John", "John saw how their town changed")]),
        # how someone is just now is no memory; a lead-in before a colon is not what is said
        ("Rosa", "I'm fine, just tired. I'm so jealous!", []),
        ("Rosa", "I am excited about the new job.", [("Rosa", "Rosa is excited about the new job")]),
        (
            "Bruno",
            "I've got news too: I'm retiring in January, after thirty years there.",
            [("Bruno", "Bruno is retiring in January, after thirty years there")],
        ),
        (
            "Greta",
            "My wife Hana's picking me up today. My brother Karim's car is red.",
            [("Hana", "Hana is picking Greta up today"), ("Karim", "Karim's car is red")],
        ),
        (
            "Lena",
            "Keiko, great to see you! The meeting is on Monday at 10:30.",
            [("Lena", "The meeting is on Monday at 10:30")],
        ),
        # a gerund as the subject is said of no one; one that leaves its "I" out is the speaker's doing
        (
            "Jon",
            "Running a business isn't easy. Networking really pays off. Searching for a studio's a tough job.",
            [],
        ),
        (
            "Jon",
            "Looking forward to the trip. Losing my job was hard.",
            [("Jon", "Jon is looking forward to the trip"), ("Jon", "Losing Jon's job was hard")],
        ),
        (  # a doing with its own "is" later is the subject too, however long ("it", "that" inside it)
            "Tim",
            "Having support like that is so important. Seeing it working and providing clean water was satisfying.",
            [],
        ),
        (  # a condition stays with what it conditions, a second verb agrees with the first; a "pick-me-up" is
            # nobody's name nor the speaker's, and an opinion about no one
            "Jolene",
            "Whenever I'm overwhelmed, I just take a break and do some breathing. Comfort food can be a great "
            "pick-me-up.",
            [("Jolene", "Whenever Jolene is overwhelmed, Jolene just takes a break and does some breathing")],
        ),
        (  # not a verb after "to", nor a thing after "and"; "myself" is "themselves"; the time since they last
            # talked is no condition
            "Caroline",
            "I want to live authentically and help others. I miss my mom and dad a lot. Since we last spoke, I "
            "taught myself guitar.",
            [
                ("Caroline", "Caroline wants to live authentically and help others"),
                ("Caroline", "Caroline misses their mom and dad a lot"),
                ("Caroline", "Caroline taught themselves guitar"),
            ],
        ),
        ("Joanna", "I wish you the best on your party! I'd love to hear your thoughts.", []),  # courtesies
        (  # advice is not the speaker's doing, nor how long since they talked; "just" before a doing is
            "Evan",
            "Just take it one day at a time. Been a busy week since we talked! Just been painting a lot lately.",
            [("Evan", "Evan has just been painting a lot lately")],
        ),
        # a name and a word is said to someone; what is shown, not said, is in brackets
        ("Gina", "Go Jon! Bye Jon! I'm always here to cheer you on. You got this, hang in there!", []),
        ("Gina", "Sarah left.", [("Sarah", "Sarah left")]),  # a name and a verb is said of them, and is theirs
        (  # a cheer beside what is said keeps what is said
            "Gina",
            "I'm proud of you, my son just graduated.",
            [("Gina", "Gina is proud of you, their son just graduated")],
        ),
        # words in "-ing" that are things, and a possessive, are no "I" left out; "we'd been" is "had"
        ("Gina", "Evening walks keep me sane. Having kids changes a lot.", [("Gina", "Evening walks keep Gina sane")]),
        (
            "Gina",
            "Going to Jon's party tonight. We'd been friends for years.",
            [("Gina", "Gina is going to Jon's party tonight"), ("Gina", "Gina had been friends for years")],
        ),
        ("Gina", "I adopted a dog [shares a photo: a dog]. Is this yours?", [("Gina", "Gina adopted a dog")]),
        # another person as the subject is theirs to hold, the speaker's "me" by name; an answer to an offer is
        # no fact; "I'd" is "would" ("had" before a past participle)
        (
            "Gina",
            "Sadly John lost his job, he helped me move though. John and I went hiking.",
            [
                ("John", "John lost his job"),
                ("John", "John helped Gina move though"),
                ("Gina", "John and Gina went hiking"),
            ],
        ),
        ("Gina", "Oh, I'd love a tea, thanks, John. Nothing for me, thanks.", []),
        ("Gina", "I love a tea, thanks.", []),  # as a recognizer may write it
        # a sentence that only says when is the time of what the line states next (a lead-in saying when goes: the
        # line's time dates the fact)
        (
            "Gina",
            "Last week, I built a new website for my shop. So, Saturday. I'm doing a barbecue.",
            [("Gina", "Gina built a new website for their shop"), ("Gina", "Gina is doing a barbecue on Saturday")],
        ),
        # someone shown to another is no fact of theirs, nor an answer whose main clause was the question's
        ("Nadia", "Yuki, this is Raj from work. Oh look, Teodor came. Since I was fifteen.", []),
        # assent and what was not done, about nothing, are no facts; what follows assent is kept
        ("Paula", "Perfect, count me in! Sure, sign me up.", []),
        # a proposal with a time is a plan; without one, a request
        (
            "Rosa",
            "Let's all have dinner at my place next Saturday. Let's go!",
            [("Rosa", "Rosa will have dinner at their place next Saturday")],
        ),
        ("Samir", "I twisted my ankle, so I couldn't do much.", [("Samir", "Samir twisted their ankle")]),
        ("Samir", "Great, I got the job!", [("Samir", "Samir got the job")]),
        # where someone goes or is back from in passing is no fact; a trip, or an errand with a time, is
        (
            "Theo",
            "I'm going down to the cafe. I'm just back from my run. I'm just back from Japan. I'm off to the gym on "
            "Monday.",
            [("Theo", "Theo is just back from Japan"), ("Theo", "Theo is off to the gym on Monday")],
        ),
        # resolve about nothing, thanks in other words and what is said of the listener are no facts; resolve
        # about something keeps the something
        (
            "Jon",
            "Thanks! Your support means a lot. I'm gonna keep going and never give up, no matter what. I'm "
            "determined to make it work. I'm stoked about this!",
            [],
        ),
        (
            "Gina",
            "You've come so far since we last talked! Your store looks great. Let me know if you need anything. You "
            "won't believe it - I got mentored by a business coach yesterday.",
            [("Gina", "Gina got mentored by a business coach yesterday")],  # without its lead-in
        ),
        (  # a lead-in before a dash and a reaction after one are not what is said; "look what ..." shows
            "Dave",
            "BTW, something cool I wanted to tell you about - I recently attended a conference in Detroit - it was "
            "so cool! I started my own store not so long ago - people love it. Look what I got!",
            [
                ("Dave", "Dave recently attended a conference in Detroit"),
                ("Dave", "Dave started their own store not so long ago"),
            ],
        ),
        (  # a dash before the speaker starts a clause of its own; news with nothing of it is no fact; a question
            # after a dash leaves the statement before it; a gerund subject that made the speaker do something
            "Melanie",
            "A lot's happened since we last chatted - I joined a pottery class. They're good- we got another cat "
            "named Bailey. FYI, I finished another vase - want to see it? Seeing those pups made me want a dog.",
            [
                ("Melanie", "Melanie joined a pottery class"),
                ("Melanie", "Melanie got another cat named Bailey"),
                ("Melanie", "Melanie finished another vase"),
                ("Melanie", "Seeing those pups made Melanie want a dog"),
            ],
        ),
        (  # an opinion of the listener's doings is theirs to hold; the speaker's own opinion is kept
            "Gina",
            "I'm sure you feel great knowing your students are doing so well. I bet your kids loved it. I'm always "
            "here to support you. I think I will open a second store. I know your brother Tom.",
            [("Gina", "Gina thinks Gina will open a second store"), ("Gina", "Gina knows your brother Tom")],
        ),
        (
            "Jon",
            "I'm staying positive. I lost my job as a banker yesterday, but I'm not giving up on my dream: my own "
            "dance studio. My family means the world to me.",
            [
                ("Jon", "Jon lost their job as a banker yesterday"),
                ("Jon", "Jon is not giving up on their dream: their own dance studio"),
                ("Jon", "Jon's family means the world to Jon"),
            ],
        ),
        # ... but what is said with thanks is kept, and a name spoken to someone is not the subject
        ("Gina", "Just got promoted, thanks.", [("Gina", "Gina just got promoted, thanks")]),
        (
            "Gina",
            "I'd love to visit Japan someday, thanks.",
            [("Gina", "Gina would love to visit Japan someday, thanks")],
        ),
        ("Gina", "John did you hear about my promotion?", []),
        (  # the "I" (or "I am") a chat leaves out before a past tense or a feeling; a feeling for the listener
            # is a courtesy, and "can't wait" with no time says little
            "Jon",
            "Really enjoyed the show last night! Super proud of Gina's kids. Excited for the trip to Paris next "
            "month. So happy for you! Can't wait to see it. Can't wait for our hike next month. Reminded me of home.",
            [
                ("Jon", "Jon really enjoyed the show last night"),
                ("Jon", "Jon is super proud of Gina's kids"),
                ("Jon", "Jon is excited for the trip to Paris next month"),
                ("Jon", "Jon can't wait for their hike next month"),
                ("Jon", "Reminded Jon of home"),
            ],
        ),
        (  # "us" and "our" said of everyone are no fact; what happened to "us", or "our" team, is the speaker's
            "Deborah",
            "It brings us together. Nature has a way of soothing us. Hiking together was great fun for us. A storm "
            "forced us to cancel our yoga getaway. Our team has grown a lot. I’m leaving tomorrow evening.",
            [
                ("Deborah", "A storm forced Deborah to cancel their yoga getaway"),
                ("Deborah", "Deborah's team has grown a lot"),
                ("Deborah", "Deborah is leaving tomorrow evening"),
            ],
        ),
        # a name or a time alone, thanks for an invite and how last Friday was are no facts
        ("Dave", "Calvin! Last Friday. For inviting us! Last Friday was amazing!", []),
        (  # a feeling about the listener, an offer and "take a look" are said in passing; news told is kept
            "Maria",
            "I'm so glad you're enjoying the game. I'm happy to help. Let me send you the recipe. Woah, I did an "
            "abstract painting too, take a look. I'm so excited to tell you I started a yoga class.",
            [("Maria", "Maria did an abstract painting"), ("Maria", "Maria started a yoga class")],
        ),
        ("Gina", "John look at my new car.", [("Gina", "John look at Gina's new car")]),
        (  # two doings joined by "and" are two facts, each with what comes before them; a doing that describes
            # a thing ("a loving and accepting home") and a list stay whole
            "Maria",
            "I've been busy volunteering at the homeless shelter and keeping fit. I love swimming and hiking. I'm "
            "thinking about starting a business and making it work. We want a loving and accepting home for our "
            "kids. I enjoy painting, reading and baking.",
            [
                ("Maria", "Maria has been busy volunteering at the homeless shelter"),
                ("Maria", "Maria has been busy keeping fit"),
                ("Maria", "Maria loves swimming"),
                ("Maria", "Maria loves hiking"),
                ("Maria", "Maria is thinking about starting a business"),
                ("Maria", "Maria is thinking about making it work"),
                ("Maria", "Maria wants a loving and accepting home for their kids"),
                ("Maria", "Maria enjoys painting, reading and baking"),
            ],
        ),
        (  # "they" just after the speaker's kids or pets are those; "it" that begins what follows stays "it"
            "Audrey",
            "I have four dogs. They love exploring new scents. My two little kids are so sweet. They are learning "
            "to swim. I bought a new leash, I thought it'd be nice for walks.",
            [
                ("Audrey", "Audrey has four dogs"),
                ("Audrey", "Audrey's dogs love exploring new scents"),
                ("Audrey", "Audrey's two little kids are so sweet"),
                ("Audrey", "Audrey's two little kids are learning to swim"),
                ("Audrey", "Audrey bought a new leash"),
                ("Audrey", "Audrey thought it'd be nice for walks"),
            ],
        ),
        (  # a comma before a past tense that does something starts a clause of its own, its "I" left out (not
            # "compared to"); how long since the two last talked is no fact, how long since a thing was done is
            "Evan",
            "My old prius broke down, decided to get it repaired and sell it. Haven't talked in a few days. It's been "
            "ages since I went hiking. I love the forest, compared to the city.",
            [
                ("Evan", "Evan's old prius broke down"),
                ("Evan", "Evan decided to get it repaired and sell it"),
                ("Evan", "It's been ages since Evan went hiking"),
                ("Evan", "Evan loves the forest, compared to the city"),
            ],
        ),
        (  # "-ly" words are adverbs; a lead-in saying where or after what stays with its clause, one saying only
            # when goes (the line's time dates the fact), a turn of phrase ("On another note") goes; "my partner and I"
            # do it together, "our" theirs; "it" is no thing said to be what something was ("it's been a blast")
            "Evan",
            "I highly recommend it. After my last run, I saw the impact I could make. Last week, I went hiking. On "
            "another note, I slowly formed connections. Yesterday, for example. Last weekend my partner and I told "
            "our family about our trip. I got a new game and it's been a blast! I play it daily.",
            [
                ("Evan", "Evan highly recommends it"),
                ("Evan", "After Evan's last run, Evan saw the impact Evan could make"),
                ("Evan", "Evan went hiking"),
                ("Evan", "Evan slowly formed connections"),
                ("Evan", "Last weekend Evan's partner and Evan told their family about their trip"),
                ("Evan", "Evan got a new game and it's been a blast"),
                ("Evan", "Evan plays it daily"),
            ],
        ),
        (  # the name where "us" and "we" were is said once; "the pups and I" and "my GF and I" are plural; "they"
            # after "my family" is the family; a goodbye is no fact
            "David",
            "Events like these remind us we can make a difference. The pups and I are loving the new trail. My GF and "
            "I just had a great time at the shelter. My family has been there for me all the way. They've been my "
            "rock through tough times. See you later John, bye!",
            [
                ("David", "Events like these remind David that David can make a difference"),
                ("David", "The pups and David are loving the new trail"),
                ("David", "David's GF and David just had a great time at the shelter"),
                ("David", "David's family has been there for David all the way"),
                ("David", "David's family have been David's rock through tough times"),
            ],
        ),
        (  # a doing as the subject ("Sitting ... gives me peace") is no "I" left out; a thing named alone is no
            # fact; "it" after "a car last year" is the car; "keep it up" after a statement is encouragement
            "Emily",
            "Sitting in that spot by the window gives me peace. My full support! I restored a car last year, "
            "but I sold it to a collector. I'm proud of the progress Maria has made - keep it up!",
            [
                ("Emily", "Sitting in that spot by the window gives Emily peace"),
                ("Emily", "Emily restored a car last year"),
                ("Emily", "Emily sold the car to a collector"),
                ("Emily", "Emily is proud of the progress Maria has made"),
            ],
        ),
        (
            "Gina",
            "I'd love a dog. I'd never seen the sea. I'd need a break.",
            [
                ("Gina", "Gina would love a dog"),
                ("Gina", "Gina had never seen the sea"),
                ("Gina", "Gina would need a break"),
            ],
        ),
        (  # a doing with its own "has" after it is the subject, not an "I" left out ("Jolene is hanging out ...")
            "Jolene",
            "Hanging out with people who love what they do has really inspired me to stay focused. Still working on "
            "my biz, it has been busy.",
            [
                ("Jolene", "Hanging out with people who love what they do has really inspired Jolene to stay focused"),
                ("Jolene", "Jolene is still working on their biz"),
            ],
        ),
        (  # an "our" beside the speaker's "I" is theirs; a reaction after the statement goes ("should be fun")
            "John",
            "I just left for our European vacation, should be fun. It breaks my heart that our kids are sad.",
            [
                ("John", "John just left for their European vacation"),
                ("John", "It breaks John's heart that John's kids are sad"),
            ],
        ),
        (  # a leading "it" is the one thing the clause before is about (app/consolidation/referents.py)
            "Lucy",
            "Yoga's been really awesome for me. It's helped me improve my strength and focus. My art is about my "
            "roots. It's my way of showing my story. Dancing helps me relax. It's where I'm most alive.",
            [
                ("Lucy", "Yoga's been really awesome for Lucy"),
                ("Lucy", "Yoga has helped Lucy improve their strength and focus"),
                ("Lucy", "Lucy's art is about Lucy's roots"),
                ("Lucy", "Lucy's art is Lucy's way of showing Lucy's story"),
                ("Lucy", "Dancing helps Lucy relax"),
                ("Lucy", "Dancing is where Lucy is most alive"),
            ],
        ),
        (  # ... not an "it" of nothing, nor one after a person (a name, "my grandma"), a time or many things, nor a
            # doing before a verb that would read as an "I" left out ("Capturing that view really sparked ..." is not
            # "Lucy is capturing ...")
            "Lucy",
            "My job is hard. It's amazing how I cope. Maria is so kind. It means a lot to me. Last week was busy. It "
            "made me tired. My dogs are great. It's been a while since I walked them. Capturing that view was special. "
            "It really sparked my creativity. My grandma gave me this necklace. It reminds me of my roots.",
            [
                ("Lucy", "Lucy's job is hard"),
                ("Maria", "Maria is so kind"),
                ("Lucy", "It means a lot to Lucy"),
                ("Lucy", "It made Lucy tired"),
                ("Lucy", "Lucy's dogs are great"),
                ("Lucy", "It's been a while since Lucy walked them"),
                ("Lucy", "It really sparked Lucy's creativity"),
                ("Lucy", "Lucy's grandma gave Lucy this necklace"),
                ("Lucy", "It reminds Lucy of their roots"),
            ],
        ),
        (  # someone's word about the listener passed on is said of the listener, no fact of theirs; their own stays
            "John",
            "Emily says you're some kind of chess champion. Sarah says the new cafe is great.",
            [("Sarah", "Sarah says the new cafe is great")],
        ),
        (  # a name between commas after a relation word is who that is, not the one the line is said to
            "John",
            "Oh, by the way, our brother, David, is moving to Lisbon in September. Way to go, Emily.",
            [("David", "David is moving to Lisbon in September")],
        ),
        (  # two lead-ins before "my son David"; what a speaker says before taking their turn is no fact
            "John",
            "Good for her, speaking of family, my son David broke his arm at rugby practice on Tuesday.",
            [("David", "David broke his arm at rugby practice on Tuesday")],
        ),
        (
            "Sarah",
            "Okay, quick update from me, I am flying to Berlin on Thursday.",
            [("Sarah", "Sarah is flying to Berlin on Thursday")],
        ),
    ],
)
def test_a_line_becomes_atomic_facts_about_whom_they_are_about(speaker, text, expected):
    assert atoms(statement(text), speaker, NAMES) == expected


def test_a_plan_whose_day_is_over_is_said_as_what_was_planned():
    assert was_planned("David is planning a trip to Paris for his birthday") == (
        "David was planning a trip to Paris for his birthday"
    )
    assert was_planned("John has a meeting with the bank at 10 o'clock") == (
        "John had a meeting with the bank at 10 o'clock"
    )
    assert was_planned("Emily's daughter Lucy starts school") == "Emily's daughter Lucy was going to start school"
    assert was_planned("Ines will compete in the championship") == "Ines was going to compete in the championship"
    assert was_planned("David and John are flying to Rome") == "David and John were flying to Rome"
    assert was_planned("Going to Paris") == "Going to Paris"  # no verb it knows: as it was
    assert without_time("Petra is doing a barbecue on Saturday, Rosa has to come") == (
        "Petra is doing a barbecue, Rosa has to come"  # no space left before the comma
    )
    said = T0  # Thursday 14 May 2026
    start, end, text = planned_span("Next Friday David is planning a trip to Paris", said, None)
    assert (start, end) == (T0 - T0 % DAY + 8 * DAY, T0 - T0 % DAY + 9 * DAY)  # Friday 22 May, all day
    assert text == "David was planning a trip to Paris"  # its time words go: the event is dated
    assert planned_span("Lucy starts school", said, T0 + 3 * DAY)[:2] == (T0 + 3 * DAY, T0 + 4 * DAY)
    assert planned_span("John hopes to get into politics", said, None) is None  # no day: it holds


def test_passed_plans_become_events_and_keep_their_lines(cfg, perception, tmp_path, llm_free_consolidator):
    """The demo's plans (the bank on Monday 18 May, Paris on Friday 22 May) are plans while the memory's latest
    line is the demo's; a conversation on 1 June closes them: each becomes an event that says what was planned,
    dated on its day and citing its line, the plan stays as history, and forgetting the demo deletes both. Lucy's
    school in September is still ahead."""
    with Memory.open(tmp_path / "p.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        _demo_memory(m, perception)
        consolidator = llm_free_consolidator(m)

        def write_sessions() -> None:
            while (job := m.writing.next_job(cfg.memory.attempts)) is not None and job.kind == "session":
                m.writing.job_started(job)
                consolidator.run_job(job)

        m.writing.enqueue_backlog()
        write_sessions()
        plans = {f["value"] for f in m.derived.facts_listed() if f["kind"] == "plan"}
        assert any("Paris" in p for p in plans) and any("bank" in p for p in plans)
        later = T0 + 18 * DAY  # Monday 1 June
        session = m.turns.start_session("t", later)
        text = "I played tennis this morning."
        vector = perception.text([text])[0]
        m.turns.add_utterance(
            NewUtterance(session, m.people.person_id("Emily"), text, later, later + 3, 1.0, "t", False, vector)
        )
        m.writing.enqueue("session", session)
        write_sessions()
        facts = {f["value"]: f for f in m.derived.facts_listed()}
        paris = facts["David was planning a trip to Paris for their birthday"]
        assert paris["kind"] == "event" and paris["valid_from"] == pytest.approx(T0 - T0 % DAY + 8 * DAY)
        bank = facts["The meeting with the bank was at ten o'clock"]
        assert bank["kind"] == "event" and bank["valid_from"] == pytest.approx(T0 - T0 % DAY + 4 * DAY)
        assert facts["Lucy starts school in September"]["kind"] == "plan"  # still ahead
        # what happened once sits beside what holds, neither replacing the other
        assert facts["Emily played tennis this morning"]["kind"] == "event"
        assert any(f["kind"] == "preference" and "loves playing tennis" in v for v, f in facts.items())
        closed = {f["id"]: f for f in m.derived.facts_listed(history=True) if f["valid_to"] is not None}
        old = next(f for f in closed.values() if f["kind"] == "plan" and "Paris" in f["value"])
        assert old["superseded_by"] == paris["id"] and old["sources"] == paris["sources"]
        assert old["valid_to"] == pytest.approx(T0 - T0 % DAY + 9 * DAY)  # closed when its day ended
        forget_session(m, 1)
        assert all("Paris" not in f["value"] for f in m.derived.facts_listed(history=True))


def test_clauses_split_only_where_a_new_subject_starts():
    assert clauses("I like bread and butter and cheese") == ["I like bread and butter and cheese"]
    assert clauses("I met Anna and Lucy at the park") == ["I met Anna and Lucy at the park"]
    assert clauses("I teach history and I coach the team, but he hates it") == [
        "I teach history",
        "I coach the team",
        "he hates it",
    ]


def test_the_demo_writes_habits_and_dated_plans_and_events():
    lines = [Line(i, 1, who, text, T0 + 10 * i) for i, (who, text) in enumerate(SCRIPT, 1)]
    items, _ = check(said(lines, NAMES), lines, NAMES, set())
    got = {(i.who, i.what): (i.kind, i.valid_from) for i in items if i.kind != "relation"}
    day = lambda t: datetime.fromtimestamp(t, timezone.utc).date().isoformat()  # noqa: E731
    assert got[("David", "David rides the new bicycle to work every day")][0] == "habit"
    assert got[("Emily", "Emily plays every Saturday morning in the park")][0] == "habit"
    kind, start = got[("John", "The meeting with the bank is on Monday at ten o'clock")]
    assert (kind, day(start)) == ("plan", "2026-05-18")  # an attribute by its words, a plan by its time
    kind, start = got[("Lucy", "Lucy starts school in September")]
    assert (kind, day(start)) == ("plan", "2026-09-01")
    kind, start = got[("Maria", "Maria moved here from Madrid last month")]
    assert (kind, day(start)) == ("event", "2026-04-01")
    assert got[("Sarah", "Sarah loves tennis")][0] == "preference"
    assert not any(what.startswith(("And ", "Our ", "Please")) for _, what in got)


def test_a_pronoun_reaches_back_to_who_was_just_named_and_a_past_weekday_is_the_last_one():
    monday = datetime(2026, 5, 18, 9, tzinfo=timezone.utc).timestamp()
    said_lines = [
        ("Omar", "No worries, Felix. How's your daughter Ines doing?"),
        ("Felix", "Oh, she's great. She came second at a swim meet on Saturday, and she's competing in May."),
        ("Samir", "I can't stay long, I twisted my ankle playing football on Friday."),
    ]
    lines = [Line(i, i, who, text, monday + 10 * i) for i, (who, text) in enumerate(said_lines, 1)]
    names = ["Omar", "Felix", "Ines", "Samir"]
    items, _ = check(said(lines, names), lines, names, set())
    got = {(i.who, i.what): (i.kind, i.when) for i in items if i.kind != "relation"}
    assert got[("Ines", "Ines came second at a swim meet on Saturday")] == ("event", "Saturday 16 May 2026")
    assert got[("Ines", "Ines is competing in May")] == ("plan", "May 2026")
    assert got[("Samir", "Samir twisted their ankle playing football on Friday")] == ("event", "Friday 15 May 2026")
    # "your daughter Ines", said to Felix, who answers: Ines is Felix's daughter
    assert [(i.who, i.what, i.other) for i in items if i.kind == "relation"] == [("Ines", "daughter", "Felix")]


def _facts_written(said_lines: list[tuple[str, str]], names: list[str]) -> set[str]:
    lines = [Line(i, i, who, text, T0 + 10 * i) for i, (who, text) in enumerate(said_lines, 1)]
    return {i.what for i in check(said(lines, names), lines, names, set())[0]}


def test_a_pronoun_with_no_name_reaches_back_to_the_speaker_s_own_one():
    """ "she" after "my mom" (no name said) is the speaker's mom, "they" after "your turtles", asked of them, the
    speaker's turtles; "your" in someone else's question is not theirs."""
    got = _facts_written(
        [
            ("Deborah", "My mom loved cooking. She would make amazing meals for us."),
            ("Jolene", "What do your turtles eat?"),
            ("Deborah", "They eat a mix of vegetables and insects."),
            ("Jolene", "My kids went to the zoo with my sister."),
            ("Deborah", "She must have loved it! They look so happy."),
        ],
        ["Deborah", "Jolene"],
    )
    assert {"Deborah's mom loved cooking", "Deborah's mom would make amazing meals for us"} <= got
    assert "Deborah's turtles eat a mix of vegetables and insects" in got
    assert not any(what.startswith(("She ", "They ", "Deborah's sister", "Deborah's kids")) for what in got)


def test_you_in_a_fact_is_the_one_it_was_said_to_by_name():
    got = _facts_written(
        [
            ("John", "I finally finished the novel you lent me."),
            ("James", "Cool, I'll bring you a souvenir from Tokyo and we can grab coffee if you want."),
            ("John", "I miss your old car, I understand why travel means so much to you."),
            ("James", "If you ever need a ride, let me know."),
        ],
        ["John", "James"],
    )
    assert "If John ever needs a ride, let James know" in got  # "ever" is no verb
    assert "John finally finished the novel James lent John" in got  # said to the one who speaks next
    assert "James will bring John a souvenir from Tokyo" in got
    assert "James can grab coffee if John wants" in got  # "if you want": John wants
    assert "John misses James's old car" in got
    assert "John understands why travel means so much to James" in got
    assert not any(re.search(r"\byour?\b", what, re.I) for what in got)
    got = _facts_written(
        [
            ("Andrew", "We finally got a new leash for Toby."),
            ("Audrey", "I need to see where you and your pup hang out if you really need help. I totally agree."),
            ("Andrew", "I bet those rides brought back great memories. I need a break. Thanks, you guys are the best."),
        ],
        ["Andrew", "Audrey"],
    )
    assert "Audrey needs to see where Andrew and Andrew's pup hang out if Andrew really needs help" in got
    assert "Andrew needs a break" in got
    assert not any("agree" in what or "bets" in what for what in got)  # agreement and a guess at the listener's day


def test_the_listener_called_sis_is_the_speaker_s_sister():
    said_lines = [
        ("Rosa", "I started my new job at the hospital on Monday."),
        ("Paula", "Oh, that's great, sis! Congratulations."),
        ("Rosa", "Thanks! How is Dad?"),
        ("Paula", "He's fine. Thanks for calling, Mum."),  # not said between the two who spoke: not a relation
        ("Luca", "Hi all."),
    ]
    lines = [Line(i, i, who, text, T0 + 10 * i) for i, (who, text) in enumerate(said_lines, 1)]
    names = ["Rosa", "Paula", "Luca"]
    items, _ = check(said(lines, names), lines, names, set())
    assert [(i.who, i.what, i.other) for i in items if i.kind == "relation"] == [("Rosa", "sister", "Paula")]


def test_the_one_greeted_as_dad_at_the_opening_is_the_speaker_s_father():
    said_lines = [
        ("Lena", "Hello Dad, got a minute?"),
        ("Pavel", "Always. What's up?"),
        ("Lena", "Hi Mum is what Tom calls you, not me."),  # no opening: not a relation
        ("Pavel", "Ha, fine."),
    ]
    lines = [Line(i, i, who, text, T0 + 10 * i) for i, (who, text) in enumerate(said_lines, 1)]
    names = ["Lena", "Pavel"]
    items, _ = check(said(lines, names), lines, names, set())
    assert [(i.who, i.what, i.other) for i in items if i.kind == "relation"] == [("Pavel", "father", "Lena")]


def test_a_session_summary_is_a_diary_line_written_from_its_facts():
    lines = [Line(i, 1, who, text, T0 + 10 * i) for i, (who, text) in enumerate(SCRIPT, 1)]
    text = digest(lines, check(said(lines, NAMES), lines, NAMES, set())[0])
    assert text.startswith("Thursday 14 May 2026: Emily, John and David talked. Coming up: ")
    assert "David is planning a trip to Paris for their birthday (Friday 22 May 2026)" in text
    assert "John: the meeting with the bank is on Monday at ten o'clock (Monday 18 May 2026)" in text
    assert "Lucy starts school in September (September 2026)" in text
    assert "Health: David is allergic to peanuts." in text and "People: John is David's brother;" in text
    # plans, then what happened, health and people come before the rest
    assert text.index("Coming up") < text.index("What happened") < text.index("Health") < text.index("People")


def test_plans_are_dated_forward():
    now = datetime.fromtimestamp(T0, timezone.utc)
    day = lambda text: plan_window(text, now)[0].start.date().isoformat()  # noqa: E731
    assert day("the meeting is on Monday") == "2026-05-18"
    assert day("she starts school in September") == "2026-09-01"
    assert day("we fly tomorrow") == "2026-05-15"
    assert day("he moved here last month") == "2026-04-01"


def test_numbers_and_negations_are_never_merged_away():
    assert numbers("Emily has 2 kids") != numbers("Emily has three kids")
    assert numbers("two kids") == numbers("2 kids")
    assert negated("Emily stopped playing tennis") and not negated("Emily loves tennis")


def _item(who: str, what: str, line_id: int = 1, key: str = "other", kind: str = "attribute") -> Item:
    return Item(who, kind, key, what, Line(line_id, 1, who, what, T0))


@pytest.fixture
def store(cfg, perception, tmp_path):
    with Memory.open(tmp_path / "w.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        pid = m.people.add_person("Emily").id
        session = m.turns.start_session("t", T0)
        texts = [
            "I have 2 kids.",
            "I have three kids now.",
            "I love tennis.",
            "I stopped playing tennis.",
            "I work as a nurse.",
            "I work as a teacher now.",
        ]
        ids = [
            m.turns.add_utterance(NewUtterance(session, pid, t, T0 + i * DAY, T0 + i * DAY + 3, 1.0, "t", False, v))
            for i, (t, v) in enumerate(zip(texts, perception.text(texts), strict=True))
        ]
        yield m, pid, ids


DAY = 86400.0


def test_merge_rules_on_the_real_embedder(store, perception, cfg):
    m, pid, ids = store
    c = cfg.memory
    held = []

    def run(item: Item):
        vec = perception.text([item.what])[0]
        d = decide(item, vec, held, c.duplicate, c.related)
        return d.action, d.fact

    first = _item("Emily", "Emily has 2 kids", ids[0], "family")
    assert run(first)[0] == ADD
    with m.batch():
        fid = m.writing.insert_fact(
            pid, "attribute", "family", first.what, 0, [ids[0]], None, T0, 0, perception.text([first.what])[0]
        )
    held[:] = m.writing.held_facts(pid)
    assert run(_item("Emily", "Emily has 2 kids", ids[0], "family"))[0] == NOOP  # nothing new
    assert run(_item("Emily", "Emily has two kids", ids[1], "family")) == (UPDATE, held[0])  # more provenance
    assert run(_item("Emily", "Emily has three kids", ids[1], "family")) == (SUPERSEDE, held[0])
    assert run(_item("Emily", "Emily loves tennis", ids[2], "hobby", "preference"))[0] == ADD  # unrelated
    assert fid == held[0].id
    # two facts of one line ("I have 2 kids and I teach 3 classes") are siblings: neither replaces the other
    assert run(_item("Emily", "Emily has 3 kids at school", ids[0], "family"))[0] in (ADD, NOOP)
    # the same words dated another day are another occasion; the same day, a restatement
    went = replace(
        _item("Emily", "Last week Emily volunteered at the shelter", ids[3], "other", "event"), valid_from=T0
    )
    with m.batch():
        m.writing.insert_fact(pid, "event", "other", went.what, 0, [ids[3]], T0, T0, 0, perception.text([went.what])[0])
    held[:] = m.writing.held_facts(pid)
    again = _item("Emily", "Last week Emily volunteered at the homeless shelter", ids[4], "other", "event")
    assert run(replace(again, valid_from=T0 + 90 * DAY))[0] == ADD
    assert run(replace(again, valid_from=T0))[0] == UPDATE


def test_superseded_facts_keep_their_history(store, perception, cfg, llm_free_consolidator):
    m, pid, ids = store
    apply = llm_free_consolidator(m)
    for i, what, key, kind in [
        (0, "Emily has 2 kids", "family", "attribute"),
        (2, "Emily loves tennis", "hobby", "likes"),
        (4, "Emily works as a nurse", "job", "attribute"),
        (1, "Emily has three kids", "family", "attribute"),
        (3, "Emily stopped playing tennis", "hobby", "event"),
        (5, "Emily works as a teacher", "job", "attribute"),
        (5, "Emily works as a teacher", "job", "attribute"),  # the same line again: nothing new
    ]:
        line = m.writing.transcript(1)[i]
        with m.batch():
            apply._apply(Item("Emily", kind, key, what, line), perception.text([what])[0])
    held = m.derived.facts_listed(pid)
    history = m.derived.facts_listed(pid, history=True)
    assert sorted(f["value"] for f in held) == [
        "Emily has three kids",
        "Emily stopped playing tennis",
        "Emily works as a teacher",
    ]
    old = {f["value"]: f for f in history if f["valid_to"] is not None}
    assert set(old) == {"Emily has 2 kids", "Emily loves tennis", "Emily works as a nurse"}
    new_ids = {f["value"]: f["id"] for f in held}
    assert old["Emily works as a nurse"]["superseded_by"] == new_ids["Emily works as a teacher"]
    assert old["Emily works as a nurse"]["valid_to"] == pytest.approx(T0 + 5 * DAY)  # closed when the new began
    assert apply.report.actions[NOOP] == 1


@pytest.fixture
def llm_free_consolidator(cfg, perception):
    """A Consolidator whose merge/write path runs without the LLM (its model is not called by `_apply`)."""
    return lambda memory: Consolidator(memory, None, perception.text, cfg)  # type: ignore[arg-type]


def test_forgetting_keeps_the_strongest_and_reinforces_what_is_recalled(store, perception, cfg):
    m, pid, ids = store
    c = replace(cfg.memory, capacity=2)
    vec = perception.text(["x"])[0]
    with m.batch():
        facts = [
            m.writing.insert_fact(pid, "attribute", "other", f"fact {i}", 0, [ids[i]], None, T0, i, vec)
            for i in range(3)
        ]
    # an older fact decays; recalled, it beats newer ones
    assert forgetting.strength(c, 3, 0, [], 1.0) < forgetting.strength(c, 3, 2, [], 1.0)
    assert forgetting.strength(c, 3, 0, [3], 1.0) > forgetting.strength(c, 3, 2, [], 1.0)
    assert forgetting.fade(m, c, [pid]) == 1
    faded = {f["id"] for f in m.derived.facts_listed(pid) if f["faded"]}
    assert faded == {facts[0]}  # the oldest
    forgetting.recalled(m, replace(c, recall_k=1), [facts[0], facts[1]])  # the first reinforced, the next inhibited
    forgetting.fade(m, c, [pid])
    faded = {f["id"] for f in m.derived.facts_listed(pid) if f["faded"]}
    assert faded == {facts[1]}
    assert all(f["id"] != facts[1] for f in m.derived.find_facts(["fact"], 10))  # out of search, still listed


# ---- the real model on the demo's conversation


def _demo_memory(m: Memory, perception, script=SCRIPT) -> list[int]:
    ids = {n: m.people.add_person(n).id for n in ("Emily", "John", "David")}
    session = m.turns.start_session("demo", T0)
    vectors = perception.text([t for _, t in script])
    return [
        m.turns.add_utterance(NewUtterance(session, ids[n], t, T0 + 6 * i, T0 + 6 * i + 5, 1.0, "t", False, v))
        for i, ((n, t), v) in enumerate(zip(script, vectors, strict=True))
    ]


def test_the_demo_conversation_becomes_facts_relations_and_a_summary(cfg, perception, llm, tmp_path, capsys):
    with Memory.open(tmp_path / "d.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        uids = _demo_memory(m, perception)
        assert m.writing.enqueue_backlog() == 1
        report = Consolidator(m, llm, perception.text, cfg).run()
        assert report.sessions == 1 and report.failed == 0
        assert m.writing.queue_state(cfg.memory.attempts) == {"pending": 0, "failed": 0}
        assert m.writing.enqueue_backlog() == 0  # written once: not queued again
        facts = m.derived.facts_listed()
        said_by = {u.id: u.person for u in m.turns.all_utterances()}
        for f in facts:  # each fact cites a line of its person (or naming them)
            assert f["sources"] and all(s in uids for s in f["sources"])
            line = m.turns.utterances(f["sources"])[f["sources"][0]]
            assert said_by[line.id] == f["person"] or f["person"] in line.text
        text = " ".join(f["value"].lower() for f in facts)
        for expected in ("nurse", "history", "tennis", "peanuts", "paris"):
            assert expected in text
        relations = {(r["subject"], r["relation"], r["object"]) for r in m.derived.relations_listed()}
        assert {("John", "brother", "David"), ("Sarah", "wife", "John"), ("Maria", "colleague", "John")} <= relations
        (summary,) = m.rows("summaries")
        assert summary["kind"] == "session" and summary["text"]
        # the L1 profile shows them, with their ids
        from app.ask.context import render_profile

        profile, cited, _ = render_profile(m, m.people.person_id("David"), perception.text.count_tokens)
        assert "peanuts" in profile and any(c.kind == "fact" for c in cited)
        # the colleague question reaches Maria's mention through the graph
        from app.ask.recall import Retriever

        assert Retriever(m, perception.text, cfg.recall).graph_weights([], "does any of my colleagues love tennis")
        # deleting what it came from deletes what was derived
        before = len(facts)
        forget_person(m, "David", perception.text)
        assert len(m.derived.facts_listed()) < before
        assert all(f["person"] != "David" for f in m.derived.facts_listed(history=True))
        assert ("John", "brother", "David") not in {
            (r["subject"], r["relation"], r["object"]) for r in m.derived.relations_listed()
        }
        assert m.rows("summaries") == []  # it cited David's words
        forget_session(m, 1)
        assert m.derived.facts_listed(history=True) == [] and m.derived.relations_listed() == []


def _cli_memory(cfg, create: bool = False) -> Memory:
    """The memory the CLI opens: the data folder and key the `isolated` fixture set in the environment."""
    from app.paths import DB_NAME, data_dir
    from app.store.keys import resolve_secret

    path = data_dir(None) / DB_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    return Memory.open(path, resolve_secret(None, False, create=create), cfg.store, create=create)


def test_consolidate_survives_kill_9_without_losing_or_doubling(cfg, perception):
    """`consolidate` killed at random points, then run to the end: every session written exactly once."""
    need_llm()
    with _cli_memory(cfg, create=True) as m:
        ids = {n: m.people.add_person(n).id for n in ("Emily", "John", "David")}
        vectors = perception.text([t for _, t in SCRIPT])
        for s in range(3):  # three short sessions on one day
            session = m.turns.start_session("demo", T0 + s * 3600)
            for i in range(4):
                n, t = SCRIPT[4 * s + i]
                t0 = T0 + s * 3600 + 6 * i
                m.turns.add_utterance(NewUtterance(session, ids[n], t, t0, t0 + 5, 1.0, "t", False, vectors[4 * s + i]))
    env = {**os.environ, "APP_STORE_KDF_LOG2_N": "10"}  # the data folder and key of the `isolated` fixture
    command = [sys.executable, "-m", "app", "consolidate", "--json", "--set", "memory.attempts=20"]
    for delay in (4.0, 9.0, 14.0):  # in loading, in the middle of a generation, between jobs
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    with _cli_memory(cfg) as m:
        assert m.writing.queue_state(20) == {"pending": 0, "failed": 0}
        sessions = [r for r in m.rows("summaries") if r["kind"] == "session"]
        assert sorted(r["session_id"] for r in sessions) == [1, 2, 3]  # one summary each: none lost, none doubled
        facts = m.derived.facts_listed(history=True)
        keys = [(f["person"], f["value"]) for f in facts]
        assert len(keys) == len(set(keys))
        assert all(r["consolidated_at"] for r in m.rows("sessions"))


def test_facts_and_people_show_commands(cfg, perception, capsys, llm_free_consolidator):
    with _cli_memory(cfg, create=True) as m:
        uids = _demo_memory(m, perception, SCRIPT[:3])
        line = m.writing.transcript(1)[0]
        with m.batch():
            llm_free_consolidator(m)._apply(
                Item("Emily", "attribute", "job", "Emily works as a nurse", line),
                perception.text(["Emily works as a nurse"])[0],
            )
    assert main(["--set", "store.kdf_log2_n=10", "facts", "--person", "Emily"]) == 0
    out = capsys.readouterr().out
    assert "Emily: Emily works as a nurse" in out and f"from utterances {uids[0]}" in out
    assert main(["--set", "store.kdf_log2_n=10", "people", "show", "Emily"]) == 0
    assert "nurse" in capsys.readouterr().out
    assert main(["--set", "store.kdf_log2_n=10", "facts", "--person", "Nobody"]) != 0


def test_background_writer_stops_mid_job_and_a_later_one_finishes_it(cfg, perception, tmp_path):
    """The recorder's memory writer: stopped while the LLM generates, its job stays queued and nothing is
    half-written; the next writer finishes it once."""
    need_llm()
    from app.consolidation.background import BackgroundWriter

    with Memory.open(tmp_path / "b.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        _demo_memory(m, perception, SCRIPT[:4])
        m.writing.enqueue("session", 1)
        slow = replace(cfg, memory=replace(cfg.memory, extractor="llm"))  # a job long enough to stop inside
        writer = BackgroundWriter(m, perception.text, slow)
        deadline = time.monotonic() + 120
        while writer._llm is None and time.monotonic() < deadline:  # the model loads at the first job
            time.sleep(0.2)
        time.sleep(2.0)  # generating now
        writer.stop()
        assert m.writing.queue_state(cfg.memory.attempts)["pending"] == 1 and m.derived.facts_listed(history=True) == []
        events = []
        report = BackgroundWriter(m, perception.text, slow, lambda kind, ref: events.append((kind, ref))).finish()
        assert report.sessions == 1 and events[0] == ("session", 1)
        assert m.writing.queue_state(cfg.memory.attempts)["pending"] == 0 and m.derived.facts_listed()


def test_a_fact_the_salience_model_scores_low_is_not_written(cfg, perception, tmp_path):
    """What the rules keep but nobody would note ("That's a memory I will never forget") is left out by the
    shipped salience model; what happened is written; with `memory.salience` 0 both are. Its line stays."""
    said = [("Emily", "That's a memory I will never forget. I adopted a dog named Luna last week.")]
    for cut, expected in ((cfg.memory.salience, ["Emily adopted a dog named Luna last week"]), (0.0, None)):
        c = replace(cfg, memory=replace(cfg.memory, salience=cut))
        with Memory.open(tmp_path / f"s{cut}.db", Secret(b"k", "t"), c.store, create=True) as m:
            uids = _demo_memory(m, perception, said)
            m.writing.enqueue_backlog()
            consolidator = Consolidator(m, None, perception.text, c)  # type: ignore[arg-type]
            consolidator.run_job(m.writing.next_job(c.memory.attempts))
            values = [f["value"] for f in m.derived.facts_listed()]
            (summary,) = [x["text"] for x in m.derived.summaries_citing(uids)]
            assert "Luna" in summary
            if expected:  # the diary line says only what is written
                assert values == expected and consolidator.report.unsalient == 1 and "forget" not in summary
            else:
                assert len(values) == 2 and consolidator.report.unsalient == 0
            assert [u.id for u in m.turns.all_utterances()] == uids


def test_the_shipped_salience_weights_rank_what_happened_above_small_talk(perception, cfg):
    model = load_salience(cfg.models.text)
    facts = [
        "Melanie adopted a dog named Luna last week",
        "John lost his job as a banker",
        "David is allergic to peanuts",
    ]
    talk = ["Melanie will never forget it", "That's a memory Melanie will never forget", "Melanie totally agrees"]
    scores = model(perception.text(facts + talk))
    assert min(scores[:3]) > 0.3 and max(scores[3:]) < cfg.memory.salience
    assert load_salience("another-embedder") is None  # trained for MiniLM: under another embedder, no filter
