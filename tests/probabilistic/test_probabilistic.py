"""Probabilistic metrics against scikit-learn / textbook formulas, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

import streammetrics as sm
from tests.helpers import assert_same

rng = np.random.default_rng(0)
N = 5000
Y = rng.integers(0, 2, N)
P = np.clip(0.3 * Y + 0.7 * rng.random(N), 0, 1)
W = rng.uniform(0.5, 2.0, N)
YC = rng.integers(0, 4, N)
PC = rng.dirichlet(np.ones(4), N)


@pytest.mark.parametrize("weights", [None, W])
def test_log_loss_and_brier_agree_with_sklearn(weights):
    assert sm.LogLoss().update(Y, P, sample_weight=weights).compute() == pytest.approx(
        skm.log_loss(Y, P, sample_weight=weights), rel=1e-12
    )
    assert sm.BrierScore().update(Y, P, sample_weight=weights).compute() == pytest.approx(
        skm.brier_score_loss(Y, P, sample_weight=weights), rel=1e-12
    )
    assert sm.LogLoss().update(YC, PC, sample_weight=weights).compute() == pytest.approx(
        skm.log_loss(YC, PC, sample_weight=weights), rel=1e-12
    )
    assert sm.BrierScore().update(YC, PC, sample_weight=weights).compute() == pytest.approx(
        skm.brier_score_loss(YC, PC, sample_weight=weights), rel=1e-12
    )


def test_log_loss_from_logits_is_stable_and_agrees():
    x = rng.normal(size=N) * 5
    assert sm.LogLoss(input="score").update(Y, x).compute() == pytest.approx(
        skm.log_loss(Y, 1 / (1 + np.exp(-x))), rel=1e-9
    )
    big = np.array([800.0, -800.0])
    assert sm.LogLoss(input="score").update([1, 0], big).compute() == 0.0
    logits = rng.normal(size=(N, 4))
    soft = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    assert sm.LogLoss(input="score").update(YC, logits).compute() == pytest.approx(
        skm.log_loss(YC, soft), rel=1e-9
    )


def test_brier_decomposition_identity_and_textbook_terms():
    d = sm.BrierScore(n_bins=10).update(Y, P).decomposition()
    assert d.brier == pytest.approx(skm.brier_score_loss(Y, P), rel=1e-12)
    total = d.reliability - d.resolution + d.uncertainty + d.within_bin_variance - d.within_bin_covariance
    assert total == pytest.approx(d.brier, rel=1e-10)
    # forecasts constant within bins: the within-bin terms vanish and Murphy's identity holds
    pq = (np.minimum(np.floor(P * 10), 9) + 0.5) / 10  # one forecast value per decile bin
    dq = sm.BrierScore(n_bins=10).update(Y, pq).decomposition()
    o = Y.mean()
    rel = sum(np.sum(pq == v) * (v - Y[pq == v].mean()) ** 2 for v in np.unique(pq)) / N
    res = sum(np.sum(pq == v) * (Y[pq == v].mean() - o) ** 2 for v in np.unique(pq)) / N
    assert dq.reliability == pytest.approx(rel, rel=1e-9)
    assert dq.resolution == pytest.approx(res, rel=1e-9)
    assert dq.uncertainty == pytest.approx(o * (1 - o), rel=1e-12)
    assert abs(dq.within_bin_variance) < 1e-12
    assert dq.reliability - dq.resolution + dq.uncertainty == pytest.approx(dq.brier, rel=1e-9)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_curve_matches_sklearn(strategy):
    m = sm.CalibrationError(n_bins=10, strategy=strategy, resolution=20).update(Y, P)
    prob_true, prob_pred = calibration_curve(Y, P, n_bins=10, strategy=strategy)
    r = m.curve()
    np.testing.assert_allclose(r.prob_true, prob_true, rtol=1e-12)
    np.testing.assert_allclose(r.prob_pred, prob_pred, rtol=1e-12)
    counts = np.histogram(P, bins=r.edges)[0]
    ece = np.sum(counts[counts > 0] / N * np.abs(prob_true - prob_pred))
    assert m.compute() == pytest.approx(ece, rel=1e-9)


def test_expected_cost_and_bayes_decisions_textbook():
    costs = np.array([[0, 10, 1000], [500, 20, 0]], dtype=float)
    q = rng.dirichlet([1, 1], N)
    y = (rng.random(N) < q[:, 1]).astype(int)
    d = sm.bayes_decisions(q, costs)
    brute = np.array(
        [np.argmin([sum(costs[c, j] * row[c] for c in range(2)) for j in range(3)]) for row in q]
    )
    np.testing.assert_array_equal(d, brute)
    ec = np.mean(costs[y, d])
    assert sm.ExpectedCost(costs).update(y, q).compute() == pytest.approx(ec, rel=1e-12)
    assert sm.ExpectedCost(costs).update(y, d).compute() == pytest.approx(ec, rel=1e-12)
    priors = np.array([0.1, 0.9])
    rcd = np.array([[np.mean(d[y == c] == j) for j in range(3)] for c in range(2)])
    ec_p = np.sum(costs * priors[:, None] * rcd)
    m = sm.ExpectedCost(costs, priors=priors, normalize=True).update(y, d)
    assert m.compute() == pytest.approx(ec_p / np.min(priors @ costs), rel=1e-12)
    # the Bayes decision on calibrated posteriors is never worse than any fixed decision
    assert ec <= min(np.mean(costs[y, j]) for j in range(3))


@pytest.mark.parametrize("scale", [1.0, 2.0**50, 1e17, 1e20, 1e70])
def test_expected_cost_with_huge_whole_weights(scale):
    """Whole weights keep an int64 table only while its sums are exact and cannot wrap: 1e20
    once wrapped int64 (a value of 0.0); merging a table into itself past 2^62 turns it float."""
    costs = np.array([[0, 10, 1000], [500, 20, 0]], dtype=float)
    y, d = rng.integers(0, 2, 40), rng.integers(0, 3, 40)
    w = rng.integers(1, 5, 40).astype(float)
    expected = np.average(costs[y, d], weights=w)
    m = sm.ExpectedCost(costs).update(y, d, sample_weight=w * scale)
    assert m.compute() == pytest.approx(expected, rel=1e-12)
    for _ in range(20):
        m.merge(m.copy())
    assert m.compute() == pytest.approx(expected, rel=1e-12)
    assert type(m).from_bytes(m.to_bytes()).compute() == m.compute()


BAD = [
    (sm.LogLoss, {}, ([0, 1], [0.5, 1.2]), "y_proba"),
    (sm.LogLoss, {}, ([0, 1], [0.5, np.nan]), "y_proba"),
    (sm.BrierScore, {}, ([0, 1], [[0.5, 0.6], [0.2, 0.8]]), "y_proba"),
    (sm.BrierScore, {}, ([0, 5], [[0.5, 0.5], [0.2, 0.8]]), "y_true"),
    (sm.CalibrationError, {}, ([0, 1], [0.5, -0.2]), "y_proba"),
    (sm.ExpectedCost, {"costs": [[0, 1], [1, 0]]}, ([0, 1], [0, 2]), "y_pred"),
    (sm.ExpectedCost, {"costs": [[0, 1], [1, 0]]}, ([0, 1], [[0.5, 0.6], [0.2, 0.8]]), "y_pred"),
    (sm.ExpectedCost, {"costs": [[0, 1], [1, 0]]}, ([0, 1], [[0.5, 0.3, 0.2], [0.2, 0.7, 0.1]]), "y_pred"),
]


@pytest.mark.parametrize("case", BAD, ids=lambda c: f"{c[0].__name__}-{c[3]}")
def test_bad_batches_raise_and_leave_state_unchanged(case):
    cls, kw, args, argument = case
    m = cls(**kw)
    m.update([0, 1], [0, 1] if cls is sm.ExpectedCost else [0.2, 0.7])
    before = m.state_dict()
    with pytest.raises(sm.InputError, match=argument):
        m.update(*args)
    assert_same(m.state_dict()["state"], before["state"], exact=True)


def test_bad_cost_matrices_and_priors():
    with pytest.raises(ValueError, match="costs"):
        sm.ExpectedCost([1, 2, 3])
    with pytest.raises(ValueError, match="costs"):
        sm.ExpectedCost([[0, np.inf], [1, 0]])
    with pytest.raises(ValueError, match="priors"):
        sm.ExpectedCost([[0, 1], [1, 0]], priors=[0.5, 0.6])
    with pytest.raises(sm.InputError, match="posteriors"):
        sm.bayes_decisions([[0.2, 0.3, 0.5]], [[0, 1], [1, 0]])


def test_expected_cost_rows_are_pair_codes_equal_to_one_batch_and_refused_when_offered():
    rng = np.random.default_rng(4)
    costs = [[0, 1, 0.3], [5, 0, 0.3]]
    y, d = rng.integers(0, 2, 300), rng.integers(0, 3, 300)
    m = sm.ExpectedCost(costs)
    for t, q in zip(y.tolist(), d.tolist(), strict=True):
        m.update(t, q)
    # the empirical expected cost: mean cost of the decisions taken, by exact arithmetic
    from fractions import Fraction

    exact = sum(Fraction(costs[t][q]) for t, q in zip(y.tolist(), d.tolist(), strict=True)) / len(y)
    assert m.compute() == pytest.approx(float(exact), rel=1e-12)
    before = m.to_bytes()
    for bad, message in [((2, 0), "y_true: expected classes 0..K-1"), ((0, 3), "decision indices in 0..2")]:
        with pytest.raises(sm.InputError, match=message):
            m.update(*bad)
    assert m.to_bytes() == before


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_error_takes_one_hot_truth_like_its_family(strategy):
    """A 2-D 0/1 y_true (as LogLoss and BrierScore take it, after scikit-learn): the top-label
    calibration error of its classes, so the three share one collection fed (one-hot, proba)."""
    from tests.law_cases.probabilistic import _ece

    rng = np.random.default_rng(12)
    y = rng.integers(0, 3, 400)
    p = rng.dirichlet(np.ones(3), 400)
    w = rng.uniform(0.0, 2.0, 400)
    onehot = np.eye(3, dtype=int)[y]
    m = sm.CalibrationError(n_bins=10, strategy=strategy).update(onehot, p, sample_weight=w)
    assert m.compute() == pytest.approx(
        sm.CalibrationError(n_bins=10, strategy=strategy).update(y, p, sample_weight=w).compute(), rel=1e-12
    )
    if strategy == "uniform":  # the textbook top-label ECE
        hit = (p.argmax(axis=1) == y).astype(float)
        assert m.compute() == pytest.approx(_ece(10, "l1")(hit, p.max(axis=1), sample_weight=w), rel=1e-12)
    both = (rng.random((400, 3)) < 0.4).astype(int)  # several true classes: a hit is any of them
    multi = sm.CalibrationError(n_bins=10).update(both, p).compute()
    hit = both[np.arange(400), p.argmax(axis=1)].astype(float)
    assert multi == pytest.approx(_ece(10, "l1")(hit, p.max(axis=1)), rel=1e-12)
    c = sm.MetricCollection(
        {"ll": sm.LogLoss(), "brier": sm.BrierScore(), "ece": sm.CalibrationError(n_bins=10)}
    )
    out = c.update(onehot, p).compute()
    assert out["ll"] == pytest.approx(skm.log_loss(onehot, p), rel=1e-12)
    assert out["ece"] == pytest.approx(sm.CalibrationError(n_bins=10).update(y, p).compute(), rel=1e-12)
    with pytest.raises(sm.InputError, match="y_proba: expected shape"):
        sm.CalibrationError().update(onehot[:, :2], p)
