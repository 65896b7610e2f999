"""The kinds of fact memory holds, and each kind's rules: how memory writing types a fact, how facts of a kind
merge, and how the person page and the model's context show them. A new kind of memory is a new member here
(and its words in `TYPES`).

A kind is a `StrEnum`: a member is the very string the `facts` table stores ("plan" == FactKind.PLAN), so rows,
SQL parameters and JSON are unchanged.
"""

from __future__ import annotations

import re

from app.compat import StrEnum

LIKES, DISLIKES = "likes", "dislikes"  # the types typing gives a preference: its polarity, 1 or -1
_POLARITY = {LIKES: 1, DISLIKES: -1}
SINGLE = frozenset({"name", "age", "job", "home"})  # one value at a time: a new one supersedes (MOOM's replace)


class FactKind(StrEnum):
    """What a fact is, in the order the person page shows the kinds."""

    ATTRIBUTE = "attribute"  # who they are: "Emily works as a nurse"; what a fact no words mark is
    PREFERENCE = "preference"  # "Emily loves tennis" (polarity 1), "David hates peanuts" (-1)
    HABIT = "habit"  # "John swims in the lake every morning"
    PLAN = "plan"  # still ahead: "David is planning a trip to Paris"; once its day is over, an event
    EVENT = "event"  # what happened: "Maria moved here from Madrid last month"
    RELATION = "relation"  # "Sarah is John's wife": an extracted item written as a relation row, never a fact

    @classmethod
    def of_type(cls, type_: str) -> FactKind:
        """The kind of a typed item (`TYPES`): "likes" and "dislikes" are preferences, any other type is its
        kind."""
        return cls.PREFERENCE if type_ in _POLARITY else cls(type_)

    @classmethod
    def read(cls, value: str) -> FactKind | None:
        """The kind a stored fact names; None for a value no member has."""
        try:
            return cls(value)
        except ValueError:
            return None

    @property
    def heading(self) -> str | None:
        """Its part of the profile on the person page (None: never a fact row)."""
        return {
            FactKind.ATTRIBUTE: "Who they are",
            FactKind.PREFERENCE: "Likes and dislikes",
            FactKind.HABIT: "Habits",
            FactKind.PLAN: "Plans",
            FactKind.EVENT: "What happened",
        }.get(self)

    @property
    def one_off(self) -> bool:
        """It happened, or will, once and at a time: it never restates a fact of another kind when merged
        ("played tennis this morning" does not restate "loves playing tennis"), it takes the time its line names
        when its own words leave it out, and a session's digest gives its day."""
        return self in (FactKind.PLAN, FactKind.EVENT)

    @property
    def takes_time(self) -> bool:
        """A time the fact names decides its kind: a plan while the time is still ahead, an event once it is past
        ("Lucy starts school in September"); a preference or a habit stays one."""
        return self in (FactKind.ATTRIBUTE, FactKind.PLAN, FactKind.EVENT)

    @property
    def single_keys(self) -> frozenset[str]:
        """The keys of which a person holds one value at a time: a new value supersedes the held one (`SINGLE`
        for attributes: a new job, home, age or name)."""
        return SINGLE if self is FactKind.ATTRIBUTE else frozenset()

    @property
    def context_date(self) -> str:
        """The words before its date in the profile the model reads ("planned for 2026-05-22")."""
        return {FactKind.PLAN: "planned for", FactKind.EVENT: "on"}.get(self, "from")

    def page_date(self, passed: bool) -> str:
        """The words before its date on the person page ("since", "planned for"; "was planned for" once the
        plan's day has `passed`); empty for an event, which shows its day alone."""
        if self is FactKind.PLAN:
            return "was planned for" if passed else "planned for"
        return "" if self is FactKind.EVENT else "since"


def polarity(type_: str) -> int:
    """1 for what a person likes, -1 for what they dislike, 0 for any other type."""
    return _POLARITY.get(type_, 0)


