"""Best one-to-one matching of clusters to classes: the cluster accuracy.

:func:`linear_sum_assignment_max` is an exact Hungarian algorithm (shortest augmenting paths
with potentials, Jonker-Volgenant style) in NumPy, ``O(n^2 m)`` for an ``n x m`` matrix with
``n <= m``, vectorized over the columns: the core stays NumPy-only (no SciPy, no
``torch_linear_assignment``). The tests check it against :func:`scipy.optimize.linear_sum_assignment`.

Examples:
    >>> from streammetrics.clustering.external.contingency import contingency
    >>> cluster_accuracy(contingency([0, 0, 1, 1, 2], [5, 5, 7, 7, 7]))
    0.8
"""

from __future__ import annotations

import numpy as np

from .contingency import ContingencyState


def linear_sum_assignment_max(profit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a one-to-one matching with the largest total ``profit``.

    As ``scipy.optimize.linear_sum_assignment(profit, maximize=True)``: ``min(n, m)`` pairs,
    rows in increasing order (with ties, the matching may differ from SciPy's; its total does
    not).

    Examples:
        >>> rows, cols = linear_sum_assignment_max(np.array([[1, 5, 0], [4, 2, 1]]))
        >>> rows.tolist(), cols.tolist()
        ([0, 1], [1, 0])
    """
    profit = np.asarray(profit, dtype=np.float64)
    if profit.ndim != 2:
        raise ValueError(f"profit: expected a 2-D matrix, found {profit.ndim} dimensions")
    transposed = profit.shape[0] > profit.shape[1]
    cost = -(profit.T if transposed else profit)
    n, m = cost.shape
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    cost = cost - cost.min()  # non-negative costs: the same optimum
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, dtype=np.int64)  # owner[j]: 1-based row matched to column j (0: none)
    way = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = owner[j0]
            free = ~used[1:]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:  # augment along the path
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    cols = np.flatnonzero(owner[1:])
    rows = owner[1:][cols] - 1
    if transposed:
        rows, cols = cols, rows
    order = np.argsort(rows)
    return rows[order].astype(np.int64), cols[order].astype(np.int64)


def cluster_accuracy(table: ContingencyState) -> float:
    """Cluster accuracy ``max_sigma sum_i n_{i sigma(i)} / N`` over one-to-one maps of classes to clusters.

    The accuracy of the clustering once each cluster is given the class it matches best, each
    class used at most once (torchmetrics ``ClusterAccuracy``); with more clusters than classes
    the unmatched clusters count as errors.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> cluster_accuracy(contingency([0, 0, 1, 1], [1, 1, 0, 0]))
        1.0
    """
    if not table.values.size:
        return float("nan")
    dense = table.dense()
    rows, cols = linear_sum_assignment_max(dense)
    matched = dense[rows, cols].sum()
    return float(matched / table.total())
