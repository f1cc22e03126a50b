"""External clustering indices: pure functions of a :class:`ContingencyState`.

Every function takes the table (from a metric's ``.state``, or built from in-memory labelings
with :func:`~streammetrics.clustering.contingency.contingency`) and returns a float. Sample
weights are frequency weights: a row of weight ``k`` counts as ``k`` identical rows, so the pair
counts use ``n(n - 1) / 2`` on weighted counts. Values agree with ``sklearn.metrics.cluster``,
special cases included (e.g. one class and one cluster give ARI 1.0).

Notation: ``n_ij`` the cells, ``a_i`` the class (row) totals, ``b_j`` the cluster (column)
totals, ``N`` the grand total; pair counts are those of :func:`pair_confusion_matrix`
(ordered pairs, as scikit-learn).

Examples:
    >>> from streammetrics.clustering.contingency import contingency
    >>> t = contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> round(adjusted_rand_index(t), 5), round(adjusted_mutual_info(t), 5)
    (0.24242, 0.29879)
    >>> round(adjusted_mutual_info(t, average_method="max"), 5)  # seed 001's value (the old default)
    0.22504
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .contingency import ContingencyState
from .emi import expected_mutual_information

AVERAGE_METHODS = ("arithmetic", "geometric", "min", "max")
_EPS = float(np.finfo(np.float64).eps)


def _totals(table: ContingencyState) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """(cells, class totals, cluster totals, N); exact ints while unweighted and small."""
    v, a, b = table.values, table.row_sums(), table.col_sums()
    n = table.total()
    if v.dtype.kind == "i" and n >= 3_000_000_000:  # squares could overflow int64
        v, a, b, n = v.astype(np.float64), a.astype(np.float64), b.astype(np.float64), float(n)
    return v, a, b, n


def pair_confusion_matrix(table: ContingencyState) -> np.ndarray:
    """The 2x2 pair confusion matrix ``[[C00, C01], [C10, C11]]`` over ordered pairs.

    ``C11``: pairs together in both labelings; ``C10``: together in the classes only; ``C01``:
    together in the clusters only; ``C00``: apart in both — as
    :func:`sklearn.metrics.cluster.pair_confusion_matrix` (int64, float64 when weighted).

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> pair_confusion_matrix(contingency([0, 0, 1, 1], [1, 1, 0, 0])).tolist()
        [[8, 0], [0, 4]]
    """
    v, a, b, n = _totals(table)
    s2 = (v * v).sum()
    c11 = s2 - n
    c01 = (b * b).sum() - s2
    c10 = (a * a).sum() - s2
    c00 = n * n - c01 - c10 - s2
    dtype = np.float64 if isinstance(n, float) or v.dtype.kind == "f" else np.int64
    return np.array([[c00, c01], [c10, c11]], dtype=dtype)


def _pairs(table: ContingencyState) -> tuple[Any, Any, Any, Any]:
    (tn, fp), (fn, tp) = pair_confusion_matrix(table).tolist()
    return tn, fp, fn, tp


def rand_index(table: ContingencyState) -> float:
    """Rand index: share of pairs on which both labelings agree. :func:`sklearn.metrics.rand_score`.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> rand_index(contingency([0, 0, 1, 2], [0, 0, 1, 1]))
        0.8333333333333334
    """
    tn, fp, fn, tp = _pairs(table)
    numerator, denominator = tn + tp, tn + fp + fn + tp
    if numerator == denominator or denominator == 0:
        return 1.0
    return float(numerator / denominator)


def adjusted_rand_index(table: ContingencyState) -> float:
    """Adjusted Rand index (Hubert and Arabie). :func:`sklearn.metrics.adjusted_rand_score`.

    Seed 001's reference code returns 1.0 for the special cases (one class and one cluster, or
    every sample alone); the pair-count form used here (that of current scikit-learn) returns
    1.0 whenever the two labelings agree on every pair, which covers them.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> round(adjusted_rand_index(contingency([0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2])), 5)
        -0.12903
    """
    tn, fp, fn, tp = _pairs(table)
    if fn == 0 and fp == 0:
        return 1.0
    return float(2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)))


def fowlkes_mallows_index(table: ContingencyState) -> float:
    """Fowlkes-Mallows index ``TP / sqrt((TP + FP)(TP + FN))`` over pairs.

    :func:`sklearn.metrics.fowlkes_mallows_score` (0.0 when no pair is together in both).

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> round(fowlkes_mallows_index(contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])), 5)
        0.4714
    """
    v, a, b, n = _totals(table)
    tk = (v * v).sum() - n
    pk = (b * b).sum() - n
    qk = (a * a).sum() - n
    # tk / sqrt(pk qk) rather than scikit-learn's sqrt(tk/pk) sqrt(tk/qk): the same for counts,
    # and it keeps the sign when fractional weights make the pair totals negative.
    return float(tk / np.sqrt(pk * qk)) if tk != 0 else 0.0


def pair_jaccard(table: ContingencyState) -> float:
    """Pair-counting Jaccard index ``TP / (TP + FP + FN)`` (seed 004).

    Pairs apart in both labelings are ignored. When no pair is together in either labeling (both
    put every sample alone) the labelings agree and the value is 1.0.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> pair_jaccard(contingency([0, 0, 0, 1], [0, 0, 1, 1]))
        0.25
    """
    _tn, fp, fn, tp = _pairs(table)
    if fp == 0 and fn == 0:
        return 1.0
    return float(tp / (tp + fp + fn))


def phi_index(table: ContingencyState) -> float:
    """Phi coefficient of the pair confusion matrix (seed 004).

    ``(TP TN - FP FN) / sqrt((TP + FN)(TP + FP)(TN + FN)(TN + FP))``. Seed 004 prints the
    denominator without its square root (a typo: without it the value is not a correlation and
    not scale free); the square root of the classic phi coefficient is used. Identical
    labelings give 1.0; a zero margin otherwise gives 0.0 (as scikit-learn's MCC).

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> phi_index(contingency([0, 0, 1, 1], [0, 0, 1, 1]))
        1.0
    """
    tn, fp, fn, tp = _pairs(table)
    if fp == 0 and fn == 0:
        return 1.0
    denominator = float(tp + fn) * float(tp + fp) * float(tn + fn) * float(tn + fp)
    if denominator == 0:
        return 0.0
    return float((tp * tn - fp * fn) / math.sqrt(denominator))


def minkowski_score(table: ContingencyState) -> float:
    """Minkowski score ``sqrt((FP + FN) / (TP + FN))``: distance to the true partition (lower is better).

    Seed 004 divides by the cluster pairs ``sum_j C(b_j, 2)``; the reference definition (Jiang,
    Tang and Zhang 2004: ``||T - C|| / ||T||`` with ``T`` the true partition) divides by the
    class pairs ``sum_i C(a_i, 2)``, used here. 0.0 for identical labelings; undefined (NaN)
    when the classes put every sample alone but the clusters do not.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> minkowski_score(contingency([0, 0, 1, 1], [0, 0, 0, 0]))
        1.4142135623730951
    """
    _tn, fp, fn, tp = _pairs(table)
    if fp == 0 and fn == 0:
        return 0.0
    if tp + fn == 0:
        return float("nan")
    return float(math.sqrt((fp + fn) / (tp + fn)))


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
        >>> from streammetrics.clustering.contingency import contingency
        >>> round(class_entropy(contingency([0, 1], [0, 0])), 6)
        0.693147
    """
    return _entropy_of(table.row_sums())


def cluster_entropy(table: ContingencyState) -> float:
    """Entropy ``H(K)`` of the clusters (nats).

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> cluster_entropy(contingency([0, 1], [0, 0]))
        0.0
    """
    return _entropy_of(table.col_sums())


def mutual_info(table: ContingencyState) -> float:
    """Mutual information ``I(C; K)`` in nats. :func:`sklearn.metrics.mutual_info_score`.

    Computed as scikit-learn does (``log(a / b)`` as ``log a - log b``; terms below machine
    epsilon set to 0; the sum clipped at 0).

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
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
        >>> from streammetrics.clustering.contingency import contingency
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
    :func:`~streammetrics.clustering.emi.expected_mutual_information`. Needs whole-number
    counts (integer sample weights); a table of fractional weights gives NaN.

    Seed 001's worked examples (0.22504..., -0.10526...) were printed when scikit-learn's
    default was ``average_method="max"`` (before version 0.22); the default here is that of
    current scikit-learn, ``"arithmetic"``.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
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
        >>> from streammetrics.clustering.contingency import contingency
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
        >>> from streammetrics.clustering.contingency import contingency
        >>> homogeneity(contingency([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2]))
        1.0
    """
    return homogeneity_completeness_v_measure(table)[0]


def completeness(table: ContingencyState) -> float:
    """Completeness ``1 - H(K|C) / H(K)``: each class in one cluster. :func:`sklearn.metrics.completeness_score`.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> round(completeness(contingency([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2])), 2)
        0.68
    """
    return homogeneity_completeness_v_measure(table)[1]


def v_measure(table: ContingencyState, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness. :func:`sklearn.metrics.v_measure_score`.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
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
        >>> from streammetrics.clustering.contingency import contingency
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


def purity(table: ContingencyState) -> float:
    """Purity ``sum_j max_i n_ij / N``: each cluster is labelled by its largest class (seed 004).

    Seed 004 writes ``sum_i p_i max_j p_ij / p_i`` with ``i`` the clusters (its text: "assigns
    to each cluster its most numerous class"); with ``i`` read as classes it would be the
    inverse purity. The cluster reading (Zhao and Karypis; Manning et al.) is used.

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
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
        >>> from streammetrics.clustering.contingency import contingency
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
        >>> from streammetrics.clustering.contingency import contingency
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


def variation_of_information(table: ContingencyState) -> float:
    """Variation of information ``H(C) + H(K) - 2 I(C; K)`` in nats (seed 004; Meila 2007).

    Examples:
        >>> from streammetrics.clustering.contingency import contingency
        >>> variation_of_information(contingency([0, 0, 1, 1], [1, 1, 0, 0]))
        0.0
    """
    value = class_entropy(table) + cluster_entropy(table) - 2.0 * mutual_info(table)
    return float(max(value, 0.0))
