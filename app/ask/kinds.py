"""A question's kind as the project's own examples teach it (app/ask/kind_examples.py: 50 per kind written blind
to the rules, and 30 contrasts): a linear support-vector classifier over the question's words and letter groups
(scikit-learn), its people's names read as one word. The rules of app/ask/question.py know the wordings they were
written from; asked in new words ("how long were Priti and I on the phone?", "tell me everything about Bruno")
they fall back to a lookup, where the examples' wording reaches further. `eval kinds` measures both on questions
neither was written from.
"""

from __future__ import annotations

import re
import threading

from app.identity.naming import is_given_name

PERSON = "someone"  # what every name becomes: a kind is asked of anyone
_NOT_NAMES = frozenset(
    "I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August "
    "September October November December Christmas Easter Mum Mom Dad Gran Grandma Grandpa Nan".split()
)
_CAPITALISED = re.compile(r"(?<=[\w,;:] )[A-Z][\w'’-]*")  # a capitalised word inside a sentence
_OPENING = re.compile(r"^\s*([A-Z][a-z]+)(?=['’]s\b|\s*[,—–-]|\s+(?:and|still|is|was|has|had|did|does)\b)")
_ASKING = frozenset("will may can should would could did does do is are was were has have had how what".split())


def normal(text: str, names: list[str] = ()) -> str:
    """The question as the model reads it: each name (those known, and a capitalised word inside it that is no day,
    month or kin) one word, in lower case ("when did I last see Farid?" → "when did i last see someone?")."""
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", PERSON, text, flags=re.I)

    def person(m: re.Match) -> str:
        word = re.sub(r"['’]s$", "", m.group(0))
        return m.group(0) if word in _NOT_NAMES else PERSON + m.group(0)[len(word) :]

    text = _CAPITALISED.sub(person, text)
    opening = _OPENING.match(text)  # "Ben's birthday?", "Tom — still running?": a given name opening it
    if opening and opening.group(1).lower() not in _ASKING and is_given_name(opening.group(1)):
        text = PERSON + text[opening.end(1) :]
    return text.lower()


_FITTED: list = []
_FITTING = threading.Lock()


def model():
    """The classifier, fitted once a process on the examples (about 1.5 s with scikit-learn's import; the voice
    companion has it fitted in the background when it starts)."""
    with _FITTING:
        if not _FITTED:
            _FITTED.append(_fitted())
        return _FITTED[0]


def _fitted():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline, make_union
    from sklearn.svm import LinearSVC

    from app.ask.kind_examples import CONTRASTS, EXAMPLES

    words = TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True)
    letters = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True)
    model = make_pipeline(make_union(words, letters), LinearSVC())
    examples = (*EXAMPLES, *CONTRASTS)
    return model.fit([normal(q) for q, _ in examples], [k for _, k in examples])


def learnt(text: str, names: list[str] = ()) -> tuple[str, float]:
    """The kind the examples give `text`, and how far ahead of the next kind it is (the margin of the two best
    decision values)."""
    fitted = model()
    scores = fitted.decision_function([normal(text, names)])[0]
    second, best = scores.argsort()[-2:]
    return str(fitted.classes_[best]), float(scores[best] - scores[second])
