"""Who spoke when and what, scored against a simulated conversation's gold (app/evaluation/simulate.py).

- DER with pyannote.metrics (no collar, overlapped speech scored), with its parts: missed speech, false alarm and
  confusion, in seconds of speaker time; JER (the Jaccard error, averaged over the gold speakers);
- cpWER with meeteval: each gold speaker's words against each hypothesis person's words under the best
  one-to-one mapping (words of a person mapped to no one are insertions, of a speaker left unmapped deletions);
  and the WER with who said it ignored (all words in time order), which tells the recognizer's errors from the
  attribution's. Texts pass OpenAI's English normalizer first, as `eval asr` does;
- people found (distinct persons given speech) against the gold speakers.

Pooled figures add the parts (seconds, errors, words, speakers) over the conversations, never average rates.
pyannote.metrics, meeteval and whisper-normalizer are imported when a score is computed (the `eval` extra).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

from app.errors import ConfigError
from app.evaluation.simulate import Conversation, Segment

_LOGGER = logging.getLogger(__name__)
NOBODY = "(nobody)"  # speech given to no person: each such segment a label of its own, never counted as a person


@dataclass(frozen=True)
class Said:
    """One hypothesis segment: who (None: nobody), when in seconds from the recording's start, and its words."""

    speaker: str | None
    start_s: float
    end_s: float
    text: str = ""


@dataclass(frozen=True)
class Score:
    total_s: float  # gold speaker time (overlapped speech counts once per speaker)
    missed_s: float
    false_alarm_s: float
    confusion_s: float
    jer_error: float  # summed over the gold speakers
    jer_speakers: int
    words: int  # gold words after normalization
    cp_errors: int | None  # None: words not scored
    cp_insertions: int | None
    cp_deletions: int | None
    cp_substitutions: int | None
    plain_errors: int | None  # who said it ignored
    people: int
    speakers: int

    @property
    def der(self) -> float:
        return (self.missed_s + self.false_alarm_s + self.confusion_s) / max(self.total_s, 1e-9)

    @property
    def jer(self) -> float:
        return self.jer_error / max(self.jer_speakers, 1)

    @property
    def cpwer(self) -> float | None:
        return None if self.cp_errors is None else self.cp_errors / max(self.words, 1)

    @property
    def wer(self) -> float | None:
        return None if self.plain_errors is None else self.plain_errors / max(self.words, 1)

    def as_dict(self) -> dict:
        out = {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}
        for k in ("der", "jer", "cpwer", "wer"):
            v = getattr(self, k)
            out[k] = None if v is None else round(v, 4)
        out["right_count"] = self.people == self.speakers
        return out


def require() -> None:
    """Fail in one line, before any work, when the scorers are not installed."""
    for module, package in (
        ("pyannote.metrics", "pyannote.metrics"),
        ("meeteval", "meeteval"),
        ("whisper_normalizer", "whisper-normalizer"),
    ):
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            raise ConfigError(f"{package} is not installed: pip install -e '.[eval]'")


def score(gold: Conversation, said: Sequence[Said], words: bool = True) -> Score:
    """`said` against `gold`'s segments (and, with `words`, its words)."""
    said = [s if s.speaker is not None else replace(s, speaker=f"{NOBODY} {i}") for i, s in enumerate(said)]
    der, jer = _der_jer(gold.segments, said, gold.duration_s)
    people = len({s.speaker for s in said if not (s.speaker or NOBODY).startswith(NOBODY) and s.end_s > s.start_s})
    cp = plain = None
    n_words = len(_normalized(" ".join(w.text for w in gold.words)).split())
    if words:
        reference = {s: " ".join(w.text for w in gold.words if w.speaker == s) for s in gold.speakers}
        hypothesis: dict[str, list[str]] = {}
        for s in sorted(said, key=lambda s: s.start_s):
            hypothesis.setdefault(s.speaker, []).append(s.text)
        cp = cp_wer(reference, {k: " ".join(v) for k, v in hypothesis.items()})
        plain = cp_wer(
            {"all": " ".join(w.text for w in gold.words)},
            {"all": " ".join(s.text for s in sorted(said, key=lambda s: s.start_s))},
        )
    return Score(
        total_s=der["total"],
        missed_s=der["missed detection"],
        false_alarm_s=der["false alarm"],
        confusion_s=der["confusion"],
        jer_error=jer["speaker error"],
        jer_speakers=int(jer["speaker count"]),
        words=n_words,
        cp_errors=None if cp is None else cp.errors,
        cp_insertions=None if cp is None else cp.insertions,
        cp_deletions=None if cp is None else cp.deletions,
        cp_substitutions=None if cp is None else cp.substitutions,
        plain_errors=None if plain is None else plain.errors,
        people=people,
        speakers=len(gold.speakers),
    )


