"""The point-symmetry family (Bandyopadhyay and Saha 2008, seed 004): Sym, SymDB, SymD, Sym33.

A row's point-symmetry distance to its centroid (:func:`point_symmetry_distances`) is its
distance times how far the row's mirror image through the centroid is from the cluster's own
points; the four indices put it in place of the spread or diameter of classic indices
(:func:`sym_from`, Davies-Bouldin, :func:`dunn_from` with :func:`single_linkage` or
:func:`mean_linkage` separations). Exact in-memory functions: :func:`sym_index`,
:func:`sym_db`, :func:`sym_dunn`, :func:`sym33`.

Examples:
    >>> X, labels = [[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]
    >>> round(sym_index(X, labels), 6), round(sym33(X, labels), 6)
    (0.567568, 2.25)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..internal.distances import cluster_means, pairwise_distances, prepare_points
from ..internal.functions import davies_bouldin_from
from .geometry import distances_to_own, is_defined, mass_mean, per_cluster_mean, rows_per_chunk

#: Point symmetry: the mass of nearest neighbours of the reflected point (Bandyopadhyay and Saha).
SYMMETRY_NEIGHBOURS = 2.0


def point_symmetry_distances(
    x: np.ndarray, idx: np.ndarray, w: np.ndarray, centroids: np.ndarray
) -> np.ndarray:
    """``d*_ps(x_i, c_k)`` of every row: ``||x_i - c_k||`` times the mean distance from the
    reflected point ``2 c_k - x_i`` to its 2 nearest points of cluster ``k``.

    The neighbours are searched among the cluster's own points (the point itself included);
    "2 nearest" is a mass of 2 units of weight (a row of weight 3 counts twice; with less than
    2 in the cluster, all of it). Bandyopadhyay and Saha 2008, as in Arbelaitz et al. 2013.

    Examples:
        >>> point_symmetry_distances(np.array([[0.0], [2.0], [4.0]]), np.zeros(3, dtype=np.int64),
        ...                          np.ones(3), np.array([[2.0]])).tolist()
        [2.0, 0.0, 2.0]
    """
    k = len(centroids)
    out = np.zeros(len(x))
    order = np.argsort(idx, kind="stable")
    bounds = np.searchsorted(idx[order], np.arange(k + 1))
    for c in range(k):
        rows = order[bounds[c] : bounds[c + 1]]
        if not len(rows):
            continue
        members, wm = x[rows], w[rows]
        tol = 1e-12 * max(float(np.abs(members).max()), float(np.abs(centroids[c]).max()))
        mass = min(SYMMETRY_NEIGHBOURS, float(wm.sum()))
        # the t nearest rows always hold at least `mass` (the t smallest weights do)
        t = min(len(rows), int(np.searchsorted(np.cumsum(np.sort(wm)), mass * (1 - 1e-12))) + 1)
        step = rows_per_chunk(len(rows), x.shape[1])
        for start in range(0, len(rows), step):
            part = rows[start : start + step]
            reflected = 2.0 * centroids[c] - x[part]
            dist = pairwise_distances(reflected, members)
            dist[dist <= tol] = 0.0  # a mirror image on a member is 0, not rounding noise
            near = np.argpartition(dist, t - 1, axis=1)[:, :t] if t < len(rows) else np.argsort(dist, axis=1)
            d_n = np.take_along_axis(dist, near, axis=1)
            srt = np.argsort(d_n, axis=1, kind="stable")
            d_n, w_n = np.take_along_axis(d_n, srt, axis=1), wm[np.take_along_axis(near, srt, axis=1)]
            knn = mass_mean(d_n, w_n, np.full(len(part), mass))
            out[part] = knn * distances_to_own(x[part], np.full(len(part), c), centroids)
    return out


def symmetry_distances(X: Any, labels: Any, sample_weight: Any = None) -> np.ndarray:
    """:func:`point_symmetry_distances` of every row of an in-memory batch (weight-0 rows dropped).

    Examples:
        >>> symmetry_distances([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]).round(4).tolist()
        [2.5, 1.0, 2.7222, 1.0, 1.0]
    """
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not k:
        return np.empty(0)
    centroids, _ = cluster_means(x, idx, w, k)
    return point_symmetry_distances(x, idx, w, centroids)


def sym_from(centroids: np.ndarray, dps_total: float) -> float:
    """Sym ``max_{k,l} ||c_k - c_l|| / (K sum_i d*_ps(x_i))``.

    Examples:
        >>> sym_from(np.array([[0.0], [6.0]]), 3.0)
        1.0
    """
    dist = pairwise_distances(centroids, centroids)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(dist.max()) / (len(centroids) * dps_total))


def dunn_from(separation: np.ndarray, diameter: np.ndarray) -> float:
    """Dunn-type ratio ``min_{k != l} delta(c_k, c_l) / max_k Delta(c_k)`` (diagonal ignored).

    Examples:
        >>> dunn_from(np.array([[0.0, 4.0], [4.0, 0.0]]), np.array([1.0, 2.0]))
        2.0
    """
    sep = separation.astype(float).copy()
    np.fill_diagonal(sep, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(sep.min()) / np.max(diameter))


def single_linkage(x: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """``min`` distance between the points of every two clusters (K x K, +inf when one is empty).

    Examples:
        >>> single_linkage(np.array([[0.0], [1.0], [4.0]]), np.array([0, 0, 1]), 2).tolist()
        [[0.0, 3.0], [3.0, 0.0]]
    """
    out = np.full((k, k), np.inf)
    order = np.argsort(idx, kind="stable")
    xs, ids = x[order], idx[order]
    starts = np.searchsorted(ids, np.arange(k))
    present = np.flatnonzero(np.bincount(ids, minlength=k))
    step = rows_per_chunk(len(x), x.shape[1])
    for start in range(0, len(xs), step):
        dist = pairwise_distances(xs[start : start + step], xs)
        mins = np.minimum.reduceat(dist, starts[present], axis=1)  # rows x present clusters
        rows_c = ids[start : start + step]
        for c in np.unique(rows_c):
            out[c, present] = np.minimum(out[c, present], mins[rows_c == c].min(axis=0))
    return out


def mean_linkage(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Weighted mean distance between the points of every two clusters (``delta^3``, K x K).

    Examples:
        >>> mean_linkage(np.array([[0.0], [2.0], [5.0]]), np.array([0, 0, 1]), np.ones(3), 2).tolist()
        [[1.0, 4.0], [4.0, 0.0]]
    """
    n = len(x)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), idx] = w
    sums = np.zeros((k, k))
    step = rows_per_chunk(n, x.shape[1])
    for start in range(0, n, step):
        rows = slice(start, start + step)
        sums += onehot[rows].T @ (pairwise_distances(x[rows], x) @ onehot)
    cw = onehot.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / np.outer(cw, cw)


