"""Pairwise-distance internal clustering indices of seed 004, exact on an in-memory batch.

Dunn and the generalized Dunn family (Bezdek and Pal 1998), the C-index (Hubert and Levin
1976), the Gamma index (Baker and Hubert 1975, as in Arbelaitz et al. 2013), the normalized
Hubert Γ statistic, COP (Gurrutxaga et al. 2010) and CS (Chou, Su and Lai 2004). Distances are
Euclidean, computed by direct differences in row chunks (never ``|a|^2 + |b|^2 - 2ab``).

Weights are frequency weights: an integer weight ``k`` equals ``k`` copies of the row, weight-0
rows are dropped, and fractional weights extend the same formulas (a row of weight ``w`` stands
for ``w`` points, ``w (w - 1) / 2`` zero-distance pairs among its own copies). Every index is
NaN (undefined) unless ``2 <= K <= N - 1`` (``K`` clusters, ``N`` the total weight), as the
silhouette of :mod:`streammetrics.clustering.internal`.

Cost: the profile-based indices (Dunn, generalized Dunn, Hubert Γ, COP, CS) take ``O(N^2)``
time and ``O(N K)`` memory; the C-index and Gamma sort all ``N (N - 1) / 2`` pair distances
(``O(N^2)`` memory). The streaming metrics of :mod:`streammetrics.clustering.pairwise_metrics`
evaluate the same code on a mergeable bounded sample.

Examples:
    >>> X = [[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]]
    >>> labels = [0, 0, 1, 1]
    >>> round(dunn_index(X, labels), 4), c_index(X, labels), gamma_index(X, labels)
    (6.4031, 0.0, 0.0)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core.params import check_option
from .internal import _centroids, _prepare, pairwise_distances

#: Separation measures of the generalized Dunn index: 1 single linkage (Dunn), 3 average
#: linkage, 4 centroid distance, 5 mean distance to the two centroids.
SEPARATIONS = (1, 3, 4, 5)
#: Compactness measures: 1 diameter (Dunn), 3 twice the mean distance to the centroid.
COMPACTNESS = (1, 3)

#: Distances computed per chunk (rows x columns x features) in the profile pass.
_CHUNK = 1 << 22


class Exact(NamedTuple):
    """The parts of an index that only need cluster sizes and centroids (exact in streaming).

    ``centroids`` (K x d), ``weight`` (K,) the cluster weights, ``fallback`` (K,) a spread used
    for a cluster with no row at hand (the root-mean-square distance to its centroid).
    """

    centroids: np.ndarray
    weight: np.ndarray
    fallback: np.ndarray


def exact_parts(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> Exact:
    """The :class:`Exact` parts computed from every row of an in-memory batch.

    Examples:
        >>> e = exact_parts(np.array([[0.0], [2.0], [4.0]]), np.array([0, 0, 1]), np.ones(3), 2)
        >>> e.centroids.ravel().tolist(), e.weight.tolist(), e.fallback.tolist()
        ([1.0, 4.0], [2.0, 1.0], [1.0, 0.0])
    """
    centroids, cw = _centroids(x, idx, w, k)
    diff = x - centroids[idx]
    scatter = np.bincount(idx, weights=w * np.einsum("ij,ij->i", diff, diff), minlength=k)
    return Exact(centroids, cw, np.sqrt(scatter / cw))


# ---------------------------------------------------------------------- row-to-cluster profiles
def row_profiles(
    x: np.ndarray,
    idx: np.ndarray,
    w: np.ndarray,
    k: int,
    groups: np.ndarray | None = None,
    n_groups: int = 1,
    need: str = "min max sum",
) -> dict[str, np.ndarray]:
    """Per row ``i``, group ``g`` and cluster ``c``: the min and max of ``d(x_i, x_j)`` and the sum
    of ``w_j d(x_i, x_j)`` over the rows ``j`` of cluster ``c`` in group ``g``.

    Arrays of shape ``(m, n_groups, k)``; an empty block holds ``+inf`` (min), ``-inf`` (max),
    0 (sum). Computed in row chunks, ``O(m^2)`` time and ``O(m n_groups k)`` memory.

    Examples:
        >>> p = row_profiles(np.array([[0.0], [1.0], [3.0]]), np.array([0, 0, 1]), np.ones(3), 2)
        >>> p["min"][:, 0].tolist()
        [[0.0, 3.0], [0.0, 2.0], [2.0, 0.0]]
        >>> p["sum"][:, 0].tolist()
        [[1.0, 3.0], [1.0, 2.0], [5.0, 0.0]]
    """
    m = len(x)
    g = np.zeros(m, dtype=np.int64) if groups is None else groups.astype(np.int64)
    key = g * k + idx
    order = np.argsort(key, kind="stable")
    present, starts = np.unique(key[order], return_index=True)
    xs = x[order]
    blocks = n_groups * k
    out: dict[str, np.ndarray] = {}
    if "min" in need:
        out["min"] = np.full((m, blocks), np.inf)
    if "max" in need:
        out["max"] = np.full((m, blocks), -np.inf)
    if "sum" in need:
        out["sum"] = np.zeros((m, blocks))
        onehot = np.zeros((m, blocks))
        onehot[np.arange(m), key[order]] = w[order]
    step = max(1, _CHUNK // max(1, m * max(1, x.shape[1])))
    for s in range(0, m, step):
        dist = pairwise_distances(x[s : s + step], xs, chunk=step)
        if "min" in out:
            out["min"][s : s + step, present] = np.minimum.reduceat(dist, starts, axis=1)
        if "max" in out:
            out["max"][s : s + step, present] = np.maximum.reduceat(dist, starts, axis=1)
        if "sum" in out:
            out["sum"][s : s + step] = dist @ onehot
    return {name: arr.reshape(m, n_groups, k) for name, arr in out.items()}


def _drop_group(profiles: dict[str, np.ndarray], g: int | None) -> dict[str, np.ndarray]:
    """Reduce the group axis, leaving group ``g`` out (``None``: keep every group)."""
    ops = {"min": np.min, "max": np.max, "sum": np.sum}
    out = {}
    for name, arr in profiles.items():
        part = arr if g is None else np.delete(arr, g, axis=1)
        out[name] = ops[name](part, axis=1)
    return out


def _spread(dc: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int, exact: Exact) -> np.ndarray:
    """Mean distance to the centroid per cluster (the fallback for a cluster with no row)."""
    num = np.bincount(idx, weights=w * dc, minlength=k)
    den = np.bincount(idx, weights=w, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, exact.fallback)


def _centroid_distances(exact: Exact) -> np.ndarray:
    return pairwise_distances(exact.centroids, exact.centroids)


def _dunn_from(
    separation: int,
    compactness: int,
    prof: dict[str, np.ndarray],
    idx: np.ndarray,
    w: np.ndarray,
    k: int,
    dc: np.ndarray,
    exact: Exact,
) -> float:
    rows = np.arange(len(idx))
    if compactness == 1:
        diam = np.full(k, -np.inf)
        np.maximum.at(diam, idx, prof["max"][rows, idx])
        den = float(diam.max())
    else:
        den = float(np.max(2.0 * _spread(dc, idx, w, k, exact)))
    off = ~np.eye(k, dtype=bool)
    if separation == 1:
        sep = np.full((k, k), np.inf)
        np.minimum.at(sep, idx, prof["min"])
    elif separation == 3:
        wk = np.bincount(idx, weights=w, minlength=k)
        sums = np.zeros((k, k))
        np.add.at(sums, idx, w[:, None] * prof["sum"])
        with np.errstate(invalid="ignore", divide="ignore"):
            sep = sums / np.outer(wk, wk)
    elif separation == 4:
        sep = _centroid_distances(exact)
    else:
        s, cw = _spread(dc, idx, w, k, exact), exact.weight
        sep = (cw[:, None] * s[:, None] + cw[None, :] * s[None, :]) / (cw[:, None] + cw[None, :])
    vals = sep[off]
    vals = vals[np.isfinite(vals)]
    if not vals.size or not np.isfinite(den) or den <= 0.0:
        return float("nan")
    return float(vals.min() / den)


def _cop_from(prof, idx, w, k, dc, exact: Exact) -> float:
    rows = np.arange(len(idx))
    far = prof["max"].copy()
    far[rows, idx] = np.inf  # only rows outside the cluster
    inter = far.min(axis=0)
    intra = _spread(dc, idx, w, k, exact)
    ok = np.isfinite(inter) & (np.bincount(idx, minlength=k) > 0)
    if not ok.any():
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(intra[ok] > 0, intra[ok] / inter[ok], 0.0)
    cw = exact.weight[ok]
    return float(np.sum(cw * term) / cw.sum())


def _cs_from(prof, idx, w, k, exact: Exact) -> float:
    rows = np.arange(len(idx))
    num_k = np.bincount(idx, weights=w * prof["max"][rows, idx], minlength=k)
    wk = np.bincount(idx, weights=w, minlength=k)
    num = float(np.sum(num_k[wk > 0] / wk[wk > 0]))
    cd = _centroid_distances(exact)
    np.fill_diagonal(cd, np.inf)
    den = float(cd.min(axis=1).sum())
    if den <= 0.0 or not np.isfinite(den):
        return float("nan")
    return num / den


def _pair_masses(idx: np.ndarray, w: np.ndarray, k: int, self_scale: float) -> tuple[float, float]:
    """Within-cluster and between-cluster pair masses ``(n_w, n_b)`` of a set of weighted rows."""
    wk = np.bincount(idx, weights=w, minlength=k)
    sq = float(np.sum(w * w))
    distinct_within = (float(np.sum(wk * wk)) - sq) / 2.0
    self_pairs = (sq - float(w.sum())) / 2.0
    between = (float(w.sum()) ** 2 - float(np.sum(wk * wk))) / 2.0
    return distinct_within + self_scale * self_pairs, between


def _hubert_from(prof, idx, w, k, x: np.ndarray, self_scale: float) -> float:
    """Point-biserial form of the normalized Hubert Γ on these rows (all parts from the rows:
    mixing an exact second moment with sampled mean distances would amplify the sampling error
    through the cancellation in the variance)."""
    rows = np.arange(len(idx))
    own = prof["sum"][rows, idx]
    s_w = 0.5 * float(w @ own)
    s_b = 0.5 * float(w @ (prof["sum"].sum(axis=1) - own))
    n_w, n_b = _pair_masses(idx, w, k, self_scale)
    t = n_w + n_b
    if n_w <= 0 or n_b <= 0:
        return float("nan")
    total = float(w.sum())
    centred = x - (w @ x) / total
    mean_sq = total * float(w @ np.einsum("ij,ij->i", centred, centred)) / t  # sum w_i w_j d_ij^2 / T
    mu_w, mu_b = s_w / n_w, s_b / n_b
    mu = (s_w + s_b) / t
    var = mean_sq - mu * mu
    if not var > 1e-12 * mean_sq:
        return float("nan")
    return float(np.sqrt(n_w * n_b) / t * (mu_b - mu_w) / np.sqrt(var))


# ---------------------------------------------------------------------- sorted pairs
def condensed_pairs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices ``i < j`` and distances of every pair, in row-major upper-triangle order.

    Examples:
        >>> i, j, d = condensed_pairs(np.array([[0.0], [1.0], [3.0]]))
        >>> i.tolist(), j.tolist(), d.tolist()
        ([0, 0, 1], [1, 2, 2], [1.0, 3.0, 2.0])
    """
    m = len(x)
    p = m * (m - 1) // 2
    ii, jj, dd = np.empty(p, dtype=np.int32), np.empty(p, dtype=np.int32), np.empty(p)
    pos = 0
    step = max(1, _CHUNK // max(1, m * max(1, x.shape[1])))
    for s in range(0, m - 1, step):
        e = min(m, s + step)
        dist = pairwise_distances(x[s:e], x[s:], chunk=step)
        r, c = np.triu_indices(e - s, 1, m - s)
        n = len(r)
        ii[pos : pos + n], jj[pos : pos + n], dd[pos : pos + n] = r + s, c + s, dist[r, c]
        pos += n
    return ii, jj, dd


class SortedPairs(NamedTuple):
    """Every pair of distinct rows, sorted by distance: ``d``, multiplicity ``w_i w_j``, whether
    both rows are in the same cluster, and the jackknife groups of the two rows."""

    d: np.ndarray
    mult: np.ndarray
    same: np.ndarray
    g_i: np.ndarray
    g_j: np.ndarray


def sorted_pairs(x: np.ndarray, idx: np.ndarray, w: np.ndarray, groups: np.ndarray | None) -> SortedPairs:
    """All pairs with their multiplicities ``w_i w_j``, sorted by distance.

    Examples:
        >>> sp = sorted_pairs(np.array([[0.0], [1.0], [3.0]]), np.array([0, 0, 1]), np.ones(3), None)
        >>> sp.d.tolist(), sp.same.tolist()
        ([1.0, 2.0, 3.0], [True, False, False])
    """
    i, j, d = condensed_pairs(x)
    order = np.argsort(d)  # ties need no order: every use sums over them or compares strictly
    i, j, d = i[order], j[order], d[order]
    if len(d) > 1:  # distances equal up to rounding (1e-12 relative) are ties: one value
        start = np.empty(len(d), dtype=bool)
        start[0] = True
        start[1:] = d[1:] - d[:-1] > 1e-12 * d[1:]
        if not start.all():
            first = np.flatnonzero(start)
            d = np.repeat(d[first], np.diff(np.append(first, len(d))))
    g = np.zeros(len(x), dtype=np.int16) if groups is None else groups.astype(np.int16)
    return SortedPairs(d, w[i] * w[j], idx[i] == idx[j], g[i], g[j])


def _sum_smallest(d: np.ndarray, cum: np.ndarray, csum: np.ndarray, amount: float) -> float:
    """Sum of the ``amount`` smallest values of a weighted sorted multiset (fractional last item),
    from the cumulative masses ``cum`` and cumulative weighted values ``csum``."""
    if amount <= 0 or not d.size:
        return 0.0
    pos = int(np.searchsorted(cum, amount, side="left"))
    if pos >= len(d):
        return float(csum[-1])
    before_w = float(cum[pos - 1]) if pos else 0.0
    before_s = float(csum[pos - 1]) if pos else 0.0
    return before_s + (amount - before_w) * float(d[pos])


def _c_index_from(d: np.ndarray, mult: np.ndarray, same: np.ndarray, self_pairs: float) -> float:
    """C-index of sorted pairs (``mult`` may hold zeros for pairs left out); ``self_pairs`` the
    zero-distance pairs among the copies of a row (within-cluster pairs too)."""
    if not d.size:
        return float("nan")
    md = mult * d
    a = float(mult @ same)
    s = float(md @ same)
    cum, csum = np.cumsum(mult), np.cumsum(md)
    p, total = float(cum[-1]), float(csum[-1])
    n_w = a + self_pairs
    s_min = _sum_smallest(d, cum, csum, a)
    s_max = total - _sum_smallest(d, cum, csum, p - min(max(n_w, 0.0), p))
    span = s_max - s_min
    if not span > 1e-12 * abs(s_max) or not np.isfinite(span):
        return float("nan")
    return float(min(1.0, max(0.0, (s - s_min) / span)))


# ---------------------------------------------------------------------- shared drivers
def profile_index(
    name: str,
    x: np.ndarray,
    idx: np.ndarray,
    w: np.ndarray,
    k: int,
    exact: Exact,
    groups: np.ndarray | None = None,
    self_scale: float = 1.0,
    separation: int = 1,
    compactness: int = 1,
    profiles: dict[str, np.ndarray] | None = None,
) -> tuple[float, np.ndarray]:
    """A profile-based index (``"dunn"``, ``"cop"``, ``"cs"``, ``"hubert"``) and its delete-a-group
    jackknife replicates (one per group; none without ``groups``). ``profiles``: the
    :func:`row_profiles` of these rows and groups, if already computed.

    Examples:
        >>> x, idx, w = np.array([[0.0], [1.0], [5.0], [6.0]]), np.array([0, 0, 1, 1]), np.ones(4)
        >>> profile_index("dunn", x, idx, w, 2, exact_parts(x, idx, w, 2))[0]
        4.0
    """
    need = {"dunn": "", "cop": "max", "cs": "max", "hubert": "sum"}[name]
    if name == "dunn":
        need = ("min " if separation == 1 else "") + ("sum " if separation == 3 else "")
        need += "max" if compactness == 1 else ""
    n_groups = 1 if groups is None else int(groups.max()) + 1
    if profiles is not None:  # precomputed (e.g. shared by several indices of the same rows)
        prof = {key: profiles[key] for key in need.split()}
    else:
        prof = row_profiles(x, idx, w, k, groups, n_groups, need) if need else {}
    dc = np.sqrt(np.einsum("ij,ij->i", x - exact.centroids[idx], x - exact.centroids[idx]))

    def value(p: dict[str, np.ndarray], keep: np.ndarray | None) -> float:
        sx = slice(None) if keep is None else keep
        i, ww, d = idx[sx], w[sx], dc[sx]
        p = {key: arr[sx] for key, arr in p.items()}
        if (np.bincount(i, weights=ww, minlength=k) > 0).sum() < 2:
            return float("nan")
        if name == "dunn":
            return _dunn_from(separation, compactness, p, i, ww, k, d, exact)
        if name == "cop":
            return _cop_from(p, i, ww, k, d, exact)
        if name == "cs":
            return _cs_from(p, i, ww, k, exact)
        return _hubert_from(p, i, ww, k, x[sx], self_scale)

    full = value(_drop_group(prof, None), None)
    if groups is None:
        return full, np.empty(0)
    reps = np.array([value(_drop_group(prof, g), groups != g) for g in range(n_groups)])
    return full, reps


def pair_index(
    name: str,
    x: np.ndarray,
    idx: np.ndarray,
    w: np.ndarray,
    groups: np.ndarray | None = None,
    self_scale: float = 1.0,
) -> tuple[float, np.ndarray]:
    """A sorted-pairs index (``"c"`` or ``"gamma"``) and its delete-a-group jackknife replicates.

    ``self_scale`` multiplies the ``w (w - 1) / 2`` zero-distance pairs among the copies of a
    row (1 on the full data; the sampling fraction on a sample, where pairs of distinct rows are
    under-represented by that factor relative to a row's own pairs).

    Examples:
        >>> x, idx = np.array([[0.0], [1.0], [5.0], [7.0]]), np.array([0, 0, 1, 1])
        >>> pair_index("c", x, idx, np.ones(4))[0], pair_index("gamma", x, idx, np.ones(4))[0]
        (0.0, 0.0)
    """
    sp = sorted_pairs(x, idx, w, groups)
    self_w = w * (w - 1.0) / 2.0
    n_groups = 1 if groups is None else int(groups.max()) + 1
    g = np.zeros(len(x), dtype=np.int64) if groups is None else groups
    same_f = sp.same.astype(np.float64)
    if name == "gamma":
        d_w, m_w, gw_i, gw_j = sp.d[sp.same], sp.mult[sp.same], sp.g_i[sp.same], sp.g_j[sp.same]
        d_b, m_b, gb_i, gb_j = sp.d[~sp.same], sp.mult[~sp.same], sp.g_i[~sp.same], sp.g_j[~sp.same]
        pos = np.searchsorted(d_b, d_w, side="left")  # between pairs strictly closer
        del d_w

    def value(drop: int | None) -> float:
        rows = slice(None) if drop is None else g != drop
        if len(np.unique(idx[rows])) < 2:
            return float("nan")
        self_pairs = self_scale * float(self_w[rows].sum())
        if name == "c":
            mult = sp.mult if drop is None else sp.mult * ((sp.g_i != drop) & (sp.g_j != drop))
            return _c_index_from(sp.d, mult, same_f, self_pairs)
        mw = m_w if drop is None else m_w * ((gw_i != drop) & (gw_j != drop))
        mb = m_b if drop is None else m_b * ((gb_i != drop) & (gb_j != drop))
        cum = np.concatenate([[0.0], np.cumsum(mb)])
        n_w, n_b = float(mw.sum()) + self_pairs, float(mb.sum())
        if n_w <= 0 or n_b <= 0:
            return float("nan")
        return float(mw @ cum[pos] / (n_w * n_b))

    full = value(None)
    if groups is None:
        return full, np.empty(0)
    return full, np.array([value(gr) for gr in range(n_groups)])


def _exact(
    X: Any, labels: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, Exact] | None:
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if k < 2 or k > w.sum() - 1:
        return None
    return x, idx, w, k, exact_parts(x, idx, w, k)


# ---------------------------------------------------------------------- public functions
def dunn_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Dunn index (Dunn 1974; seed 004): higher is better.

    ``min_{k != l} delta(c_k, c_l) / max_k Delta(c_k)`` with ``delta`` the smallest distance
    between a row of ``c_k`` and one of ``c_l`` and ``Delta`` the cluster diameter (largest
    distance within it). NaN when every diameter is 0. Equals
    ``generalized_dunn_index(..., separation=1, compactness=1)``.

    Examples:
        >>> dunn_index([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
        4.0
    """
    return generalized_dunn_index(X, labels, sample_weight, separation=1, compactness=1)


def generalized_dunn_index(
    X: Any, labels: Any, sample_weight: Any = None, *, separation: int = 3, compactness: int = 3
) -> float:
    """Generalized Dunn index gD\\ *sc* (Bezdek and Pal 1998; seed 004's gD31 ... gD53): higher is better.

    ``min_{k != l} delta_s(c_k, c_l) / max_k Delta_c(c_k)`` with the separation ``delta_s``:

    * 1: smallest distance between the clusters (the Dunn index with ``compactness=1``);
    * 3: mean distance between their rows ``sum_{i in k, j in l} w_i w_j d_ij / (W_k W_l)``;
    * 4: distance between their centroids;
    * 5: ``(W_k S_k + W_l S_l) / (W_k + W_l)``, ``S_k`` the mean distance to the centroid;

    and the compactness ``Delta_c``: 1 the diameter, 3 ``2 S_k``. NaN when every
    compactness is 0.

    Examples:
        >>> X, labels = [[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]
        >>> generalized_dunn_index(X, labels, separation=4, compactness=3)
        5.0
        >>> generalized_dunn_index(X, labels, separation=3, compactness=1)
        5.0
    """
    check_option("separation", separation, SEPARATIONS)
    check_option("compactness", compactness, COMPACTNESS)
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("dunn", x, idx, w, k, exact, separation=separation, compactness=compactness)[0]


def c_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """C-index (Hubert and Levin 1976; seed 004): lower is better, in [0, 1].

    ``(S - S_min) / (S_max - S_min)``: ``S`` the sum of the ``n_w`` within-cluster pair
    distances, ``S_min`` (``S_max``) the sum of the ``n_w`` smallest (largest) of all
    ``N (N - 1) / 2`` pair distances. NaN when ``S_max = S_min``. ``O(N^2)`` memory.

    Examples:
        >>> c_index([[0.0], [1.0], [5.0], [7.0]], [0, 0, 1, 1])
        0.0
        >>> c_index([[0.0], [5.0], [1.0], [7.0]], [0, 0, 1, 1])  # S = 5 + 6, S_min = 1 + 2, S_max = 7 + 6
        0.8
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, _, _ = prepared
    return pair_index("c", x, idx, w)[0]


def gamma_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Gamma index (Baker and Hubert 1975, in the form of Arbelaitz et al. 2013; seed 004): lower is better.

    ``sum_{within pairs (i, j)} dl(i, j) / (n_w n_b)``, ``dl(i, j)`` the number of
    between-cluster pairs strictly closer than ``d_ij``, ``n_w`` and ``n_b = N (N - 1) / 2 - n_w``
    the numbers of within- and between-cluster pairs: the share of (within, between) comparisons
    that are discordant, in [0, 1]. Seed 004 prints an extra factor ``|c_k|`` in the numerator,
    which is not in Arbelaitz et al. (and would break the [0, 1] range): corrected. Baker and
    Hubert's original ``Γ = (s+ - s-) / (s+ + s-)`` equals ``1 - 2 G`` when no distances tie.
    ``O(N^2)`` memory.

    Examples:
        >>> gamma_index([[0.0], [1.0], [5.0], [7.0]], [0, 0, 1, 1])
        0.0
        >>> gamma_index([[0.0], [5.0], [1.0], [7.0]], [0, 0, 1, 1])  # 3 + 3 of 2 x 4 comparisons
        0.75
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, _, _ = prepared
    return pair_index("gamma", x, idx, w)[0]


def hubert_gamma(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Normalized Hubert Γ statistic (seed 004): higher is better, in [-1, 1].

    The Pearson correlation, over all ``N (N - 1) / 2`` pairs, between the distance ``d_ij``
    and the indicator ``q_ij = 1`` when ``i`` and ``j`` are in different clusters. With ``n_w``,
    ``n_b`` the within/between pair counts, ``T = n_w + n_b``, ``mu_w``, ``mu_b`` the mean
    within/between distances and ``sigma`` the standard deviation of all pair distances, it is
    ``sqrt(n_w n_b) / T * (mu_b - mu_w) / sigma`` (the point-biserial form), with the mean
    squared pair distance ``N * TSS / T`` (``TSS`` the total scatter).

    Examples:
        >>> round(hubert_gamma([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]), 4)
        0.9562
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("hubert", x, idx, w, k, exact)[0]


def cop_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """COP index (Gurrutxaga et al. 2010; seed 004): lower is better.

    ``1/N sum_k W_k S_k / min_{x_i not in c_k} max_{x_j in c_k} d_ij``, ``S_k`` the mean
    distance from the rows of ``c_k`` to its centroid (a cluster with ``S_k = 0`` adds 0).

    Examples:
        >>> cop_index([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        0.1
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("cop", x, idx, w, k, exact)[0]


def cs_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """CS index (Chou, Su and Lai 2004; seed 004): lower is better.

    ``sum_k (1/W_k) sum_{i in c_k} w_i max_{j in c_k} d_ij / sum_k min_{l != k} ||mu_k - mu_l||``.
    NaN when the centroid-distance sum is 0.

    Examples:
        >>> cs_index([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        0.2
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("cs", x, idx, w, k, exact)[0]