def _der_jer(gold: Sequence[Segment], said: Sequence[Said], duration_s: float) -> tuple[dict, dict]:
    try:
        from pyannote.core import Annotation, Timeline
        from pyannote.core import Segment as Span
        from pyannote.metrics.diarization import DiarizationErrorRate, JaccardErrorRate
    except ImportError as e:
        raise ConfigError("pyannote.metrics is not installed: pip install -e '.[eval]'") from e
    reference, hypothesis = Annotation(), Annotation()
    for i, s in enumerate(gold):
        reference[Span(s.start_s, s.end_s), i] = s.speaker
    for i, s in enumerate(said):
        if s.end_s > s.start_s:
            hypothesis[Span(s.start_s, s.end_s), i] = s.speaker
    reference, hypothesis = reference.support(), hypothesis.support()  # one person's overlapping segments: once
    uem = Timeline([Span(0.0, max(duration_s, *(s.end_s for s in said), 0.0))])
    der = DiarizationErrorRate(collar=0.0, skip_overlap=False)(reference, hypothesis, uem=uem, detailed=True)
    jer = JaccardErrorRate(collar=0.0, skip_overlap=False)(reference, hypothesis, uem=uem, detailed=True)
    return der, jer


def cp_wer(reference: dict[str, str], hypothesis: dict[str, str]):
    """meeteval's cpWER of speaker -> text maps (normalized here); a CPErrorRate (errors, length, insertions...)."""
    try:
        from meeteval.wer import cp_word_error_rate
    except ImportError as e:
        raise ConfigError("meeteval is not installed: pip install -e '.[eval]'") from e
    ref = {k: _normalized(v) for k, v in reference.items()}
    hyp = {k: _normalized(v) for k, v in hypothesis.items()}
    return cp_word_error_rate(ref, hyp, reference_sort=False, hypothesis_sort=False)


def _normalized(text: str) -> str:
    return " ".join(_normalizer()(text).split())


@functools.cache
def _normalizer():
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as e:
        raise ConfigError("whisper-normalizer is not installed: pip install -e '.[eval]'") from e
    return EnglishTextNormalizer()


def pooled(scores: Sequence[Score]) -> dict:
    """The scores' parts added up, and the rates of the sums; the share of conversations with the right number
    of people."""
    if not scores:
        return {}
    total = sum(s.total_s for s in scores)
    missed, fa, conf = (sum(getattr(s, k) for s in scores) for k in ("missed_s", "false_alarm_s", "confusion_s"))
    words = sum(s.words for s in scores)
    out = {
        "conversations": len(scores),
        "der": round((missed + fa + conf) / max(total, 1e-9), 4),
        "missed": round(missed / max(total, 1e-9), 4),
        "false_alarm": round(fa / max(total, 1e-9), 4),
        "confusion": round(conf / max(total, 1e-9), 4),
        "jer": round(sum(s.jer_error for s in scores) / max(sum(s.jer_speakers for s in scores), 1), 4),
        "words": words,
        "right_count": round(sum(s.people == s.speakers for s in scores) / len(scores), 4),
        "people": sum(s.people for s in scores),
        "speakers": sum(s.speakers for s in scores),
    }
    if all(s.cp_errors is not None for s in scores):
        out["cpwer"] = round(sum(s.cp_errors or 0 for s in scores) / max(words, 1), 4)
        out["wer"] = round(sum(s.plain_errors or 0 for s in scores) / max(words, 1), 4)
    return out
