"""ROC/PR metrics on the score sketch: ``ROCAUC``, ``AveragePrecision``, ``ROCCurve``, ``PRCurve``."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from .._core.approximate import Estimate, bounded
from .._core.params import check_number, check_option
from ..errors import InputError, UndefinedMetricWarning
from . import formulas as f
from . import rawvalues as rv
from .base import DEFAULT_MAX_BINS, DEFAULT_MAX_BYTES, DEFAULT_RESOLUTION, RankingMetric
from .samples import row_auc, row_average_precision, row_partial_auc
from .sketch import BinaryHistogram, ScoreSketch


def _average(ests: list[f.Estimate], weights: np.ndarray, average: str | None, name: str) -> Any:
    vals = np.array([e.value for e in ests])
    lows = np.array([e.low for e in ests])
    highs = np.array([e.high for e in ests])
    if average is None:
        return f.Estimate(vals, lows, highs)
    if np.isnan(vals).any():
        warnings.warn(
            f"{name}: undefined for a class with only one of positives/negatives; returning NaN",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return f.Estimate(np.nan, np.nan, np.nan)
    w = weights if average == "weighted" else np.ones(len(vals))
    if w.sum() <= 0:
        return f.Estimate(np.nan, np.nan, np.nan)
    value = float(np.average(vals, weights=w))
    if np.array_equal(lows, vals) and np.array_equal(highs, vals):  # exact values: one average
        return f.Estimate(value, value, value)
    return f.Estimate(value, *(float(np.average(x, weights=w)) for x in (lows, highs)))


def _raw_values(metric: Any, s: ScoreSketch, fn: Any, allowed: bool) -> f.Estimate | None:
    """The value from the sketch's raw rows (:meth:`ScoreSketch.raw_rows`: nothing folded yet,
    exact), every column at once; ``None`` where that does not apply (one-vs-one, micro, partial)."""
    if not allowed or s.layout is None or s.layout[1] != 2:
        return None
    if s.layout != (1, 2) and not (s.multilabel or s.ovr):
        return None
    raw = s.raw_rows()
    if raw is None:
        return None
    values, pos = fn(*raw)
    if s.layout == (1, 2):
        v = float(values[0])
        return f.Estimate(v, v, v)
    name = type(metric).__name__
    return _average([f.Estimate(v, v, v) for v in values.tolist()], pos, metric.average, name)


def _replicates_one_vs_rest(metric: Any, s: ScoreSketch, tensor: np.ndarray, fn: Any) -> np.ndarray | None:
    """A ranking metric's value for every bootstrap replicate at once (``tensor``: counts on the
    sketch's bins, see :mod:`streammetrics.uncertainty.sketch_replicates`), ``fn(column, counts)``
    giving one value per replicate for a two-group column; the columns averaged as
    :func:`_average` does. ``None`` where the layout is not one-vs-rest (one-vs-one, micro,
    per-sample): the replicates are then evaluated one at a time."""
    if metric._samples or s.layout is None or s.layout[1] != 2:
        return None
    if s.layout[0] > 1 and (metric.average == "micro" or not (s.multilabel or s.ovr)):
        return None
    values, positives, start = [], [], 0
    for col in s.cols:
        counts = tensor[:, start : start + len(col.ids)]
        values.append(fn(col, counts))
        positives.append(counts[:, :, 1].sum(axis=1, dtype=np.float64))
        start += len(col.ids)
    if s.layout[0] == 1:
        return values[0]
    per_column = np.stack(values, axis=1)
    if metric.average is None:
        return per_column
    w = np.stack(positives, axis=1) if metric.average == "weighted" else np.ones(per_column.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (per_column * w).sum(axis=1) / w.sum(axis=1)
    return np.where(np.isnan(per_column).any(axis=1) | (w.sum(axis=1) <= 0), np.nan, mean)


def _samples_value(name: str, s: Any) -> f.Estimate:
    """``average="samples"``: the weighted mean of the rows' values (exact); NaN when a row is
    undefined (one class only, for ROC AUC), as scikit-learn."""
    total, weight, undefined = s.table
    value = float(total / weight) if undefined == 0 else np.nan
    return _undefined(name, f.Estimate(value, value, value))


def _undefined(name: str, est: f.Estimate) -> f.Estimate:
    if np.isnan(est.value):
        warnings.warn(
            f"{name} is undefined when y_true holds only one class; returning NaN",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    return est


class ROCAUC(RankingMetric):
    """Area under the ROC curve, P(score+ > score-) + P(tie)/2, as :func:`sklearn.metrics.roc_auc_score`.

    Binary, multiclass (``multi_class="ovr"`` or ``"ovo"``, ``average="macro"``, ``"weighted"``,
    or ``"micro"`` with ``"ovr"``) and multilabel (``average="macro"``, ``"weighted"``, ``"micro"``
    or ``None``). ``max_fpr`` gives the McClish-standardized partial AUC (binary, multilabel).
    :meth:`bounds` returns a guaranteed ``(low, high)``; with ``exact=True`` the value is exact. One class only warns
    :class:`~streammetrics.UndefinedMetricWarning` and returns NaN (scikit-learn raises).
    ``multi_class`` defaults to ``"ovr"`` (scikit-learn requires it to be given).

    Args:
        average: Multiclass and multilabel input: ``"macro"`` (default; plain mean), ``"weighted"`` (by
            prevalence), ``"micro"`` (multilabel, and multiclass with ``multi_class="ovr"``: every (row, class)
            cell pooled, as scikit-learn), ``"samples"`` (multilabel: each row's labels ranked by its scores,
            the rows averaged, exact; NaN when a row holds one class only, as scikit-learn) or ``None`` (an
            array, one value per class or label). Binary input ignores it, except ``"samples"``, which keeps
            per-row values and refuses binary input (scikit-learn ignores it there).
        multi_class: ``"ovr"`` (default; each class against the rest) or ``"ovo"`` (every pair of the classes
            present in ``y_true``, as Hand and Till and scikit-learn: a class of ``labels`` that no row holds
            takes no part).
        max_fpr: ``None`` (default): the whole area; a number in (0, 1]: the McClish-standardized partial area
            up to that false positive rate (binary input, and multilabel input per label then averaged, or
            per row with ``average="samples"``, as scikit-learn; multiclass input refuses it).
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1], multiclass rows
            summing to 1; the sketch bins logits) or ``"score"`` (any finite real; the sketch bins relative
            score).
        exact: ``False`` (default): a sketch that is exact while it fits ``max_bytes`` and then keeps bins,
            whose ``bounds()`` always contain the exact value; ``True``: every distinct score is kept whatever the
            size (exact, memory growing with the number of distinct scores).
        resolution: Once over its budget, a score column keeps bins about ``2**-resolution`` wide (in logit or
            relative score), or coarser until it fits: an int from 0 to 52, default 10. Accumulators of different
            resolutions merge at the coarser one.
        max_bins: The most bins a score column keeps before it coarsens (``None``, default: no cap; the byte
            budget decides).
        pos_label: The positive class of binary ``y_true`` (the one other label is negative). ``None``
            (default): the greater of the two labels, as :func:`sklearn.metrics.roc_auc_score` (which has no
            ``pos_label``); the labels seen across batches, rows and merges decide, and a third one raises
            :class:`~streammetrics.InputError`.
        labels: The classes of the columns of a 2-D ``y_score``, in column order; ``None`` (default): ints
            ``0..K-1``.
        max_bytes: The byte budget per score column (binary view), default 65536: ``len(to_bytes())`` stays
            within ``max_bytes`` times the number of score columns for every input (labels and configuration of
            ordinary length); ``None``: no budget (bins at ``resolution`` from the start, no cap).

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.ROCAUC().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> m.compute(), m.bounds()
        (0.75, (0.75, 0.75))
        >>> sm.ROCAUC(multi_class="ovr").update([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]]).compute()
        1.0
    """

    positive_rule = "greater"

    def __init__(
        self,
        *,
        average: str | None = "macro",
        multi_class: str = "ovr",
        max_fpr: float | None = None,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self.average = check_option("average", average, ("macro", "weighted", "micro", "samples", None))
        self.multi_class = check_option("multi_class", multi_class, ("ovr", "ovo"))
        if max_fpr is not None:
            check_number("max_fpr", max_fpr, low=0.0, high=1.0, low_open=True)
            max_fpr = float(max_fpr)
        self.max_fpr = max_fpr
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
        return {
            **self._base_config(),
            "average": self.average,
            "multi_class": self.multi_class,
            "max_fpr": self.max_fpr,
        }

    def _check_mode(self, mode: str) -> None:
        if self.max_fpr not in (None, 1.0) and mode == "multiclass":
            raise InputError(
                f"y_score: max_fpr={self.max_fpr} is for binary and multilabel input (as scikit-learn), "
                "found multiclass scores"
            )
        if mode == "multiclass" and self.average == "micro" and self.multi_class == "ovo":
            raise InputError(
                "y_score: average='micro' needs multi_class='ovr' for multiclass scores (as scikit-learn), "
                "found multi_class='ovo'"
            )

    def _row_values(self, yt: np.ndarray, scores: np.ndarray) -> np.ndarray:
        if self.max_fpr not in (None, 1.0):
            return row_partial_auc(yt, scores, self.max_fpr)  # type: ignore[arg-type]
        return row_auc(yt, scores)

    def _estimate(self, s: ScoreSketch) -> f.Estimate:
        if self._samples:
            return _samples_value("ROCAUC", s)
        n_cols, n_cls = s.layout  # type: ignore[misc]
        partial = self.max_fpr not in (None, 1.0)
        fast = _raw_values(self, s, rv.roc_auc_columns, not partial and self.average != "micro")
        if fast is not None:
            return _undefined("ROCAUC", fast) if (n_cols, n_cls) == (1, 2) else fast

        def auc(h: BinaryHistogram) -> f.Estimate:
            return f.partial_roc_auc(h, self.max_fpr) if partial else f.roc_auc(h)  # type: ignore[arg-type]

        if (n_cols, n_cls) == (1, 2):
            return _undefined("ROCAUC", auc(s.binary_view(0, [1], [0])))
        if self.average == "micro" and (s.multilabel or self.multi_class == "ovr"):
            # every (row, class) cell pooled: scikit-learn's binarized, raveled y_true
            h = s.binary_view(-1, [1], [0], refine=False)
            return _undefined("ROCAUC", auc(h))
        if s.multilabel or self.multi_class == "ovr":
            views = self._views(s)
            return _average(
                [auc(h) for h in views], np.array([h.pos.sum() for h in views]), self.average, "ROCAUC"
            )
        pair_ests, pair_w = [], []
        # as scikit-learn: the pairs of the classes present in y_true (a class of labels= that
        # no row holds takes no part)
        totals = s.class_totals()
        present = [c for c in range(n_cls) if totals[c] > 0]
        if len(present) < 2:
            return _undefined("ROCAUC", f.Estimate(np.nan, np.nan, np.nan))
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                e1 = f.roc_auc(s.binary_view(a, [a], [b]))
                e2 = f.roc_auc(s.binary_view(b, [b], [a]))
                pair_ests.append(f.Estimate(*((x + y) / 2 for x, y in zip(e1, e2, strict=False))))
                h = s.binary_view(a, [a, b], [])
                pair_w.append(h.pos.sum())
        return _average(pair_ests, np.asarray(pair_w), self.average, "ROCAUC")

    def _compute(self, state: ScoreSketch) -> Any:
        return self._estimate(state).value

    def _replicate_values(self, state: ScoreSketch, tensor: np.ndarray) -> np.ndarray | None:
        """One-vs-rest areas of every replicate by :func:`~.formulas.roc_auc_replicates`, averaged
        as :meth:`_estimate` averages them (not one-vs-one, micro, partial or per-sample areas)."""
        if self.max_fpr not in (None, 1.0):
            return None
        return _replicates_one_vs_rest(self, state, tensor, f.roc_auc_replicates)

    def estimate(self) -> Estimate:
        """The value inside guaranteed bounds: ``low <= exact value <= high`` (``guaranteed=True``).

        ``exact`` when the sketch is at full resolution or the bounds pin the value (to a rounding
        slack); no standard error (``stderr`` NaN: the error comes from binning, not sampling).
        """
        with self._lock:
            if self._is_empty(self._state):
                return bounded(self.compute(), np.nan, np.nan)
            e = self._estimate(self._state)
            if getattr(self._state, "is_exact", False):  # every score kept: the value is exact
                return bounded(e.value, e.value, e.value, exact=True)
            exact = bool(np.all(np.subtract(e.high, e.low) <= 4 * f.ROUNDING_SLACK))
        return bounded(e.value, e.low, e.high, exact=exact)

    def bounds(self) -> tuple[Any, Any]:
        """Guaranteed ``(low, high)`` around the exact value over the same data (see :meth:`estimate`)."""
        e = self.estimate()
        return e.low, e.high


class AveragePrecision(RankingMetric):
    """Average precision, scikit-learn's step sum ``sum_k (R_k - R_{k-1}) P_k``.

    As :func:`sklearn.metrics.average_precision_score`: binary, multiclass one-vs-rest and
    multilabel with ``average="macro"``, ``"weighted"``, ``"micro"`` (multilabel) or ``None``.
    No positives warns and returns NaN (scikit-learn returns 0 with a warning).

    Args:
        average: Multiclass and multilabel input: ``"macro"`` (default; plain mean), ``"weighted"`` (by the
            number of positives), ``"micro"`` (multilabel: all cells pooled), ``"samples"`` (multilabel, and
            multiclass as its one-hot labels: each row's labels ranked by its scores, the rows averaged, exact; a
            row without positives counts 0, as scikit-learn) or ``None`` (an array, one value per class or
            label). Binary input ignores it, except ``"samples"``, which keeps per-row values and refuses
            binary input (scikit-learn ignores it there).
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1], multiclass rows
            summing to 1; the sketch bins logits) or ``"score"`` (any finite real; the sketch bins relative
            score).
        exact: ``False`` (default): a sketch that is exact while it fits ``max_bytes`` and then keeps bins,
            whose ``bounds()`` always contain the exact value; ``True``: every distinct score is kept whatever the
            size (exact, memory growing with the number of distinct scores).
        resolution: Once over its budget, a score column keeps bins about ``2**-resolution`` wide (in logit or
            relative score), or coarser until it fits: an int from 0 to 52, default 10. Accumulators of different
            resolutions merge at the coarser one.
        max_bins: The most bins a score column keeps before it coarsens (``None``, default: no cap; the byte
            budget decides).
        pos_label: The positive class of binary ``y_true`` (the one other label is negative); default 1, as
            :func:`sklearn.metrics.average_precision_score`: when two labels are seen, ``pos_label`` must be one
            of them (else :class:`~streammetrics.InputError` naming ``pos_label``); a third label raises.
        labels: The classes of the columns of a 2-D ``y_score``, in column order; ``None`` (default): ints
            ``0..K-1``.
        max_bytes: The byte budget per score column (binary view), default 65536: ``len(to_bytes())`` stays
            within ``max_bytes`` times the number of score columns for every input (labels and configuration of
            ordinary length); ``None``: no budget (bins at ``resolution`` from the start, no cap).

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.AveragePrecision().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> round(m.compute(), 6), [round(b, 6) for b in m.bounds()]
        (0.833333, [0.833333, 0.833333])
    """

    samples_multiclass: ClassVar[bool] = True

    def __init__(
        self,
        *,
        average: str | None = "macro",
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = 1,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self.average = check_option("average", average, ("macro", "weighted", "micro", "samples", None))
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

    def _row_values(self, yt: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return row_average_precision(yt, scores)

    def _estimate(self, s: ScoreSketch) -> f.Estimate:
        if self._samples:
            return _samples_value("AveragePrecision", s)
        unit = 1.0 if s.integral else 0.0

        def ap(h: BinaryHistogram) -> f.Estimate:
            return f.average_precision(h, unit)

        n_cols, n_cls = s.layout  # type: ignore[misc]
        fast = _raw_values(self, s, rv.average_precision_columns, self.average != "micro")
        if fast is not None:
            return _undefined("AveragePrecision", fast) if (n_cols, n_cls) == (1, 2) else fast
        if (n_cols, n_cls) == (1, 2):
            return _undefined("AveragePrecision", ap(s.binary_view(0, [1], [0])))
        if self.average == "micro":
            return _undefined("AveragePrecision", ap(s.binary_view(-1, [1], [0], refine=False)))
        views = self._views(s)
        return _average(
            [ap(h) for h in views], np.array([h.pos.sum() for h in views]), self.average, "AveragePrecision"
        )

    def _compute(self, state: ScoreSketch) -> Any:
        return self._estimate(state).value

    def _replicate_values(self, state: ScoreSketch, tensor: np.ndarray) -> np.ndarray | None:
        """Every replicate's AP by :func:`~.formulas.average_precision_replicates`, averaged as
        :meth:`_estimate` averages them (not micro or per-sample)."""
        unit = 1.0 if tensor.dtype.kind == "i" else 0.0
        return _replicates_one_vs_rest(
            self, state, tensor, lambda col, counts: f.average_precision_replicates(col, counts, unit)
        )

    def estimate(self) -> Estimate:
        """The value inside guaranteed bounds: ``low <= exact value <= high`` (``guaranteed=True``).

        ``exact`` when the sketch is at full resolution or the bounds pin the value (to a rounding
        slack); no standard error (``stderr`` NaN: the error comes from binning, not sampling).
        """
        with self._lock:
            if self._is_empty(self._state):
                return bounded(self.compute(), np.nan, np.nan)
            e = self._estimate(self._state)
            if getattr(self._state, "is_exact", False):  # every score kept: the value is exact
                return bounded(e.value, e.value, e.value, exact=True)
            exact = bool(np.all(np.subtract(e.high, e.low) <= 4 * f.ROUNDING_SLACK))
        return bounded(e.value, e.low, e.high, exact=exact)

    def bounds(self) -> tuple[Any, Any]:
        """Guaranteed ``(low, high)`` around the exact value over the same data (see :meth:`estimate`)."""
        e = self.estimate()
        return e.low, e.high


class _BinaryCurve(RankingMetric):
    positive_rule = "curve"
    numeric_value: ClassVar[bool] = False  # (a curve)

    def _check_mode(self, mode: str) -> None:
        if mode != "binary":
            raise InputError(
                f"y_score: {type(self).__name__} needs binary input (1-D y_true and y_score), found {mode}"
            )

    def _empty_value(self) -> Any:
        return self._result_type()(np.array([np.nan]), np.array([np.nan]), np.array([np.nan]))


class ROCCurve(_BinaryCurve):
    """The ROC curve (``fpr``, ``tpr``, ``thresholds``) as :func:`sklearn.metrics.roc_curve`.

    Every point is exact: points sit at bin edges of the sketch (at every distinct score with
    ``exact=True``), thresholds are real scores (the smallest score of each bin), the first is
    ``inf``. :meth:`bounds` returns two staircase curves enclosing the exact curve.

    Args:
        drop_intermediate: ``True`` (default) drops the points that do not change the curve's shape, as
            scikit-learn; ``False`` keeps one point per bin (per distinct score when exact).
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1], multiclass rows
            summing to 1; the sketch bins logits) or ``"score"`` (any finite real; the sketch bins relative
            score).
        exact: ``False`` (default): a sketch that is exact while it fits ``max_bytes`` and then keeps bins,
            whose ``bounds()`` always contain the exact value; ``True``: every distinct score is kept whatever the
            size (exact, memory growing with the number of distinct scores).
        resolution: Once over its budget, a score column keeps bins about ``2**-resolution`` wide (in logit or
            relative score), or coarser until it fits: an int from 0 to 52, default 10. Accumulators of different
            resolutions merge at the coarser one.
        max_bins: The most bins a score column keeps before it coarsens (``None``, default: no cap; the byte
            budget decides).
        pos_label: The positive class of binary ``y_true``; every other label is negative (any number of them,
            as :func:`sklearn.metrics.roc_curve`). ``None`` (default): labels must lie in {0, 1} or {-1, 1} and 1
            is positive; other labels raise :class:`~streammetrics.InputError` naming ``pos_label``.
        labels: The classes of the columns of a 2-D ``y_score``, in column order; ``None`` (default): ints
            ``0..K-1``.
        max_bytes: The byte budget per score column (binary view), default 65536: ``len(to_bytes())`` stays
            within ``max_bytes`` times the number of score columns for every input (labels and configuration of
            ordinary length); ``None``: no budget (bins at ``resolution`` from the start, no cap).

    Examples:
        >>> import streammetrics as sm
        >>> r = sm.ROCCurve().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).compute()
        >>> r.fpr.tolist(), r.tpr.tolist(), r.thresholds.tolist()
        ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.35, 0.1])
    """

    def __init__(
        self,
        *,
        drop_intermediate: bool = True,
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
        return f.ROCCurveResult

    def _compute(self, state: ScoreSketch) -> f.ROCCurveResult:
        h = state.binary_view(0, [1], [0], refine=False)
        if h.pos.sum() <= 0 or h.neg.sum() <= 0:
            warnings.warn(
                "ROCCurve: y_true holds only one class; the missing rate is NaN",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return f.roc_curve(h, self.input, self.drop_intermediate)

    def estimate(self) -> Estimate:
        """The curve with the two staircases of :meth:`bounds` as ``low`` and ``high``.

        ``exact`` when the sketch is at full resolution (``exact=True``: every distinct score its
        own point); ``guaranteed``: the exact curve lies on or between the staircases.
        """
        with self._lock:
            low, high = self.bounds()
            return bounded(self.compute(), low, high, exact=getattr(self._state, "is_exact", True))

    def bounds(self) -> tuple[f.ROCCurveResult, f.ROCCurveResult]:
        """Two staircase curves: the exact curve lies on or between them (negatives first / positives first)."""
        with self._lock:
            return f.roc_curve_bounds(self._state.binary_view(0, [1], [0]))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the curve with matplotlib (the ``plot`` extra); returns the figure."""
        from ..plotting import plot_roc_curve  # lazy: matplotlib is optional

        return plot_roc_curve(self, ax=ax, **kwargs)


