"""Centroid-based internal indices: references, the exact two-pass mode, sampled accuracy, bad input."""

from __future__ import annotations

import itertools
import warnings
from functools import reduce

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.datasets import make_blobs

import streammetrics as sm
from streammetrics.clustering import centroid as c
from streammetrics.clustering import internal as f
from streammetrics.clustering.internal.base import SampledMetric
from tests.law_cases import clustering_centroid as R


def _blobs(seed, n=1500, d=3, k=4, std=1.5):
    return make_blobs(n, n_features=d, centers=k, cluster_std=std, random_state=seed)


IN_MEMORY = [
    (c.davies_bouldin_star, R.ref_db_star),
    (c.score_function, R.ref_score_function),
    (c.s_dbw, R.ref_s_dbw),
    (c.sv_index, R.ref_sv),
    (c.os_index, R.ref_os),
    (c.sym_index, R.ref_sym),
    (c.sym_db, R.ref_sym_db),
    (c.sym_dunn, R.ref_sym_dunn),
    (c.sym33, R.ref_sym33),
]


# ---------------------------------------------------------------------- references
@pytest.mark.parametrize("fn,ref", IN_MEMORY, ids=[fn.__name__ for fn, _ in IN_MEMORY])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
@pytest.mark.parametrize("seed", [0, 1])
def test_in_memory_functions_agree_with_loop_references(fn, ref, weights, seed):
    X, y = _blobs(seed, n=70, d=3, k=4, std=2.0)
    rng = np.random.default_rng(seed)
    w = {"none": None, "integer": rng.integers(0, 4, 70), "real": rng.uniform(0.2, 3.0, 70)}[weights]
    assert fn(X, y, w) == pytest.approx(ref(X, y, w), rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("fn", [fn for fn, _ in IN_MEMORY], ids=lambda fn: fn.__name__)
def test_integer_weight_equals_repeated_rows_in_memory(fn):
    X, y = _blobs(3, n=120)
    w = np.random.default_rng(0).integers(0, 4, 120)
    assert fn(X, y, w) == pytest.approx(fn(np.repeat(X, w, axis=0), np.repeat(y, w)), rel=1e-10)


def test_small_cases_by_hand():
    # DB*: centroids 1, 11, 31 and spreads 1: terms 2/10, 2/10, 2/20.
    assert c.davies_bouldin_star(
        [[0.0], [2.0], [10.0], [12.0], [30.0], [32.0]], [0, 0, 1, 1, 2, 2]
    ) == pytest.approx((0.2 + 0.2 + 0.1) / 3)
    # SF: centroids 1, 11, grand mean 6: bcd = (2*5 + 2*5) / (4 * 2) = 2.5, wcd = 1 + 1.
    assert c.score_function([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]) == pytest.approx(
        1 - 1 / np.exp(np.exp(0.5))
    )
    # S_Dbw: variances 2/3, total variance 154/6; no point within stdev of the midpoint 6.
    assert c.s_dbw([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]], [0, 0, 0, 1, 1, 1]) == pytest.approx(
        (2 / 3) / (154 / 6)
    )
    # SV: separations 10 + 10 over the 10% farthest (the mean distance 1) of each cluster.
    assert c.sv_index([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]) == 10.0
    # OS: only x = 1.5 overlaps (a = 0.75, b = mean(0.5, 1.5) = 1); compactness 0.5 + 0.75.
    assert c.os_index([[0.0], [1.0], [1.5], [3.0]], [0, 0, 1, 1]) == pytest.approx(0.75 / 1.25)
    # d_ps: x = 0 in {0, 2, 4}: mirror 4, nearest 4 (0) and 2 (2): mean 1, times ||0 - 2|| = 2.
    assert c.symmetry_distances([[0.0], [2.0], [4.0], [9.0], [11.0]], [0, 0, 0, 1, 1]).tolist() == [
        2.0,
        0.0,
        2.0,
        1.0,
        1.0,
    ]