def _sym_parts(X: Any, labels: Any, sample_weight: Any):
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if not is_defined(k, w.sum()):
        return None
    centroids, _ = cluster_means(x, idx, w, k)
    return x, idx, w, k, centroids, point_symmetry_distances(x, idx, w, centroids)


def sym_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Sym index (higher is better; Bandyopadhyay and Saha 2008, seed 004).

    ``max_{k,l} ||c_k - c_l|| / (K sum_i d*_ps(x_i, c_k))`` with the point-symmetry distance of
    :func:`point_symmetry_distances`.

    Examples:
        >>> round(sym_index([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]), 6)
        0.567568
    """
    parts = _sym_parts(X, labels, sample_weight)
    if parts is None:
        return float("nan")
    _, _, w, _, centroids, dps = parts
    return sym_from(centroids, float(np.sum(w * dps)))


def sym_db(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """SymDB (lower is better; seed 004): Davies-Bouldin with ``S_k = mean_{x in c_k} d*_ps(x, c_k)``.

    Seed 004 prints ``S(c_k) = 1 / (|c_k| sum d*_ps)``: a typo for ``(1 / |c_k|) sum d*_ps``.

    Examples:
        >>> round(sym_db([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]), 6)
        0.329365
    """
    parts = _sym_parts(X, labels, sample_weight)
    if parts is None:
        return float("nan")
    _, idx, w, k, centroids, dps = parts
    return davies_bouldin_from(centroids, per_cluster_mean(dps, idx, w, k))


def sym_dunn(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """SymD (higher is better; seed 004): Dunn's index with ``Delta(c_k) = max_{x in c_k} d*_ps(x, c_k)``.

    Separation: the smallest distance between points of two clusters (Dunn's ``delta``).

    Examples:
        >>> round(sym_dunn([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]), 6)
        2.204082
    """
    parts = _sym_parts(X, labels, sample_weight)
    if parts is None:
        return float("nan")
    x, idx, _, k, _, dps = parts
    return dunn_from(single_linkage(x, idx, k), dps)


def sym33(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Sym33 (higher is better; seed 004): gD33 with ``Delta(c_k) = 2 mean_{x in c_k} d*_ps(x, c_k)``.

    Separation: the mean distance between the points of two clusters (``delta^3``). Seed 004
    prints ``2 / (|c_k| sum d*_ps)``: a typo for ``(2 / |c_k|) sum d*_ps``.

    Examples:
        >>> round(sym33([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]), 6)
        2.25
    """
    parts = _sym_parts(X, labels, sample_weight)
    if parts is None:
        return float("nan")
    x, idx, w, k, _, dps = parts
    return dunn_from(mean_linkage(x, idx, w, k), 2.0 * per_cluster_mean(dps, idx, w, k))
