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
"""

from __future__ import annotations

import numpy as np

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
