"""A question read once (app/ask/question.py) and the answers that live in no one line (app/ask/lifelog.py): who
was met and when, how often and how long, recaps from the conversations' summaries, what changed and what holds
now from the facts' history, what is planned, everyone a fact is said of, and relation paths — over a real
encrypted memory of one wearer's week (written directly: the consolidation is tested in test_consolidation.py),
answered through the real `Answerer` (the 0.5B model reads where a line must be read)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from app.ask import answer
from app.ask.answer import UNKNOWN_ASKER, Answerer
from app.ask.grounding import gather
from app.ask.kinds import normal
from app.ask.lifelog import topics
from app.ask.question import Kind, parse
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance

MONDAY = datetime(2026, 11, 2, tzinfo=timezone.utc).timestamp()  # Monday 2 November 2026
HOUR, DAY = 3600.0, 86400.0
ASKED = datetime(2026, 11, 7, 9, 0, tzinfo=timezone.utc)  # the Saturday after
WEEK = (  # (conversation, hours after Monday 00:00, [(speaker, what they said)])
    (
        "coffee",
        8.5,
        [
            ("Tom", "Morning! My brother Ben teaches chemistry at the college."),
            ("Nina", "Nice. I'll send you the slides by Thursday."),
            ("Tom", "Great. I play chess every Sunday at the club."),
        ],
    ),
    (
        "lunch",
        12.5,
        [
            ("Ana", "I live in Porto these days, near the river."),
            ("Nina", "Lovely."),
            ("Ana", "And I play chess too, on Wednesdays."),
        ],
    ),
    (
        "evening",
        2 * 24 + 18,
        [
            ("Ana", "Big news, I moved to Lisbon last week."),
            ("Tom", "The dentist is next Friday at three, I almost forgot."),
            ("Nina", "Good luck with that."),
        ],
    ),
)


@pytest.fixture
def week(cfg, perception, tmp_path):
    """Nina's week: three conversations, her facts, a relation, session summaries; Nina is the owner."""
    with Memory.open(tmp_path / "week.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        pid = {name: m.people.add_person(name).id for name in ("Nina", "Tom", "Ana", "Ben")}
        m.people.set_owner("Nina")
        ids: dict[tuple[str, int], int] = {}
        for name, hours, lines in WEEK:
            start = MONDAY + hours * HOUR
            session = m.turns.start_session(name, start)
            vectors = perception.text([text for _, text in lines])
            for i, ((who, text), vec) in enumerate(zip(lines, vectors, strict=True)):
                t = start + 8 * i
                ids[(name, i)] = m.turns.add_utterance(
                    NewUtterance(session, pid[who], text, t, t + 7, 1.0, "test", False, vec)
                )
            summary = f"{name}: " + "; ".join(text for _, text in lines)
            vector = perception.text([summary])[0]
            with m.batch():
                m.writing.write_summary(
                    "session",
                    start,
                    start + 24,
                    summary,
                    vector,
                    [ids[(name, i)] for i in range(3)],
                    session_id=session,
                )
        d = m.derived
        d.add_relation(pid["Ben"], "brother", pid["Tom"], [ids[("coffee", 0)]])
        d.add_fact(pid["Ben"], "attribute", "job", "Ben teaches chemistry at the college", [ids[("coffee", 0)]])
        d.add_fact(pid["Tom"], "habit", "hobby", "Tom plays chess every Sunday", [ids[("coffee", 2)]])
        d.add_fact(pid["Ana"], "habit", "hobby", "Ana plays chess on Wednesdays", [ids[("lunch", 2)]])
        porto = d.add_fact(pid["Ana"], "attribute", "home", "Ana lives in Porto", [ids[("lunch", 0)]])
        lisbon = d.add_fact(pid["Ana"], "attribute", "home", "Ana lives in Lisbon", [ids[("evening", 0)]])
        with m.batch():
            m.writing.supersede_fact(porto, lisbon, MONDAY + 2 * DAY)
        friday = MONDAY + 11 * DAY  # "next Friday", said on Wednesday 4 November: 13 November
        d.add_fact(
            pid["Tom"], "plan", "health", "Tom has the dentist next Friday at three", [ids[("evening", 1)]], friday
        )
        yield m, ids


def _talk(m, perception, name: str, start: float, said: list[tuple[str, str]]) -> None:
    """A conversation of its own added to the week at `start`: each line 8 s after the one before."""
    session = m.turns.start_session(name, start)
    for i, ((who, text), vec) in enumerate(zip(said, perception.text([t for _, t in said]), strict=True)):
        t = start + 8 * i
        m.turns.add_utterance(NewUtterance(session, m.people.person_id(who), text, t, t + 7, 1.0, "t", False, vec))


def _ask(llm, m, perception, cfg, question: str, asker: str | None = None):
    return Answerer(llm, m, perception.text, cfg)(question, ASKED, asker)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What did we talk about on Monday?", Kind.RECAP),
        ("Summarize my conversation with Tom", Kind.RECAP),
        ("What happened yesterday?", Kind.RECAP),
        ("Who did I meet on Wednesday?", Kind.MET),
        ("How many people did I talk to on Monday?", Kind.MET),
        ("When did I last talk to Ana?", Kind.LAST_MET),
        ("When did I first meet Tom?", Kind.LAST_MET),
        ("How many times did I see Tom this week?", Kind.HOW_OFTEN),
        ("How long did I talk to Ana on Monday?", Kind.HOW_LONG),
        ("How long was I on the phone with Tom?", Kind.HOW_LONG),
        ("Who did I see first on Monday?", Kind.MET),
        ("Who was the last person I talked to?", Kind.MET),
        ("What changed for Ana?", Kind.CHANGE),
        ("Did the dentist get moved?", Kind.CHANGE),
        ("Where does Ana live now?", Kind.STATE),
        ("What is coming up next week?", Kind.PLANS),
        ("What did I promise to do?", Kind.PLANS),
        ("Who plays chess?", Kind.WHO),
        ("What do I know about Ana?", Kind.ABOUT),
        ("Would Tom enjoy a chess book?", Kind.GUESS),
        ("How many brothers does Tom have?", Kind.COUNT),
        ("When is the dentist?", Kind.WHEN),
        ("Does Ana play chess?", Kind.YES_NO),
        ("What does Ben teach?", Kind.LOOKUP),
        ("Who was at the team lunch?", Kind.MET),
        ("Which people did I see on Monday?", Kind.MET),
        ("Who did I go hiking with on Saturday?", Kind.MET),
        ("Who called me on Wednesday evening?", Kind.MET),
        ("When did Tom and I last talk?", Kind.LAST_MET),
        ("Give me a summary of my call with Ana", Kind.RECAP),
        ("What topics came up at lunch on Monday?", Kind.RECAP),
        ("Tell me about my lunch with Ana", Kind.RECAP),
        ("What did we talk about at Ana's birthday party?", Kind.RECAP),
        ("What happened to Tom's job?", Kind.LOOKUP),  # asks about a thing, not a conversation
        ("What am I doing on Friday?", Kind.PLANS),
        ("Who was I with at the farmers' market?", Kind.MET),
        ("Who did I spend Monday the 2nd with?", Kind.MET),
        ("When did I last speak to Mum?", Kind.LAST_MET),
        ("How is Ben related to Tom?", Kind.RELATED),
        ("Who is Ben to me?", Kind.RELATED),
        ("How do I know Ana?", Kind.RELATED),
        ("Who is Ben?", Kind.RELATED),
        ("Who is Tom's brother?", Kind.WHO),
        ("What did Mum and I talk about on the phone?", Kind.RECAP),
        ("How many times did Ana and I talk this week?", Kind.HOW_OFTEN),
        ("Who was at the reading with me?", Kind.MET),
        ("Did I meet Ana before or after my lunch with Tom?", Kind.ORDER),
        ("Which of the people I know are runners?", Kind.WHO),
    ],
)
def test_one_module_decides_the_kind(week, question, kind):
    m, _ = week
    q = parse(question, ASKED, None, m)
    assert q.kind is kind, q.explain()
    assert q.asker == "Nina"  # the device's owner is who "I" is when nobody else is named as asking


