"""`eval salience --data locomo10.json`: trains the salience model memory writing filters facts with
(app/consolidation/salience.py) and measures what it does, without the language model.

Each LoCoMo conversation's lines are read by the statements extractor exactly as memory writing reads a session
(`said`, then `check`, chunk by chunk), and each fact is labelled by whether it says what an annotator's
observation of its line says (MiniLM cosine >= 0.65, as `eval extraction` matches). A logistic regression over
the facts' text embeddings learns the label on every conversation but the held-out ones (conv-41 and conv-42,
never read while the rules were written). Reported, for each cut:
- leave one conversation out over the training conversations: the share of facts kept that match an
  observation (precision) and of observations a kept fact matches (recall), beside the unfiltered figures;
- the held-out conversations under the model trained on all the others.
The cut `memory.salience` is chosen from the first, never the second. These figures leave out what merging
does (`eval extraction` has it). The weights are written to OUT/salience_weights.json; the shipped ones are
app/consolidation/salience.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.config import Config
from app.consolidation.extract import check, said
from app.consolidation.salience import Salience
from app.evaluation.extraction import THRESHOLD, observations, similar_where_cited
from app.evaluation.locomo import load
from app.facts import FactKind
from app.recorder.perception import load_text_embedder
from app.store.writing import Line

HELD_OUT = ("conv-41", "conv-42")
CUTS = tuple(round(0.01 * i, 2) for i in range(1, 26))  # the cut is chosen on this grid (README, Memory writing)
C = 1.0  # inverse L2 strength (leave-one-out: 0.3 kept more and filtered less)


def _conversation(cfg: Config, turns, speakers: list[str], gold, embedder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the facts' embeddings, whether each matches an observation of its line, observations x facts: the
    similarity where the fact cites the observation's line, else -1)."""
    lines = [Line(i, None, t.speaker, t.text, t.t) for i, t in enumerate(turns)]
    dia = [t.dia_id for t in turns]
    facts: list[tuple[str, str]] = []
    for s in sorted({t.session for t in turns}):
        session = [ln for ln, t in zip(lines, turns, strict=True) if t.session == s]
        for i in range(0, len(session), cfg.memory.chunk_lines):
            chunk = session[i : i + cfg.memory.chunk_lines]
            items, _ = check(said(chunk, speakers), chunk, speakers, set())
            facts += [(dia[it.line.id], it.what) for it in items if it.kind is not FactKind.RELATION]
    vectors = embedder([what for _, what in facts])
    observed = embedder([text for _, text, _ in gold])
    eligible = similar_where_cited(observed, [set(ev) for _, _, ev in gold], vectors, [{d} for d, _ in facts])
    return vectors, eligible.max(axis=0) >= THRESHOLD, eligible


def _scores(eligible: np.ndarray, matches: np.ndarray, kept: np.ndarray) -> tuple[int, int, int, int]:
    """(facts kept that match, facts kept, observations a kept fact matches, observations)."""
    found = int((eligible[:, kept].max(axis=1) >= THRESHOLD).sum()) if kept.any() else 0
    return int(matches[kept].sum()), int(kept.sum()), found, eligible.shape[0]


def _fit(vectors: np.ndarray, labels: np.ndarray, embedder: str) -> Salience:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=C, max_iter=5000).fit(vectors, labels)
    return Salience(model.coef_[0].astype(np.float64), float(model.intercept_[0]), embedder)


def _curve(per_conversation: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> dict:
    """Precision and recall at each cut (and unfiltered) over conversations scored by (scores, matches, eligible)."""
    out = {}
    for cut in (0.0, *CUTS):
        totals = np.sum([_scores(e, m, p >= cut) for p, m, e in per_conversation], axis=0)
        out[f"{cut:.2f}"] = {
            "precision": round(totals[0] / max(totals[1], 1), 4),
            "recall": round(totals[2] / max(totals[3], 1), 4),
            "kept": int(totals[1]),
        }
    return out


def eval_salience(cfg: Config, data: Path, out: Path) -> dict:
    embedder = load_text_embedder(cfg)
    gold = observations(data)
    conversations = {
        sample_id: _conversation(cfg, turns, list(speakers), gold[sample_id], embedder)
        for sample_id, turns, _, speakers in load(data)
    }
    training = [c for c in conversations if c not in HELD_OUT]
    held_out = [c for c in conversations if c in HELD_OUT]
    folds = []
    for left in training:
        rest = [c for c in training if c != left]
        model = _fit(
            np.vstack([conversations[c][0] for c in rest]),
            np.concatenate([conversations[c][1] for c in rest]),
            cfg.models.text,
        )
        folds.append((model(conversations[left][0]), conversations[left][1], conversations[left][2]))
    model = _fit(
        np.vstack([conversations[c][0] for c in training]),
        np.concatenate([conversations[c][1] for c in training]),
        cfg.models.text,
    )
    tested = [(model(conversations[c][0]), conversations[c][1], conversations[c][2]) for c in held_out]
    out.mkdir(parents=True, exist_ok=True)
    about = {
        "trained_on": training,
        "held_out": held_out,
        "C": C,
        "facts": int(sum(len(conversations[c][1]) for c in training)),
    }
    (out / "salience_weights.json").write_text(json.dumps(model.as_dict(**about)) + "\n")
    return {
        "threshold": THRESHOLD,
        "cut": cfg.memory.salience,
        **about,
        "leave_one_out": _curve(folds),
        "held_out_curve": _curve(tested) if tested else {},
        "weights": str(out / "salience_weights.json"),
    }


def render(result: dict) -> str:
    rows = [
        f"salience: trained on {len(result['trained_on'])} conversations ({result['facts']} facts), "
        f"match at cosine >= {result['threshold']}; memory.salience = {result['cut']}",
        f"{'cut':>6} {'loo precision':>14} {'loo recall':>11} {'held-out precision':>19} {'held-out recall':>16}",
    ]
    for cut, loo in result["leave_one_out"].items():
        held = result["held_out_curve"].get(cut, {})
        rows.append(
            f"{cut:>6} {loo['precision']:>14.3f} {loo['recall']:>11.3f} "
            f"{held.get('precision', float('nan')):>19.3f} {held.get('recall', float('nan')):>16.3f}"
        )
    rows.append(f"weights: {result['weights']}")
    return "\n".join(rows) + "\n"
