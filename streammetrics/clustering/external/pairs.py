"""Pair-counting external indices: pure functions of a :class:`ContingencyState`.

Every function takes the table (from a metric's ``.state``, or built from in-memory labelings
with :func:`~streammetrics.clustering.external.contingency.contingency`) and returns a float (the
pair confusion matrix an array). Pairs are ordered pairs of samples, as scikit-learn's
:func:`pair_confusion_matrix`; sample weights are frequency weights, so a row of weight ``k``
counts as ``k`` identical rows and the pair counts use ``n(n - 1)`` on weighted counts. Values
agree with ``sklearn.metrics.cluster``, special cases included (one class and one cluster give
ARI 1.0).

Notation: ``n_ij`` the cells, ``a_i`` the class (row) totals, ``b_j`` the cluster (column)
totals, ``N`` the grand total.

Examples:
    >>> from streammetrics.clustering.external.contingency import contingency
    >>> t = contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> round(adjusted_rand_index(t), 5), round(rand_index(t), 5)
    (0.24242, 0.66667)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .contingency import ContingencyState


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
        >>> from streammetrics.clustering.external.contingency import contingency
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
        >>> from streammetrics.clustering.external.contingency import contingency
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
        >>> from streammetrics.clustering.external.contingency import contingency
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
        >>> from streammetrics.clustering.external.contingency import contingency
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
        >>> from streammetrics.clustering.external.contingency import contingency
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
        >>> from streammetrics.clustering.external.contingency import contingency
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
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> minkowski_score(contingency([0, 0, 1, 1], [0, 0, 0, 0]))
        1.4142135623730951
    """
    _tn, fp, fn, tp = _pairs(table)
    if fp == 0 and fn == 0:
        return 0.0
    if tp + fn == 0:
        return float("nan")
    return float(math.sqrt((fp + fn) / (tp + fn)))
