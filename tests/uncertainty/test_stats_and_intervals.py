"""The NumPy-only distribution functions and the analytic intervals, against SciPy and by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.uncertainty import _stats as st
from streammetrics.uncertainty import (
    auc_interval,
    fisher_z,
    hanley_mcneil,
    hanley_mcneil_se,
    pearson_interval,
    proportion_counts,
    wilson,
    wilson_interval,
)


def test_normal_quantile_matches_scipy_to_double_precision():
    ps = np.concatenate(
        [np.logspace(-300, -1, 300), np.linspace(0.001, 0.999, 999), 1 - np.logspace(-15, -1, 50)]
    )
    ours = np.array([st.normal_quantile(p) for p in ps])
    np.testing.assert_allclose(ours, stats.norm.ppf(ps), rtol=2e-15, atol=2e-15)
    assert st.normal_quantile(0.0) == -np.inf and st.normal_quantile(1.0) == np.inf
    assert np.isnan(st.normal_quantile(1.5))


def test_chi2_and_binomial_and_hypergeometric_match_scipy():
    xs = np.linspace(0, 60, 121)
    np.testing.assert_allclose([st.chi2_1_sf(x) for x in xs], stats.chi2.sf(xs, 1), rtol=1e-13, atol=1e-300)
    for n in range(1, 70):
        for k in range(n + 1):
            assert st.binom_two_sided_half(k, n) == pytest.approx(stats.binomtest(k, n).pvalue, rel=1e-12)
    for k, n in ((4800, 10000), (30, 2000), (1000, 2001)):
        assert st.binom_two_sided_half(k, n) == pytest.approx(
            stats.binomtest(k, n).pvalue, rel=1e-9, abs=1e-300
        )
    # far more trials: the tail from k down, and log P(X = k) without log-gamma's cancellation
    for n in (10**6, 2**24, 2**32):
        for k in (n // 2 - round(3 * n**0.5), n // 2 - round(n**0.5 / 2), n // 2, 7):
            assert st.binom_two_sided_half(k, n) == pytest.approx(
                stats.binomtest(k, n).pvalue, rel=1e-9, abs=1e-300
            )
    with pytest.raises(ValueError, match="trials"):
        st.binom_two_sided_half(5, 2**32 + 1)
    k = np.arange(0, 16)
    np.testing.assert_allclose(
        st.hypergeom_pmf(k, 60, 20, 15), stats.hypergeom.pmf(k, 60, 20, 15), rtol=1e-12
    )


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_wilson_interval_matches_scipy(level):
    for k, n in ((0, 10), (3, 10), (10, 10), (37, 120), (500, 1000)):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        low, high = wilson_interval(k, n, level)
        assert (low, high) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-14)
    low, high = wilson_interval(np.array([1, 2]), np.array([0, 4]), level)
    assert np.isnan(low[0]) and np.isnan(high[0]) and 0 < low[1] < 0.5 < high[1] < 1


@pytest.mark.parametrize(
    ("metric", "num_den"),
    [
        (sm.Accuracy(), lambda tn, fp, fn, tp: (tp + tn, tp + tn + fp + fn)),
        (sm.Precision(), lambda tn, fp, fn, tp: (tp, tp + fp)),
        (sm.Recall(), lambda tn, fp, fn, tp: (tp, tp + fn)),
        (sm.Specificity(), lambda tn, fp, fn, tp: (tn, tn + fp)),
        (sm.NPV(), lambda tn, fp, fn, tp: (tn, tn + fn)),
        (sm.FPR(), lambda tn, fp, fn, tp: (fp, fp + tn)),
        (sm.FNR(), lambda tn, fp, fn, tp: (fn, fn + tp)),
        (sm.FDR(), lambda tn, fp, fn, tp: (fp, fp + tp)),
        (sm.FOR(), lambda tn, fp, fn, tp: (fn, fn + tn)),
        (sm.Prevalence(), lambda tn, fp, fn, tp: (tp + fn, tp + tn + fp + fn)),
    ],
    ids=lambda x: type(x).__name__ if isinstance(x, sm.Metric) else "",
)
def test_wilson_of_binary_metrics_reads_the_right_counts(metric, num_den):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    p = np.where(rng.random(300) < 0.7, y, 1 - y)
    metric.update(y, p)
    tn, fp, fn, tp = skm.confusion_matrix(y, p).ravel()
    num, den = num_den(tn, fp, fn, tp)
    assert proportion_counts(metric) == (num, den)
    iv = wilson(metric, level=0.9)
    ci = stats.binomtest(int(num), int(den)).proportion_ci(confidence_level=0.9, method="wilson")
    assert (iv.estimate, iv.low, iv.high, iv.level) == pytest.approx((num / den, ci.low, ci.high, 0.9))
    assert iv.estimate == pytest.approx(metric.compute())


def test_wilson_multiclass_averages():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200)
    p = np.where(rng.random(200) < 0.6, y, rng.integers(0, 3, 200))
    per_class = wilson(sm.Recall(average=None).update(y, p))
    cm = skm.confusion_matrix(y, p)
    np.testing.assert_allclose(per_class.estimate, np.diag(cm) / cm.sum(axis=1))
    low, high = wilson_interval(np.diag(cm), cm.sum(axis=1))
    np.testing.assert_allclose(per_class.low, low)
    np.testing.assert_allclose(per_class.high, high)
    micro = wilson(sm.Precision(average="micro").update(y, p))
    assert micro.estimate == pytest.approx(skm.accuracy_score(y, p))
    acc = wilson(sm.Accuracy().update(y, p))
    assert (acc.low, acc.high) == pytest.approx(wilson_interval(np.trace(cm), cm.sum()))
    with pytest.raises(ValueError, match="average"):
        wilson(sm.Recall(average="macro").update(y, p))
    with pytest.raises(ValueError, match="metric"):
        wilson(sm.F1().update([0, 1], [0, 1]))
    with pytest.raises(ValueError, match="level"):
        wilson(sm.Accuracy().update([0, 1], [0, 1]), level=1.0)
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(wilson(sm.Precision().update([1, 1], [0, 0])).estimate)


def test_wilson_coverage_by_simulation():
    rng = np.random.default_rng(5)
    for p, n in ((0.3, 100), (0.9, 60), (0.05, 400)):
        k = rng.binomial(n, p, 4000)
        low, high = wilson_interval(k, np.full(4000, n))
        coverage = np.mean((low <= p) & (p <= high))
        assert 0.92 <= coverage <= 0.975, (p, n, coverage)


def test_hanley_mcneil_matches_formula_and_rocauc():
    a, n1, n2 = 0.75, 40, 70
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se = np.sqrt((a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n2 - 1) * (q2 - a * a)) / (n1 * n2))
    assert hanley_mcneil_se(a, n1, n2) == pytest.approx(se, rel=1e-14)
    iv = auc_interval(a, n1, n2, level=0.9)
    assert (iv.low, iv.high) == pytest.approx((a - stats.norm.ppf(0.95) * se, a + stats.norm.ppf(0.95) * se))
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 500)
    s = rng.normal(size=500) + 0.8 * y
    m = sm.ROCAUC(input="score", exact=True).update(y, s)
    iv = hanley_mcneil(m)
    ref = auc_interval(skm.roc_auc_score(y, s), (y == 1).sum(), (y == 0).sum())
    assert (iv.estimate, iv.low, iv.high) == pytest.approx((ref.estimate, ref.low, ref.high), rel=1e-6)


def test_hanley_mcneil_coverage_by_simulation():
    rng = np.random.default_rng(7)
    reps, n1, n2, d = 400, 60, 90, 1.0
    truth = stats.norm.cdf(d / np.sqrt(2))
    pos = rng.normal(d, 1.0, (reps, n1))
    neg = rng.normal(0.0, 1.0, (reps, n2))
    # Mann-Whitney AUC per repetition, vectorized: ranks of the pooled scores
    ranks = stats.rankdata(np.concatenate([pos, neg], axis=1), axis=1)
    auc = (ranks[:, :n1].sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n2)
    covered = [auc_interval(a, n1, n2).contains(truth) for a in auc]
    assert 0.91 <= np.mean(covered) <= 0.98


def test_fisher_z_matches_formula_and_covers():
    x = np.arange(40.0)
    y = x + 8 * np.sin(x)
    r = stats.pearsonr(x, y)[0]
    iv = fisher_z(sm.PearsonR().update(y, x), level=0.9)
    h = stats.norm.ppf(0.95) / np.sqrt(37)
    assert (iv.estimate, iv.low, iv.high) == pytest.approx(
        (r, np.tanh(np.arctanh(r) - h), np.tanh(np.arctanh(r) + h))
    )
    sq = fisher_z(sm.PearsonR().update(y, x), level=0.9, squared=True)
    assert (sq.estimate, sq.low, sq.high) == pytest.approx((r * r, iv.low**2, iv.high**2))
    assert pearson_interval(0.05, 30, squared=True).low == 0.0
    assert np.isnan(pearson_interval(0.5, 3).low)
    with pytest.raises(ValueError, match="PearsonR"):
        fisher_z(sm.R2().update([1.0, 2.0, 3.0], [1.0, 2.5, 2.0]))
    rng = np.random.default_rng(8)
    reps, n, rho = 400, 50, 0.6
    a = rng.standard_normal((reps, n))
    b = rho * a + np.sqrt(1 - rho**2) * rng.standard_normal((reps, n))
    ac, bc = a - a.mean(1, keepdims=True), b - b.mean(1, keepdims=True)
    rs = (ac * bc).sum(1) / np.sqrt((ac**2).sum(1) * (bc**2).sum(1))
    covered = [pearson_interval(r, n).contains(rho) for r in rs]
    assert 0.91 <= np.mean(covered) <= 0.98
