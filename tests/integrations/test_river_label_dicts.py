"""RiverMetric with probability dicts: LogLoss agrees with river per sample (issue 15)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("river")
from river import metrics as rm

import streammetrics as sm
from streammetrics.integrations.river import RiverMetric


def _dicts(classes: list, n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        p = rng.dirichlet(np.ones(len(classes)))
        yield classes[rng.integers(len(classes))], dict(zip(classes, p.tolist(), strict=True))


@pytest.mark.parametrize("classes", [[0, 1, 2], ["cat", "dog", "eel", "fox"], [False, True]])
def test_log_loss_of_probability_dicts_agrees_with_river_cross_entropy_per_sample(classes) -> None:
    ours, theirs = RiverMetric(sm.LogLoss()), rm.CrossEntropy()
    for y, d in _dicts(classes):
        ours.update(y, d)
        theirs.update(y, d)
        assert ours.get() == pytest.approx(theirs.get(), rel=1e-9)


def test_binary_log_loss_dicts_agree_with_river_log_loss() -> None:
    ours, theirs = RiverMetric(sm.LogLoss()), rm.LogLoss()
    for y, d in _dicts([False, True], seed=3):
        ours.update(y, d)
        theirs.update(y, d)
        assert ours.get() == pytest.approx(theirs.get(), rel=1e-9)


def test_a_dict_missing_the_true_class_is_clipped_not_refused() -> None:
    m = RiverMetric(sm.LogLoss())
    m.update(2, {0: 0.5, 1: 0.5})
    assert m.get() == pytest.approx(-math.log(np.finfo(float).eps))


def test_binary_score_metrics_take_the_positive_class_probability_from_the_dict() -> None:
    ours, theirs = RiverMetric(sm.ROCAUC(exact=True)), rm.ROCAUC(n_thresholds=1000)
    for y, d in _dicts([False, True], seed=5):
        ours.update(y, d)
        theirs.update(y, d)
    assert ours.get() == pytest.approx(theirs.get(), abs=0.02)
