"""External clustering indices: seed 001's worked examples, scikit-learn agreement, bad input."""

from __future__ import annotations

import functools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.metrics import cluster as skc

import streammetrics as sm
from streammetrics.clustering import external as f
from streammetrics.clustering.external.contingency import contingency
from streammetrics.clustering.external.emi import expected_mutual_information

T, P = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]


def value(cls, t, p, **kw):
    return cls(**kw).update(t, p).compute()


# ---------------------------------------------------------------- seed 001 worked examples
def test_seed_001_adjusted_rand_examples():
    assert value(sm.AdjustedRandIndex, T, P) == pytest.approx(0.24242424242424243, abs=1e-15)
    assert str(value(sm.AdjustedRandIndex, T, P)).startswith("0.24")
    assert value(sm.AdjustedRandIndex, T, [1, 1, 0, 0, 3, 3]) == value(sm.AdjustedRandIndex, T, P)
    assert value(sm.AdjustedRandIndex, P, T) == value(sm.AdjustedRandIndex, T, P)
    assert value(sm.AdjustedRandIndex, T, T) == 1.0
    worst = value(sm.AdjustedRandIndex, [0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2])
    assert str(worst).startswith("-0.12")
    assert worst == pytest.approx(
        skm.adjusted_rand_score([0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2]), abs=1e-15
    )


def test_seed_001_mutual_info_examples():
    # seed 001 prints the values of average_method="max" (scikit-learn's default before 0.22)
    ami = value(sm.AdjustedMutualInfo, T, P, average_method="max")
    assert str(ami).startswith("0.22504")
    assert value(sm.AdjustedMutualInfo, T, [1, 1, 0, 0, 3, 3], average_method="max") == pytest.approx(
        ami, abs=1e-12
    )
    assert value(sm.AdjustedMutualInfo, P, T, average_method="max") == pytest.approx(ami, abs=1e-12)
    assert value(sm.AdjustedMutualInfo, T, T) == 1.0
    assert value(sm.NormalizedMutualInfo, T, T) == 1.0
    worst = value(
        sm.AdjustedMutualInfo, [0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2], average_method="max"
    )
    assert str(worst).startswith("-0.10526")
    assert value(sm.AdjustedMutualInfo, T, P) == pytest.approx(
        skm.adjusted_mutual_info_score(T, P), abs=1e-12
    )


def test_seed_001_homogeneity_completeness_v_measure_and_fmi():
    assert str(value(sm.Homogeneity, T, P)).startswith("0.66")
    assert str(value(sm.Completeness, T, P)).startswith("0.42")
    assert str(value(sm.VMeasure, T, P)).startswith("0.51")
    p2 = [0, 0, 0, 1, 2, 2]
    assert value(sm.Homogeneity, T, p2) == 1.0
    assert str(value(sm.Completeness, T, p2)).startswith("0.68")
    assert str(value(sm.VMeasure, T, p2)).startswith("0.81")
    assert str(value(sm.FowlkesMallowsIndex, T, P)).startswith("0.47140")


# ---------------------------------------------------------------- scikit-learn agreement
SK = [
    (sm.RandIndex, {}, skm.rand_score),
    (sm.AdjustedRandIndex, {}, skm.adjusted_rand_score),
    (sm.MutualInfo, {}, skm.mutual_info_score),
    (sm.Homogeneity, {}, skm.homogeneity_score),
    (sm.Completeness, {}, skm.completeness_score),
    (sm.VMeasure, {}, skm.v_measure_score),
    (sm.VMeasure, {"beta": 0.3}, lambda t, p: skm.v_measure_score(t, p, beta=0.3)),
    (sm.FowlkesMallowsIndex, {}, skm.fowlkes_mallows_score),
    (sm.PairConfusionMatrix, {}, skc.pair_confusion_matrix),
    (sm.ContingencyTable, {}, skc.contingency_matrix),
] + [
    (cls, {"average_method": m}, functools.partial(fn, average_method=m))
    for cls, fn in (
        (sm.NormalizedMutualInfo, skm.normalized_mutual_info_score),
        (sm.AdjustedMutualInfo, skm.adjusted_mutual_info_score),
    )
    for m in ("arithmetic", "geometric", "min", "max")
]


