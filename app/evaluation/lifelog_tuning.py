"""Lifelog tuning set: three days (10, 11 and 13 March 2026) of everyday conversations recorded by the glasses of
Marta (an office worker: coffee and lunch with her colleague Oskar and her boss Felix, two calls with her sister
Lena, a chat with her neighbour Hugo, a cafe with her friend Bea), all recorded into one memory, and 50 questions
the wearer asks about them the morning after the last one, 11 of them unanswerable from what was said. Written
blind on 2026-12-06 by a helper session that did not read the answering code; meant for tuning, unlike the
held-out set in `lifelog_held_out.py`, whose scenes share no people or topics with these.
"""

from __future__ import annotations

from app.evaluation.gold import KINDS, LifeQuestion, Scene  # noqa: F401

WEARER = "Marta"
MEMORY = "lifelog_tuning"

_LINES = {
    # Tuesday 10 March 2026, morning coffee at the office
    "office_coffee": (
        "2026-03-10T08:40:00+00:00",
        (
            ("Oskar", "Morning, Marta. You look tired."),
            ("Marta", "Late night. My sister Lena's new puppy kept sending me videos. Well, Lena did."),
            ("Oskar", "Ha. Hey, did Felix say anything about the quarterly report?"),
            ("Marta", "Only that it's due on the twentieth."),
            ("Oskar", "Great. That's the week Ines and I go to Krakow."),
            ("Marta", "Oh right, your anniversary trip."),
            ("Oskar", "Yeah, ten years married. She finally got the days off from the hospital."),
            ("Marta", "Is she still on nights at St. Mary's?"),
            ("Oskar", "Still nights, still a nurse, still exhausted."),
            ("Marta", "Mm. I'll send you the budget numbers by Thursday, so you're not stuck before you go."),
            ("Oskar", "Deal. Badminton on Thursday, by the way? Felix is in."),
            ("Marta", "Not this week. Ask me next week."),
        ),
    ),
    # Tuesday 10 March 2026, evening phone call with her sister
    "call_lena": (
        "2026-03-10T19:15:00+00:00",
        (
            ("Lena", "Did you see the video of Biscuit with the sock?"),
            ("Marta", "I did! How old is he now?"),
            ("Lena", "Eleven weeks. Beagles are chaos, nobody warned me."),
            ("Marta", "How are the kids taking it?"),
            ("Lena", "Pia's in love. Jonas pretends he's not, but he sleeps next to the crate."),
            ("Marta", "Cute. And Tomas?"),
            ("Lena", "Tomas is working doubles at the Aurora. The hotel's got a wedding every weekend."),
            ("Marta", "Chef life."),
            ("Lena", "Listen, lunch at Dad's on Sunday. One o'clock, okay?"),
            ("Marta", "Sunday the fifteenth? Yes. I'll bring dessert."),
            ("Lena", "Bring the lemon tart. Dad's been asking."),
            ("Marta", "Lemon tart it is."),
        ),
    ),
    # Wednesday 11 March 2026, team lunch
    "team_lunch": (
        "2026-03-11T12:30:00+00:00",
        (
            ("Felix", "So, good news for once. The client pushed the quarterly report back a week."),
            ("Oskar", "To the twenty-seventh?"),
            ("Felix", "The twenty-seventh. So nobody has to cancel holidays."),
            (
                "Oskar",
                "Actually, we moved Krakow anyway. Ines couldn't swap her shifts, so it's the second week of April now.",
            ),
            ("Marta", "Oh no. Still, April in Krakow is nicer."),
            ("Felix", "Badminton tomorrow, you two?"),
            ("Oskar", "I'm in. Marta's skipping again."),
            ("Marta", "I'm not skipping, I've got my salsa class."),
            ("Felix", "Salsa! Since when?"),
            ("Marta", "Since last month. My friend Bea dragged me along."),
            ("Felix", "My daughter Clara would approve. She's studying music in Vienna, and all she does is dance."),
            ("Oskar", "Your soup's gone cold, by the way."),
        ),
    ),
    # Wednesday 11 March 2026, evening, in the stairwell with the neighbour
    "stairwell_hugo": (
        "2026-03-11T18:50:00+00:00",
        (
            ("Hugo", "Evening! Did you see what's parked outside?"),
            ("Marta", "The blue one? Is that yours?"),
            ("Hugo", "All mine. Electric, finally. I sold the old Golf on Saturday."),
            ("Marta", "Wow. What is it?"),
            ("Hugo", "A Renault Zoe. It charges overnight in the garage."),
            ("Marta", "Very green of you."),
            ("Hugo", "My son nagged me for a year. Listen, can I ask a favour?"),
            ("Marta", "Sure."),
            ("Hugo", "I've got a parcel coming on Monday and I'll be in Lisbon. Could you take it in?"),
            ("Marta", "Monday's fine, I'm working from home."),
            ("Hugo", "You're a star. It's a new lens for my camera, so handle with care."),
            ("Marta", "I'll guard it with my life."),
        ),
    ),
    # Friday 13 March 2026, after work at a cafe
    "cafe_bea": (
        "2026-03-13T17:45:00+00:00",
        (
            ("Bea", "Sorry, sorry, the bookshop closed late."),
            ("Marta", "The bookshop? What happened to the bakery?"),
            ("Bea", "I quit! Last week. The four a.m. starts were killing me."),
            ("Marta", "Good for you. So you sell books now?"),
            ("Bea", "At Paper Lantern, on Quay Street. I get a discount, so ask me for anything."),
            ("Marta", "Dangerous. What are you having?"),
            ("Bea", "The lentil soup. I've gone vegetarian, did I tell you?"),
            ("Marta", "You? The steak queen?"),
            ("Bea", "Since January. I feel great, honestly."),
            ("Marta", "Fair enough. Oh, Lena sent a video of Mila crawling today."),
            ("Bea", "Her youngest? Already crawling!"),
            ("Marta", "Eight months. With three kids and a puppy she's lost her mind."),
            ("Bea", "Flea market tomorrow at ten? Still on?"),
            ("Marta", "Still on. I'll meet you at the gate."),
        ),
    ),
    # Friday 13 March 2026, evening phone call with Lena (and Tomas on speaker)
    "call_lena_2": (
        "2026-03-13T20:30:00+00:00",
        (
            ("Lena", "Hey, quick one. Sunday's moved."),
            ("Marta", "Moved where?"),
            ("Lena", "Dad's singing with his choir in the morning, so lunch is at three now, not one."),
            ("Marta", "Three o'clock, same day?"),
            ("Lena", "Same day, Sunday. Tomas is here, he wants to say something."),
            ("Tomas", "Hi Marta. Don't bring the tart, I'm making one. Chef's orders."),
            ("Marta", "Ha, fine, I'll bring wine then."),
            ("Tomas", "Red, please."),
            ("Lena", "Also Biscuit ate Pia's school shoe."),
            ("Marta", "Of course he did."),
            ("Lena", "Okay, see you Sunday!"),
        ),
    ),
}

