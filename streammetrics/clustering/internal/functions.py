"""Distance-based internal indices, exact on an in-memory batch (the references of the sampled metrics).

:func:`silhouette_score` (and :func:`silhouette_samples`), :func:`davies_bouldin_score`,
:func:`simplified_silhouette_score` and :func:`calinski_harabasz_score`: functions of ``(X,
labels, sample_weight=None)`` as scikit-learn's, whose streaming metrics evaluate the same code
on a mergeable sample (:mod:`~streammetrics.clustering.internal.sample`) or on exact moments.
Weights are frequency weights throughout (an integer weight ``k`` equals ``k`` copies of the
row). Distances are Euclidean, or for the silhouette any of
:data:`~streammetrics.clustering.internal.distances.METRICS` (``metric=``).

Examples:
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> round(silhouette_score(X, labels), 4), round(davies_bouldin_score(X, labels), 4)
    (0.8586, 0.1414)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import validate_points
from .distances import check_metric, cluster_means, pairwise_distances, prepare_points
from .formulas import calinski_harabasz
from .moments import ClusterMoments


def silhouette_values(dsum: np.ndarray, idx: np.ndarray, cluster_w: np.ndarray) -> np.ndarray:
    """Per-row silhouette from the weighted distance sums to every cluster ``dsum`` (m x K)."""
    rows = np.arange(len(idx))
    own_w = cluster_w[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        a = dsum[rows, idx] / (own_w - 1.0)
        other = dsum / cluster_w[None, :]
        other[rows, idx] = np.inf
        other[:, cluster_w <= 0] = np.inf
        b = other.min(axis=1)
        s = (b - a) / np.maximum(a, b)
    s = np.where((own_w <= 1.0) | ~np.isfinite(s), 0.0, s)
    return s


def silhouette_samples(
    X: Any, labels: Any, sample_weight: Any = None, metric: str = "euclidean"
) -> np.ndarray:
    """Silhouette of every row, rows of weight 0 dropped. :func:`sklearn.metrics.silhouette_samples`.

    ``a`` is the mean distance to the *other* members of the row's cluster (``W_c - 1`` in the
    denominator with frequency weights), ``b`` the smallest mean distance to another cluster;
    ``s = (b - a) / max(a, b)``, and 0 for a cluster of weight at most 1. ``metric``: one of
    :data:`~streammetrics.clustering.internal.distances.METRICS` (default Euclidean).

    Examples:
        >>> silhouette_samples([[0.0], [1.0], [10.0]], [0, 0, 1]).tolist()
        [0.9, 0.8888888888888888, 0.0]
    """
    check_metric(metric)
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    onehot_w = np.zeros((len(x), k))
    onehot_w[np.arange(len(x)), idx] = w
    dist = pairwise_distances(x, x, metric=metric)
    dsum = dist @ onehot_w
    # A row is at distance 0 from itself, as scikit-learn sets it; its other copies (weight - 1)
    # keep the metric's distance (1 between zero rows under cosine).
    dsum[np.arange(len(x)), idx] -= np.diag(dist)
    return silhouette_values(dsum, idx, onehot_w.sum(axis=0))


def silhouette_score(X: Any, labels: Any, sample_weight: Any = None, metric: str = "euclidean") -> float:
    """Mean silhouette (weighted by the sample weights). :func:`sklearn.metrics.silhouette_score`.

    Returns NaN unless ``2 <= K <= N - 1`` (scikit-learn raises instead). ``metric``: as
    :func:`silhouette_samples`.

    Examples:
        >>> round(silhouette_score([[0.0], [1.0], [10.0], [11.0]], [0, 0, 1, 1]), 4)
        0.8997
        >>> round(silhouette_score([[1.0, 0.0], [2.0, 0.1], [0.0, 1.0], [0.1, 3.0]], [0, 0, 1, 1], metric="cosine"), 4)
        0.9991
    """
    check_metric(metric)
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if k < 2 or k > w.sum() - 1:
        return float("nan")
    s = silhouette_samples(x, idx, w, metric)
    return float(np.sum(w * s) / np.sum(w))


def davies_bouldin_from(centroids: np.ndarray, spread: np.ndarray) -> float:
    """Davies-Bouldin index from the centroids and the mean distances ``S_k`` to them.

    ``mean_k max_{l != k} (S_k + S_l) / ||mu_k - mu_l||``; 0.0 when every ``S_k`` or every
    centroid distance is (close to) 0, as scikit-learn.

    Examples:
        >>> davies_bouldin_from(np.array([[0.0], [4.0]]), np.array([1.0, 1.0]))
        0.5
    """
    dist = pairwise_distances(centroids, centroids)
    if np.allclose(spread, 0.0) or np.allclose(dist, 0.0):
        return 0.0
    dist[dist == 0] = np.inf
    combined = (spread[:, None] + spread[None, :]) / dist
    return float(np.mean(np.max(combined, axis=1)))


def davies_bouldin_score(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Davies-Bouldin index (lower is better). :func:`sklearn.metrics.davies_bouldin_score`.

    NaN unless ``2 <= K <= N - 1``.

    Examples:
        >>> davies_bouldin_score([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        0.2
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if k < 2 or k > w.sum() - 1:
        return float("nan")
    centroids, cw = cluster_means(x, idx, w, k)
    dist = np.sqrt(np.einsum("ij,ij->i", x - centroids[idx], x - centroids[idx]))
    spread = np.bincount(idx, weights=w * dist, minlength=k) / cw
    return davies_bouldin_from(centroids, spread)


def simplified_silhouette_values(x: np.ndarray, idx: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Simplified silhouette of every row: ``a`` and ``b`` are distances to centroids.

    Examples:
        >>> simplified_silhouette_values(np.array([[1.0]]), np.array([0]), np.array([[0.0], [4.0]])).tolist()
        [0.6666666666666666]
    """
    dist = pairwise_distances(x, centroids)
    rows = np.arange(len(x))
    a = dist[rows, idx].copy()
    dist[rows, idx] = np.inf
    b = dist.min(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (b - a) / np.maximum(a, b)
    return np.where(np.isfinite(s), s, 0.0)


def simplified_silhouette_score(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Simplified silhouette (seed 004): the silhouette with distances to the cluster centroids.

    NaN with fewer than 2 clusters.

    Examples:
        >>> simplified_silhouette_score([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        0.898989898989899
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if k < 2:
        return float("nan")
    centroids, _ = cluster_means(x, idx, w, k)
    return float(np.sum(w * simplified_silhouette_values(x, idx, centroids)) / w.sum())


def calinski_harabasz_score(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Calinski-Harabasz index of an in-memory batch (through :class:`ClusterMoments`).

    Examples:
        >>> calinski_harabasz_score([[0.0], [2.0], [5.0], [7.0]], [0, 0, 1, 1])
        12.5
    """
    x, lab, w = validate_points(X, labels, sample_weight, None)
    state = ClusterMoments()
    state.add(x, lab, w)
    return calinski_harabasz(state)
