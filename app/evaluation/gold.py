"""The gold questions of `eval answers` (and its held-out set, `HELD_OUT`): what a user asks about the demo
conversation, the companion scene the morning after, and the memory scene (`tests/test_memory_scene.py`), each
with the answers accepted and the line that supports it — or none, where the memory does not hold the answer and
"I don't know" is right.

An answer is right when it contains one of `accept` (case and punctuation aside; `all` when every one of them
must be there). A citation is right when one of the lines it cites is among `lines`. Lines are given as
(scene, index of the scene's line). `asker` is who asks (`ask --as`): a question with "my" in it needs one.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.demo import COMPANION_SCRIPT, COMPANION_TIME, CREATION_TIME, SCRIPT

MEMORY_SCENE = (  # tests/test_memory_scene.py's lines, said on the afternoon of 1 June 2026
    ("Emily", "Hi, my name is Emily. I love playing tennis with my friends on the weekend."),
    ("John", "Hello, my name is John. My colleague Emily works with me at the bank."),
    ("Emily", "John prefers swimming in the lake near his house."),
    ("John", "That is true. I swim there every morning before work."),
)
MEMORY_SCENE_TIME = "2026-06-01T15:00:00+00:00"


@dataclass(frozen=True)
class Scene:
    name: str
    lines: tuple[tuple[str, str], ...]  # (speaker, what they said), in order
    start: str  # ISO time of the first line
    memory: str  # which memory it is recorded into: scenes that share one are recorded one after the other


SCENES = {
    "demo": Scene("demo", SCRIPT, CREATION_TIME, "demo"),
    # the companion scene without what was said to the companion ("hey memory, ..."): only what is memory
    "companion": Scene("companion", tuple((s, t) for s, t, _ in COMPANION_SCRIPT[:1]), COMPANION_TIME, "demo"),
    "scene": Scene("scene", MEMORY_SCENE, MEMORY_SCENE_TIME, "scene"),
}


# the kinds of question the lifelog sets ask (`eval lifelog`, app/evaluation/lifelog.py)
KINDS = ("lookup", "who", "when", "yesno", "list", "count", "order", "recap", "met", "last_met", "how_often",
         "how_long", "state", "change", "relation", "plans", "guess")  # fmt: skip


@dataclass(frozen=True)
class LifeQuestion:
    """A question of a lifelog set: what a right answer says (`need` of `accept`; none: the memory does not hold
    it), the lines that hold it, when and by whom it is asked (None: the wearer)."""

    question: str
    kind: str  # one of KINDS
    accept: tuple[str, ...] = ()  # phrases a right answer contains (case and punctuation aside); empty: unanswerable
    need: int = 1  # how many of `accept` a right answer must contain
    lines: tuple[tuple[str, int], ...] = ()  # (scene, line index): a right citation cites one
    asked_at: str = ""  # ISO time the question is asked ("": the set's ASKED_AT)
    asker: str | None = None  # None: the wearer

    @property
    def answerable(self) -> bool:
        return bool(self.accept)


@dataclass(frozen=True)
class GoldFact:
    scene: str
    line: int
    person: str  # whom it is about
    text: str
    kind: str  # attribute | preference | habit | relation | plan | event
    date: str | None = None  # plans and events: YYYY-MM-DD or YYYY-MM


@dataclass(frozen=True)
class Gold:
    question: str
    memory: str  # demo | scene
    accept: tuple[str, ...] = ()  # empty: the memory does not hold the answer
    lines: tuple[tuple[str, int], ...] = ()
    asker: str | None = None
    all: bool = False  # every accepted phrase must be in the answer
    asked_at: str | None = None  # ISO time of the question (default: an hour after the memory's last line)

    @property
    def answerable(self) -> bool:
        return bool(self.accept)


def _d(question: str, accept, *lines: int, **kw) -> Gold:
    return Gold(
        question,
        "demo",
        tuple([accept] if isinstance(accept, str) else accept),
        tuple(("demo", i) for i in lines),
        **kw,
    )


def _s(question: str, accept, *lines: int, **kw) -> Gold:
    return Gold(
        question,
        "scene",
        tuple([accept] if isinstance(accept, str) else accept),
        tuple(("scene", i) for i in lines),
        **kw,
    )


def _none(question: str, memory: str = "demo", **kw) -> Gold:
    return Gold(question, memory, **kw)


GOLD: tuple[Gold, ...] = (
    # the demo conversation (Thursday 14 May 2026)
    _d("Who is allergic to peanuts?", "david", 8),
    _d("What is David allergic to?", "peanut", 8),
    _d("Where does Emily work?", "hospital", 0),
    _d("What is Emily's job?", "nurse", 0),
    _d("What does John teach?", "history", 1),
    _d("Where does John teach?", "high school", 1),
    _d("Who is John's brother?", "david", 2),
    _d("Where did David and John grow up?", "boston", 2),
    _d("What sport does Emily play?", "tennis", 3),
    _d("When does Emily play tennis?", "saturday", 3),
    _d("Where does Emily play tennis?", "park", 3),
    _d("Who is John's wife?", "sarah", 4),
    _d("What does Sarah do for a living?", "doctor", 4),
    _d("Who is a doctor?", "sarah", 4),
    _d("Where is David going for his birthday?", "paris", 5),
    _d("When is the trip to Paris?", ("22 may", "friday"), 5),
    _d("What is Emily's favorite food?", "pasta", 6),
    _d("When is the meeting with the bank?", ("18 may", "monday"), 7),
    _d("What time is the meeting with the bank?", ("ten", "10"), 7),
    _d("Why should nobody bring cookies to the party?", ("peanut", "allergic"), 8),
    _d("What is the name of Emily's daughter?", "lucy", 9),
    _d("When does Lucy start school?", "september", 9),
    _d("Who is Maria?", "colleague", 10),
    _d("Where did Maria move from?", "madrid", 10),
    _d("When did Maria move here?", ("april", "last month"), 10),
    _d("What did David buy?", "bicycle", 11),
    _d("How does David get to work?", ("bicycle", "bike"), 11),
    _d("Who loves tennis?", ("emily", "sarah"), 3, 4),
    _d("Who grew up in Boston?", ("david", "john"), 2),
    _d("Who teaches history?", "john", 1),
    _d("Who works at the city hospital?", "emily", 0),
    _d("Whose birthday is next Friday?", "david", 5),
    _d("Who is Lucy?", "daughter", 9),
    _d("What does David ride to work?", ("bicycle", "bike"), 11),
    _d("Which city is Maria from?", "madrid", 10),
    # where a place lies, which no line says (app/text/places.py)
    _d("Which country did Maria move here from?", "spain", 10),
    _d("Which country is David going to for his birthday?", "france", 5),
    _d("In which US state did David and John grow up?", "massachusetts", 2),
    # how long between two things, or since one, and which came first: counted by code from the days their lines
    # name (app/ask/spans.py)
    _d(
        "How many days are there between the meeting with the bank and the trip to Paris?",
        ("four days", "4 days"),
        7,
        5,
    ),
    _d("How long ago did Maria move here?", ("four weeks", "one month", "a month"), 10),
    _d("Which is first, the meeting with the bank or the trip to Paris?", "meeting", 7, 5),
    # a likely guess asked for: said as one, from the line that bears on it
    _d("Would David enjoy a peanut butter sandwich?", "no", 8),
    _d("Would Emily enjoy watching a tennis match?", "yes", 3),
    _d("What might Lucy be excited about?", "school", 9),
    # the companion scene (Friday 15 May 2026, the morning after)
    Gold("When did David come back from his trip?", "demo", ("14 may",), (("companion", 0),)),
    Gold("Who came back from a trip?", "demo", ("david",), (("companion", 0),)),
    # the memory scene (Monday 1 June 2026)
    _s("Which of my colleagues loves tennis?", "emily", 0, 1, asker="John"),
    _s("Does any of my colleagues love tennis?", "emily", 0, 1, asker="John"),
    _s("Where does Emily work?", "bank", 1),
    _s("What does John prefer?", "swim", 2),
    _s("Where does John swim?", "lake", 2, 3),
    _s("When does John swim?", "morning", 3),
    _s("Who works with John at the bank?", "emily", 1),
    _s("What does Emily love?", "tennis", 0),
    _s("When does Emily play tennis?", "weekend", 0),
    _s("Who is John's colleague?", "emily", 1),
    # what the memory does not hold: "I don't know" is the right answer
    _none("What car does John drive?"),
    _none("Where was Emily born?"),
    _none("What is David's favorite color?"),
    _none("How old is Lucy?"),
    _none("What is Sarah's favorite food?"),
    _none("Who is Emily's husband?"),
    _none("What does Maria do for a living?"),
    _none("Where does David work?"),
    _none("What instrument does John play?"),
    _none("What is the name of David's dog?"),
    _none("When is Emily's birthday?"),
    _none("Which hospital does Sarah work at?"),
    _none("What did Emily eat for breakfast?"),
    _none("Who is allergic to shellfish?"),
    _none("What is John's last name?"),
    _none("Does Emily have a son?"),
    _none("Would Emily enjoy a ski holiday in the Alps?"),
    _none("Would John like to learn the piano?"),
    _none("What is the name of Emily's daughter?", "scene"),
    _none("Who is John's wife?", "scene"),
    _none("Which of my colleagues loves tennis?", "scene"),  # nobody says who is asking
    _none("Where does David's sister live?"),
    _none("Which country is Emily from?"),
    _none("How many days passed between Emily's birthday and the trip to Paris?"),
    _none("Which came first, Emily's birthday or the trip to Paris?"),
)

# The held-out questions (`eval answers --held-out`): written blind by a helper session from the scenes' transcripts
# alone, on 2026-11-25, without seeing the code or the answers; the design is never tuned on them.
HELD_OUT = (
    # --- answerable, MEMORY "demo", scene "demo" ---
    _d("Who is Sarah married to?", "john", 4),
    _d("Does my wife like tennis?", ("yes", "loves tennis"), 4, asker="John"),
    _d("Who is Sarah?", ("wife", "doctor"), 4),
    _d("Who's my brother again?", "john", 2, asker="David"),
    _d("What's the occasion for the Paris trip?", "birthday", 5),
    _d("Who is planning a trip to Paris?", "david", 5),
    _d("What's planned for Friday the 22nd of May?", ("paris", "birthday", "trip"), 5),
    _d("What's on Monday the 18th?", "bank", 7),
    _d("What did I ask everyone to remember?", "bank", 7, asker="John"),
    _d("What should nobody bring to the party?", ("cookie",), 8),
    _d("What does Emily like with her pasta?", ("tomato",), 6),
    _d("How often does David ride his new bike?", ("every day", "everyday", "daily"), 11),
    _d("Who bought a new bicycle?", "david", 11),
    _d("What's the name of our new colleague?", "maria", 10, asker="John"),
    _d("Who moved here from Madrid?", "maria", 10),
    _d("Which of them is a nurse?", "emily", 0),
    _d("Who teaches at the high school?", "john", 1),
    _d("Is Lucy looking forward to starting school?", ("yes", "excited"), 9),
    _d("Does Emily have any kids?", ("yes", "lucy", "daughter"), 9),
    _d("What does Emily do on Saturday mornings?", "tennis", 3),
    # --- answerable, MEMORY "scene" ---
    _s("Where does John work?", "bank", 1),
    _s("Where do I work?", "bank", 1, asker="Emily"),
    _s("Who does Emily work with?", "john", 1),
    _s("Who does Emily play tennis with?", ("friend",), 0),
    _s("Who prefers swimming?", "john", 2),
    _s("Who swims in the lake every morning?", "john", 3),
    # --- not answerable, MEMORY "demo" ---
    _none("What's the name of Lucy's school?"),
    _none("How old is David turning on his birthday?"),
    _none("Which hotel is David staying at in Paris?"),
    _none("What is the meeting with the bank about?"),
    _none("What colour is David's new bicycle?"),
    _none("How many children does John have?"),
    _none("What did David bring back from Paris?"),
    _none("Which airline is David flying with to Paris?"),
    _none("How long has Emily been working as a nurse?"),
    _none("How many people are coming to the party?"),
    # --- not answerable, MEMORY "scene" ---
    _none("What does Emily do at the bank?", memory="scene"),
    _none("What's the name of the lake John swims in?", memory="scene"),
    _none("Where does Emily live?", memory="scene"),
    _none("What time do I start work?", memory="scene", asker="John"),
)