def test_the_parse_reads_the_people_the_path_and_the_time(week):
    m, ids = week
    q = parse("What does Tom's brother teach?", ASKED, None, m)
    assert q.people == ("Ben",) and q.read_as == "What does Ben teach?"
    assert q.path[0].relation == "brother" and q.path[0].sources == (ids[("coffee", 0)],)
    assert "brother" not in q.explain()["topic"]
    for doing in ("What does Tom's brother do?", "what does Tom's brother do for a living"):  # his work, not his name
        q = parse(doing, ASKED, None, m)
        assert q.kind is Kind.LOOKUP and q.people == ("Ben",), q.explain()
    assert parse("Who is Tom's brother?", ASKED, None, m).kind is Kind.WHO
    q = parse("Who did I see on Wednesday?", ASKED, None, m)
    assert q.window is not None and q.window.start.day == 4  # the last Wednesday, for a meeting asked about
    q = parse("What is coming up next week?", ASKED, None, m)
    assert q.window is not None and q.window.start.day == 9  # next week is ahead
    assert parse("What does Ana's sister do?", ASKED, None, m).unreached == "I don't know of Ana's sister."
    q = parse("Who was I with at the farmers' market?", ASKED, None, m)
    assert q.setting == "at the farmers' market?" and q.topic == ()  # where, not what was said
    q = parse("What did Mum say?", ASKED, None, m)  # nobody is called Mum: the asker's mother
    assert q.unreached == "I don't know of your mother." and q.text == "What did Mum say?"


