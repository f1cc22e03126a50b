"""Internal clustering indices: formulas on per-cluster moments, and exact in-memory functions.

The moment formulas (:func:`within_ss`, :func:`between_ss`, :func:`calinski_harabasz`,
:func:`negentropy_increment`) are exact in streaming. The distance-based indices
(:func:`silhouette_score`, :func:`davies_bouldin_score`, :func:`simplified_silhouette_score`)
are exact functions of an in-memory batch; the streaming metrics evaluate them on a mergeable
sample (:mod:`streammetrics.clustering.sample`). Weights are frequency weights throughout (an
integer weight ``k`` equals ``k`` copies of the row). Distances are Euclidean.

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

from .moments import ClusterMoments


# ---------------------------------------------------------------------- on moments (exact)
def within_ss(m: ClusterMoments) -> float:
    """Within-cluster sum of squares ``sum_k sum_{x in k} w ||x - mu_k||^2`` (seed 004 WSS).

    Examples:
        >>> s = ClusterMoments()
        >>> s.add(np.array([[0.0], [2.0], [5.0]]), np.array([0, 0, 1]), None)
        >>> within_ss(s)
        2.0
    """
    return float(m.scatter.sum())


def between_ss(m: ClusterMoments) -> float:
    """Between-cluster sum of squares ``sum_k w_k ||mu_k - mu||^2`` (seed 004 BSS).

    Seed 004 prints ``n * sum_k (mu_k - mu)^2`` (the total size instead of each cluster's);
    the standard definition, whose sum with WSS is the total scatter, weights each cluster by
    its own size.

    Examples:
        >>> s = ClusterMoments()
        >>> s.add(np.array([[0.0], [2.0], [5.0]]), np.array([0, 0, 1]), None)
        >>> round(between_ss(s), 6)
        10.666667
    """
    if not m.n_clusters:
        return 0.0
    diff = m.mean - m.grand_mean()
    return float(np.sum(m.weight * np.einsum("ij,ij->i", diff, diff)))


def calinski_harabasz(m: ClusterMoments) -> float:
    """Calinski-Harabasz index ``BSS / (K - 1) / (WSS / (N - K))``. :func:`sklearn.metrics.calinski_harabasz_score`.

    Seed 004 writes the dispersions with plain norms; the index (and scikit-learn) uses
    squared norms. NaN unless ``2 <= K < N`` (``N`` the total weight); 1.0 when WSS is 0, as
    scikit-learn.

    Examples:
        >>> s = ClusterMoments()
        >>> s.add(np.array([[0.0], [2.0], [5.0], [7.0]]), np.array([0, 0, 1, 1]), None)
        >>> calinski_harabasz(s)
        12.5
    """
    k, n = m.n_clusters, m.total_weight()
    if k < 2 or k >= n:
        return float("nan")
    intra = within_ss(m)
    if intra == 0.0:
        return 1.0
    return float(between_ss(m) * (n - k) / (intra * (k - 1.0)))


def negentropy_increment(m: ClusterMoments) -> float:
    """Negentropy increment (Lago-Fernandez and Corbacho 2010); lower is better (seed 004).

    ``1/2 sum_k p_k log|Sigma_k| - 1/2 log|Sigma_X| - sum_k p_k log p_k`` with ``p_k`` the
    cluster shares and ``Sigma`` the maximum-likelihood (divide by the weight) covariance
    matrices. Needs ``ClusterMoments(full=True)``; NaN with fewer than 2 clusters or a singular
    covariance matrix: a cluster of at most ``d`` rows (``d`` features; decided on the integer
    row counts, so that it does not depend on rounding, e.g. after a revert), or a smallest
    eigenvalue below ``1e-9`` times the largest (e.g. repeated rows).

    Examples:
        >>> rng = np.random.default_rng(0)
        >>> X = np.concatenate([rng.normal(0, 1, (50, 2)), rng.normal(8, 1, (50, 2))])
        >>> s = ClusterMoments(full=True)
        >>> s.add(X, np.repeat([0, 1], 50), None)
        >>> negentropy_increment(s) < 0
        True
    """
    if not m.full:
        raise ValueError("negentropy_increment: needs ClusterMoments(full=True)")
    k, n = m.n_clusters, m.total_weight()
    if k < 2:
        return float("nan")
    p = m.weight / n
    if (m.count <= m.mean.shape[1]).any():  # at most d rows: singular by construction, exactly
        return float("nan")
    covs = m.matrix / m.weight[:, None, None]
    eig = np.linalg.eigvalsh(covs)
    if (eig[:, 0] <= 1e-9 * np.maximum(eig[:, -1], 1e-300)).any():  # singular (or nearly) covariance
        return float("nan")
    sign_k, logdet_k = np.linalg.slogdet(covs)
    diff = m.mean - m.grand_mean()
    total = m.matrix.sum(axis=0) + np.einsum("k,ki,kj->ij", m.weight, diff, diff)
    sign_x, logdet_x = np.linalg.slogdet(total / n)
    if (sign_k <= 0).any() or sign_x <= 0:
        return float("nan")
    return float(0.5 * np.sum(p * logdet_k) - 0.5 * logdet_x - np.sum(p * np.log(p)))


# ---------------------------------------------------------------------- exact, in memory
def _prepare(X: Any, labels: Any, sample_weight: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    from .base import validate_points

    x, lab, w = validate_points(X, labels, sample_weight, None)
    w = np.ones(len(x)) if w is None else w
    keep = w > 0
    x, lab, w = x[keep], lab[keep], w[keep]
    _, idx = np.unique(lab, return_inverse=True)
    idx = idx.ravel().astype(np.int64)
    return x, idx, w, int(idx.max()) + 1 if idx.size else 0


def pairwise_distances(a: np.ndarray, b: np.ndarray, chunk: int = 256) -> np.ndarray:
    """Euclidean distances from the rows of ``a`` to those of ``b`` (direct differences, chunked).

    Examples:
        >>> pairwise_distances(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
        [[5.0, 0.0]]
    """
    out = np.empty((len(a), len(b)))
    step = max(1, chunk * 16 // max(a.shape[1], 1))
    for start in range(0, len(a), step):
        diff = a[start : start + step, None, :] - b[None, :, :]
        out[start : start + step] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    return out


def _silhouette_values(dsum: np.ndarray, idx: np.ndarray, cluster_w: np.ndarray) -> np.ndarray:
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


def silhouette_samples(X: Any, labels: Any, sample_weight: Any = None) -> np.ndarray:
    """Silhouette of every row (Euclidean), rows of weight 0 dropped. :func:`sklearn.metrics.silhouette_samples`.

    ``a`` is the mean distance to the *other* members of the row's cluster (``W_c - 1`` in the
    denominator with frequency weights), ``b`` the smallest mean distance to another cluster;
    ``s = (b - a) / max(a, b)``, and 0 for a cluster of weight at most 1.

    Examples:
        >>> silhouette_samples([[0.0], [1.0], [10.0]], [0, 0, 1]).tolist()
        [0.9, 0.8888888888888888, 0.0]
    """
    x, idx, w, k = _prepare(X, labels, sample_weight)
    onehot_w = np.zeros((len(x), k))
    onehot_w[np.arange(len(x)), idx] = w
    dsum = pairwise_distances(x, x) @ onehot_w
    return _silhouette_values(dsum, idx, onehot_w.sum(axis=0))


def silhouette_score(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Mean silhouette (weighted by the sample weights). :func:`sklearn.metrics.silhouette_score`.

    Returns NaN unless ``2 <= K <= N - 1`` (scikit-learn raises instead).

    Examples:
        >>> round(silhouette_score([[0.0], [1.0], [10.0], [11.0]], [0, 0, 1, 1]), 4)
        0.8997
    """
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if k < 2 or k > w.sum() - 1:
        return float("nan")
    s = silhouette_samples(x, idx, w)
    return float(np.sum(w * s) / np.sum(w))


def _centroids(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    cw = np.bincount(idx, weights=w, minlength=k)
    sums = np.stack([np.bincount(idx, weights=x[:, j] * w, minlength=k) for j in range(x.shape[1])], axis=1)
    return sums / cw[:, None], cw


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
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if k < 2 or k > w.sum() - 1:
        return float("nan")
    centroids, cw = _centroids(x, idx, w, k)
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
    x, idx, w, k = _prepare(X, labels, sample_weight)
    if k < 2:
        return float("nan")
    centroids, _ = _centroids(x, idx, w, k)
    return float(np.sum(w * simplified_silhouette_values(x, idx, centroids)) / w.sum())


def calinski_harabasz_score(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Calinski-Harabasz index of an in-memory batch (through :class:`ClusterMoments`).

    Examples:
        >>> calinski_harabasz_score([[0.0], [2.0], [5.0], [7.0]], [0, 0, 1, 1])
        12.5
    """
    from .base import validate_points

    x, lab, w = validate_points(X, labels, sample_weight, None)
    state = ClusterMoments()
    state.add(x, lab, w)
    return calinski_harabasz(state)
