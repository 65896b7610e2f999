"""What an answer may be read from: code gathers and ranks the lines; a model only reads (app/ask/answer.py).

- `gather`: the lines a question's answer may be in — the retriever's best turns, the lines that mention the
  people it names (who may never have spoken: "my wife Sarah"), the lines the matching facts were read from,
  and for "my colleagues" the asker's colleagues' lines (the line that made them colleagues joins the
  citations); requests to the companion are never evidence. They are ranked by the retriever's score plus
  whether they mention those people and hold the question's topic words (a line that answers another's
  question holds the words that question asked with: "Which sport do you love the most?" — "Tennis, of
  course!" holds "sport"), less the share of them that asks
  instead of stating and, for a question that asks when, whether they say no time. Each is shown as "who:
  what" in the third person, with its time words resolved against the day it was said ("on Monday" → "on
  Monday (Monday 18 May 2026)"), so a date is read off the line, never worked out by a model, and the day a
  line was said is not in it unless the question asks when something was said.
- `asker_needed`: a question about "my ..." or "did I ..." needs to know who asks.
- `asks_for_several`, `asks_for_a_guess`, `asks_when_said`: what kind of answer a question wants, which sets how
  many lines are read and how; `options`, `option_picked`: the choices an "A or B?" question offers, and the one
  an answer picks.
- `with_turns_beside`: the chosen lines with their speakers' turns just before and after them.

Whether an answer was read from the lines is checked in app/ask/checking.py.
Words are compared as app/ask/comparing.py makes them; app/ask/wording.py says a checked answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from app.ask.comparing import TIME_CANONICAL, TIME_WORDS, canonical, says, word_set
from app.ask.context import find
from app.ask.recall import Retriever
from app.ask.wording import resolve_times
from app.config import RecallConfig
from app.consolidation.person import third_person
from app.consolidation.relations import FAMILY, SOCIAL
from app.store.memory import Memory
from app.text.embedder import TextEmbedder
from app.text.timeexpr import day_words
from app.text.words import STOPWORDS, keywords, sentences, singular

FIRST_PERSON = re.compile(
    r"\b(?:my|mine|myself)\b|\b(?:did|do|does|have|had|was|am|should|can|could|will|would)\s+i\b|^\s*i\b", re.I
)
REQUEST = re.compile(r"\b(?:tell|remind|show|give|let|help)\s+me\b|\bcan you\b|\bdo you know\b", re.I)
SAID_WHEN = re.compile(r"\bwhen\b.*\b(?:say|said|tell|told|mention(?:ed)?|talk(?:ed)?|speak|spoke|ask(?:ed)?)\b", re.I)
FACT_SOURCES = 18  # facts matched per question whose source lines join the candidates
# added to a line's retrieval score: it mentions the people the question names (all of them: the whole weight),
# it holds the question's topic words (all: the whole weight), a matching fact was read from it
MENTION_WEIGHT, TOPIC_WEIGHT, FACT_WEIGHT = 1.0, 0.5, 0.2
# taken from a line's score: by the share of it that asks instead of stating ("Have you thought about what to bring
# to the party?" holds no answer), and, for a question that asks when, when it says no time (measured on LoCoMo's
# 1,535 questions of categories 1-4: the annotated line among the best two 952 -> 985 times; README, Answers)
ASKS_WEIGHT, UNTIMED_WEIGHT = 0.2, 0.2
# "When David was a boy in Boston, what did he play?" asks what
ASKS_WHEN = re.compile(
    r"^\s*(?:when|what\s+(?:year|month|day|date|time))\b(?!.*,\s*(?:what|who|where|which|how|why)\b)|\bhow\s+long\s+ago\b",
    re.I,
)
TIMED = re.compile(rf"\b(?:(?:19|20)\d\d|(?:{'|'.join(sorted(TIME_WORDS, key=len, reverse=True))})s?)\b", re.I)
_MY = re.compile(r"\bmy\s+(?:(?:new|old|best|little|older|younger|dear)\s+)?([a-z-]+)", re.I)
# words a question uses to ask, not what it asks about: "what does Sarah do for a living", "what is Emily's job"
ASKING = frozenset(
    "name kind type sort thing things time day date living job do does did doing get go make happen happened "
    "nobody anybody everyone people person persons folks whose whom mention mentioned describe described regarding "
    "according still anymore "
    "currently now nowadays lately presently main reason intention".split()
)
# the kind of answer a question wants ("what sport", "which city"), with an adjective before it ("what new sport")
_KIND = re.compile(
    r"\b(?:what|which|whose|how many|how much)\s+(?:(new|other|main|specific|particular|different)\s+)?([a-z]+)", re.I
)


def asker_needed(question: str) -> bool:
    """Whether the question is about the one who asks ("my colleagues", "what did I say"); "tell me" is not."""
    return bool(FIRST_PERSON.search(REQUEST.sub(" ", question)))


_AUXILIARY = r"(?:are|were|is|was|do|does|did|has|have|had|can|could|will|would)"


def asks_for_several(question: str) -> bool:
    """Whether `question` asks for several things, each perhaps said in a line of its own: a plural it asks
    about ("what books has Emily read?", "what kinds of pasta have they cooked?", "what are her children's names?";
    not "what kind of pasta does she love?"), what someone has done ("where has Sarah played tennis?", "what has she
    cooked?"), or how many."""
    q = question.strip().lower()
    if re.match(r"how many\b|(?:what|where)\s+(?:has|have)\b|what\s+(?:are|were)\b", q):
        return True
    kind = re.match(rf"(?:what|which)\s+((?:(?!{_AUXILIARY}\b)[\w'+/-]+\s+){{1,4}}){_AUXILIARY}\b", q)
    if kind is None:
        return False
    words = kind.group(1).split()
    head = words[words.index("of") - 1] if "of" in words[1:] else words[-1]  # "what kind of pasta": one kind
    return any(_plural(w) for w in head.split("/"))


_GUESS = re.compile(r"\b(?:would|might|likely|potentially|possibly|probably|perhaps)\b", re.I)
_REPORTED = re.compile(r"\b(?:say|says|said|tell|tells|told|promised|decided|agreed|planned)\s+(?:\w+\s+){0,2}$", re.I)


def asks_for_a_guess(question: str) -> bool:
    """Whether `question` asks what is likely, not what was said: "would Emily enjoy a ski trip or a beach
    holiday?", "what might John's favorite subject be?", "is it likely that David has friends besides John?" ("what
    did Emily say she would bring?" asks what was said)."""
    return any(not _REPORTED.search(question[: m.start()]) for m in _GUESS.finditer(question))


_LEAD = re.compile(  # the words before an option that are not it: "going to a ski resort" → "a ski resort"
    r"^(?:(?:to|in|on|at|of|for|by|with|near|from|into|going|visiting|playing|working|living)\s+)*", re.I
)


def options(question: str) -> tuple[str, str] | None:
    """The two things an "A or B?" question offers to choose from, as it says them: "Does Emily live close to
    the lake or the park?" → ("the lake", "the park"), "Which city did Maria live in first - Madrid or
    Paris?" → ("Madrid", "Paris"); the first is what follows a comma or a dash before "or", else as many words
    as the second has after it, up to the question's end. None for yes or no ("Answer yes or no"), a list
    ("classes or clubs has Nina joined") or a second clause ("cities Sarah has visited or is planning to visit?")."""
    m = re.search(r"\s(?:-\s+)?(\S+(?:\s+\S+){0,5}?)\s+or\s+((?:\S+\s+){0,5}?\S+?)\s*[?.]?\s*$", question)
    if not m or re.search(r"\b(?:yes|no|is|are|was|were|has|have|do|does|did|will)\b", m.group(2), re.I):
        return None
    second = _LEAD.sub("", m.group(2))
    words = m.group(1).split()
    at = max(len(words) - len(second.split()), 0)
    while at > 0 and words[at][:1].isupper() and words[at - 1][:1].isupper():  # "H. G. Wells or Jane Austen"
        at -= 1
    cut = [i + 1 for i, w in enumerate(words) if w.endswith(",") or w in ("-", "–", "—")]
    at = cut[-1] if cut else at  # "Which is first, the meeting with the bank or the trip to Paris?"
    first = _LEAD.sub("", " ".join(words[at:])).lstrip("-–— ")
    if not keywords(first) or not keywords(second) or re.search(r"\b(?:yes|no)\b", first, re.I):
        return None
    return first, second


def option_picked(answer: str, question: str) -> tuple[str, str] | None:
    """The option of an "A or B?" question (`options`) that `answer` names, and the other: the answer says a word
    only that option has ("the lake" and "the park": "Yes, Emily lives close to the lake" picks the
    lake), and none only the other has. None: the question offers no choice, or the answer picks neither or
    both, or says "not"."""
    offered = options(question)
    if offered is None or re.search(r"\b(?:not|never|neither|nor)\b|n['’]t\b", answer, re.I):
        return None  # "not the lake" picks nothing
    own = [{canonical(w) for w in keywords(o)} for o in offered]
    said = word_set(answer)
    picks = [bool((mine - other) & said) for mine, other in ((own[0], own[1]), (own[1], own[0]))]
    if picks.count(True) != 1:
        return None
    i = picks.index(True)
    return offered[i], offered[1 - i]


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "'s"))


