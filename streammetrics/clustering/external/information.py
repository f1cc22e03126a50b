"""Information-theoretic external indices: entropies and mutual information of a :class:`ContingencyState`.

Entropies are in nats and computed as scikit-learn computes them (the same special cases), so
the values agree with ``sklearn.metrics.cluster``: mutual information, its normalized and
adjusted forms (:func:`adjusted_mutual_info` with the exact expected mutual information of
:mod:`~streammetrics.clustering.external.emi`), homogeneity, completeness and the V-measure; and
seed 004's clustering entropy and variation of information.

Examples:
    >>> from streammetrics.clustering.external.contingency import contingency
    >>> t = contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> round(adjusted_mutual_info(t), 5)
    0.29879
    >>> round(adjusted_mutual_info(t, average_method="max"), 5)  # seed 001's value (the old default)
    0.22504
"""

from __future__ import annotations

import math

import numpy as np

from .contingency import ContingencyState
from .emi import expected_mutual_information

AVERAGE_METHODS = ("arithmetic", "geometric", "min", "max")
_EPS = float(np.finfo(np.float64).eps)


def _entropy_of(counts: np.ndarray) -> float:
    """Entropy (nats) of a vector of totals, as scikit-learn's ``_entropy``."""
    counts = counts[counts > 0].astype(np.float64)
    if counts.size <= 1:
        return 0.0
    total = counts.sum()
    return float(-np.sum((counts / total) * (np.log(counts) - math.log(total))))


def class_entropy(table: ContingencyState) -> float:
    """Entropy ``H(C)`` of the classes (nats).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(class_entropy(contingency([0, 1], [0, 0])), 6)
        0.693147
    """
    return _entropy_of(table.row_sums())


def cluster_entropy(table: ContingencyState) -> float:
    """Entropy ``H(K)`` of the clusters (nats).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> cluster_entropy(contingency([0, 1], [0, 0]))
        0.0
    """
    return _entropy_of(table.col_sums())


def mutual_info(table: ContingencyState) -> float:
    """Mutual information ``I(C; K)`` in nats. :func:`sklearn.metrics.mutual_info_score`.

    Computed as scikit-learn does (``log(a / b)`` as ``log a - log b``; terms below machine
    epsilon set to 0; the sum clipped at 0).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(mutual_info(contingency([0, 0, 1, 1], [0, 0, 1, 1])), 6)
        0.693147
    """
    n_rows, n_cols = table.shape
    if n_rows <= 1 or n_cols <= 1:
        return 0.0
    v = table.values.astype(np.float64)
    a, b = table.row_sums().astype(np.float64), table.col_sums().astype(np.float64)
    total = float(v.sum())
    outer = a[table.rows] * b[table.cols]
    log_outer = -np.log(outer) + math.log(a.sum()) + math.log(b.sum())
    nm = v / total
    mi = nm * (np.log(v) - math.log(total)) + nm * log_outer
    mi = np.where(np.abs(mi) < _EPS, 0.0, mi)
    return float(np.clip(mi.sum(), 0.0, None))


def _generalized_average(u: float, v: float, method: str) -> float:
    if method == "min":
        return min(u, v)
    if method == "geometric":
        return math.sqrt(u * v)
    if method == "arithmetic":
        return (u + v) / 2.0
    return max(u, v)


def _one_each(table: ContingencyState) -> bool:
    n_rows, n_cols = table.shape
    return n_rows == n_cols == 1 or n_rows == n_cols == 0


def normalized_mutual_info(table: ContingencyState, average_method: str = "arithmetic") -> float:
    """Normalized mutual information. :func:`sklearn.metrics.normalized_mutual_info_score`.

    ``I(C; K) / mean(H(C), H(K))`` with the mean chosen by ``average_method`` (arithmetic,
    geometric, min, max).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> normalized_mutual_info(contingency([0, 0, 1, 1], [1, 1, 0, 0]))
        1.0
    """
    if _one_each(table):
        return 1.0
    mi = mutual_info(table)
    if mi == 0:
        return 0.0
    normalizer = _generalized_average(class_entropy(table), cluster_entropy(table), average_method)
    return float(mi / normalizer)


