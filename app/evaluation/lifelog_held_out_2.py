"""A second held-out lifelog set: eleven everyday conversations over six days (19 May - 1 June 2026) recorded by the glasses of Rosa, a librarian — her neighbour Hanne's move and children, her brother Declan's shifts and their mother's birthday, colleagues Kwame and Ilse, her friend Petra and Petra's cousin Teodor — with questions of every kind, some of them unanswerable, written blind on 2026-12-06 by a helper session that did not read the answering code or the other lifelog sets."""

from __future__ import annotations

from dataclasses import dataclass

from app.evaluation.gold import Scene


@dataclass(frozen=True)
class LifeQuestion:
    question: str
    kind: str  # one of KINDS
    accept: tuple[str, ...] = ()  # phrases a right answer contains (case/punctuation ignored); empty: unanswerable
    need: int = 1  # how many of `accept` a right answer must contain (len(accept) = all of them)
    lines: tuple[
        tuple[str, int], ...
    ] = ()  # (scene name, line index) that support the answer: a right citation cites one
    asked_at: str = ""  # ISO time the question is asked ("" = ASKED_AT)
    asker: str | None = None  # None = the wearer

    @property
    def answerable(self) -> bool:
        return bool(self.accept)


KINDS = (
    "lookup",
    "who",
    "when",
    "yesno",
    "list",
    "count",
    "order",
    "recap",
    "met",
    "last_met",
    "how_often",
    "how_long",
    "state",
    "change",
    "relation",
    "plans",
    "guess",
)

WEARER = "Rosa"
_M = "lifelog_held_out_2"


def _scene(name: str, start: str, *lines: tuple[str, str]) -> Scene:
    return Scene(name, tuple(lines), start, _M)


