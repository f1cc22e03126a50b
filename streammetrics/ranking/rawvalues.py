"""ROC AUC and average precision straight from raw score keys, every score column at once.

A sketch whose samples all still wait in its pending buffer (a fresh batch in ``metric(y, p)``,
or a small stream before its first fold) and whose columns would be exact holds nothing more
than these rows: their values are computed here from one sort per column (one ``argsort``
along the rows of the ``(rows, columns)`` key array) instead of building the columns first.
The results are the exact values (as the exact columns give, to rounding).

Examples:
    >>> import numpy as np
    >>> keys = np.array([[1], [4], [3], [8]], np.uint64)
    >>> groups = np.array([[0], [0], [1], [1]])
    >>> auc, pos = roc_auc_columns(keys, groups, None)
    >>> auc.tolist(), pos.tolist()
    ([0.75], [2.0])
"""

from __future__ import annotations

import numpy as np


def tie_tables(
    keys: np.ndarray, groups: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per column and distinct key (ascending, padded with zeros to ``rows``): the positive
    (group 1) and negative (group 0) weights, as two ``(columns, rows)`` arrays."""
    n, c = keys.shape
    order = np.argsort(keys, axis=0)
    sk = np.take_along_axis(keys, order, 0)
    pos = np.take_along_axis(np.asarray(groups), order, 0) == 1
    new = np.empty((n, c), np.int64)
    new[:1] = 0
    np.not_equal(sk[1:], sk[:-1], out=new[1:], casting="unsafe")
    gid = np.cumsum(new, axis=0)
    gid += np.arange(c) * n
    flat = gid.ravel()
    if weights is None:
        wp = pos.ravel().astype(np.float64)
        wt = None
    else:
        w = np.asarray(weights, np.float64)[order]
        wp = np.where(pos, w, 0.0).ravel()
        wt = w.ravel()
    p = np.bincount(flat, weights=wp, minlength=n * c).reshape(c, n)
    t = np.bincount(flat, minlength=n * c) if wt is None else np.bincount(flat, weights=wt, minlength=n * c)
    neg = t.reshape(c, n) - p
    return p, neg


_TOP = np.uint64(1 << 63)


def _packed_sort(keys: np.ndarray, groups: np.ndarray) -> np.ndarray | None:
    """Unweighted keys below ``2**63`` (every probability key) with their group bit appended,
    sorted along each column as ``(columns, rows)``: one sort of contiguous rows, no ``argsort``
    and gathers; ``None`` for larger keys."""
    if keys.size and keys.max() >= _TOP:
        return None
    packed = np.ascontiguousarray(keys.T) << np.uint64(1)
    packed |= np.asarray(groups).T == 1
    packed.sort(axis=1)
    return packed


def _roc_auc_packed(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ROC AUC per column of sorted packed keys (negatives first within a tie), in integers: each
    positive counts the negatives before it, less half of those tied with it."""
    c, n = packed.shape
    pos = (packed & np.uint64(1)).view(np.int64)
    cum_pos = np.cumsum(pos, axis=1)
    neg_before = np.arange(1, n + 1) - cum_pos  # negatives at or before each position
    twice = 2 * (pos * neg_before).sum(axis=1)
    key = packed >> np.uint64(1)
    tied = key[:, 1:] == key[:, :-1]
    if tied.any():  # a positive's tied negatives counted half: per tie, positives x negatives
        new = np.ones((c, n), np.int64)
        new[:, 1:] = ~tied
        gid = (np.cumsum(new, axis=1) - 1 + (np.arange(c) * n)[:, None]).ravel()
        p_tie = np.bincount(gid, weights=pos.ravel(), minlength=c * n)
        n_tie = np.bincount(gid, minlength=c * n) - p_tie
        twice -= (p_tie * n_tie).reshape(c, n).sum(axis=1).astype(np.int64)
    pt = cum_pos[:, -1] if n else np.zeros(c, np.int64)
    nt = n - pt
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = np.where((pt > 0) & (nt > 0), twice / (2.0 * pt * nt), np.nan)
    return auc, pt.astype(np.float64)


def roc_auc_columns(
    keys: np.ndarray, groups: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per column: ROC AUC of group 1 against group 0 (ties count half; NaN without both) and
    the positive weight."""
    packed = _packed_sort(keys, groups) if weights is None else None
    if packed is not None:
        return _roc_auc_packed(packed)
    p, n = tie_tables(keys, groups, weights)
    below = np.cumsum(n, axis=1)
    below -= n
    below += 0.5 * n
    num = (p * below).sum(axis=1)
    pt, nt = p.sum(axis=1), n.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = np.where((pt > 0) & (nt > 0), num / (pt * nt), np.nan)
    return auc, pt


def average_precision_columns(
    keys: np.ndarray, groups: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per column: scikit-learn's average precision ``sum_k (R_k - R_{k-1}) P_k`` over the
    distinct scores from the top (NaN without positives) and the positive weight."""
    p, n = tie_tables(keys, groups, weights)
    tp = np.cumsum(p[:, ::-1], axis=1)[:, ::-1]
    fp = np.cumsum(n[:, ::-1], axis=1)[:, ::-1]
    pt = tp[:, 0] if tp.shape[1] else np.zeros(len(p))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(p > 0, tp / (tp + fp), 0.0)
        ap = np.where(pt > 0, (p * precision).sum(axis=1) / pt, np.nan)
    return ap, pt