@pytest.mark.parametrize(
    "n,k1,k2", [(1, 1, 1), (2, 2, 1), (7, 3, 2), (200, 5, 8), (3000, 40, 25), (500, 400, 300)]
)
@pytest.mark.parametrize(
    "cls,kw,ref", SK, ids=lambda x: getattr(x, "__name__", None) or str(getattr(x, "keywords", x))
)
def test_agrees_with_sklearn_in_batches(cls, kw, ref, n, k1, k2):
    rng = np.random.default_rng(n * 7 + k1)
    t = rng.integers(0, k1, n)
    p = np.where(rng.random(n) < 0.5, t % k2, rng.integers(0, k2, n))
    m = cls(**kw)
    for chunk in np.array_split(np.arange(n), 3):
        m.update(t[chunk], p[chunk])
    np.testing.assert_allclose(m.compute(), ref(t, p), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "cls,kw,ref", SK, ids=lambda x: getattr(x, "__name__", None) or str(getattr(x, "keywords", x))
)
def test_integer_weights_equal_repeated_rows(cls, kw, ref):
    rng = np.random.default_rng(1)
    t, p = rng.integers(0, 6, 300), rng.integers(0, 4, 300)
    w = rng.integers(0, 4, 300)
    got = cls(**kw).update(t, p, sample_weight=w).compute()
    np.testing.assert_allclose(got, ref(np.repeat(t, w), np.repeat(p, w)), rtol=1e-10, atol=1e-12)


def test_string_and_mixed_label_kinds():
    t = np.array(["a", "b", "b", "c", "a", "c"])
    p = np.array([3, 3, 1, 1, 2, 2])
    assert value(sm.AdjustedRandIndex, t, p) == pytest.approx(skm.adjusted_rand_score(t, p), abs=1e-15)
    m = sm.ContingencyTable().update(t[:3], p[:3]) + sm.ContingencyTable().update(t[3:], p[3:])
    np.testing.assert_array_equal(m.compute(), skc.contingency_matrix(t, p))
    assert m.labels_true == ["a", "b", "c"] and m.labels_pred == [1, 2, 3]


def test_seed_004_formulas_on_a_hand_table():
    # classes x clusters [[5, 1, 0], [1, 4, 0], [0, 1, 3]] written out as labelings
    t = [0] * 6 + [1] * 5 + [2] * 4
    p = [0] * 5 + [1] + [0] + [1] * 4 + [1] + [2] * 3
    c = np.array([[5, 1, 0], [1, 4, 0], [0, 1, 3]], dtype=float)
    n, a, b = c.sum(), c.sum(1), c.sum(0)
    comb = lambda x: x * (x - 1) / 2  # noqa: E731
    tp = comb(c).sum()
    fn = comb(a).sum() - tp  # together in the classes only
    fp = comb(b).sum() - tp  # together in the clusters only
    tn = comb(n) - tp - fn - fp
    assert value(sm.PairJaccard, t, p) == pytest.approx(tp / (tp + fp + fn), rel=1e-14)
    assert value(sm.PhiIndex, t, p) == pytest.approx(
        (tp * tn - fp * fn) / math.sqrt((tp + fn) * (tp + fp) * (tn + fn) * (tn + fp)), rel=1e-14
    )
    assert value(sm.MinkowskiScore, t, p) == pytest.approx(
        math.sqrt((comb(a).sum() + comb(b).sum() - 2 * tp) / comb(a).sum()), rel=1e-14
    )
    assert value(sm.Purity, t, p) == pytest.approx((5 + 4 + 3) / 15, rel=1e-14)
    assert value(sm.GoodmanKruskal, t, p) == pytest.approx(3 / 15, rel=1e-14)
    h_c_given_k = -sum(c[i, j] / n * math.log(c[i, j] / b[j]) for i in range(3) for j in range(3) if c[i, j])
    assert value(sm.ClusteringEntropy, t, p) == pytest.approx(h_c_given_k, rel=1e-14)
    fm = sum(a[i] / n * max(2 * c[i, j] / (a[i] + b[j]) for j in range(3)) for i in range(3))
    assert value(sm.ClusteringFMeasure, t, p) == pytest.approx(fm, rel=1e-14)
    mi = skm.mutual_info_score(t, p)
    h = lambda x: -sum(v / n * math.log(v / n) for v in x)  # noqa: E731
    assert value(sm.VariationOfInformation, t, p) == pytest.approx(h(a) + h(b) - 2 * mi, rel=1e-13)


# ---------------------------------------------------------------- expected mutual information
def _emi_exact(a, b):
    """E[I] with exact hypergeometric probabilities (fractions); logs in floats."""
    n = sum(a)
    total = 0.0
    for ai in a:
        for bj in b:
            for nij in range(max(1, ai + bj - n), min(ai, bj) + 1):
                prob = Fraction(math.comb(bj, nij) * math.comb(n - bj, ai - nij), math.comb(n, ai))
                total += float(prob) * nij / n * math.log(n * nij / (ai * bj))
    return total


