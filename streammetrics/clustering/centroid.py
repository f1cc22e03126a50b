"""Centroid-based internal indices (seed 004): exact in-memory functions and the two-pass state.

In-memory functions (Euclidean distances, frequency weights: an integer weight ``k`` equals
``k`` copies of the row, rows of weight 0 are dropped; NaN unless ``2 <= K <= N - 1`` with ``N``
the total weight, as :func:`~streammetrics.clustering.internal.davies_bouldin_score`):

* :func:`davies_bouldin_star` (DB*), :func:`score_function` (SF), :func:`s_dbw` (S_Dbw),
  :func:`sv_index` (SV), :func:`os_index` (OS);
* the point-symmetry family :func:`sym_index`, :func:`sym_db`, :func:`sym_dunn`, :func:`sym33`
  on :func:`symmetry_distances`.

Each is a formula on a few *components* (centroids, per-cluster spreads, densities, ...) that the
streaming metrics of :mod:`~streammetrics.clustering.centroid_metrics` also evaluate with exact
centroids on a mergeable sample. The exact two-pass mode lives here too: :class:`Centroids`
(fixed cluster centres, JSON-able), :func:`cluster_centroids` (take them from any state or
metric with exact centroids) and :class:`FixedCentroidSums` (per-cluster sums of distances to
the fixed centroids: exact, mergeable, revertible).

Examples:
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 2.0], [6.0, 0.0], [6.0, 2.0]])
    >>> labels = [0, 0, 1, 1]
    >>> davies_bouldin_star(X, labels), sv_index(X, labels)
    (0.3333333333333333, 6.0)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core.labels import LabelSet
from .._core.state import State, require_keys
from ..errors import InputError, StateError
from .base import validate_points
from .internal import _centroids, _prepare, davies_bouldin_from, pairwise_distances

#: Share of each cluster's farthest points in the SV and OS compactness (Zalik and Zalik 2011).
TOP_SHARE = 0.1
#: OS: a point overlaps when ``(b - a) / (b + a)`` is below this (Zalik and Zalik 2011).
OVERLAP_THRESHOLD = 0.4
#: Point symmetry: the mass of nearest neighbours of the reflected point (Bandyopadhyay and Saha).
SYMMETRY_NEIGHBOURS = 2.0
_CHUNK = 1 << 21  # distance-matrix entries per block of rows


# ---------------------------------------------------------------------- shared pieces
def _rows_per_chunk(n_cols: int, n_features: int = 1) -> int:
    return max(1, _CHUNK // max(1, n_cols * max(1, n_features // 4)))


def _defined(k: int, total: float) -> bool:
    return 2 <= k <= total - 1


def _distances_to_own(x: np.ndarray, idx: np.ndarray, centroids: np.ndarray) -> np.ndarray:
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


def _per_cluster_mean(values: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Weighted mean of ``values`` in each cluster (NaN for a cluster of weight 0)."""
    num = np.bincount(idx, weights=w * values, minlength=k)
    den = np.bincount(idx, weights=w, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _mass_mean(d: np.ndarray, w: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Row-wise mean of the first ``mass`` units of weight of the sorted values ``d`` (m x t).

    The row that crosses the mass counts for the part of its weight that fits, so a weight
    ``k`` equals ``k`` copies; when a row holds less than ``mass`` in all, the mean is over all.
    """
    before = np.cumsum(w, axis=1) - w
    take = np.clip(mass[:, None] - before, 0.0, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("ij,ij->i", take, d) / take.sum(axis=1)


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
            out[c] = _mass_mean(d_s[None, lo:hi], w_s[None, lo:hi], np.array([share * total]))[0]
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
    centroids, cw = _centroids(x, idx, w, k)
    return centroids, cw, _per_cluster_mean(_distances_to_own(x, idx, centroids), idx, w, k)


def davies_bouldin_star(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """DB* index (lower is better; seed 004 and Kim and Ramakrishna 2005).

    The Davies-Bouldin index with the largest spread sum and the smallest centroid distance of
    each cluster taken separately: ``mean_k max_l(S_k + S_l) / min_l ||c_k - c_l||``.

    Examples:
        >>> davies_bouldin_star([[0.0], [2.0], [10.0], [12.0], [30.0], [32.0]], [0, 0, 1, 1, 2, 2])
        0.16666666666666666
    """
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not _defined(k, w.sum()):
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
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not _defined(k, w.sum()):
        return float("nan")
    centroids, cw, spread = _spreads(x, idx, w, k)
    return score_function_from(centroids, cw, spread)


# ---------------------------------------------------------------------- S_Dbw
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
    den = np.bincount(idx, weights=w * (_distances_to_own(x, idx, centroids) <= radius), minlength=k)
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
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not _defined(k, w.sum()):
        return float("nan")
    centroids, _ = _centroids(x, idx, w, k)
    var_k = _variances(x, idx, w, k, centroids)
    grand = (w[:, None] * x).sum(axis=0) / w.sum()
    var_x = (w[:, None] * (x - grand) ** 2).sum(axis=0) / w.sum()
    den, pair = sdbw_densities(x, idx, w, centroids, sdbw_radius(var_k))
    return s_dbw_from(var_k, var_x, den, pair)


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
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not _defined(k, w.sum()):
        return float("nan")
    centroids, _ = _centroids(x, idx, w, k)
    return sv_from(centroids, top_share_means(_distances_to_own(x, idx, centroids), idx, w, k))


def overlap_sum(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> float:
    """``sum_i w_i ov(x_i)`` of the OS index, exact (``O(N^2)`` time, blocks of rows).

    ``a(x)``: mean distance to the points of its cluster (the point itself included, divided by
    ``|c_k|`` as the paper); ``b(x)``: mean distance to the ``|c_k|`` nearest points outside its
    cluster (all of them when fewer); ``ov = a / b`` when ``(b - a) / (b + a) < 0.4``, else 0.

    Examples:
        >>> overlap_sum(np.array([[0.0], [1.0], [1.5], [3.0]]), np.array([0, 0, 1, 1]), np.ones(4), 2)
        0.75
    """
    n = len(x)
    cw = np.bincount(idx, weights=w, minlength=k)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), idx] = w
    total = 0.0
    step = _rows_per_chunk(n, x.shape[1])
    for start in range(0, n, step):
        rows = slice(start, start + step)
        dist = pairwise_distances(x[rows], x)
        own = idx[rows]
        a = (dist @ onehot)[np.arange(len(own)), own] / cw[own]
        order = np.argsort(np.where(idx[None, :] == own[:, None], np.inf, dist), axis=1, kind="stable")
        d_s = np.take_along_axis(dist, order, axis=1)
        w_s = np.where(idx[order] == own[:, None], 0.0, w[order])
        b = _mass_mean(d_s, w_s, cw[own])
        total += float(np.sum(w[rows] * _overlap(a, b)))
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
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not _defined(k, w.sum()):
        return float("nan")
    centroids, _ = _centroids(x, idx, w, k)
    top = top_share_means(_distances_to_own(x, idx, centroids), idx, w, k)
    return os_from(overlap_sum(x, idx, w, k), top)


# ---------------------------------------------------------------------- the Sym family
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
        step = _rows_per_chunk(len(rows), x.shape[1])
        for start in range(0, len(rows), step):
            part = rows[start : start + step]
            reflected = 2.0 * centroids[c] - x[part]
            dist = pairwise_distances(reflected, members)
            dist[dist <= tol] = 0.0  # a mirror image on a member is 0, not rounding noise
            near = np.argpartition(dist, t - 1, axis=1)[:, :t] if t < len(rows) else np.argsort(dist, axis=1)
            d_n = np.take_along_axis(dist, near, axis=1)
            srt = np.argsort(d_n, axis=1, kind="stable")
            d_n, w_n = np.take_along_axis(d_n, srt, axis=1), wm[np.take_along_axis(near, srt, axis=1)]
            knn = _mass_mean(d_n, w_n, np.full(len(part), mass))
            out[part] = knn * _distances_to_own(x[part], np.full(len(part), c), centroids)
    return out


def symmetry_distances(X: Any, labels: Any, sample_weight: Any = None) -> np.ndarray:
    """:func:`point_symmetry_distances` of every row of an in-memory batch (weight-0 rows dropped).

    Examples:
        >>> symmetry_distances([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]).round(4).tolist()
        [2.5, 1.0, 2.7222, 1.0, 1.0]
    """
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not k:
        return np.empty(0)
    centroids, _ = _centroids(x, idx, w, k)
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
    step = _rows_per_chunk(len(x), x.shape[1])
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
    step = _rows_per_chunk(n, x.shape[1])
    for start in range(0, n, step):
        rows = slice(start, start + step)
        sums += onehot[rows].T @ (pairwise_distances(x[rows], x) @ onehot)
    cw = onehot.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / np.outer(cw, cw)


def _sym_parts(X: Any, labels: Any, sample_weight: Any):
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if not _defined(k, w.sum()):
        return None
    centroids, _ = _centroids(x, idx, w, k)
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
    return davies_bouldin_from(centroids, _per_cluster_mean(dps, idx, w, k))


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
    return dunn_from(mean_linkage(x, idx, w, k), 2.0 * _per_cluster_mean(dps, idx, w, k))


# ---------------------------------------------------------------------- two-pass: fixed centroids
class Centroids(NamedTuple):
    """Fixed cluster centres: labels (ints or strings) and a ``K x d`` array of means.

    Examples:
        >>> c = Centroids([0, 1], np.array([[0.0, 0.0], [1.0, 2.0]]))
        >>> c.to_config()
        {'labels': [0, 1], 'means': [[0.0, 0.0], [1.0, 2.0]]}
    """

    labels: list[Any]
    means: np.ndarray

    @property
    def n_features(self) -> int:
        return int(self.means.shape[1])

    def to_config(self) -> dict[str, Any]:
        """The JSON-able form (part of a two-pass metric's configuration)."""
        return {"labels": list(self.labels), "means": self.means.tolist()}


def cluster_centroids(source: Any) -> Centroids:
    """Exact centroids of ``source``: pass 1 of the two-pass mode.

    ``source`` may be a metric holding exact per-cluster moments (``sm.CalinskiHarabasz()``,
    ``sm.WithinClusterSS()``, or any sampled internal index such as ``sm.Silhouette()``), a
    :class:`~streammetrics.ClusterMoments` state, a two-pass metric (its fixed centroids), a
    :class:`Centroids`, a ``(labels, means)`` pair or the ``{"labels": ..., "means": ...}``
    dict of a configuration. Raises ``ValueError`` naming ``centroids`` otherwise.

    Examples:
        >>> import streammetrics as sm
        >>> pass1 = sm.CalinskiHarabasz().update([[0.0], [2.0], [10.0]], ["a", "a", "b"])
        >>> c = cluster_centroids(pass1)
        >>> c.labels, c.means.tolist()
        (['a', 'b'], [[1.0], [10.0]])
    """
    from .moments import ClusterMoments

    seen = source
    for _ in range(4):  # metric -> state -> moments
        if isinstance(seen, Centroids):
            return _checked_centroids(seen.labels, seen.means)
        if isinstance(seen, ClusterMoments):
            return _checked_centroids(seen.labels.to_list(), seen.mean)
        if isinstance(seen, FixedCentroidSums):
            return seen.centroids
        if getattr(seen, "centroids", None) is not None and isinstance(seen.centroids, Centroids):
            return seen.centroids
        if isinstance(seen, dict):
            if set(seen) != {"labels", "means"}:
                break
            return _checked_centroids(seen["labels"], seen["means"])
        if isinstance(seen, (tuple, list)) and len(seen) == 2:
            return _checked_centroids(seen[0], seen[1])
        if hasattr(seen, "moments"):
            seen = seen.moments
        elif hasattr(seen, "state"):
            seen = seen.state
        else:
            break
    raise ValueError(
        "centroids: expected a metric or state with exact centroids (e.g. sm.CalinskiHarabasz()), "
        f"Centroids, (labels, means) or {{'labels', 'means'}}, found {type(source).__name__}"
    )


def _checked_centroids(labels: Any, means: Any) -> Centroids:
    try:
        ls = LabelSet(np.asarray(list(labels)) if not isinstance(labels, np.ndarray) else labels)
    except (ValueError, TypeError) as err:
        raise ValueError(f"centroids: {err}") from None
    try:
        arr = np.asarray(means, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"centroids: expected numeric means, found {means!r}") from None
    k = len(ls)
    if k == 0:
        raise ValueError("centroids: expected at least one cluster, found none (an empty pass 1?)")
    if arr.ndim != 2 or arr.shape[0] != k or arr.shape[1] == 0:
        raise ValueError(f"centroids: expected means of shape ({k}, n_features), found {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError("centroids: expected finite means, found NaN or infinite values")
    return Centroids([v.item() if hasattr(v, "item") else v for v in ls.values], arr + 0.0)


class FixedCentroidSums(State):
    """Per-cluster row count, weight and sum of weighted distances to fixed centroids (exact).

    With ``silhouette=True`` also the sum of the weighted simplified silhouettes ``s_i`` (own
    centroid against the nearest other fixed centroid). Mergeable (sums), revertible, and its
    configuration is the centroids: states of different centroids do not merge.

    Examples:
        >>> s = FixedCentroidSums(Centroids([0, 1], np.array([[0.0], [10.0]])))
        >>> s.add(np.array([[1.0], [3.0], [10.0]]), np.array([0, 0, 1]), None)
        >>> s.count.tolist(), s.weight.tolist(), s.dist_sum.tolist()
        ([2, 1], [2.0, 1.0], [4.0, 0.0])
    """

    revertible = True

    def __init__(self, centroids: Centroids, silhouette: bool = False) -> None:
        self.centroids = centroids
        self.silhouette = bool(silhouette)
        self.label_set = LabelSet(np.asarray(centroids.labels), fixed=True)
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"centroids": self.centroids.to_config(), "silhouette": self.silhouette}

    def reset(self) -> None:
        k = len(self.centroids.labels)
        self.count = np.zeros(k, dtype=np.int64)
        self.weight = np.zeros(k)
        self.dist_sum = np.zeros(k)
        self.sil_sum = np.zeros(k)
        self._n = 0

    @property
    def n_samples(self) -> int:
        return self._n

    def encode(self, labels: np.ndarray) -> np.ndarray:
        """Indices of ``labels`` among the fixed centroids (raises :class:`InputError`)."""
        try:
            idx, _ = self.label_set.encode(labels, "labels")
        except InputError as err:
            raise InputError(f"{err} (the labels of the fixed centroids)") from None
        return idx

    def add(self, x: np.ndarray, idx: np.ndarray, w: np.ndarray | None, *, sign: int = 1) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) a validated batch (labels already encoded)."""
        k, means = len(self.centroids.labels), self.centroids.means
        ww = np.ones(len(x)) if w is None else w
        counted = ww > 0
        count = np.bincount(idx[counted], minlength=k).astype(np.int64)
        weight = np.bincount(idx, weights=ww, minlength=k)
        dist = _distances_to_own(x, idx, means)
        if self.silhouette:
            sil = simplified_silhouettes(x, idx, means)
            sil_sum = np.bincount(idx, weights=ww * sil, minlength=k)
        else:
            sil_sum = np.zeros(k)
        dist_sum = np.bincount(idx, weights=ww * dist, minlength=k)
        new_count = self.count + sign * count
        if (new_count < 0).any():
            raise InputError(
                "labels: reverting rows that were never added (a cluster would hold fewer than 0 rows)"
            )
        empty = new_count == 0
        self.weight = np.where(empty, 0.0, self.weight + sign * weight)
        self.dist_sum = np.where(empty, 0.0, self.dist_sum + sign * dist_sum)
        self.sil_sum = np.where(empty, 0.0, self.sil_sum + sign * sil_sum)
        self.count = new_count
        self._n += sign * len(x)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, FixedCentroidSums)
        self.count = self.count + other.count
        self.weight = self.weight + other.weight
        self.dist_sum = self.dist_sum + other.dist_sum
        self.sil_sum = self.sil_sum + other.sil_sum
        self._n += other._n

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "weight": self.weight,
            "dist_sum": self.dist_sum,
            "sil_sum": self.sil_sum,
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "FixedCentroidSums state"
        require_keys(data, {"count", "weight", "dist_sum", "sil_sum", "n_samples"}, where)
        n = data["n_samples"]
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise StateError(f"{where}: n_samples must be a non-negative int, found {n!r}")
        k = len(self.centroids.labels)
        arrays = {}
        for name in ("count", "weight", "dist_sum", "sil_sum"):
            arr = np.asarray(data[name])
            kind = "i" if name == "count" else "f"
            if arr.dtype.kind != kind or arr.shape != (k,):
                raise StateError(
                    f"{where}: {name} of dtype {arr.dtype} and shape {arr.shape}, expected ({k},)"
                )
            if kind == "f" and not np.isfinite(arr).all():
                raise StateError(f"{where}: {name} holds non-finite values")
            arrays[name] = arr.astype(np.int64 if kind == "i" else np.float64)
        self.count, self.weight, self.dist_sum, self.sil_sum = (
            arrays["count"],
            arrays["weight"],
            arrays["dist_sum"],
            arrays["sil_sum"],
        )
        self._n = n

    def check(self) -> None:
        where = "FixedCentroidSums state"
        if (self.count < 0).any() or (self.weight < 0).any() or (self.dist_sum < 0).any():
            raise StateError(f"{where}: negative counts, weights or distance sums")
        if int(self.count.sum()) > self._n:
            raise StateError(f"{where}: more rows in clusters than n_samples={self._n}")

    # ------------------------------------------------------------------ views for formulas
    def present(self) -> np.ndarray:
        """Clusters holding weight in this pass."""
        return self.weight > 0

    def spreads(self) -> np.ndarray:
        """``S_k``: mean distance to the fixed centroid of the clusters present."""
        p = self.present()
        return self.dist_sum[p] / self.weight[p]

    def defined(self) -> bool:
        """Whether ``2 <= K <= N - 1`` for the clusters present in this pass."""
        return _defined(int(self.present().sum()), float(self.weight.sum()))


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
    step = _rows_per_chunk(len(centroids), 4)
    for start in range(0, len(x), step):
        part = slice(start, start + step)
        # ||x - c||^2 up to the row constant ||x||^2: enough to rank the centroids
        score = sq_c[None, :] - 2.0 * ((x[part] - shift) @ cc_t)
        score[rows[: score.shape[0]], idx[part]] = np.inf
        nearest[part] = score.argmin(axis=1)
    a = _distances_to_own(x, idx, centroids)
    b = _distances_to_own(x, nearest, centroids)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (b - a) / np.maximum(a, b)
    return np.where(np.isfinite(s), s, 0.0)


def _nan_if_undefined(fn):
    def wrapped(state: FixedCentroidSums) -> float:
        return fn(state) if state.defined() else float("nan")

    wrapped.__doc__ = fn.__doc__
    wrapped.__name__ = fn.__name__
    return wrapped


@_nan_if_undefined
def fixed_davies_bouldin(state: FixedCentroidSums) -> float:
    """Davies-Bouldin at fixed centroids over the clusters present (exact two-pass value)."""
    return davies_bouldin_from(state.centroids.means[state.present()], state.spreads())


@_nan_if_undefined
def fixed_davies_bouldin_star(state: FixedCentroidSums) -> float:
    """DB* at fixed centroids over the clusters present (exact two-pass value)."""
    return davies_bouldin_star_from(state.centroids.means[state.present()], state.spreads())


@_nan_if_undefined
def fixed_score_function(state: FixedCentroidSums) -> float:
    """Score function at fixed centroids over the clusters present (exact two-pass value)."""
    p = state.present()
    return score_function_from(state.centroids.means[p], state.weight[p], state.spreads())


@_nan_if_undefined
def fixed_simplified_silhouette(state: FixedCentroidSums) -> float:
    """Weighted mean simplified silhouette at fixed centroids (exact two-pass value)."""
    return float(state.sil_sum.sum() / state.weight.sum())


class TwoPassMixin:
    """The exact two-pass mode of a sampled centroid index: ``Cls(centroids=pass1)``.

    Without ``centroids`` the class behaves as before (a :class:`SampledMetric`). With them
    (anything :func:`cluster_centroids` accepts), its state is a :class:`FixedCentroidSums`
    over those centroids, which belong to the configuration (JSON-able labels and nested
    lists): merging metrics of different centroids raises :class:`~streammetrics.MergeError`.
    Labels outside the fixed ones, or a feature count other than theirs, raise
    :class:`~streammetrics.InputError`. The value is exact (``compute_with_error()`` reports a
    standard error of 0), and ``revert`` works.
    """

    centroids: Centroids | None
    #: whether pass 2 needs the simplified silhouette sums
    _needs_silhouette = False

    def __init__(self, sample_size: int = 1000, seed: int = 0, centroids: Any = None) -> None:
        self.centroids = None if centroids is None else cluster_centroids(centroids)
        super().__init__(sample_size=sample_size, seed=seed)  # type: ignore[call-arg]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()  # type: ignore[misc]
        if self.centroids is not None:
            config["centroids"] = self.centroids.to_config()
        return config

    def _make_state(self) -> Any:
        if self.centroids is None:
            return super()._make_state()  # type: ignore[misc]
        return FixedCentroidSums(self.centroids, silhouette=self._needs_silhouette)

    def _validate(self, X: Any, labels: Any, sample_weight: Any = None) -> Any:
        if self.centroids is None:
            return super()._validate(X, labels, sample_weight)  # type: ignore[misc]
        x, lab, w = validate_points(X, labels, sample_weight, None)
        if x.shape[1] != self.centroids.n_features:
            raise InputError(
                f"X: expected {self.centroids.n_features} features (those of the fixed centroids), "
                f"found {x.shape[1]}"
            )
        return x, self._state.encode(lab), w  # type: ignore[attr-defined]

    def _apply(self, state: Any, batch: Any) -> None:
        super()._apply(state, batch)  # type: ignore[misc]

    def _unapply(self, state: Any, batch: Any) -> None:
        if self.centroids is None or batch is None:
            super()._unapply(state, batch)  # type: ignore[misc]
        state.add(*batch, sign=-1)

    def _is_empty(self, state: Any) -> bool:
        if self.centroids is None:
            return super()._is_empty(state)  # type: ignore[misc]
        return not state.present().any()

    def _formula(self, state: Any) -> float:
        if self.centroids is None:
            return super()._formula(state)  # type: ignore[misc]
        return self._fixed_formula(state)

    def _fixed_formula(self, state: FixedCentroidSums) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def compute_with_error(self) -> Any:
        """The value with its standard error (exactly 0 in the two-pass mode)."""
        if self.centroids is None:
            return super().compute_with_error()  # type: ignore[misc]
        from .internal_metrics import Estimate

        value = self.compute()  # type: ignore[attr-defined]
        n = self.n_samples  # type: ignore[attr-defined]
        return Estimate(value, 0.0 if not np.isnan(value) else float("nan"), True, n, float(n))


__all__ = [
    "Centroids",
    "FixedCentroidSums",
    "TwoPassMixin",
    "cluster_centroids",
    "davies_bouldin_star",
    "davies_bouldin_star_from",
    "dunn_from",
    "mean_linkage",
    "os_from",
    "os_index",
    "overlap_sum",
    "point_symmetry_distances",
    "s_dbw",
    "s_dbw_from",
    "score_function",
    "score_function_from",
    "sdbw_densities",
    "sdbw_radius",
    "simplified_silhouettes",
    "single_linkage",
    "sv_from",
    "sv_index",
    "sym33",
    "sym_db",
    "sym_dunn",
    "sym_from",
    "sym_index",
    "symmetry_distances",
    "top_share_means",
]
