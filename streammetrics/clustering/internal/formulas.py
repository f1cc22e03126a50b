"""Internal indices exact in streaming: formulas on per-cluster moments (:class:`ClusterMoments`).

Within- and between-cluster sums of squares, the Calinski-Harabasz index and the negentropy
increment: each a pure function of the moments state, so a metric's ``.state`` and a state
built from in-memory data give the same value. Weights are frequency weights.

Examples:
    >>> import numpy as np
    >>> s = ClusterMoments()
    >>> s.add(np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]]), np.array([0, 0, 1, 1]), None)
    >>> within_ss(s), between_ss(s), calinski_harabasz(s)
    (1.0, 50.0, 100.0)
"""

from __future__ import annotations

import numpy as np

from .moments import ClusterMoments


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
