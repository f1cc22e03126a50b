"""Centroid and spread indices: DB*, the score function, SV and OS (seed 004).

Each index is a formula on a few *components* (the centroids, the per-cluster spreads ``S_k``
or the mean distance ``T_k`` of each cluster's farthest points, an overlap sum), written as a
``*_from`` function so that the streaming metrics of :mod:`~streammetrics.clustering.centroid.metrics`
evaluate it with exact centroids on a mergeable sample, and as an exact in-memory function of
``(X, labels, sample_weight=None)``: :func:`davies_bouldin_star` (DB*), :func:`score_function`
(SF), :func:`sv_index` (SV), :func:`os_index` (OS).

Euclidean distances, frequency weights (an integer weight ``k`` equals ``k`` copies of the row,
rows of weight 0 are dropped); NaN unless ``2 <= K <= N - 1`` with ``N`` the total weight, as
:func:`~streammetrics.clustering.internal.davies_bouldin_score`.

Examples:
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 2.0], [6.0, 0.0], [6.0, 2.0]])
    >>> labels = [0, 0, 1, 1]
    >>> davies_bouldin_star(X, labels), sv_index(X, labels)
    (0.3333333333333333, 6.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..internal.distances import cluster_means, pairwise_distances, prepare_points
from .geometry import distances_to_own, is_defined, mass_mean, per_cluster_mean, rows_per_chunk

#: Share of each cluster's farthest points in the SV and OS compactness (Zalik and Zalik 2011).
TOP_SHARE = 0.1
#: OS: a point overlaps when ``(b - a) / (b + a)`` is below this (Zalik and Zalik 2011).
OVERLAP_THRESHOLD = 0.4


def top_share_means(
    d: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int, share: float = TOP_SHARE
) -> np.ndarray:
    """Per cluster, the mean of the ``share`` (by weight) largest values of ``d`` (NaN if empty).

    ``10 / |c_k| * sum of the 0.1 |c_k| largest distances`` of seed 004's SV and OS; when
    ``0.1 |c_k|`` is not a whole number the boundary row counts for the fraction that fits.

    Examples:
        >>> d = np.arange(1.0, 21.0)  # 20 rows of one cluster: the top 10% are 20 and 19
        >>> top_share_means(d, np.zeros(20, dtype=np.int64), np.ones(20), 1).tolist()
        [19.5]
    """
    out = np.full(k, np.nan)
    order = np.lexsort((-d, idx))
    d_s, w_s, idx_s = d[order], w[order], idx[order]
    bounds = np.searchsorted(idx_s, np.arange(k + 1))
    for c in range(k):
        lo, hi = bounds[c], bounds[c + 1]
        total = w_s[lo:hi].sum()
        if hi > lo and total > 0:
            out[c] = mass_mean(d_s[None, lo:hi], w_s[None, lo:hi], np.array([share * total]))[0]
    return out


def _separations(centroids: np.ndarray) -> np.ndarray:
    """Centroid distances with the diagonal at +inf."""
    dist = pairwise_distances(centroids, centroids)
    np.fill_diagonal(dist, np.inf)
    return dist


# ---------------------------------------------------------------------- DB* and score function
def davies_bouldin_star_from(centroids: np.ndarray, spread: np.ndarray) -> float:
    """DB* from the centroids and the spreads ``S_k`` (mean distance to the centroid).

    ``mean_k max_{l != k}(S_k + S_l) / min_{l != k} ||c_k - c_l||`` (Kim and Ramakrishna 2005,
    seed 004). Coincident centroids are ignored as in the Davies-Bouldin index, and the index is
    0.0 when every spread or every centroid distance is (close to) 0, as scikit-learn's DB.

    Examples:
        >>> davies_bouldin_star_from(np.array([[0.0], [4.0], [10.0]]), np.array([1.0, 1.0, 2.0]))
        0.6666666666666666
    """
    dist = pairwise_distances(centroids, centroids)
    if np.allclose(spread, 0.0) or np.allclose(dist, 0.0):
        return 0.0
    dist[dist == 0] = np.inf
    pair = spread[:, None] + spread[None, :]
    np.fill_diagonal(pair, -np.inf)
    return float(np.mean(pair.max(axis=1) / dist.min(axis=1)))


def score_function_from(centroids: np.ndarray, weights: np.ndarray, spread: np.ndarray) -> float:
    """Score function ``1 - 1 / exp(exp(bcd - wcd))`` (Saitta, Raphael and Smith 2007).

    ``bcd = sum_k |c_k| ||c_k - mean|| / (N K)``, ``wcd = sum_k S_k`` with ``S_k`` the mean
    distance of cluster ``k`` to its centroid. Seed 004 prints ``bcd + wcd``: a typo (the index
    must fall when clusters spread out); the paper's ``bcd - wcd`` is used. Higher is better,
    in ``(0, 1)``.

    Examples:
        >>> round(score_function_from(np.array([[0.0], [4.0]]), np.array([2.0, 2.0]), np.array([1.0, 1.0])), 6)
        0.307799
    """
    n, k = float(weights.sum()), len(weights)
    grand = (weights[:, None] * centroids).sum(axis=0) / n
    diff = centroids - grand
    bcd = float(np.sum(weights * np.sqrt(np.einsum("ij,ij->i", diff, diff)))) / (n * k)
    wcd = float(np.sum(spread))
    return float(-np.expm1(-np.exp(bcd - wcd)))


def _spreads(
    x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    centroids, cw = cluster_means(x, idx, w, k)
    return centroids, cw, per_cluster_mean(distances_to_own(x, idx, centroids), idx, w, k)


def davies_bouldin_star(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """DB* index (lower is better; seed 004 and Kim and Ramakrishna 2005).

    The Davies-Bouldin index with the largest spread sum and the smallest centroid distance of
    each cluster taken separately: ``mean_k max_l(S_k + S_l) / min_l ||c_k - c_l||``.

    Examples:
        >>> davies_bouldin_star([[0.0], [2.0], [10.0], [12.0], [30.0], [32.0]], [0, 0, 1, 1, 2, 2])
        0.16666666666666666
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not is_defined(k, w.sum()):
        return float("nan")
    centroids, _, spread = _spreads(x, idx, w, k)
    return davies_bouldin_star_from(centroids, spread)


