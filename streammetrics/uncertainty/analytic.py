"""Analytic confidence intervals, cheap because they read only the metric's state.

* :func:`wilson_interval` / :func:`wilson`: the Wilson score interval of a proportion
  (accuracy, precision, recall, specificity, ... read off the confusion counts);
* :func:`auc_interval` / :func:`hanley_mcneil`: the Hanley-McNeil (1982) normal interval of a
  ROC AUC from the AUC and the class counts;
* :func:`pearson_interval` / :func:`fisher_z`: the Fisher z interval of Pearson's r (and of the
  r² of the least-squares line, by squaring the r interval).

All are large-sample approximations; the catalogue page states their assumptions. With
non-integer sample weights, the summed weights are used as if they were counts.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._core.metric import Metric
from .._core.params import check_number
from ..errors import UndefinedMetricWarning
from ._stats import normal_sf, two_sided_z
from .results import Interval, TestResult


def _check_level(level: float) -> float:
    return float(check_number("level", level, low=0.0, high=1.0, low_open=True, high_open=True))


def wilson_interval(successes: Any, trials: Any, level: float = 0.95) -> tuple[Any, Any]:
    """The Wilson score interval ``(low, high)`` of a proportion ``successes / trials``.

    ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with ``z`` the two-sided normal
    critical value. Vectorized over arrays; NaN where ``trials == 0``.

    Examples:
        >>> low, high = wilson_interval(8, 10)
        >>> round(low, 4), round(high, 4)
        (0.4902, 0.9433)
    """
    level = _check_level(level)
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = two_sided_z(level)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / n
        denom = 1.0 + z * z / n
        center = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        low = np.where(n > 0, np.clip(center - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(center + half, 0.0, 1.0), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


# numerator and denominator of each proportion, from per-class (tp, fp, fn, tn)
_PROPORTIONS = {
    "Accuracy": lambda tp, fp, fn, tn: (tp + tn, tp + fp + fn + tn),
    "Precision": lambda tp, fp, fn, tn: (tp, tp + fp),
    "Recall": lambda tp, fp, fn, tn: (tp, tp + fn),
    "Specificity": lambda tp, fp, fn, tn: (tn, tn + fp),
    "NPV": lambda tp, fp, fn, tn: (tn, tn + fn),
    "FPR": lambda tp, fp, fn, tn: (fp, fp + tn),
    "FNR": lambda tp, fp, fn, tn: (fn, fn + tp),
    "FDR": lambda tp, fp, fn, tn: (fp, fp + tp),
    "FOR": lambda tp, fp, fn, tn: (fn, fn + tn),
    "Prevalence": lambda tp, fp, fn, tn: (tp + fn, tp + fp + fn + tn),
}


def proportion_counts(metric: Metric[Any]) -> tuple[Any, Any]:
    """``(successes, trials)`` of a proportion-valued confusion metric, from its counts.

    Supports the metrics of :data:`PROPORTION_METRICS` with ``average`` in ``"binary"``,
    ``"micro"`` or ``None`` (arrays, one entry per label). Other averages are not proportions:
    use :class:`~streammetrics.Bootstrap`.

    Examples:
        >>> import streammetrics as sm
        >>> proportion_counts(sm.Recall().update([1, 1, 1, 0], [1, 0, 1, 0]))
        (2.0, 3.0)
    """
    name = type(metric).__name__
    if name not in _PROPORTIONS:
        raise ValueError(
            f"metric: expected one of {sorted(_PROPORTIONS)} (a proportion), found {name}; "
            "use sm.Bootstrap for other metrics"
        )
    average = metric.average
    if average not in ("binary", "micro", None):
        raise ValueError(
            f"metric: a Wilson interval needs average 'binary', 'micro' or None (a proportion), found "
            f"average={average!r}; use sm.Bootstrap"
        )
    state = metric.state
    if name == "Accuracy" and average in ("binary", "micro"):
        if state.mode == "multilabel":
            raise ValueError("metric: subset accuracy of multilabel data: use sm.Bootstrap")
        if not state.dense:
            right, true, _ = state.class_totals()
            return float(right.sum()), float(true.sum())
        m = state.matrix.astype(np.float64)
        return float(np.trace(m)), float(m.sum())
    state = metric._view(state)  # labels= chooses and orders the labels (the state counts all)
    tp, fp, fn, tn = state.one_vs_rest()
    if average == "micro":
        tp, fp, fn, tn = (np.array([a.sum()]) for a in (tp, fp, fn, tn))
    elif average == "binary":
        if state.mode == "multilabel":
            raise ValueError("metric: multilabel input needs average 'micro' or None")
        idx = state.labels.index_of(metric.pos_label)
        if idx is None:  # the positive class was never seen: no positive counts at all
            tp, fp, fn = (np.zeros(1) for _ in range(3))
            tn = np.array([state.total_weight])
        else:
            tp, fp, fn, tn = (a[idx : idx + 1] for a in (tp, fp, fn, tn))
    num, den = _PROPORTIONS[name](tp, fp, fn, tn)
    if average is None:
        return num, den
    return float(num[0]), float(den[0])


PROPORTION_METRICS = tuple(sorted(_PROPORTIONS))


def wilson(metric: Metric[Any], level: float = 0.95) -> Interval:
    """The Wilson interval of a proportion-valued confusion metric (Accuracy, Recall, ...).

    ``estimate`` is ``successes / trials`` (NaN with an UndefinedMetricWarning when there are
    no trials, whatever the metric's ``zero_division``).

    Examples:
        >>> import streammetrics as sm
        >>> iv = wilson(sm.Accuracy().update([0, 1, 1, 0, 1] * 20, [0, 1, 0, 0, 1] * 20))
        >>> iv.estimate, round(iv.low, 4), round(iv.high, 4)
        (0.8, 0.7112, 0.8666)
    """
    level = _check_level(level)
    num, den = proportion_counts(metric)
    if np.any(np.asarray(den) == 0):
        warnings.warn(
            f"{type(metric).__name__}: a proportion with no trials is undefined; returning NaN",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.where(
            np.asarray(den) > 0, np.asarray(num) / np.where(np.asarray(den) > 0, den, 1), np.nan
        )
    low, high = wilson_interval(num, den, level)
    if np.ndim(estimate) == 0:
        estimate = float(estimate)
    return Interval(estimate, low, high, level, "wilson")


def hanley_mcneil_se(auc: float, n_pos: float, n_neg: float) -> float:
    """Hanley & McNeil's (1982) standard error of an AUC from ``n_pos`` positives and ``n_neg`` negatives.

    ``SE² = [A(1-A) + (n_pos-1)(Q1-A²) + (n_neg-1)(Q2-A²)] / (n_pos n_neg)`` with
    ``Q1 = A/(2-A)`` and ``Q2 = 2A²/(1+A)`` (exponential score model).

    Examples:
        >>> round(hanley_mcneil_se(0.8, 50, 50), 5)
        0.0445
    """
    a = float(auc)
    if n_pos <= 0 or n_neg <= 0 or not 0.0 <= a <= 1.0:
        return math.nan
    q1, q2 = a / (2.0 - a), 2.0 * a * a / (1.0 + a)
    var = (a * (1.0 - a) + (n_pos - 1.0) * (q1 - a * a) + (n_neg - 1.0) * (q2 - a * a)) / (n_pos * n_neg)
    return math.sqrt(max(var, 0.0))


def auc_interval(auc: float, n_pos: float, n_neg: float, level: float = 0.95) -> Interval:
    """The normal interval ``A ± z SE`` (Hanley-McNeil SE), clipped to [0, 1].

    Examples:
        >>> iv = auc_interval(0.8, 50, 50)
        >>> round(iv.low, 4), round(iv.high, 4)
        (0.7128, 0.8872)
    """
    level = _check_level(level)
    se = hanley_mcneil_se(auc, n_pos, n_neg)
    z = two_sided_z(level)
    low, high = max(0.0, auc - z * se), min(1.0, auc + z * se)
    return Interval(float(auc), low, high, level, "hanley-mcneil")


def class_counts(metric: Metric[Any]) -> tuple[float, float]:
    """``(n_pos, n_neg)`` (weighted) of a binary ranking metric such as ``sm.ROCAUC``.

    Examples:
        >>> import streammetrics as sm
        >>> class_counts(sm.ROCAUC().update([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.3, 0.2]))
        (3.0, 2.0)
    """
    state = metric.state
    if not hasattr(state, "binary_view") or state.layout is None:
        raise ValueError(f"metric: expected a binary ranking metric with data, found {type(metric).__name__}")
    if state.layout != (1, 2):
        raise ValueError(f"metric: expected binary input (one score column), found layout {state.layout}")
    h = state.binary_view(0, [1], [0])
    return float(np.sum(h.pos)), float(np.sum(h.neg))


def hanley_mcneil(metric: Metric[Any], level: float = 0.95) -> Interval:
    """The Hanley-McNeil interval of a binary ``sm.ROCAUC`` (its AUC and class counts).

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 400); s = np.clip(0.35 * y + 0.65 * rng.random(400), 0, 1)
        >>> iv = hanley_mcneil(sm.ROCAUC().update(y, s))
        >>> bool(iv.low < iv.estimate < iv.high), iv.method
        (True, 'hanley-mcneil')
    """
    n_pos, n_neg = class_counts(metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        auc = metric.compute()
    auc = float(getattr(auc, "value", auc))
    return auc_interval(auc, n_pos, n_neg, level)


def pearson_interval(r: float, n: float, level: float = 0.95, *, squared: bool = False) -> Interval:
    """Fisher's z interval of a Pearson correlation ``r`` on ``n`` pairs: ``tanh(atanh r ± z/sqrt(n-3))``.

    ``squared=True`` returns the interval of ``r²`` (the R² of the least-squares line of one
    variable on the other): the square of the r interval, with 0 as its low end when the r
    interval contains 0. Assumes bivariate normal data; NaN when ``n <= 3``.

    Examples:
        >>> iv = pearson_interval(0.5, 103)
        >>> round(iv.low, 4), round(iv.high, 4)
        (0.3393, 0.6323)
    """
    level = _check_level(level)
    r = float(r)
    if n <= 3 or not -1.0 <= r <= 1.0:
        low = high = math.nan
    elif abs(r) == 1.0:
        low = high = r
    else:
        half = two_sided_z(level) / math.sqrt(n - 3.0)
        z = math.atanh(r)
        low, high = math.tanh(z - half), math.tanh(z + half)
    if not squared:
        return Interval(r, low, high, level, "fisher-z")
    if math.isnan(low):
        return Interval(r * r, low, high, level, "fisher-z squared")
    lo2 = 0.0 if low <= 0.0 <= high else min(low * low, high * high)
    return Interval(r * r, lo2, max(low * low, high * high), level, "fisher-z squared")


def fisher_z(metric: Metric[Any], level: float = 0.95, *, squared: bool = False) -> Interval:
    """The Fisher z interval of a single-output ``sm.PearsonR`` (``n`` = the number of rows).

    ``squared=True``: the interval of r² (not of ``sm.R2``, which is the R² of y_pred as a
    prediction of y_true without refitting; use :class:`~streammetrics.Bootstrap` for that).

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> x = np.arange(50.0); y = x + 10 * np.sin(x)
        >>> iv = fisher_z(sm.PearsonR().update(y, x))
        >>> round(iv.estimate, 4), round(iv.low, 4), round(iv.high, 4)
        (0.8911, 0.8149, 0.937)
    """
    if type(metric).__name__ != "PearsonR":
        raise ValueError(f"metric: expected a PearsonR, found {type(metric).__name__}; use sm.Bootstrap")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = metric.compute()
    if np.ndim(r):
        raise ValueError("metric: expected a single-output PearsonR")
    return pearson_interval(float(r), metric.n_samples, level, squared=squared)


def auc_difference_test(metric_a: Metric[Any], metric_b: Metric[Any]) -> TestResult:
    """Two-sided z-test of ``AUC_a = AUC_b`` for two binary ``sm.ROCAUC`` on independent data.

    ``z = (A_a - A_b) / sqrt(SE_a² + SE_b²)`` with Hanley-McNeil standard errors from each
    sketch's AUC and class counts. It assumes the two AUCs come from *independent* samples (two
    test sets, two time windows, two shards of different populations). Two models scored on the
    same rows give correlated AUCs, for which this test is conservative; a paired (DeLong) test
    needs both models' scores per row jointly, which two separate sketches do not keep.

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> rng = np.random.default_rng(1)
        >>> y1, y2 = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
        >>> good = sm.ROCAUC().update(y1, np.clip(0.5 * y1 + 0.5 * rng.random(500), 0, 1))
        >>> weak = sm.ROCAUC().update(y2, np.clip(0.1 * y2 + 0.9 * rng.random(500), 0, 1))
        >>> auc_difference_test(good, weak).pvalue < 0.001
        True
    """
    values, errors = [], []
    for metric in (metric_a, metric_b):
        n_pos, n_neg = class_counts(metric)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            auc = metric.compute()
        auc = float(getattr(auc, "value", auc))
        values.append(auc)
        errors.append(hanley_mcneil_se(auc, n_pos, n_neg))
    se = math.sqrt(errors[0] ** 2 + errors[1] ** 2)
    if not math.isfinite(se) or se == 0.0 or not all(math.isfinite(v) for v in values):
        warnings.warn(
            "auc_difference_test: undefined (a class missing or a zero standard error)",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return TestResult(math.nan, math.nan, "hanley-mcneil z (independent samples)")
    z = (values[0] - values[1]) / se
    return TestResult(z, 2.0 * normal_sf(abs(z)), "hanley-mcneil z (independent samples)")
