"""Row-to-cluster distance profiles, and the indices computed from them.

One pass over the pairwise distances (in row chunks, never the whole ``N x N`` matrix) gives,
for each row and cluster, the smallest, largest and weighted sum of the distances
(:func:`row_profiles`); the Dunn family, COP, CS and Hubert's Γ are formulas on these profiles
and on the :class:`Exact` parts (centroids, cluster weights) that only need cluster sizes.
:func:`profile_index` evaluates one of them and its delete-a-group jackknife replicates (the
profiles are kept per jackknife group, so that a replicate needs no second pass).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..internal.distances import cluster_means, pairwise_distances

#: Separation measures of the generalized Dunn index: 1 single linkage (Dunn), 3 average
#: linkage, 4 centroid distance, 5 mean distance to the two centroids.
SEPARATIONS = (1, 3, 4, 5)
#: Compactness measures: 1 diameter (Dunn), 3 twice the mean distance to the centroid,
#: ``"radius"`` the largest distance to the centroid (torchmetrics' ``DunnIndex``).
COMPACTNESS = (1, 3, "radius")

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
    centroids, cw = cluster_means(x, idx, w, k)
    diff = x - centroids[idx]
    scatter = np.bincount(idx, weights=w * np.einsum("ij,ij->i", diff, diff), minlength=k)
    return Exact(centroids, cw, np.sqrt(scatter / cw))


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
    compactness: int | str,
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
    elif compactness == "radius":
        radius = np.full(k, -np.inf)
        np.maximum.at(radius, idx[w > 0], dc[w > 0])  # (a row of weight 0 is left out)
        den = float(radius.max())
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
    compactness: int | str = 1,
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
