"""Law cases of the ranking family: scikit-learn is the reference for the exact mode.

Sketch-mode cases have no reference here (their accuracy and bounds are tested against the
exact values in ``tests/ranking``); the laws (splits, merges, weights, round trips) hold for them
exactly, since integer sketch states do not depend on how the data was split.

Revert, sketch mode: counts and sums come out exactly as a fresh sketch's, but the min/max keys
of a bin that keeps samples stay as an outer envelope and the resolution never refines back after
a ``max_bins`` coarsening. The value after revert is then another estimate within the guaranteed
bounds of the same data (tested in ``tests/ranking/test_revert_and_scale.py``), not the fresh
sketch's estimate: ``REVERT_RTOL`` holds the largest relative difference measured over 3000 random
runs of the law on these tiny batches (at most 120 rows, so bins are wide), with a margin. Curves
keep every point exact; only their thresholds (a score of the bin) can move, by less than one bin
(``2**-6`` relative at ``resolution=6``). The exact mode reverts exactly (default tolerance).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    p = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y)))
    return y, np.where(rng.random(n) < 0.3, np.round(p, 1), p)  # some ties


def _logits(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.round(rng.normal(size=n) * 3 + y, 2)


def _multiclass(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n)
    p[np.arange(n), y] += 0.3
    return y, p / p.sum(axis=1, keepdims=True)


def _multilabel(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, (n, 3))
    return y, np.round(np.clip(0.3 * y + 0.7 * rng.random((n, 3)), 0, 1), 2)


def _multilabel_mixed(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Multilabel rows that each hold both classes (a row of one class makes samples-AUC NaN)."""
    y, s = _multilabel(rng, n)
    y[:, 0] = 1 - y[:, 1]
    return y, s


def _samples(fn):
    @_nan_on_error
    def ref(y, s, sample_weight=None):
        if not len(y) or (sample_weight is not None and not np.sum(sample_weight)):
            return np.nan
        return fn(y, s, sample_weight=sample_weight, average="samples")

    return ref


