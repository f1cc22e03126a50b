"""Silhouette with scikit-learn's other distances (``metric=``), streamed over merged shards."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.clustering.internal import silhouette_samples, silhouette_score
from tests.classification.test_sklearn_options import sharded
from tests.helpers import assert_same

RNG = np.random.default_rng(6)
CENTRES = np.array([[0.0, 0.0, 1.0], [4.0, 1.0, 0.0], [1.0, 5.0, 2.0]])
LABELS = RNG.integers(0, 3, 90)
X = CENTRES[LABELS] + RNG.normal(0, 1.2, (90, 3))
METRICS = ["euclidean", "l2", "manhattan", "cityblock", "l1", "cosine", "sqeuclidean", "chebyshev"]


@pytest.mark.parametrize("metric", METRICS)
def test_silhouette_metric_matches_sklearn_over_merged_shards(metric):
    expected = skm.silhouette_score(X, LABELS, metric=metric)
    m = sharded(lambda: sm.Silhouette(metric=metric), X, LABELS)
    assert_same(m.compute(), expected, rtol=1e-9, atol=1e-12)
    assert m.estimate().exact
    assert_same(silhouette_score(X, LABELS, metric=metric), expected, rtol=1e-9, atol=1e-12)
    assert_same(
        silhouette_samples(X, LABELS, metric=metric),
        skm.silhouette_samples(X, LABELS, metric=metric),
        rtol=1e-9,
        atol=1e-12,
    )


@pytest.mark.parametrize("metric", ["manhattan", "cosine"])
def test_silhouette_metric_with_repeated_rows_and_weights_equals_repetition(metric):
    rows = np.array([0, 1, 1, 5, 7, 7, 7, 30, 44, 60])
    counts = np.array([1, 2, 2, 1, 3, 3, 3, 1, 2, 1])
    x, y = X[rows], LABELS[rows]
    expected = skm.silhouette_score(np.repeat(x, counts, axis=0), np.repeat(y, counts), metric=metric)
    got = sharded(lambda: sm.Silhouette(metric=metric), x, y, sample_weight=counts.astype(float)).compute()
    assert_same(got, expected, rtol=1e-9, atol=1e-12)


def test_silhouette_cosine_with_a_zero_row_matches_sklearn():
    x = np.vstack([X[:20], np.zeros((3, 3))])  # two copies of a zero row in cluster 0, one in 1
    y = np.concatenate([LABELS[:20], [0, 0, 1]])
    assert_same(
        sharded(lambda: sm.Silhouette(metric="cosine"), x, y).compute(),
        skm.silhouette_score(x, y, metric="cosine"),
        rtol=1e-9,
        atol=1e-12,
    )


@pytest.mark.parametrize("metric", ["manhattan", "cosine"])
def test_silhouette_metric_beyond_the_sample_is_an_estimate(metric):
    m = sharded(lambda: sm.Silhouette(sample_size=40, metric=metric), X, LABELS)
    est = m.estimate()
    assert not est.exact
    assert abs(est.value - skm.silhouette_score(X, LABELS, metric=metric)) < 0.1


def test_silhouette_refuses_metrics_a_stream_cannot_evaluate():
    for bad in ("precomputed", "minkowski", lambda a, b: 0.0, None):
        with pytest.raises(ValueError, match="metric"):
            sm.Silhouette(metric=bad)
        with pytest.raises(ValueError, match="metric"):
            silhouette_score(X, LABELS, metric=bad)
    with pytest.raises(sm.MergeError):
        sm.Silhouette(metric="cosine").merge(sm.Silhouette())
