"""Counts large enough to wrap int64 in a product: every count-based formula vs scikit-learn.

Large counts are built cheaply: few distinct labels on 2e5 rows (one ``np.bincount``), and
crafted states whose cells exceed 3e9 (so that ``N^2`` itself is beyond int64), checked
against exact rational arithmetic of scikit-learn's definitions.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.metrics import cluster as skc

import streammetrics as sm

N_ROWS = 200_000  # N^4 wraps int64 above 55,000 rows


@pytest.fixture(scope="module")
def labelings():
    rng = np.random.default_rng(7)
    t = rng.integers(0, 3, N_ROWS)
    p = np.where(rng.random(N_ROWS) < 0.7, t, rng.integers(0, 3, N_ROWS))
    return t, p


def test_fowlkes_mallows_identical_labels_beyond_55000_rows():
    t = np.zeros(100_000, dtype=np.int64)
    assert sm.FowlkesMallowsIndex().update(t, t).compute() == skm.fowlkes_mallows_score(t, t) == 1.0


CONTINGENCY = {
    sm.FowlkesMallowsIndex: skm.fowlkes_mallows_score,
    sm.AdjustedRandIndex: skm.adjusted_rand_score,
    sm.RandIndex: skm.rand_score,
    sm.MutualInfo: skm.mutual_info_score,
    sm.NormalizedMutualInfo: skm.normalized_mutual_info_score,
    sm.AdjustedMutualInfo: skm.adjusted_mutual_info_score,
    sm.Homogeneity: skm.homogeneity_score,
    sm.Completeness: skm.completeness_score,
    sm.VMeasure: skm.v_measure_score,
}


@pytest.mark.parametrize("cls", list(CONTINGENCY), ids=lambda c: c.__name__)
def test_contingency_indices_on_many_rows(labelings, cls):
    t, p = labelings
    ours = cls().update(t, p).compute()
    assert ours == pytest.approx(CONTINGENCY[cls](t, p), rel=1e-9, abs=1e-12)


def test_pair_confusion_matrix_on_many_rows(labelings):
    t, p = labelings
    ours = sm.PairConfusionMatrix().update(t, p).compute()
    assert ours.dtype == np.int64
    np.testing.assert_array_equal(ours, skc.pair_confusion_matrix(t, p))


CONFUSION = {
    "MCC": (sm.MCC, skm.matthews_corrcoef),
    "CohenKappa": (sm.CohenKappa, skm.cohen_kappa_score),
    "CohenKappa quadratic": (
        lambda: sm.CohenKappa(weights="quadratic"),
        lambda t, p: skm.cohen_kappa_score(t, p, weights="quadratic"),
    ),
    "Accuracy": (sm.Accuracy, skm.accuracy_score),
    "BalancedAccuracy": (sm.BalancedAccuracy, skm.balanced_accuracy_score),
    "F1 macro": (lambda: sm.F1(average="macro"), lambda t, p: skm.f1_score(t, p, average="macro")),
    "Jaccard weighted": (
        lambda: sm.Jaccard(average="weighted"),
        lambda t, p: skm.jaccard_score(t, p, average="weighted"),
    ),
}


@pytest.mark.parametrize("name", list(CONFUSION))
def test_confusion_formulas_on_many_rows(labelings, name):
    make, reference = CONFUSION[name]
    t, p = labelings
    assert make().update(t, p).compute() == pytest.approx(reference(t, p), rel=1e-12)


def test_binary_confusion_formulas_on_many_rows(labelings):
    t, p = (a > 0 for a in labelings)
    t, p = t.astype(int), p.astype(int)
    lr_pos, lr_neg = skm.class_likelihood_ratios(t, p)
    assert sm.PositiveLikelihoodRatio().update(t, p).compute() == pytest.approx(lr_pos, rel=1e-12)
    assert sm.NegativeLikelihoodRatio().update(t, p).compute() == pytest.approx(lr_neg, rel=1e-12)
    assert sm.MCC().update(t, p).compute() == pytest.approx(skm.matthews_corrcoef(t, p), rel=1e-12)


# ---------------------------------------------------------------- counts beyond 3e9 (N^2 > int64)
CELLS = [[4_000_000_000, 1_000_000_007], [3, 5_000_000_000]]


def _huge_table(cls):
    """A contingency state holding ``CELLS`` (N ~ 1e10, so N^2 ~ 1e20 is beyond int64)."""
    d = cls().update([0, 0, 1, 1], [0, 1, 0, 1]).state_dict()
    values = np.array([c for row in CELLS for c in row], dtype=np.int64)
    d["state"] = {**d["state"], "values": values, "n_samples": int(values.sum())}
    return sm.from_state_dict(d)


def _exact_pairs():
    """scikit-learn's pair confusion matrix of ``CELLS``, in exact integers."""
    cells = [c for row in CELLS for c in row]
    a = [sum(row) for row in CELLS]
    b = [sum(col) for col in zip(*CELLS, strict=True)]
    n = sum(cells)
    s2 = sum(c * c for c in cells)
    c11 = s2 - n
    c01 = sum(x * x for x in b) - s2
    c10 = sum(x * x for x in a) - s2
    return n * n - c01 - c10 - s2, c01, c10, c11