def _nan_on_error(fn):
    def ref(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return fn(*args, **kwargs)
            except ValueError:
                return np.nan

    return ref


def _one_class(y, col=None):
    y = np.asarray(y) if col is None else np.asarray(y)[:, col]
    return len(np.unique(y)) < 2


@_nan_on_error
def _auc(y, s, sample_weight=None, **kw):
    if _one_class(y):
        return np.nan
    return skm.roc_auc_score(y, s, sample_weight=sample_weight, **kw)


@_nan_on_error
def _ap(y, s, sample_weight=None):
    if not np.any(np.asarray(y) == 1):
        return np.nan
    return skm.average_precision_score(y, s, sample_weight=sample_weight)


def _ovr(metric, average):
    def ref(y, p, sample_weight=None):
        vals, weights = [], []
        for k in range(p.shape[1]):
            yk = (y == k).astype(int)
            vals.append(metric(yk, p[:, k], sample_weight=sample_weight))
            weights.append(yk.sum() if sample_weight is None else np.dot(sample_weight, yk))
        vals = np.array(vals)
        if np.isnan(vals).any():
            return np.nan
        return np.average(vals, weights=weights if average == "weighted" else None)

    return ref


def _ovo(y, p, sample_weight=None):
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    vals = []
    present = set(np.asarray(y)[w > 0].tolist())  # scikit-learn averages the pairs of classes present
    for a in range(p.shape[1]):
        for b in range(a + 1, p.shape[1]):
            if not {a, b} <= present:
                continue
            mask = (y == a) | (y == b)
            v1 = _auc((y[mask] == a).astype(int), p[mask, a], sample_weight=w[mask])
            v2 = _auc((y[mask] == b).astype(int), p[mask, b], sample_weight=w[mask])
            vals.append((v1 + v2) / 2)
    return np.mean(vals) if vals else np.nan


def _multilabel_ref(metric, average):
    def ref(y, s, sample_weight=None):
        if average == "micro":
            w = None if sample_weight is None else np.repeat(sample_weight, y.shape[1])
            return metric(y.ravel(), s.ravel(), sample_weight=w)
        vals = np.array([metric(y[:, j], s[:, j], sample_weight=sample_weight) for j in range(y.shape[1])])
        if np.isnan(vals).any():
            return np.nan
        weights = y.sum(0) if sample_weight is None else sample_weight @ y
        return np.average(vals, weights=weights if average == "weighted" else None)

    return ref


@_nan_on_error
def _roc_curve(y, s, sample_weight=None):
    return dict(
        zip(("fpr", "tpr", "thresholds"), skm.roc_curve(y, s, sample_weight=sample_weight), strict=True)
    )


@_nan_on_error
def _pr_curve(y, s, sample_weight=None):
    return dict(
        zip(
            ("precision", "recall", "thresholds"),
            skm.precision_recall_curve(y, s, sample_weight=sample_weight),
            strict=True,
        )
    )


REVERT_RTOL = {"auc": 0.1, "score": 0.15, "maxbins": 1.5, "ap": 0.5, "curve": 2.0**-6}

CASES: list[LawCase] = [
    LawCase("ROCAUC[exact]", lambda: sm.ROCAUC(exact=True), _binary, _auc, rtol=1e-12),
    LawCase("ROCAUC[sketch]", lambda: sm.ROCAUC(resolution=6), _binary, revert_rtol=REVERT_RTOL["auc"]),
    LawCase(
        "ROCAUC[sketch-maxbins]",
        lambda: sm.ROCAUC(resolution=12, max_bins=8),
        _binary,
        revert_rtol=REVERT_RTOL["maxbins"],  # 8 bins: after revert up to 2 levels coarser than fresh
    ),
    LawCase("ROCAUC[score]", lambda: sm.ROCAUC(input="score", exact=True), _logits, _auc, rtol=1e-12),
    LawCase(
        "ROCAUC[score-sketch]",
        lambda: sm.ROCAUC(input="score", resolution=5),
        _logits,
        revert_rtol=REVERT_RTOL["score"],
    ),
    LawCase(
        "ROCAUC[max_fpr]",
        lambda: sm.ROCAUC(exact=True, max_fpr=0.4),
        _binary,
        lambda y, s, sample_weight=None: _auc(y, s, sample_weight=sample_weight, max_fpr=0.4),
        rtol=1e-12,
    ),
    LawCase("ROCAUC[ovr-macro]", lambda: sm.ROCAUC(exact=True), _multiclass, _ovr(_auc, "macro"), rtol=1e-12),
    LawCase(
        "ROCAUC[ovr-weighted]",
        lambda: sm.ROCAUC(exact=True, average="weighted"),
        _multiclass,
        _ovr(_auc, "weighted"),
        rtol=1e-12,
    ),
    LawCase("ROCAUC[ovo]", lambda: sm.ROCAUC(exact=True, multi_class="ovo"), _multiclass, _ovo, rtol=1e-12),
    LawCase(
        "ROCAUC[multilabel-micro]",
        lambda: sm.ROCAUC(exact=True, average="micro"),
        _multilabel,
        _multilabel_ref(_auc, "micro"),
        rtol=1e-12,
    ),
    LawCase(
        "ROCAUC[multilabel-macro]",
        lambda: sm.ROCAUC(exact=True),
        _multilabel,
        _multilabel_ref(_auc, "macro"),
        rtol=1e-12,
    ),
    LawCase(
        "ROCAUC[samples]",
        lambda: sm.ROCAUC(average="samples"),
        _multilabel_mixed,
        _samples(skm.roc_auc_score),
        rtol=1e-12,
    ),
    LawCase(
        "AveragePrecision[samples]",
        lambda: sm.AveragePrecision(average="samples"),
        _multilabel,
        _samples(skm.average_precision_score),
        rtol=1e-12,
    ),
    LawCase("AveragePrecision[exact]", lambda: sm.AveragePrecision(exact=True), _binary, _ap, rtol=1e-12),
    LawCase(
        "AveragePrecision[sketch]",
        lambda: sm.AveragePrecision(resolution=6),
        _binary,
        revert_rtol=REVERT_RTOL["ap"],
    ),
    LawCase(
        "AveragePrecision[ovr]",
        lambda: sm.AveragePrecision(exact=True, average="weighted"),
        _multiclass,
        _ovr(_ap, "weighted"),
        rtol=1e-12,
    ),
    LawCase(
        "AveragePrecision[multilabel-micro]",
        lambda: sm.AveragePrecision(exact=True, average="micro"),
        _multilabel,
        _multilabel_ref(_ap, "micro"),
        rtol=1e-12,
    ),
    LawCase("ROCCurve[exact]", lambda: sm.ROCCurve(exact=True), _binary, _roc_curve, rtol=1e-12),
    LawCase("ROCCurve[sketch]", lambda: sm.ROCCurve(resolution=6), _binary, revert_rtol=REVERT_RTOL["curve"]),
    LawCase("PRCurve[exact]", lambda: sm.PRCurve(exact=True), _binary, _pr_curve, rtol=1e-12),
    LawCase("PRCurve[sketch]", lambda: sm.PRCurve(resolution=6), _binary, revert_rtol=REVERT_RTOL["curve"]),
    # issue 16: the default sketch is exact below its byte budget (scikit-learn to 1e-12), and a
    # small budget crosses into bins inside the law's batches (the laws hold across the crossing)
    LawCase("ROCAUC[budget-exact]", lambda: sm.ROCAUC(), _binary, _auc, rtol=1e-12),
    LawCase("ROCAUC[budget-ovr]", lambda: sm.ROCAUC(), _multiclass, _ovr(_auc, "macro"), rtol=1e-12),
    LawCase("AveragePrecision[budget-exact]", lambda: sm.AveragePrecision(), _binary, _ap, rtol=1e-12),
    LawCase(
        "ROCAUC[budget-crossing]",
        lambda: sm.ROCAUC(max_bytes=2048),
        _binary,
        revert_rtol=REVERT_RTOL["auc"],
    ),
]

# issue 17: operating points on the score sketch, one binary case each (exact below the budget;
# references from scikit-learn's curves in tests/ranking/points_reference.py). Multiclass and
# multilabel input and the bounds past the budget are tested in tests/ranking/test_operating_points.py,
# torchmetrics agreement in tests/ranking/test_operating_points_torchmetrics.py.
from tests.ranking import points_reference as _pts  # noqa: E402

CASES += [
    LawCase(
        "PrecisionAtRecall",
        lambda: sm.PrecisionAtRecall(0.5),
        _binary,
        _pts.precision_at_recall(0.5),
        rtol=1e-12,
    ),
    LawCase(
        "RecallAtPrecision",
        lambda: sm.RecallAtPrecision(0.6),
        _binary,
        _pts.recall_at_precision(0.6),
        rtol=1e-12,
    ),
    LawCase(
        "SensitivityAtSpecificity",
        lambda: sm.SensitivityAtSpecificity(0.7),
        _binary,
        _pts.sensitivity_at_specificity(0.7),
        rtol=1e-12,
    ),
    LawCase(
        "SpecificityAtSensitivity[score]",
        lambda: sm.SpecificityAtSensitivity(0.8, input="score"),
        _logits,
        _pts.specificity_at_sensitivity(0.8),
        rtol=1e-12,
    ),
    LawCase("EqualErrorRate", lambda: sm.EqualErrorRate(), _binary, _pts.equal_error_rate, rtol=1e-12),
    LawCase("LogAUC", lambda: sm.LogAUC((0.05, 0.5)), _binary, _pts.log_auc((0.05, 0.5)), rtol=1e-12),
    LawCase("DETCurve", lambda: sm.DETCurve(), _binary, _pts.det_curve, rtol=1e-12),
]
