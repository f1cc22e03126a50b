"""``average="samples"`` of the ranking metrics: each row's labels ranked by its own scores.

scikit-learn's ``average="samples"`` (multilabel input) computes the binary metric on every row
(the row's 0/1 labels against its scores) and averages the rows, weighted by ``sample_weight``.
A row's value depends on that row alone, so it is computed exactly when the row arrives and
the state is a sum: ``[sum of w * value, sum of w, sum of w over undefined rows]`` — exact,
mergeable and revertible, whatever the number of rows.

Examples:
    >>> import numpy as np
    >>> y = np.array([[1, 0, 1], [0, 1, 0]])
    >>> s = np.array([[0.9, 0.2, 0.4], [0.3, 0.6, 0.7]])
    >>> row_auc(y, s).tolist(), row_average_precision(y, s).tolist()
    ([1.0, 0.5], [1.0, 0.5])
    >>> row_partial_auc(y, s, 1.0).tolist()
    [1.0, 0.5]
"""

from __future__ import annotations

import numpy as np

from .formulas import mcclish

#: Rows per chunk so that the (rows, K, K) comparisons stay about 4 million cells.
_CELLS = 1 << 22


def _chunks(n: int, k: int) -> range:
    return range(0, n, max(1, _CELLS // max(1, k * k)))


def row_auc(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per row: P(score of a positive label > score of a negative one) + ties / 2 (NaN when the
    row holds one class only, as scikit-learn's binary ROC AUC)."""
    y = y.astype(bool)
    out = np.empty(len(y))
    step = _chunks(len(y), y.shape[1]).step
    for a in range(0, len(y), step):
        yc, sc = y[a : a + step], s[a : a + step]
        below = sc[:, None, :] < sc[:, :, None]  # [i, j, l]: label l scores below label j
        tie = sc[:, None, :] == sc[:, :, None]
        neg = ~yc[:, None, :]
        wins = ((below & neg).sum(axis=2) + 0.5 * (tie & neg).sum(axis=2)) * yc
        p, n = yc.sum(axis=1), (~yc).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[a : a + len(yc)] = np.where((p > 0) & (n > 0), wins.sum(axis=1) / (p * n), np.nan)
    return out


def row_average_precision(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per row: scikit-learn's step AP, the mean over positive labels of the precision at their
    score (ties share their threshold); 0 for a row without positives, as scikit-learn."""
    y = y.astype(bool)
    out = np.empty(len(y))
    step = _chunks(len(y), y.shape[1]).step
    for a in range(0, len(y), step):
        yc, sc = y[a : a + step], s[a : a + step]
        at_least = sc[:, None, :] >= sc[:, :, None]  # [i, j, l]: label l scores at least label j
        tp = (at_least & yc[:, None, :]).sum(axis=2)
        precision = tp / at_least.sum(axis=2)
        p = yc.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[a : a + len(yc)] = np.where(p > 0, (precision * yc).sum(axis=1) / p, 0.0)
    return out


def row_partial_auc(y: np.ndarray, s: np.ndarray, max_fpr: float) -> np.ndarray:
    """Per row: scikit-learn's standardized partial ROC AUC up to ``max_fpr`` (McClish), the area
    under the row's piecewise-linear ROC curve (ties: one diagonal step) from 0 to ``max_fpr``,
    mapped to [0.5, 1] for a curve between chance and perfect; NaN for a row of one class."""
    y = y.astype(bool)
    n, k = y.shape
    order = np.argsort(-s, axis=1, kind="stable")
    ys = np.take_along_axis(y, order, axis=1)
    ss = np.take_along_axis(s, order, axis=1)
    tp, fp = np.cumsum(ys, axis=1), np.cumsum(~ys, axis=1)
    # every position takes the counts at the end of its tie group (the curve's point there)
    last = np.ones((n, k), bool)
    last[:, :-1] = ss[:, 1:] != ss[:, :-1]
    end = np.where(last, np.arange(k), k)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
    tp, fp = np.take_along_axis(tp, end, axis=1), np.take_along_axis(fp, end, axis=1)
    p, q = tp[:, -1:].astype(np.float64), fp[:, -1:].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        x1, y1 = fp / q, tp / p
        x0 = np.concatenate([np.zeros((n, 1)), x1[:, :-1]], axis=1)
        y0 = np.concatenate([np.zeros((n, 1)), y1[:, :-1]], axis=1)
        right = np.minimum(x1, max_fpr)
        at_right = y0 + (y1 - y0) * np.where(x1 > x0, (right - x0) / (x1 - x0), 0.0)
        area = np.where(x0 < max_fpr, (right - x0) * (y0 + at_right) / 2, 0.0).sum(axis=1)
        out = mcclish(area, max_fpr)
    return np.where((p[:, 0] > 0) & (q[:, 0] > 0), out, np.nan)