SCENES: dict[str, Scene] = {
    s.name: s
    for s in (
        _scene(  # Tuesday 19 May, morning, on the landing of the building on Linden Street
            "landing_hanne",
            "2026-05-19T08:10:00+00:00",
            ("Hanne", "Morning, Rosa! Sorry about all the boxes on the landing."),
            ("Rosa", "Morning. Oh, no worries. Are you packing already?"),
            ("Hanne", "Yeah. We got the flat on Quay Road, the one down by the harbour."),
            ("Rosa", "No way! That's great. I'll miss having you next door, though."),
            ("Hanne", "Me too. Twelve years on Linden Street, can you believe it?"),
            ("Rosa", "So when's the big day?"),
            ("Hanne", "The 28th. So next Thursday."),
            ("Rosa", "That's quick. Do you need anything?"),
            ("Hanne", "Honestly, a drill. Ours broke and the shelves won't hang themselves."),
            ("Rosa", "I'll bring you mine on Saturday, promise."),
            ("Hanne", "You're a star. With three kids, everything takes forever."),
            ("Rosa", "How's Mats taking it?"),
            ("Hanne", "He's sulking. He doesn't want to leave his football club."),
            ("Rosa", "Ah, he'll come round."),
            ("Hanne", "Hope so. Go on, you'll be late for work."),
        ),
        _scene(  # Tuesday 19 May, lunch in the library staff room
            "staff_lunch",
            "2026-05-19T12:30:00+00:00",
            ("Kwame", "Is this seat free?"),
            ("Rosa", "Yeah, sit. How was the weekend?"),
            ("Kwame", "Sore. Petra dragged me to the climbing gym again, my fingers are wrecked."),
            ("Ilse", "You two and your bouldering."),
            ("Kwame", "It's good for you! I've been doing it three years now."),
            ("Rosa", "Hey, do you still need someone for next Tuesday?"),
            ("Kwame", "Yes please. I've got the dentist at nine, can you take my morning shift?"),
            ("Rosa", "Sure, I'll cover it."),
            ("Ilse", "Which dentist?"),
            ("Kwame", "Doctor Lund on Mill Street."),
            ("Ilse", "That's my husband! Bruno will look after you."),
            ("Kwame", "Small world. Ilse, any news on my contract?"),
            ("Ilse", "Still temporary for now, I'm working on it."),
            ("Ilse", "Oh, and the author reading here at the library is on Thursday the 28th, half six."),
            ("Rosa", "Got it, I'll put it in the calendar."),
        ),
        _scene(  # Thursday 21 May, after work, in a café
            "cafe_petra",
            "2026-05-21T17:30:00+00:00",
            ("Petra", "There you are! I got you an oat latte."),
            ("Rosa", "Lifesaver. Long day?"),
            ("Petra", "Three cat spays and a very angry parrot. Vet nurse life."),
            ("Rosa", "Ha. How's your own cat?"),
            ("Petra", "Pickle? Fat and smug. She sits on my laptop all evening."),
            ("Rosa", "Sounds about right."),
            ("Petra", "So, Saturday. I'm doing a barbecue, you have to come."),
            ("Rosa", "This Saturday? Yeah, I'm in. What should I bring?"),
            ("Petra", "Just yourself. Kwame's coming, and my cousin Teodor, he just moved here from Lisbon."),
            ("Rosa", "Oh nice, what brings him here?"),
            ("Petra", "He's a sound engineer, he's looking for theatre work."),
            ("Rosa", "Cool. Are you and Kwame still climbing on Wednesdays?"),
            ("Petra", "Every Wednesday. He's getting better than me, it's annoying."),
            ("Rosa", "And your wrist is okay for that?"),
            ("Petra", "Not really. I finally booked a physio, it's on the 3rd of June."),
        ),
        _scene(  # Thursday 21 May, evening, on the phone
            "call_declan",
            "2026-05-21T19:00:00+00:00",
            ("Declan", "Hey sis, got a minute?"),
            ("Rosa", "Always. You sound tired."),
            ("Declan", "Night shifts on the ferry. Fixing engines at three in the morning gets old."),
            ("Rosa", "Can't they put you on days?"),
            ("Declan", "I've asked. Maybe from June."),
            ("Rosa", "Fingers crossed. How's Saoirse?"),
            ("Declan", "Busy. The bakery on Elm Street has her doing the early bread run."),
            ("Declan", "Listen, mum turns seventy on the 7th of June."),
            ("Rosa", "I know, I know. Have we decided anything?"),
            ("Declan", "I thought a nice lunch. Could you book somewhere?"),
            ("Rosa", "Yeah, I'll book a table, leave it with me."),
            ("Declan", "Great. Oh, and I'm selling the motorbike, if you know anyone."),
            ("Rosa", "Really? You loved that thing."),
            ("Declan", "Saoirse says it's the bike or her. Ha, joking. Mostly."),
        ),
        _scene(  # Saturday 23 May, afternoon, Petra's garden
            "barbecue",
            "2026-05-23T15:00:00+00:00",
            ("Petra", "Rosa, come meet my cousin. Teodor, this is Rosa."),
            ("Teodor", "Hi, nice to meet you."),
            ("Rosa", "Hi! Petra says you just came from Lisbon?"),
            ("Teodor", "Yeah, three weeks ago. Still finding my way around."),
            ("Kwame", "Teodor, did you find the jazz bar I told you about?"),
            ("Teodor", "Blue Cellar? Yes! I played there Thursday, they let me sit in on double bass."),
            ("Rosa", "Oh, you play jazz?"),
            ("Teodor", "Since I was fifteen. It's all I listen to, honestly."),
            ("Kwame", "Rosa, how's the brother? Still on nights?"),
            ("Rosa", "Yeah, my brother Declan is still fixing ferry engines at three a.m., poor guy."),
            ("Petra", "Who wants a burger? Last ones."),
            ("Kwame", "Me. Oh, Rosa, thanks again for Tuesday."),
            ("Rosa", "No problem. Good luck with the tooth."),
            ("Teodor", "Rosa, Petra said you work at the library?"),
            ("Rosa", "Yeah, at the central library. Come by, we have a big music section."),
        ),
        _scene(  # Saturday 23 May, evening, at Hanne's door
            "drill_hanne",
            "2026-05-23T19:30:00+00:00",
            ("Rosa", "Knock knock. One drill, as promised."),
            ("Hanne", "Oh, you remembered! Thank you."),
            ("Liv", "Hi Rosa!"),
            ("Rosa", "Hi Liv. Are you excited about your birthday?"),
            ("Liv", "I'm going to be nine! The party is next Saturday."),
            ("Hanne", "At the new flat, if we survive the move. Two o'clock. You're coming, right?"),
            ("Rosa", "Wouldn't miss it. I'll bake a lemon cake."),
            ("Liv", "With sprinkles?"),
            ("Rosa", "With sprinkles, promise."),
            ("Hanne", "Sorry about the noise, Ebbe's teething, he's been screaming all day."),
            ("Rosa", "Poor baby. How old is he now?"),
            ("Hanne", "Eight months. Mats is at football, so at least it's only one screaming."),
            ("Liv", "I don't scream!"),
            ("Hanne", "No, sweetheart, you don't."),
        ),
        _scene(  # Tuesday 26 May, morning, at the library desk
            "desk_ilse",
            "2026-05-26T09:00:00+00:00",
            ("Ilse", "Morning, Rosa. Thanks for taking Kwame's shift."),
            ("Rosa", "No problem. He's at your husband's right now, I think."),
            ("Ilse", "Poor Kwame, Bruno says the tooth has to come out."),
            ("Rosa", "Ouch."),
            ("Ilse", "Listen, bad news about the reading. The author can't make Thursday."),
            ("Rosa", "Oh no, is it cancelled?"),
            ("Ilse", "No, moved to Friday, same time, half past six."),
            ("Rosa", "Okay, Friday the 29th. I'll update the posters."),
            ("Ilse", "Could you make new ones? The old ones say Thursday everywhere."),
            ("Rosa", "Sure, I'll have them printed by tomorrow."),
            ("Ilse", "Perfect. Also, from June we open at nine instead of ten."),
            ("Rosa", "Finally. Mm-hm, that'll help the students."),
            ("Ilse", "That's what I said to the council."),
        ),
        _scene(  # Tuesday 26 May, evening, on the phone
            "call_hanne",
            "2026-05-26T18:00:00+00:00",
            ("Hanne", "Rosa, hi, it's Hanne. Bad time?"),
            ("Rosa", "No, go ahead."),
            ("Hanne", "The moving company messed up. They can't come Thursday, now it's Saturday."),
            ("Rosa", "Oh no. Saturday the 30th? That's Liv's party."),
            ("Hanne", "Exactly. So we're moving the party to Sunday, same time, two o'clock."),
            ("Rosa", "Sunday the 31st, okay. Still at the new place?"),
            ("Hanne", "Yes, Quay Road, number fourteen. Liv is devastated it's a day late."),
            ("Rosa", "Tell her the cake will make up for it."),
            ("Hanne", "Ha, I will. Oh, and Mats made the school team."),
            ("Rosa", "Nice, tell him well done!"),
            ("Hanne", "Will do. Okay, Ebbe's crying, gotta go."),
            ("Rosa", "Bye!"),
        ),
        _scene(  # Friday 29 May, evening, the author reading at the library
            "author_reading",
            "2026-05-29T18:20:00+00:00",
            ("Ilse", "Rosa, the posters looked great, full house tonight."),
            ("Rosa", "Thanks! Oh look, Teodor came."),
            ("Teodor", "You said come by. I didn't know there'd be wine."),
            ("Kwame", "Teodor! How's the job hunt?"),
            ("Teodor", "Done, actually. I start at the City Theatre on Monday, doing sound."),
            ("Rosa", "That's brilliant, congratulations!"),
            ("Kwame", "Sorry if I mumble, my jaw's still swollen from the tooth."),
            ("Teodor", "Ouch. Who pulled it?"),
            ("Kwame", "Bruno, Ilse's husband. He was very gentle, to be fair."),
            ("Ilse", "I'll tell him. Kwame, shall I tell them the news?"),
            ("Kwame", "Go on."),
            ("Ilse", "Kwame's contract is permanent from next month. No more temp renewals."),
            ("Rosa", "Kwame! Finally!"),
            ("Kwame", "Yeah, you're stuck with me now."),
            ("Ilse", "Right, it's starting, let's sit down."),
        ),
        _scene(  # Monday 1 June, afternoon, Hanne's new flat
            "quay_road",
            "2026-06-01T17:00:00+00:00",
            ("Hanne", "Welcome to Quay Road! Mind the boxes."),
            ("Rosa", "Wow, look at the light in here. And the harbour view!"),
            ("Hanne", "I know. Still can't believe we're in."),
            ("Mats", "Hi Rosa. Did you see my room? It's bigger than Liv's."),
            ("Rosa", "Hi Mats. I heard you made the school team, well done!"),
            ("Mats", "Thanks. First match is on Saturday, I'm playing defence."),
            ("Hanne", "Liv is still talking about your cake yesterday. Best birthday ever, she says."),
            ("Rosa", "Aw, I'm glad. Where is she?"),
            ("Hanne", "At her grandma's with Ebbe. Oh, the drill, can I keep it till Friday?"),
            ("Rosa", "Of course, keep it as long as you need."),
            ("Hanne", "The shelves are up at least. Kitchen next."),
            ("Mats", "Mum, can Rosa come to my match?"),
            ("Rosa", "I'd love to. Saturday, what time?"),
            ("Mats", "Ten o'clock, at the school field."),
            ("Rosa", "I'll be there."),
        ),
        _scene(  # Monday 1 June, evening, on the phone
            "call_declan_2",
            "2026-06-01T20:30:00+00:00",
            ("Rosa", "Hey, Declan. I booked the table for mum."),
            ("Declan", "Amazing. Where?"),
            ("Rosa", "The Olive Tree, Sunday the 7th, one o'clock. Table for six."),
            ("Declan", "She'll love that. Oh, good news, I'm on days now."),
            ("Rosa", "Finally! Since when?"),
            ("Declan", "Started this morning. Seven to three. I actually saw the sun."),
            ("Rosa", "Ha. And the motorbike?"),
            ("Declan", "Sold it on Friday. A student bought it."),
            ("Rosa", "Saoirse must be happy."),
            ("Declan", "Thrilled. She got made head baker too, so we're celebrating."),
            ("Rosa", "Tell her congratulations from me."),
            ("Declan", "Will do. See you Sunday then."),
            ("Rosa", "See you Sunday. Bring the card, I'll get flowers."),
        ),
    )
}

