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
    "shook hung fed led meant paid sent shot threw tore".split()
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
    if low in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[low]
    if low.endswith(("ch", "sh", "x", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


ADVERBS = (
    "just|really|also|always|never|usually|often|still|finally|already|recently|actually|even|only|sometimes|last|"
    "first|once|totally|definitely|absolutely|honestly|truly|kinda|mostly|rarely|hardly|literally|seriously|"
    "probably|certainly|completely"
)


D_HAD = (  # after "I'd", "we'd": "had" ("I'd been", "we'd never seen", "I'd better"), else "would" ("I'd need")
    r"(?=\s+(?:never\s+|already\s+|just\s+)?(?:been|gone|done|seen|had|got|known|lost|taken|made|left|heard|"
    r"forgotten|given|written|better|(?!\w*eed\b)\w+ed)\b)"
)


def third_person(fact: str, who: str) -> str:
    """A first-person sentence the model copied ("I love tennis") said about `who` ("Emily loves tennis");
    a self-introduction ("my name is Emily", "I am Emily") says nothing more and goes."""
    name = re.escape(who)
    text = re.sub(
        rf"(?i:\b(?:hi|hello|hey)\b,?\s*)?(?i:\bmy name is|\bI am|\bI'm|\bthis is)\s+(?i:{name})\b\W*(?:and\s+)?",
        "",
        fact,
    )
    text = re.sub(r"\b[Ii]'m\b", "I am", text)  # a recognizer may write "i"
    text = re.sub(r"\b[Ii]'ve\b", "I have", text)
    text = re.sub(r"\b[Ii]'ll\b", "I will", text)
    text = re.sub(rf"\b[Ii]'d{D_HAD}", "I had", text)
    text = re.sub(r"\b[Ii]'d\b", "I would", text)
    text = re.sub(r"\b([Ii]) gonna\b", r"\1 am gonna", text)
    for spoken, written in (("gonna", "going to"), ("wanna", "want to"), ("gotta", "have to")):
        text = re.sub(rf"\b{spoken}\b", written, text, flags=re.IGNORECASE)
    text = re.sub(  # "I love" -> "Emily loves", "I just think" -> "Emily just thinks"
        rf"\b[Ii] ((?:{ADVERBS})\s+)?(\w+(?:['’]\w+)?)",
        lambda m: f"{who} {m.group(1) or ''}{said_of(m.group(2))}",
        text,
    )
    # "my": the name where it is not yet said ("Emily's daughter"), then "their" ("Emily loves their dog")
    text = re.sub(r"\b[Mm]y\b", lambda m: "their" if who in text[: m.start()] else f"{who}'s", text)
    text = re.sub(r"(?<!-)\b(me|myself)\b(?!-)", who, text)  # not a "pick-me-up"
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
    """A fact that says "you" said about `listener` by name ("James will bring you a souvenir" -> "James will bring
    John a souvenir", "if you want" -> "if John wants", "your" -> "John's")."""
    fact = re.sub(r"\byou (?:guys|all|two|both)\b", "you", fact, flags=re.I)  # "you guys": the listener among others
    fact = re.sub(r"\byou['’](re|ve|ll|d)\b", lambda m: f"{listener} {_YOU_SHORT[m[1].lower()]}", fact, flags=re.I)
    fact = _YOU_SUBJECT.sub(
        lambda m: f"{m['before']}{listener} {m['adverb'] or ''}{_YOU_ARE.get(m['verb'].lower()) or said_of(m['verb'])}",
        fact,
    )
    fact = re.sub(r"\byours\b", f"{listener}'s", fact, flags=re.I)
    fact = re.sub(r"\byour\b", f"{listener}'s", fact, flags=re.I)
    return re.sub(r"\byou(?:rself)?\b", listener, fact, flags=re.I)
