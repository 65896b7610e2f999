"""Time expressions in questions become event-time windows relative to a fixed "now"."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from app.text.timeexpr import day_words, plan_window, time_window

NOW = datetime(2023, 5, 17, 15, 0, tzinfo=timezone.utc)  # a Wednesday afternoon


def day(y: int, m: int, d: int, h: int = 0) -> datetime:
    return datetime(y, m, d, h, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("question", "start", "end", "rest"),
    [
        ("What did Caroline do last Tuesday?", day(2023, 5, 16), day(2023, 5, 17), "What did Caroline do?"),
        ("what did we talk about this past Wednesday", day(2023, 5, 10), day(2023, 5, 11), "what did we talk about"),
        ("Where did we go in May 2023?", day(2023, 5, 1), day(2023, 6, 1), "Where did we go?"),
        ("who came over in June", day(2022, 6, 1), day(2022, 7, 1), "who came over"),  # the latest June
        ("what did John say on 8 May 2023", day(2023, 5, 8), day(2023, 5, 9), "what did John say"),
        ("the party on May 20th", day(2023, 5, 20), day(2023, 5, 21), "the party"),
        ("who did I meet yesterday evening", day(2023, 5, 16, 17), day(2023, 5, 16, 22), "who did I meet"),
        ("what did we eat last night", day(2023, 5, 16, 18), day(2023, 5, 17, 6), "what did we eat"),
        ("who called this morning", day(2023, 5, 17, 5), day(2023, 5, 17, 12), "who called"),
        ("anything new last week?", day(2023, 5, 8), day(2023, 5, 15), "anything new?"),
        ("plans from last month's trip", day(2023, 4, 1), day(2023, 5, 1), "plans from the trip"),
        ("what did I do in 2022", day(2022, 1, 1), day(2023, 1, 1), "what did I do"),
        ("where was Sam last weekend", day(2023, 5, 13), day(2023, 5, 15), "where was Sam"),
        ("what did Jon do this past weekend?", day(2023, 5, 13), day(2023, 5, 15), "what did Jon do?"),
        ("who called the day before yesterday", day(2023, 5, 15), day(2023, 5, 16), "who called"),
        ("what did we do last summer", day(2022, 6, 1), day(2022, 9, 1), "what did we do"),  # the latest one over
        ("who skied last winter", day(2022, 12, 1), day(2023, 3, 1), "who skied"),
        ("the trip in the summer of 2021", day(2021, 6, 1), day(2021, 9, 1), "the trip"),
    ],
)
def test_windows(question, start, end, rest):
    window, remaining = time_window(question, NOW)
    assert (window.start, window.end, remaining) == (start, end, rest)


def test_ago_gets_a_margin_around_its_point():
    window, rest = time_window("what happened two weeks ago", NOW)
    assert window.start <= day(2023, 5, 3) < window.end and window.end - window.start == timedelta(days=7)
    window, _ = time_window("what did we discuss 3 days ago", NOW)
    assert (window.start, window.end) == (day(2023, 5, 14), day(2023, 5, 15))
    assert rest == "what happened"
    window, _ = time_window("A few days ago I went to the park. What did I see?", NOW)
    assert (window.start, window.end) == (day(2023, 5, 11), day(2023, 5, 17))  # 6 days ago to yesterday


@pytest.mark.parametrize(
    "question",
    [
        "When did Melanie paint a sunrise?",
        "I may go to the gym",
        "who loves tennis",
        "May I ask?",
        "does anyone play tennis on Saturday",  # a habit, not a date
    ],
)
def test_no_time_expression(question):
    assert time_window(question, NOW) is None


def test_windows_follow_the_question_time_zone():
    tokyo = timezone(timedelta(hours=9))
    window, _ = time_window("who called yesterday", datetime(2023, 5, 17, 1, 0, tzinfo=tokyo))
    assert window.start == datetime(2023, 5, 16, tzinfo=tokyo) and window.start.utcoffset() == timedelta(hours=9)


@pytest.mark.parametrize(
    ("statement", "rest"),
    [
        ("Can't wait for tomorrow's grand opening", "Can't wait for the grand opening"),
        ("Tomorrow's gonna be an awesome night", "It's gonna be an awesome night"),
        ("Tomorrow's going to be an awesome night", "It's going to be an awesome night"),
        ("Tomorrow's opening will be so much fun", "The opening will be so much fun"),
        ("I fly to Paris tomorrow", "I fly to Paris"),
        ("Tomorrow's all-hands meeting is at 10", "The all-hands meeting is at 10"),
        ("I can't make Friday's meeting", "I can't make the meeting"),
        ("I'll see Jon on Saturday's game", "I'll see Jon on the game"),
    ],
)
def test_a_statement_without_its_time_words_keeps_its_grammar(statement, rest):
    assert plan_window(statement, NOW)[1] == rest


def test_a_weekday_s_thing_is_on_that_day():
    """ "Friday's meeting" is on the coming Friday, or, told as what happened, the last one."""
    ahead, _ = plan_window("I can't make Friday's meeting", NOW)
    assert ahead.start == datetime(2023, 5, 19, tzinfo=timezone.utc)
    before, _ = plan_window("I missed Friday's meeting", NOW, past=True)
    assert before.start == datetime(2023, 5, 12, tzinfo=timezone.utc)


def test_weekends_and_seasons_ahead():
    assert plan_window("We hike next weekend", NOW)[0].start == day(2023, 5, 27)  # the weekend of next week
    assert plan_window("We hike this weekend", NOW)[0].start == day(2023, 5, 20)
    assert plan_window("We fly the day after tomorrow", NOW)[0].start == day(2023, 5, 19)
    assert plan_window("We hiked this weekend", NOW, past=True)[0].start == day(2023, 5, 13)  # told on a Wednesday
    assert plan_window("I graduated in March", NOW, past=True)[0].start == day(2023, 3, 1)  # not next March
    summer = plan_window("I fly to Japan next summer", NOW)[0]
    assert (summer.start, summer.end) == (day(2023, 6, 1), day(2023, 9, 1))


def test_windows_said_as_words():
    naive = datetime  # day_words reads naive UTC days
    assert day_words(naive(2023, 5, 18), naive(2023, 5, 19)) == "Thursday 18 May 2023"
    assert day_words(naive(2023, 4, 1), naive(2023, 5, 1)) == "April 2023"
    assert day_words(naive(2022, 6, 1), naive(2022, 9, 1)) == "summer 2022"  # "last summer", as people date it
    assert day_words(naive(2022, 12, 1), naive(2023, 3, 1)) == "winter 2022 to 2023"
    assert day_words(naive(2022, 1, 1), naive(2023, 1, 1)) == "2022"
    assert day_words(naive(2022, 6, 2), naive(2022, 9, 1)) == "2 June to 31 August 2022"  # not a season
    assert day_words(naive(2023, 10, 14), naive(2023, 10, 16)) == "14 October to 15 October 2023"


def test_a_day_of_the_month_said_alone():
    """ "on the 20th", no month said: the last one for what happened (a question, or `past`), the next for a plan;
    a month without that day is passed over."""
    assert time_window("What did Jolene buy on the 20th?", NOW)[0].start == day(2023, 4, 20)
    assert plan_window("The party is on the 20th", NOW)[0].start == day(2023, 5, 20)
    assert plan_window("I bought it on the 20th", NOW, past=True)[0].start == day(2023, 4, 20)
    assert time_window("We met on the 31st", NOW)[0].start == day(2023, 3, 31)  # April has 30 days
    assert time_window("We met on the 3rd of May", NOW)[0].start == day(2023, 5, 3)  # its month said
    # with its weekday said too: the day of the month decides ("Wednesday the 16th" of last month)
    found = time_window("Who did I see on Wednesday the 19th?", NOW)
    assert found[0].start == day(2023, 4, 19) and found[1] == "Who did I see?"
    assert time_window("Who did I spend Saturday the 1st with?", NOW)[0].start == day(2023, 5, 1)


def test_a_day_of_the_month_said_in_words():
    """People say "the ninth of October" and "Saturday the third": the day, not the month alone (and not the
    month of last year), and "the first may be hard" names no day."""
    assert plan_window("The deadline is now the ninth of October.", NOW)[0].start == day(2023, 10, 9)
    assert plan_window("It's October the twenty-first.", NOW)[0].start == day(2023, 10, 21)
    assert plan_window("See you on Saturday the third", NOW)[0].start == day(2023, 6, 3)  # its weekday said too
    assert plan_window("I sold it on Saturday the thirtieth", NOW, past=True)[0].start == day(2023, 4, 30)
    assert time_window("What happened on the second of May?", NOW)[0].start == day(2023, 5, 2)
    assert plan_window("The first may be hard", NOW) is None
    # a month said alone in what is not told as past is the next one: "the last week of April now", in May
    assert plan_window("The fair is the last week of April now.", NOW)[0].start == day(2024, 4, 1)
    assert plan_window("We went there in April.", NOW, past=True)[0].start == day(2023, 4, 1)
    assert plan_window("I lost my job last month and I am planning a trip", NOW)[0].start == day(2023, 4, 1)


def test_weekdays_as_chat_shortens_them():
    assert time_window("Last Fri I took my kids to a pottery workshop", NOW)[0].start == day(2023, 5, 12)
    assert time_window("last tues. we went out", NOW)[0].start == day(2023, 5, 16)
    assert plan_window("See you next Fri", NOW)[0].start == day(2023, 5, 26)  # said on a Wednesday: next week's
    assert plan_window("I sat on the sofa in the sun", NOW, past=True) is None  # "sat" and "sun" are words


def test_a_weekday_said_bare_is_the_next_one_or_in_the_past_the_last():
    tuesday = datetime(2026, 5, 26, 18, tzinfo=timezone.utc)
    for text, day in [
        ("So we're moving the party to Sunday, same time.", 31),
        ("See you Sunday!", 31),
        ("They can't come Thursday, now it's Saturday.", 30),  # the day it is not is not when
    ]:
        window, _ = plan_window(text, tuesday)
        assert window.start.day == day, text
    window, rest = plan_window("I saw him Sunday at the market.", tuesday, past=True)
    assert window.start.day == 24 and "Sunday" not in rest
    assert plan_window("The author can't make Thursday.", tuesday) is None
    for habit in ("We play every Sunday.", "On Sundays we rest.", "Last Sunday was fun."):
        found = plan_window(habit, tuesday)
        assert found is None or found[0].start.day != 31, habit