def adjusted_mutual_info(table: ContingencyState, average_method: str = "arithmetic") -> float:
    """Adjusted mutual information. :func:`sklearn.metrics.adjusted_mutual_info_score`.

    ``(I - E[I]) / (mean(H(C), H(K)) - E[I])`` with the exact expected mutual information under
    the hypergeometric (permutation) model, see
    :func:`~streammetrics.clustering.external.emi.expected_mutual_information`. Needs whole-number
    counts (integer sample weights); a table of fractional weights gives NaN.

    Seed 001's worked examples (0.22504..., -0.10526...) were printed when scikit-learn's
    default was ``average_method="max"`` (before version 0.22); the default here is that of
    current scikit-learn, ``"arithmetic"``.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> t = contingency([0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2])
        >>> round(adjusted_mutual_info(t), 5), round(adjusted_mutual_info(t, "max"), 5)
        (-0.16667, -0.10526)
    """
    n_rows, n_cols = table.shape
    if _one_each(table):
        return 1.0
    if n_rows == 1 or n_cols == 1:
        return 0.0
    a, b = table.row_sums(), table.col_sums()
    if table.weighted:
        if not (np.array_equal(table.values, np.round(table.values))):
            return float("nan")
        a, b = np.rint(a).astype(np.int64), np.rint(b).astype(np.int64)
    mi = mutual_info(table)
    emi = expected_mutual_information(a, b)
    normalizer = _generalized_average(class_entropy(table), cluster_entropy(table), average_method)
    denominator = normalizer - emi
    denominator = min(denominator, -_EPS) if denominator < 0 else max(denominator, _EPS)
    numerator = mi - emi
    numerator = min(numerator, -_EPS) if numerator < 0 else max(numerator, _EPS)
    return float(numerator / denominator)


def homogeneity_completeness_v_measure(
    table: ContingencyState, beta: float = 1.0
) -> tuple[float, float, float]:
    """(homogeneity, completeness, V-measure). :func:`sklearn.metrics.homogeneity_completeness_v_measure`.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> h, c, v = homogeneity_completeness_v_measure(contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]))
        >>> round(h, 2), round(c, 2), round(v, 2)
        (0.67, 0.42, 0.52)
    """
    entropy_c, entropy_k = class_entropy(table), cluster_entropy(table)
    mi = mutual_info(table)
    homogeneity = mi / entropy_c if entropy_c else 1.0
    completeness = mi / entropy_k if entropy_k else 1.0
    if homogeneity + completeness == 0.0:
        v_measure = 0.0
    else:
        v_measure = (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)
    return float(homogeneity), float(completeness), float(v_measure)


def homogeneity(table: ContingencyState) -> float:
    """Homogeneity ``1 - H(C|K) / H(C)``: each cluster holds one class. :func:`sklearn.metrics.homogeneity_score`.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> homogeneity(contingency([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2]))
        1.0
    """
    return homogeneity_completeness_v_measure(table)[0]


def completeness(table: ContingencyState) -> float:
    """Completeness ``1 - H(K|C) / H(K)``: each class in one cluster. :func:`sklearn.metrics.completeness_score`.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(completeness(contingency([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2])), 2)
        0.68
    """
    return homogeneity_completeness_v_measure(table)[1]


def v_measure(table: ContingencyState, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness. :func:`sklearn.metrics.v_measure_score`.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(v_measure(contingency([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2])), 2)
        0.81
    """
    return homogeneity_completeness_v_measure(table, beta)[2]


def conditional_entropy(table: ContingencyState) -> float:
    """Clustering entropy ``H(C|K) = -sum_ij p_ij log(n_ij / b_j)`` (nats; seed 004 "Entropy").

    The impurity of the clusters: 0 when every cluster holds one class. Seed 004 writes the
    sum with ``i`` running over the rows of its table and ``p_i`` as the outer weight; read
    literally with ``i`` = classes this would be ``H(K|C)``, which contradicts its own remark
    ("0 if every cluster consists of objects of one class"): the outer index is the cluster,
    as in Zhao and Karypis' definition, used here.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> conditional_entropy(contingency([0, 0, 1, 1], [0, 0, 1, 2]))
        0.0
    """
    v = table.values.astype(np.float64)
    if not v.size:
        return 0.0
    b = table.col_sums().astype(np.float64)
    total = v.sum()
    value = -np.sum((v / total) * (np.log(v) - np.log(b[table.cols])))
    return float(max(value, 0.0))


def variation_of_information(table: ContingencyState) -> float:
    """Variation of information ``H(C) + H(K) - 2 I(C; K)`` in nats (seed 004; Meila 2007).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> variation_of_information(contingency([0, 0, 1, 1], [1, 1, 0, 0]))
        0.0
    """
    value = class_entropy(table) + cluster_entropy(table) - 2.0 * mutual_info(table)
    return float(max(value, 0.0))