@pytest.mark.parametrize(
    "question,kind,ruled",
    [  # worded as no rule of question.py is: what the rules alone make of each
        ("Ana and I were on the phone ages on Wednesday, how long exactly?", Kind.HOW_LONG, Kind.LOOKUP),
        ("Give me everything on Tom.", Kind.ABOUT, Kind.LOOKUP),
        ("What have I got lined up for Friday?", Kind.PLANS, Kind.LIST),
        ("How many different times did Ana and I meet up this week?", Kind.HOW_OFTEN, Kind.COUNT),
    ],
)
def test_a_kind_asked_in_words_no_rule_knows_is_learnt_from_the_examples(week, question, kind, ruled, monkeypatch):
    """The kind the project's examples teach (app/ask/kinds.py) stands over the rules' where they miss it."""
    m, _ = week
    q = parse(question, ASKED, None, m)
    assert q.kind is kind and any("the examples" in n for n in q.notes), q.explain()
    monkeypatch.setattr("app.ask.question.LEARNT_AHEAD", float("inf"))  # the rules alone
    assert parse(question, ASKED, None, m).kind is ruled


def test_a_kind_the_examples_hardly_prefer_leaves_the_rules_kind(week, monkeypatch):
    m, _ = week
    monkeypatch.setattr("app.ask.question.learnt", lambda asked, names: ("recap", 0.1))
    q = parse("When did I last see Ana?", ASKED, None, m)
    assert q.kind is Kind.LAST_MET and "not the examples' recap (0.10 ahead)" in q.notes
    monkeypatch.setattr("app.ask.question.learnt", lambda asked, names: ("related", 2.0))
    assert parse("When did I last see Ana?", ASKED, None, m).kind is Kind.RELATED  # far ahead: the examples'
    assert parse("Who is Tom's brother?", ASKED, None, m).kind is Kind.WHO  # a path walked asks whom it reaches
    assert parse("What is the weather like?", ASKED, None, m).kind is Kind.LOOKUP  # related to nobody named
    monkeypatch.setattr("app.ask.question.learnt", lambda asked, names: ("how often", 2.0))
    assert parse("How often does Tom play chess?", ASKED, None, m).kind is Kind.LOOKUP  # not the wearer's meetings
    assert parse("How many chats with Ana this week?", ASKED, None, m).kind is Kind.HOW_OFTEN
    monkeypatch.setattr("app.ask.question.learnt", lambda asked, names: ("met", 2.0))
    assert parse("Who teaches at the college?", ASKED, None, m).kind is Kind.WHO  # no meeting in it
    assert parse("Who was at the party?", ASKED, None, m).kind is Kind.MET


