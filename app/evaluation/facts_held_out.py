# ruff: noqa: E501  (the scenes' lines are kept whole, as they were written)
"""`eval facts --held-out`: four scenes and the atomic facts a careful person would write down from them, written
blind by a helper session that never read the extraction rules or this evaluation (a dinner, a stand-up at work,
a phone call, coffee with friends). Never tuned on: a change made to pass one of these facts belongs in the
gold set instead.
"""

from __future__ import annotations

from app.evaluation.gold import GoldFact, Scene

SCENES: dict[str, Scene] = {
    # Thursday 2026-03-12
    "dinner_at_nadias": Scene(
        "dinner_at_nadias",
        (
            ("Nadia", "Hi Felix, hi Omar, come in! Dinner's almost ready."),
            ("Felix", "Thanks, Nadia, it smells amazing. Sorry we're late, the traffic was terrible."),
            ("Omar", "No worries, Felix. How's your daughter Ines doing, by the way?"),
            (
                "Felix",
                "Oh, she's great. She came second in the backstroke at a swim meet yesterday, and she's competing in the regional championship in May.",
            ),
            ("Nadia", "That's great! Omar, is curry okay for you?"),
            (
                "Omar",
                "Curry's perfect, I love spicy food. But I'm allergic to peanuts, so I hope there aren't any in it.",
            ),
            ("Nadia", "No peanuts, I promise. Felix, how's work going?"),
            ("Felix", "Well, I left the library last month. I'm a project manager at a solar energy company now."),
            ("Omar", "Nice! My brother Karim works in solar too, he installs panels in Leeds."),
            (
                "Nadia",
                "Okay, let's eat. I can't stay up late, I've got my yoga class tomorrow morning, I go every Friday.",
            ),
        ),
        "2026-03-12T19:00:00+00:00",
        "dinner_at_nadias",
    ),
    # Monday 2026-05-18
    "monday_standup": Scene(
        "monday_standup",
        (
            ("Greta", "Morning, Theo! Morning, Samir. Did you both have a good weekend?"),
            ("Theo", "Yeah, it was nice. I went hiking in the Peak District on Saturday with my girlfriend Mila."),
            ("Samir", "Not me. I twisted my ankle playing football on Friday, so I couldn't do much."),
            (
                "Greta",
                "Oh no, I'm sorry, Samir. Okay, quick update from me: I'm flying to Berlin on Thursday to meet the new client.",
            ),
            ("Theo", "By the way, Greta, I can't make Friday's meeting, I've got a dentist appointment."),
            ("Greta", "That's fine, thanks for telling me. Samir, how's the new app coming along?"),
            ("Samir", "Pretty well. I usually work on it from home on Wednesdays, it's quieter there."),
            (
                "Theo",
                "I can't stand the noise in the open office either. Anyway, who wants coffee? I'm going down to the cafe.",
            ),
            ("Samir", "Oh, I'd love a tea, thanks, Theo. I gave up coffee two months ago."),
            ("Greta", "Nothing for me, thanks. My wife Hana's picking me up for lunch today."),
        ),
        "2026-05-18T09:00:00+00:00",
        "monday_standup",
    ),
    # Sunday 2026-08-02
    "phone_call_sisters": Scene(
        "phone_call_sisters",
        (
            ("Rosa", "Hi Paula, it's Rosa! Have you got a minute?"),
            ("Paula", "Rosa! Of course, I'm just back from my run. I go every Sunday morning. How are you?"),
            ("Rosa", "I'm fine, just tired. I started my new job at the hospital on Monday, I'm a night nurse now."),
            ("Paula", "Oh, that's great, sis! Congratulations. Does your husband Marco mind the night shifts?"),
            ("Rosa", "Not really, he works from home anyway, so he takes the kids to school."),
            ("Paula", "That's lucky. Oh, by the way, our brother Luca is moving to Lisbon in September."),
            ("Rosa", "Really? He's always wanted to live by the sea. When did he decide?"),
            ("Paula", "He only told me the day before yesterday. He's going to work for a bank there."),
            ("Rosa", "Wow. Well, let's all have dinner at my place next Saturday before he goes."),
            ("Paula", "Perfect, count me in. Thanks for calling, Rosa!"),
        ),
        "2026-08-02T12:30:00+00:00",
        "phone_call_sisters",
    ),
    # Thursday 2026-11-05
    "coffee_at_brunos": Scene(
        "coffee_at_brunos",
        (
            ("Bruno", "Come in, come in! Keiko, Lena, great to see you. Horrible weather, isn't it?"),
            ("Keiko", "Awful. Thanks for having us, Bruno."),
            ("Lena", "So, Keiko, how was the trip? I'm so jealous, I've always wanted to go to Japan."),
            (
                "Keiko",
                "Oh, it was wonderful. I got back last week after two weeks in Osaka with my grandmother Fumiko. She just turned ninety.",
            ),
            ("Bruno", "Ninety! That's amazing. Does she still live on her own?"),
            ("Keiko", "She does, and she still gardens every morning."),
            ("Lena", "Good for her. Speaking of family, my son Jonas broke his arm at rugby practice on Tuesday."),
            ("Bruno", "Oh no, poor kid! Is he okay?"),
            ("Lena", "He's fine, just grumpy. He'll miss the school rugby tournament in December, though."),
            (
                "Bruno",
                "That's rough. Well, I've got news too: I'm retiring from the fire department in January, after thirty years there.",
            ),
        ),
        "2026-11-05T15:00:00+00:00",
        "coffee_at_brunos",
    ),
}

