"""Permutation tests and McNemar's test: agreement with SciPy, validity under the null."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import sklearn.metrics as skm
from scipy import stats

import streammetrics as sm
from streammetrics.uncertainty import mcnemar_test, permutation_test, random_tables, significance
from tests.helpers import assert_same


def _table_rows(table):
    """Rows (y_true, y_pred) realizing a 2-D confusion table."""
    k = len(table)
    t, p = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    counts = np.asarray(table).ravel()
    return np.repeat(t.ravel(), counts), np.repeat(p.ravel(), counts)


@pytest.mark.parametrize(
    "table", [[[12, 5], [3, 10]], [[3, 9], [8, 2]], [[40, 35], [30, 45]], [[0, 4], [5, 0]]]
)
def test_exact_accuracy_test_is_fishers_exact_test(table):
    y, p = _table_rows(table)
    r = permutation_test(sm.Accuracy().update(y, p))
    assert r.method == "exact (hypergeometric)"
    assert r.pvalue == pytest.approx(stats.fisher_exact(table, alternative="greater").pvalue, rel=1e-10)


def test_exact_test_of_any_metric_against_enumeration():
    table = np.array([[30, 8], [11, 21]])
    y, p = _table_rows(table)
    n, r0, c0 = table.sum(), table[0].sum(), table[:, 0].sum()

    def f1(t):  # textbook F1 of class 1: 2 tp / (2 tp + fp + fn)
        tp, fp, fn = t[1, 1], t[0, 1], t[1, 0]
        return 2 * tp / (2 * tp + fp + fn)

    observed = f1(table)
    expected = 0.0
    for x in range(max(0, r0 + c0 - n), min(r0, c0) + 1):
        t = np.array([[x, r0 - x], [c0 - x, n - r0 - c0 + x]])
        if f1(t) >= observed - 1e-12:
            expected += stats.hypergeom.pmf(x, n, r0, c0)
    r = permutation_test(sm.F1().update(y, p))
    assert r.statistic == pytest.approx(observed) and r.pvalue == pytest.approx(expected, rel=1e-10)
    fpr = permutation_test(sm.FPR().update(y, p))  # lower is better: alternative "less" by default
    assert fpr.pvalue < 0.01
    worse = permutation_test(sm.FPR().update(y, p), alternative="greater")
    assert worse.pvalue > 0.99


def test_monte_carlo_agrees_with_exact_and_with_scipy_permutation_test():
    table = np.array([[14, 6], [7, 13]])
    y, p = _table_rows(table)
    exact = permutation_test(sm.Accuracy().update(y, p)).pvalue
    mc = permutation_test(sm.Accuracy().update(y, p), n_resamples=20000, seed=1, method="monte-carlo")
    assert mc.method == "monte-carlo" and mc.n_resamples == 20000
    assert abs(mc.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000)
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 60)
    p = np.where(rng.random(60) < 0.45, y, rng.integers(0, 3, 60))
    ours = permutation_test(sm.Accuracy().update(y, p), n_resamples=4000, seed=3)
    ref = stats.permutation_test(
        (y,),
        lambda yy: np.mean(yy == p),
        permutation_type="pairings",
        n_resamples=4000,
        alternative="greater",
        random_state=4,
    )
    assert abs(ours.pvalue - ref.pvalue) < 4 * np.sqrt(ref.pvalue * (1 - ref.pvalue) / 4000) + 1e-3


@pytest.mark.parametrize("per_draw", [1, 7, 5000])
def test_monte_carlo_draws_its_tables_a_chunk_at_a_time(per_draw, monkeypatch):
    """Resamples beyond TABLE_CELLS are drawn and scored a chunk at a time: the p-value is that of
    the same tables drawn chunk after chunk from one generator (one chunk: one draw, as before),
    and agrees with scipy's permutation test."""
    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 90)
    p = np.where(rng.random(90) < 0.1, y, rng.integers(0, 3, 90))  # (a p-value far from 0)
    metric = sm.MCC().update(y, p)
    monkeypatch.setattr(significance, "TABLE_CELLS", 9 * per_draw)
    ours = permutation_test(metric, n_resamples=3000, seed=9)
    table = metric.state.matrix.astype(np.int64)
    draws, rows, cols = np.random.default_rng(9), table.sum(axis=1), table.sum(axis=0)
    tables = [random_tables(rows, cols, min(per_draw, 3000 - lo), draws) for lo in range(0, 3000, per_draw)]
    values = [sm.MCC().update(*_table_rows(t)).compute() for t in np.concatenate(tables)]
    hits = np.sum(np.array(values) >= metric.compute() - 1e-12)
    assert ours.pvalue == (1 + hits) / 3001 and ours.n_resamples == 3000 and 0.02 < ours.pvalue < 0.98
    ref = stats.permutation_test(
        (y,),
        lambda yy: skm.matthews_corrcoef(yy, p),
        permutation_type="pairings",
        n_resamples=3000,
        alternative="greater",
        random_state=10,
    )
    assert abs(ours.pvalue - ref.pvalue) < 4 * np.sqrt(
        2 * ref.pvalue * (1 - ref.pvalue) / 3000
    )  # (both sampled)