def test_names_are_one_word_to_the_kinds_classifier():
    assert normal("When did I last see Farid on Tuesday?", ["Farid"]) == "when did i last see someone on tuesday?"
    assert normal("Did Lucy and Ben go to Paris?") == "did someone and someone go to someone?"
    assert normal("Ben's birthday?") == "someone's birthday?"  # a given name opening a fragment
    assert normal("Will Tom come?") == "will someone come?"  # an asking word that is also a name stays


def test_how_two_people_are_related_is_told_from_the_relations_cited(llm, week, perception, cfg):
    """ "How is Ben related to Tom?" and "who is Ben?" are answered from the stored relation, either way round,
    cited by the line that said it; someone with no relation stored to the one asking is read from the lines."""
    m, ids = week
    for question in ("How is Ben related to Tom?", "How is Tom related to Ben?", "Who is Ben?"):
        a = _ask(llm, m, perception, cfg, question)
        assert a.answer == "Ben is Tom's brother." and [c["id"] for c in a.citations] == [ids[("coffee", 0)]]
    a = _ask(llm, m, perception, cfg, "Who is Ana to me?")
    assert "brother" not in a.answer


def test_the_askers_friends_none_known_as_such_are_everyone_known_and_said_so(llm, week, perception, cfg):
    m, ids = week
    a = _ask(llm, m, perception, cfg, "Which of my friends play chess?")
    assert a.answer.startswith("I don't know of your friends; of everyone I know: ") and {"Tom", "Ana"} <= set(
        re.findall(r"\w+", a.answer)
    ), a
    assert ids[("coffee", 2)] in [c["id"] for c in a.citations]


def test_a_name_asked_with_another_spelling_is_read_as_the_memorys(week, llm, perception, cfg):
    """Whisper writes a name one way, the one asking another: "Anna" asked is the memory's Ana, "Benn" its Ben;
    the question is answered from their lines, and says the name as asked."""
    m, ids = week
    q = parse("Where does Anna live now?", ASKED, None, m)
    assert q.people == ("Ana",) and q.reading == "Where does Ana live now?" and q.text == "Where does Anna live now?"
    assert parse("What does Benn teach?", ASKED, None, m).people == ("Ben",)
    assert parse("Where does Ana live now?", ASKED, None, m).read_as == ""  # the memory's spelling: read as asked
    assert "Lisbon" in _ask(llm, m, perception, cfg, "Where does Anna live now?").answer


def test_a_relation_reaches_the_other_side_its_word_does_not_name(week, perception, cfg):
    """The sister asked about her brother, and a mother about her children, reach them: the relation said
    names only one side."""
    m, ids = week
    pid = {name: m.people.person_id(name) for name in ("Nina", "Tom", "Ana")}
    m.derived.add_relation(pid["Nina"], "sister", pid["Tom"], [ids[("coffee", 1)]])  # Nina is Tom's sister
    m.derived.add_relation(pid["Ana"], "mother", pid["Nina"], [ids[("lunch", 1)]])  # Ana is Nina's mother
    q = parse("What does my brother play?", ASKED, None, m)  # Nina asks: Tom, whose sister she is
    assert q.people == ("Tom",), q
    found = gather(m, perception.text, cfg.recall, q.text, ASKED, "Nina", 4)  # the lookup walks "my" alike
    assert list(found.joined) == ["Tom"] and found.joined["Tom"].id == ids[("coffee", 1)]
    assert parse("What do Ana's kids do?", ASKED, None, m).people == ("Nina",)
    assert parse("What did Mum say?", ASKED, None, m).people == ("Ana",)  # Nina's mother, said as "Mum"
    assert parse("Who is Tom's sister?", ASKED, None, m).people == ("Nina",)


