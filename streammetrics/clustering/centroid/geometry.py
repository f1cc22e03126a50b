"""Rows against centroids: the shared pieces of the centroid-based indices.

Distances of rows to their own centroid (:func:`distances_to_own`, with rounding noise snapped
to 0 so that degenerate clusters give exact zeros), per-cluster weighted means, the mean of the
first units of weight of sorted values (:func:`mass_mean`: a weight ``k`` counts as ``k`` rows,
a boundary row for the part of its weight that fits) and the simplified silhouette of rows
against centroids (:func:`simplified_silhouettes`). Work is done in blocks of rows so that no
distance matrix exceeds a few million entries.
"""

from __future__ import annotations

import numpy as np

_CHUNK = 1 << 21  # distance-matrix entries per block of rows


def rows_per_chunk(n_cols: int, n_features: int = 1) -> int:
    """Rows per block when each row meets ``n_cols`` others in ``n_features`` dimensions."""
    return max(1, _CHUNK // max(1, n_cols * max(1, n_features // 4)))


def is_defined(k: int, total: float) -> bool:
    """Whether a distance index is defined: ``2 <= K <= N - 1`` (``N`` the total weight)."""
    return 2 <= k <= total - 1


def distances_to_own(x: np.ndarray, idx: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Distance of every row to its centroid; rounding noise (a row alone at its centroid, whose
    mean carries a few ulps of error) is snapped to 0 so that degenerate clusters give exact 0s."""
    own = np.take(centroids, idx, axis=0)
    diff = np.subtract(x, own, out=own)
    dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    if len(x):
        # a row's scale is at most max|c| + its distance: test exactly only the rows that may pass
        cand = np.flatnonzero(dist <= 1.000001e-12 * float(np.abs(centroids).max()))
        if cand.size:
            own = np.take(centroids, idx[cand], axis=0)
            x = x[cand]
            scale = np.maximum(np.abs(x).max(axis=1), np.abs(own).max(axis=1))
            dist[cand[dist[cand] <= 1e-12 * scale]] = 0.0
    return dist


def per_cluster_mean(values: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Weighted mean of ``values`` in each cluster (NaN for a cluster of weight 0)."""
    num = np.bincount(idx, weights=w * values, minlength=k)
    den = np.bincount(idx, weights=w, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def mass_mean(d: np.ndarray, w: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Row-wise mean of the first ``mass`` units of weight of the sorted values ``d`` (m x t).

    The row that crosses the mass counts for the part of its weight that fits, so a weight
    ``k`` equals ``k`` copies; when a row holds less than ``mass`` in all, the mean is over all.
    """
    before = np.cumsum(w, axis=1) - w
    take = np.clip(mass[:, None] - before, 0.0, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("ij,ij->i", take, d) / take.sum(axis=1)


def simplified_silhouettes(x: np.ndarray, idx: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Simplified silhouette of every row against ``centroids`` (0 where ``a = b = 0``).

    ``a`` is the distance to the row's centroid, ``b`` to the nearest other one. The nearest
    other centroid is found with one matrix product (on data centred at the centroids' mean);
    both distances are then computed directly, from coordinate differences.

    Examples:
        >>> simplified_silhouettes(np.array([[1.0]]), np.array([0]), np.array([[0.0], [4.0]])).tolist()
        [0.6666666666666666]
    """
    if len(centroids) < 2 or not len(x):
        return np.zeros(len(x))
    shift = centroids.mean(axis=0)
    cc = centroids - shift
    sq_c = np.einsum("ij,ij->i", cc, cc)
    cc_t = np.ascontiguousarray(cc.T)  # a transposed view takes a slow BLAS path
    rows = np.arange(len(x))
    nearest = np.empty(len(x), dtype=np.int64)
    step = rows_per_chunk(len(centroids), 4)
    for start in range(0, len(x), step):
        part = slice(start, start + step)
        # ||x - c||^2 up to the row constant ||x||^2: enough to rank the centroids
        score = sq_c[None, :] - 2.0 * ((x[part] - shift) @ cc_t)
        score[rows[: score.shape[0]], idx[part]] = np.inf
        nearest[part] = score.argmin(axis=1)
    a = distances_to_own(x, idx, centroids)
    b = distances_to_own(x, nearest, centroids)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (b - a) / np.maximum(a, b)
    return np.where(np.isfinite(s), s, 0.0)