def test_simplified_silhouette_direct_formula():
    X, y = _blobs(4, n=500)
    means = np.array([X[y == k].mean(axis=0) for k in range(4)])
    d = np.sqrt(((X[:, None, :] - means[None]) ** 2).sum(-1))
    a = d[np.arange(500), y]
    d[np.arange(500), y] = np.inf
    b = d.min(axis=1)
    expected = np.mean((b - a) / np.maximum(a, b))
    assert sm.SimplifiedSilhouette().update(X, y).compute() == pytest.approx(expected, rel=1e-12)
    assert f.simplified_silhouette_score(X, y) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------------- two-pass
TWO_PASS = [
    (sm.DaviesBouldin, skm.davies_bouldin_score),
    (sm.DaviesBouldin, f.davies_bouldin_score),
    (sm.SimplifiedSilhouette, f.simplified_silhouette_score),
    (sm.DaviesBouldinStar, c.davies_bouldin_star),
    (sm.ScoreFunction, c.score_function),
]


@pytest.mark.parametrize("cls,exact", TWO_PASS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_pass_equals_the_in_memory_function_in_any_merge_order(cls, exact, seed):
    X, y = _blobs(seed, n=6000, d=10, k=6, std=2.0)
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, 6000), 11, replace=False))
    shards = list(zip(np.split(X, cuts), np.split(y, cuts), strict=True))
    pass1 = [sm.CalinskiHarabasz().update(x, lab) for x, lab in shards]
    rng.shuffle(pass1)
    centroids = sum(pass1)
    pass2 = [cls(centroids=centroids).update(x, lab) for x, lab in shards]
    expected = exact(X, y)
    for order in (rng.permutation(len(pass2)) for _ in range(3)):
        merged = reduce(lambda a, b: a + b, [pass2[i] for i in order])
        assert merged.compute() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    tree = (pass2[0] + pass2[1]) + sum(pass2[2:6]) + (sum(pass2[6:]) + cls(centroids=centroids))
    assert tree.compute() == pytest.approx(expected, rel=1e-12)
    err = tree.compute_with_error()
    assert err.exact and err.stderr == 0.0


