"""What a clause's leading "it" names, when the clause before it in the same line says ("Swimming's been great for
me. It's helped me sleep better" -> "Swimming has helped me sleep better"; "My garden is my favorite place. It's my
way of relaxing after work" -> "My garden is my way of relaxing after work"). A fact that says "it" tells a reader of
the person page nothing; the line before does not count, since what a reply's "it" names there is for a reader to
decide.

Only the clause before's subject is taken, and only when it is one thing: a noun phrase ("my garden", "the room",
"Italian food") or a doing ("Swimming", "Cooking pasta"), not a person, a pronoun, a time or a
plural. An "it" of nothing stays ("It's funny how ...", "It's been ages", "It seems ...", "It's a pity that"),
and a clause that then says nothing of anyone is still left out (app/consolidation/atoms.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.consolidation.clauses import GERUND
from app.consolidation.relations import RELATION_WORDS

_ADVERBS = r"really|also|just|definitely|totally|always|actually"
_IT_SUBJECT = re.compile(  # "It's ...", "It is ...", "It was ...", "It (really) helps ...", "It made ..."
    r"^it(?:(['’]s|\s+is|\s+was)\s+|"
    rf"\s+(?=(?:(?:{_ADVERBS})\s+)?(?:[a-z]+s|[a-z]+ed|made|gave|kept|brought|taught|got|meant|showed)\b))",
    re.IGNORECASE,
)
_DOING_DOES = re.compile(  # what a doing as the subject does, said of no one ("Teaching gives me a chance"); other
    # verbs after a doing read as an "I" left out ("Watching that sunset sparked ..." -> "I am watching ...")
    rf"(?:(?:{_ADVERBS})\s+)?(?:helps|helped|gives|gave|makes|made|keeps|kept|brings|brought|means|meant|lets|"
    r"reminds|reminded|teaches|taught|shows|showed|takes|took)\b",
    re.IGNORECASE,
)
_DOING = re.compile(rf"^{GERUND}", re.IGNORECASE)
_HAS_AFTER = re.compile(  # after "it's", what makes it "has": "it's been", "it's helped"
    r"(?:(?:always|never|just|already|really|definitely)\s+)?(?:been|got|gotten|gone|done|had|taught|brought|given|"
    r"shown|made|kept|\w+ed)\b"
)
_OF_NOTHING = re.compile(  # "it" that names nothing: what follows it is the point
    r"^it(?:['’]s|\s+is|\s+was|['’]s been|\s+has been|\s+would be|['’]d be|\s+will be|['’]ll be)?\s+"
    r"(?:(?:so|really|just|not|also|always|never|definitely|totally|pretty|very|kind of|quite|super|such)\s+)*"
    r"(?:(?!(?:a|an|the|my|our|his|her|their|where|what|who|how|like)\b)\w+\s+){1,3}?"  # "amazing how", "great to"
    r"(?:to|that|how|when|because|if|for|since|what|who|where|why|i|we|you|he|she|they)\b"
    r"|^it(?:['’]s|\s+is|\s+was)\s+\w+ing\b"  # "It's getting late"
    r"|^it['’]s been (?:a while|ages|forever|too long)"
    r"|^it\s+(?:seems|looks|sounds|feels|felt|seemed|looked|sounded)\b"
    r"|^it['’]s (?:about )?time\b|^it\s+(?:is|was|['’]s)\s+(?:just\s+)?(?:me|us|you|him|her|them)\b"
    r"|^it['’]s (?:moments|times|days|things|people|the little things) like\b"  # "It's days like these that ..."
    r"|^it['’]s (?:a|such a) (?:pity|shame|wonder|miracle|good thing|bummer|blessing|relief|privilege|honou?r)\b",
    re.IGNORECASE,
)
_SUBJECT = re.compile(  # a clause's subject, before its verb: "my garden", "swimming", "cooking pasta"
    r"^((?:(?:my|our|his|her|their|the|this|that)\s+)?(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)"
    r"(?=['’]s\s+(?:been|got|really|so|a|an|the|my|such|just|what|where|how|always|also)\b|"
    r"\s+(?:is|was|has|had|helps|helped|makes|made|keeps|kept|gives|gave|brings|brought|means|meant|reminds|"
    r"reminded|taught|teaches|shows|showed|lets|really|always)\b)",
    re.IGNORECASE,
)
_NO_THING = re.compile(  # a subject "it" cannot be: a pronoun, a time, a word that leads a clause, many things
    r"^(?:(?:i|we|you|he|she|they|it|this|that|there|here|these|those|everything|something|nothing|anything|"
    r"everyone|someone|what|which|who|whoever|how|why|where|when|life|things|people|one|back|then|now|all|some|"
    r"most|each|every|both|so|and|but|because|if|also|just|still|even|sometimes|usually|lately|recently|finally|"
    r"yeah|well|oh)\b)"
    r"|\b(?:is|was|are|were|be|been|i|me|you|your|it|them|him|us|last|next|ago|yesterday|today|tonight|tomorrow)\b"
    r"|\b(?:this|that) (?:week|weekend|month|year|morning|evening|time|day)\b"
    r"|[a-z]{3,}(?<![su])s$"  # a plural: "my dogs"
    # a person ("My mom is in hospital. It's been hard": the time, not the mom)
    rf"|\b(?:{RELATION_WORDS}|guy|girl|man|woman|boy|baby|coach|mechanic|producer|agent|trainer|therapist|nurse|"
    r"instructor|pal|buddy|fiancée?)$",
    re.IGNORECASE,
)


def thing_named(clause: str) -> str | None:
    """The one thing `clause` is about, as its subject ("Swimming's been great" -> "Swimming"), if it is one."""
    if (m := _SUBJECT.match(clause)) and not _NO_THING.search(m[1]):
        return m[1]
    return None


def it_named(clause: str, before: str, names: Sequence[str]) -> str:
    """`clause` with its leading "it" said as what the clause `before` it (in the same line) is about, when that
    is one thing and the "it" names something (see the module's text); else `clause` as it is."""
    if not (m := _IT_SUBJECT.match(clause)) or _OF_NOTHING.match(clause):
        return clause
    if not (thing := thing_named(before)) or thing in names:
        return clause
    if _DOING.match(thing) and not m[1] and not _DOING_DOES.match(clause, m.end()):
        return clause
    verb = ("has " if _HAS_AFTER.match(clause, m.end()) else "is ") if m[1] else ""
    return f"{thing[:1].upper()}{thing[1:]} {verb}{clause[m.end() :]}"
