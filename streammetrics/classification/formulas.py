"""Formulas on a whole confusion matrix (not a per-class average), as pure functions of a state.

These are the multiclass definitions scikit-learn uses for accuracy, balanced accuracy,
Matthews correlation, Cohen's kappa, Hamming loss and subset accuracy. Past
:data:`~streammetrics.classification.counts.MAX_CLASSES` classes the counts are each class's
(tp, fp, fn), not the matrix: all of these but weighted kappa read only the diagonal and the two
margins (:meth:`ConfusionCounts.class_totals`).

Examples:
    >>> import numpy as np
    >>> from streammetrics.classification.counts import ConfusionCounts
    >>> s = ConfusionCounts()
    >>> s.add_multiclass(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 2]), None)
    >>> multiclass_accuracy(s), round(matthews_corrcoef(s), 6)
    (0.75, 0.645497)
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import UndefinedMetricWarning
from .counts import ConfusionCounts


def multiclass_accuracy(counts: ConfusionCounts, normalize: bool = True) -> float:
    """Fraction of rows whose predicted label equals the true label (their weight with ``normalize=False``).

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), None)
        >>> multiclass_accuracy(s)
        0.8
    """
    if not counts.dense:
        right, true, _ = counts.class_totals()
        return float(right.sum() / true.sum()) if normalize else float(right.sum())
    m = counts.matrix
    return float(np.trace(m) / m.sum()) if normalize else float(np.trace(m))


def subset_accuracy(counts: ConfusionCounts, normalize: bool = True) -> float:
    """Fraction of rows predicted exactly (every label right, for multilabel input).

    ``normalize=False`` gives their number (their total weight when weighted).

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), None)
        >>> subset_accuracy(s)
        0.8
    """
    if counts.mode != "multilabel":
        return multiclass_accuracy(counts, normalize)
    _tp, fp, fn, _, w = counts.samplewise()
    right = float(w[(fp == 0) & (fn == 0)].sum())
    return right / float(w.sum()) if normalize else right


def hamming_loss(counts: ConfusionCounts) -> float:
    """Fraction of wrong labels: wrong rows (multiclass) or wrong cells (multilabel).

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), None)
        >>> hamming_loss(s)
        0.19999999999999996
    """
    if counts.mode != "multilabel":
        return 1.0 - multiclass_accuracy(counts)
    m = counts.matrix.astype(np.float64)
    return float((m[:, 0, 1].sum() + m[:, 1, 0].sum()) / m.sum())


def balanced_accuracy(counts: ConfusionCounts, adjusted: bool = False) -> float:
    """Mean recall over the classes present in y_true (chance-adjusted if ``adjusted``).

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), None)
        >>> balanced_accuracy(s)
        0.8333333333333334
    """
    right, support, _ = counts.class_totals()
    present = support > 0
    if not present.all():
        warnings.warn("y_pred contains classes not in y_true", UndefinedMetricWarning, stacklevel=3)
    per_class = right[present] / support[present]
    value = float(per_class.mean())
    if adjusted:
        if len(per_class) < 2:
            warnings.warn(
                "adjusted balanced accuracy is undefined with one class in y_true; returning NaN",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return float("nan")
        chance = 1.0 / len(per_class)
        value = (value - chance) / (1.0 - chance)
    return value


def matthews_corrcoef(counts: ConfusionCounts) -> float:
    """The multiclass Matthews correlation (Gorodkin's R_K); 0.0 when undefined, as scikit-learn.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), None)
        >>> round(matthews_corrcoef(s), 6)
        0.734968
    """
    if counts.dense:
        m = counts.matrix.astype(np.float64)
        t_sum, p_sum = m.sum(axis=1), m.sum(axis=0)
        n_correct, n = np.trace(m), m.sum()
    else:
        right, t_sum, p_sum = counts.class_totals()
        n_correct, n = right.sum(), t_sum.sum()
    cov_ytyp = n_correct * n - t_sum @ p_sum
    cov_ypyp = n * n - p_sum @ p_sum
    cov_ytyt = n * n - t_sum @ t_sum
    if cov_ypyp * cov_ytyt == 0:
        return 0.0
    return float(cov_ytyp / np.sqrt(cov_ytyt * cov_ypyp))


def cohen_kappa(
    counts: ConfusionCounts, weights: str | None = None, undefined: float = float("nan")
) -> float:
    """Cohen's kappa (unweighted, linear or quadratic weights) over the label order.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), None)
        >>> round(cohen_kappa(s, "quadratic"), 6)
        0.83871
    """
    if not counts.dense:
        return _unweighted_kappa(counts, undefined)  # (weights need the matrix: refused past it)
    m = counts.matrix.astype(np.float64)
    k = m.shape[0]
    if m.sum() == 0:  # no row in the chosen labels' block (labels= none of whose labels occurs)
        warnings.warn(
            f"Cohen's kappa is undefined (no row among the chosen labels); returning {undefined}",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return undefined
    expected = np.outer(m.sum(axis=1), m.sum(axis=0)) / m.sum()
    if weights is None:
        w = 1.0 - np.eye(k)
    else:
        grid = np.arange(k, dtype=np.float64)
        diff = np.abs(grid[:, None] - grid[None, :])
        w = diff if weights == "linear" else diff**2
    den = float((w * expected).sum())
    if den == 0:
        warnings.warn(
            f"Cohen's kappa is undefined (only one label in common); returning {undefined}",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return undefined
    return float(1.0 - (w * m).sum() / den)


def _unweighted_kappa(counts: ConfusionCounts, undefined: float) -> float:
    """Cohen's kappa from the diagonal and the margins: ``1 - (n - trace) / (n - t . p / n)``,
    the observed disagreement over the expected one."""
    right, t_sum, p_sum = counts.class_totals()
    n = t_sum.sum()
    den = float(n - (t_sum @ p_sum) / n) if n > 0 else 0.0
    if den == 0:
        warnings.warn(
            f"Cohen's kappa is undefined ({'no row' if n == 0 else 'only one label in common'}); "
            f"returning {undefined}",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return undefined
    return float(1.0 - (n - right.sum()) / den)
