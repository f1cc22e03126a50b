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


def _ratio(numerator: Any, denominator: Any) -> float:
    """``numerator / denominator``; NaN where the denominator is 0 (only frequency weights below 1
    make pair counts cancel so: Python's division would raise)."""
    return float(numerator / denominator) if denominator != 0 else math.nan


def _square_sum(x: np.ndarray, exact: bool) -> Any:
    """``sum x^2``: a Python int for counts (exact at any size), a float for weights."""
    if x.dtype.kind == "f":
        return float(np.dot(x, x))
    if not exact:
        return int(np.dot(x, x))
    return sum(int(c) * int(c) for c in x.tolist())


def _sums_of_squares(table: ContingencyState) -> tuple[Any, Any, Any, Any]:
    """``(sum n_ij^2, sum a_i^2, sum b_j^2, N)``: exact Python ints while unweighted.

    The squares are summed in int64 while ``N^2`` fits (below about 3e9 rows), else in Python
    ints; products of these (about ``N^4``) are taken by the callers in Python ints too, where
    int64 would wrap above 55,000 rows.
    """
    v = table.values
    n = table.total()
    exact = v.dtype.kind == "i" and n >= 3_000_000_000  # a square sum could overflow int64
    return (
        _square_sum(v, exact),
        _square_sum(table.row_sums(), exact),
        _square_sum(table.col_sums(), exact),
        n,
    )


def _pairs(table: ContingencyState) -> tuple[Any, Any, Any, Any]:
    """``(C00, C01, C10, C11)`` as Python ints (counts) or floats (weights)."""
    s2, sa, sb, n = _sums_of_squares(table)
    c01, c10 = sb - s2, sa - s2
    return n * n - c01 - c10 - s2, c01, c10, s2 - n


def pair_confusion_matrix(table: ContingencyState) -> np.ndarray:
    """The 2x2 pair confusion matrix ``[[C00, C01], [C10, C11]]`` over ordered pairs.

    ``C11``: pairs together in both labelings; ``C10``: together in the classes only; ``C01``:
    together in the clusters only; ``C00``: apart in both — as
    :func:`sklearn.metrics.cluster.pair_confusion_matrix` (int64, float64 when weighted, or
    when a count is beyond int64: above about 3e9 rows, where scikit-learn's int64 wraps).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> pair_confusion_matrix(contingency([0, 0, 1, 1], [1, 1, 0, 0])).tolist()
        [[8, 0], [0, 4]]
    """
    c00, c01, c10, c11 = _pairs(table)
    cells = [[c00, c01], [c10, c11]]
    exact = all(isinstance(c, int) and -(2**63) <= c < 2**63 for c in (c00, c01, c10, c11))
    return np.array(cells, dtype=np.int64) if exact else np.array(cells, dtype=np.float64)


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
    return _ratio(2.0 * (tp * tn - fn * fp), (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def fowlkes_mallows_index(table: ContingencyState) -> float:
    """Fowlkes-Mallows index ``TP / sqrt((TP + FP)(TP + FN))`` over pairs.

    :func:`sklearn.metrics.fowlkes_mallows_score` (0.0 when no pair is together in both).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(fowlkes_mallows_index(contingency([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])), 5)
        0.4714
    """
    s2, sa, sb, n = _sums_of_squares(table)
    # Python numbers: pk * qk (about N^4) wraps int64 above 55,000 rows; Python ints are exact
    # and divide into correctly rounded floats.
    tk, pk, qk = s2 - n, sb - n, sa - n
    if tk == 0:
        return 0.0
    if isinstance(tk, int) and isinstance(pk, int) and isinstance(qk, int):
        return math.sqrt(tk / pk) * math.sqrt(tk / qk)  # scikit-learn's form (all three >= 0)
    # tk / sqrt(pk qk) rather than scikit-learn's form: it keeps the sign when fractional weights
    # make the pair totals negative; undefined (NaN) where such weights make pk qk zero or negative
    product = pk * qk
    return float(tk / math.sqrt(product)) if product > 0 else math.nan


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
    return _ratio(tp, tp + fp + fn)


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
    margins = [float(tp + fn), float(tp + fp), float(tn + fn), float(tn + fp)]
    if 0.0 in margins:
        return 0.0
    if min(margins) < 0:  # (frequency weights below 1 make pair counts negative)
        return math.nan
    # the square root of each margin: their product overflows from pair counts near 1e77 (weights
    # of 1e39), where the value was 0.0
    root = math.prod(map(math.sqrt, margins))
    return _ratio(float(tp) * float(tn) - float(fp) * float(fn), root)


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
    ratio = (fp + fn) / (tp + fn)  # (negative only where weights below 1 make pair counts so)
    return float(math.sqrt(ratio)) if ratio >= 0 else math.nan
