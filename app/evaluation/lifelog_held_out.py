"""Lifelog held-out set: the main evaluation of what the wearer asks about their own life. Thirteen everyday
conversations recorded by the glasses of Nadia (an architect) on seven days between 14 September and 1 October
2026 (studio meetings, calls with her brother and her mother, breakfast with her partner, lunch and drinks with a
friend, a neighbour at the market and in the hallway, a call from the dentist's reception, a friend's moving day),
all recorded into one memory, and the questions she asks about them the morning after the last one, with things
that change over the weeks, plans, relations, repeated meetings and a good share of questions whose answer was
never said. Written blind on 2026-12-06 by a helper session that did not read the answering code; its people and
topics are not those of the tuning set (`lifelog_tuning.py`), and it is not to be tuned on.
"""

from __future__ import annotations

from app.evaluation.gold import KINDS, LifeQuestion, Scene  # noqa: F401

WEARER = "Nadia"
MEMORY = "lifelog_held_out"

_LINES = {
    # Monday 14 September 2026, morning meeting at the architecture studio
    "studio_monday": (
        "2026-09-14T09:10:00+00:00",
        (
            ("Greta", "Morning, both. Let's keep this short, I've got a call at half past."),
            ("Raj", "Fine by me."),
            ("Greta", "So, the Lindgren Library competition. The submission deadline is the thirtieth of September."),
            ("Nadia", "That's tight."),
            ("Greta", "It is. Raj, can you own the physical model?"),
            ("Raj", "Yeah, I'll start on the base this week."),
            ("Greta", "Nadia, I'd like you on the facade drawings."),
            ("Nadia", "Sure, I'll take the facade. Do we have the site photos yet?"),
            ("Greta", "They're on the shared drive. Oh, and we've got an intern starting next Monday, Ola."),
            ("Raj", "Finally, some help."),
            ("Greta", "Be nice to her. Also, I'm out Thursday afternoon, my son Milo has a water polo match."),
            ("Nadia", "Water polo? That's serious."),
            ("Greta", "He's fourteen and obsessed. Right, that's it, off you go."),
            ("Raj", "I need my fourth coffee. Coming, Nadia?"),
            ("Nadia", "Go on then."),
        ),
    ),
    # Monday 14 September 2026, evening phone call with her brother
    "kwame_call": (
        "2026-09-14T19:40:00+00:00",
        (
            ("Kwame", "Hey sis, is this a bad time to call?"),
            ("Nadia", "No, I just got home. What's up?"),
            ("Kwame", "Mum's seventieth. It's Saturday the third of October, we need to sort something."),
            ("Nadia", "Right. A restaurant? She likes that Lebanese place, Cedar House."),
            ("Kwame", "Perfect. Can you book it? Say for seven o'clock."),
            ("Nadia", "Yeah, I'll book it by Friday, promise."),
            ("Kwame", "Thanks. Honestly I've got no energy this week, the dealership is killing me."),
            ("Nadia", "Still selling cars on Sundays?"),
            ("Kwame", "Every Sunday. I applied for a job with the city parks department, actually."),
            ("Nadia", "Oh nice, outdoors! Fingers crossed."),
            ("Kwame", "And Ada started secondary school last week, so the house is chaos."),
            ("Nadia", "How's she finding it?"),
            ("Kwame", "She loves it. Kofi's jealous, he's got two more years of primary."),
            ("Nadia", "Ha. Are you still doing that half marathon?"),
            ("Kwame", "The eighteenth of October. I'm up at six to train, it's brutal."),
            ("Nadia", "Rather you than me."),
        ),
    ),
    # Wednesday 16 September 2026, breakfast at home with her partner
    "breakfast_theo": (
        "2026-09-16T07:45:00+00:00",
        (
            ("Theo", "Morning. There's still coffee in the pot."),
            ("Nadia", "Lifesaver. Did you sleep?"),
            ("Theo", "Not really. Ruth texted at midnight, she wants to come and stay."),
            ("Nadia", "Your sister? When?"),
            ("Theo", "The weekend of the tenth of October. She gets in on the Friday evening, the ninth."),
            ("Nadia", "Lovely. Is she still on that research boat?"),
            ("Theo", "Yeah, she's a marine biologist in Plymouth now. She'll tell us all about seals."),
            ("Nadia", "Fine by me. Oh, remind me, my dentist is on Thursday the first at three."),
            ("Theo", "The first of October? I'll put it in the calendar."),
            ("Nadia", "Thanks. And you're late at the clinic tomorrow?"),
            ("Theo", "Yes, on Thursdays I've got patients until eight. Being a physio has its downsides."),
            ("Nadia", "Mm-hm. Knees and backs till eight."),
            ("Theo", "Someone has to. Also the boiler guy comes Friday morning, can you be home?"),
            ("Nadia", "I'll work from home on Friday, no problem."),
        ),
    ),
    # Wednesday 16 September 2026, lunch with her friend Yuki
    "lunch_yuki": (
        "2026-09-16T12:35:00+00:00",
        (
            ("Yuki", "Sorry I'm late, a client called about a contract."),
            ("Nadia", "No worries. Still doing the legal stuff?"),
            ("Yuki", "Mostly. I translate contracts from Japanese, it pays the rent. Speaking of rent, I'm moving!"),
            ("Nadia", "No way. You're leaving Harbour Street?"),
            ("Yuki", "Yep. I got a bigger place in Northgate, right by the park."),
            ("Nadia", "When?"),
            ("Yuki", "Saturday the twenty-sixth. Any chance you could help? Just a few hours."),
            ("Nadia", "Of course. I'll bring Theo, he can carry the heavy stuff."),
            ("Yuki", "You're a star. I'll buy pizza."),
            ("Nadia", "How's the chess going, by the way?"),
            ("Yuki", "I'm through to the quarter-finals of the club tournament. Next round's on Friday."),
            ("Nadia", "Look at you."),
            ("Yuki", "And I'm still doing my Sunday long runs, so the park will be handy."),
            ("Nadia", "Makes sense. Shall we order?"),
        ),
    ),
    # Saturday 19 September 2026, morning at the farmers' market with Theo, meeting the neighbour
    "market_saturday": (
        "2026-09-19T10:20:00+00:00",
        (
            ("Carlos", "Nadia! Theo! Fancy seeing you here."),
            ("Theo", "Morning, Carlos. Is Bruno with you?"),
            ("Carlos", "No, the old dog stays at home, he hates crowds."),
            ("Nadia", "Poor Bruno. Are you buying all those apples?"),
            ("Carlos", "For my bike shop. The mechanics eat apples all day while they fix bikes."),
            ("Theo", "How's your daughter getting on in Porto?"),
            ("Carlos", "Lucia loves it. Second year of medicine, she says it's hard work."),
            ("Nadia", "Good for her."),
            ("Carlos", "And big news, I'm adopting a cat next week, from the shelter on Mill Lane."),
            ("Theo", "A cat? What does Bruno think of that?"),
            ("Carlos", "Bruno sleeps twenty hours a day, he won't notice."),
            ("Nadia", "Ha. Are you still playing chess in the park on Sundays?"),
            ("Carlos", "Every Sunday morning. I beat the retired judge last week."),
            ("Theo", "Careful, he'll appeal."),
        ),
    ),
    # Saturday 19 September 2026, evening phone call with her mother
    "mum_call": (
        "2026-09-19T18:05:00+00:00",
        (
            ("Nadia", "Hi Mum, it's me."),
            ("Rosa", "Darling! I just got in from my pottery class, I nearly missed the phone."),
            ("Nadia", "Pottery? Since when?"),
            ("Rosa", "Since the start of September. Wednesday evenings. I made a bowl, it's a bit wonky."),
            ("Nadia", "I love it. Listen, about your birthday, I was about to book Cedar House."),
            ("Rosa", "Oh, sweetheart, no restaurants. Too loud, and too expensive."),
            ("Nadia", "Really? It's your seventieth."),
            ("Rosa", "I'd much rather have dinner at Kwame's, with the grandchildren running around."),
            ("Nadia", "Okay. Same day, the third?"),
            ("Rosa", "Yes, the Saturday. Six o'clock, so the little ones aren't too tired."),
            ("Nadia", "Alright, I'll tell Kwame."),
            ("Rosa", "And no fuss. Just family."),
            ("Nadia", "Mm-hm. No fuss. Promise."),
        ),
    ),
    # Tuesday 22 September 2026, morning at the studio, the new intern's second day
    "studio_tuesday": (
        "2026-09-22T09:30:00+00:00",
        (
            ("Greta", "Nadia, this is Ola. She started yesterday while you were at the site visit."),
            ("Ola", "Hi! Nice to meet you."),
            ("Nadia", "Welcome! Where have you come from?"),
            ("Ola", "I just finished my master's in Gdansk. Architecture, obviously."),
            ("Raj", "She's already fixed my model base. I'm slightly embarrassed."),
            (
                "Greta",
                "And good news for all of us: the library people extended the deadline. It's now the ninth of October.",
            ),
            ("Nadia", "Oh, thank god. The facade needed another week."),
            ("Raj", "Same. Ola, do you climb? You've got climber's hands."),
            ("Ola", "Ha, yes, bouldering. Three times a week if I can."),
            ("Raj", "My wife Sofia's a climber too. She's a vet at the clinic in Elmwood, she goes after work."),
            ("Nadia", "By the way, Raj, where's your car? Your spot was empty."),
            ("Raj", "Sold it! I cycle in now. Bought a proper bike at the weekend."),
            ("Greta", "Good for you. Right, back to work, everyone."),
        ),
    ),
    # Tuesday 22 September 2026, evening phone call to her brother
    "kwame_call_2": (
        "2026-09-22T20:10:00+00:00",
        (
            ("Nadia", "Hi, sorry for calling so late."),
            ("Kwame", "No, good timing. Guess what, I got the parks job!"),
            ("Nadia", "Kwame! That's brilliant. When do you start?"),
            ("Kwame", "Next Monday. I handed in my notice at the dealership today."),
            ("Nadia", "No more Sundays selling cars."),
            ("Kwame", "Never again. Anyway, what did you want?"),
            ("Nadia", "Mum phoned. She doesn't want Cedar House, she wants dinner at yours, on the third at six."),
            ("Kwame", "At ours? My wife will be thrilled, Abena loves hosting. She'll want to bake the cake herself."),
            ("Nadia", "Perfect. I'll bring flowers and pick Mum up at half five."),
            ("Kwame", "Great. Just warning you, Esi's got chickenpox, in case you never had it."),
            ("Nadia", "I had it as a kid. Poor Esi."),
            ("Kwame", "She's our youngest, she's miserable. With three kids there's always something."),
            ("Nadia", "Give them all a hug from me."),
        ),
    ),
    # Friday 25 September 2026, morning call from the dentist's reception
    "dentist_call": (
        "2026-09-25T09:15:00+00:00",
        (
            ("Irene", "Hello, is that Nadia? It's Irene from reception at Brookside Dental."),
            ("Nadia", "Yes, hi."),
            (
                "Irene",
                "I'm afraid we have to move your appointment on Thursday the first, the dentist is away that day.",
            ),
            ("Nadia", "Oh. What else have you got?"),
            ("Irene", "Tuesday the sixth of October, half past nine in the morning?"),
            ("Nadia", "Half nine works. Tuesday the sixth."),
            ("Irene", "Lovely, I've changed it. Same check-up and clean."),
            ("Nadia", "Great, thanks Irene."),
            ("Irene", "You're welcome, bye now."),
        ),
    ),
    # Friday 25 September 2026, drinks after work: Yuki meets Raj
    "friday_drinks": (
        "2026-09-25T18:30:00+00:00",
        (
            ("Nadia", "Yuki, this is Raj from work. Raj, Yuki."),
            ("Raj", "Hi! Nadia says you're some kind of chess champion."),
            ("Yuki", "Not yet. I won my quarter-final last Friday, the semi is next week."),
            ("Raj", "Impressive. What are you drinking?"),
            ("Yuki", "A beer, please. You?"),
            ("Raj", "Just a green tea. I quit coffee on Monday, and apparently alcohol's next."),
            ("Nadia", "He used to have four coffees before ten."),
            ("Raj", "Five, on a bad day."),
            ("Yuki", "Brave man. I'd die."),
            ("Nadia", "Are you all packed for tomorrow?"),
            ("Yuki", "Boxes everywhere. The van's booked for ten."),
            ("Raj", "Moving? Where to?"),
            ("Yuki", "Northgate. Linden Court, the building by the park."),
            ("Raj", "Nice. I cycle past there every morning now."),
        ),
    ),
    # Saturday 26 September 2026, late morning, Yuki's moving day in Northgate
    "moving_day": (
        "2026-09-26T11:00:00+00:00",
        (
            ("Yuki", "Mind the door frame! Okay, that one goes in the bedroom."),
            ("Theo", "This box weighs a ton. What's in it?"),
            ("Yuki", "Chess books. Sorry."),
            ("Nadia", "Of course it is."),
            ("Theo", "Where's Kenji today?"),
            ("Yuki", "My boyfriend is in Osaka for work until Wednesday. Convenient, right?"),
            ("Nadia", "Very convenient."),
            ("Yuki", "Flat four, second floor, at least there's a lift."),
            ("Theo", "Thank god for the lift."),
            ("Nadia", "The view of the park is gorgeous, Yuki."),
            ("Yuki", "I know! I can see my running route from the kitchen."),
            ("Theo", "Right, pizza break?"),
            ("Yuki", "Pizza break. I promised, I'm paying."),
        ),
    ),
    # Thursday 1 October 2026, progress review at the studio
    "studio_review": (
        "2026-10-01T10:05:00+00:00",
        (
            ("Greta", "How are we doing on Lindgren?"),
            ("Nadia", "The facade's about eighty percent. The elevations will be done by Monday."),
            ("Ola", "And I'm rendering the reading room."),
            ("Greta", "Good. The client wants to see us before the deadline, Wednesday the seventh at two."),
            ("Nadia", "At their office?"),
            ("Greta", "Here. Nadia, you present the facade, I'll do the intro."),
            ("Nadia", "Okay. Where's Raj today?"),
            ("Greta", "Dentist. He'll be in after lunch with the finished model, supposedly."),
            ("Ola", "He texted me a photo of it, it looks great."),
            ("Greta", "Good. Oh, and both my boys have water polo on Saturday, so I'm offline."),
            ("Ola", "You have two? I thought it was just Milo."),
            ("Greta", "Milo and Aaron. The little one joined the club this year."),
            ("Nadia", "Busy weekend for you, then."),
        ),
    ),
    # Thursday 1 October 2026, evening in the hallway with the neighbour
    "hallway_carlos": (
        "2026-10-01T19:00:00+00:00",
        (
            ("Carlos", "Nadia, come and meet Pepper!"),
            ("Nadia", "Oh my god, she's tiny. Is this the shelter cat?"),
            ("Carlos", "Got her on Tuesday. Grey, three months old, bossy already."),
            ("Nadia", "And how's Bruno taking it?"),
            ("Carlos", "Bruno is terrified of her. Forty kilos of dog hiding behind the sofa."),
            ("Nadia", "Ha, poor thing."),
            ("Carlos", "Listen, a favour. I'm flying to Porto to see Lucia, from the ninth to the twelfth."),
            ("Nadia", "Nice! What do you need?"),
            ("Carlos", "Could you feed Pepper? My nephew is taking Bruno, but he's allergic to cats."),
            ("Nadia", "Sure, I'll feed her. Morning and evening?"),
            ("Carlos", "Just mornings, and top up her water. I'll drop the key round the day before I go."),
            ("Nadia", "Done. Write down what she eats."),
            ("Carlos", "I'll write it all down. Thank you, neighbour."),
        ),
    ),
}

