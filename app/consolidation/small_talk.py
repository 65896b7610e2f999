"""What a clause says in passing, not as a fact of anyone's (app/consolidation/atoms.py leaves it out): a request of the
listener ("please bring ...", "count me in"), a courtesy ("sorry about your ankle"), an answer to an offer ("nothing
for me, thanks"), encouragement ("you can do it"), a word said to someone by name ("Bye Emily"), how someone is just
now, about nothing ("I'm fine, just tired"), agreement about nothing ("I completely agree", "I totally understand"),
a feeling about the listener ("I'm so glad you're enjoying it"), what was not done, about nothing ("I couldn't do
much"), where someone goes or is back from in passing ("I'm going down to the cafe", "I'm just back from my run";
with a time it is a plan or an event), resolve about nothing ("I'll keep trying and never give up"), thanks for the
listener's support in other words ("your encouragement means the world to me"), that there is news, with none of it
("a lot's happened since we last talked", "last month was crazy") and what is said of the listener ("you've done so
well", "your garden looks great", "I'm sure you'll be fine", "I bet it felt good": theirs to say, not the speaker's
fact), someone shown to another ("Yuki, this is Raj from work", "Look, Teodor came"), and the answer that leaves its
main clause to the question it answers ("Since I was fifteen", "Because it's cheaper")."""

from __future__ import annotations

import calendar
import re
from datetime import datetime, timezone

from app.text.timeexpr import WEEKDAYS, plan_window
from app.text.words import keywords

