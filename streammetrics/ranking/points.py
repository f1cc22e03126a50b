"""Operating points of a binary view: the best threshold under a constraint, EER, LogAUC, DET.

Every formula reads the view's *edges*: ``E_0`` (threshold ``+inf``, nothing predicted positive)
and, for each bin from the top, ``E_i`` (threshold: the bin's smallest score, so ``score >= it``
selects this bin and every bin above). The counts ``(tp_i, fp_i)`` at every edge are exact, so
a value read at an edge is *achieved* by its threshold. Between ``E_{i-1}`` and ``E_i`` lies bin
``i``: when it holds one distinct score (``kmin == kmax``: always, while the sketch is exact)
there is no other threshold in between; otherwise thresholds inside it reach counts ``(tp, fp)``
with ``tp_{i-1} <= tp <= tp_i`` and ``fp_{i-1} <= fp <= fp_i``, the most favourable being the
corner ``(tp_i, fp_{i-1})`` (its positives first). Hence the guaranteed bounds:

* a constrained maximum (sensitivity at specificity, precision at recall, ...) lies between the
  best edge (achieved, so a lower bound) and the best edge or open corner meeting the
  constraint (an upper bound);
* the equal error rate sits where ``FPR - FNR`` changes sign: at an edge, or inside the one
  open bin there, whose rectangle bounds ``(FPR + FNR) / 2``;
* LogAUC integrates the ROC curve between its two staircases (negatives first / positives first
  inside each open bin).

The pure functions here take an :class:`Edges` and return a :class:`PointEstimate` (value,
threshold, low, high; NaN when undefined).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .formulas import ROUNDING_SLACK, _desc
from .keys import values_of
from .sketch import BinaryHistogram


class OperatingPoint(NamedTuple):
    """A value and the threshold achieving it (``score >= threshold`` predicts positive).

    Unpacks as torchmetrics' ``(value, threshold)`` pair: ``value, threshold = m.compute()``.
    Per-class metrics hold one array each. ``threshold`` is ``inf`` where the value is reached
    by predicting nothing positive, NaN where the value is undefined.
    """

    value: Any
    threshold: Any


class DETCurveResult(NamedTuple):
    """``fpr``, ``fnr`` and ``thresholds`` as returned by :func:`sklearn.metrics.det_curve`."""

    fpr: np.ndarray
    fnr: np.ndarray
    thresholds: np.ndarray


class PointEstimate(NamedTuple):
    """A value, its threshold and guaranteed bounds ``low <= exact value <= high``."""

    value: float
    threshold: float
    low: float
    high: float


NAN_POINT = PointEstimate(np.nan, np.nan, np.nan, np.nan)


class Edges(NamedTuple):
    """Exact counts at the bin edges of a binary view, from the highest threshold down."""

    #: true and false positives at ``E_0 .. E_m`` (``E_0``: nothing predicted positive)
    tp: np.ndarray
    fp: np.ndarray
    #: thresholds of ``E_0 .. E_m`` (``inf`` first, then each bin's smallest score)
    thresholds: np.ndarray
    #: per bin ``1 .. m``: whether it may hold thresholds strictly between its two edges
    open: np.ndarray

    @property
    def p(self) -> float:
        return float(self.tp[-1])

    @property
    def n(self) -> float:
        return float(self.fp[-1])


def edges(h: BinaryHistogram, input: str) -> Edges:
    """The edges of a binary view (see the module docstring).

    Examples:
        >>> import numpy as np
        >>> from streammetrics.ranking.sketch import ScoreSketch
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(resolution=52)
        >>> s.add(keys_of(np.array([0.1, 0.4, 0.35, 0.8]), "probability"), np.array([0, 0, 1, 1]), None, (1, 2))
        >>> e = edges(s.binary_view(0, [1], [0]), "probability")
        >>> e.tp.tolist(), e.fp.tolist(), e.thresholds.tolist()
        ([0.0, 1.0, 1.0, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0, 2.0], [inf, 0.8, 0.4, 0.35, 0.1])
    """
    d = _desc(h)
    tp = np.concatenate([[0.0], np.cumsum(d.pos)])
    fp = np.concatenate([[0.0], np.cumsum(d.neg)])
    thresholds = np.concatenate([[np.inf], values_of(d.kmin, input)])
    return Edges(tp, fp, thresholds, np.asarray(d.kmin != d.kmax))


def _point(value: float, threshold: float, low: float, high: float, top: float = 1.0) -> PointEstimate:
    if low == high == value:  # exact (every threshold between the edges is known)
        return PointEstimate(float(value), float(threshold), float(value), float(value))
    low = max(float(low) - ROUNDING_SLACK, 0.0)
    high = min(float(high) + ROUNDING_SLACK, top)
    return PointEstimate(float(value), float(threshold), low, high)


def _argmax_first(values: np.ndarray, ok: np.ndarray) -> int:
    """The first index (highest threshold) of the largest value among ``ok``."""
    return int(np.argmax(np.where(ok, values, -np.inf)))


def _negative_rate(hits: np.ndarray, total: float) -> np.ndarray:
    """``1 - hits / total`` as ``(total - hits) / total``: one rounding, not two, so that a rate
    equal to a constraint in exact arithmetic (9 false positives of 10 negatives: specificity
    0.1) meets it (``1 - 0.9`` is ``0.09999999999999998``)."""
    return (total - hits) / total


def sensitivity_at_specificity(e: Edges, min_specificity: float) -> PointEstimate:
    """The highest TPR with ``1 - FPR >= min_specificity`` (the highest such threshold on ties).

    As torchmetrics' ``binary_sensitivity_at_specificity`` over the ROC points, the point
    predicting nothing positive included (threshold ``inf`` here, 1.0 in torchmetrics).
    """
    p, n = e.p, e.n
    if p <= 0 or n <= 0:
        return NAN_POINT
    sens, spec = e.tp / p, _negative_rate(e.fp, n)
    ok = spec >= min_specificity  # E_0 always qualifies: spec = 1
    best = _argmax_first(sens, ok)
    value = sens[best]
    corner = e.open & ok[:-1]  # corner (tp_i, fp_{i-1}) of an open bin
    high = max(value, float(sens[1:][corner].max())) if corner.any() else value
    return _point(value, e.thresholds[best], value, high)


def specificity_at_sensitivity(e: Edges, min_sensitivity: float) -> PointEstimate:
    """The highest TNR (``1 - FPR``) with ``TPR >= min_sensitivity`` (highest threshold on ties)."""
    p, n = e.p, e.n
    if p <= 0 or n <= 0:
        return NAN_POINT
    sens, spec = e.tp / p, _negative_rate(e.fp, n)
    ok = sens >= min_sensitivity  # the last edge always qualifies: sens = 1
    best = _argmax_first(spec, ok)
    value = spec[best]
    corner = e.open & ok[1:]
    high = max(value, float(spec[:-1][corner].max())) if corner.any() else value
    return _point(value, e.thresholds[best], value, high)


def _precision_recall(e: Edges) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at the edges below ``E_0`` and at the open corners."""
    tp, fp = e.tp[1:], e.fp[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = tp / (tp + fp)  # every bin holds weight: tp + fp > 0
        tp_c, fp_c = e.tp[1:], e.fp[:-1]
        prec_c = np.where(tp_c + fp_c > 0, tp_c / np.where(tp_c + fp_c > 0, tp_c + fp_c, 1.0), 0.0)
    return prec, tp / e.p, prec_c, tp_c / e.p


def precision_at_recall(e: Edges, min_recall: float) -> PointEstimate:
    """The highest precision with ``recall >= min_recall``; ties: the higher recall, then the
    higher threshold (torchmetrics' ``max`` over ``(precision, recall, threshold)``).

    The final ``(precision 1, recall 0)`` point of the PR curve has no threshold and takes no
    part, as in torchmetrics.
    """
    if e.p <= 0 or len(e.tp) < 2:
        return NAN_POINT
    prec, rec, prec_c, rec_c = _precision_recall(e)
    th = e.thresholds[1:]
    ok = rec >= min_recall  # the last edge always qualifies: recall = 1
    idx = np.flatnonzero(ok)
    best = idx[np.lexsort((th[idx], rec[idx], prec[idx]))[-1]]
    value = prec[best]
    corner = e.open & (rec_c >= min_recall)
    high = max(value, float(prec_c[corner].max())) if corner.any() else value
    return _point(value, th[best], value, high)


def recall_at_precision(e: Edges, min_precision: float) -> PointEstimate:
    """The highest recall with ``precision >= min_precision``; ties: the higher precision, then
    the higher threshold (torchmetrics' lexicographic arg-max).

    No edge qualifying: value and threshold NaN; the bounds are ``(0, high)`` when an open bin
    might still hold a qualifying threshold (the exact value, if defined, lies there), else NaN.
    """
    if e.p <= 0 or len(e.tp) < 2:
        return NAN_POINT
    prec, rec, prec_c, rec_c = _precision_recall(e)
    th = e.thresholds[1:]
    ok = prec >= min_precision
    corner = e.open & (prec_c >= min_precision)
    high_c = float(rec_c[corner].max()) if corner.any() else -np.inf
    if not ok.any():
        if corner.any():
            return PointEstimate(np.nan, np.nan, 0.0, min(high_c + ROUNDING_SLACK, 1.0))
        return NAN_POINT
    idx = np.flatnonzero(ok)
    best = idx[np.lexsort((th[idx], prec[idx], rec[idx]))[-1]]
    value = rec[best]
    return _point(value, th[best], value, max(value, high_c))


def equal_error_rate(e: Edges) -> PointEstimate:
    """``(FPR + FNR) / 2`` at the ROC point where ``|FPR - FNR|`` is smallest (the first, from the
    highest threshold, on ties), as torchmetrics' ``binary_eer``.

    ``FPR - FNR`` grows strictly along the curve, so the exact point lies at the edge where it
    turns non-negative, or inside the bin before it: its rectangle bounds the value.
    """
    p, n = e.p, e.n
    if p <= 0 or n <= 0:
        return NAN_POINT
    fpr, fnr = e.fp / n, _negative_rate(e.tp, p)
    diff = fpr - fnr
    # |FPR - FNR| times n * p: exact for whole counts whose product fits 2**53, so that equal
    # rates tie (1 - 3/5 and 3/5 - 1/5 differ in their last bit as floats)
    gap = np.abs(e.fp * p - (p - e.tp) * n) if p * n <= 2.0**53 else np.abs(diff)
    best = int(np.argmin(gap))
    value = (fpr[best] + fnr[best]) / 2
    j = int(np.argmax(diff >= 0))  # exists: the last edge has FPR 1, FNR 0
    if diff[j] == 0 or j == 0 or not e.open[j - 1]:
        return _point(value, e.thresholds[best], value, value)
    low = (fpr[j - 1] + fnr[j]) / 2
    high = (fpr[j] + fnr[j - 1]) / 2
    return _point(value, e.thresholds[best], min(low, value), max(high, value))


def _at(x: np.ndarray, y: np.ndarray, v: float, right: bool) -> float:
    """The curve's ``y`` at ``x = v``: at a vertical run of vertices, its top (``right``: the
    limit from the right) or its bottom; else linear interpolation in ``x`` (torchmetrics'
    ``interp``)."""
    lo, hi = int(np.searchsorted(x, v, "left")), int(np.searchsorted(x, v, "right"))
    if hi > lo:
        return float(y[hi - 1] if right else y[lo])
    k = min(max(lo - 1, 0), len(x) - 2)
    slope = (y[k + 1] - y[k]) / (x[k + 1] - x[k])
    return float(y[k] + slope * (v - x[k]))


def log_auc_polyline(x: np.ndarray, y: np.ndarray, a: float, b: float) -> float:
    """Area under ``y`` against ``log10 x`` over ``[a, b]``, divided by ``log10(b / a)``.

    ``(x, y)`` are the vertices of a monotone curve (``x`` and ``y`` non-decreasing); between
    vertices the trapezoid rule runs in ``log10 x``, and ``y`` at ``a`` and ``b`` is
    interpolated linearly in ``x`` (torchmetrics' ``binary_logauc``).

    Examples:
        >>> round(log_auc_polyline(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 0.001, 0.1), 6)  # (0.001 + 0.1) / 2
        0.0505
    """
    inner = (x > a) & (x < b)
    xs = np.concatenate([[a], x[inner], [b]])
    ys = np.concatenate([[_at(x, y, a, True)], y[inner], [_at(x, y, b, False)]])
    lx = np.log10(xs)
    area = float(np.sum((lx[1:] - lx[:-1]) * (ys[1:] + ys[:-1]) / 2.0))
    return float(area / (np.log10(b) - np.log10(a)))


def _staircase(x: np.ndarray, y: np.ndarray, open_: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """The curve with a step inside each open bin: right then up (lower), up then right (upper)."""
    ix, iy = (x[:-1], y[1:]) if upper else (x[1:], y[:-1])
    px = np.stack([ix, x[1:]], axis=1)
    py = np.stack([iy, y[1:]], axis=1)
    keep = np.stack([open_, np.ones(len(open_), bool)], axis=1)
    return np.concatenate([x[:1], px[keep]]), np.concatenate([y[:1], py[keep]])


def log_auc(e: Edges, fpr_range: tuple[float, float]) -> PointEstimate:
    """torchmetrics' LogAUC over ``fpr_range`` with bounds (threshold: NaN, an area has none)."""
    p, n = e.p, e.n
    if p <= 0 or n <= 0:
        return NAN_POINT
    a, b = fpr_range
    fpr, tpr = e.fp / n, e.tp / p
    value = log_auc_polyline(fpr, tpr, a, b)
    if not e.open.any():
        return PointEstimate(value, np.nan, value, value)
    low = log_auc_polyline(*_staircase(fpr, tpr, e.open, upper=False), a, b)
    high = log_auc_polyline(*_staircase(fpr, tpr, e.open, upper=True), a, b)
    return _point(min(max(value, low), high), np.nan, low, high)


def det_curve(e: Edges, drop_intermediate: bool = False) -> DETCurveResult:
    """The DET curve at the edges, as :func:`sklearn.metrics.det_curve` (fpr decreasing): from
    the last point without false positives to the first without false negatives."""
    tps, fps, th = e.tp, e.fp, e.thresholds
    if drop_intermediate and len(fps) > 2:
        keep = np.flatnonzero(np.r_[True, np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), True])
        tps, fps, th = tps[keep], fps[keep], th[keep]
    p, n = tps[-1], fps[-1]
    first = int(np.searchsorted(fps, fps[0], side="right")) - 1
    last = int(np.searchsorted(tps, tps[-1])) + 1
    sl = slice(first, last)
    with np.errstate(divide="ignore", invalid="ignore"):
        fpr = fps[sl][::-1] / n if n > 0 else np.full(len(fps[sl]), np.nan)
        fnr = (p - tps[sl])[::-1] / p if p > 0 else np.full(len(tps[sl]), np.nan)
    return DETCurveResult(fpr, fnr, th[sl][::-1].copy())


def det_curve_bounds(e: Edges) -> tuple[DETCurveResult, DETCurveResult]:
    """Two staircase DET curves enclosing the exact one: the lowest FNR possible (positives first
    inside each open bin) and the highest (negatives first)."""
    p, n = e.p, e.n
    out = []
    for upper in (True, False):  # the upper ROC staircase has the lower FNR
        x, y = _staircase(e.fp, e.tp, e.open, upper)
        with np.errstate(divide="ignore", invalid="ignore"):
            fpr = x / n if n > 0 else np.full(len(x), np.nan)
            fnr = (p - y) / p if p > 0 else np.full(len(y), np.nan)
        out.append(DETCurveResult(fpr[::-1], fnr[::-1], np.full(len(x), np.nan)))
    return out[0], out[1]
