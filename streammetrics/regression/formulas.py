"""Pure formulas of the regression states, per output column, then averaged like scikit-learn.

Every function takes a non-empty state (total weight > 0) and a ``multioutput`` option:
``"raw_values"`` (an array, one value per output), ``"uniform_average"`` (a float),
``"variance_weighted"`` (R² and explained variance: outputs weighted by the variance of
y_true) or a list of output weights.

Examples:
    >>> import numpy as np
    >>> from streammetrics.regression.moments import CoMoments
    >>> s = CoMoments()
    >>> s.update(np.array([3.0, -0.5, 2.0, 7.0]), np.array([2.5, 0.0, 2.0, 8.0]), None)
    >>> round(r2(s), 6), round(mean_squared_error(s), 6), round(mean_absolute_error(s), 6)
    (0.948608, 0.375, 0.5)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import UndefinedMetricWarning
from .extremes import MaxAbsError
from .moments import CoMoments, Moments

Multioutput = Any  # "raw_values" | "uniform_average" | "variance_weighted" | list of weights


def average_outputs(
    values: np.ndarray, multioutput: Multioutput = "uniform_average", variance: np.ndarray | None = None
) -> Any:
    """Combine per-output values as scikit-learn: raw array, plain mean, or a weighted mean.

    Examples:
        >>> average_outputs(np.array([1.0, 3.0]), "uniform_average")
        2.0
        >>> average_outputs(np.array([1.0, 3.0]), [3.0, 1.0])
        1.5
    """
    values = np.asarray(values, dtype=np.float64)
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return values
        if multioutput == "variance_weighted":
            if variance is None:
                raise ValueError("multioutput: 'variance_weighted' does not apply to this metric")
            if np.any(variance != 0):
                with np.errstate(invalid="ignore"):  # -inf * 0 weight is NaN, as scikit-learn
                    return float(np.average(values, weights=variance))
        return float(np.mean(values))
    return float(np.average(values, weights=np.asarray(multioutput, dtype=np.float64)))


def _fraction_explained(
    numerator: np.ndarray, denominator: np.ndarray, multioutput: Multioutput, force_finite: bool
) -> Any:
    """scikit-learn's ``_assemble_fraction_of_explained_deviance``: ``1 - num / den``."""
    nonzero_den = denominator != 0
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = 1.0 - numerator / denominator
    else:
        nonzero_num = numerator != 0
        scores = np.ones(len(numerator))
        valid = nonzero_den & nonzero_num
        scores[valid] = 1.0 - numerator[valid] / denominator[valid]
        scores[nonzero_num & ~nonzero_den] = 0.0
    return average_outputs(scores, multioutput, denominator)


def mean_absolute_error(state: Moments, multioutput: Multioutput = "uniform_average") -> Any:
    """``sum w |y - ŷ| / sum w`` per output.

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0]), np.array([2.0, 4.0]), None)
        >>> mean_absolute_error(s)
        1.5
    """
    return average_outputs(state.sum_abs / state.weight, multioutput)


def mean_squared_error(state: Moments, multioutput: Multioutput = "uniform_average") -> Any:
    """``sum w (y - ŷ)^2 / sum w`` per output (for a ``log1p`` state: MSLE).

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0]), np.array([2.0, 4.0]), None)
        >>> mean_squared_error(s)
        2.5
    """
    return average_outputs(state.ss_residual / state.weight, multioutput)


def root_mean_squared_error(state: Moments, multioutput: Multioutput = "uniform_average") -> Any:
    """The square root of the MSE of each output, then averaged (as scikit-learn).

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0]), np.array([1.0, 4.0]), None)
        >>> root_mean_squared_error(s)
        1.4142135623730951
    """
    return average_outputs(np.sqrt(state.ss_residual / state.weight), multioutput)


def mean_absolute_percentage_error(state: CoMoments, multioutput: Multioutput = "uniform_average") -> Any:
    """``sum w |y - ŷ| / max(|y|, eps) / sum w`` with scikit-learn's ``eps`` (float64 epsilon).

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 4.0]), np.array([2.0, 3.0]), None)
        >>> mean_absolute_percentage_error(s)
        0.625
    """
    return average_outputs(state.sum_ape / state.weight, multioutput)


