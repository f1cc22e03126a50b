"""Averaging per-class values, and the ``zero_division`` policy, as scikit-learn does it."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import UndefinedMetricWarning
from .counts import ConfusionCounts

RateFn = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
AVERAGES = ("binary", "micro", "macro", "weighted", "samples", None)


def apply_zero_division(values: np.ndarray, zero_division: Any, warn_value: float, name: str) -> np.ndarray:
    """Replace undefined (NaN) entries by the policy value; warn when the policy is ``"warn"``.

    Examples:
        >>> import numpy as np, warnings
        >>> apply_zero_division(np.array([0.5, np.nan]), 1.0, 0.0, "Precision").tolist()
        [0.5, 1.0]
    """
    undefined = np.isnan(values)
    if not undefined.any():
        return values
    values = values.copy()
    if zero_division == "warn":
        values[undefined] = warn_value
        warnings.warn(
            f"{name} is ill-defined (zero division) for {int(undefined.sum())} of {values.size} "
            f"value(s) and set to {warn_value}; use zero_division to choose the value",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    else:
        values[undefined] = zero_division
    return values


def nan_average(values: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Weighted mean ignoring NaN (scikit-learn's ``_nanaverage``); NaN if nothing is left.

    Examples:
        >>> import numpy as np
        >>> nan_average(np.array([0.2, np.nan, 0.6]), np.array([1.0, 5.0, 3.0]))
        0.49999999999999994
    """
    keep = ~np.isnan(values)
    if not keep.any():
        return float("nan")
    values = values[keep]
    if weights is None:
        return float(values.mean())
    weights = weights[keep]
    if weights.sum() == 0:  # all weights zero: ignore them, as scikit-learn
        return float(values.mean())
    return float(np.average(values, weights=weights))


def at_prevalence(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray, prevalence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rescale 2x2 counts so that positives make ``prevalence`` of the total (seed 003).

    Sensitivity and specificity are kept; the predictive values, accuracy, F-scores and the
    like then describe a deployment where the positive class has that prevalence.

    Examples:
        >>> import numpy as np
        >>> [float(a[0]) for a in at_prevalence(*(np.array([v], float) for v in (8, 2, 2, 8)), 0.1)]
        [0.08, 0.18, 0.02, 0.72]
    """
    pos, neg = tp + fn, fp + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        p_scale = np.where(pos > 0, prevalence / np.where(pos > 0, pos, 1), np.nan)
        n_scale = np.where(neg > 0, (1 - prevalence) / np.where(neg > 0, neg, 1), np.nan)
    return tp * p_scale, fp * n_scale, fn * p_scale, tn * n_scale


def class_counts(counts: ConfusionCounts, average: Any, pos_label: Any) -> tuple[np.ndarray, ...]:
    """The (tp, fp, fn, tn) arrays the average works on: per class, one class, or summed.

    Examples:
        >>> import numpy as np
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 1]), np.array([0, 1, 0]), None)
        >>> [a.tolist() for a in class_counts(s, "binary", 1)]
        [[1.0], [0.0], [1.0], [1.0]]
    """
    tp, fp, fn, tn = counts.one_vs_rest()
    if average == "binary":
        index = counts.labels.index_of(pos_label)
        if index is None:  # the positive class never occurred: everything is a negative
            total = counts.total_weight
            return tuple(np.array([v]) for v in (0.0, 0.0, 0.0, total))
        return tuple(a[index : index + 1] for a in (tp, fp, fn, tn))
    if average == "micro":
        return tuple(np.array([a.sum()]) for a in (tp, fp, fn, tn))
    return tp, fp, fn, tn


def score(
    counts: ConfusionCounts,
    rate: RateFn,
    *,
    average: Any = "binary",
    pos_label: Any = 1,
    zero_division: Any = "warn",
    warn_value: float = 0.0,
    name: str = "metric",
    prevalence: float | None = None,
) -> float | np.ndarray:
    """Evaluate a per-class ``rate`` on ``counts`` and average it as scikit-learn does.

    ``average=None`` returns one value per label (in ``counts.labels`` order); ``"samples"``
    (multilabel) averages the per-sample values using the exact per-sample histogram.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification import rates
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 2]), None)
        >>> score(s, rates.ppv, average="macro", zero_division=0.0)
        0.5555555555555555
    """
    if average == "samples":
        tp, fp, fn, tn, w = counts.samplewise()
        values = apply_zero_division(rate(tp, fp, fn, tn), zero_division, warn_value, name)
        return nan_average(values, w)
    tp, fp, fn, tn = class_counts(counts, average, pos_label)
    if prevalence is not None:
        tp, fp, fn, tn = at_prevalence(tp, fp, fn, tn, prevalence)
    values = apply_zero_division(rate(tp, fp, fn, tn), zero_division, warn_value, name)
    if average is None:
        return values
    if average == "weighted":
        return nan_average(values, tp + fn)
    if average == "macro":
        return nan_average(values)
    return float(values[0])