def asks_when_said(question: str) -> bool:
    return bool(SAID_WHEN.search(question))


@dataclass(frozen=True)
class Line:
    """A candidate line: an utterance as the reading model sees it."""

    id: int
    person: str | None
    t_start: float
    text: str  # as it was said
    shown: str  # with its time words resolved (and, for a question about when it was said, its date)
    score: float
    via: str = "retrieved"  # retrieved | fact | relation
    heard_by: frozenset[str] = frozenset()  # the others who spoke in its conversation (lower case)
    session: int | None = None  # its conversation
    beside: int | None = None  # the chosen line it is read beside: the same speaker's turn just before or after
    asked: str = ""  # what another speaker asked just before it, which it may answer ("Which one do you love most?")
    about: frozenset[str] = frozenset()  # the people facts read from it are about (lower case): its "he" named

    def render(self) -> str:
        """As the model reads it: after the question it answers, when another asked one just before it and it
        opens with a few words that say nothing without it ("Kwame, asked "Are you still doing that half
        marathon?": The eighteenth of October"). Shown before every line that follows a question, LoCoMo's long
        chat lines lost 0.015 of F1 (seed 0, 1-4: 0.357 -> 0.342)."""
        opening = sentences(self.text)[0] if self.text.strip() else ""
        if self.asked and _answers_only(opening):
            return f'{self.person or "Someone"}, asked "{self.asked.strip()}": {self.shown}'
        return f"{self.person or 'Someone'}: {self.shown}"