_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# "got" as a past tense: not "has got", "I've got", "she's got" (those are "has")
GOT_PAST = r"(?<!has )(?<!have )(?<!['’]ve )(?<!['’]s )got"
PAST = re.compile(  # a verb in the past tense, not a participle used as an adjective ("is excited")
    r"\b(?:was|were|had|did|went|came|gave|left|lost|won|spent|saw|told|said|began|ran|fell|flew|drove|wrote|"
    rf"made|broke|took|{GOT_PAST}|"
    r"met|bought|found|ate|swam|rode|thought|felt|sold|sent|paid|kept|brought|caught|taught|built|held|heard|knew|"
    r"sang|sat|stood|slept|wore|threw|forgot|chose|drank|grew|hid|lent|meant|"
    r"(?<!is )(?<!am )(?<!are )(?<!'m )(?<!'re )(?<!be )(?<!very )(?<!so )(?<!get )(?<!feel )(?!indeed)[a-z]{3,}ed)\b",
    re.IGNORECASE,
)


def past_tense(fact: str) -> bool:
    """Whether a fact tells what happened ("twisted my ankle on Friday"): its weekday is then the last one."""
    return PAST.search(fact) is not None


TYPES = (  # type -> words that mark it, first match wins; a fact no words mark is an attribute
    (
        DISLIKES,
        re.compile(
            r"\b(hate[sd]?|dislike[sd]?|can't stand|cannot stand|(do|does|did)(n't| not) like|not a fan)\b", re.I
        ),
    ),
    # "a friend got Emily into it" (not "David gets really into music")
    (
        FactKind.EVENT,
        re.compile(r"\b(?:got|gets) (?!(?:into|really|so|very|super|more|deeper|back)\b)\w+ into\b", re.I),
    ),
    (
        LIKES,
        re.compile(
            r"\b(love[sd]?|like[sd]?|enjoy(s|ed)?|prefer(s|red)?|favou?rite|fan of|passionate"
            r"|(?<!get )(?<!got )(?<!gets )into"  # "into jazz", not "get into trouble"
            r"|always wanted|dreams? of)\b",  # a long-held wish: "has always wanted to live by the sea"
            re.I,
        ),
    ),
    (
        FactKind.HABIT,
        re.compile(
            rf"\b((every|each)\s+(other\s+)?(day|morning|afternoon|evening|night|week|weekend|month|year|{_DAYS})"
            rf"|usually|always(?! (?:wanted|been|had|loved|liked|thought|dreamed))|often|regularly|daily|weekly"
            rf"|on weekends|on ({_DAYS})s"
            # what someone has been doing of late: "has been busy volunteering at the hospital", not a wish or a plan
            r"|(?:has|have)\s+been\s+(?:busy\s+|really\s+|still\s+)?"
            r"(?!thinking|planning|hoping|wanting|looking|considering|dreaming|wondering|meaning|feeling|going)\w+ing)\b",
            re.I,
        ),
    ),
    (
        FactKind.PLAN,
        re.compile(
            r"\b(plan(s|ning)?|going to|gonna|will|next|tomorrow|soon|hop(e|es|ing) to|want(s|ing)? to"
            r"|thinking about|excited to|can['’]t wait to|looking forward to"  # what someone looks forward to doing
            r"|decided to"  # "David decided to sell his old bicycle" (a time past makes it an event)
            r"|(?:has|have|has got|have got|got) an? (?:\w+ )?appointment)\b",  # one at a time to come
            re.I,
        ),
    ),
    # a view held, of nothing to come: "John thinks history should be taught in school" (not "thinks he will call")
    (LIKES, re.compile(r"\b(?:thinks(?! about| of)|believes)\b", re.I)),
    (
        FactKind.EVENT,
        re.compile(
            rf"\b(?:yesterday|last|ago)\b|{PAST.pattern}",  # what happened: "David's old bicycle broke down"
            re.I,
        ),
    ),
)


def type_of(fact: str) -> str:
    """The type of a fact sentence, from the words it uses (`TYPES`)."""
    return next((t for t, pattern in TYPES if pattern.search(fact)), FactKind.ATTRIBUTE)