def test_two_pass_weights_revert_and_serialization():
    X, y = _blobs(5, n=3000)
    w = np.random.default_rng(5).integers(0, 4, 3000).astype(float)
    pass1 = sm.CalinskiHarabasz().update(X, y, sample_weight=w)
    m = sm.DaviesBouldin(centroids=pass1).update(X[:1000], y[:1000], sample_weight=w[:1000])
    m.update(X[1000:], y[1000:], sample_weight=w[1000:])
    expected = skm.davies_bouldin_score(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    assert m.compute() == pytest.approx(expected, rel=1e-12)
    assert m.is_revertible
    part = sm.DaviesBouldin(centroids=pass1).update(X[:1000], y[:1000], sample_weight=w[:1000])
    assert m.copy().revert(X[1000:], y[1000:], sample_weight=w[1000:]).compute() == pytest.approx(
        part.compute(), rel=1e-10
    )
    restored = sm.from_bytes(m.to_bytes())
    assert type(restored) is sm.DaviesBouldin and restored.compute() == m.compute()
    assert restored.get_config()["centroids"] == m.get_config()["centroids"]
    assert (restored + m).compute() == pytest.approx(m.compute(), rel=1e-12)


def test_two_pass_string_labels_and_centroid_sources():
    X, y = _blobs(6, n=900)
    names = np.array(["ant", "bee", "cat", "dog"])[y]
    moments = sm.CalinskiHarabasz().update(X, names)
    expected = skm.davies_bouldin_score(X, y)
    sources = [
        moments,
        moments.state,
        sm.Silhouette().update(X, names),  # a sampled index holds exact moments too
        sm.cluster_centroids(moments),
        sm.cluster_centroids(moments).to_config(),
        (list(sm.cluster_centroids(moments).labels), sm.cluster_centroids(moments).means),
    ]
    for source in sources:
        assert sm.DaviesBouldin(centroids=source).update(X, names).compute() == pytest.approx(
            expected, rel=1e-12
        )
    got = sm.cluster_centroids(moments)
    assert got.labels == ["ant", "bee", "cat", "dog"]
    np.testing.assert_allclose(got.means, [X[y == k].mean(axis=0) for k in range(4)], rtol=1e-12)
    fixed = sm.ScoreFunction(centroids=moments)
    assert sm.cluster_centroids(fixed) == fixed.centroids


def test_two_pass_helper():
    X, y = _blobs(7, n=2000, d=10)
    w = np.random.default_rng(7).uniform(0.5, 2.0, 2000)
    shards = [(X[i : i + 300], y[i : i + 300], w[i : i + 300]) for i in range(0, 2000, 300)]
    db, ss, dbs, sf = sm.two_pass(
        [sm.DaviesBouldin, sm.SimplifiedSilhouette(sample_size=50), sm.DaviesBouldinStar, sm.ScoreFunction],
        shards,
    )
    assert db.compute() == pytest.approx(f.davies_bouldin_score(X, y, w), rel=1e-12)
    assert ss.compute() == pytest.approx(f.simplified_silhouette_score(X, y, w), rel=1e-12)
    assert ss.get_config()["sample_size"] == 50  # an instance's configuration is kept
    assert dbs.compute() == pytest.approx(c.davies_bouldin_star(X, y, w), rel=1e-12)
    assert sf.compute() == pytest.approx(c.score_function(X, y, w), rel=1e-12)
    # a zero-argument callable returning a fresh iterator
    one = sm.two_pass(
        sm.DaviesBouldin, lambda: ((X[i : i + 500], y[i : i + 500]) for i in range(0, 2000, 500))
    )
    assert one.compute() == pytest.approx(skm.davies_bouldin_score(X, y), rel=1e-12)
    with pytest.raises(ValueError, match=r"batches: .*one-shot iterator"):
        sm.two_pass(sm.DaviesBouldin, iter(shards))
    with pytest.raises(ValueError, match="batches"):
        sm.two_pass(sm.DaviesBouldin, [X])
    with pytest.raises(ValueError, match="metrics"):
        sm.two_pass(sm.Silhouette, shards)
    batches = itertools.count()

    def changing():  # a source that changes between the passes
        n = 500 + 100 * next(batches)
        return iter([(X[:n], y[:n])])

    with pytest.warns(UserWarning, match="pass 2 saw"):
        sm.two_pass(sm.DaviesBouldin, changing)


# ---------------------------------------------------------------------- sampled estimates
SAMPLED = [
    (sm.SimplifiedSilhouette, f.simplified_silhouette_score),
    (sm.DaviesBouldinStar, c.davies_bouldin_star),
    (sm.ScoreFunction, c.score_function),
    (sm.SVIndex, c.sv_index),
    (sm.OSIndex, c.os_index),
]


@pytest.mark.parametrize("seed,std", [(0, 1.0), (1, 2.5), (2, 4.0)])
@pytest.mark.parametrize("cls,exact", SAMPLED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_sampled_estimate_within_its_standard_error(cls, exact, seed, std):
    X, y = _blobs(seed, n=4000, d=4, k=5, std=std)
    _check_within_error(cls, exact, X, y, seed)


@pytest.mark.parametrize("seed,std", [(0, 1.0), (1, 2.5), (2, 4.0), (3, 6.0)])
def test_sampled_sdbw_within_its_standard_error_when_the_radius_holds_rows(seed, std):
    # 2 features, 3 clusters: about a fifth of each cluster lies within stdev(C) of its centroid
    X, y = _blobs(seed, n=4000, d=2, k=3, std=std)
    _check_within_error(sm.SDbw, c.s_dbw, X, y, seed)


def test_sampled_sdbw_reports_no_error_for_rare_event_densities():
    # 4 features, 5 clusters, 400 sampled rows: only a handful within stdev(C) of a centroid
    X, y = _blobs(1, n=4000, d=4, k=5, std=2.5)
    est = sm.SDbw(sample_size=400, seed=1).update(X, y).compute_with_error()
    assert np.isfinite(est.value) and np.isnan(est.stderr) and not est.exact
    assert sm.SDbw(sample_size=5000).update(X, y).compute() == pytest.approx(c.s_dbw(X, y), rel=1e-10)


def _check_within_error(cls, exact, X, y, seed):
    shards = [
        cls(sample_size=400, seed=seed).update(X[i : i + 1000], y[i : i + 1000]) for i in range(0, 4000, 1000)
    ]
    est = sum(shards).compute_with_error()
    assert not est.exact and est.sample_rows == 400
    truth = exact(X, y)
    assert abs(est.value - truth) <= 4 * est.stderr + 1e-12 * abs(truth)
    low, high = cls(sample_size=400, seed=seed).update(X, y).bounds(z=4)
    assert low - 1e-12 * abs(truth) <= truth <= high + 1e-12 * abs(truth)


@pytest.mark.parametrize("cls", [sm.SymIndex, sm.SymDB, sm.SymDunn, sm.Sym33])
def test_sym_family_sampled_is_the_index_of_the_sample(cls):
    """Documented: beyond sample_size the Sym family is the index of the sample (exact centroids),
    a biased estimate; while the sample holds every row it is exact."""
    X, y = _blobs(1, n=3000, d=3, k=4)
    m = cls(sample_size=300).update(X, y)
    s = m.state.sample
    idx, _ = m.state.moments.labels.encode(s.labels, "labels")
    dps = c.point_symmetry_distances(s.x, idx, s.weights, m.state.moments.mean)
    got = m._sym(m.state.moments, s.x, idx, s.weights, dps)
    assert m.compute() == got
    exact_fn = {sm.SymIndex: c.sym_index, sm.SymDB: c.sym_db, sm.SymDunn: c.sym_dunn, sm.Sym33: c.sym33}[cls]
    small = X[:250], y[:250]
    assert cls().update(*small).compute() == pytest.approx(exact_fn(*small), rel=1e-10)


def test_sampled_merge_order_does_not_matter():
    X, y = _blobs(8, n=3000)
    a = sm.OSIndex(sample_size=150).update(X, y)
    parts = [sm.OSIndex(sample_size=150).update(X[i : i + 400], y[i : i + 400]) for i in range(0, 3000, 400)]
    assert sum(reversed(parts)).compute() == pytest.approx(a.compute(), rel=1e-12)


# ---------------------------------------------------------------------- bad input
ALL = [
    sm.SimplifiedSilhouette,
    sm.DaviesBouldinStar,
    sm.ScoreFunction,
    sm.SDbw,
    sm.SVIndex,
    sm.OSIndex,
    sm.SymIndex,
    sm.SymDB,
    sm.SymDunn,
    sm.Sym33,
]
TWO_PASS_CLASSES = [sm.DaviesBouldin, sm.SimplifiedSilhouette, sm.DaviesBouldinStar, sm.ScoreFunction]
FIXED = ([0, 1], [[0.0, 0.0], [5.0, 5.0]])


def test_merging_different_centroids_raises():
    a = sm.DaviesBouldin(centroids=FIXED).update([[0.0, 1.0]], [0])
    b = sm.DaviesBouldin(centroids=([0, 1], [[0.0, 0.0], [5.0, 5.5]]))
    with pytest.raises(sm.MergeError, match="centroids"):
        a.merge(b)
    with pytest.raises(sm.MergeError):
        a + sm.DaviesBouldin()  # two-pass and sampled do not mix
    with pytest.raises(sm.MergeError):
        a + sm.DaviesBouldinStar(centroids=FIXED)


@pytest.mark.parametrize("cls", TWO_PASS_CLASSES)
@pytest.mark.parametrize(
    "X,labels,kw,match",
    [
        ([[0.0, 1.0, 2.0]], [0], {}, r"X: expected 2 features .*fixed centroids"),
        ([[0.0, 1.0]], [7], {}, r"labels: .*fixed"),
        ([[0.0, 1.0]], ["a"], {}, "labels"),
        ([[0.0, np.nan]], [0], {}, "X"),
        ([[0.0, 1.0], [1.0, 1.0]], [0], {}, "labels"),
        ([[0.0, 1.0]], [0], {"sample_weight": [-1.0]}, "sample_weight"),
    ],
)
def test_two_pass_bad_input_raises_and_leaves_state_unchanged(cls, X, labels, kw, match):
    m = cls(centroids=FIXED).update([[0.0, 0.5], [1.0, 0.0], [5.0, 4.0]], [0, 0, 1])
    before = m.state_dict()
    with pytest.raises(sm.InputError, match=match):
        m.update(X, labels, **kw)
    after = m.state_dict()
    assert after["config"] == before["config"]
    for key, value in before["state"].items():
        np.testing.assert_array_equal(after["state"][key], value)
    with pytest.raises(sm.InputError, match="never added"):
        m.revert([[5.0, 5.0], [5.0, 5.0]], [1, 1])
    assert m.state_dict()["state"]["n_samples"] == 3


@pytest.mark.parametrize("cls", ALL)
def test_sampled_bad_input_raises_and_leaves_state_unchanged(cls):
    m = cls().update([[0.0, 0.0], [1.0, 0.5], [5.0, 5.0]], [0, 0, 1])
    before = m.to_bytes()
    for X, labels in (([[0.0, 1.0, 2.0]], [0]), ([[0.0, np.inf]], [0]), ([0.0, 1.0], [0, 1])):
        with pytest.raises(sm.InputError, match="X"):
            m.update(X, labels)
    with pytest.raises(sm.InputError, match="labels"):
        m.update([[0.0, 1.0]], [0, 1])
    assert m.to_bytes() == before
    with pytest.raises(TypeError, match="cannot revert"):
        m.revert([[0.0, 0.0]], [0])


@pytest.mark.parametrize("cls", ALL)
def test_fewer_than_two_clusters_warns_and_returns_nan(cls):
    m = cls().update([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]], [4, 4, 4])
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())