_REPLY_WORDS = 3
_SUBJECT = re.compile(r"\b(?:I|I'm|we|he|she|it|it's|they|you|that|this)\b", re.I)
_CALLED = re.compile(r",\s*[A-Z][a-z]+\W*$")  # "Thanks, Caroline."


def _answers_only(opening: str) -> bool:
    """Whether a line's first sentence only answers what was asked: a few content words, no subject of its own,
    said to no one by name and not exclaimed ("The eighteenth of October.", "Next Monday.", "Just a green tea.";
    not "Yeah, it was great!", "Thanks, Caroline.": of LoCoMo's 5,882 lines, 185 open so)."""
    opening = opening.strip()
    return (
        len(keywords(opening)) <= _REPLY_WORDS
        and not _SUBJECT.search(opening)
        and not _CALLED.search(opening)
        and not opening.endswith(("!", "?"))
    )


@dataclass(frozen=True)
class Gathered:
    lines: list[Line]  # candidates, best first
    joined: dict[str, Line]  # a person reached through the asker's relation -> the line that relates them
    why_none: str = ""  # when there are no lines and a reason can be said
    named: list[str] = field(default_factory=list)  # the people the question names
    facts: list[int] = field(default_factory=list)  # the facts the question matched, best first


def line_of(u, score: float = 0.0, via: str = "retrieved", when_said: bool = False) -> Line:
    """A stored utterance as a question's candidate line: its time words resolved, said in the third person."""
    shown = resolve_times(u.text, u.t_start)
    if u.person:  # "John: John's wife Sarah is a doctor", not "my wife": a small model then reads who is who
        shown = third_person(shown, u.person) + "."
    if when_said:
        shown = f"(on {said_on(u.t_start)}) {shown}"
    return Line(u.id, u.person, u.t_start, u.text, shown, score, via, session=u.session_id)


