"""Pairwise-distance internal indices: independent references, sampled estimates, bad input.

References (``tests/law_cases/clustering_pairwise.py``) are plain loops over clusters and pairs
on ``scipy.spatial.distance.cdist`` distances, written without streammetrics; the integer-weight
checks compare with the same functions on repeated rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist
from sklearn.datasets import load_iris, make_blobs

import streammetrics as sm
from streammetrics.clustering import pairwise as pw
from tests.law_cases import clustering_pairwise as ref


def _gd(s, c):
    return lambda X, y, w=None: pw.generalized_dunn_index(X, y, w, separation=s, compactness=c)


FUNCTIONS = [
    ("dunn", pw.dunn_index, ref._gdunn(1, 1)),
    *[(f"gD{s}{c}", _gd(s, c), ref._gdunn(s, c)) for s in (1, 3, 4, 5) for c in (1, 3, "radius")],
    ("c", pw.c_index, ref._c_index),
    ("gamma", pw.gamma_index, ref._gamma),
    ("hubert", pw.hubert_gamma, ref._hubert),
    ("cop", pw.cop_index, ref._cop),
    ("cs", pw.cs_index, ref._cs),
]
METRICS = [
    (sm.DunnIndex, pw.dunn_index),
    (lambda **kw: sm.GeneralizedDunn(3, 1, **kw), _gd(3, 1)),
    (lambda **kw: sm.GeneralizedDunn(4, 1, **kw), _gd(4, 1)),
    (lambda **kw: sm.GeneralizedDunn(5, 1, **kw), _gd(5, 1)),
    (lambda **kw: sm.GeneralizedDunn(3, 3, **kw), _gd(3, 3)),
    (lambda **kw: sm.GeneralizedDunn(4, 3, **kw), _gd(4, 3)),
    (lambda **kw: sm.GeneralizedDunn(5, 3, **kw), _gd(5, 3)),
    (lambda **kw: sm.GeneralizedDunn(4, "radius", **kw), _gd(4, "radius")),
    (sm.CIndex, pw.c_index),
    (sm.GammaIndex, pw.gamma_index),
    (sm.HubertGamma, pw.hubert_gamma),
    (sm.COPIndex, pw.cop_index),
    (sm.CSIndex, pw.cs_index),
]


def _data_sets():
    rng = np.random.default_rng(11)
    X1, y1 = make_blobs(120, n_features=3, centers=4, cluster_std=1.5, random_state=0)
    X2, y2 = make_blobs(90, n_features=2, centers=3, cluster_std=3.0, random_state=1)
    # ties: points on an integer grid, many equal distances
    X3 = rng.integers(0, 4, (70, 2)).astype(float)
    y3 = rng.integers(0, 3, 70)
    # a singleton cluster, string labels
    X4 = np.concatenate([rng.normal(0, 1, (40, 2)), rng.normal(6, 1, (30, 2)), [[3.0, -4.0]]])
    y4 = np.array(["a"] * 40 + ["b"] * 30 + ["solo"])
    iris = load_iris()
    return [(X1, y1), (X2, y2), (X3, y3), (X4, y4), (iris.data, iris.target)]


DATA = _data_sets()


def _close(a, b, rtol=1e-9):
    if np.isnan(b):
        return np.isnan(a)
    return a == pytest.approx(b, rel=rtol, abs=1e-12)


@pytest.mark.parametrize("data", range(len(DATA)))
@pytest.mark.parametrize("name,fn,reference", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_functions_agree_with_loop_references(name, fn, reference, data):
    X, y = DATA[data]
    w = np.random.default_rng(data).uniform(0.2, 3.0, len(X))
    assert _close(fn(X, y), reference(X, y))
    assert _close(fn(X, y, w), reference(X, y, sample_weight=w))


def test_textbook_values_from_distance_matrices():
    """Direct transcriptions of the seed formulas on a small unweighted data set."""
    X, y = DATA[1]
    D = cdist(X, X)
    same = y[:, None] == y[None, :]
    iu = np.triu_indices(len(X), 1)
    d, s = D[iu], same[iu]
    # C-index: within-pair sum against the n_w smallest / largest of all pair distances
    n_w = int(s.sum())
    srt = np.sort(pdist(X))
    expected_c = (d[s].sum() - srt[:n_w].sum()) / (srt[-n_w:].sum() - srt[:n_w].sum())
    assert pw.c_index(X, y) == pytest.approx(expected_c, rel=1e-12)
    # Gamma: discordant (within, between) comparisons over n_w * n_b
    disc = (d[~s][None, :] < d[s][:, None]).sum()
    assert pw.gamma_index(X, y) == pytest.approx(disc / (n_w * (~s).sum()), rel=1e-12)
    # normalized Hubert Γ: Pearson correlation of distance and "different clusters"
    assert pw.hubert_gamma(X, y) == pytest.approx(np.corrcoef(d, ~s)[0, 1], rel=1e-10)
    # Dunn: closest pair across clusters over the largest diameter
    assert pw.dunn_index(X, y) == pytest.approx(D[~same].min() / D[same].max(), rel=1e-12)


def test_gamma_relates_to_baker_hubert_without_ties():
    X, y = DATA[0]
    iu = np.triu_indices(len(X), 1)
    d, s = cdist(X, X)[iu], (y[:, None] == y[None, :])[iu]
    plus = (d[~s][None, :] > d[s][:, None]).sum()
    minus = (d[~s][None, :] < d[s][:, None]).sum()
    assert 1 - 2 * pw.gamma_index(X, y) == pytest.approx((plus - minus) / (plus + minus), rel=1e-12)


@pytest.mark.parametrize("name,fn,reference", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_integer_weights_equal_repeated_rows(name, fn, reference):
    X, y = DATA[0]
    w = np.random.default_rng(4).integers(0, 4, len(X))
    assert _close(fn(X, y, w), fn(np.repeat(X, w, axis=0), np.repeat(y, w)), rtol=1e-10)


@pytest.mark.parametrize("make,fn", METRICS)
def test_streaming_and_merged_are_exact_while_the_sample_holds_everything(make, fn):
    X, y = make_blobs(600, n_features=3, centers=4, cluster_std=2.0, random_state=3)
    w = np.random.default_rng(0).integers(1, 4, 600)
    streamed = make()
    for i in range(0, 600, 70):
        streamed.update(X[i : i + 70], y[i : i + 70], sample_weight=w[i : i + 70])
    merged = sum(
        make().update(X[i : i + 200], y[i : i + 200], sample_weight=w[i : i + 200]) for i in (0, 200, 400)
    )
    expected = fn(X, y, w)
    est = streamed.compute_with_error()
    assert est.exact and est.stderr == 0.0
    assert streamed.compute() == pytest.approx(expected, rel=1e-10)
    assert merged.compute() == pytest.approx(expected, rel=1e-10)


# Averaging indices: ratio estimators whose jackknife error is meaningful.
AVERAGING = [
    (lambda **kw: sm.GeneralizedDunn(3, 3, **kw), _gd(3, 3)),
    (lambda **kw: sm.GeneralizedDunn(4, 3, **kw), _gd(4, 3)),
    (lambda **kw: sm.GeneralizedDunn(5, 3, **kw), _gd(5, 3)),
    (sm.CIndex, pw.c_index),
    (sm.GammaIndex, pw.gamma_index),
    (sm.HubertGamma, pw.hubert_gamma),
]


@pytest.mark.parametrize("seed,std", [(0, 1.0), (1, 2.5), (2, 4.0), (3, 1.5)])
@pytest.mark.parametrize("make,fn", AVERAGING)
def test_sampled_estimate_within_its_standard_error(make, fn, seed, std):
    X, y = make_blobs(2000, n_features=4, centers=5, cluster_std=std, random_state=seed)
    shards = [
        make(sample_size=400, seed=seed).update(X[i : i + 500], y[i : i + 500]) for i in range(0, 2000, 500)
    ]
    est = sum(shards).compute_with_error()
    exact = fn(X, y)
    assert not est.exact and est.sample_rows == 400
    assert 0 < est.stderr < 0.1 * max(1.0, abs(exact))
    assert abs(est.value - exact) <= 4 * est.stderr
    low, high = make(sample_size=400, seed=seed).update(X, y).bounds(z=4)
    assert low <= exact <= high


@pytest.mark.parametrize("seed,std", [(0, 1.0), (1, 2.5), (2, 4.0), (3, 1.5)])
def test_sampled_cop_is_close(seed, std):
    """COP mixes a sampled farthest neighbour into a minimum: biased, but close on blobs."""
    X, y = make_blobs(4000, n_features=4, centers=5, cluster_std=std, random_state=seed)
    est = sm.COPIndex(sample_size=400, seed=seed).update(X, y).compute_with_error()
    assert abs(est.value - pw.cop_index(X, y)) <= 0.15 * pw.cop_index(X, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "make,fn,direction",
    [
        (sm.DunnIndex, pw.dunn_index, 1),  # a sample's closest pair is farther, its diameter smaller
        (lambda **kw: sm.GeneralizedDunn(4, 1, **kw), _gd(4, 1), 1),  # exact centroids, smaller diameter
        (lambda **kw: sm.GeneralizedDunn(4, "radius", **kw), _gd(4, "radius"), 1),  # smaller radius
    ],
)
def test_sampled_extreme_indices_are_one_sided(make, fn, direction, seed):
    X, y = make_blobs(2000, n_features=3, centers=4, cluster_std=2.0, random_state=seed)
    est = make(sample_size=250, seed=seed).update(X, y).compute_with_error()
    assert not est.exact
    assert direction * (est.value - fn(X, y)) >= 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_cs_is_biased_low_but_close(seed):
    """A sampled row's farthest in-sample neighbour is at most its true farthest neighbour."""
    X, y = make_blobs(2000, n_features=3, centers=4, cluster_std=2.0, random_state=seed)
    est = sm.CSIndex(sample_size=250, seed=seed).update(X, y).compute()
    assert 0.8 * pw.cs_index(X, y) <= est <= pw.cs_index(X, y)


