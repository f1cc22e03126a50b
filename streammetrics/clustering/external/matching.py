"""Set-matching external indices: each cluster (or class) matched with its best counterpart.

Purity, the Goodman-Kruskal index (``1 - purity``) and the clustering F-measure of seed 004,
pure functions of a :class:`ContingencyState`. No scikit-learn equivalent.

Examples:
    >>> from streammetrics.clustering.external.contingency import contingency
    >>> t = contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> round(purity(t), 4), round(clustering_f_measure(t), 4)
    (0.8333, 0.8)
"""

from __future__ import annotations

import numpy as np

from .contingency import ContingencyState


def purity(table: ContingencyState) -> float:
    """Purity ``sum_j max_i n_ij / N``: each cluster is labelled by its largest class (seed 004).

    Seed 004 writes ``sum_i p_i max_j p_ij / p_i`` with ``i`` the clusters (its text: "assigns
    to each cluster its most numerous class"); with ``i`` read as classes it would be the
    inverse purity. The cluster reading (Zhao and Karypis; Manning et al.) is used.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> purity(contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]))
        0.8333333333333334
    """
    v = table.values
    if not v.size:
        return float("nan")
    best = np.zeros(table.shape[1], dtype=v.dtype)
    np.maximum.at(best, table.cols, v)
    total = table.total()
    return float(best.sum() / total)


def goodman_kruskal(table: ContingencyState) -> float:
    """Goodman-Kruskal index ``sum_j p_j (1 - max_i p_ij / p_j) = 1 - purity`` (seed 004).

    The share of samples outside their cluster's majority class (lower is better); ``j`` runs
    over the clusters as for :func:`purity` (see there for the reading of the seed's indices).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(goodman_kruskal(contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])), 6)
        0.166667
    """
    v = table.values
    if not v.size:
        return float("nan")
    best = np.zeros(table.shape[1], dtype=v.dtype)
    np.maximum.at(best, table.cols, v)
    total = table.total()
    return float((total - best.sum()) / total)


def clustering_f_measure(table: ContingencyState) -> float:
    """Clustering F-measure ``sum_i (a_i / N) max_j 2 n_ij / (a_i + b_j)`` (seed 004; Larsen and Aone).

    For each class, the F1 of its best-matching cluster (precision ``n_ij / b_j``, recall
    ``n_ij / a_i``), weighted by the class size. The harmonic mean in seed 004 simplifies to
    ``2 n_ij / (a_i + b_j)``; its outer sum runs over the classes (seed 004's ``j`` with
    ``p_j``, read as in :func:`purity`).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> clustering_f_measure(contingency([0, 0, 1, 1], [0, 0, 1, 1]))
        1.0
    """
    v = table.values.astype(np.float64)
    if not v.size:
        return float("nan")
    a, b = table.row_sums().astype(np.float64), table.col_sums().astype(np.float64)
    rows = table.rows
    f = 2.0 * v / (a[rows] + b[table.cols])
    best = np.zeros(len(a))
    np.maximum.at(best, rows, f)
    return float(np.sum(a * best) / a.sum())