ASKED_AT = "2026-06-02T08:30:00+00:00"  # Tuesday morning, the day after the last conversation

_MINUTE = (
    "1 minute",
    "one minute",
    "a minute",
    "2 minutes",
    "two minutes",
    "90 seconds",
    "88 seconds",
    "minute and a half",
    "1.5 minutes",
    "one and a half minutes",
    "under two minutes",
    "less than two minutes",
    "couple of minutes",
    "few minutes",
    "minute or two",
    "1-2 minutes",
    "1 to 2 minutes",
)

QUESTIONS: tuple[LifeQuestion, ...] = (
    # lookup
    LifeQuestion(
        "what does Petra do for work again?",
        "lookup",
        ("vet nurse", "veterinary nurse", "veterinary", "vet"),
        lines=(("cafe_petra", 2),),
    ),
    LifeQuestion(
        "what's Declan's job?", "lookup", ("mechanic", "engines", "engine"), lines=(("call_declan", 2), ("barbecue", 9))
    ),
    LifeQuestion(
        "what kind of work does Teodor do", "lookup", ("sound",), lines=(("cafe_petra", 10), ("author_reading", 4))
    ),
    LifeQuestion("what's Petra's cat called?", "lookup", ("pickle",), lines=(("cafe_petra", 4),)),
    LifeQuestion(
        "which restaurant did I book for mum's birthday", "lookup", ("olive tree",), lines=(("call_declan_2", 2),)
    ),
    LifeQuestion(
        "what number on Quay Road is Hanne's new flat?", "lookup", ("14", "fourteen"), lines=(("call_hanne", 6),)
    ),
    LifeQuestion("what's Teodor's surname?", "lookup"),
    LifeQuestion("how much did Declan get for his motorbike?", "lookup"),
    LifeQuestion("which school does Liv go to", "lookup"),
    # who
    LifeQuestion("who's moving down to Quay Road?", "who", ("hanne",), lines=(("landing_hanne", 2),)),
    LifeQuestion(
        "who ended up pulling Kwame's tooth?",
        "who",
        ("bruno", "lund", "ilse's husband", "ilses husband"),
        lines=(("author_reading", 8), ("desk_ilse", 2)),
    ),
    LifeQuestion(
        "who was it that just moved here from Lisbon?", "who", ("teodor",), lines=(("cafe_petra", 8), ("barbecue", 3))
    ),
    LifeQuestion(
        "who does Petra go climbing with?",
        "who",
        ("kwame",),
        lines=(("cafe_petra", 11), ("cafe_petra", 12), ("staff_lunch", 2)),
    ),
    LifeQuestion("who was the author at the library reading?", "who"),
    # when
    LifeQuestion(
        "when's Petra's physio appointment?",
        "when",
        ("3 june", "june 3", "3rd of june", "june 3rd", "3rd june", "wednesday", "tomorrow"),
        lines=(("cafe_petra", 14),),
    ),
    LifeQuestion(
        "when is mum's birthday lunch",
        "when",
        ("7 june", "june 7", "7th of june", "june 7th", "7th june", "sunday"),
        lines=(("call_declan_2", 2), ("call_declan", 7)),
    ),
    LifeQuestion("what time does Mats's match start on Saturday?", "when", ("10", "ten"), lines=(("quay_road", 13),)),
    LifeQuestion(
        "roughly when did Teodor arrive from Lisbon?",
        "when",
        (
            "early may",
            "beginning of may",
            "start of may",
            "2 may",
            "may 2",
            "three weeks",
            "3 weeks",
            "first week of may",
        ),
        lines=(("barbecue", 3),),
    ),
    LifeQuestion("what time is Petra's physio on the 3rd?", "when"),
    LifeQuestion("when is Petra's birthday?", "when"),
    # yesno
    LifeQuestion(
        "does Petra have any pets?", "yesno", ("yes", "cat", "pickle"), lines=(("cafe_petra", 3), ("cafe_petra", 4))
    ),
    LifeQuestion(
        "is Declan still working nights?",
        "yesno",
        ("days", "day shift", "no longer", "not anymore", "not any more"),
        lines=(("call_declan_2", 3), ("call_declan_2", 5)),
    ),
    LifeQuestion("has Declan still got his motorbike?", "yesno", ("sold",), lines=(("call_declan_2", 7),)),
    LifeQuestion("does Teodor play an instrument?", "yesno", ("bass",), lines=(("barbecue", 5),)),
    LifeQuestion("does Kwame have kids?", "yesno"),
    # order
    LifeQuestion(
        "which came first, Hanne's move or Liv's party?",
        "order",
        ("move", "moving"),
        lines=(("call_hanne", 2), ("call_hanne", 4)),
    ),
    LifeQuestion(
        "did I meet Teodor before or after Kwame went to the dentist?",
        "order",
        ("before",),
        lines=(("barbecue", 1), ("staff_lunch", 6), ("desk_ilse", 1)),
    ),
    LifeQuestion(
        "what was earlier, Petra's barbecue or the author reading?",
        "order",
        ("barbecue",),
        lines=(("barbecue", 0), ("author_reading", 0)),
    ),
    # recap
    LifeQuestion(
        "what did Hanne and I chat about on the landing on the 19th?",
        "recap",
        ("quay road", "move", "drill", "mats", "football", "three kids"),
        need=2,
        lines=(("landing_hanne", 2), ("landing_hanne", 8)),
    ),
    LifeQuestion(
        "what did we talk about at lunch on 19 May?",
        "recap",
        ("bouldering", "climbing", "dentist", "shift", "contract", "reading"),
        need=2,
        lines=(("staff_lunch", 2), ("staff_lunch", 6), ("staff_lunch", 12), ("staff_lunch", 13)),
    ),
    LifeQuestion(
        "how was Petra's barbecue, what happened there?",
        "recap",
        ("teodor", "jazz", "lisbon", "burger", "bass", "library"),
        need=2,
        lines=(("barbecue", 0), ("barbecue", 5)),
    ),
    LifeQuestion(
        "sum up my coffee with Petra",
        "recap",
        ("barbecue", "pickle", "cat", "teodor", "physio", "wrist", "climbing"),
        need=2,
        lines=(("cafe_petra", 4), ("cafe_petra", 6), ("cafe_petra", 14)),
    ),
    LifeQuestion(
        "what did Declan and I talk about last night?",
        "recap",
        ("olive tree", "day shift", "days", "motorbike", "bike", "head baker", "flowers"),
        need=2,
        lines=(("call_declan_2", 2), ("call_declan_2", 3), ("call_declan_2", 7)),
    ),
    LifeQuestion(
        "what happened yesterday?",
        "recap",
        ("quay road", "hanne", "mats", "declan", "olive tree", "match", "new flat"),
        need=2,
        lines=(("quay_road", 0), ("call_declan_2", 0)),
    ),
    LifeQuestion("what did Kwame and I talk about on 1 June?", "recap"),
    LifeQuestion("what did Ilse and I talk about on Sunday the 24th?", "recap"),
    # met
    LifeQuestion(
        "who did I see on Saturday the 23rd?",
        "met",
        ("petra", "teodor", "kwame", "hanne", "liv"),
        need=5,
        lines=(("barbecue", 0), ("drill_hanne", 0)),
    ),
    LifeQuestion(
        "who did I talk to yesterday",
        "met",
        ("hanne", "mats", "declan"),
        need=3,
        lines=(("quay_road", 0), ("call_declan_2", 0)),
    ),
    LifeQuestion(
        "who was at the author reading with me?",
        "met",
        ("ilse", "kwame", "teodor"),
        need=3,
        lines=(("author_reading", 0), ("author_reading", 2), ("author_reading", 3)),
    ),
    LifeQuestion(
        "who did I speak to on 26 May?", "met", ("ilse", "hanne"), need=2, lines=(("desk_ilse", 0), ("call_hanne", 0))
    ),
    LifeQuestion(
        "who did I meet up with on the 21st?",
        "met",
        ("petra", "declan"),
        need=2,
        lines=(("cafe_petra", 0), ("call_declan", 0)),
    ),
    LifeQuestion("who did I talk to on Wednesday the 27th?", "met"),
    LifeQuestion("who did I meet on 4 June?", "met", asked_at="2026-06-05T09:00:00+00:00"),
    # last_met
    LifeQuestion(
        "when did I last talk to Kwame?",
        "last_met",
        ("29 may", "may 29", "29th", "friday", "reading"),
        lines=(("author_reading", 3),),
    ),
    LifeQuestion(
        "when did I first meet Teodor?", "last_met", ("23 may", "may 23", "23rd", "barbecue"), lines=(("barbecue", 1),)
    ),
    LifeQuestion(
        "when did I last see Petra?", "last_met", ("23 may", "may 23", "23rd", "barbecue"), lines=(("barbecue", 0),)
    ),
    LifeQuestion(
        "last time I spoke with Ilse, when was that?",
        "last_met",
        ("29 may", "may 29", "29th", "friday", "reading"),
        lines=(("author_reading", 0),),
    ),
    LifeQuestion(
        "when did I last hear from Declan?",
        "last_met",
        ("1 june", "june 1", "yesterday", "monday", "1st of june", "june 1st", "1st june"),
        lines=(("call_declan_2", 0),),
    ),
    LifeQuestion("when did I last talk to Bruno?", "last_met"),
    LifeQuestion("when did I last see Fiona?", "last_met"),
    # how_often
    LifeQuestion(
        "how many times did Hanne and I talk in the last few weeks?",
        "how_often",
        ("4", "four"),
        lines=(("landing_hanne", 0), ("drill_hanne", 1), ("call_hanne", 0), ("quay_road", 0)),
    ),
    LifeQuestion(
        "how often did I see Kwame in May?",
        "how_often",
        ("3", "three"),
        lines=(("staff_lunch", 0), ("barbecue", 4), ("author_reading", 3)),
    ),
    LifeQuestion(
        "how many times did I speak with Declan?",
        "how_often",
        ("2", "two", "twice"),
        lines=(("call_declan", 0), ("call_declan_2", 1)),
    ),
    LifeQuestion(
        "how many times have I run into Teodor?",
        "how_often",
        ("2", "two", "twice"),
        lines=(("barbecue", 1), ("author_reading", 2)),
    ),
    LifeQuestion(
        "how many conversations have I had with Ilse since mid-May?",
        "how_often",
        ("3", "three"),
        lines=(("staff_lunch", 3), ("desk_ilse", 0), ("author_reading", 0)),
    ),
    # how_long
    LifeQuestion(
        "how long was my phone call with Hanne on the 26th?",
        "how_long",
        _MINUTE,
        lines=(("call_hanne", 0), ("call_hanne", 11)),
    ),
    LifeQuestion(
        "how long has Kwame been bouldering?", "how_long", ("3 years", "three years"), lines=(("staff_lunch", 4),)
    ),
    LifeQuestion(
        "how long did Hanne live on Linden Street?",
        "how_long",
        ("12 years", "twelve years"),
        lines=(("landing_hanne", 4),),
    ),
    LifeQuestion("how long has Teodor been playing jazz?", "how_long", ("fifteen", "15"), lines=(("barbecue", 7),)),
    LifeQuestion("how long is Petra's physio session?", "how_long"),
    # state
    LifeQuestion("where does Hanne live now?", "state", ("quay road",), lines=(("quay_road", 0), ("call_hanne", 6))),
    LifeQuestion(
        "what shift is Declan on these days?",
        "state",
        ("day", "seven", "7"),
        lines=(("call_declan_2", 3), ("call_declan_2", 5)),
    ),
    LifeQuestion("is Kwame still a temp?", "state", ("permanent",), lines=(("author_reading", 11),)),
    LifeQuestion("what time does the library open now?", "state", ("9", "nine"), lines=(("desk_ilse", 10),)),
    LifeQuestion(
        "has Teodor found a job yet?",
        "state",
        ("city theatre", "city theater", "theatre", "theater"),
        lines=(("author_reading", 4),),
    ),
    LifeQuestion(
        "who's got my drill at the moment?",
        "state",
        ("hanne",),
        lines=(("drill_hanne", 0), ("quay_road", 8), ("quay_road", 9)),
    ),
    LifeQuestion("what car is Declan driving now that the bike is gone?", "state"),
    # change
    LifeQuestion(
        "did Liv's party get moved?",
        "change",
        ("saturday", "sunday", "30", "31"),
        need=2,
        lines=(("call_hanne", 4), ("drill_hanne", 4)),
    ),
    LifeQuestion(
        "what changed with the author reading?",
        "change",
        ("thursday", "friday", "28", "29"),
        need=2,
        lines=(("staff_lunch", 13), ("desk_ilse", 6)),
    ),
    LifeQuestion(
        "did Hanne's moving day change at all?",
        "change",
        ("thursday", "saturday", "28", "30"),
        need=2,
        lines=(("landing_hanne", 6), ("call_hanne", 2)),
    ),
    LifeQuestion(
        "what's changed for Declan at work?",
        "change",
        ("night", "day"),
        need=2,
        lines=(("call_declan", 2), ("call_declan_2", 3)),
    ),
    LifeQuestion(
        "what happened with Kwame's contract?",
        "change",
        ("temporary", "permanent"),
        need=2,
        lines=(("staff_lunch", 12), ("author_reading", 11)),
    ),
    LifeQuestion(
        "are the library opening hours changing?",
        "change",
        ("ten", "nine", "10", "9"),
        need=2,
        lines=(("desk_ilse", 10),),
    ),
    LifeQuestion("what changed with Petra's job lately?", "change"),
    # relation
    LifeQuestion("where does my brother's wife work?", "relation", ("bakery",), lines=(("call_declan", 6),)),
    LifeQuestion("what does Ilse's husband do?", "relation", ("dentist",), lines=(("staff_lunch", 10),)),
    LifeQuestion(
        "how is Teodor related to Petra?", "relation", ("cousin",), lines=(("cafe_petra", 8), ("barbecue", 0))
    ),
    LifeQuestion(
        "whose baby is Ebbe?", "relation", ("hanne",), lines=(("drill_hanne", 9), ("quay_road", 8), ("call_hanne", 10))
    ),
    LifeQuestion("what's my sister-in-law's new job?", "relation", ("head baker",), lines=(("call_declan_2", 9),)),
    LifeQuestion("how is Declan related to me?", "relation", ("brother",), lines=(("barbecue", 9), ("call_declan", 0))),
    LifeQuestion("what's Hanne's husband called?", "relation"),
    LifeQuestion("what does Saoirse's brother do?", "relation"),
    # list
    LifeQuestion(
        "what are Hanne's kids called?",
        "list",
        ("mats", "liv", "ebbe"),
        need=3,
        lines=(("landing_hanne", 11), ("drill_hanne", 2), ("drill_hanne", 9)),
    ),
    LifeQuestion(
        "which animals did Petra deal with at work the day we had coffee?",
        "list",
        ("cat", "parrot"),
        need=2,
        lines=(("cafe_petra", 2),),
    ),
    LifeQuestion(
        "who do I work with at the library?",
        "list",
        ("kwame", "ilse"),
        need=2,
        lines=(("staff_lunch", 6), ("staff_lunch", 13), ("desk_ilse", 0)),
    ),
    LifeQuestion(
        "what news did Declan have for me last night?",
        "list",
        ("day", "bike", "head baker"),
        need=3,
        lines=(("call_declan_2", 3), ("call_declan_2", 7), ("call_declan_2", 9)),
    ),
    LifeQuestion(
        "which of my friends are into climbing?",
        "list",
        ("kwame", "petra"),
        need=2,
        lines=(("staff_lunch", 2), ("cafe_petra", 12)),
    ),
    LifeQuestion("list Declan's kids for me", "list"),
    # count
    LifeQuestion("how many kids does Hanne have?", "count", ("3", "three"), lines=(("landing_hanne", 10),)),
    LifeQuestion(
        "how many people did I talk to on the 23rd?",
        "count",
        ("5", "five"),
        lines=(("barbecue", 0), ("drill_hanne", 0)),
    ),
    LifeQuestion("how many is the table for mum's lunch?", "count", ("6", "six"), lines=(("call_declan_2", 2),)),
    LifeQuestion(
        "how many conversations did I have on 26 May?",
        "count",
        ("2", "two"),
        lines=(("desk_ilse", 0), ("call_hanne", 0)),
    ),
    LifeQuestion("how old is Liv turning?", "count", ("9", "nine"), lines=(("drill_hanne", 4),)),
    LifeQuestion("how many people came to the author reading?", "count"),
    # plans
    LifeQuestion(
        "what have I got on Saturday?",
        "plans",
        ("match", "football"),
        lines=(("quay_road", 5), ("quay_road", 12), ("quay_road", 14)),
    ),
    LifeQuestion(
        "what's coming up this week?",
        "plans",
        ("match", "olive tree", "birthday", "physio", "flowers"),
        need=2,
        lines=(("quay_road", 5), ("call_declan_2", 2), ("cafe_petra", 14)),
    ),
    LifeQuestion(
        "what did I promise Declan?", "plans", ("flowers", "book"), lines=(("call_declan_2", 12), ("call_declan", 10))
    ),
    LifeQuestion(
        "what did I promise Liv?",
        "plans",
        ("cake", "sprinkles"),
        lines=(("drill_hanne", 6), ("drill_hanne", 8)),
        asked_at="2026-05-24T09:00:00+00:00",
    ),
    LifeQuestion(
        "what am I doing next Tuesday morning?",
        "plans",
        ("shift", "cover"),
        lines=(("staff_lunch", 6), ("staff_lunch", 7)),
        asked_at="2026-05-20T09:00:00+00:00",
    ),
    LifeQuestion(
        "have I got anything on Friday evening?",
        "plans",
        ("reading",),
        lines=(("desk_ilse", 6),),
        asked_at="2026-05-27T08:00:00+00:00",
    ),
    LifeQuestion(
        "what's happening this Sunday?",
        "plans",
        ("party", "birthday"),
        lines=(("call_hanne", 4), ("call_hanne", 5)),
        asked_at="2026-05-27T08:00:00+00:00",
    ),
    LifeQuestion(
        "what did I promise Hanne on the 19th?",
        "plans",
        ("drill",),
        lines=(("landing_hanne", 9),),
        asked_at="2026-05-20T09:00:00+00:00",
    ),
    LifeQuestion("what's my plan with Kwame for next weekend?", "plans"),
    # guess
    LifeQuestion(
        "would Teodor be up for a jazz night?",
        "guess",
        ("yes", "likely", "probably", "would enjoy", "would love", "sure"),
        lines=(("barbecue", 5), ("barbecue", 7)),
    ),
    LifeQuestion(
        "would Kwame be into a climbing trip?",
        "guess",
        ("yes", "likely", "probably", "would enjoy", "would love", "sure"),
        lines=(("staff_lunch", 4), ("cafe_petra", 12)),
    ),
    LifeQuestion(
        "do you think Mats would like going to a football game with me?",
        "guess",
        ("yes", "likely", "probably", "would enjoy", "would love", "sure"),
        lines=(("landing_hanne", 12), ("quay_road", 5)),
    ),
    LifeQuestion("what's Petra's dog called?", "lookup"),
)
