"""Identity measurements: metrics against known values, adaptive s-norm's properties, and the face and speaker
evaluations on the shared real data (skipped without it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main
from app.evaluation.metrics import auc, best_threshold, cv_accuracy, eer, roc, tar_at_far
from app.evaluation.speakers import render as render_speakers
from app.identity.snorm import AdaptiveSNorm
from tests.conftest import need_models


def test_metrics_on_a_known_case():
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    y = np.array([1, 1, 0, 1, 0, 0], bool)
    assert auc(roc(s, y)) == pytest.approx(8 / 9)  # as sklearn's roc_auc_score
    assert eer(s, y)[0] == pytest.approx(1 / 3)
    assert tar_at_far(s, y, 0.0) == pytest.approx(2 / 3)
    assert best_threshold(s, y) == (pytest.approx(0.55), pytest.approx(5 / 6))
    perfect = np.r_[np.ones(20), np.zeros(20)].astype(bool)
    assert cv_accuracy(np.where(perfect, 1.0, 0.0), perfect) == 1.0
    assert eer(np.where(perfect, 1.0, 0.0), perfect)[0] == 0.0


def test_snorm_cancels_a_typical_voice():
    rng = np.random.default_rng(0)
    cohort = rng.standard_normal((300, 64))
    cohort /= np.linalg.norm(cohort, axis=1, keepdims=True)
    hub = cohort[:50].mean(0)  # a voice close to many cohort voices scores high against everyone
    hub /= np.linalg.norm(hub)
    plain = rng.standard_normal(64)
    plain /= np.linalg.norm(plain)
    norm = AdaptiveSNorm(cohort, top_n=100)
    mu_hub, _ = norm.stats(hub)
    mu_plain, _ = norm.stats(plain)
    assert mu_hub[0] > mu_plain[0]
    scores = norm.scores(np.stack([hub, plain]), np.stack([hub, plain]))
    assert scores.shape == (2, 2) and np.allclose(scores, scores.T, atol=1e-5)  # symmetric by construction
    assert scores[0, 0] > scores[0, 1] and scores[1, 1] > scores[1, 0]
    with pytest.raises(ValueError):
        AdaptiveSNorm(cohort[:1])


def test_eval_faces_on_real_pairs(shared_data, tmp_path, capsys):
    need_models("dlib")
    assert main(["eval", "faces", "--json", "--out", str(tmp_path)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert set(r) >= {"accuracy", "roc_auc", "tar_at_far_1pct", "threshold", "pairs"}
    assert r["pairs"] == 1830 and r["accuracy"] >= 0.98 and r["roc_auc"] >= 0.99
    assert json.loads((tmp_path / "faces.json").read_text())["pairs"] == 1830
    assert r["plot"] == str(tmp_path / "faces_roc.png") and (tmp_path / "faces_roc.png").stat().st_size > 10_000


def test_eval_speakers_on_real_voices(shared_data, tmp_path, capsys):
    need_models("resemblyzer")
    assert main(["eval", "speakers", "--json", "--out", str(tmp_path)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert set(r) >= {"eer", "pass_at_1", "pass_at_1_snorm", "trials"}
    assert r["trials"] == 4950 and r["eer"] <= 0.02 and r["pass_at_1"] >= 0.97
    fsdd = r["datasets"]["fsdd"]
    assert fsdd["pass_at_1"] >= 0.9 and set(fsdd["snorm"]) == {"seed", "met people", "seed + met people"}
    streams = r["streams"]  # the recorder's turns and live assignment, one speaker after another
    for name, speakers in (("jfk", 1), ("ljspeech", 1), ("librispeech speakers", 10), ("fsdd speakers", 6)):
        c = streams[name]
        assert c["speakers"] == speakers and c["people"] == speakers, (name, c)
        assert c["over_splits"] == 0 and c["merges"] == 0, (name, c)
    assert streams["librispeech speakers"]["wrong_turns"] <= 0.05 * streams["librispeech speakers"]["turns"]
    assert "10 speakers -> 10 people: 0 over-splits, 0 merges" in render_speakers(r)
