"""S_Dbw (Halkidi and Vazirgiannis 2001, seed 004): scattering plus inter-cluster density.

The scattering is a ratio of per-feature variance norms (exact from per-cluster moments with
full scatter matrices); the density counts the weight within a radius of each centroid and of
the midpoint of every two centroids (:func:`sdbw_densities`, counted on the rows at hand).
:func:`s_dbw` is the exact in-memory index.

Examples:
    >>> X = [[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]]
    >>> round(s_dbw(X, [0, 0, 0, 1, 1, 1]), 6)
    0.025974
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..internal.distances import cluster_means, pairwise_distances, prepare_points
from .geometry import distances_to_own, is_defined


def _variances(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int, centroids: np.ndarray) -> np.ndarray:
    """Per-cluster, per-feature variances (divide by the weight), K x d."""
    sq = (x - centroids[idx]) ** 2
    cw = np.bincount(idx, weights=w, minlength=k)
    out = np.stack([np.bincount(idx, weights=w * sq[:, j], minlength=k) for j in range(x.shape[1])], axis=1)
    return out / cw[:, None]


def sdbw_radius(variances: np.ndarray) -> float:
    """``stdev(C) = sqrt(sum_k ||sigma(c_k)||) / K`` (Halkidi and Vazirgiannis 2001, seed 004).

    ``sigma(c_k)`` is the vector of the per-feature variances of cluster ``k``.

    Examples:
        >>> sdbw_radius(np.array([[3.0, 4.0], [0.0, 0.0]]))
        1.118033988749895
    """
    return float(np.sqrt(np.linalg.norm(variances, axis=1).sum()) / len(variances))


def sdbw_densities(
    x: np.ndarray, idx: np.ndarray, w: np.ndarray, centroids: np.ndarray, radius: float
) -> tuple[np.ndarray, np.ndarray]:
    """``den(c_k)`` (weight within ``radius`` of ``c_k``) and ``den(c_k, c_l)`` (of ``c_k u c_l``
    within ``radius`` of the midpoint of the two centroids).

    Examples:
        >>> den, pair = sdbw_densities(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1]),
        ...                            np.ones(4), np.array([[0.5], [2.5]]), 0.6)
        >>> den.tolist(), pair.tolist()
        ([2.0, 2.0], [[0.0, 2.0], [2.0, 0.0]])
    """
    k = len(centroids)
    mids = (centroids[:, None, :] + centroids[None, :, :]) / 2.0
    den = np.bincount(idx, weights=w * (distances_to_own(x, idx, centroids) <= radius), minlength=k)
    near = np.zeros((k, k))  # near[c, l]: weight of cluster c within radius of mid(c, l)
    order = np.argsort(idx, kind="stable")
    bounds = np.searchsorted(idx[order], np.arange(k + 1))
    for c in range(k):
        rows = order[bounds[c] : bounds[c + 1]]
        if len(rows):
            inside = pairwise_distances(x[rows], mids[c]) <= radius
            near[c] = w[rows] @ inside
    pair = near + near.T
    np.fill_diagonal(pair, 0.0)
    return den, pair


def s_dbw_from(variances: np.ndarray, total_variance: np.ndarray, den: np.ndarray, pair: np.ndarray) -> float:
    """S_Dbw = Scat + Dens_bw from per-cluster and global per-feature variances and densities.

    ``Scat = mean_k ||sigma(c_k)|| / ||sigma(X)||``;
    ``Dens_bw = 1 / (K (K - 1)) sum_{k != l} den(c_k, c_l) / max(den(c_k), den(c_l))``, a
    pair with no weight near either centroid counting 0 (a convention: the ratio is undefined;
    it keeps the sampled estimate finite when a sample sees no row near a centroid).

    Examples:
        >>> s_dbw_from(np.array([[1.0], [1.0]]), np.array([4.0]), np.array([2.0, 2.0]), np.array([[0.0, 1.0], [1.0, 0.0]]))
        0.75
    """
    k = len(den)
    norm_x = float(np.linalg.norm(total_variance))
    if norm_x == 0.0:
        return float("nan")
    scat = float(np.linalg.norm(variances, axis=1).mean()) / norm_x
    top = np.maximum(den[:, None], den[None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(top > 0, pair / top, 0.0)
    np.fill_diagonal(ratio, 0.0)
    return scat + float(ratio.sum()) / (k * (k - 1))


def s_dbw(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """S_Dbw index (lower is better; Halkidi and Vazirgiannis 2001, seed 004).

    Scattering (mean norm of the per-feature variance vectors of the clusters over that of the
    data) plus inter-cluster density (:func:`s_dbw_from`), with the radius
    ``stdev(C) = sqrt(sum_k ||sigma(c_k)||) / K`` of :func:`sdbw_radius` and a point counted
    near a centre when its distance is at most ``stdev(C)``. Variances divide by the weight.

    Examples:
        >>> X = [[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]]
        >>> round(s_dbw(X, [0, 0, 0, 1, 1, 1]), 6)
        0.025974
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not is_defined(k, w.sum()):
        return float("nan")
    centroids, _ = cluster_means(x, idx, w, k)
    var_k = _variances(x, idx, w, k, centroids)
    grand = (w[:, None] * x).sum(axis=0) / w.sum()
    var_x = (w[:, None] * (x - grand) ** 2).sum(axis=0) / w.sum()
    den, pair = sdbw_densities(x, idx, w, centroids, sdbw_radius(var_k))
    return s_dbw_from(var_k, var_x, den, pair)
