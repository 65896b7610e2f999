"""Atomic facts: what one line states, split into its clauses, each said in the third person about whom it is
about ("My wife Sarah is a doctor and she loves tennis too", said by John -> "Sarah is a doctor", "Sarah loves
tennis"). Code, not a model: names, pronouns and conjunctions follow rules that can be tested, and a line costs
microseconds.

- Clauses: a sentence is split at "and", "but", "so" or ";" where a new subject starts ("... and she loves",
  "... and I ride"), and at a comma before a subject pronoun ("I can't stay late, I've got yoga"), both sides
  three words or more. A proposal with a time is a plan of the speaker's ("let's all have dinner at my place next
  Saturday": "we will ..."). Requests ("so please do not bring cookies", "count me in"), courtesies ("sorry about
  your ankle"), clauses about no one ("patience is key": no I, we, name or time), what was not done and how
  someone is just now, about nothing ("I couldn't do much", "I'm fine, just tired", "I'm so jealous") and
  where someone goes in passing ("I'm going down to the cafe") go (app/consolidation/small_talk.py);
  "please remember that" before a statement goes, and so do the name a clause addresses ("Way to go, Emily") and
  a lead-in before a colon ("I've got news too: I'm retiring").
- Subjects: "my wife Sarah ..." and "our new colleague Maria ..." are about Sarah and Maria; "she", "he" and
  "they" are the last person the line, or one of the two lines before it, named ("How's your daughter Ines?" -
  "Oh, she's great"); a clause whose pronoun names nobody goes. "We" is the speaker and the one other person
  the line names ("David and John grew up ..."), or the speaker alone; I, my and me are the speaker, by name,
  and so is the "I" (or "I am") a chat leaves out ("Still working on my lesson plans", "Really enjoyed the show",
  "Excited for the trip"). "Us" and "our" without I or we are the speaker when something happened to them, is
  planned, or is theirs ("The rain forced us to cancel our picnic", "Our team has grown"), and no one when said of
  everyone ("It keeps us all going", "Tennis has a way of relaxing us"). "You" and "your" are the one the line is
  said to, by name: the speaker of the nearest line before it by someone else ("I'll bring you a souvenir", said
  by David to John: "David will bring John a souvenir", "if you want": "if John wants").
- An object "it" is the thing the clause before ends with ("I bought a new bicycle and I ride it" -> "... rides
  the new bicycle"); a clause that only states a relation ("John is my brother") is left to the relation rows.

The clauses are cut in app/consolidation/clauses.py, the third person is said in app/consolidation/person.py, a
fact's kind and topic are read in app/consolidation/kinds.py, and the relations a line names in
app/consolidation/relations.py.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence

from app.consolidation.clauses import GERUND, clauses, time_only, without_time
from app.consolidation.person import D_HAD, WITH_ME, addressed, i_expanded, said_of, third_person
from app.consolidation.referents import it_named
from app.consolidation.relations import ADJ, RELATED, RELATION_WORDS
from app.consolidation.small_talk import ANY_DAY, said_in_passing
from app.facts import past_tense
from app.text.timeexpr import ORDINAL_DAYS, plan_window
from app.text.words import ING_NOUNS, IS_AFTER_WORDS, PAST_FORMS, sentences

_REMEMBER = re.compile(
    r"^(?:(?:and|but|so|also|oh|well)\s+)*(?:please\s+)?(?:remember|don't forget|do not forget|note)\s+(?:that\s+)?",
    re.IGNORECASE,
)
_TALKED = r"(?:spoke|spoken|talked|talk|chatted|chat|caught up)"
_TALKED_LAST = rf"(?:last )?{_TALKED}(?: last)?"  # "since I last spoke", "since I talked last", "since I last chat"
_FILLER = re.compile(  # "And ...", "Oh well, ...", and a word of assent before its comma ("Perfect, count me in")
    r"^(?:(?:and|but|so(?! far\b)|also|plus|actually|anyway|well|oh|btw|fyi|by the way|for sure|in fact|"
    r"in addition|besides(?: that)?|meanwhile|in the meantime(?: though)?|in the end|after all|after that|"
    r"on top of that|"
    r"on (?:another|a different|a (?:brighter|bright|lighter|related|side|similar)|the other|the bright|the plus) "
    r"(?:note|hand|side|topic))\b[,\s]*|"
    r"(?:perfect|great|sure|okay|ok|yes|yeah|yep|nah|cool|awesome|nice|alright|right|fine|wow|woah|whoa|haha|omg)"
    r"\s*[,!]\s*|"  # and the time since the speakers last talked ("Since we last spoke, I ...")
    rf"since (?:(?:I|we|you) {_TALKED_LAST}|(?:our|the|my) last (?:chat|talk|conversation)|"
    r"(?:speaking|talking|chatting) last)\s*,\s*|"
    rf"since (?:I|we|you) (?:last {_TALKED}|{_TALKED} last)(?:\s+|$)|"  # with no comma, only with its "last"
    # what a sentence gives as the reason for what the one before said: "That's why I'm so into history"
    r"(?:that|this)(?:'s| is| was) (?:why|because)\s+)+",
    re.IGNORECASE,
)
_TAIL_REQUEST = re.compile(r",?\s+(?:so\s+)?please\b.*$", re.IGNORECASE)
_TAIL_OPINION = re.compile(  # "..., it was fun", "... - it's been so fun", "..., should be fun", "... - people love
    # it": a reaction after the statement
    r"(?:,|\s+[-–—])\s+(?:(?:it|that|this)(?:['’]s| is| was|['’]s been| has been)\s+"
    r"(?:(?:so|really|very|super|such|a|an|absolutely|totally)\s+)?\w+|"
    r"(?:(?:it|that|this)\s+)?(?:should|will|would|could|must|might)\s+be\s+(?:(?:so|really|super|such|a|an)\s+)*\w+|"
    r"(?:people|everyone|everybody|they|customers|"
    r"(?:the |my )?kids) (?:really |just )?(?:love|loved|like|liked|enjoy|enjoyed|adore|adored) (?:it|them|that))$",
    re.IGNORECASE,
)
_TAIL_REQUEST_SHOW = re.compile(  # "..., check it out", "... - take a look", "... - keep it up"
    r"(?:,?\s+check (?:it|this|that) out\b.*|(?:,|\s+[-–—])\s+(?:take a look|keep (?:it|that) up|keep going)|"
    r"\s*[-–—]\s*here(?:'s| is| are)\b.*)$",  # "... - here's a photo of it"
    re.IGNORECASE,
)
_TOO = re.compile(r",?\s+(?:too|as well)\s*$", re.IGNORECASE)
_TAIL_SINCE = re.compile(  # "... since we caught up last": chat about the chat
    rf",?\s+since (?:we|I) {_TALKED_LAST}\s*$", re.IGNORECASE
)
_NAMED_SUBJECT = re.compile(  # "my wife Sarah ...", "good for her, speaking of family, my son Jonas ..."
    rf"^(?:[^,]{{1,40}},\s*){{0,2}}(?i:my|our|his|her|their)\s+{ADJ}(?i:{RELATION_WORDS}),?\s+([A-Z][a-z]+)\b,?\s*"
)
_OTHER_SUBJECT = re.compile(  # another person the conversation names, as the clause's subject (not "Emily and I",
    # "Emily, ...", "Emily you ...")
    r"^(?:(?i:so|and|but|sadly|apparently|actually|also|well|oh|yeah|guess what|turns out)\b,?\s+)?"
    r"(?!(?:My|Our|The|His|Her|Their|Its|This|That|These|Those|We|You|They|He|She|It)\b)"  # a name, not "My kids"
    r"([A-Z][a-z]+)(?=(?:['’]s)?\s+[a-z])"  # a word follows: "Emily I got a job" is said to Emily
    r"(?!\s+(?:and|you|your|me|my|we|us|did|do|does|have|are|how|what|where|when|why|remember|look|check|thanks?|"
    r"please|let)\b)"
)
# someone's word about the listener, passed on: "Nadia says you're some kind of chess champion" is said of the
# listener (no fact of Nadia's), as "you're some kind of chess champion" is
_REPORTED_OF_YOU = re.compile(
    r"^(?:[A-Z][a-z]+|[Ee]veryone|[Pp]eople|[Tt]hey)\s+(?:says|said|tells\s+me|told\s+me|reckons|thinks)\s+"
    r"(?:that\s+)?(?=you\b|you['’])"
)
_DETERMINERS = "a|an|the|my|our|his|her|their"
_THING = re.compile(rf"\b(?:{_DETERMINERS})\s+((?:[a-z]+\s+){{0,2}}[a-z]+)$")
_IS_WHAT = re.compile(r"(?:\b(?:is|was|be|been|are|were)|['’]s)\s+$", re.IGNORECASE)
_THIRD = {"she", "he", "they"}
_MANY = (
    r"kids|children|sons|daughters|twins|grandkids|grandchildren|parents|dogs|cats|pets|puppies|pups|kittens|birds|"
    r"horses|turtles|snakes|rabbits|hamsters|chickens|friends|siblings|grandparents|students|teammates|coworkers|"
    r"colleagues|neighbors|family|folks|fam|team|crew"
)
# what "they" in the next clause is when the speaker just said it: "my kids", "I have two dogs"
_OWN_MANY = re.compile(
    rf"\b(?:my|our)\s+((?:[a-z]+\s+){{0,2}}(?:{_MANY}))\b|\b(?:have|got|adopted|own)\s+"
    rf"(?:two|three|four|five|\d+|some|a few|a couple of)\s+((?:[a-z]+\s+)?(?:{_MANY}))\b",
    re.IGNORECASE,
)
# what "she" or "he" in the next clause is when no name was said in the line: "my mom", "my old dog"
_OWN_ONE = re.compile(
    rf"\b(?:my|our)\s+({ADJ}(?:{RELATION_WORDS}|dog|cat|puppy|kitten|horse))\b(?!['’]s|,?\s+(?-i:[A-Z]))", re.IGNORECASE
)  # not one named then ("my daughter Ines": Ines)
_PLURAL = {"are": "is", "were": "was", "have": "has"}


_CONTRACTED = {"ll": "will", "d": "would", "re": "are", "ve": "have"}  # "'s" is "is" or "has": `_expanded`


def _expanded(clause: str, subject: str = "she|he|they|She|He|They") -> str:
    """A leading "she's", "he'll", "they're" (or `subject`'s: "Hana's picking") written out ("she is", "he
    will", "they are"); "'s" before a past participle is "has" ("he's always wanted")."""

    def out(m: re.Match) -> str:
        short, after = m.group(2).lower(), m.group(3)
        if short == "s":
            has = re.match(r"(?:always |never |just |already )?(?:been|got|gotten|gone|done|had|\w+ed)\b", after)
            return f"{m.group(1)} {'has' if has else 'is'} {after}"
        return f"{m.group(1)} {_CONTRACTED[short]} {after}"

    return re.sub(rf"^({subject})['’](s|ll|d|re|ve)\s+(.*)$", out, clause, flags=re.S)


_IS_AFTER = re.compile(  # after "Hana's", what makes it "Hana is" (or "has"), not Hana's something
    rf"['’]s\s+(?=(?:(?!{ING_NOUNS}\b)\w+ing|{IS_AFTER_WORDS})(?![-\w]))", re.IGNORECASE
)


def _subject(name: str, rest: str) -> str:
    """The clause with `name` as its subject: "Hana" + "'s picking me up" -> "Hana is picking me up" ("'s been"
    -> "has been"), + "'s car is red" -> "Hana's car is red", + "is a doctor" -> "Hana is a doctor"."""
    if _IS_AFTER.match(rest):
        return _expanded(f"{name}{rest}", re.escape(name))
    return f"{name}{rest}" if rest[:1] in "'’" else f"{name} {rest}"


# a name said twice, where "me" and "I" (or "us" and "we") were: "reminds me I can" -> "reminds John that John can",
# "As for me I just ..." -> "As for Emily, Emily just ..."
_TWICE = re.compile(r"\b((?:remind|show|tell|teach|assure|convince)(?:s|ed|ing)? |told |taught )?([A-Z][a-z]+) \2\b")
_WITH_ME_AND = re.compile(rf"\b{WITH_ME} and (?:I|me)\b|^(?:[Mm]e|I) and ")
_RELATION_ONLY = re.compile(rf"^[A-Z][a-z]+ (?:is|was) [A-Z][a-z]+'s {ADJ}(?i:{RELATION_WORDS})$")
# a thing named alone ("Sarah's full support", "David's bicycles"), no verb in its two words: says nothing
_OWNED_ONLY = re.compile(
    r"^[A-Z][a-z]+'s (?!.*\b(?:is|are|was|were|has|have|had|will|can|did|does|do)\b)(?:[\w-]+ )?[\w-]+(?<!ed)$"
)


def _only_relation(clause: str) -> bool:
    """'John is my brother', 'my wife is Sarah': nothing a relation row does not already hold."""
    return any((m := p.search(clause)) and m.group(0).strip(" ,.") == clause.strip(" ,.") for p in RELATED)


def _we(clause: str, speaker: str, others: list[str]) -> str:
    """'we grew up' -> 'David and John grew up' (the speaker and the one other person the line named), else the
    speaker alone ('we are planning' -> 'I am planning', which `third_person` says about them)."""
    clause = re.sub(rf"\b([Ww]e)['’]d{D_HAD}", r"\1 had", clause)  # "we'd been"
    clause = re.sub(r"\b([Ww]e)['’](re|ve|ll|d)\b", lambda m: f"{m[1]} {_CONTRACTED[m[2]]}", clause)  # "we are"
    if len(others) == 1:
        return re.sub(r"\b[Ww]e\b", f"{speaker} and {others[0]}", re.sub(r"\bour\b", "their", clause), count=1)
    clause = re.sub(r"\b([Ww]e)( (?:are|were|have|had))? (?:all|both)\b", r"\1\2", clause)  # "we all swam": I swam
    clause = re.sub(r"\b[Ww]e (are|were)\b", lambda m: "I " + {"are": "am", "were": "was"}[m[1]], clause)
    return re.sub(r"\b[Ww]e\b", "I", re.sub(r"\b[Oo]ur\b", "my", re.sub(r"\bus\b", "me", clause)))


_LETS = re.compile(r"^(?:let['’]s|let us)\s+(?:all\s+)?", re.IGNORECASE)  # a proposal: with a time, a plan
_LEAD_IN = re.compile(  # "I've got news too: I'm retiring ...", "You won't believe it - I got the job ...", "I'm
    # so excited to tell you I joined ..."
    r"^(?:[^:]{1,40}:|(?i:you won['’]t believe (?:it|this)|guess what|get this|(?:big |good |great )?news|"
    r"[^-–—:]{0,40}\b(?:tell you(?: about)?|share(?: with you)?))\s*"
    r"(?:[-–—!,]|\.\.\.)|(?i:(?:I['’]m|I am)\s+(?:so\s+|really\s+|super\s+)?(?:excited|happy|thrilled|glad|stoked)"
    r"\s+to\s+(?:tell|share with|show)\s+you(?:\s+that)?))\s+(?=\S+\s+\S+\s+\S+)"
)
_MINE = re.compile(
    r"(?<!-)\b(?:I|me|my|mine|myself|we)\b(?!-)", re.IGNORECASE
)  # the speaker's own words (not "pick-me-up")
_OURS = re.compile(r"\b(?:us|our|ours|ourselves)\b", re.IGNORECASE)  # the speaker among others, or everyone
_KEEN = r"(?:really|totally|honestly)"  # before a doing whose "I" is left out: "Really loving my new job"
_SURELY = r"(?:really|totally|honestly|finally|recently|actually|also|just|already|never|always|definitely)"
_FELT = (  # how someone feels about something, said with its "I am" left out ("Super proud of Emily's daughter")
    r"(?:excited|thrilled|proud|happy|stoked|pumped|psyched|nervous|worried|scared|afraid|anxious|eager|keen|"
    r"curious|interested|tired|exhausted|bored|stressed|blessed|lucky|sad|bummed|relieved|delighted|amazed|"
    r"surprised|shocked|obsessed|hooked|inspired|motivated|determined|disappointed|frustrated|overwhelmed|"
    r"impressed|honou?red|jealous|nostalgic|hopeful|confident|passionate|grateful|thankful|fascinated|intrigued|"
    r"touched|humbled)"
)
# pasts that open a clause with no "I" left out: "Born in Boston", "Meant to say", "Put simply"
_NOT_LEFT_OUT = {"born", "meant", "lit", "led", "held", "felt", "put", "set", "cut", "read"}
_PASTS = "|".join(sorted(set(PAST_FORMS.values()) - _NOT_LEFT_OUT))  # "sold", "went", ...: a past that opens a clause
_LEFT_OUT_I = re.compile(  # the "I" a chat leaves out ("Still working on my lesson plans", "Really enjoyed the show",
    # "Excited for the trip", "Can't wait to ..."), and what the third person says there: "I have", "I am" or "I"
    rf"^(?:(?:{_SURELY}\s+)?(?P<been>been)|(?P<still>still|{_KEEN})\s+(?=\w+ing\b)|"
    r"(?P<felt>(?:(?:so|very|really|super|totally|pretty|quite|truly|absolutely|incredibly|extremely)\s+)*"
    rf"{_FELT}\s+(?:for|about|of|to|that|with|by|at|in)\b)|"
    rf"(?P<wait>(?:{_SURELY}\s+)?(?:can['’]?t|cannot) wait\b)|"
    rf"(?:{_SURELY}\s+)?(?!{_FELT}\b|(?:based|related|united|limited|advanced|beloved|wicked|naked|sacred)\b)"
    rf"(?:still|had|did|{_PASTS}|"
    r"[a-z]{2,}(?<!e)ed)\b(?!\s+(?:me|us)\b)|"  # not "(It) reminded me"
    rf"(?:{_SURELY}\s+)?(?P<doing>{GERUND})(?!['’]s\b|\s+(?:is|was|are|were|has|had|can|will|makes?|made)\b))",
    re.IGNORECASE,
)
_GENERAL = re.compile(  # a gerund as the subject: said of no one ("Teaching teenagers isn't easy", "Practising
    # really pays off", "Finding a flat's a tough job"), not an "I" left out ("Still working on it")
    rf"^(?:(?:just|really|honestly|still)\s+)?{GERUND}"
    r"(?:\s+(?!(?:it|I|he|she|we|they)\b)(?:[a-z]+|&)){0,8}?"
    rf"(?:['’]s\s+(?:{IS_AFTER_WORDS}|tough|hard|easy|great|fun|key)\b|"
    r"(?:\s+(?:really|sure|definitely|always|so|also|just|truly))*"
    r"\s+(?:is|was|are|were|isn't|wasn't|has been|takes|took|pays|helps|can|could|must|should|will|would|might|"
    r"makes|made|means|keeps|kept|gives|gave|lets|brings|brought|changes|changed|matters|needs|costs|feels|seems|"
    r"sounds|hurts|requires)\b)",
    re.IGNORECASE,
)
_IT = re.compile(r"^(?:it|that|this)\b", re.IGNORECASE)
# a doing with its own "is" or "has" after it is the subject ("Having friends like that is so important", "Seeing it
# work was incredibly satisfying", "Hanging out with them has inspired me"), not an "I" left out before it
_IS_LATER = re.compile(r"^[^,]*?\s(?:is|was|are|were|isn['’]t|wasn['’]t|has|hasn['’]t)\s", re.IGNORECASE)
# a past with its "I" left out, done to "it": "Sold it on Friday" (after "And the motorbike?")
_DONE_TO_IT = re.compile(rf"^(?:{_PASTS}) it\b", re.I)
# a question that asks only after a thing: "Ha. And the motorbike?", "What about your car?"
_ASKED_THING = re.compile(
    r"(?:(?<=^)|(?<=[.!] )|(?<=\band )|(?<=\bwhat about )|(?<=\bhow about ))"
    r"(?:the|my|your|his|her|their)\s+[a-z]+(?:\s+[a-z]+)?(?=\?$)",
    re.I,
)
# "I ride it", "I can fix it": it is the object ("I thought it'd be fun", "I think it is": the subject of what follows)
_IT_OBJECT = re.compile(r"^\S+ (?:\w+ )?\w+ it\b(?!['’]|\s+(?:is|was|will|would|has|had|can|could|might|must)\b)")


def _as_mine(clause: str) -> str:
    """A clause whose speaker is among "us" said in the speaker's own words ("The rain forced us to cancel our
    picnic" -> "The rain forced me to cancel my picnic"), which `third_person` then says of them by name."""
    for ours, mine in ((r"[Oo]ur", "my"), ("us", "me"), ("ours", "mine"), ("ourselves", "myself")):
        clause = re.sub(rf"\b{ours}\b", mine, clause)
    return clause


def named_in(text: str, names: Sequence[str]) -> list[str]:
    """The `names` that `text` says, as words, in the order it first says them ("Kwame's coming, and my cousin
    Teodor, he ...": Teodor is the last named, whom "he" is)."""
    at = {n: m.start() for n in names if (m := re.search(rf"\b{re.escape(n)}\b", text))}
    return sorted(at, key=at.__getitem__)


def _vocative(clause: str, names: list[str]) -> str:
    """The clause without the name it addresses ("Way to go, Emily" -> "Way to go"); not one that names a relation
    just said ("our brother, Luke, is moving": Luke is the brother)."""
    if not names:
        return clause
    who = "|".join(re.escape(n) for n in names)

    def unless_named(m: re.Match) -> str:
        between = clause[m.end() : m.end() + 1] == ","  # "our brother, Luke, is": not "to your kids, John"
        return m[0] if between and _RELATION_BEFORE.search(clause, 0, m.start()) else ""

    return re.sub(rf"^(?:{who}),\s*|,\s*(?:{who})\s*(?=,|$)", unless_named, clause)


_RELATION_BEFORE = re.compile(rf"\b(?i:{RELATION_WORDS})s?$")


def atoms(
    statement: str,
    speaker: str,
    names: list[str],
    recent: Sequence[str] = (),
    listener: str | None = None,
    asked: str = "",
) -> list[tuple[str, str]]:
    """(whom it is about, the fact in the third person) for each clause of `statement` that states something
    (see the module's text); `names` are the people the conversation names, `recent` those the lines just
    before named, last one last ("How's your daughter Ines?" - "Oh, she's great": Ines), and `asked` the line
    just before, said to the speaker ("What do your turtles eat?" - "They eat insects": the speaker's turtles)."""
    out: list[tuple[str, str]] = []
    earlier = [n for n in recent if n != speaker]
    named: list[str] = list(earlier)  # who "she" can be, last one last (the line's own names after `earlier`)
    # the speaker's own in what was asked of them: "your" is theirs, "my" the asker's (no one "they" can be)
    previous = re.sub(r"\b[Yy]our\b", "my", re.sub(r"\b[Mm]y\b", "their", asked))
    before = ""  # the line's own clause before this one: what a leading "it" may name
    when_said = ""  # a sentence that only says when ("So, Saturday."): the time of the next fact the line states
    for sentence in sentences(statement.replace("’", "'").replace("`", "'").strip()):
        for raw in clauses(_LEAD_IN.sub("", sentence)):
            clause = _FILLER.sub("", _REMEMBER.sub("", raw.strip()))
            for tail in (_TAIL_REQUEST, _TAIL_REQUEST_SHOW, _TAIL_OPINION, _TOO, _TAIL_SINCE):
                clause = tail.sub("", clause)
            clause = _vocative(clause.strip(" ,.!-–—"), names).strip(" ,.!-–—")
            clause = _REPORTED_OF_YOU.sub("", clause)
            if (m := _LETS.match(clause)) and plan_window(clause, ANY_DAY) is not None:
                clause = "we will " + clause[m.end() :]  # "let's all have dinner at my place next Saturday"
            if not clause or said_in_passing(clause) or _only_relation(clause) or time_only(clause):
                named += [n for n in named_in(clause, names) if n != speaker]
                if clause and time_only(sentence) and not _PAST_TIME.search(clause):  # "So, Saturday." alone, ahead
                    when_said = clause  # (a past time alone answers a question: "Yeah, three weeks ago.")
                continue
            who = speaker
            if m := _NAMED_SUBJECT.match(clause):  # "my wife Sarah is a doctor" -> "Sarah is a doctor"
                who, clause = m.group(1), _subject(m.group(1), clause[m.end() :])
            elif (m := _OTHER_SUBJECT.match(clause)) and m[1] in names and m[1] != speaker:
                who, clause = m[1], clause[m.start(1) :]  # "Sadly John lost his keys", said by Emily: John's
            elif (first := (clause := _expanded(clause)).split()[0].lower()) == "they" and (
                mine := _OWN_MANY.search(previous)
            ):
                clause = re.sub(r"^\w+", f"my {mine[1] or mine[2]}", clause)  # after "my kids": the speaker's kids
            elif first in ("she", "he") and len(named) == len(earlier) and (mine := _OWN_ONE.search(previous)):
                clause = re.sub(r"^\w+", f"my {mine[1]}", clause)  # after "my mom", no name said: the speaker's mom
            elif first in _THIRD:
                if not named:
                    continue  # "she is excited": about nobody the line names
                who = named[-1]
                verb = clause.split()[1:2]
                clause = re.sub(r"^\w+", who, clause)
                if first == "they" and verb and verb[0] in _PLURAL:
                    clause = clause.replace(f"{who} {verb[0]}", f"{who} {_PLURAL[verb[0]]}", 1)
            elif re.search(r"\b[Ww]e\b", clause):
                clause = _we(clause, speaker, list(dict.fromkeys(named[len(earlier) :])))
            named += [n for n in named_in(clause, names) if n != speaker]
            if (
                (thing := _THING.search(previous) or _ASKED_THING.search(previous))
                and not _IT.match(previous)
                and not _IS_WHAT.search(previous, 0, thing.start())  # "it's been a delight" is no thing to ride
                # "a bicycle last year": the bicycle; "a week ago": nothing
                and (what := re.sub(rf"^(?:{_DETERMINERS})\s+", "", without_time(thing[0]), flags=re.I))
                and (_IT_OBJECT.match(clause) or _DONE_TO_IT.match(clause))
            ):
                clause = re.sub(r"(?<=\w )it\b", "the " + what, clause, count=1)  # "I ride it to work"
            if before:
                clause = it_named(clause, before, names)  # "Swimming's been great. It's helped me ...": swimming has
            before = clause
            previous = clause if len(clause.split()) > 1 else previous  # not a "Yeah" alone
            if who == speaker and not _MINE.search(clause) and _OURS.search(clause):
                if (
                    _IT.match(clause)
                    or _GENERAL.match(clause)
                    or not (
                        clause.lower().startswith("our ")
                        or past_tense(clause)
                        or plan_window(clause, ANY_DAY) is not None
                    )
                ):
                    continue  # said of everyone: "It keeps us all going", "Swimming in the lake is great fun for us"
                clause = _as_mine(clause)  # "Rain made us cancel our picnic", "Our team has grown": the speaker's
            left_out = (m := _LEFT_OUT_I.match(clause)) is not None and not (
                m["doing"] and (_GENERAL.match(clause) or _IS_LATER.match(clause))
            )
            if (
                who == speaker
                and not _MINE.search(clause)
                # an "I" left out, not a gerund said of no one (and "can't wait", with no time, says little)
                and not (left_out and not m["wait"] and len(clause.split()) >= 3)
                and not named_in(clause, names)
                and plan_window(clause, ANY_DAY) is None
            ):
                continue  # about no one: an opinion ("patience is key") or an aside
            if who != speaker:  # the speaker's own words in a fact about someone else: by name
                clause = re.sub(  # "I'm" is "<speaker> is"; "John and I have" stays plural
                    r"(?<!and )\bI (am|have)\b", lambda m: f"{speaker} {said_of(m[1])}", i_expanded(clause)
                )
                clause = re.sub(r"\b(?:me|I)\b", speaker, clause)
                clause = re.sub(r"\b[Mm]y\b", f"{speaker}'s", clause)
            elif m and left_out and not re.search(r"\b(?:I|we)\b", clause):
                verb = "I have " if m["been"] else "I am " if m["still"] or m["doing"] or m["felt"] else "I "
                clause = verb + clause[:1].lower() + clause[1:]  # "Just got home ..." -> "I just got home ..."
                if said_in_passing(clause):
                    continue  # "So glad for you!": "I am so glad for you", a courtesy
            if who == speaker and _WITH_ME_AND.search(clause):  # "my wife and I ... our trip": theirs
                clause = re.sub(r"\bus\b", "them", re.sub(r"\b[Oo]ur\b", "their", clause))
            fact = third_person(clause, speaker) if who == speaker else clause[:1].upper() + clause[1:]
            if not fact or _RELATION_ONLY.match(fact) or _OWNED_ONLY.match(fact):  # a relation row's ("I am David,
                # John is my brother"), or a thing named alone
                continue
            if when_said and plan_window(fact, ANY_DAY) is None:  # "So, Saturday. I'm doing a barbecue"
                at = cut.start() if (cut := _NEXT_CLAUSE.search(fact)) else len(fact)  # its first clause's
                fact = f"{fact[:at]} {at_time(when_said)}{fact[at:]}"
            when_said = ""
            if listener and listener != who:
                fact = addressed(fact, listener)
            fact = _TWICE.sub(lambda m: f"{m[1]}{m[2]} that {m[2]}" if m[1] else f"{m[2]}, {m[2]}", fact)
            if who in fact or len(re.findall(r"\w+", fact)) >= 3:  # not a name or a time alone ("Last Friday")
                out.append((who, fact))
    return out


_PAST_TIME = re.compile(r"\b(?:ago|last|yesterday|earlier|previous|before|since)\b", re.I)
_NEXT_CLAUSE = re.compile(r",\s(?=(?:you|it|I|we|they|he|she|but|and|so)\b)|\s[-–—]\s")  # "..., you have to come"
_DAY_NAMED = re.compile(
    rf"(?:the\s+(?:\d|(?:{'|'.join(ORDINAL_DAYS)})\b)|(?:{'|'.join(calendar.day_name)}|{'|'.join(calendar.month_name[1:])})\b)",
    re.I,
)


def at_time(said: str) -> str:
    """A time said alone as it follows a statement: "Saturday" → "on Saturday", "the eighteenth of October" → "on the
    eighteenth of October", "next week" as it is."""
    said = re.sub(r"^(?:(?:just|so|and|but|well|oh|only)\b[\s,]*)+", "", said.strip(" ,.!"), flags=re.I)
    said = re.sub(r"^The\b", "the", said)
    return f"on {said}" if _DAY_NAMED.match(said) else said[:1].lower() + said[1:]