def mean_error(state: Moments, multioutput: Multioutput = "uniform_average") -> Any:
    """The bias ``sum w (ŷ - y) / sum w``: positive when predictions are too high.

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0]), np.array([2.0, 4.0]), None)
        >>> mean_error(s)
        1.5
    """
    return average_outputs(-state.mean_residual, multioutput)


def r2(state: CoMoments, multioutput: Multioutput = "uniform_average", force_finite: bool = True) -> Any:
    """The coefficient of determination ``1 - sum w (y - ŷ)^2 / sum w (y - ȳ)^2``.

    ``force_finite`` as scikit-learn: a constant y_true gives 1.0 for perfect predictions and
    0.0 otherwise instead of NaN / -inf.

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]), None)
        >>> r2(s)
        0.5
    """
    return _fraction_explained(state.ss_residual, state.ss_true, multioutput, force_finite)


def adjusted_r2(
    state: CoMoments, n_features: int, multioutput: Multioutput = "uniform_average", force_finite: bool = True
) -> Any:
    """``1 - (1 - R²)(n - 1) / (n - p - 1)`` with ``n`` the total sample weight.

    Undefined (UndefinedMetricWarning, NaN) when ``n <= n_features + 1``.

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 5.0]), None)
        >>> adjusted_r2(s, n_features=1)
        0.7
    """
    n = state.weight
    if n <= n_features + 1:
        warnings.warn(
            f"AdjustedR2 is undefined with n={n:g} <= n_features + 1 = {n_features + 1}; returning NaN",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        scores = np.full(state.n_outputs or 1, np.nan)
        return average_outputs(scores, multioutput, state.ss_true)
    scores = r2(state, "raw_values", force_finite)
    adjusted = 1.0 - (1.0 - scores) * (n - 1.0) / (n - n_features - 1.0)
    return average_outputs(adjusted, multioutput, state.ss_true)


def explained_variance(
    state: CoMoments, multioutput: Multioutput = "uniform_average", force_finite: bool = True
) -> Any:
    """``1 - Var(y - ŷ) / Var(y)`` (weighted population variances), ``force_finite`` as R².

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0]), None)
        >>> explained_variance(s)
        1.0
    """
    return _fraction_explained(state.ss_residual_centered, state.ss_true, multioutput, force_finite)


def pearson_r(state: CoMoments, multioutput: Multioutput = "uniform_average") -> Any:
    """Pearson's correlation of y_true and y_pred per output: ``C / sqrt(M2_y M2_ŷ)``.

    A constant y_true or y_pred makes it undefined: UndefinedMetricWarning and NaN.

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0]), None)
        >>> round(pearson_r(s), 6)
        0.993399
    """
    denom = np.sqrt(state.ss_true) * np.sqrt(state.ss_pred)
    bad = denom == 0
    if bad.any():
        warnings.warn(
            "PearsonR is undefined when y_true or y_pred is constant; returning NaN for "
            f"{int(bad.sum())} output(s)",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(bad, np.nan, state.cross / np.where(bad, 1.0, denom))
    return average_outputs(np.clip(values, -1.0, 1.0), multioutput)


def concordance_correlation(state: CoMoments, multioutput: Multioutput = "uniform_average") -> Any:
    """Lin's concordance correlation ``2 s_yŷ / (s_y² + s_ŷ² + (ȳ - mean ŷ)²)`` (population moments).

    Examples:
        >>> s = CoMoments(); s.update(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]), None)
        >>> concordance_correlation(s)
        1.0
    """
    mr = state.mean_residual
    denom = state.ss_true + state.ss_pred + state.weight * mr * mr
    bad = denom == 0
    if bad.any():
        warnings.warn(
            "ConcordanceCorrelation is undefined when y_true and y_pred are one and the same "
            "constant; returning NaN",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    values = np.where(bad, np.nan, 2.0 * state.cross / np.where(bad, 1.0, denom))
    return average_outputs(values, multioutput)


def max_error(state: MaxAbsError, multioutput: Multioutput = "uniform_average") -> Any:
    """The largest ``|y - ŷ|`` per output (over rows of positive weight).

    Examples:
        >>> s = MaxAbsError(); s.update(np.array([3.0, 2.0, 7.0, 1.0]), np.array([9.0, 2.0, 7.0, 1.0]), None)
        >>> max_error(s)
        6.0
    """
    return average_outputs(state.max_abs, multioutput)