SCENES: dict[str, Scene] = {name: Scene(name, lines, start, MEMORY) for name, (start, lines) in _LINES.items()}

ASKED_AT = "2026-10-02T08:30:00+00:00"  # Friday morning, after the last scene

_ONCE = ("once", "one time", "1 time", "one call", "1 call")
_TWO = ("2", "two", "twice")
_TWO_OF = ("2", "two")
_THREE = ("3", "three")
_FOUR = ("4", "four")
_YES = ("yes", "probably", "likely", "definitely")
_MINUTE = ("1 minute", "one minute", "a minute", "60 seconds", "64 seconds", "under a minute", "less than a minute")
_TWO_MINUTES = (
    "2 minutes",
    "two minutes",
    "under 2",
    "under two",
    "less than 2",
    "less than two",
    "1 minute",
    "one minute",
    "a minute",
    "minute and a half",
    "90 seconds",
    "96 seconds",
    "100 seconds",
    "112 seconds",
)
_ONE_OCT = ("yesterday", "1 october", "october 1", "1st of october", "first of october", "thursday")

QUESTIONS: tuple[LifeQuestion, ...] = (
    # recap
    LifeQuestion(
        "what did we go over in the studio meeting on Monday the 14th?",
        "recap",
        ("library", "deadline", "facade", "intern", "model"),
        2,
        (("studio_monday", 2), ("studio_monday", 6), ("studio_monday", 8)),
    ),
    LifeQuestion(
        "sum up my first call with my brother this month",
        "recap",
        ("birthday", "restaurant", "parks", "marathon", "school"),
        2,
        (("kwame_call", 2), ("kwame_call", 8), ("kwame_call", 14)),
    ),
    LifeQuestion(
        "what did Yuki and I chat about at lunch on the 16th?",
        "recap",
        ("northgate", "chess", "help", "harbour street"),
        2,
        (("lunch_yuki", 2), ("lunch_yuki", 4), ("lunch_yuki", 10)),
    ),
    LifeQuestion(
        "what happened at the farmers' market?",
        "recap",
        ("cat", "chess", "lucia", "porto", "bruno"),
        2,
        (("market_saturday", 6), ("market_saturday", 8), ("market_saturday", 12)),
    ),
    LifeQuestion(
        "what did Mum and I talk about on the phone?",
        "recap",
        ("birthday", "pottery", "kwame", "restaurant"),
        2,
        (("mum_call", 1), ("mum_call", 5), ("mum_call", 7)),
    ),
    LifeQuestion(
        "what happened yesterday?",
        "recap",
        ("client", "facade", "pepper", "cat", "porto", "water polo"),
        2,
        (("studio_review", 3), ("hallway_carlos", 0), ("hallway_carlos", 8)),
    ),
    LifeQuestion(
        "give me a recap of Friday drinks with Yuki and Raj",
        "recap",
        ("chess", "tea", "coffee", "moving", "northgate"),
        2,
        (("friday_drinks", 2), ("friday_drinks", 5), ("friday_drinks", 12)),
    ),
    LifeQuestion(
        "what did Theo and I talk about over breakfast on Wednesday the 16th?",
        "recap",
        ("ruth", "dentist", "boiler", "clinic"),
        2,
        (("breakfast_theo", 2), ("breakfast_theo", 7), ("breakfast_theo", 12)),
    ),
    # met
    LifeQuestion(
        "who did I talk to on 14 September?",
        "met",
        ("raj", "greta", "kwame"),
        3,
        (("studio_monday", 0), ("kwame_call", 0)),
    ),
    LifeQuestion(
        "who did I see on Wednesday the 16th?", "met", ("theo", "yuki"), 2, (("breakfast_theo", 0), ("lunch_yuki", 0))
    ),
    LifeQuestion(
        "who was I with at the farmers' market?",
        "met",
        ("theo", "carlos"),
        2,
        (("market_saturday", 0), ("market_saturday", 1)),
    ),
    LifeQuestion(
        "who did I speak to on Tuesday the 22nd?",
        "met",
        ("raj", "ola", "greta", "kwame"),
        4,
        (("studio_tuesday", 0), ("studio_tuesday", 4), ("kwame_call_2", 1)),
    ),
    LifeQuestion(
        "who did I go for drinks with on Friday the 25th?", "met", ("yuki", "raj"), 2, (("friday_drinks", 0),)
    ),
    LifeQuestion(
        "who did I see yesterday?",
        "met",
        ("greta", "ola", "carlos"),
        3,
        (("studio_review", 0), ("studio_review", 2), ("hallway_carlos", 0)),
    ),
    LifeQuestion(
        "who did I spend Saturday the 26th with?", "met", ("yuki", "theo"), 2, (("moving_day", 0), ("moving_day", 1))
    ),
    # last_met
    LifeQuestion(
        "when did I last talk to my brother?",
        "last_met",
        ("22", "twenty second", "twentysecond"),
        1,
        (("kwame_call_2", 1),),
    ),
    LifeQuestion(
        "when did I last see Yuki?", "last_met", ("26", "twenty sixth", "twentysixth"), 1, (("moving_day", 0),)
    ),
    LifeQuestion(
        "when was the last time I spoke with Raj?",
        "last_met",
        ("25", "twenty fifth", "twentyfifth"),
        1,
        (("friday_drinks", 1),),
    ),
    LifeQuestion(
        "when did I first meet Ola?",
        "last_met",
        ("22", "twenty second", "twentysecond"),
        1,
        (("studio_tuesday", 0), ("studio_tuesday", 1)),
    ),
    LifeQuestion("when did I last run into Carlos?", "last_met", _ONE_OCT, 1, (("hallway_carlos", 0),)),
    LifeQuestion("when did I last speak to Mum?", "last_met", ("19", "nineteenth"), 1, (("mum_call", 0),)),
    LifeQuestion("when did I last see Greta?", "last_met", _ONE_OCT, 1, (("studio_review", 0),)),
    # how_often
    LifeQuestion(
        "how many times did I talk to Raj in September?",
        "how_often",
        _THREE,
        1,
        (("studio_monday", 13), ("studio_tuesday", 4), ("friday_drinks", 1)),
    ),
    LifeQuestion(
        "how many times have I seen Yuki in the last few weeks?",
        "how_often",
        _THREE,
        1,
        (("lunch_yuki", 0), ("friday_drinks", 2), ("moving_day", 0)),
    ),
    LifeQuestion(
        "how often did I speak to Kwame since mid-September?",
        "how_often",
        _TWO,
        1,
        (("kwame_call", 0), ("kwame_call_2", 1)),
    ),
    LifeQuestion(
        "how many times did I bump into Carlos?", "how_often", _TWO, 1, (("market_saturday", 0), ("hallway_carlos", 0))
    ),
    LifeQuestion(
        "how many times have I seen Ola so far?", "how_often", _TWO, 1, (("studio_tuesday", 1), ("studio_review", 2))
    ),
    LifeQuestion(
        "how many times did I meet with Greta over the past three weeks?",
        "how_often",
        _THREE,
        1,
        (("studio_monday", 0), ("studio_tuesday", 0), ("studio_review", 0)),
    ),
    LifeQuestion("how many times did I talk to Mum recently?", "how_often", _ONCE, 1, (("mum_call", 0),)),
    # list
    LifeQuestion(
        "who do I know that plays chess?",
        "list",
        ("yuki", "carlos"),
        2,
        (("lunch_yuki", 10), ("market_saturday", 12), ("friday_drinks", 2)),
    ),
    LifeQuestion(
        "what animals does Carlos have?",
        "list",
        ("dog", "cat"),
        2,
        (("market_saturday", 2), ("market_saturday", 8), ("hallway_carlos", 2)),
    ),
    LifeQuestion(
        "what are my brother's kids called?",
        "list",
        ("ada", "kofi", "esi"),
        3,
        (("kwame_call", 10), ("kwame_call", 12), ("kwame_call_2", 9)),
    ),
    LifeQuestion(
        "which of the people I know are runners?",
        "list",
        ("yuki", "kwame"),
        2,
        (("lunch_yuki", 12), ("kwame_call", 14), ("moving_day", 10)),
    ),
    LifeQuestion(
        "who's doing what for the Lindgren competition?",
        "list",
        ("facade", "model", "reading room"),
        3,
        (("studio_monday", 4), ("studio_monday", 6), ("studio_review", 2)),
    ),
    LifeQuestion(
        "who have I talked to on the phone lately?",
        "list",
        ("kwame", "irene", "rosa", "mum"),
        3,
        (("kwame_call", 0), ("mum_call", 0), ("kwame_call_2", 0), ("dentist_call", 0)),
    ),
    LifeQuestion("who goes climbing?", "list", ("ola", "sofia"), 2, (("studio_tuesday", 8), ("studio_tuesday", 9))),
    LifeQuestion(
        "what are Greta's boys called?", "list", ("milo", "aaron"), 2, (("studio_monday", 10), ("studio_review", 11))
    ),
    # count
    LifeQuestion("how many kids has my brother got?", "count", _THREE, 1, (("kwame_call_2", 11),)),
    LifeQuestion(
        "how many pets does Carlos have now?",
        "count",
        _TWO_OF,
        1,
        (("market_saturday", 2), ("hallway_carlos", 2), ("hallway_carlos", 4)),
    ),
    LifeQuestion(
        "how many children does Greta have?", "count", _TWO_OF, 1, (("studio_review", 9), ("studio_review", 11))
    ),
    LifeQuestion(
        "how many people did I talk to on the 22nd?",
        "count",
        _FOUR,
        1,
        (("studio_tuesday", 0), ("studio_tuesday", 4), ("kwame_call_2", 1)),
    ),
    LifeQuestion(
        "how many people did I talk to yesterday?",
        "count",
        _THREE,
        1,
        (("studio_review", 0), ("studio_review", 2), ("hallway_carlos", 0)),
    ),
    LifeQuestion(
        "how many people did I speak with on the 14th?",
        "count",
        _THREE,
        1,
        (("studio_monday", 0), ("studio_monday", 1), ("kwame_call", 0)),
    ),
    LifeQuestion(
        "how many people did I talk to on Friday the 25th?",
        "count",
        _THREE,
        1,
        (("dentist_call", 0), ("friday_drinks", 0)),
    ),
    # state
    LifeQuestion(
        "where does Yuki live now?",
        "state",
        ("northgate", "linden court"),
        1,
        (("lunch_yuki", 4), ("friday_drinks", 12), ("moving_day", 7)),
    ),
    LifeQuestion("what's Kwame's job now?", "state", ("parks",), 1, (("kwame_call_2", 1), ("kwame_call_2", 3))),
    LifeQuestion(
        "when's my dentist appointment?",
        "state",
        ("6 october", "october 6", "6th", "sixth", "9 30", "930", "half past nine", "half nine"),
        1,
        (("dentist_call", 4), ("dentist_call", 5)),
    ),
    LifeQuestion("what does Raj drink these days?", "state", ("tea",), 1, (("friday_drinks", 5),)),
    LifeQuestion(
        "how does Raj get to work now?",
        "state",
        ("bike", "cycle", "cycles", "cycling", "bicycle"),
        1,
        (("studio_tuesday", 11), ("friday_drinks", 13)),
    ),
    LifeQuestion(
        "when is the Lindgren deadline now?",
        "state",
        ("9 october", "october 9", "9th", "ninth"),
        1,
        (("studio_tuesday", 5),),
    ),
    LifeQuestion(
        "where's Mum's birthday dinner going to be?",
        "state",
        ("kwame",),
        1,
        (("mum_call", 7), ("kwame_call_2", 6), ("kwame_call_2", 7)),
    ),
    # change
    LifeQuestion(
        "what changed with Yuki's flat?",
        "change",
        ("harbour street", "northgate"),
        2,
        (("lunch_yuki", 3), ("lunch_yuki", 4)),
    ),
    LifeQuestion(
        "what's new with Kwame work-wise?",
        "change",
        ("dealership", "parks"),
        2,
        (("kwame_call", 6), ("kwame_call_2", 1), ("kwame_call_2", 3)),
    ),
    LifeQuestion(
        "did my dentist appointment get moved?",
        "change",
        ("1 october", "october 1", "first of october", "6 october", "october 6", "sixth of october"),
        2,
        (("breakfast_theo", 7), ("dentist_call", 2), ("dentist_call", 4)),
    ),
    LifeQuestion(
        "has the Lindgren deadline changed?",
        "change",
        ("30 september", "september 30", "thirtieth", "9 october", "october 9", "ninth"),
        2,
        (("studio_monday", 2), ("studio_tuesday", 5)),
    ),
    LifeQuestion(
        "did the plans for Mum's birthday change?",
        "change",
        ("restaurant", "kwame"),
        2,
        (("kwame_call", 3), ("mum_call", 5), ("mum_call", 7)),
    ),
    LifeQuestion(
        "what's different about what Raj drinks?",
        "change",
        ("coffee", "tea"),
        2,
        (("studio_monday", 13), ("friday_drinks", 5)),
    ),
    LifeQuestion(
        "how has Raj's commute changed?", "change", ("car", "bike"), 2, (("studio_tuesday", 10), ("studio_tuesday", 11))
    ),
    # relation
    LifeQuestion("where does Raj's wife work?", "relation", ("vet", "elmwood"), 1, (("studio_tuesday", 9),)),
    LifeQuestion(
        "what's my brother's wife making for Mum's birthday?", "relation", ("cake",), 1, (("kwame_call_2", 7),)
    ),
    LifeQuestion(
        "what does Theo's sister do?", "relation", ("marine biologist", "biologist"), 1, (("breakfast_theo", 6),)
    ),
    LifeQuestion("what's Carlos's daughter studying?", "relation", ("medicine",), 1, (("market_saturday", 6),)),
    LifeQuestion(
        "what sport does my boss's son play?",
        "relation",
        ("water polo",),
        1,
        (("studio_monday", 10), ("studio_review", 9)),
    ),
    LifeQuestion(
        "what's my brother's youngest called?", "relation", ("esi",), 1, (("kwame_call_2", 9), ("kwame_call_2", 11))
    ),
    LifeQuestion(
        "what does my partner do for work?",
        "relation",
        ("physio", "physiotherapist", "physical therapist"),
        1,
        (("breakfast_theo", 10),),
    ),
    LifeQuestion("where was Yuki's boyfriend on moving day?", "relation", ("osaka",), 1, (("moving_day", 5),)),
    # plans
    LifeQuestion(
        "what have I got on next week?",
        "plans",
        ("dentist", "client", "ruth", "pepper", "deadline", "elevation"),
        3,
        (
            ("dentist_call", 4),
            ("studio_review", 3),
            ("breakfast_theo", 4),
            ("hallway_carlos", 8),
            ("studio_tuesday", 5),
        ),
    ),
    LifeQuestion(
        "what did I promise Carlos?",
        "plans",
        ("feed", "pepper", "cat"),
        2,
        (("hallway_carlos", 8), ("hallway_carlos", 9)),
    ),
    LifeQuestion("what's happening this Saturday?", "plans", ("birthday",), 1, (("mum_call", 9), ("kwame_call_2", 6))),
    LifeQuestion(
        "what am I supposed to do for Mum's birthday?", "plans", ("flowers", "pick"), 2, (("kwame_call_2", 8),)
    ),
    LifeQuestion(
        "what's on Wednesday the 7th?",
        "plans",
        ("client", "present", "lindgren", "library"),
        1,
        (("studio_review", 3), ("studio_review", 5)),
    ),
    LifeQuestion(
        "what did I say I'd do for Yuki?",
        "plans",
        ("move", "moving", "moves"),
        1,
        (("lunch_yuki", 6), ("lunch_yuki", 7)),
        asked_at="2026-09-17T09:00:00+00:00",
    ),
    LifeQuestion(
        "what's Kwame got coming up in October?", "plans", ("half marathon", "marathon"), 1, (("kwame_call", 14),)
    ),
    LifeQuestion(
        "what did I promise my brother?",
        "plans",
        ("cedar house", "restaurant", "book"),
        1,
        (("kwame_call", 4), ("kwame_call", 5)),
        asked_at="2026-09-15T08:00:00+00:00",
    ),
    LifeQuestion(
        "why do I need to be home on Friday morning?",
        "plans",
        ("boiler",),
        1,
        (("breakfast_theo", 12), ("breakfast_theo", 13)),
        asked_at="2026-09-17T08:00:00+00:00",
    ),
    # lookup
    LifeQuestion(
        "what does Yuki do for a living?",
        "lookup",
        ("translator", "translates", "translation", "translating", "translate"),
        1,
        (("lunch_yuki", 2),),
    ),
    LifeQuestion("where did Ola study?", "lookup", ("gdansk",), 1, (("studio_tuesday", 3),)),
    LifeQuestion(
        "what's Carlos's dog called?", "lookup", ("bruno",), 1, (("market_saturday", 1), ("market_saturday", 2))
    ),
    LifeQuestion("what does Carlos do for work?", "lookup", ("bike",), 1, (("market_saturday", 4),)),
    LifeQuestion(
        "which restaurant did Mum turn down?", "lookup", ("cedar house",), 1, (("mum_call", 4), ("mum_call", 5))
    ),
    LifeQuestion("how old is Mum turning?", "lookup", ("70", "seventy"), 1, (("kwame_call", 2), ("mum_call", 6))),
    LifeQuestion(
        "what's Yuki's new address?", "lookup", ("linden court",), 1, (("friday_drinks", 12), ("moving_day", 7))
    ),
    LifeQuestion("where is Carlos flying to next week?", "lookup", ("porto",), 1, (("hallway_carlos", 6),)),
    # who
    LifeQuestion(
        "which friend of mine just moved to Northgate?", "who", ("yuki",), 1, (("lunch_yuki", 4), ("moving_day", 0))
    ),
    LifeQuestion(
        "who's the new intern at the studio?", "who", ("ola",), 1, (("studio_monday", 8), ("studio_tuesday", 0))
    ),
    LifeQuestion("who gave up coffee?", "who", ("raj",), 1, (("friday_drinks", 5),)),
    LifeQuestion(
        "who's baking Mum's cake?", "who", ("abena", "kwames wife", "kwame's wife"), 1, (("kwame_call_2", 7),)
    ),
    LifeQuestion("who's looking after Bruno while Carlos is away?", "who", ("nephew",), 1, (("hallway_carlos", 8),)),
    LifeQuestion("who rang me from the dentist's?", "who", ("irene",), 1, (("dentist_call", 0),)),
    # when
    LifeQuestion(
        "when is Ruth arriving?",
        "when",
        ("9 october", "october 9", "9th", "ninth", "friday"),
        1,
        (("breakfast_theo", 4),),
    ),
    LifeQuestion(
        "when's the client meeting for the library?",
        "when",
        ("7 october", "october 7", "7th", "seventh", "wednesday"),
        1,
        (("studio_review", 3),),
    ),
    LifeQuestion(
        "when's Kwame's half marathon?",
        "when",
        ("18 october", "october 18", "18th", "eighteenth"),
        1,
        (("kwame_call", 14),),
    ),
    LifeQuestion(
        "when did Kwame start his new job?",
        "when",
        ("28 september", "september 28", "28th", "twenty eighth", "twentyeighth"),
        1,
        (("kwame_call_2", 3),),
    ),
    LifeQuestion(
        "when did Yuki move house?",
        "when",
        ("26", "twenty sixth", "twentysixth"),
        1,
        (("lunch_yuki", 6), ("friday_drinks", 9), ("moving_day", 0)),
    ),
    LifeQuestion(
        "when did Carlos get Pepper?",
        "when",
        ("29", "twenty ninth", "twentyninth", "tuesday"),
        1,
        (("hallway_carlos", 2),),
    ),
    LifeQuestion(
        "when did Raj and Yuki meet?", "when", ("25", "twenty fifth", "twentyfifth"), 1, (("friday_drinks", 0),)
    ),
    # yesno
    LifeQuestion("is Carlos's daughter studying in Porto?", "yesno", ("yes",), 1, (("market_saturday", 6),)),
    LifeQuestion("did Kwame get the parks job?", "yesno", ("yes",), 1, (("kwame_call_2", 1),)),
    LifeQuestion(
        "is Mum's birthday dinner at a restaurant?", "yesno", ("kwame",), 1, (("mum_call", 7), ("kwame_call_2", 6))
    ),
    LifeQuestion(
        "does Raj still drink coffee?", "yesno", ("tea", "quit", "gave up", "stopped"), 1, (("friday_drinks", 5),)
    ),
    LifeQuestion("did Ola study in Warsaw?", "yesno", ("gdansk",), 1, (("studio_tuesday", 3),)),
    LifeQuestion("did I say I'd feed Carlos's cat?", "yesno", ("yes",), 1, (("hallway_carlos", 9),)),
    LifeQuestion("has Esi got chickenpox?", "yesno", ("yes",), 1, (("kwame_call_2", 9),)),
    # order
    LifeQuestion(
        "who did I talk to first on the 22nd, Raj or Kwame?",
        "order",
        ("raj",),
        1,
        (("studio_tuesday", 4), ("kwame_call_2", 1)),
    ),
    LifeQuestion(
        "what did I hear first, the deadline extension or Kwame's news about the job?",
        "order",
        ("deadline", "extension"),
        1,
        (("studio_tuesday", 5), ("kwame_call_2", 1)),
    ),
    LifeQuestion(
        "what came first, the dentist moving my appointment or Yuki's move?",
        "order",
        ("dentist",),
        1,
        (("dentist_call", 2), ("moving_day", 0)),
    ),
    LifeQuestion(
        "did I meet Ola before or after my call with Mum?",
        "order",
        ("after",),
        1,
        (("mum_call", 0), ("studio_tuesday", 0)),
    ),
    # how_long
    LifeQuestion(
        "how long was the studio meeting on the 14th?",
        "how_long",
        _TWO_MINUTES,
        1,
        (("studio_monday", 0), ("studio_monday", 14)),
    ),
    LifeQuestion(
        "how long was I on the phone with the dentist's reception?",
        "how_long",
        _MINUTE,
        1,
        (("dentist_call", 0), ("dentist_call", 8)),
    ),
    LifeQuestion(
        "how long did my second call with Kwame last?",
        "how_long",
        _TWO_MINUTES,
        1,
        (("kwame_call_2", 0), ("kwame_call_2", 12)),
    ),
    # guess
    LifeQuestion(
        "would Yuki like a chess cafe for her birthday?", "guess", _YES, 1, (("lunch_yuki", 10), ("friday_drinks", 2))
    ),
    LifeQuestion(
        "should I get Raj a bag of fancy coffee beans as a present?",
        "guess",
        ("tea", "probably not", "unlikely", "quit", "gave up"),
        1,
        (("friday_drinks", 5),),
    ),
    LifeQuestion("would Ola be up for a bouldering evening?", "guess", _YES, 1, (("studio_tuesday", 8),)),
    LifeQuestion(
        "would Carlos be a good person to ask about fixing my bike?", "guess", _YES, 1, (("market_saturday", 4),)
    ),
    # unanswerable
    LifeQuestion("what's Ola's surname?", "lookup"),
    LifeQuestion("what does Kwame's wife do for a living?", "relation"),
    LifeQuestion("when's Greta's birthday?", "when"),
    LifeQuestion("who did I see on Sunday the 20th of September?", "met"),
    LifeQuestion("when did Yuki move to Bristol?", "when"),
    LifeQuestion("how many kids do Raj and Sofia have?", "count"),
    LifeQuestion("what kind of car does Carlos drive?", "lookup"),
    LifeQuestion("what did Greta and I talk about over lunch on the 25th?", "recap"),
    LifeQuestion("what's Theo's sister's husband called?", "relation"),
    LifeQuestion("where does Greta's husband work?", "relation"),
    LifeQuestion("what's my dentist's name?", "lookup"),
    LifeQuestion("is Ruth coming by train or by plane?", "lookup"),
    LifeQuestion("did Kofi get into the school football team?", "yesno"),
    LifeQuestion("what's Yuki's cat called?", "lookup"),
    LifeQuestion("what did Ola and I discuss on 28 September?", "recap"),
    LifeQuestion("who did I have dinner with on Wednesday the 30th?", "met"),
    LifeQuestion("how long was my call with Greta last Sunday?", "how_long"),
    LifeQuestion("which came first, Raj moving house or Yuki moving?", "order"),
    LifeQuestion("how many people work at my studio?", "count"),
    LifeQuestion("where does Ola live now?", "state"),
    LifeQuestion("what changed about Theo's job?", "change"),
    LifeQuestion("what's Carlos's wife's name?", "relation"),
    LifeQuestion("what's Kofi's favourite subject at school?", "lookup"),
    LifeQuestion("what instruments does Theo play?", "list"),
    LifeQuestion("when did Kwame lose the parks job?", "when"),
    LifeQuestion("would Greta enjoy a ski weekend?", "guess"),
    LifeQuestion("how often does Yuki see Kenji?", "how_often"),
    LifeQuestion("what did I promise to bring for Ruth's visit?", "plans"),
    LifeQuestion("when did I last speak to Sofia?", "last_met"),
    LifeQuestion("do I have anything planned for Halloween?", "plans"),
    LifeQuestion("who's picking Ruth up from the station?", "who"),
    LifeQuestion("does Ola have a boyfriend?", "yesno"),
)
