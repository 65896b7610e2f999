"""Facts said in the third person: a first-person sentence about the one who said it ("I love tennis", said by
Emily: "Emily loves tennis") and "you" about the one it was said to ("I'll bring you a souvenir", said to John:
"... bring John a souvenir"). Clauses and whom they are about are found in app/consolidation/atoms.py."""

from __future__ import annotations

import re

NOT_VERBS = frozenset(
    "am was were had did will would can could should might must may shall also really just still always never "
    "usually often recently finally already bought went got took made saw met found felt thought told said gave "
    "came ran left lost won wrote began spent kept heard knew put set cut sold built brought caught taught drove "
    "flew grew became fell ate drank sang swam rode chose spoke wore forgot understood stood sat slept woke hid "
    "shook hung fed led meant paid sent shot threw tore fought held dealt lent bent struck stuck swung sought drew "
    "broke rose froze stole dug spun blew forgave overcame withdrew mistook".split()
)


def said_of(verb: str) -> str:
    """The third-person form of a present-tense verb after I ("love" → "loves", "teach" → "teaches")."""
    low = verb.lower().replace("’", "'")
    if "'" in low:  # "don't" -> "doesn't", "can't" stays
        return {"don't": "doesn't", "haven't": "hasn't"}.get(low, verb)
    if low.endswith("ss") and low.isalpha():  # "guess", "miss": "guesses", "misses"
        return verb + "es"
    if low in ("need", "feed", "succeed", "proceed", "exceed", "bleed", "breed", "speed", "heed"):  # not a past
        return verb + "s"
    if low in NOT_VERBS or low.endswith(("ed", "s")) or not low.isalpha():
        return {"am": "is", "have": "has"}.get(low, verb)
    if low in ("have", "do", "go", "are"):  # "are": of a "we" or "my brother and I" said of one
        return {"have": "has", "do": "does", "go": "goes", "are": "is"}[low]
    if low.endswith(("ch", "sh", "x", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


ADVERBS = (
    "just|really|also|always|never|usually|often|still|finally|already|recently|actually|even|only|sometimes|last|"
    "first|once|totally|definitely|absolutely|honestly|truly|kinda|mostly|rarely|hardly|literally|seriously|"
    "probably|certainly|completely|ever|least|almost|"
    # and any other "-ly" word but the verbs that end so ("I strongly recommend", not "I apply")
    r"(?!(?:apply|reply|rely|supply|imply|comply|multiply|fly|ally|rally|bully|tally)\b)[a-z]{2,}ly"
)

# a second verb of the same subject ("Emily takes a break and do some stretching"): a verb that is seldom a thing,
# or one that can be, before what a verb takes (not "Emily misses their mom and dad a lot")
_AND_VERB = re.compile(
    rf"\band (?:(?:{ADVERBS}) )?(?:(?P<verb>do|make|take|get|go|give|keep|try|enjoy|spend|bring|see|find|"
    r"put|let|tell|teach|understand|become|learn|explore|visit|meet|believe|appreciate|relax|recharge|create|share|"
    r"spread|remind|lift|push|grow|stay|build|write|bake|cook)\b|(?P<noun>feel|hang|watch|listen|talk|think|know|use|"
    r"focus|show|bond|hope|want|need|wish|plan|dream)(?= (?:a|an|the|some|my|their|his|her|its|our|it|them|him|me|"
    r"each|every|more|out|up|back|on|off|together|everything|something|people|others|time|about|of|to|for|with)\b))"
)
_SAME_VERB_ON = re.compile(r"\b(?:to|can|could|will|would|should|might|must|may|and|but|or|so|because|when|if)\b")


def _agreeing(text: str, start: int) -> str:
    """`text` with the verbs that go on from the one said of someone at `start` said of them too ("... takes a
    break and does some stretching"); not after "to" or a modal, whose verb stays ("wants to live and help")."""
    m = _AND_VERB.search(text, start)
    if m is None or _SAME_VERB_ON.search(text, start, m.start()):
        return text
    verb = "verb" if m["verb"] else "noun"
    return text[: m.start(verb)] + _agreeing(said_of(m[verb]) + text[m.end(verb) :], 0)


D_HAD = (  # after "I'd", "we'd": "had" ("I'd been", "we'd never seen", "I'd better"), else "would" ("I'd need")
    r"(?=\s+(?:never\s+|already\s+|just\s+)?(?:been|gone|done|seen|had|got|known|lost|taken|made|left|heard|"
    r"forgotten|given|written|better|(?!\w*eed\b)\w+ed)\b)"
)


# who does something with the speaker, said before "and I" ("my brother", "our kids", "the team", "Emily"):
# one subject with them (atoms keep "my brother and I talked" one clause and make its "our" theirs)
WITH_ME = r"(?:[Mm]e|(?:[Mm]y|[Oo]ur|[Tt]he)\s+(?:[\w-]+\s+)?(?!(?:is|are|was|were)\b)[\w-]+|[A-Z][a-z]+)"
# ... before "and I" ("Last weekend my brother and I went"): the verb stays plural
_TOGETHER = re.compile(
    rf"^(?:[^,]*,\s*)?(?:(?:[Ll]ast|[Tt]his|[Nn]ext) \w+ |[Yy]esterday |[Tt]oday |[Tt]onight )?{WITH_ME} and $"
)
_I_VERB = re.compile(rf"\b[Ii] ((?:{ADVERBS})\s+)?(\w+(?:['’]\w+)?)")


def i_expanded(text: str) -> str:
    """`text` with "I'm", "I've", "I'll" and "I'd" said in full ("I'd been": "I had been", "I'd need": "I would
    need"); a recognizer may write "i"."""
    text = re.sub(r"\b[Ii]'m\b", "I am", text)
    text = re.sub(r"\b[Ii]'ve\b", "I have", text)
    text = re.sub(r"\b[Ii]'ll\b", "I will", text)
    text = re.sub(rf"\b[Ii]'d{D_HAD}", "I had", text)
    return re.sub(r"\b[Ii]'d\b", "I would", text)


def third_person(fact: str, who: str) -> str:
    """A first-person sentence the model copied ("I love tennis") said about `who` ("Emily loves tennis");
    a self-introduction ("my name is Emily", "I am Emily") says nothing more and goes."""
    name = re.escape(who)
    text = re.sub(
        rf"(?i:\b(?:hi|hello|hey)\b,?\s*)?(?i:\bmy name is|\bI am|\bI'm|\bthis is)\s+(?i:{name})\b\W*(?:and\s+)?",
        "",
        fact,
    )
    text = re.sub(r"\b([Ii]) gonna\b", r"\1 am gonna", i_expanded(text))
    for spoken, written in (("gonna", "going to"), ("wanna", "want to"), ("gotta", "have to")):
        text = re.sub(rf"\b{spoken}\b", written, text, flags=re.IGNORECASE)
    at = 0
    while m := _I_VERB.search(text, at):  # "I love" -> "Emily loves", "I just think" -> "Emily just thinks"
        verb = m[2] if _TOGETHER.match(text[: m.start()]) else said_of(m[2])  # "my wife and I are"
        said = f"{who} {m[1] or ''}{verb}"
        text, at = text[: m.start()] + said + text[m.end() :], m.start() + len(said)
        if verb != m[2] and verb not in ("is", "has"):  # and the verbs that go on from it
            text = _agreeing(text, at)
    # "me" by name, "myself" as "themselves" after it ("Emily taught themselves guitar"); not a "pick-me-up"
    text = re.sub(r"(?<!-)\b[Mm]e\b(?!-)", who, text)
    text = re.sub(r"\bmyself\b", lambda m: "themselves" if who in text[: m.start()] else who, text)
    # "my": the name where it is not yet said ("Emily's daughter"), then "their" ("Emily loves their dog", "Emily
    # and their neighbor"); and so is an "our" left beside the speaker's "I" ("John just left for our vacation" ->
    # "for their vacation"): a stored fact has no "our" ("us" stays: who they are is unsaid)
    text = re.sub(r"\b(?:[Mm]y|[Oo]ur)\b", lambda m: "their" if who in text[: m.start()] else f"{who}'s", text)
    text = re.sub(r"\bours\b", "theirs", text)
    text = text.strip(" ,.")
    return text[:1].upper() + text[1:] if text else text


_YOU_ARE = {"are": "is", "were": "was", "have": "has"}
_YOU_SHORT = {"re": "is", "ve": "has", "ll": "will", "d": "would"}
# where "you" is a subject: at the start, or after a word that begins a clause ("if you want", "what you said")
_YOU_SUBJECT = re.compile(
    r"(?P<before>^|[,;]\s+|\b(?:if|when|whenever|that|because|as|since|what|how|why|where|and|or|but|so|while|until|once|"
    rf"unless) )you (?P<adverb>(?:{ADVERBS})\s+)?(?!(?:and|or|but|too|all|both|guys|two|there|here|so|as|at|in|on|"
    r"for|with|from|of|to|the|a|an|more|than|again|back|up|out|off|now|then|very|that|this|it|me|him|her|them|us)\b)"
    r"(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)


def addressed(fact: str, listener: str) -> str:
    """A fact that says "you" said about `listener` by name ("David will bring you a souvenir" -> "David will bring
    John a souvenir", "if you want" -> "if John wants", "your" -> "John's")."""
    fact = re.sub(r"\byou (?:guys|all|two|both)\b", "you", fact, flags=re.I)  # "you guys": the listener among others
    fact = re.sub(r"\byou['’](re|ve|ll|d)\b", lambda m: f"{listener} {_YOU_SHORT[m[1].lower()]}", fact, flags=re.I)
    fact = _YOU_SUBJECT.sub(
        lambda m: f"{m['before']}{listener} {m['adverb'] or ''}{_YOU_ARE.get(m['verb'].lower()) or said_of(m['verb'])}",
        fact,
    )
    # "you are", "you have" wherever they are: a subject and its verb ("the progress you have made")
    fact = re.sub(r"\byou (are|were|have)\b", lambda m: f"{listener} {_YOU_ARE[m[1].lower()]}", fact, flags=re.I)
    fact = re.sub(r"\byours\b", f"{listener}'s", fact, flags=re.I)
    fact = re.sub(r"\byour\b", f"{listener}'s", fact, flags=re.I)
    return re.sub(r"\byou(?:rself)?\b", listener, fact, flags=re.I)