def test_who_was_met_when_and_how_often_comes_from_the_conversations(llm, week, perception, cfg):
    m, ids = week
    met = _ask(llm, m, perception, cfg, "Who did I meet on Monday?")
    assert met.known and "Tom" in met.answer and "Ana" in met.answer and "Nina" not in met.answer, met
    assert {c["id"] for c in met.citations} == {ids[("coffee", 0)], ids[("lunch", 0)]}
    count = _ask(llm, m, perception, cfg, "How many people did I talk to on Monday?")
    assert count.answer.startswith("2 people"), count
    last = _ask(llm, m, perception, cfg, "When did I last talk to Ana?")
    assert "Wednesday 4 November 2026" in last.answer and last.citations[0]["id"] == ids[("evening", 0)], last
    first = _ask(llm, m, perception, cfg, "When did I first meet Ana?")
    assert "Monday 2 November 2026" in first.answer, first
    often = _ask(llm, m, perception, cfg, "How many times did I see Tom this week?")
    assert often.answer.startswith("Twice"), often
    assert len(often.citations) == 2
    long = _ask(llm, m, perception, cfg, "How long did I talk to Ana on Monday?")
    assert long.known and "minute" in long.answer, long
    # a conversation named by its time and setting, nobody asked about: that one, with whom it was
    meal = _ask(llm, m, perception, cfg, "How long was the lunch on Monday?")
    assert meal.known and "with Ana" in meal.answer and "Tom" not in meal.answer, meal
    assert [c["id"] for c in meal.citations] == [ids[("lunch", 0)]]
    opened = _ask(llm, m, perception, cfg, "Who did I see first on Monday?")
    assert opened.answer.startswith("Tom") and "Ana" not in opened.answer, opened
    closed = _ask(llm, m, perception, cfg, "Who was the last person I talked to on Monday?")
    assert closed.answer.startswith("Ana") and "Tom" not in closed.answer, closed
    # which of two people was met first or last: from when each spoke, not from what anyone said
    first = _ask(llm, m, perception, cfg, "Who did I see first on Monday, Ana or Tom?")
    assert first.answer.startswith("Tom") and len(first.citations) == 2, first
    last = _ask(llm, m, perception, cfg, "Who did I talk to last on Monday, Tom or Ana?")
    assert last.answer.startswith("Ana"), last
    lunch = _ask(llm, m, perception, cfg, "Who did I have lunch with on Monday?")
    assert lunch.answer.startswith("Ana"), lunch  # the conversation at midday, not the morning's coffee with Tom
    evening = _ask(llm, m, perception, cfg, "Who did I see on Wednesday evening?")
    assert "Ana" in evening.answer and "Tom" in evening.answer, evening
    nobody = _ask(llm, m, perception, cfg, "Who did I meet on Tuesday?")
    assert not nobody.known and nobody.why_unknown == "no conversation then"
    # a place no conversation speaks of, with no time or meal to go by: not the last day's people
    nowhere = _ask(llm, m, perception, cfg, "Who was I with at the farmers' market?")
    assert not nowhere.known and nowhere.why_unknown == "no conversation then", nowhere
    # "who did I meet" asks the device, which was there: no owner needed
    m.con.execute("UPDATE people SET owner = 0")
    assert _ask(llm, m, perception, cfg, "Who did I meet on Monday?").known
    assert _ask(llm, m, perception, cfg, "Where do I live?").answer == UNKNOWN_ASKER


def test_a_recap_is_told_from_the_conversations_summaries(llm, week, perception, cfg):
    m, ids = week
    day = _ask(llm, m, perception, cfg, "What did we talk about on Monday?")
    assert day.known and "coffee:" in day.answer and "lunch:" in day.answer and "evening:" not in day.answer, day
    assert {c["id"] for c in day.citations} >= {ids[("coffee", 0)], ids[("lunch", 0)]}
    with_tom = _ask(llm, m, perception, cfg, "Summarize my last conversation with Tom")
    assert with_tom.answer.startswith("evening:"), with_tom  # the last one, none named
    alone = _ask(llm, m, perception, cfg, "Sum up my conversation with Tom")
    assert alone.answer.startswith("coffee:"), alone  # the one with him alone, not the later one with Ana there too


