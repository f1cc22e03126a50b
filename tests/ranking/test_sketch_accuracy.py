"""Accuracy targets of the score sketch against exact scikit-learn values, and merge determinism."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_ranking import distributions

N = 200_000
DATA = distributions(N, seed=7)
AP_SEEDS = range(10)


def fed(metric, y, p, batch=50_000):
    for i in range(0, len(y), batch):
        metric.update(y[i : i + batch], p[i : i + batch])
    return metric


@pytest.mark.parametrize("name", list(DATA))
def test_default_sketch_meets_accuracy_targets_within_64_kib(name):
    y, p = DATA[name]
    auc, ap = fed(sm.ROCAUC(), y, p), fed(sm.AveragePrecision(), y, p)
    exact_auc, exact_ap = skm.roc_auc_score(y, p), skm.average_precision_score(y, p)
    assert len(auc.to_bytes()) <= 64 * 1024
    assert abs(auc.compute() - exact_auc) <= 1e-6
    assert abs(ap.compute() - exact_ap) <= 5e-5
    lo, hi = auc.bounds()  # (value, value) in the exact phase: equal to scikit-learn's to rounding
    assert lo - 1e-12 <= exact_auc <= hi + 1e-12
    lo_ap, hi_ap = ap.bounds()
    assert lo_ap - 1e-12 <= exact_ap <= hi_ap + 1e-12
    assert (hi - lo) / 2 <= 1e-3


@pytest.mark.parametrize("seed", AP_SEEDS)
@pytest.mark.parametrize("name", ["1% positives", "0.1% positives"])
def test_average_precision_within_5e5_across_seeds(name, seed):
    """Rare positives (200 at 0.1%): the top of the ranking sits in sparse bins, kept exactly."""
    y, p = distributions(N, seed=seed)[name]
    ap = fed(sm.AveragePrecision(), y, p)
    exact_ap = skm.average_precision_score(y, p)
    assert len(ap.to_bytes()) <= 64 * 1024
    assert abs(ap.compute() - exact_ap) <= 5e-5
    lo, hi = ap.bounds()
    assert lo <= exact_ap <= hi


@pytest.mark.parametrize("resolution", [2, 4, 6, 9])
@pytest.mark.parametrize("seed", range(4))
def test_bounds_always_contain_exact_values(resolution, seed):
    """Small, adversarial data: coarse bins, ties, weights; bounds must still contain the truth."""
    rng = np.random.default_rng(seed)
    n = 500
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.5, np.round(rng.random(n), 1), rng.beta(0.3, 0.3, n))
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else rng.uniform(0.1, 3, n)
    for weights in (None, w):
        kw = {"resolution": resolution, "max_bins": None, "max_bytes": None}
        a = sm.ROCAUC(**kw).update(y, p, sample_weight=weights)
        lo, hi = a.bounds()
        assert lo <= skm.roc_auc_score(y, p, sample_weight=weights) <= hi
        pa = sm.ROCAUC(max_fpr=0.3, **kw).update(y, p, sample_weight=weights)
        lo, hi = pa.bounds()
        assert lo <= skm.roc_auc_score(y, p, sample_weight=weights, max_fpr=0.3) <= hi
        ap = sm.AveragePrecision(**kw).update(y, p, sample_weight=weights)
        lo, hi = ap.bounds()
        assert lo <= skm.average_precision_score(y, p, sample_weight=weights) <= hi


def test_roc_curve_bounds_enclose_the_exact_curve():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 2000)
    p = rng.beta(2, 2, 2000) * 0.5 + 0.25 * y
    low, high = sm.ROCCurve(resolution=3, max_bins=None, max_bytes=None).update(y, p).bounds()
    fpr, tpr, _ = skm.roc_curve(y, p, drop_intermediate=False)
    grid = np.linspace(0, 1, 501)
    # the lowest TPR reachable at each FPR on the low staircase, the highest on the high one
    t_lo = np.interp(grid, low.fpr, low.tpr, left=0, right=1)
    t_hi = np.interp(grid, high.fpr, high.tpr, left=0, right=1)
    t_ex = np.interp(grid, fpr, tpr)
    assert np.all(t_lo <= t_ex + 1e-12) and np.all(t_ex <= t_hi + 1e-12)


def test_sketch_curve_points_are_exact_points_of_the_exact_curve():
    y, p = DATA["overlapping"]
    r = sm.ROCCurve(drop_intermediate=False).update(y, p).compute()
    for fpr, tpr, th in zip(r.fpr[1:], r.tpr[1:], r.thresholds[1:], strict=True):
        pred = p >= th
        assert fpr == np.sum(pred & (y == 0)) / np.sum(y == 0)
        assert tpr == np.sum(pred & (y == 1)) / np.sum(y == 1)


def test_merging_1000_shards_is_bit_identical_in_any_order():
    rng = np.random.default_rng(11)
    shards = []
    for i in range(1000):
        n = int(rng.integers(0, 60))
        y = rng.integers(0, 2, n)
        p = 1 / (1 + np.exp(-(rng.normal(size=n) * (1 + i % 7) + y)))
        shards.append(sm.ROCAUC(max_bins=300).update(y, p))
    total = sum(shards)
    ref = {key: getattr(total.state, key) for key in ("ids", "counts", "sums", "kmin", "kmax")}
    ref_bytes = total.to_bytes()
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(len(shards))
        tree = [shards[i] for i in order]
        while len(tree) > 1:  # pairwise tree merge in a shuffled order
            tree = [tree[i] + tree[i + 1] if i + 1 < len(tree) else tree[i] for i in range(0, len(tree), 2)]
        state = tree[0].state
        for key in ("ids", "counts", "sums", "kmin", "kmax"):
            assert getattr(state, key).dtype == ref[key].dtype and np.array_equal(
                getattr(state, key), ref[key]
            ), key
        assert state.resolution == total.state.resolution
        assert tree[0].to_bytes() == ref_bytes


def test_sketches_of_different_resolution_merge_at_the_coarser_one():
    y, p = DATA["overlapping"]
    fine = sm.ROCAUC(resolution=9, max_bins=None, max_bytes=None).update(y[:1000], p[:1000])
    coarse = sm.ROCAUC(resolution=5, max_bins=None, max_bytes=None).update(y[1000:3000], p[1000:3000])
    direct = sm.ROCAUC(resolution=5, max_bins=None, max_bytes=None).update(y[:3000], p[:3000])
    for merged in (fine + coarse, coarse + fine):
        assert merged.state.resolution == 5
        for key in ("ids", "counts", "sums", "kmin", "kmax"):
            assert np.array_equal(getattr(merged.state, key), getattr(direct.state, key))
        assert merged.to_bytes() == direct.to_bytes()


@pytest.mark.parametrize("input_kind", ["probability", "score"])
def test_exact_mode_agrees_with_sklearn_to_1e12(input_kind):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 20_000)
    s = np.round(rng.normal(size=20_000) + y, 3)
    if input_kind == "probability":
        s = 1 / (1 + np.exp(-s))
    w = rng.uniform(0.2, 2.0, len(y))
    for weights in (None, w):
        kw = {"exact": True, "input": input_kind}
        assert (
            abs(
                sm.ROCAUC(**kw).update(y, s, sample_weight=weights).compute()
                - skm.roc_auc_score(y, s, sample_weight=weights)
            )
            <= 1e-12
        )
        assert (
            abs(
                sm.AveragePrecision(**kw).update(y, s, sample_weight=weights).compute()
                - skm.average_precision_score(y, s, sample_weight=weights)
            )
            <= 1e-12
        )
        r = sm.ROCCurve(**kw).update(y, s, sample_weight=weights).compute()
        for a, b in zip(r, skm.roc_curve(y, s, sample_weight=weights), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        r = sm.PRCurve(**kw).update(y, s, sample_weight=weights).compute()
        for a, b in zip(r, skm.precision_recall_curve(y, s, sample_weight=weights), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_confusion_counts_and_best_thresholds_match_brute_force():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 3000)
    p = np.round(rng.random(3000) * 0.6 + 0.4 * y, 2)
    m = sm.ROCAUC(exact=True).update(y, p)
    for t in (0.1, 0.37, 0.5, 0.99, 1.0):
        c = m.confusion_at(t)
        pred = p >= t
        assert (c.tp, c.fp, c.fn, c.tn) == (
            np.sum(pred & (y == 1)),
            np.sum(pred & (y == 0)),
            np.sum(~pred & (y == 1)),
            np.sum(~pred & (y == 0)),
        )
        assert c.exact
    ths = np.r_[np.inf, np.unique(p)]
    tpr = np.array([np.mean(p[y == 1] >= t) for t in ths])
    fpr = np.array([np.mean(p[y == 0] >= t) for t in ths])
    assert m.best_threshold("youden").value == pytest.approx(np.max(tpr - fpr), abs=1e-12)
    f1 = np.array([skm.f1_score(y, (p >= t).astype(int), zero_division=0.0) for t in ths])
    assert m.best_threshold("fbeta").value == pytest.approx(f1.max(), abs=1e-12)
    costs = [[0, 1], [10, 0]]
    ec = np.array([(np.sum((p >= t) & (y == 0)) + 10 * np.sum((p < t) & (y == 1))) / len(y) for t in ths])
    best = m.best_threshold("cost", costs=costs)
    assert best.value == pytest.approx(ec.min(), abs=1e-12)


def test_confusion_bounds_inside_a_bin_contain_the_truth():
    y, p = DATA["overlapping"]
    m = sm.ROCAUC(resolution=4, max_bins=None, max_bytes=None).update(y, p)
    for t in (0.2, 0.43, 0.61, 0.77):
        low, high = m.confusion_bounds_at(t)
        tp, fp = np.sum((p >= t) & (y == 1)), np.sum((p >= t) & (y == 0))
        assert low.tp <= tp <= high.tp and low.fp <= fp <= high.fp


def test_one_class_warns_and_returns_nan():
    for metric in (sm.ROCAUC(), sm.AveragePrecision()):
        metric.update([0, 0, 0], [0.1, 0.2, 0.3])
        with pytest.warns(sm.UndefinedMetricWarning):
            assert np.isnan(metric.compute())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sm.AveragePrecision().update([1, 1], [0.1, 0.2]).compute() == 1.0
