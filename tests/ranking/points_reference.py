"""Independent references for the operating points, from scikit-learn's curves (no torch needed).

Each reads scikit-learn's ``roc_curve`` / ``precision_recall_curve`` (every distinct score, with
weights) and applies the metric's definition (torchmetrics' selection rules) with plain NumPy;
LogAUC follows torchmetrics' algorithm (merge the range ends into the curve, sort, trapezoid in
``log10`` FPR) with ``np.interp``. A value that is undefined is ``(nan, nan)``, the metrics'
documented convention (torchmetrics returns 0 and a NaN or 1e6 threshold; scikit-learn's
``det_curve`` raises).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn import metrics as skm

NAN_POINT = {"value": np.nan, "threshold": np.nan}


def _classes(y: Any, w: Any) -> tuple[bool, bool]:
    y = np.asarray(y)
    keep = np.ones(len(y), bool) if w is None else np.asarray(w) > 0
    return bool(np.any(y[keep] == 1)), bool(np.any(y[keep] != 1))


def _roc(y, s, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)


def _pr(y, s, w):
    precision, recall, thresholds = skm.precision_recall_curve(y, s, sample_weight=w)
    return precision[:-1], recall[:-1], thresholds  # the final (1, 0) point has no threshold


def sensitivity_at_specificity(level: float):
    def ref(y, s, sample_weight=None):
        if not all(_classes(y, sample_weight)):
            return NAN_POINT
        fpr, tpr, th = _roc(y, s, sample_weight)
        ok = np.flatnonzero(1 - fpr >= level)
        i = ok[np.argmax(tpr[ok])]  # the first: the highest threshold
        return {"value": tpr[i], "threshold": th[i]}

    return ref


def specificity_at_sensitivity(level: float):
    def ref(y, s, sample_weight=None):
        if not all(_classes(y, sample_weight)):
            return NAN_POINT
        fpr, tpr, th = _roc(y, s, sample_weight)
        ok = np.flatnonzero(tpr >= level)
        i = ok[np.argmax((1 - fpr)[ok])]
        return {"value": 1 - fpr[i], "threshold": th[i]}

    return ref


def precision_at_recall(level: float):
    def ref(y, s, sample_weight=None):
        if not _classes(y, sample_weight)[0]:
            return NAN_POINT
        precision, recall, th = _pr(y, s, sample_weight)
        best = max((p, r, t) for p, r, t in zip(precision, recall, th, strict=True) if r >= level)
        return {"value": best[0], "threshold": best[2]}

    return ref


def recall_at_precision(level: float):
    def ref(y, s, sample_weight=None):
        if not _classes(y, sample_weight)[0]:
            return NAN_POINT
        precision, recall, th = _pr(y, s, sample_weight)
        ok = [(r, p, t) for p, r, t in zip(precision, recall, th, strict=True) if p >= level]
        if not ok:
            return NAN_POINT
        best = max(ok)
        return {"value": best[0], "threshold": best[2]}

    return ref


def equal_error_rate(y, s, sample_weight=None):
    if not all(_classes(y, sample_weight)):
        return NAN_POINT
    fpr, tpr, th = _roc(y, s, sample_weight)
    fnr = 1 - tpr
    gap = np.abs(fpr - fnr)
    if sample_weight is None:  # whole counts: equal gaps tie exactly (the first from the top wins),
        # where their float64 roundings may differ; distinct gaps differ by at least 1 / (N P)
        i = int(np.flatnonzero(gap <= gap.min() + 1e-12)[0])
    else:
        i = int(np.argmin(gap))
    return {"value": (fpr[i] + fnr[i]) / 2, "threshold": th[i]}


def log_auc(fpr_range: tuple[float, float]):
    a, b = fpr_range

    def ref(y, s, sample_weight=None):
        if not all(_classes(y, sample_weight)):
            return np.nan
        fpr, tpr, _ = _roc(y, s, sample_weight)
        ends = np.array([a, b])
        x = np.sort(np.concatenate([fpr, ends]))
        v = np.sort(np.concatenate([tpr, np.interp(ends, fpr, tpr)]))
        lo = np.flatnonzero(x == a)[-1]
        hi = np.flatnonzero(x == b)[-1]
        return float(np.trapezoid(v[lo : hi + 1], np.log10(x[lo : hi + 1])) / (np.log10(b) - np.log10(a)))

    return ref


def det_curve(y, s, sample_weight=None):
    if not all(_classes(y, sample_weight)):  # scikit-learn raises; the metric gives NaN rates
        return {"fpr": [np.nan], "fnr": [np.nan], "thresholds": [np.nan]}
    fpr, fnr, th = skm.det_curve(y, s, sample_weight=sample_weight)
    return {"fpr": fpr, "fnr": fnr, "thresholds": th}


def one_vs_rest(binary):
    """Per class of a multiclass ``(y, P)`` (or per column of multilabel ``(Y, S)``): arrays."""

    def ref(y, s, sample_weight=None):
        y, s = np.asarray(y), np.asarray(s)
        cols = [(y[:, k] if y.ndim == 2 else (y == k).astype(int), s[:, k]) for k in range(s.shape[1])]
        out = [binary(yk, sk, sample_weight=sample_weight) for yk, sk in cols]
        if isinstance(out[0], dict):
            return {key: np.array([o[key] for o in out], dtype=float) for key in out[0]}
        return np.array(out, dtype=float)

    return ref


def macro(per_class):
    """The mean over the classes where the value is defined (torchmetrics' LogAUC macro)."""

    def ref(*args, **kwargs):
        values = per_class(*args, **kwargs)
        return float(np.mean(values[~np.isnan(values)])) if (~np.isnan(values)).any() else np.nan

    return ref


def micro(binary):
    """Every (row, class) cell pooled: one binary curve."""

    def ref(y, s, sample_weight=None):
        y, s = np.asarray(y), np.asarray(s)
        k = s.shape[1]
        onehot = y if y.ndim == 2 else (y[:, None] == np.arange(k)).astype(int)
        w = None if sample_weight is None else np.repeat(sample_weight, k)
        return binary(onehot.ravel(), s.ravel(), sample_weight=w)

    return ref
