"""Internal clustering indices: scikit-learn agreement, sampled estimates within their error, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.datasets import load_iris, make_blobs

import streammetrics as sm
from streammetrics.clustering import internal as f


def _blobs(seed, n=1500, d=3, k=4, std=1.5):
    return make_blobs(n, n_features=d, centers=k, cluster_std=std, random_state=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "cls,ref",
    [
        (sm.CalinskiHarabasz, skm.calinski_harabasz_score),
        (sm.Silhouette, skm.silhouette_score),
        (sm.DaviesBouldin, skm.davies_bouldin_score),
    ],
)
def test_streaming_and_merged_agree_with_sklearn(cls, ref, seed):
    X, y = _blobs(seed, n=900)
    parts = [cls().update(X[i : i + 250], y[i : i + 250]) for i in range(0, 900, 250)]
    streamed = cls()
    for i in range(0, 900, 100):
        streamed.update(X[i : i + 100], y[i : i + 100])
    expected = ref(X, y)
    assert streamed.compute() == pytest.approx(expected, rel=1e-10)
    assert sum(parts).compute() == pytest.approx(expected, rel=1e-10)


def test_seed_001_iris_kmeans_silhouette():
    from sklearn.cluster import KMeans

    X = load_iris().data
    labels = KMeans(n_clusters=3, random_state=1, n_init=10).fit(X).labels_
    got = sm.Silhouette().update(X, labels).compute()
    assert got == pytest.approx(skm.silhouette_score(X, labels), rel=1e-10)
    assert str(got).startswith("0.55")


def test_exact_in_memory_functions_agree_with_sklearn():
    X, y = _blobs(5, n=400)
    assert f.silhouette_score(X, y) == pytest.approx(skm.silhouette_score(X, y), rel=1e-10)
    np.testing.assert_allclose(
        f.silhouette_samples(X, y), skm.silhouette_samples(X, y), rtol=1e-9, atol=1e-12
    )
    assert f.davies_bouldin_score(X, y) == pytest.approx(skm.davies_bouldin_score(X, y), rel=1e-10)
    assert f.calinski_harabasz_score(X, y) == pytest.approx(skm.calinski_harabasz_score(X, y), rel=1e-10)


def test_integer_weights_equal_repeated_rows():
    X, y = _blobs(3, n=200)
    w = np.random.default_rng(0).integers(0, 4, 200)
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    for cls, ref in (
        (sm.CalinskiHarabasz, skm.calinski_harabasz_score),
        (sm.Silhouette, skm.silhouette_score),
        (sm.DaviesBouldin, skm.davies_bouldin_score),
    ):
        assert cls().update(X, y, sample_weight=w).compute() == pytest.approx(ref(Xr, yr), rel=1e-10)


@pytest.mark.parametrize("seed,std", [(0, 1.0), (1, 2.5), (2, 4.0), (3, 1.5)])
@pytest.mark.parametrize(
    "cls,ref", [(sm.Silhouette, skm.silhouette_score), (sm.DaviesBouldin, skm.davies_bouldin_score)]
)
def test_sampled_estimate_within_its_standard_error(cls, ref, seed, std):
    X, y = _blobs(seed, n=4000, d=4, k=5, std=std)
    shards = [
        cls(sample_size=400, seed=seed).update(X[i : i + 1000], y[i : i + 1000]) for i in range(0, 4000, 1000)
    ]
    est = sum(shards).compute_with_error()
    assert not est.exact and est.sample_rows == 400
    assert 0 < est.stderr < 0.05
    assert abs(est.value - ref(X, y)) <= 4 * est.stderr
    assert 2500 < est.distinct_rows < 6000  # KMV estimate of 4000 distinct rows
    low, high = cls(sample_size=400, seed=seed).update(X, y).bounds(z=4)
    assert low <= ref(X, y) <= high


def test_sample_is_independent_of_batching_and_merge_order():
    X, y = _blobs(7, n=3000)
    a = sm.Silhouette(sample_size=200).update(X, y)
    b = sm.Silhouette(sample_size=200)
    for i in reversed(range(0, 3000, 170)):
        b.update(X[i : i + 170], y[i : i + 170])
    np.testing.assert_array_equal(a.state.sample.keys, b.state.sample.keys)
    assert a.compute() == b.compute()


def test_moments_revert_and_negentropy():
    X, y = _blobs(2, n=600)
    m = sm.CalinskiHarabasz().update(X[:300], y[:300]).update(X[300:], y[300:]).revert(X[300:], y[300:])
    assert m.compute() == pytest.approx(skm.calinski_harabasz_score(X[:300], y[:300]), rel=1e-9)
    ni = sm.NegentropyIncrement().update(X, y).compute()
    p = np.bincount(y) / len(y)
    covs = [np.cov(X[y == k].T, bias=True) for k in range(4)]
    expected = (
        0.5 * sum(p[k] * np.log(np.linalg.det(covs[k])) for k in range(4))
        - 0.5 * np.log(np.linalg.det(np.cov(X.T, bias=True)))
        - np.sum(p * np.log(p))
    )
    assert ni == pytest.approx(expected, rel=1e-9)
    assert sm.WithinClusterSS().update(X, y).compute() + sm.BetweenClusterSS().update(
        X, y
    ).compute() == pytest.approx(((X - X.mean(0)) ** 2).sum(), rel=1e-10)


@pytest.mark.parametrize(
    "cls", [sm.CalinskiHarabasz, sm.Silhouette, sm.DaviesBouldin, sm.NegentropyIncrement]
)
@pytest.mark.parametrize(
    "X,labels,kw,match",
    [
        ([[0.0, 1.0], [1.0, 1.0]], [0], {}, "labels"),  # length mismatch
        ([[0.0, np.nan], [1.0, 1.0]], [0, 1], {}, "X"),  # NaN feature
        ([0.0, 1.0], [0, 1], {}, "X"),  # 1-D X
        ([[[0.0]], [[1.0]]], [0, 1], {}, "X"),  # 3-D X
        ([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]], [0, 1], {}, "X"),  # feature count changes
        ([[0.0, 1.0], [1.0, 1.0]], [0, 1], {"sample_weight": [1, -1]}, "sample_weight"),
    ],
)
def test_bad_input_raises_and_leaves_state_unchanged(cls, X, labels, kw, match):
    m = cls().update([[0.0, 0.0], [1.0, 0.5], [5.0, 5.0]], [0, 0, 1])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match=match):
        m.update(X, labels, **kw)
    assert m.to_bytes() == before


@pytest.mark.parametrize(
    "cls", [sm.CalinskiHarabasz, sm.Silhouette, sm.DaviesBouldin, sm.NegentropyIncrement]
)
def test_fewer_than_two_clusters_warns_and_returns_nan(cls):
    m = cls().update([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]], [4, 4, 4])
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())