class PRCurve(_BinaryCurve):
    """Precision-recall curve as :func:`sklearn.metrics.precision_recall_curve`.

    Points at the sketch's bin edges are exact. :meth:`bounds` returns two staircases
    enclosing the exact curve.

    Args:
        drop_intermediate: ``False`` (default) keeps one point per bin (per distinct score when exact);
            ``True`` drops the points that do not change the curve's shape, as scikit-learn.
        input: What ``y_score`` holds: ``"probability"`` (default; checked to lie in [0, 1], multiclass rows
            summing to 1; the sketch bins logits) or ``"score"`` (any finite real; the sketch bins relative
            score).
        exact: ``False`` (default): a sketch that is exact while it fits ``max_bytes`` and then keeps bins,
            whose ``bounds()`` always contain the exact value; ``True``: every distinct score is kept whatever the
            size (exact, memory growing with the number of distinct scores).
        resolution: Once over its budget, a score column keeps bins about ``2**-resolution`` wide (in logit or
            relative score), or coarser until it fits: an int from 0 to 52, default 10. Accumulators of different
            resolutions merge at the coarser one.
        max_bins: The most bins a score column keeps before it coarsens (``None``, default: no cap; the byte
            budget decides).
        pos_label: The positive class of binary ``y_true``; every other label is negative (any number of them,
            as :func:`sklearn.metrics.precision_recall_curve`). ``None`` (default): labels must lie in {0, 1} or
            {-1, 1} and 1 is positive; other labels raise :class:`~streammetrics.InputError` naming ``pos_label``.
        labels: The classes of the columns of a 2-D ``y_score``, in column order; ``None`` (default): ints
            ``0..K-1``.
        max_bytes: The byte budget per score column (binary view), default 65536: ``len(to_bytes())`` stays
            within ``max_bytes`` times the number of score columns for every input (labels and configuration of
            ordinary length); ``None``: no budget (bins at ``resolution`` from the start, no cap).

    Examples:
        >>> import streammetrics as sm
        >>> r = sm.PRCurve().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).compute()
        >>> r.precision.round(4).tolist(), r.recall.tolist(), r.thresholds.tolist()
        ([0.5, 0.6667, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.5, 0.0], [0.1, 0.35, 0.4, 0.8])
    """

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
        return f.PRCurveResult

    def _compute(self, state: ScoreSketch) -> f.PRCurveResult:
        h = state.binary_view(0, [1], [0], refine=False)
        if h.pos.sum() <= 0:
            warnings.warn(
                "PRCurve: no positive class in y_true; recall is set to one",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return f.pr_curve(h, self.input, self.drop_intermediate)

    def estimate(self) -> Estimate:
        """The curve with the two staircases of :meth:`bounds` as ``low`` and ``high`` (as :meth:`ROCCurve.estimate`)."""
        with self._lock:
            low, high = self.bounds()
            return bounded(self.compute(), low, high, exact=getattr(self._state, "is_exact", True))

    def bounds(self) -> tuple[f.PRCurveResult, f.PRCurveResult]:
        """Two staircases: the exact curve lies on or between them."""
        with self._lock:
            return f.pr_curve_bounds(self._state.binary_view(0, [1], [0]))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the curve with matplotlib (the ``plot`` extra); returns the figure."""
        from ..plotting import plot_pr_curve  # lazy: matplotlib is optional

        return plot_pr_curve(self, ax=ax, **kwargs)