def test_change_and_state_come_from_the_facts_history(llm, week, perception, cfg):
    m, ids = week
    changed = _ask(llm, m, perception, cfg, "What changed for Ana?")
    assert changed.known and "Lisbon" in changed.answer and "Porto" in changed.answer, changed
    assert changed.answer.index("Lisbon") < changed.answer.index("Porto")  # now first, then before
    assert {c["id"] for c in changed.citations} == {ids[("evening", 0)], ids[("lunch", 0)]}
    now = _ask(llm, m, perception, cfg, "Where does Ana live now?")
    assert now.known and "Porto" not in now.answer, now  # never the superseded value
    assert [c["id"] for c in now.citations] == [ids[("evening", 0)]]
    # a later fact of something else is no answer to where she lives: the facts asked of are those of her home
    ana = m.people.person_id("Ana")
    m.derived.add_fact(ana, "habit", "hobby", "Ana swims on Fridays", [ids[("evening", 2)]])
    again = _ask(llm, m, perception, cfg, "Where does Ana live now?")
    assert "swim" not in again.answer.lower() and [c["id"] for c in again.citations] == [ids[("evening", 0)]], again


def test_plans_are_the_dated_ones_ahead_and_promises_the_askers(llm, week, perception, cfg):
    m, ids = week
    ahead = _ask(llm, m, perception, cfg, "What is coming up next week?")
    assert ahead.known and "dentist" in ahead.answer and "Friday 13 November 2026" in ahead.answer, ahead
    assert [c["id"] for c in ahead.citations] == [ids[("evening", 1)]]
    promised = _ask(llm, m, perception, cfg, "What did I promise Tom?")
    assert promised.known and "slides" in promised.answer, promised
    assert [c["id"] for c in promised.citations] == [ids[("coffee", 1)]]
    assert not _ask(llm, m, perception, cfg, "What is planned for next month?").known


def test_a_plan_said_as_a_reply_is_told_with_the_question_it_answers(llm, week, perception, cfg):
    """ "Are you still doing the marathon?" - "The fifteenth." is a plan whose line says only when: the question it
    answers says what."""
    m, _ = week
    said = [
        ("Nina", "Are you still doing the marathon?"),
        ("Tom", "The fifteenth of November. Training every morning."),
    ]
    _talk(m, perception, "call", MONDAY + 4 * DAY + 17 * HOUR, said)
    ahead = _ask(llm, m, perception, cfg, "What is coming up?")
    assert 'Tom, asked "Are you still doing the marathon?": The fifteenth' in ahead.answer, ahead


def test_a_plan_asked_is_told_with_its_answer_and_a_bare_weekday_dates_it(llm, week, perception, cfg):
    """ "Do you still need someone on Tuesday?" - "Yes please, can you take my morning shift?": the question says
    when, its answer what. "We're moving the party to Sunday" names a day with no "on" before it."""
    m, _ = week
    said = [
        ("Nina", "Hey, do you still need someone on Tuesday?"),
        ("Ana", "Yes please. Can you take my morning shift at the library?"),
        ("Ana", "Oh, and we're moving the party to Sunday, same time."),
    ]
    _talk(m, perception, "desk", MONDAY + 4 * DAY + 17 * HOUR, said)  # Friday 6 November
    tuesday = _ask(llm, m, perception, cfg, "What am I doing on Tuesday?")
    assert "Tuesday 10 November 2026" in tuesday.answer and "morning shift" in tuesday.answer, tuesday
    sunday = _ask(llm, m, perception, cfg, "What's happening on Sunday?")
    assert "Sunday 8 November 2026" in sunday.answer and "party" in sunday.answer, sunday


def test_a_recap_names_who_was_talked_about(week):
    """Ben never spoke: that Tom talked about him is what the coffee was about, beside its distinctive words."""
    m, ids = week
    coffee = m.turns.utterances([ids[("coffee", 0)]])[ids[("coffee", 0)]].session_id
    said = topics(m, coffee)
    assert said[0] == "Ben" and "chemistry" in said, said