FACTS: tuple[GoldFact, ...] = (
    GoldFact("dinner_at_nadias", 2, "Ines", "Ines is Felix's daughter", "relation", None),
    GoldFact("dinner_at_nadias", 3, "Ines", "Ines came second in the backstroke at a swim meet", "event", "2026-03-11"),
    GoldFact(
        "dinner_at_nadias", 3, "Ines", "Ines will compete in the regional swimming championship", "plan", "2026-05"
    ),
    GoldFact("dinner_at_nadias", 5, "Omar", "Omar loves spicy food", "preference", None),
    GoldFact("dinner_at_nadias", 5, "Omar", "Omar is allergic to peanuts", "attribute", None),
    GoldFact("dinner_at_nadias", 7, "Felix", "Felix left his job at the library", "event", "2026-02"),
    GoldFact("dinner_at_nadias", 7, "Felix", "Felix is a project manager at a solar energy company", "attribute", None),
    GoldFact("dinner_at_nadias", 8, "Karim", "Karim is Omar's brother", "relation", None),
    GoldFact("dinner_at_nadias", 8, "Karim", "Karim installs solar panels in Leeds", "attribute", None),
    GoldFact("dinner_at_nadias", 9, "Nadia", "Nadia has a yoga class tomorrow morning", "plan", "2026-03-13"),
    GoldFact("dinner_at_nadias", 9, "Nadia", "Nadia goes to a yoga class every Friday", "habit", None),
    GoldFact("monday_standup", 1, "Theo", "Theo went hiking in the Peak District with Mila", "event", "2026-05-16"),
    GoldFact("monday_standup", 1, "Mila", "Mila is Theo's girlfriend", "relation", None),
    GoldFact("monday_standup", 2, "Samir", "Samir twisted his ankle playing football", "event", "2026-05-15"),
    GoldFact("monday_standup", 3, "Greta", "Greta is flying to Berlin to meet a new client", "plan", "2026-05-21"),
    GoldFact("monday_standup", 4, "Theo", "Theo has a dentist appointment on Friday", "plan", "2026-05-22"),
    GoldFact("monday_standup", 6, "Samir", "Samir usually works from home on Wednesdays", "habit", None),
    GoldFact("monday_standup", 7, "Theo", "Theo dislikes the noise in the open office", "preference", None),
    GoldFact("monday_standup", 8, "Samir", "Samir gave up coffee", "event", "2026-03"),
    GoldFact("monday_standup", 9, "Hana", "Hana is Greta's wife", "relation", None),
    GoldFact("monday_standup", 9, "Hana", "Hana is picking Greta up for lunch", "plan", "2026-05-18"),
    GoldFact("phone_call_sisters", 1, "Paula", "Paula goes running every Sunday morning", "habit", None),
    GoldFact("phone_call_sisters", 2, "Rosa", "Rosa started a new job at the hospital", "event", "2026-07-27"),
    GoldFact("phone_call_sisters", 2, "Rosa", "Rosa is a night nurse at a hospital", "attribute", None),
    GoldFact("phone_call_sisters", 3, "Rosa", "Rosa is Paula's sister", "relation", None),
    GoldFact("phone_call_sisters", 3, "Marco", "Marco is Rosa's husband", "relation", None),
    GoldFact("phone_call_sisters", 4, "Marco", "Marco works from home", "attribute", None),
    GoldFact("phone_call_sisters", 4, "Marco", "Marco takes the kids to school", "habit", None),
    GoldFact("phone_call_sisters", 5, "Luca", "Luca is Paula's brother", "relation", None),
    GoldFact("phone_call_sisters", 5, "Luca", "Luca is moving to Lisbon", "plan", "2026-09"),
    GoldFact("phone_call_sisters", 6, "Luca", "Luca has always wanted to live by the sea", "preference", None),
    GoldFact("phone_call_sisters", 7, "Luca", "Luca told Paula he is moving to Lisbon", "event", "2026-07-31"),
    GoldFact("phone_call_sisters", 7, "Luca", "Luca is going to work for a bank in Lisbon", "plan", None),
    GoldFact("phone_call_sisters", 8, "Rosa", "Rosa is hosting a family dinner at her place", "plan", "2026-08-08"),
    GoldFact("coffee_at_brunos", 2, "Lena", "Lena has always wanted to go to Japan", "preference", None),
    GoldFact(
        "coffee_at_brunos", 3, "Keiko", "Keiko spent two weeks in Osaka with her grandmother Fumiko", "event", None
    ),
    GoldFact("coffee_at_brunos", 3, "Fumiko", "Fumiko is Keiko's grandmother", "relation", None),
    GoldFact("coffee_at_brunos", 3, "Fumiko", "Fumiko is ninety years old", "attribute", None),
    GoldFact("coffee_at_brunos", 5, "Fumiko", "Fumiko lives on her own", "attribute", None),
    GoldFact("coffee_at_brunos", 5, "Fumiko", "Fumiko gardens every morning", "habit", None),
    GoldFact("coffee_at_brunos", 6, "Jonas", "Jonas is Lena's son", "relation", None),
    GoldFact("coffee_at_brunos", 6, "Jonas", "Jonas broke his arm at rugby practice", "event", "2026-11-03"),
    GoldFact("coffee_at_brunos", 8, "Jonas", "Jonas will miss the school rugby tournament", "plan", "2026-12"),
    GoldFact("coffee_at_brunos", 9, "Bruno", "Bruno is retiring from the fire department", "plan", "2027-01"),
    GoldFact(
        "coffee_at_brunos", 9, "Bruno", "Bruno has worked for the fire department for thirty years", "attribute", None
    ),
)