SCENES: dict[str, Scene] = {name: Scene(name, lines, start, MEMORY) for name, (start, lines) in _LINES.items()}

ASKED_AT = "2026-03-14T08:30:00+00:00"  # Saturday morning, after the last scene

_TWO = ("2", "two", "twice")
_THREE = ("3", "three")
_SHORT = (
    "1 minute",
    "one minute",
    "a minute",
    "2 minutes",
    "two minutes",
    "under 2",
    "under two",
    "less than 2",
    "less than two",
    "90 seconds",
    "88 seconds",
    "minute and a half",
)

QUESTIONS: tuple[LifeQuestion, ...] = (
    # recap
    LifeQuestion(
        "what did Oskar and I chat about over coffee on Tuesday?",
        "recap",
        ("report", "krakow", "anniversary", "badminton", "budget"),
        2,
        (("office_coffee", 2), ("office_coffee", 4), ("office_coffee", 9)),
    ),
    LifeQuestion(
        "what came up at the team lunch on Wednesday?",
        "recap",
        ("report", "krakow", "badminton", "salsa", "clara"),
        2,
        (("team_lunch", 0), ("team_lunch", 3), ("team_lunch", 10)),
    ),
    LifeQuestion(
        "what did I get up to yesterday?",
        "recap",
        ("bea", "bookshop", "vegetarian", "flea market", "lunch", "wine"),
        2,
        (("cafe_bea", 0), ("cafe_bea", 6), ("call_lena_2", 2)),
    ),
    # met
    LifeQuestion(
        "who did I see on Wednesday?", "met", ("felix", "oskar", "hugo"), 3, (("team_lunch", 0), ("stairwell_hugo", 0))
    ),
    LifeQuestion(
        "who did I talk to on the 10th?", "met", ("oskar", "lena"), 2, (("office_coffee", 0), ("call_lena", 0))
    ),
    # last_met
    LifeQuestion(
        "when did I last speak to my sister?",
        "last_met",
        ("yesterday", "13", "thirteenth", "friday"),
        1,
        (("call_lena_2", 0),),
    ),
    LifeQuestion(
        "when was the last time I saw Oskar?", "last_met", ("11", "eleventh", "wednesday"), 1, (("team_lunch", 1),)
    ),
    # how_often
    LifeQuestion(
        "how many times did I talk to Lena this week?", "how_often", _TWO, 1, (("call_lena", 0), ("call_lena_2", 0))
    ),
    LifeQuestion(
        "how often did I see Oskar this week?", "how_often", _TWO, 1, (("office_coffee", 0), ("team_lunch", 1))
    ),
    # how_long
    LifeQuestion("how long was my coffee with Oskar on Tuesday?", "how_long", _SHORT, 1, (("office_coffee", 0),)),
    # list
    LifeQuestion(
        "who plays badminton?",
        "list",
        ("oskar", "felix"),
        2,
        (("office_coffee", 10), ("team_lunch", 5), ("team_lunch", 6)),
    ),
    LifeQuestion(
        "what are my sister's kids called?",
        "list",
        ("pia", "jonas", "mila"),
        3,
        (("call_lena", 4), ("cafe_bea", 9), ("cafe_bea", 10)),
    ),
    # count
    LifeQuestion("how many kids has Lena got?", "count", _THREE, 1, (("cafe_bea", 11),)),
    LifeQuestion(
        "how many people did I talk to on Wednesday?", "count", _THREE, 1, (("team_lunch", 0), ("stairwell_hugo", 0))
    ),
    # state
    LifeQuestion(
        "where's Bea working these days?",
        "state",
        ("bookshop", "paper lantern", "books"),
        1,
        (("cafe_bea", 0), ("cafe_bea", 4)),
    ),
    LifeQuestion(
        "what's Hugo driving now?",
        "state",
        ("zoe", "renault", "electric"),
        1,
        (("stairwell_hugo", 2), ("stairwell_hugo", 4)),
    ),
    LifeQuestion(
        "what time is lunch at Dad's tomorrow?",
        "state",
        ("three", "3 pm", "3pm", "3 o"),
        1,
        (("call_lena_2", 2), ("call_lena_2", 3)),
    ),
    LifeQuestion(
        "when's the quarterly report due now?",
        "state",
        ("27", "twenty seventh", "twentyseventh"),
        1,
        (("team_lunch", 0), ("team_lunch", 2)),
    ),
    # change
    LifeQuestion(
        "did Oskar's Krakow trip get moved?", "change", ("march", "april"), 2, (("office_coffee", 4), ("team_lunch", 3))
    ),
    LifeQuestion(
        "what's changed with Bea's job?", "change", ("bakery", "bookshop"), 2, (("cafe_bea", 1), ("cafe_bea", 2))
    ),
    LifeQuestion(
        "what did Hugo swap his car for?", "change", ("golf", "zoe"), 2, (("stairwell_hugo", 2), ("stairwell_hugo", 4))
    ),
    LifeQuestion(
        "has Sunday lunch at Dad's changed?",
        "change",
        ("one o", "1 pm", "1pm", "three", "3 pm", "3pm"),
        2,
        (("call_lena", 8), ("call_lena_2", 2)),
    ),
    # relation
    LifeQuestion("where does Oskar's wife work?", "relation", ("mary", "hospital"), 1, (("office_coffee", 7),)),
    LifeQuestion(
        "what does my sister's husband do?", "relation", ("chef", "cook"), 1, (("call_lena", 6), ("call_lena", 7))
    ),
    LifeQuestion("what is my boss's daughter studying?", "relation", ("music",), 1, (("team_lunch", 10),)),
    # plans
    LifeQuestion(
        "what did I promise Oskar?",
        "plans",
        ("budget",),
        1,
        (("office_coffee", 9),),
        asked_at="2026-03-10T10:00:00+00:00",
    ),
    LifeQuestion("what am I doing for Hugo on Monday?", "plans", ("parcel", "package"), 1, (("stairwell_hugo", 8),)),
    LifeQuestion("what have I got on today?", "plans", ("flea market",), 1, (("cafe_bea", 12),)),
    LifeQuestion(
        "what should I take to Dad's on Sunday?", "plans", ("wine",), 1, (("call_lena_2", 5), ("call_lena_2", 6))
    ),
    # lookup
    LifeQuestion("what's Lena's puppy called?", "lookup", ("biscuit",), 1, (("call_lena", 0),)),
    LifeQuestion("what breed is Biscuit?", "lookup", ("beagle",), 1, (("call_lena", 2),)),
    # who
    LifeQuestion("who's got a new car?", "who", ("hugo",), 1, (("stairwell_hugo", 2),)),
    LifeQuestion("which of my friends stopped eating meat?", "who", ("bea",), 1, (("cafe_bea", 6),)),
    # when
    LifeQuestion("when is Hugo away in Lisbon?", "when", ("monday", "16"), 1, (("stairwell_hugo", 8),)),
    LifeQuestion(
        "when did Hugo get rid of his Golf?",
        "when",
        ("saturday", "7 march", "march 7", "7th"),
        1,
        (("stairwell_hugo", 2),),
    ),
    # yesno
    LifeQuestion("does Bea still eat meat?", "yesno", ("vegetarian",), 1, (("cafe_bea", 6),)),
    LifeQuestion(
        "is Oskar playing badminton tomorrow?",
        "yesno",
        ("yes",),
        1,
        (("team_lunch", 6),),
        asked_at="2026-03-11T14:00:00+00:00",
    ),
    # order
    LifeQuestion(
        "which did I hear about first, the report deadline moving or Hugo's new car?",
        "order",
        ("report", "deadline"),
        1,
        (("team_lunch", 0), ("stairwell_hugo", 2)),
    ),
    # guess
    LifeQuestion(
        "would Bea like a voucher for a steakhouse?",
        "guess",
        ("probably not", "unlikely", "vegetarian", "no longer"),
        1,
        (("cafe_bea", 6), ("cafe_bea", 8)),
    ),
    # unanswerable
    LifeQuestion("what's Hugo's son called?", "lookup"),
    LifeQuestion("when is Ines's birthday?", "when"),
    LifeQuestion("who did I see on Thursday the 12th?", "met"),
    LifeQuestion("what did Bea study at university?", "lookup"),
    LifeQuestion("how many brothers does Oskar have?", "count"),
    LifeQuestion("where does Felix live?", "state"),
    LifeQuestion("what did Tomas and I talk about at the Aurora last weekend?", "recap"),
    LifeQuestion("which came first, Hugo's Lisbon trip or Oskar's trip to Paris?", "order"),
    LifeQuestion("what does Felix's wife do?", "relation"),
    LifeQuestion("would Hugo enjoy a salsa class?", "guess"),
    LifeQuestion("what time does my salsa class start?", "when"),
)
