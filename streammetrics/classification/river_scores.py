"""Whole-matrix multiclass scores from river: per-class F-beta with per-class betas, and the G-mean.

Both read the multiclass confusion counts (shared with :class:`~streammetrics.F1` and the other
confusion metrics of a collection that parse alike) and run over the classes *seen*, in
``y_true`` or ``y_pred``, as river's ``MultiFBeta`` and ``GeometricMean`` do.

Examples:
    >>> import streammetrics as sm
    >>> y_true, y_pred = [0, 1, 2, 2, 2], [0, 0, 2, 2, 1]
    >>> m = sm.MultiFBeta(betas={0: 0.25, 1: 1, 2: 4}, weights={0: 1, 1: 1, 2: 2})
    >>> round(m.update(y_true, y_pred).compute(), 6)  # river's example: 46.88%
    0.468788
    >>> y_true = ["cat", "ant", "cat", "cat", "ant", "bird", "bird"]
    >>> y_pred = ["ant", "ant", "cat", "cat", "ant", "cat", "bird"]
    >>> round(sm.GeometricMean().update(y_true, y_pred).compute(), 4)  # river's example: 69.34%
    0.6934
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from .._core.labels import LabelSet
from .._core.params import plain
from ..errors import InputError, UndefinedMetricWarning
from .base import ConfusionMetric
from .counts import ConfusionCounts


def _pairs(value: Any, name: str) -> list[list[Any]]:
    """A ``{label: number}`` dict (or a list of ``[label, number]`` pairs) as checked pairs."""
    items = list(value.items()) if isinstance(value, dict) else value
    try:
        pairs = [[plain(label), number] for label, number in items]
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a dict {{label: number}}, found {value!r}") from None
    if not pairs:
        raise ValueError(f"{name}: expected at least one label, found {value!r}")
    for label, number in pairs:
        if isinstance(number, bool) or not isinstance(number, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name}: expected a number for label {label!r}, found {number!r}")
        if not (math.isfinite(number) and number >= 0):
            raise ValueError(
                f"{name}: expected a finite non-negative number for label {label!r}, found {number!r}"
            )
    LabelSet([label for label, _ in pairs])  # raises ValueError on duplicates or mixed kinds
    return [[label, float(number)] for label, number in pairs]


def _seen(state: ConfusionCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(labels, tp, true counts, predicted counts)`` of the classes with any count."""
    right, true, pred = state.class_totals()
    seen = (true + pred) > 0
    return np.asarray(state.labels.tolist(), dtype=object)[seen], right[seen], true[seen], pred[seen]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, 0 where ``den`` is 0 (river's convention for precision and recall)."""
    return np.divide(num, den, out=np.zeros_like(num), where=den != 0)


class _RiverMulticlass(ConfusionMetric, base=True):
    """Multiclass labels only (no multilabel indicators), over the classes seen."""

    higher_is_better: ClassVar[bool | None] = True

    def _check_mode(self, mode: str) -> None:
        if mode == "multilabel":
            raise InputError(
                f"y_true: {type(self).__name__} takes binary or multiclass labels, found a 2-D multilabel indicator"
            )

    def _undefined(self, why: str) -> float:
        warnings.warn(
            f"{type(self).__name__} is undefined: {why}; returning NaN", UndefinedMetricWarning, stacklevel=5
        )
        return float("nan")


class MultiFBeta(_RiverMulticlass):
    """Multiclass F-beta with one beta per class: the (weighted) mean of each class's F-beta (river).

    ``sum_c w_c F_beta_c(p_c, r_c) / sum_c w_c`` over the classes seen (in ``y_true`` or
    ``y_pred``), ``F_beta = (1 + b^2) p r / (b^2 p + r)``, with precision ``p`` and recall ``r``
    taken as 0 where undefined and a class with ``p = r = 0`` adding 0 (its weight still
    counts), as ``river.metrics.MultiFBeta``. Every label must have a beta: a row with another
    label raises :class:`~streammetrics.InputError`.

    Args:
        betas: ``{label: beta}``, beta >= 0 (a list of ``[label, beta]`` pairs also works).
        weights: ``{label: weight}`` (>= 0) for the mean; ``None`` (default): 1 for every class; a
            label left out weighs 1.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.MultiFBeta(betas={"a": 1.0, "b": 2.0})
        >>> round(m.update(["a", "a", "b"], ["a", "b", "b"]).compute(), 6)
        0.75
    """

    def __init__(self, betas: Any, weights: Any = None) -> None:
        self.betas = _pairs(betas, "betas")
        labels = [label for label, _ in self.betas]
        self.weights = None if weights is None else _pairs(weights, "weights")
        if self.weights is not None:
            unknown = [label for label, _ in self.weights if label not in labels]
            if unknown:
                raise ValueError(f"weights: expected labels among the betas' {labels}, found {unknown}")
        super().__init__(labels=labels)

    def get_config(self) -> dict[str, Any]:
        return {"betas": self.betas, "weights": self.weights}

    def _compute(self, state: ConfusionCounts) -> float:
        labels, tp, true, pred = _seen(state)
        beta = dict((label, b) for label, b in self.betas)
        weight = dict((label, w) for label, w in self.weights or ())
        b2 = np.array([beta[label] ** 2 for label in labels])
        w = np.array([weight.get(label, 1.0) for label in labels])
        p, r = _ratio(tp, pred), _ratio(tp, true)
        den = b2 * p + r
        f = np.divide((1.0 + b2) * p * r, den, out=np.zeros_like(den), where=den != 0)
        if w.sum() == 0:
            return self._undefined("every class seen weighs 0")
        return float(np.sum(w * f) / w.sum())


class GeometricMean(_RiverMulticlass):
    """Geometric mean of the per-class recalls, ``(prod_c r_c)^(1/K)`` over the K classes seen (river).

    Balanced for imbalanced classes; for two classes it is ``sqrt(sensitivity * specificity)``.
    A class seen only in ``y_pred`` has recall 0, so the mean is then 0, as
    ``river.metrics.GeometricMean``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.GeometricMean().update([0, 0, 1, 1], [0, 1, 1, 1]).compute(), 6)  # sqrt(1/2 * 1)
        0.707107
    """

    def __init__(self) -> None:
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {}

    def _compute(self, state: ConfusionCounts) -> float:
        _, tp, true, _ = _seen(state)
        recall = _ratio(tp, true)
        with np.errstate(divide="ignore"):
            return float(np.exp(np.mean(np.log(recall))))