ANY_DAY = datetime(2000, 1, 5, tzinfo=timezone.utc)  # whether a clause names a time, not which
_MONTH_NAMES = "|".join(m.lower() for m in calendar.month_name[1:])  # in full: "May was wild", not "Mar"
_REQUEST = re.compile(  # asked of the listener, or shown to them ("check it out", "here's the photo of ...")
    r"^(?:just\s+)?(?:please|do not|don't|let's|let us|remember|remind|tell|ask|call|bring|check (?:it|this|that) out|"
    r"look (?:at|who|what|here)|this is a (?:photo|pic|picture|shot|snap) of|"
    r"let me (?:know|fill you in|send you|show you)|lemme know|here's|here is|"
    r"(?:I'll |I will )?keep (?:you|me) posted|count (?:me|us) in|"
    r"sign (?:me|us) up)\b",
    re.IGNORECASE,
)
_COURTESY = re.compile(  # what is said to the listener, not of anyone: thanks, sorry, congratulations, "you ..."
    r"^(?:really |truly |just )?(?:(?:I'm |I am )?(?:so )?sorry|congrats|congratulations|good luck|way to go|"
    r"proud of you|thanks|thank you|"
    r"appreciate|glad|happy for you|(?:that's|that is) (?:fine|ok|okay|alright|all right)|for (?:letting|having|"
    r"sharing|being|inviting|showing|telling|asking|helping|listening|the (?:invite|invitation|understanding|"
    r"support|help|advice|tips?|kind words|offer|chat|talk))|wishing you|(?:I )?wish you|"
    r"(?:I['’]d|I would) love to (?:hear|know)|woo+hoo+|bye|"
    r"see (?:you|ya)\b(?!.*\b(?:at|on|in|tomorrow|tonight|next|this)\b))\b",  # goodbye, not a plan
    re.IGNORECASE,
)
_TURN_TAKEN = re.compile(  # what a speaker says before taking their turn: "quick update from me", "one thing from me"
    r"^(?:a\s+|one\s+)?(?:(?:quick|short|little|small|last)\s+)?(?:update|news|question|thing|reminder|announcement)s?"
    r"\s+from\s+me$",
    re.IGNORECASE,
)
_ORDER = re.compile(  # an answer to an offer, not a fact: "Nothing for me, thanks", "I'd love a tea, thanks" (a
    # recognizer may leave out the "'d": "I love a tea, thanks")
    r"^(?:nothing(?: for me)?|not for me|no thanks|(?:I(?:'d| would)? (?:love|like)|I(?:'ll| will) (?:have|take)|just)"
    r" (?:a|an|some))\b(?:\s+[^\s,]+){0,2},\s*(?:thanks|thank you)$",
    re.IGNORECASE,
)
_CHEER = re.compile(  # encouragement said to the listener: no fact of anyone when the clause says nothing else
    r"\b(?:(?:I'm |I am )?(?:always |so |really )*(?:here )?(?:to )?(?:"
    r"you(?:['’]ve)? got this|you can do (?:it|this)|hang in there|believe in (?:yourself|you)|here for you|"
    r"proud of you|cheer you on|by your side|got your back|you earned it|you deserve it|"
    r"(?:here|there) (?:to|for) (?:support|help|listen to) you|(?:here|there) if you need (?:me|anything)))\b",
    re.IGNORECASE,
)
_RESOLVE = re.compile(  # resolve about nothing: "I'll keep trying", "not giving up on my plans", "this will pay off"
    r"\b(?:keep(?:s|ing)?\s+(?:on\s+)?(?:going|goin['’]?|pushing|pushin['’]?|moving|movin['’]?|trying|fighting|"
    r"plugging away|at it|working hard|chasing|believing)(?:\s+(?:forward|on|ahead|in (?:myself|me)))?|"
    r"(?:never|not|won['’]t|will not|don['’]t|do not)\s+(?:gonna\s+|going to\s+)?(?:give up|giving up|quit|"
    r"quitting|let (?:you|anyone|anything)(?:\s+or\s+anyone)?\s+(?:down|stop me|hold me back|get me down))|"
    r"stay(?:s|ing)?\s+(?:positive|hopeful|optimistic|upbeat|motivated|focused|determined|strong|on track)|"
    r"hang(?:s|ing)?\s+in\s+there|(?:do|give it|try)\s+(?:my|his|her|their|our)\s+best|"
    r"make\s+(?:it|this|that)\s+(?:happen|work)|make (?:my|our|his|her|their) dreams? come true|"
    r"(?:chas\w*|reach\w*|pursu\w*|follow\w*|go(?:ing)? (?:for|after))\s+(?:after\s+)?(?:my|our|his|her|"
    r"their|those|these|the)\s+(?:own\s+)?(?:dreams?|goals?)|push(?:ing)?\s+(?:forward|through|on|ahead)|"
    r"make you proud|(?:it|this|that|the rest)\s*(?:['’]ll|will)\s+(?:all\s+)?(?:pay off|be worth it|follow)|"
    r"keeps? me going|no matter what|"
    r"(?:whatever|however hard) (?:comes my way|things get)|in the end|even when it['’]s (?:hard|tough))\b",
    re.IGNORECASE,
)
_THANKED = re.compile(  # thanks in other words: "your encouragement means the world", "I really appreciate your advice"
    r"\b(?:your\s+(?:\w+\s+){0,2}?(?:support|help|words|faith|belief|encouragement|backing|pep[- ]?talk|advice|"
    r"kindness|pride)|(?:appreciate|grateful for|thankful for)\s+(?:you|your \w+|it)|"
    r"(?:you['’]ve|you have|knowing you['’]ve) got my back|in my corner)\b",
    re.IGNORECASE,
)
_TO_YOU = re.compile(  # what is said of the listener ("you've done so well", "your garden looks great", "I'm sure
    # you'll be fine"; "I bet ..." is `_BET`), not "you and I", nor news after a dash ("You won't believe it -
    # I got the job yesterday")
    r"^(?:(?:I['’]m|I am) (?:so |really |just )?sure|I (?:really |just )?(?:think|hope|believe|reckon|guess|"
    r"can tell|can see)|sounds like|looks like)?(?:,?\s*(?:that\s+)?)"
    r"(?:you|you['’](?:re|ve|ll|d)|your)\b(?!\s+and\b)(?!.*\s[-–—:]\s+(?:I|we|my|our)\b)",
    re.IGNORECASE,
)
_BET = re.compile(r"^I (?:just |really )?bet\b", re.IGNORECASE)  # a guess at the listener's day: "I bet it felt good"
_EMPTY = frozenset(  # words that say nothing once the resolve or thanks around them is gone
    "i'm i'll i've i'd gonna going wanna gotta really sure totally definitely always still even just so also "
    "means meant lot ton world feeling determined".split()
)
# someone present shown to another, not a fact of theirs: "Yuki, this is Raj from work", "Oh look, Teodor came"
_PRESENTING = re.compile(
    r"^(?:(?:this|that)\s+(?:is|'s)|meet|look,?)\s+(?-i:[A-Z])[a-z]+\b(?!['’]s)"
    r"(?:\s+(?:from|of|here|came|is here|made it|showed up)\b|\s*[,.!]|\s*$)",
    re.IGNORECASE,
)
# the answer to a question that left its main clause to the question: "Since I was fifteen", "Because it's cheaper"
_FRAGMENT = re.compile(
    r"^(?:since|because|'cause|cause|although|though|unless|until|till|whereas|if|once)\b[^,;]*$", re.I
)
_HAIL = re.compile(  # a name and a word said to them: "Go Emily", "Bye Emily", "Absolutely Emily"
    r"^(?:go|bye|goodbye|hi|hey|hello|thanks|cheers|congrats|absolutely|sure|night|morning|welcome|yay|love you|"
    r"miss you)[\s,!]+[A-Z][a-z]+$",
    re.IGNORECASE,
)
_FEELING = (
    r"(?:fine|tired|exhausted|sleepy|jealous|grumpy|good|great|okay|ok|alright|all right|well|busy|bored|stressed|"
    r"sorry|glad|happy|sad|excited|nervous|worried|upset|annoyed|thrilled|relieved|hungry|cold|ready|stoked|pumped|"
    r"psyched|scared|overwhelmed)"
)
_DEGREE = r"(?:(?:so|very|really|just|pretty|quite|a bit|a little|totally|super|a lot|kinda|kind of|sort of)\s+)*"
_MOOD = re.compile(  # how someone is just now, about nothing: "I'm fine, just tired", "she's so jealous"
    rf"^\S+?(?:['’](?:m|s|re)|\s+(?:am|is|are|was|were|feel|feels|felt))\s+{_DEGREE}{_FEELING}"
    rf"(?:,?\s+(?:just|but|and|though)\s+{_DEGREE}{_FEELING})*(?:\s+(?:about|for) (?:it|this|that|you))?$",
    re.IGNORECASE,
)
_GLAD = re.compile(  # a feeling about the listener, or glad about nothing: "I'm so glad you're enjoying the game",
    # "I'm excited to see the result of your hard work", "I'm so relieved to hear it", "I'm glad it's all sorted out"
    rf"^(?:I['’]m|I am)\s+{_DEGREE}(?:glad|happy|excited|thrilled|stoked|pumped|psyched|relieved)\s+"
    r"(?:.*\byou(?:r|['’]re|['’]ve|['’]ll)?\b|to (?:help|hear (?:that|it|this))$|(?:that\s+)?(?:it|that)['’]s\b)",
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
_NEWS_AHEAD = re.compile(  # that there is news, or how a stretch of time was, with nothing of it: "A lot's happened
    # since we last talked", "Something amazing happened", "Last month was crazy", "Yesterday was so hectic"
    r"^(?:(?:(?:a lot|much|so much|lots|loads|tons|plenty|a bunch|something|some(?: pretty)? \w+ (?:stuff|things)|"
    r"(?:a )?(?:crazy|cool|big|funny|awesome|wild|weird) thing)(?:['’]s| has| have)?\s+(?:been\s+)?"
    r"(?:\w+\s+)?(?:happened|happening|going on|changed)(?:\s+(?:lately|recently|yesterday|today|(?:a|\w+) "
    r"(?:days?|weeks?|months?) ago|last (?:week|weekend|night|month|\w+day)))?"
    r"(?:\s+since (?:(?:we|I|you)\s+(?:last\s+)?\w+(?:\s+(?:each other|last))?|our last \w+))?)|"
    r"(?:yesterday|today|tonight|(?:last|this|this past) (?:week|weekend|night|month|summer|winter|spring|fall|"
    rf"{'|'.join(WEEKDAYS)})|the (?:past|last) (?:few )?(?:days|weeks)|{_MONTH_NAMES})"
    r"(?:['’]s| was| has been|['’]s been)\s+(?:(?:so|really|pretty|super|kinda|a bit|totally)\s+)*"
    r"(?:wild|crazy|cool|crazy cool|nuts|hectic|busy|insane|great|awesome|amazing|fun|eventful|incredible|epic|"
    r"tough|rough|a blast|a (?:wild )?ride))$",
    re.IGNORECASE,
)
_CATCHING_UP = re.compile(  # how long since the two last talked: "Haven't talked in ages", "It's been a few weeks"
    r"^(?:(?:we|I)\s+)?(?:haven['’]?t|have not|hadn['’]?t|had not)\s+(?:talked|spoken|chatted|caught up|heard from you)"
    r"(?:\s+(?:in|for|since)\b.*)?$|^long time no (?:talk|see|chat)\b.*$|"
    r"^(?:it['’]?s |it has )?been (?:a while|ages|forever|too long|a minute|a bit|(?:a |an )?(?:few|couple(?: of)?|"
    r"busy|crazy|wild|hectic|long|tough|rough|while)(?: \w+)? (?:days?|weeks?|months?|while|time))"
    r"(?:\s+since (?:we|I) (?:last )?(?:talked|spoke|chatted|caught up|saw each other|heard from you)\b.*)?$",
    re.IGNORECASE,
)
_AGREED = re.compile(  # agreement with the listener, about nothing: "I completely agree", "I totally understand"
    r"^(?:I\s+)?(?:(?:totally|completely|really|so|fully|definitely|absolutely)\s+)?(?:agree|get it|get that|"
    r"understand|hear you|feel you|know what you mean|know the feeling|feel the same)"
    r"(?:\s+(?:with you|with that|with this|on that|completely|totally|100%))?$",
    re.IGNORECASE,
)
_NOTHING_DONE = re.compile(  # what was not done, about nothing: "I couldn't do much", "she can't do anything"
    r"^\S+(?:\s+(?:really|just|still))?\s+(?:can't|cannot|can not|couldn't|could not|didn't|did not)\s+do\s+"
    r"(?:much|anything|a thing|a lot)$",
    re.IGNORECASE,
)


_EMPTY_TALK = (_CHEER, _RESOLVE, _THANKED)  # what says nothing of anyone when a clause says nothing else


def _about_nothing(clause: str) -> bool:
    """Whether `clause` cheers, resolves or thanks (`_EMPTY_TALK`) and, without that, has fewer than two words
    that say anything."""
    if not any(said.search(clause) for said in _EMPTY_TALK):
        return False
    rest = clause
    for said in _EMPTY_TALK:
        rest = said.sub(" ", rest)
    return len([w for w in keywords(rest) if w not in _EMPTY]) < 2


def said_in_passing(clause: str) -> bool:
    """Whether `clause` (the speaker's words, before the third person) is said in passing (the module's text)."""
    return bool(
        _REQUEST.match(clause)
        or _COURTESY.match(clause)
        or _ORDER.match(clause)
        or _about_nothing(clause)
        or _TO_YOU.match(clause)
        or _BET.match(clause)
        or _MOOD.match(clause)
        or (_GLAD.match(clause) and plan_window(clause, ANY_DAY) is None)
        or _NOTHING_DONE.match(clause)
        or _AGREED.match(clause)
        or _NEWS_AHEAD.match(clause)
        or _CATCHING_UP.match(clause)
        or (_PASSING.match(clause) and plan_window(clause, ANY_DAY) is None)
        or _HAIL.match(clause)
        or _PRESENTING.match(clause)
        or _TURN_TAKEN.match(clause)
        or (_FRAGMENT.match(clause) and len(clause.split()) <= 6)
    )
