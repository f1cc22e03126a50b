"""Operating points on the score sketch (issue 17): the best threshold under a constraint, the
equal error rate, LogAUC and the DET curve.

Each reads the sketch's binary views through :mod:`.points`: exact while the sketch is exact
(below its byte budget, or ``exact=True``), otherwise the value read at the bin edges (achieved
by the threshold returned) with guaranteed ``bounds()``. Binary input gives one value;
multiclass (one-vs-rest, each class's column against the others) and multilabel input give one
per class, as torchmetrics' ``multiclass_*`` and ``multilabel_*`` functions.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from .._core.approximate import Estimate, bounded
from .._core.params import check_number, check_option
from ..errors import UndefinedMetricWarning
from . import formulas as f
from . import points as pt
from .base import DEFAULT_MAX_BINS, DEFAULT_MAX_BYTES, DEFAULT_RESOLUTION, RankingMetric
from .metrics import _BinaryCurve
from .points import DETCurveResult, OperatingPoint, PointEstimate
from .sketch import BinaryHistogram, ScoreSketch


def _fraction(name: str, value: Any) -> float:
    return float(check_number(name, value, low=0.0, high=1.0))


def _stack(ests: list[PointEstimate]) -> PointEstimate:
    return PointEstimate(*(np.array([getattr(e, k) for e in ests]) for k in PointEstimate._fields))


class _OperatingPointMetric(RankingMetric, base=True):
    """Base: one :class:`~.points.PointEstimate` per binary view, with bounds and warnings."""

    positive_rule = "curve"
    #: what a NaN means beyond a missing class (the constrained metrics: no threshold qualifies)
    _undefined_text: ClassVar[str] = "y_true holds only one class"

    def _one(self, h: BinaryHistogram) -> PointEstimate:
        raise NotImplementedError

    def _per_view(self, s: ScoreSketch) -> PointEstimate:
        """One estimate (binary input) or per-class arrays (multiclass, multilabel)."""
        if s.layout == (1, 2):
            return self._one(s.binary_view(0, [1], [0]))
        return _stack([self._one(h) for h in self._views(s)])

    def _estimate(self, s: ScoreSketch) -> PointEstimate:
        return self._per_view(s)

    def _warn_undefined(self, value: Any) -> None:
        if np.isnan(value).any():
            where = "" if np.ndim(value) == 0 else f" for classes {np.flatnonzero(np.isnan(value)).tolist()}"
            warnings.warn(
                f"{type(self).__name__} is undefined{where} ({self._undefined_text}); returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )

    def _empty_value(self) -> Any:
        return OperatingPoint(np.nan, np.nan)

    def _compute(self, state: ScoreSketch) -> Any:
        e = self._estimate(state)
        self._warn_undefined(e.value)
        if np.ndim(e.value) == 0:
            return OperatingPoint(float(e.value), float(e.threshold))
        return OperatingPoint(e.value, e.threshold)

    def estimate(self) -> Estimate:
        """The value inside guaranteed bounds: ``low <= exact value <= high`` (``guaranteed=True``).

        ``exact`` when the sketch is exact (every distinct score its own bin) or the bounds pin
        the value; no standard error (``stderr`` NaN: the error comes from binning, not sampling).
        """
        with self._lock:
            if self._is_empty(self._state):
                return bounded(np.nan, np.nan, np.nan)
            e = self._estimate(self._state)
            if getattr(self._state, "is_exact", False):
                return bounded(e.value, e.value, e.value, exact=True)
            with np.errstate(invalid="ignore"):
                exact = bool(np.all(np.subtract(e.high, e.low) <= 4 * f.ROUNDING_SLACK))
        return bounded(e.value, e.low, e.high, exact=exact)

    def bounds(self) -> tuple[Any, Any]:
        """Guaranteed ``(low, high)`` around the exact value over the same data (see :meth:`estimate`)."""
        e = self.estimate()
        return e.low, e.high


class _Constrained(_OperatingPointMetric, base=True):
    """The best rate under a constraint on another rate: ``(value, threshold)``."""

    #: the constructor's constraint argument
    param: ClassVar[str] = ""

    def _init(self, value: Any, kwargs: dict[str, Any]) -> None:
        setattr(self, self.param, _fraction(self.param, value))
        super().__init__(**kwargs)

    @property
    def _undefined_text(self) -> str:  # type: ignore[override]
        return f"one class only, or no threshold meets {self.param}={getattr(self, self.param)}"

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), self.param: getattr(self, self.param)}

    def _one(self, h: BinaryHistogram) -> PointEstimate:
        return self._formula(pt.edges(h, self.input), getattr(self, self.param))  # type: ignore[attr-defined]


class PrecisionAtRecall(_Constrained):
    """The highest precision at a recall of at least ``min_recall``, and its threshold.

    ``compute()`` returns an :class:`~streammetrics.ranking.OperatingPoint` ``(value, threshold)``
    (as torchmetrics' ``binary_precision_at_fixed_recall``): the largest
    ``TP / (TP + FP)`` over the thresholds ``t`` (predict positive when ``score >= t``) with
    ``TP / P >= min_recall``; ties go to the higher recall, then the higher threshold. Multiclass
    (one-vs-rest) and multilabel input give one value and threshold per class (arrays).

    No positives (recall undefined) warns :class:`~streammetrics.UndefinedMetricWarning` and
    returns ``(nan, nan)``; torchmetrics returns precision 0 with a NaN threshold. Exact while the
    sketch is exact; past its budget the value is read at the bin edges (achieved by the
    threshold returned) and :meth:`bounds` holds the exact value.

    Args:
        min_recall: The least recall, a number in [0, 1].
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``
            (any finite real; torchmetrics applies a sigmoid to scores outside [0, 1]).
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve` (``None``:
            labels in {0, 1} or {-1, 1}, 1 positive).
        labels: The classes of the columns of a 2-D ``y_score``, in column order (``None``: ints ``0..K-1``).
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.PrecisionAtRecall(min_recall=0.5).update([0, 1, 1, 0, 1], [0.1, 0.9, 0.6, 0.7, 0.3])
        >>> m.compute()
        OperatingPoint(value=0.75, threshold=0.3)
        >>> value, threshold = m.compute()
        >>> m.bounds()
        (0.75, 0.75)
    """

    param = "min_recall"
    _formula = staticmethod(pt.precision_at_recall)

    def __init__(
        self,
        min_recall: float,
        *,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self._init(
            min_recall,
            dict(
                input=input,
                exact=exact,
                resolution=resolution,
                max_bins=max_bins,
                pos_label=pos_label,
                labels=labels,
                max_bytes=max_bytes,
            ),
        )


class RecallAtPrecision(_Constrained):
    """The highest recall at a precision of at least ``min_precision``, and its threshold.

    ``compute()`` returns an :class:`~streammetrics.ranking.OperatingPoint` ``(value, threshold)``
    (as torchmetrics' ``binary_recall_at_fixed_precision``): the largest ``TP / P`` over the
    thresholds with ``TP / (TP + FP) >= min_precision``; ties go to the higher precision, then the
    higher threshold. Multiclass and multilabel input give arrays (one per class).

    When no threshold reaches ``min_precision`` (or there are no positives) it warns
    :class:`~streammetrics.UndefinedMetricWarning` and returns ``(nan, nan)``: never a sentinel
    threshold (torchmetrics returns recall 0 with a NaN threshold). Past the budget, when no bin
    edge qualifies but a threshold inside a bin might, ``compute()`` is ``(nan, nan)`` and
    :meth:`bounds` is ``(0, high)``: the exact value, if one exists, lies there.

    Args:
        min_precision: The least precision, a number in [0, 1].
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``
            (any finite real; torchmetrics applies a sigmoid to scores outside [0, 1]).
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve`.
        labels: The classes of the columns of a 2-D ``y_score``, in column order (``None``: ints ``0..K-1``).
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RecallAtPrecision(min_precision=0.6).update([0, 1, 1, 0, 1], [0.1, 0.9, 0.6, 0.7, 0.3]).compute()
        OperatingPoint(value=1.0, threshold=0.3)
    """

    param = "min_precision"
    _formula = staticmethod(pt.recall_at_precision)

    def __init__(
        self,
        min_precision: float,
        *,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self._init(
            min_precision,
            dict(
                input=input,
                exact=exact,
                resolution=resolution,
                max_bins=max_bins,
                pos_label=pos_label,
                labels=labels,
                max_bytes=max_bytes,
            ),
        )


class SensitivityAtSpecificity(_Constrained):
    """The highest sensitivity (TPR) at a specificity (TNR) of at least ``min_specificity``.

    ``compute()`` returns an :class:`~streammetrics.ranking.OperatingPoint` ``(value, threshold)``
    (as torchmetrics' ``binary_sensitivity_at_specificity``) over the ROC points, predicting
    nothing positive included: its threshold is ``inf`` (scikit-learn's ``roc_curve``), where
    torchmetrics says 1.0. Ties go to the higher threshold. Multiclass and multilabel input give
    arrays (one per class).

    One class only warns :class:`~streammetrics.UndefinedMetricWarning` and returns
    ``(nan, nan)``: never a sentinel threshold (torchmetrics computes with rates of 0 and returns
    1e6 as the threshold when nothing qualifies).

    Args:
        min_specificity: The least specificity, a number in [0, 1].
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``
            (any finite real; torchmetrics applies a sigmoid to scores outside [0, 1]).
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve`.
        labels: The classes of the columns of a 2-D ``y_score``, in column order (``None``: ints ``0..K-1``).
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.SensitivityAtSpecificity(min_specificity=0.5)
        >>> m.update([0, 1, 1, 0, 1], [0.1, 0.9, 0.6, 0.7, 0.3]).compute()
        OperatingPoint(value=1.0, threshold=0.3)
    """

    param = "min_specificity"
    _formula = staticmethod(pt.sensitivity_at_specificity)

    def __init__(
        self,
        min_specificity: float,
        *,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self._init(
            min_specificity,
            dict(
                input=input,
                exact=exact,
                resolution=resolution,
                max_bins=max_bins,
                pos_label=pos_label,
                labels=labels,
                max_bytes=max_bytes,
            ),
        )


class SpecificityAtSensitivity(_Constrained):
    """The highest specificity (TNR) at a sensitivity (TPR) of at least ``min_sensitivity``.

    ``compute()`` returns an :class:`~streammetrics.ranking.OperatingPoint` ``(value, threshold)``
    (as torchmetrics' ``binary_specificity_at_sensitivity``) over the ROC points; ties go to the
    higher threshold (``inf``: predicting nothing positive, where torchmetrics says 1.0).
    Multiclass and multilabel input give arrays (one per class).

    One class only warns :class:`~streammetrics.UndefinedMetricWarning` and returns
    ``(nan, nan)``: never a sentinel threshold (torchmetrics returns 1e6 when nothing qualifies).

    Args:
        min_sensitivity: The least sensitivity, a number in [0, 1].
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``
            (any finite real; torchmetrics applies a sigmoid to scores outside [0, 1]).
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve`.
        labels: The classes of the columns of a 2-D ``y_score``, in column order (``None``: ints ``0..K-1``).
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.SpecificityAtSensitivity(min_sensitivity=0.6)
        >>> m.update([0, 1, 1, 0, 1], [0.1, 0.9, 0.6, 0.7, 0.3]).compute()
        OperatingPoint(value=0.5, threshold=0.6)
    """

    param = "min_sensitivity"
    _formula = staticmethod(pt.specificity_at_sensitivity)

    def __init__(
        self,
        min_sensitivity: float,
        *,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self._init(
            min_sensitivity,
            dict(
                input=input,
                exact=exact,
                resolution=resolution,
                max_bins=max_bins,
                pos_label=pos_label,
                labels=labels,
                max_bytes=max_bytes,
            ),
        )


class EqualErrorRate(_OperatingPointMetric):
    """The equal error rate ``(FPR + FNR) / 2`` where ``|FPR - FNR|`` is smallest, and its threshold.

    As torchmetrics' ``binary_eer`` (over the ROC points, the first on ties from the highest
    threshold); ``compute()`` returns an :class:`~streammetrics.ranking.OperatingPoint`
    ``(value, threshold)`` where torchmetrics returns the value alone. Lower is better.

    Multiclass (one-vs-rest) and multilabel input: ``average=None`` (default, as torchmetrics)
    gives one value and threshold per class; ``"micro"`` pools every (row, class) cell into one
    curve. (torchmetrics' multiclass ``"macro"``, the EER of an interpolated mean ROC curve, is
    not provided.) One class only warns :class:`~streammetrics.UndefinedMetricWarning` and
    returns ``(nan, nan)``.

    Args:
        average: ``None`` (default; per class) or ``"micro"`` (pooled); binary input ignores it.
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``.
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve`.
        labels: The classes of the columns of a 2-D ``y_score``, in column order (``None``: ints ``0..K-1``).
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.EqualErrorRate().update([0, 1, 1, 0], [0.0, 0.5, 0.7, 0.8]).compute()
        OperatingPoint(value=0.5, threshold=0.7)
    """

    higher_is_better: ClassVar[bool | None] = False

    def __init__(
        self,
        *,
        average: str | None = None,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self.average = check_option("average", average, (None, "micro"))
        super().__init__(
            input=input,
            exact=exact,
            resolution=resolution,
            max_bins=max_bins,
            pos_label=pos_label,
            labels=labels,
            max_bytes=max_bytes,
        )

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), "average": self.average}

    def _one(self, h: BinaryHistogram) -> PointEstimate:
        return pt.equal_error_rate(pt.edges(h, self.input))

    def _estimate(self, s: ScoreSketch) -> PointEstimate:
        if s.layout != (1, 2) and self.average == "micro":
            return self._one(s.binary_view(-1, [1], [0], refine=False))
        return self._per_view(s)


class LogAUC(_OperatingPointMetric):
    """torchmetrics' LogAUC: the ROC curve's area against ``log10(FPR)`` over ``fpr_range``, normalized.

    ``(1 / log10(b / a)) * integral of TPR d(log10 FPR)`` for ``fpr_range = (a, b)``: the ROC
    points in between and the curve at ``a`` and ``b`` (interpolated linearly in FPR), joined by
    the trapezoid rule in ``log10(FPR)``, as torchmetrics' ``binary_logauc``. It rewards
    ranking at low false positive rates. ``compute()`` returns a float (an area has no threshold);
    multiclass (one-vs-rest) and multilabel input: ``average="macro"`` (default; the mean over
    the classes where it is defined, as torchmetrics, with a warning) or ``None`` (an array).

    One class only warns :class:`~streammetrics.UndefinedMetricWarning` and returns NaN
    (torchmetrics computes a class without positives as 0). ``fpr_range`` must start above 0
    (torchmetrics accepts 0, where ``log10`` is ``-inf``). Where the curve has several points at
    the false positive rate just below ``a`` or ``b`` (a vertical run), the value there is the
    curve's own (the top of the run); torchmetrics' interpolation sorts the points with an
    unstable sort and may read another point of the run (its value then depends on the sort).

    Args:
        fpr_range: ``(a, b)`` with ``0 < a < b <= 1``; default ``(0.001, 0.1)``.
        average: ``"macro"`` (default) or ``None``; binary input ignores it.
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``.
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve`.
        labels: The classes of the columns of a 2-D ``y_score``, in column order (``None``: ints ``0..K-1``).
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.LogAUC(fpr_range=(0.1, 1.0)).update([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
        >>> round(m.compute(), 6), m.bounds() == (m.compute(), m.compute())
        (0.825707, True)
    """

    def __init__(
        self,
        fpr_range: tuple[float, float] = (0.001, 0.1),
        *,
        average: str | None = "macro",
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        if not isinstance(fpr_range, (tuple, list)) or len(fpr_range) != 2:
            raise ValueError(
                f"fpr_range: expected two numbers (a, b) with 0 < a < b <= 1, found {fpr_range!r}"
            )
        a = check_number("fpr_range[0]", fpr_range[0], low=0.0, high=1.0, low_open=True, high_open=True)
        b = check_number("fpr_range[1]", fpr_range[1], low=0.0, high=1.0, low_open=True)
        if not a < b:
            raise ValueError(f"fpr_range: expected 0 < a < b <= 1, found {tuple(fpr_range)!r}")
        self.fpr_range = (float(a), float(b))
        self.average = check_option("average", average, ("macro", None))
        super().__init__(
            input=input,
            exact=exact,
            resolution=resolution,
            max_bins=max_bins,
            pos_label=pos_label,
            labels=labels,
            max_bytes=max_bytes,
        )

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), "fpr_range": list(self.fpr_range), "average": self.average}

    def _one(self, h: BinaryHistogram) -> PointEstimate:
        return pt.log_auc(pt.edges(h, self.input), self.fpr_range)

    def _estimate(self, s: ScoreSketch) -> PointEstimate:
        e = self._per_view(s)
        if np.ndim(e.value) == 0 or self.average is None:
            return e
        defined = ~np.isnan(e.value)
        if not defined.any():
            return pt.NAN_POINT
        return PointEstimate(*(float(np.mean(np.asarray(x)[defined])) for x in e))

    def _compute(self, state: ScoreSketch) -> Any:
        if state.layout != (1, 2) and self.average == "macro":
            self._warn_undefined(self._per_view(state).value)  # classes left out of the mean
        e = self._estimate(state)
        self._warn_undefined(e.value)
        return float(e.value) if np.ndim(e.value) == 0 else e.value

    def _empty_value(self) -> Any:
        return float("nan")


class DETCurve(_BinaryCurve):
    """The detection error tradeoff curve (``fpr``, ``fnr``, ``thresholds``) as :func:`sklearn.metrics.det_curve`.

    From the last threshold without false positives to the first without false negatives, FPR
    decreasing (thresholds increasing). Every point is exact (bin edges past the budget; every
    distinct score while the sketch is exact); :meth:`bounds` returns two staircases enclosing
    the exact curve, :meth:`plot` draws it on normal-deviate axes. Binary input only, as
    scikit-learn; one class only warns :class:`~streammetrics.UndefinedMetricWarning` and returns
    NaN rates (scikit-learn raises).

    Args:
        drop_intermediate: ``False`` (default, as scikit-learn) keeps every point; ``True`` drops the
            thresholds where the false negatives do not change from the previous or next one.
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1]) or ``"score"``.
        exact: ``False`` (default): the sketch, exact while it fits ``max_bytes``; ``True``: every distinct
            score kept whatever the size.
        resolution: Past the budget, bins about ``2**-resolution`` wide (an int from 0 to 52, default 10).
        max_bins: The most bins a score column keeps (``None``, default: the byte budget decides).
        pos_label: The positive class of binary ``y_true``, as :class:`~streammetrics.ROCCurve`.
        labels: Unused by binary input; kept for a uniform signature.
        max_bytes: The byte budget per score column (default 65536), as :class:`~streammetrics.ROCAUC`.

    Examples:
        >>> import streammetrics as sm
        >>> r = sm.DETCurve().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).compute()
        >>> r.fpr.tolist(), r.fnr.tolist(), r.thresholds.tolist()
        ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.35, 0.4, 0.8])
    """

    higher_is_better: ClassVar[bool | None] = None

    def __init__(
        self,
        *,
        drop_intermediate: bool = False,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self.drop_intermediate = check_option("drop_intermediate", drop_intermediate, (True, False))
        super().__init__(
            input=input,
            exact=exact,
            resolution=resolution,
            max_bins=max_bins,
            pos_label=pos_label,
            labels=labels,
            max_bytes=max_bytes,
        )

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), "drop_intermediate": self.drop_intermediate}

    @staticmethod
    def _result_type() -> type:
        return DETCurveResult

    def _edges(self, state: ScoreSketch) -> pt.Edges:
        return pt.edges(state.binary_view(0, [1], [0]), self.input)

    def _compute(self, state: ScoreSketch) -> DETCurveResult:
        e = self._edges(state)
        if e.p <= 0 or e.n <= 0:
            warnings.warn(
                "DETCurve: y_true holds only one class; the curve is undefined (NaN)",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return self._empty_value()
        return pt.det_curve(e, self.drop_intermediate)

    def estimate(self) -> Estimate:
        """The curve with the two staircases of :meth:`bounds` as ``low`` and ``high``."""
        with self._lock:
            low, high = self.bounds()
            return bounded(self.compute(), low, high, exact=getattr(self._state, "is_exact", True))

    def bounds(self) -> tuple[DETCurveResult, DETCurveResult]:
        """Two staircase curves (lowest and highest FNR): the exact curve lies on or between them."""
        with self._lock:
            if self._is_empty(self._state):
                return self._empty_value(), self._empty_value()
            return pt.det_curve_bounds(self._edges(self._state))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the curve on normal-deviate axes with matplotlib (the ``plot`` extra); returns the figure."""
        from ..plotting import plot_det_curve  # lazy: matplotlib is optional

        return plot_det_curve(self, ax=ax, **kwargs)