def test_who_lists_everyone_a_fact_says_it_of_and_paths_reach_people(llm, week, perception, cfg):
    m, ids = week
    chess = _ask(llm, m, perception, cfg, "Who plays chess?")
    assert chess.known and "Tom" in chess.answer and "Ana" in chess.answer, chess
    anyone = _ask(llm, m, perception, cfg, "Does anyone I know play chess?")
    assert anyone.answer.startswith("Yes") and "Ana" in anyone.answer, anyone
    brother = _ask(llm, m, perception, cfg, "Who is Tom's brother?")
    assert brother.answer == "Ben." and brother.citations[0]["id"] == ids[("coffee", 0)], brother
    teaches = _ask(llm, m, perception, cfg, "What does Tom's brother teach?")
    assert teaches.known and "chemistry" in teaches.answer.lower(), teaches
    assert ids[("coffee", 0)] in [c["id"] for c in teaches.citations]
    husband = _ask(llm, m, perception, cfg, "Who is Ana's husband?")
    assert not husband.known and husband.answer == "I don't know of Ana's husband.", husband
    nobody = _ask(llm, m, perception, cfg, "What does Ana's sister do?")
    assert not nobody.known and nobody.answer == "I don't know of Ana's sister."
    about = _ask(llm, m, perception, cfg, "What do I know about Ana?")
    assert about.known and "Lisbon" in about.answer and "Porto" not in about.answer, about


def test_enroll_me_makes_the_owner(cfg, tmp_path):
    with Memory.open(tmp_path / "o.db", Secret(b"k", "t"), cfg.store, create=True) as m:
        assert m.people.owner() is None
        m.people.add_person("Nina")
        m.people.add_person("Tom")
        m.people.set_owner("Nina")
        m.people.set_owner("Tom")  # one owner per device
        assert m.people.owner() == "Tom"


def test_state_never_answers_with_a_fact_that_only_its_line_ties_to_the_question(week):
    """A state question whose latest fact holds the topic only through its line ("club": "Great. I play chess
    every Sunday at the club." written as "Tom owes Nina a coffee") answers from the lines, not with that fact,
    when reading the line gave nothing. The reading is a double here so that it fails on purpose; the model's
    reading is exercised by the tests above."""
    from app.ask.answer import Answer
    from app.ask.lifelog import Asked, state

    m, ids = week
    tom = m.people.person_id("Tom")
    m.derived.add_fact(tom, "event", "other", "Tom owes Nina a coffee", [ids[("coffee", 2)]])
    unread = lambda question, lines, out: ("", [])  # noqa: E731  the reading of the line fails
    asked = Asked(m, ASKED, lambda i: [{"id": x} for x in i], unread, lambda i: [object()])
    q = parse("Where is Tom's club now?", ASKED, None, m)
    assert q.kind is Kind.STATE
    out = Answer(q.text, "", False)
    assert state(asked, q, out) is False and not out.known  # the lookup reads the lines instead
    club = parse("Where does Tom play chess now?", ASKED, None, m)  # the fact's own words hold it
    assert state(asked, club, out) is True and out.answer == "Tom plays chess every Sunday."


def test_a_change_no_fact_holds_is_read_from_the_lines_in_the_order_said(llm, week, perception, cfg):
    """No fact was superseded: what changed is read from the lines in the order they were said, as what it was
    before and what it is now (JSON, so that a small model gives both), each part held by a line of its own and the
    later part by the later line."""
    m, ids = week
    tom = m.people.person_id("Tom")
    said = [("The book club meets on the ninth of November.", 8.0), ("Ugh, the book club moved to the twelfth.", 57.0)]
    for i, (text, hours) in enumerate(said):
        session = m.turns.start_session(f"club{i}", MONDAY - 7 * DAY + hours * HOUR)
        t = MONDAY - 7 * DAY + hours * HOUR
        uid = m.turns.add_utterance(
            NewUtterance(session, tom, text, t, t + 5, 1.0, "test", False, perception.text([text])[0])
        )
        ids[("club", i)] = uid
    changed = _ask(llm, m, perception, cfg, "Has Tom's book club changed?")
    assert changed.kind == "change"
    assert changed.known and changed.answer.startswith("Now "), changed
    assert "twelfth" in changed.answer.lower() and "ninth" in changed.answer.lower(), changed
    assert {c["id"] for c in changed.citations} == {ids[("club", 0)], ids[("club", 1)]}


