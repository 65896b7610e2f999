"""What a clause says in passing, not as a fact of anyone's (app/consolidation/atoms.py leaves it out): a request
of the listener ("please bring ...", "count me in"), a courtesy ("sorry about your job"), an answer to an offer
("nothing for me, thanks"), encouragement ("you've got this"), a word said to someone by name ("Bye Jon"), how
someone is just now, about nothing ("I'm fine, just tired"), what was not done, about nothing ("I couldn't do
much"), and where someone goes or is back from in passing ("I'm going down to the cafe", "I'm just back from my
run"; with a time it is a plan or an event)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from app.text.timeexpr import plan_window
from app.text.words import keywords

ANY_DAY = datetime(2000, 1, 5, tzinfo=timezone.utc)  # whether a clause names a time, not which
_REQUEST = re.compile(  # asked of the listener, or shown to them ("check it out", "here's a pic of ...")
    r"^(?:please|do not|don't|let's|let us|remember|tell|ask|call|bring|check (?:it|this|that) out|look at|"
    r"here's|here is|(?:I'll |I will )?keep (?:you|me) posted|count (?:me|us) in|sign (?:me|us) up)\b",
    re.IGNORECASE,
)
_COURTESY = re.compile(  # what is said to the listener, not of anyone: thanks, sorry, congratulations, "you ..."
    r"^(?:(?:I'm |I am )?(?:so )?sorry|congrats|congratulations|good luck|way to go|proud of you|thanks|thank you|"
    r"appreciate|glad|happy for you|(?:that's|that is) (?:fine|ok|okay|alright|all right)|for (?:letting|having|"
    r"sharing|being)|wishing you|woo+hoo+)\b",
    re.IGNORECASE,
)
_ORDER = re.compile(  # an answer to an offer, not a fact: "Nothing for me, thanks", "I'd love a tea, thanks"
    r"^(?:nothing(?: for me)?|not for me|no thanks|(?:I(?:'d| would) (?:love|like)|I(?:'ll| will) (?:have|take)|just)"
    r" (?:a|an|some))\b(?:\s+[^\s,]+){0,2},\s*(?:thanks|thank you)$",
    re.IGNORECASE,
)
_CHEER = re.compile(  # encouragement said to the listener: no fact of anyone when the clause says nothing else
    r"\b(?:(?:I'm |I am )?(?:always |so |really )*(?:here )?(?:to )?(?:"
    r"you(?:['’]ve)? got this|you can do (?:it|this)|hang in there|believe in (?:yourself|you)|here for you|"
    r"proud of you|cheer you on|by your side|got your back|you earned it|you deserve it))\b",
    re.IGNORECASE,
)
_HAIL = re.compile(  # a name and a word said to them: "Go Jon", "Bye Jon", "Absolutely Jon"
    r"^(?:go|bye|goodbye|hi|hey|hello|thanks|cheers|congrats|absolutely|sure|night|morning|welcome|yay|love you|"
    r"miss you)[\s,!]+[A-Z][a-z]+$",
    re.IGNORECASE,
)
_FEELING = (
    r"(?:fine|tired|exhausted|sleepy|jealous|grumpy|good|great|okay|ok|alright|all right|well|busy|bored|stressed|"
    r"sorry|glad|happy|sad|excited|nervous|worried|upset|annoyed|thrilled|relieved|hungry|cold|ready)"
)
_DEGREE = r"(?:(?:so|very|really|just|pretty|quite|a bit|a little|totally|super|a lot)\s+)*"
_MOOD = re.compile(  # how someone is just now, about nothing: "I'm fine, just tired", "she's so jealous"
    rf"^\S+?(?:['’](?:m|s|re)|\s+(?:am|is|are|was|were|feel|feels|felt))\s+{_DEGREE}{_FEELING}"
    rf"(?:,?\s+(?:just|but|and|though)\s+{_DEGREE}{_FEELING})*$",
    re.IGNORECASE,
)
_ERRAND = (  # where someone goes or comes back from in passing: the day's errands and breaks, not trips
    r"(?:run|walk|jog|swim|ride|workout|gym|shop|shops|store|supermarket|cafe|café|canteen|kitchen|break|lunch|"
    r"coffee|bakery|pub|bar|park|loo|bathroom|toilet)"
)
_PASSING = re.compile(  # where someone is going or is back from just now: "I'm going down to the cafe", "I'm just
    # back from my run" (with a time it is a plan or an event: "I'm off to the gym on Monday")
    r"^\S+?(?:['’](?:m|s|re)|\s+(?:am|is|are))\s+(?:just\s+)?(?:back from|off to|(?:going|heading|popping|nipping)"
    r"(?:\s+(?:down|over|out|up|back|off))?\s+to|on (?:my|his|her|their|our|the) way to)\s+"
    rf"(?:the|my|our|his|her|their)\s+(?:[a-z]+\s+)?{_ERRAND}$",
    re.IGNORECASE,
)
_NOTHING_DONE = re.compile(  # what was not done, about nothing: "I couldn't do much", "she can't do anything"
    r"^\S+(?:\s+(?:really|just|still))?\s+(?:can't|cannot|can not|couldn't|could not|didn't|did not)\s+do\s+"
    r"(?:much|anything|a thing|a lot)$",
    re.IGNORECASE,
)


def said_in_passing(clause: str) -> bool:
    """Whether `clause` (the speaker's words, before the third person) is said in passing (the module's text)."""
    return bool(
        _REQUEST.match(clause)
        or _COURTESY.match(clause)
        or _ORDER.match(clause)
        or (_CHEER.search(clause) and len(keywords(_CHEER.sub(" ", clause))) < 2)
        or _MOOD.match(clause)
        or _NOTHING_DONE.match(clause)
        or (_PASSING.match(clause) and plan_window(clause, ANY_DAY) is None)
        or _HAIL.match(clause)
    )