def test_pair_indices_beyond_int64_squares():
    tn, fp, fn, tp = _exact_pairs()
    ari = Fraction(2 * (tp * tn - fn * fp), (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    assert _huge_table(sm.AdjustedRandIndex).compute() == pytest.approx(float(ari), rel=1e-14)
    assert _huge_table(sm.RandIndex).compute() == pytest.approx(float(Fraction(tn + tp, tn + fp + fn + tp)))
    fmi = math.sqrt(Fraction(tp, tp + fp)) * math.sqrt(Fraction(tp, tp + fn))
    assert _huge_table(sm.FowlkesMallowsIndex).compute() == pytest.approx(fmi, rel=1e-14)
    matrix = _huge_table(sm.PairConfusionMatrix).compute()
    np.testing.assert_allclose(matrix, np.array([[tn, fp], [fn, tp]], dtype=float), rtol=1e-15)


def test_weighted_fowlkes_mallows_equals_repeated_rows():
    # integer weights of 2 * 10^4 on 12 rows: the same table as 240,000 rows, via the float path
    t, p = [0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 2], [0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 1, 2]
    k = 20_000
    ours = sm.FowlkesMallowsIndex().update(t, p, sample_weight=[k] * len(t)).compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = skm.fowlkes_mallows_score(np.repeat(t, k), np.repeat(p, k))
    assert ours == pytest.approx(reference, rel=1e-12)


def _narrow_scores(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Many distinct scores in few bins once compressed: every bin gathers much weight."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, 0.5 + rng.uniform(0, 1e-2, n) * (0.5 + 0.5 * y)


def test_score_sketch_within_bin_sums_beyond_int64():
    """The within-bin sums add up to 2**24 per unit of weight: a shard of integer weights
    2**31 - 1 merged with itself 30 times puts about 1e18 weight in a bin, so integer sums would
    pass int64 (they wrapped to negative values and moved the estimate). Past 2**37 weight in a
    group the sketch keeps float64 counts and sums: a constant weight leaves the values as they are."""
    y, p = _narrow_scores(20_000, 5)
    w = np.full(len(y), 2.0**31 - 1)
    for make, like in (
        (sm.ROCAUC, None),
        (sm.AveragePrecision, np.full(len(y), 0.5)),  # float64 counts estimate as fractional weights do
    ):
        heavy = make().update(y, p, sample_weight=w)
        for _ in range(30):
            heavy.merge(heavy.copy())
        light = make().update(y, p, sample_weight=like)
        col = heavy.state.cols[0]
        assert col.res < 52 and col.counts.dtype == np.float64 and col.sums.min() >= 0
        assert col.counts.max() * 2.0 ** (24 - col.res) > 2.0**63  # integer sums would have wrapped
        assert heavy.compute() == pytest.approx(light.compute(), rel=1e-12)
        assert heavy.bounds() == pytest.approx(light.bounds(), rel=1e-12)
        heavy.state.check()
        assert sm.from_bytes(heavy.to_bytes()).compute() == heavy.compute()


def test_score_sketch_check_refuses_sums_its_counts_cannot_make():
    y, p = _narrow_scores(20_000, 6)
    m = sm.ROCAUC(max_bytes=4096).update(y, p)
    col = m.state.cols[0]
    assert col.res < 52 and col.sums.max() > 0
    m.state.check()
    d = m.state_dict()
    for bad in (-1, 2**62):
        crafted = sm.ROCAUC(max_bytes=4096).update(y, p)
        c = crafted.state.cols[0]
        sums = c.sums.copy()
        sums[0, 0] = bad
        crafted.state._cols = (c._replace(sums=sums),)
        with pytest.raises(sm.StateError, match="within-bin sums"):
            crafted.state.check()
    assert sm.from_state_dict(d).compute() == m.compute()