def test_self_pairs_are_scaled_by_the_sampling_fraction():
    """Heavy integer weights on a saturated sample: the C-index and Gamma stay unbiased."""
    X, y = make_blobs(3000, n_features=2, centers=4, cluster_std=2.0, random_state=5)
    w = np.random.default_rng(1).integers(1, 30, 3000)
    for make, fn in [(sm.CIndex, pw.c_index), (sm.GammaIndex, pw.gamma_index)]:
        est = make(sample_size=400, seed=2).update(X, y, sample_weight=w).compute_with_error()
        assert abs(est.value - fn(X, y, w)) <= 4 * est.stderr


@pytest.mark.parametrize("make,_fn", METRICS)
def test_fewer_than_two_clusters_warns_and_returns_nan(make, _fn):
    m = make().update([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]], [4, 4, 4])
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(make().update([[0.0], [1.0]], [0, 1]).compute())  # as many clusters as rows


@pytest.mark.parametrize("name,fn,_ref", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_functions_undefined_cases_return_nan(name, fn, _ref):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(fn([[0.0], [1.0], [2.0]], [0, 0, 0]))
        assert np.isnan(fn([[0.0], [1.0], [2.0]], [0, 1, 2]))
        assert np.isnan(fn(np.empty((0, 2)), []))


def test_zero_diameter_and_coincident_centroids_are_undefined():
    # every cluster a single repeated point: diameters 0
    assert np.isnan(pw.dunn_index([[0.0], [0.0], [3.0], [3.0]], [0, 0, 1, 1]))
    # all distances equal: S_max = S_min
    assert np.isnan(pw.c_index([[0.0], [0.0], [0.0], [0.0]], [0, 0, 1, 1]))
    # coincident centroids: CS denominator 0
    assert np.isnan(pw.cs_index([[-1.0], [1.0], [-2.0], [2.0]], [0, 0, 1, 1]))


@pytest.mark.parametrize("make,_fn", METRICS)
@pytest.mark.parametrize(
    "X,labels,kw,match",
    [
        ([[0.0, 1.0], [1.0, 1.0]], [0], {}, "labels"),  # length mismatch
        ([[0.0, np.nan], [1.0, 1.0]], [0, 1], {}, "X"),  # NaN feature
        ([0.0, 1.0], [0, 1], {}, "X"),  # 1-D X
        ([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]], [0, 1], {}, "X"),  # feature count changes
        ([[0.0, 1.0], [1.0, 1.0]], [0, 1], {"sample_weight": [1, -1]}, "sample_weight"),
        ([[0.0, 1.0], [1.0, 1.0]], ["a", "b"], {}, "labels"),  # string labels after ints
    ],
)
def test_bad_input_raises_and_leaves_state_unchanged(make, _fn, X, labels, kw, match):
    m = make().update([[0.0, 0.0], [1.0, 0.5], [5.0, 5.0]], [0, 0, 1])
    before = m.state_dict()
    blob = m.to_bytes()
    with pytest.raises(sm.InputError, match=match):
        m.update(X, labels, **kw)
    assert m.to_bytes() == blob
    assert m.state_dict()["config"] == before["config"]


def test_parameters_are_validated_and_configurations_do_not_merge():
    with pytest.raises(ValueError, match="separation"):
        sm.GeneralizedDunn(separation=2)
    with pytest.raises(ValueError, match="compactness"):
        sm.GeneralizedDunn(compactness=2)
    with pytest.raises(ValueError, match="separation"):
        pw.generalized_dunn_index([[0.0], [1.0]], [0, 1], separation=6)
    with pytest.raises(sm.MergeError):
        sm.GeneralizedDunn(3, 3).merge(sm.GeneralizedDunn(4, 3))
    m = sm.GeneralizedDunn(5, 1, sample_size=50, seed=2)
    assert type(m)(**m.get_config()).get_config() == m.get_config()
    assert sm.from_bytes(m.update([[0.0], [1.0], [4.0]], [0, 0, 1]).to_bytes()).compute() == m.compute()


def test_direction_flags():
    assert (
        sm.DunnIndex.higher_is_better
        and sm.GeneralizedDunn.higher_is_better
        and sm.HubertGamma.higher_is_better
    )
    for cls in (sm.CIndex, sm.GammaIndex, sm.COPIndex, sm.CSIndex):
        assert cls.higher_is_better is False