def test_who_the_asker_knows_never_names_the_asker(llm, week, perception, cfg):
    """ "Who do I know that plays chess?" asks about everyone but the one asking, even when they play too; an answer
    that only names someone the question is about is none ("what does Ilse's husband do?" → "Bruno")."""
    m, ids = week
    _talk(m, perception, "club", MONDAY + 4 * DAY, [("Nina", "I joined the chess club on Fridays."), ("Tom", "Nice!")])
    nina = m.people.person_id("Nina")
    m.derived.add_fact(nina, "habit", "hobby", "Nina plays chess on Fridays", [max(ids.values()) + 1])
    a = _ask(llm, m, perception, cfg, "Who do I know that plays chess?")
    assert {"Tom", "Ana"} <= set(re.findall(r"\w+", a.answer)) and "Nina" not in a.answer, a
    q = parse("Which restaurant did I book?", ASKED, None, m)
    assert answer._only_asked_about("Nina.", q) and not answer._only_asked_about("The Olive Tree", q)
    husband = parse("What does Ana's husband do?", ASKED, None, m)
    assert answer._only_asked_about("Bruno", husband) and not answer._only_asked_about("Dentist", husband)
    assert not answer._only_asked_about("Bruno", parse("What's Ana's husband called?", ASKED, None, m))
    assert not answer._only_asked_about("Tom", parse("Who plays chess?", ASKED, None, m))


def test_who_is_found_by_a_fact_that_means_what_is_asked(llm, week, perception, cfg):
    """ "Who goes climbing?" is held by "Ana is a climber": the fact's word means the one asked (the text embedder's
    similarity, as the answer check's), where no stem of it is said; "people" only says who is asked for."""
    m, ids = week
    ana = m.people.person_id("Ana")
    m.derived.add_fact(ana, "attribute", "hobby", "Ana is a climber", [ids[("lunch", 0)]])
    climbing = _ask(llm, m, perception, cfg, "Who goes climbing?")
    assert climbing.known and climbing.answer == "Ana.", climbing
    assert parse("Which of the people I know climb?", ASKED, None, m).topic == ("climb",)


def test_a_line_is_about_whom_its_facts_are_about(llm, week, perception, cfg):
    """ "He's a sound engineer", said by Ana of her cousin Teo, named the line before: the fact read from it is
    Teo's, so the line answers what Teo does (it names no Teo) and not what Ana does (she only said it)."""
    m, ids = week
    _talk(
        m,
        perception,
        "cafe",
        MONDAY + 4 * DAY + 10 * HOUR,
        [
            ("Ana", "My cousin Teo just moved here from Lisbon."),
            ("Ana", "He's a sound engineer, he's looking for theatre work."),
        ],
    )
    teo = m.people.add_person("Teo").id
    line = max(ids.values()) + 2
    assert m.turns.utterances([line])[line].text.startswith("He's a sound engineer")
    m.derived.add_fact(teo, "attribute", "job", "Teo is a sound engineer", [line])
    assert m.derived.people_citing([line]) == {line: {"Teo"}}
    teos = _ask(llm, m, perception, cfg, "What kind of work does Teo do?")
    assert teos.known and "sound" in teos.answer.lower() and line in [c["id"] for c in teos.citations], teos
    anas = _ask(llm, m, perception, cfg, "What kind of work does Ana do?")
    assert "sound" not in anas.answer.lower(), anas


def test_an_occasion_asked_about_is_the_conversation_held_on_its_day(llm, week, perception, cfg):
    """ "How was Tom's barbecue?" recaps the conversation held on the day Tom's barbecue was planned for, though
    none of its lines says "barbecue", not the one where it was planned."""
    m, ids = week
    saturday = MONDAY + 5 * DAY
    _talk(m, perception, "plan", MONDAY + 3 * DAY, [("Tom", "I'm doing a barbecue on Saturday, come!")])
    _talk(m, perception, "garden", saturday + 8 * HOUR, [("Tom", "Grab a plate, the sausages are ready.")])
    tom = m.people.person_id("Tom")
    m.derived.add_fact(tom, "plan", "event", "Tom is doing a barbecue on Saturday", [max(ids.values()) + 1], saturday)
    q = parse("How was Tom's barbecue?", ASKED, None, m)
    assert q.kind is Kind.RECAP, q.explain()
    a = _ask(llm, m, perception, cfg, "How was Tom's barbecue?")
    assert a.known and "Saturday 7 November" in a.answer and "sausages" in a.answer.lower(), a