def test_monte_carlo_of_many_labels_holds_a_chunk_of_tables_at_a_time():
    """100 labels and 2,000 resamples: 160 MB of tables in one draw; at most TABLE_CELLS cells
    (32 MB) at a time."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 100, 3000)
    metric = sm.Accuracy().update(y, np.where(rng.random(3000) < 0.2, y, rng.integers(0, 100, 3000)))
    tracemalloc.start()
    try:
        result = permutation_test(metric, n_resamples=2000, seed=12)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.pvalue == 1 / 2001  # (20% right against 1% by chance)
    assert peak < 2 * significance.TABLE_CELLS * 8


def test_random_tables_keep_margins_and_have_hypergeometric_cells():
    rows, cols = np.array([20, 30, 10]), np.array([25, 5, 30])
    t = random_tables(rows, cols, 20000, np.random.default_rng(5))
    assert (t.sum(axis=2) == rows).all() and (t.sum(axis=1) == cols).all() and t.min() >= 0
    for i in range(3):
        for j in range(3):  # each cell ~ Hypergeometric(N, cols[j], rows[i])
            mean, var = stats.hypergeom.stats(60, cols[j], rows[i])
            assert t[:, i, j].mean() == pytest.approx(mean, abs=4 * np.sqrt(var / 20000) + 1e-9)


def test_permutation_pvalues_are_uniform_under_the_null():
    rng = np.random.default_rng(6)
    pvalues = []
    for i in range(250):
        y = rng.integers(0, 3, 300)
        p = rng.integers(0, 3, 300)  # independent of y
        pvalues.append(permutation_test(sm.MCC().update(y, p), n_resamples=199, seed=i).pvalue)
    pvalues = np.array(pvalues)
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-3
    assert np.mean(pvalues <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 250)


def test_permutation_test_bad_inputs():
    with pytest.raises(ValueError, match="metric"):
        permutation_test(sm.MSE().update([1.0, 2.0], [1.0, 2.5]))
    with pytest.raises(ValueError, match="whole counts"):
        permutation_test(sm.Accuracy().update([0, 1], [0, 1], sample_weight=[0.5, 1.0]))
    with pytest.raises(ValueError, match="at most 2\\^53"):  # whole, but int64 would wrap
        permutation_test(sm.Accuracy().update([0, 1, 1], [0, 1, 0], sample_weight=[1e20, 1e20, 1e20]))
    with pytest.raises(ValueError, match="method"):
        permutation_test(sm.Accuracy().update([0, 1, 2], [0, 1, 2]), method="exact")
    with pytest.raises(ValueError, match="single-valued"):
        permutation_test(sm.Recall(average=None).update([0, 1, 2], [0, 1, 2]), n_resamples=10)
    with pytest.raises(ValueError, match="n_resamples"):
        permutation_test(sm.Accuracy().update([0, 1], [0, 1]), n_resamples=0)
    with pytest.raises(ValueError, match="alternative"):
        permutation_test(sm.Accuracy().update([0, 1], [0, 1]), alternative="two-sided")
    assert permutation_test(sm.Accuracy().update([1, 1], [1, 1])).pvalue == 1.0  # one label only


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 5), (3, 9), (12, 12), (1, 23), (30, 50), (100, 140)])
def test_mcnemar_agrees_with_scipy(b, c):
    r = mcnemar_test(b, c, exact=True)
    assert r.pvalue == pytest.approx(stats.binomtest(min(b, c), b + c).pvalue if b + c else 1.0, rel=1e-10)
    chi = mcnemar_test(b, c, exact=False)
    if b + c:
        stat = (max(abs(b - c) - 1, 0)) ** 2 / (b + c)
        assert (chi.statistic, chi.pvalue) == pytest.approx((stat, stats.chi2.sf(stat, 1)), rel=1e-12)
    auto = mcnemar_test(b, c)
    assert auto.method == ("exact binomial" if b + c < 25 else "chi-square corrected")


def test_mcnemar_accumulator_streams_merges_and_reverts():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 500)
    a = np.where(rng.random(500) < 0.85, y, 1 - y)
    b = np.where(rng.random(500) < 0.78, y, 1 - y)
    whole = sm.McNemar().update(y, a, b).compute()
    n10, n01 = int(np.sum((a == y) & (b != y))), int(np.sum((a != y) & (b == y)))
    assert (whole.b, whole.c) == (n10, n01)
    shards = sm.McNemar().update(y[:100], a[:100], b[:100]) + sm.McNemar().update(y[100:], a[100:], b[100:])
    assert_same(shards.compute(), whole, exact=True)
    m = sm.McNemar().update(y, a, b).update(y[:50], a[:50], b[:50]).revert(y[:50], a[:50], b[:50])
    assert_same(m.compute(), whole)
    before = m.state_dict()
    with pytest.raises(sm.InputError, match="pred_b"):
        m.update(y[:3], a[:3], b[:2])
    with pytest.raises(sm.InputError, match="pred_a"):
        m.update(["x", "y"], [0, 1], ["x", "y"])
    assert_same(m.state_dict()["state"], before["state"], exact=True)
    with pytest.raises(ValueError, match="exact"):
        sm.McNemar(exact="yes")
    strings = sm.McNemar().update(["cat", "dog"], ["cat", "cat"], ["dog", "dog"]).compute()
    assert (strings.b, strings.c) == (1, 1)


def test_mcnemar_pvalues_under_the_null():
    """Equal error rates, correlated classifiers: chi-square p-values close to uniform (conservative)."""
    rng = np.random.default_rng(8)
    pvalues = []
    for _ in range(400):
        y = rng.integers(0, 2, 600)
        shared = rng.random(600)
        a_ok = np.where(rng.random(600) < 0.5, shared, rng.random(600)) < 0.8
        b_ok = np.where(rng.random(600) < 0.5, shared, rng.random(600)) < 0.8
        pvalues.append(
            sm.McNemar().update(y, np.where(a_ok, y, 1 - y), np.where(b_ok, y, 1 - y)).compute().pvalue
        )
    pvalues = np.array(pvalues)
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-4
    assert np.mean(pvalues <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)


@pytest.mark.parametrize("scale", [2.0**20, 1e20, 1e70])
def test_mcnemar_exact_with_huge_whole_weights_stays_in_reach(scale):
    """Whole weights make whole counts: up to 2^32 discordant pairs the exact tail (SciPy's
    binomtest); beyond, the chi-square, as ``method`` says (the exact sum once allocated a list of
    1e21 terms: MemoryError, or the process killed)."""
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
    a = np.array([0, 1, 1, 0, 1, 0, 1, 0, 1, 1])
    b = np.array([1, 0, 1, 1, 1, 1, 0, 0, 0, 1])
    r = sm.McNemar(exact=True).update(y, a, b, sample_weight=np.full(10, scale)).compute()
    n = round(r.b + r.c)
    if n <= 2**32:
        assert r.method == "exact binomial"
        assert r.pvalue == pytest.approx(stats.binomtest(round(min(r.b, r.c)), n).pvalue, rel=1e-9)
    else:
        assert r.method == "chi-square corrected"
        assert r.pvalue == pytest.approx(mcnemar_test(r.b, r.c, exact=False).pvalue, rel=1e-12)
