"""One result type for every approximate metric: ``estimate()`` returns an ``sm.Estimate``.

For every registered metric with ``estimate()``: its value is ``compute()``'s, and its interval
holds the exact value — scikit-learn's on the same data for the ranking sketches (guaranteed
bounds, coarse bins so that they are wide), the exact reference of the law cases (scikit-learn
where it has the index) on data the sample holds whole for the sampled clustering indices.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core.approximate import Estimate, Z
from tests.law_cases import clustering, clustering_centroid, clustering_pairwise

SEEDS = range(3)
APPROXIMATE = sorted(
    (
        cls
        for cls in sm.registered_types().values()
        if callable(getattr(cls, "estimate", None)) and not inspect.isabstract(cls)
    ),
    key=lambda cls: cls.__name__,
)
RANKING = (sm.ROCAUC, sm.AveragePrecision, sm.ROCCurve, sm.PRCurve)
# The law cases with a reference whose metric estimates: the sampled clustering indices (the
# plain configurations, whose sample holds the law batches whole, and the two-pass modes).
CLUSTERING_CASES = [
    case
    for module in (clustering, clustering_centroid, clustering_pairwise)
    for case in module.CASES
    if case.reference is not None and callable(getattr(case.make(), "estimate", None))
]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_every_approximate_metric_is_checked_here():
    # the operating points' bounds are checked by the law suite's bounds law (tests/test_laws.py)
    points = {sm.PrecisionAtRecall, sm.RecallAtPrecision, sm.SensitivityAtSpecificity}
    points |= {sm.SpecificityAtSensitivity, sm.EqualErrorRate, sm.LogAUC, sm.DETCurve}
    covered = set(RANKING) | points | {type(case.make()) for case in CLUSTERING_CASES}
    # windows forward their inner metric's estimate (tests/streaming/test_windows_every_metric.py)
    covered |= {sm.Rolling, sm.Decayed}
    assert set(APPROXIMATE) == covered
    assert len(APPROXIMATE) >= 20  # the ranking sketches, Silhouette, the pairwise and centroid indices


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CLUSTERING_CASES, ids=str)
def test_clustering_estimate_is_the_value_and_holds_the_reference(case, seed):
    rng = np.random.default_rng(seed)
    batch = case.batch(rng, 40)
    w = rng.integers(1, 4, 40).astype(float) if seed == 2 else None
    m = case.make().update(*batch, sample_weight=w)
    e = m.estimate()
    assert isinstance(e, Estimate)
    value = _quiet(m.compute)
    assert e.value == value or (math.isnan(e.value) and math.isnan(value))
    assert e.exact and e.guaranteed and e.low == e.value == e.high
    reference = case.reference(*batch, sample_weight=w)
    tol = case.rtol * abs(reference) + case.atol
    assert e.low - tol <= reference <= e.high + tol
    assert m.bounds() == (e.low, e.high)
    assert m.compute_with_error() == e  # the older name


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("make", [sm.Silhouette, sm.DaviesBouldin, sm.CIndex, sm.HubertGamma])
def test_sampled_estimate_carries_a_standard_error_interval(make, seed):
    X, y = clustering._points(np.random.default_rng(seed), 600)
    m = make(sample_size=150, seed=seed).update(X, y)
    e = m.estimate()
    assert e.value == m.compute() and e.sample_rows == 150 and e.distinct_rows > 150
    assert not e.exact and not e.guaranteed and e.stderr > 0
    assert (e.low, e.high) == (e.value - Z * e.stderr, e.value + Z * e.stderr)
    wide = m.estimate(z=4.0)
    assert wide.bounds() == m.bounds(z=4.0) == e.bounds(z=4.0)
    assert wide.low < e.low < e.value < e.high < wide.high
    assert m.compute_with_error() == e


def _ranking_data(seed: int, kind: str):
    rng = np.random.default_rng(seed)
    n = 400
    if kind == "binary":
        y = rng.integers(0, 2, n)
        return y, np.clip(rng.beta(2, 2, n) * 0.6 + 0.3 * y, 0, 1), rng.integers(1, 4, n).astype(float)
    if kind == "multiclass":
        y = rng.integers(0, 3, n)
        logits = rng.normal(size=(n, 3)) + 1.5 * np.eye(3)[y]
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        return y, p, None
    y = rng.integers(0, 2, (n, 3))
    return y, np.clip(rng.random((n, 3)) * 0.7 + 0.25 * y, 0, 1), None


RANKING_CASES = [
    ("ROCAUC", "binary", lambda: sm.ROCAUC(resolution=2, max_bins=None, max_bytes=None), skm.roc_auc_score),
    (
        "ROCAUC[max_fpr]",
        "binary",
        lambda: sm.ROCAUC(max_fpr=0.3, resolution=2, max_bins=None, max_bytes=None),
        lambda y, p, sample_weight=None: skm.roc_auc_score(y, p, sample_weight=sample_weight, max_fpr=0.3),
    ),
    (
        "ROCAUC[ovo]",
        "multiclass",
        lambda: sm.ROCAUC(multi_class="ovo", resolution=2, max_bins=None, max_bytes=None),
        lambda y, p, sample_weight=None: skm.roc_auc_score(y, p, multi_class="ovo"),
    ),
    (
        "ROCAUC[None]",
        "multilabel",
        lambda: sm.ROCAUC(average=None, resolution=2, max_bins=None, max_bytes=None),
        lambda y, p, sample_weight=None: skm.roc_auc_score(y, p, average=None),
    ),
    (
        "AveragePrecision",
        "binary",
        lambda: sm.AveragePrecision(resolution=2, max_bins=None, max_bytes=None),
        skm.average_precision_score,
    ),
    (
        "AveragePrecision[micro]",
        "multilabel",
        lambda: sm.AveragePrecision(average="micro", resolution=2, max_bins=None, max_bytes=None),
        lambda y, p, sample_weight=None: skm.average_precision_score(y, p, average="micro"),
    ),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,kind,make,reference", RANKING_CASES, ids=[c[0] for c in RANKING_CASES])
def test_ranking_estimate_is_the_value_within_guaranteed_bounds(name, kind, make, reference, seed):
    y, p, w = _ranking_data(seed, kind)
    m = make().update(y, p, sample_weight=w)
    e = m.estimate()
    assert isinstance(e, Estimate) and e.guaranteed and np.isnan(e.stderr)
    np.testing.assert_array_equal(e.value, m.compute())
    assert np.all(np.asarray(e.low) <= reference(y, p, sample_weight=w))
    assert np.all(reference(y, p, sample_weight=w) <= np.asarray(e.high))
    assert not e.exact and np.all(np.subtract(e.high, e.low) > 1e-6)  # coarse bins: a real interval
    np.testing.assert_array_equal(np.stack(m.bounds()), np.stack([e.low, e.high]))


def test_ranking_estimate_is_exact_at_full_resolution():
    y, p, _ = _ranking_data(0, "binary")
    e = sm.ROCAUC(exact=True).update(y, p).estimate()
    # exact: the bounds collapse to the value, scikit-learn's to rounding
    assert e.exact and e.low == e.value == e.high
    assert e.value == pytest.approx(skm.roc_auc_score(y, p), abs=1e-12)


def _tp_fp_corners(curve, positives: float) -> tuple[np.ndarray, np.ndarray]:
    """(tp, fp) counts at the corners of a PR staircase with tp > 0 (precision = tp / (tp + fp))."""
    tp = curve.recall * positives
    keep = tp > 0.5
    return tp[keep], tp[keep] / curve.precision[keep] - tp[keep]


@pytest.mark.parametrize("seed", SEEDS)
def test_curve_estimates_enclose_the_exact_curves(seed):
    y, p, _ = _ranking_data(seed, "binary")
    roc = sm.ROCCurve(resolution=2, max_bins=None, max_bytes=None).update(y, p)
    pr = sm.PRCurve(resolution=2, max_bins=None, max_bytes=None).update(y, p)
    for m in (roc, pr):
        e = m.estimate()
        assert e.guaranteed and not e.exact
        for got, want in zip(e.value, m.compute(), strict=True):
            np.testing.assert_array_equal(got, want)
        for got, want in zip((e.low, e.high), m.bounds(), strict=True):
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)
    # ROC: the exact curve between the staircases at every FPR
    low, high = roc.estimate()[1:3]
    fpr, tpr, _ = skm.roc_curve(y, p, drop_intermediate=False)
    grid = np.linspace(0, 1, 401)
    t_ex = np.interp(grid, fpr, tpr)
    assert np.all(np.interp(grid, low.fpr, low.tpr) <= t_ex + 1e-12)
    assert np.all(t_ex <= np.interp(grid, high.fpr, high.tpr) + 1e-12)
    # PR: every exact (tp, fp) point between the staircases, read back as counts: the
    # negatives-first staircase reaches at most ``tp`` before ``fp``, the positives-first one at least
    positives = float(y.sum())
    low, high = pr.estimate()[1:3]
    lo_tp, lo_fp = _tp_fp_corners(low, positives)
    hi_tp, hi_fp = _tp_fp_corners(high, positives)
    for t in np.unique(p):
        tp, fp = float(np.sum((p >= t) & (y == 1))), float(np.sum((p >= t) & (y == 0)))
        assert lo_tp[lo_fp < fp - 1e-6].max(initial=0.0) <= tp <= hi_tp[hi_fp <= fp + 1e-6].max(initial=0.0)