@pytest.mark.parametrize(
    "a,b", [([3, 3], [2, 2, 2]), ([10, 7, 1], [5, 5, 8]), ([40, 25, 30, 5], [50, 49, 1])]
)
def test_expected_mutual_information_is_exact(a, b):
    assert expected_mutual_information(np.array(a), np.array(b)) == pytest.approx(_emi_exact(a, b), rel=1e-12)


def test_ami_large_table_fast_and_close_to_sklearn():
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 400, 40_000), rng.integers(0, 400, 40_000)  # a 400 x 400 table
    m = sm.AdjustedMutualInfo().update(t, p)
    assert m.compute() == pytest.approx(skm.adjusted_mutual_info_score(t, p), rel=1e-7, abs=1e-9)


# ---------------------------------------------------------------- state behaviour
def test_revert_prunes_labels_and_undoes_update():
    m = sm.ContingencyTable().update(["a", "b"], [1, 2])
    before = m.state_dict()
    m.update(["c", "a"], [3, 1]).revert(["c", "a"], [3, 1])
    assert m.state_dict()["state"]["row_labels"] == before["state"]["row_labels"]
    np.testing.assert_array_equal(m.compute(), [[1, 0], [0, 1]])
    with pytest.raises(sm.InputError, match="labels_true"):
        m.revert(["zzz"], [1])


def test_zero_weight_rows_do_not_discover_labels():
    m = sm.ContingencyTable().update([0, 1, 2], [0, 1, 9], sample_weight=[1.0, 1.0, 0.0])
    assert m.labels_true == [0, 1] and m.labels_pred == [0, 1]


def test_many_labels_stay_sparse():
    n = 200_000
    t = np.arange(n)
    p = t // 2
    m = sm.ContingencyTable().update(t, p)
    assert m.state.keys.size == n
    assert sm.AdjustedRandIndex().update(t, p).compute() == pytest.approx(
        skm.adjusted_rand_score(t, p), rel=1e-12
    )


def test_fractional_weights_rejected_by_ami_only():
    with pytest.raises(sm.InputError, match="sample_weight"):
        sm.AdjustedMutualInfo().update([0, 1], [0, 1], sample_weight=[0.5, 1.0])
    # in a collection too (members parse the collection's shared inputs), leaving it unchanged
    c = sm.MetricCollection({"ami": sm.AdjustedMutualInfo(), "ari": sm.AdjustedRandIndex()})
    c.update([0, 1, 1], [0, 1, 0])
    before = c.state_dict()
    with pytest.raises(sm.InputError, match="whole-number"):
        c.update([0, 1], [0, 1], sample_weight=[0.5, 1.0])
    assert repr(c.state_dict()) == repr(before)
    assert np.isfinite(
        sm.NormalizedMutualInfo().update([0, 1, 1], [0, 1, 0], sample_weight=[0.5, 1.0, 2.0]).compute()
    )


@pytest.mark.parametrize(
    "args,kw,match",
    [
        (([0, 1, 2], [0, 1]), {}, "labels_pred"),
        (([0, 1], [0, 1]), {"sample_weight": [1.0]}, "sample_weight"),
        (([0, 1], [0, 1]), {"sample_weight": [1.0, -1.0]}, "sample_weight"),
        (([0.5, 1], [0, 1]), {}, "labels_true"),
        (([[0, 1]], [0]), {}, "labels_true"),
        ((["a", "b"], [0, 1]), {}, "labels_true"),  # strings after ints
    ],
)
def test_bad_input_raises_and_leaves_state_unchanged(args, kw, match):
    m = sm.AdjustedRandIndex().update([0, 1, 1], [0, 0, 1])
    before = m.state_dict()
    with pytest.raises(sm.InputError, match=match):
        m.update(*args, **kw)
    after = m.state_dict()
    assert after["state"]["row_labels"] == before["state"]["row_labels"]
    np.testing.assert_array_equal(after["state"]["values"], before["state"]["values"])


def test_empty_warns_nan_and_all_zero_weights_is_empty():
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(sm.AdjustedRandIndex().update([0], [0], sample_weight=[0.0]).compute())


def test_minkowski_undefined_for_singleton_classes_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert np.isnan(value(sm.MinkowskiScore, [0, 1, 2], [0, 0, 1]))
    assert any(issubclass(w.category, sm.UndefinedMetricWarning) for w in caught)


def test_formula_functions_share_the_table():
    table = contingency(T, P)
    assert f.adjusted_rand_index(table) == value(sm.AdjustedRandIndex, T, P)
    assert f.homogeneity_completeness_v_measure(table) == skm.homogeneity_completeness_v_measure(T, P)