def score_function(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Score function SF (higher is better; seed 004, Saitta, Raphael and Smith 2007).

    ``1 - 1 / exp(exp(bcd - wcd))``: see :func:`score_function_from` (seed typo ``bcd + wcd``
    corrected).

    Examples:
        >>> round(score_function([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]), 6)
        0.807704
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not is_defined(k, w.sum()):
        return float("nan")
    centroids, cw, spread = _spreads(x, idx, w, k)
    return score_function_from(centroids, cw, spread)


# ---------------------------------------------------------------------- SV and OS
def sv_from(centroids: np.ndarray, top: np.ndarray) -> float:
    """SV ``sum_k min_{l != k} ||c_k - c_l|| / sum_k T_k`` with ``T_k`` the mean distance of the
    10% farthest points of cluster ``k`` to its centroid (Zalik and Zalik 2011, seed 004).

    Examples:
        >>> sv_from(np.array([[0.0], [6.0]]), np.array([1.0, 2.0]))
        4.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(_separations(centroids).min(axis=1).sum() / np.sum(top))


def sv_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """SV index (higher is better; Zalik and Zalik 2011 as in Arbelaitz et al. 2013, seed 004).

    Separation: the sum over clusters of the distance to the nearest other centroid.
    Compactness: ``sum_k 10 / |c_k| * (sum of the 0.1 |c_k| largest ||x - c_k||)``, the mean
    distance of the 10% farthest points (:func:`top_share_means`; the boundary point counts for
    the fraction that fits when ``0.1 |c_k|`` is not whole). +inf when every point sits on its
    centroid.

    Examples:
        >>> sv_index([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        10.0
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not is_defined(k, w.sum()):
        return float("nan")
    centroids, _ = cluster_means(x, idx, w, k)
    return sv_from(centroids, top_share_means(distances_to_own(x, idx, centroids), idx, w, k))


def overlap_sum(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> float:
    """``sum_i w_i ov(x_i)`` of the OS index, exact (``O(N^2)`` time, blocks of rows).

    ``a(x)``: mean distance to the points of its cluster (the point itself included, divided by
    ``|c_k|`` as the paper); ``b(x)``: mean distance to the ``|c_k|`` nearest points outside its
    cluster (all of them when fewer); ``ov = a / b`` when ``(b - a) / (b + a) < 0.4``, else 0.

    Examples:
        >>> overlap_sum(np.array([[0.0], [1.0], [1.5], [3.0]]), np.array([0, 0, 1, 1]), np.ones(4), 2)
        0.75
    """
    cw = np.bincount(idx, weights=w, minlength=k)
    total = 0.0
    step = rows_per_chunk(len(idx), x.shape[1])
    for c in np.unique(idx):  # a cluster's rows meet the same inside and outside rows
        own, outside = np.flatnonzero(idx == c), np.flatnonzero(idx != c)
        x_in, x_out, w_in, w_out = x[own], x[outside], w[own], w[outside]
        for start in range(0, len(own), step):
            rows = slice(start, start + step)
            a = pairwise_distances(x_in[rows], x_in) @ w_in / cw[c]
            dist = pairwise_distances(x_in[rows], x_out)
            # ties sort in any order: tied rows have the same distance, so the mean is the same
            order = np.argsort(dist, axis=1)
            b = mass_mean(np.take_along_axis(dist, order, axis=1), w_out[order], np.full(len(a), cw[c]))
            total += float(w_in[rows] @ _overlap(a, b))
    return total


def _overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = (b - a) / (b + a)
        ov = np.where(ratio < OVERLAP_THRESHOLD, a / b, 0.0)
    return np.where(a + b > 0, ov, 0.0)


def os_from(overlap: float, top: np.ndarray) -> float:
    """OS ``sum_i ov(x_i) / sum_k T_k`` (the SV compactness as denominator).

    Examples:
        >>> os_from(3.0, np.array([1.0, 2.0]))
        1.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(overlap) / np.sum(top))


def os_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """OS index (higher is better; Zalik and Zalik 2011 as in Arbelaitz et al. 2013, seed 004).

    ``sum_i ov(x_i) / sum_k T_k`` with the overlap ``ov`` of :func:`overlap_sum` and the SV
    compactness ``T_k``. Seed 004 prints ``a`` and ``b`` as ``1 / (|c_k| sum ...)``: a typo for
    ``(1 / |c_k|) sum ...`` (means of distances), corrected here. ``O(N^2)`` time.

    Examples:
        >>> round(os_index([[0.0], [1.0], [1.5], [3.0]], [0, 0, 1, 1]), 6)
        0.6
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not is_defined(k, w.sum()):
        return float("nan")
    centroids, _ = cluster_means(x, idx, w, k)
    top = top_share_means(distances_to_own(x, idx, centroids), idx, w, k)
    return os_from(overlap_sum(x, idx, w, k), top)