def said_on(t: float) -> str:
    """The day a line said at `t` was said, in words ("Monday 1 May 2023")."""
    d = datetime.fromtimestamp(t, timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    return day_words(d, d.fromordinal(d.toordinal() + 1))


# a relation one side of which says it of the other too ("John is David's brother": David is John's brother too)
_BOTH_WAYS = frozenset(
    "brother sister sibling cousin friend colleague coworker neighbor neighbour roommate classmate partner".split()
)
_SAME_RELATION = {"kid": "child", "children": "child", "mom": "mother", "mum": "mother", "dad": "father",
                  "sis": "sister", "bro": "brother", "coworker": "colleague", "neighbour": "neighbor"}  # fmt: skip
_CHILD = frozenset(["son", "daughter", "child", "kid"])
_PARENT = frozenset(["mother", "father", "parent"])
_SIBLING = frozenset(["brother", "sister", "sibling"])
# the other side of a relation, whose word its side does not say: Ana, Tom's sister, has Tom for a sibling (a
# brother or a sister: the relation says Ana's), Tom's mother has Tom for a child
_INVERSE = {**dict.fromkeys(_SIBLING, _SIBLING), **dict.fromkeys(_CHILD, _PARENT), **dict.fromkeys(_PARENT, _CHILD)}


def relation_word(word: str) -> str:
    """A relation word as relations are compared: singular, one name for each ("kids" is "child")."""
    w = word.lower().removesuffix("'s")
    w = "child" if w == "children" else singular(w)
    return _SAME_RELATION.get(w, w)


def relation_reaches(memory: Memory, who: str, relation: str) -> dict[str, int | None]:
    """Whom `relation` of `who` reaches over the current relations, each with the line that says so."""
    reached: dict[str, int | None] = {}
    for r in memory.derived.relations_listed(memory.people.person_id(who)):
        if r["valid_to"] is not None:
            continue
        said = relation_word(r["relation"])
        wanted = said == relation or (relation == "child" and said in _CHILD)
        if wanted and r["object"] == who and r["subject"] != who:
            other = r["subject"]
        elif r["subject"] == who and (wanted and said in _BOTH_WAYS or said in _INVERSE.get(relation, ())):
            other = r["object"]  # "my brother": I am Tom's sister
        else:
            continue
        if other not in reached:
            reached[other] = r["sources"][0] if r["sources"] else None
    return reached


def _relation_words(memory: Memory) -> set[str]:
    """The words relations are read from, and those the memory holds."""
    return RELATION_WORDS | {singular(r[1].lower()) for r in memory.derived.relation_edges()}


def gather(
    memory: Memory,
    embedder: TextEmbedder,
    cfg: RecallConfig,
    question: str,
    now: datetime,
    asker: str | None,
    limit: int,
) -> Gathered:
    """The candidate lines for `question` asked by `asker` at `now`, best first, at most `limit`."""
    retriever = Retriever(memory, embedder, cfg)
    when_said = asks_when_said(question)
    joined: dict[str, Line] = {}
    query, people = question, ()
    walked = {singular(w.lower()) for w in _MY.findall(question)} & _relation_words(memory)
    if walked:  # "my colleagues": the asker's colleagues' words, and the lines that made them colleagues
        reached = {}
        for word in sorted(walked) if asker else ():
            for other, uid in relation_reaches(memory, asker, relation_word(word)).items():
                reached.setdefault(other, uid)
        rows = memory.turns.utterances([uid for uid in reached.values() if uid is not None])
        for other, uid in reached.items():
            if uid in rows and other != asker:
                joined.setdefault(other, line_of(rows[uid], 0.0, "relation", when_said))
        if not joined:
            return Gathered([], {}, f"I don't know of any {' or '.join(sorted(walked))} of yours.")
        query = _MY.sub(" ", question)
        people = tuple(joined)
    about = (asker,) if asker and asker_needed(question) and not walked else ()
    found = find(retriever, query, now, max(cfg.top_k, limit), about) if not people else None
    evidence = found.evidence if found else retriever.search(query, max(cfg.top_k, limit), people=people)
    pool = {e.utterance_id: e.score for e in evidence}
    relating = {line.id for line in joined.values()}  # "my brother": the line that says who he is
    for uid in relating:
        pool.setdefault(uid, 0.0)
    named = retriever.people_named(question)[0]
    if about and not named:  # "what am I allergic to?" is held only by a line by or about the asker ("what should
        named = [about[0]]  # I get Lucy?" is about Lucy)
    for name in named:  # lines that mention someone the question names, who may never have spoken
        for uid, _ in memory.search.bm25_search(keywords(name), limit):
            pool.setdefault(uid, 0.0)
    facts = [
        f for f in memory.derived.find_facts(keywords(query), FACT_SOURCES, [*named, *people]) if f["hits"] or people
    ]
    sources = memory.derived.fact_sources([f["id"] for f in facts])
    most = max((f["hits"] for f in facts), default=0) or 1
    from_facts: dict[int, float] = {}
    for f in facts:
        for uid in sources.get(f["id"], [])[:1]:
            pool.setdefault(uid, 0.0)
            from_facts[uid] = max(from_facts.get(uid, 0.0), f["hits"] / most)
    asked = memory.turns.addressed(list(pool))  # requests to the companion are never evidence
    rows = memory.turns.utterances([uid for uid in pool if uid not in asked])
    speakers = memory.turns.session_speakers({row.session_id for row in rows.values()})
    topic = topic_words(question, named)
    when = bool(ASKS_WHEN.search(question))
    answering = asked_before(memory, rows) if topic else {}
    citing = memory.derived.people_citing(list(rows))
    lines = []
    for uid, base in pool.items():
        row = rows.get(uid)
        if row is None or (people and row.person not in people and uid not in relating):
            continue
        line = line_of(row, 0.0, "fact" if uid in from_facts and base == 0.0 else "retrieved", when_said)
        asked = answering.get(uid, "")
        said, words = f"{row.person or ''} {line.shown}".lower(), word_set(line.shown) | word_set(asked)
        mentioned = sum(bool(re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", said)) for n in named)
        score = (
            base
            + MENTION_WEIGHT * (mentioned / len(named) if named else 0.0)
            + TOPIC_WEIGHT * (sum(says(w, words) for w in topic) / len(topic) if topic else 0.0)
            + FACT_WEIGHT * from_facts.get(uid, 0.0)
            - ASKS_WEIGHT * (1.0 - len(stated(line.shown)) / max(1, len(line.shown)))
            - UNTIMED_WEIGHT * (when and not TIMED.search(line.shown))
        )
        heard_by = frozenset(n.lower() for n in speakers.get(row.session_id, ()) if n != row.person)
        about = frozenset(n.lower() for n in citing.get(uid, ()))
        lines.append(replace(line, score=round(score, 4), heard_by=heard_by, asked=asked, about=about))
    ranked = sorted(lines, key=lambda line: (-line.score, line.id))[:limit]
    return Gathered(ranked, joined, named=named, facts=[f["id"] for f in facts])


def asked_before(memory: Memory, rows: dict) -> dict[int, str]:
    """For each of `rows` (utterance id → row) said just after another speaker's question, what that question asked
    (`asked_in`): an answer often leaves out what it answers ("Which sport do you love the most?" — "Tennis!").
    The ranking counts its words as the line's; the check only when it asks, alone, what is asked
    (`checking.holding`). On LoCoMo's 1,535 questions of categories 1-4 it put the annotated line among the best
    two 989 -> 1,020 times, better in every conversation (README, Answers)."""
    before = {uid: pair[0] for uid, pair in memory.search.neighbours(list(rows)).items() if pair[0] is not None}
    asking = memory.turns.utterances(list(set(before.values())))
    out = {}
    for uid, prior in before.items():
        row = asking.get(prior)
        asked = asked_in(row.text) if row else ""
        if asked and row.person != rows[uid].person:
            out[uid] = asked
    return out


def answered_after(memory: Memory, rows: dict) -> dict[int, str]:
    """For each of `rows` (utterance id → row) that asks something (ends with a question mark), the answer another
    speaker gave right after it, with who gave it: a plan asked ("Do you still need someone for next Tuesday?")
    is said in its answer ("Kwame: Yes please, can you take my morning shift?")."""
    after = {
        uid: pair[1]
        for uid, pair in memory.search.neighbours(list(rows)).items()
        if pair[1] is not None and rows[uid].text.rstrip().endswith("?")
    }
    answering = memory.turns.utterances(list(set(after.values())))
    return {
        uid: f"{row.person}: {row.text.strip()}"
        for uid, nxt in after.items()
        if (row := answering.get(nxt)) is not None and row.person and row.person != rows[uid].person
    }


_ASKING = frozenset(canonical(w) for w in ASKING)


RELATION_WORDS = frozenset(singular(w) for w in (*FAMILY, *SOCIAL))
# a relation word said of someone's own age, a time and no relative of theirs: "what did David play when he
# was a kid?", "as a child"
AGE = re.compile(
    r"\b(?:as|when|since|while)\s+(?:(?:he|she|i|they|we|you)\s+(?:was|were)\s+)?(?:an?\s+)?"
    r"(?:kid|kids|child|children|teen|teens|teenager|teenagers|boy|girl|baby|youngster)\b",
    re.I,
)


def told_who(question: str, named: list[str]) -> set[str]:
    """The relation words a question says just before a name it says ("Emily meets her colleague John": they tell
    who that is, and the name is what a line must hold) or of those with someone it names ("John and his friends",
    "Sarah and her colleagues": who was there too, which a line says as "we", so no line need say the relation;
    left among the topic words, where it counts as one: measured on LoCoMo, README, Answers)."""
    said = {singular(w.lower()) for n in named for w in re.findall(rf"\b(\w+)\s+{re.escape(n)}\b", question)}
    said |= {
        singular(w.lower())
        for n in named
        for w in re.findall(rf"\b{re.escape(n)}\s+and\s+(?:his|her|their)\s+(\w+)", question)
    }
    return said & RELATION_WORDS


def topic_words(question: str, named: list[str] = ()) -> list[str]:
    """What a question asks about: its content words without the people it names, the words it asks with
    (`ASKING`: "the main reason"), the kind of answer it wants ("what sport", "which city", "what new sport"),
    when it asks about ("in summer 2021": the time filter's, not the line's words; "when he was a kid": `AGE`),
    "others" (a stopword's plural), asked whether someone tried something, "tried" ("has
    Sarah tried skiing?" is held by "her love for skiing") and, asked what two did together, "together" (the
    two it names say it: "Let's book a tennis court", said by Emily to Sarah)."""
    kind = {m.lower() for found in _KIND.findall(question) for m in found if m}
    kind |= {m.lower() for m in re.findall(r"\bhow\s+(many|much|often|long|old|far)\b", question, re.I)}
    names = {w for n in named for w in keywords(n)}
    skip = names | kind | told_who(question, named)
    if re.match(r"\s*(?:has|have|had|did|does|do)\b", question, re.I):
        skip |= {"try", "tried", "tries"}  # "has Sarah tried skiing?" asks whether she skis
    if re.search(r"\band\b.+\btogether\b", question, re.I):
        skip.add("together")  # "what do Emily and Sarah plan to do together?": the two named say it ("let's play")
    return [
        c
        for w in keywords(AGE.sub(" ", question))
        if w not in skip
        and singular(w) not in STOPWORDS  # "recommends it to others": "other" is a stopword
        and (c := canonical(w)) not in _ASKING
        and c not in TIME_CANONICAL
        and not c.isdigit()
    ]


def with_turns_beside(memory: Memory, lines: list[Line], which: str, when_said: bool = False) -> list[Line]:
    """`lines` with, beside each (`which`: all, or the first), its speaker's turns just before and after it in
    its conversation (the other's turn between them skipped), in the order they were said: "Emily: How did
    the kids handle the storm?" — "Nina: They were frightened but we calmed them down" follows the line that
    names the storm. A request to the companion is never one of them."""
    if which == "off" or not lines:
        return lines
    near = lines[:1] if which == "first" else lines
    shown = {x.id for x in lines}
    hops = memory.search.neighbours([x.id for x in near])
    hops |= memory.search.neighbours([i for pair in hops.values() for i in pair if i is not None])
    seats = memory.search.turns([i for pair in hops.values() for i in pair if i is not None] + [x.id for x in near])
    found: dict[int, tuple[int | None, int | None]] = {}
    for x in near:
        me = seats.get(x.id)
        sides = []
        for side in (0, 1):
            step, pick = x.id, None
            for _ in range(2):  # the turn beside, or the one beside that when another spoke between
                step = hops.get(step, (None, None))[side]
                if step is None:
                    break
                if me is not None and seats.get(step) and seats[step].person_id == me.person_id:
                    pick = step
                    break
            sides.append(pick if pick not in shown else None)
        found[x.id] = (sides[0], sides[1])
    wanted = [i for pair in found.values() for i in pair if i is not None]
    asked = memory.turns.addressed(wanted)
    rows = memory.turns.utterances([i for i in wanted if i not in asked])
    out: list[Line] = []
    for x in lines:
        around = [rows[i] for i in found.get(x.id, ()) if i in rows]
        side = [replace(line_of(row, 0.0, "beside", when_said), heard_by=x.heard_by, beside=x.id) for row in around]
        out += [y for y in side if y.id < x.id] + [x] + [y for y in side if y.id > x.id]
    return list({y.id: y for y in out}.values())


def is_question(sentence: str) -> bool:
    """Whether `sentence` asks ("Any plans?", "Right? ."), by the question mark it ends with."""
    return sentence.rstrip(" .").endswith("?")


def stated(text: str) -> str:
    """`text` without its questions."""
    return " ".join(s for s in sentences(text) if not is_question(s))


def asked_in(text: str) -> str:
    """`text`'s questions alone."""
    return " ".join(s for s in sentences(text) if is_question(s))
