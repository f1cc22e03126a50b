"""Seed 003: metrics at a deployment prevalence, and the generic mean of two rates."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm


def _data():
    rng = np.random.default_rng(7)
    y = (rng.random(2000) < 0.3).astype(int)
    p = np.where(rng.random(2000) < 0.8, y, 1 - y)
    return y, p


def test_prevalence_keeps_sensitivity_and_specificity():
    y, p = _data()
    tp = np.sum((y == 1) & (p == 1))
    fn = np.sum((y == 1) & (p == 0))
    tn = np.sum((y == 0) & (p == 0))
    fp = np.sum((y == 0) & (p == 1))
    sens, spec = tp / (tp + fn), tn / (tn + fp)
    for pi in (0.001, 0.01, 0.5, 0.9):
        # Seed 003: accuracy = sens * prevalence + spec * (1 - prevalence)
        assert sm.Accuracy().update(y, p).compute(prevalence=pi) == pytest.approx(sens * pi + spec * (1 - pi))
        ppv = sens * pi / (sens * pi + (1 - spec) * (1 - pi))
        assert sm.Precision().update(y, p).compute(prevalence=pi) == pytest.approx(ppv)
        npv = spec * (1 - pi) / (spec * (1 - pi) + (1 - sens) * pi)
        assert sm.NPV().update(y, p).compute(prevalence=pi) == pytest.approx(npv)
        assert sm.Recall().update(y, p).compute(prevalence=pi) == pytest.approx(sens)
        f1 = 2 * ppv * sens / (ppv + sens)
        assert sm.F1().update(y, p).compute(prevalence=pi) == pytest.approx(f1)
        assert sm.Prevalence().update(y, p).compute(prevalence=pi) == pytest.approx(pi)


def test_prevalence_rejects_bad_values():
    y, p = _data()
    with pytest.raises(ValueError, match="prevalence"):
        sm.Precision().update(y, p).compute(prevalence=1.5)
    with pytest.raises(ValueError, match="prevalence"):
        sm.Precision(average="macro").update(y, p).compute(prevalence=0.1)


@pytest.mark.parametrize(
    "a,b,kind,formula",
    [
        ("tpr", "tnr", "arithmetic", lambda a, b: (a + b) / 2),
        ("tpr", "tnr", "harmonic", lambda a, b: 2 / (1 / a + 1 / b)),
        ("ppv", "tpr", "geometric", lambda a, b: np.sqrt(a * b)),
        ("ppv", "npv", "sum_minus_one", lambda a, b: a + b - 1),
        ("tpr", "fpr", "ratio", lambda a, b: a / b),
        ("fnr", "tnr", "ratio", lambda a, b: a / b),
    ],
)
def test_mean_of_two_rates_matches_seed_003_table(a, b, kind, formula):
    y, p = _data()
    tp = np.sum((y == 1) & (p == 1))
    fn = np.sum((y == 1) & (p == 0))
    tn = np.sum((y == 0) & (p == 0))
    fp = np.sum((y == 0) & (p == 1))
    rates = {
        "tpr": tp / (tp + fn),
        "tnr": tn / (tn + fp),
        "fpr": fp / (fp + tn),
        "fnr": fn / (fn + tp),
        "ppv": tp / (tp + fp),
        "npv": tn / (tn + fn),
    }
    got = sm.RateMean(a, b, kind).update(y, p).compute()
    assert got == pytest.approx(formula(rates[a], rates[b]))


def test_named_metrics_are_special_cases_of_rate_means():
    y, p = _data()
    assert sm.RateMean("ppv", "tpr", "harmonic").update(y, p).compute() == pytest.approx(
        sm.F1().update(y, p).compute()
    )
    assert sm.RateMean("tpr", "tnr", "sum_minus_one").update(y, p).compute() == pytest.approx(
        sm.Informedness().update(y, p).compute()
    )
    assert sm.RateMean("ppv", "tpr", "geometric").update(y, p).compute() == pytest.approx(
        sm.FowlkesMallows().update(y, p).compute()
    )
    assert sm.RateMean("tpr", "fpr", "ratio").update(y, p).compute() == pytest.approx(
        sm.PositiveLikelihoodRatio().update(y, p).compute()
    )