@pytest.mark.parametrize("cls", TWO_PASS_CLASSES)
def test_two_pass_fewer_than_two_clusters_and_empty(cls):
    m = cls(centroids=FIXED)
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())
    m.update([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]], [1, 1, 1])
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.update([[0.5, 0.5]], [0])
        assert np.isfinite(m.compute())


@pytest.mark.parametrize(
    "centroids,match",
    [
        (sm.CalinskiHarabasz(), "at least one cluster"),
        (([0, 1], [[0.0], [np.nan]]), "finite"),
        (([0, 1], [[0.0, 1.0]]), "shape"),
        (([0, 0], [[0.0], [1.0]]), "distinct"),
        ({"labels": [0]}, "centroids"),
        (3.0, "centroids"),
    ],
)
def test_bad_centroids_raise_value_error_naming_the_argument(centroids, match):
    with pytest.raises(ValueError, match=match):
        sm.DaviesBouldin(centroids=centroids)


SAMPLED_CLASSES = sorted(
    (
        cls
        for cls in (getattr(sm, name) for name in sm.__all__)
        if isinstance(cls, type)
        and issubclass(cls, SampledMetric)
        and not getattr(cls, "__abstractmethods__", ())
    ),
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize("cls", SAMPLED_CLASSES, ids=lambda cls: cls.__name__)
def test_compute_is_the_estimate_without_its_jackknife(cls, monkeypatch):
    """compute() reads the index on the sample alone (the jackknife replicates cost twenty more
    evaluations and only the standard error needs them): the same value as estimate(), whose
    standard error is still the jackknife's."""
    X, y = _blobs(2, n=900, d=3, k=3, std=2.0)
    m = cls(sample_size=150, seed=1).update(X, y)
    assert m.state.sample.saturated
    calls = []
    on_sample = m._on_sample

    def counted(moments, x, idx, w, groups):
        calls.append(groups)
        return on_sample(moments, x, idx, w, groups)

    monkeypatch.setattr(m, "_on_sample", counted)
    value = m.compute()
    assert calls == [None]
    est = m.estimate()
    assert est.value == value or (np.isnan(value) and np.isnan(est.value))
    assert calls[1] is not None and calls[2] is None and not est.exact
    assert np.isfinite(est.stderr) or cls is sm.SDbw
