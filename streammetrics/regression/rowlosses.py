"""Regression losses that are weighted means of a value of each row (issue 17).

Each keeps the per-row value state (:class:`~streammetrics.aggregation.state.RowSums`): per
output, the compensated weighted sum of the row's loss, and the total weight. Merge adds, revert
subtracts, :class:`~streammetrics.Decayed` scales. The pinball loss, the Tweedie deviances
(Poisson, gamma) and D² agree with scikit-learn; the log-cosh error, SMAPE, WMAPE, the Minkowski
distance, the cosine similarity and the CRPS with torchmetrics (which keeps every row for the
last two); :class:`NRMSE` reads the exact co-moments of the regression family.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from .._core import validation as v
from .._core.compiled import rowkernels
from .._core.inputs import Inputs
from .._core.narrow import (
    ROW_DOT_EINSUM_BELOW,
    SMALL_ROWS,
    SORTING_NETWORK_MEMBERS,
    ones,
    row_dot,
    row_max,
    sort_rows,
    transpose_into,
    weighted_column_sums,
)
from .._core.params import check_option
from .._core.workspace import work
from ..aggregation.base import RowValueMetric, SummedBatch, always, scratch, scratch_row
from ..aggregation.state import RowSums
from ..errors import InputError, UndefinedMetricWarning
from .base import RegressionMetric, check_multioutput
from .formulas import average_outputs
from .moments import Moments, TargetMoments
from .ranged import RangedTargetMoments

EPS = float(np.finfo(np.float64).eps)
#: torchmetrics' epsilon of SMAPE and WMAPE.
TORCH_EPS = 1.17e-06


def _number(
    value: Any, name: str, low: float = -math.inf, high: float = math.inf, strict: bool = False
) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number, found {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x) or x < low or x > high or (strict and x == low):
        bound = f"> {low}" if strict else f">= {low}"
        raise ValueError(f"{name}: expected a finite number {bound} and <= {high}, found {value!r}")
    return x


class _RowRegression(RowValueMetric, base=True):
    """``update(y_true, y_pred, sample_weight=None)`` of real values, 1-D or ``(n, n_outputs)``;
    one value column per output."""

    higher_is_better: ClassVar[bool | None] = False
    row_domain = staticmethod(always)
    #: Whether the outputs are averaged by ``multioutput`` (else all values are pooled).
    per_output: ClassVar[bool] = True

    def __init__(self, *, multioutput: Any = "uniform_average") -> None:
        self.multioutput = check_multioutput(multioutput, False)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"multioutput": self.multioutput}

    def _pair(self, inputs: Inputs, checked: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """y_true and y_pred as ``(n, k)`` float64 (the regression family's rules); not yet
        checked to be finite unless ``checked`` (the caller then calls ``confirm_finite``)."""
        get = inputs.floats if checked else inputs.unchecked_floats
        yt = get(0, "y_true")
        yp = get(1, "y_pred")
        v.check_length(yp, len(yt), "y_pred")
        k = 1 if yt.ndim == 1 else yt.shape[1]
        kp = 1 if yp.ndim == 1 else yp.shape[1]
        if k == 0:
            raise InputError(f"y_true: expected at least one output column, found shape {yt.shape}")
        if kp != k:
            raise InputError(f"y_pred: expected {k} outputs (the columns of y_true), found {kp}")
        expected = self._outputs()
        if expected is not None and len(yt) and k != expected:
            raise InputError(f"y_true: expected {expected} outputs like earlier batches, found {k}")
        if not isinstance(self.multioutput, str) and len(yt) and k != len(self.multioutput):
            raise InputError(
                f"y_true: expected {len(self.multioutput)} outputs (the length of multioutput), found {k}"
            )
        return yt.reshape(len(yt), k), yp.reshape(len(yp), k)

    def _outputs(self) -> int | None:
        width = self._state.width
        return None if width is None or not self.per_output else width // self.row_width

    #: Whether an inf or NaN among a row's values makes its loss non-finite, whatever the other
    #: values and the weight (a zero weight times inf is NaN): the batch's value sums then settle
    #: the inputs' finiteness, and the value-by-value check runs only when a sum is not finite
    #: (the same errors).
    finite_from_sums: ClassVar[bool] = False

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        if self.finite_from_sums:
            return self._parse_by_sums(inputs)
        yt, yp = self._pair(inputs)
        self._check_domain(yt, yp)
        return yt, yp, inputs.weights(len(yt))

    def _parse_by_sums(self, inputs: Inputs) -> tuple[Any, ...]:
        """:meth:`_parse_rows` with the finiteness read from the batch's value sums (computed here,
        carried by the batch to :meth:`_fold`): two passes over the inputs fewer."""
        yt, yp = self._pair(inputs, checked=False)
        batch = self._checked_by_sums(
            inputs, (yt, yp, inputs.weights(len(yt))), ((0, "y_true", yt), (1, "y_pred", yp))
        )
        self._check_domain(yt, yp)
        return batch

    def _check_domain(self, yt: np.ndarray, yp: np.ndarray) -> None:
        """Raise :class:`InputError` for values outside the loss's domain."""

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        yt, yp, _ = batch
        if yt.ndim == 2 and yt.shape[1] == 1:  # one output: the 1-D formula (in place, no column views)
            out = self._loss_1d(yt[:, 0], yp[:, 0])
            return out.reshape(-1, 1) if out.ndim == 1 else out
        return self._loss(yt, yp)

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _loss_1d(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        """The per-row values of one output, 1-D ``(n,)`` (or ``(n, row_width)``): by default the
        general formula; the cheap losses write theirs with fewer passes."""
        return self._loss(yt.reshape(-1, 1), yp.reshape(-1, 1))

    def _compute(self, state: RowSums) -> Any:
        return average_outputs(self._means(state), self.multioutput)


def _refuse(mask: NDArray[np.bool_], arr: np.ndarray, name: str, expected: str, metric: str) -> None:
    if mask.any():
        raise InputError(f"{name}: expected {expected} for {metric}, found {arr[mask].flat[0]}")


class PinballLoss(_RowRegression):
    """The mean pinball (quantile) loss ``alpha max(r, 0) + (1 - alpha) max(-r, 0)``, r = y - ŷ
    (scikit-learn ``mean_pinball_loss``).

    Args:
        alpha: The quantile the prediction estimates, in [0, 1]; default 0.5 (half the MAE).
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> sm.PinballLoss(alpha=0.1).update([1, 2, 3], [0, 3, 3]).compute()
        0.3333333333333333
    """

    finite_from_sums: ClassVar[bool] = True

    def __init__(self, alpha: float = 0.5, *, multioutput: Any = "uniform_average") -> None:
        self.alpha = _number(alpha, "alpha", 0.0, 1.0)
        super().__init__(multioutput=multioutput)

    def get_config(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "multioutput": self.multioutput}

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        diff = yt - yp
        return np.where(diff >= 0, self.alpha * diff, (self.alpha - 1.0) * diff)

    def _loss_1d(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        # max(alpha d, (alpha - 1) d) picks alpha d exactly when d >= 0: the same products
        diff, below, *_ = scratch(len(yt))
        np.subtract(yt, yp, out=diff)
        np.multiply(diff, self.alpha - 1.0, out=below)
        np.multiply(diff, self.alpha, out=diff)
        return np.maximum(diff, below, out=diff)


# ------------------------------------------------------------------------------- Tweedie
def power_of(x: Any, a: float) -> Any:
    """``x ** a`` for non-negative ``x``: when ``2 a`` is a small integer, by a square root and
    products (libm's ``pow`` costs about 20 ns a value, a square root 1; the result is within a
    few ulps of ``pow``'s), else ``pow``.

    Examples:
        >>> power_of(np.array([4.0, 9.0]), 1.5).tolist(), power_of(np.array([4.0]), -1.0).tolist()
        ([8.0, 27.0], [0.25])
    """
    twice = 2 * a
    if twice != int(twice) or not 0 < abs(twice) <= 8:
        return x**a
    e = int(twice)
    base, n = (np.sqrt(x), abs(e)) if e % 2 else (x, abs(e) // 2)
    if e < 0:  # (1/x)^n, not 1/x^n: x^n overflows (to a power of 0) from x near 1e154 for n=2
        with np.errstate(divide="ignore"):
            base = 1.0 / base
    out = base
    for _ in range(n - 1):
        out = out * base
    return out


def y_log(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``y * log(x)``, 0 where ``y = 0`` (whatever ``x``), computed in ``x``'s memory."""
    zero = y == 0
    if zero.any():
        x[zero] = 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        np.log(x, out=x)
    x *= y
    return x


def tweedie_deviance(y: np.ndarray, mu: Any, power: float) -> np.ndarray:
    """The unit deviance of the Tweedie distribution (scikit-learn's ``_mean_tweedie_deviance``
    before averaging)."""
    p = power
    with np.errstate(divide="ignore", invalid="ignore"):
        if p < 0:
            return 2 * (
                power_of(np.where(y > 0, y, 0.0), 2 - p) / ((1 - p) * (2 - p))
                - y * power_of(mu, 1 - p) / (1 - p)
                + power_of(mu, 2 - p) / (2 - p)
            )
        if p == 0:
            return (y - mu) ** 2
        if p == 1:
            out = y_log(y, y / mu)
            out -= y
            out += mu
            out *= 2
            return out
        if p == 2:
            return 2 * (np.log(mu / y) + y / mu - 1)
        return 2 * (
            power_of(y, 2 - p) / ((1 - p) * (2 - p))
            - y * power_of(mu, 1 - p) / (1 - p)
            + power_of(mu, 2 - p) / (2 - p)
        )


def _check_power(power: Any) -> float:
    p = _number(power, "power")
    if 0 < p < 1:
        raise ValueError(
            f"power: expected power <= 0 or >= 1 (no Tweedie distribution between), found {power!r}"
        )
    return p


def check_tweedie(yt: np.ndarray, yp: np.ndarray, power: float, metric: str) -> None:
    """scikit-learn's domain of the Tweedie deviance."""
    if power < 0:
        _refuse(yp <= 0, yp, "y_pred", "strictly positive values", metric)
    elif power == 0:
        pass
    elif power < 2:
        _refuse(yt < 0, yt, "y_true", "non-negative values", metric)
        _refuse(yp <= 0, yp, "y_pred", "strictly positive values", metric)
    else:
        _refuse(yt <= 0, yt, "y_true", "strictly positive values", metric)
        _refuse(yp <= 0, yp, "y_pred", "strictly positive values", metric)


def _tweedie_domain(power: float) -> Any:
    if power < 0:
        return lambda t, p: p > 0
    if power == 0:
        return always
    if power < 2:
        return lambda t, p: t >= 0 and p > 0
    return lambda t, p: t > 0 and p > 0


class TweedieDeviance(_RowRegression):
    """The mean Tweedie deviance of ``power`` (scikit-learn ``mean_tweedie_deviance``).

    ``power`` 0: squared error; 1: Poisson; 2: gamma; < 0 or in (1, 2) or > 2: the general
    form. scikit-learn's domain: y_pred > 0 (power != 0), y_true >= 0 (1 <= power < 2) or > 0
    (power >= 2). 2-D input gives one deviance per output (scikit-learn takes 1-D only).

    Args:
        power: The Tweedie power, <= 0 or >= 1; default 0.
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.TweedieDeviance(power=1.5).update([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0]).compute(), 6)
        1.778175
    """

    def __init__(self, power: float = 0.0, *, multioutput: Any = "uniform_average") -> None:
        self.power = _check_power(power)
        super().__init__(multioutput=multioutput)

    @property
    def row_domain(self) -> Any:  # type: ignore[override]
        return _tweedie_domain(self.power)

    def get_config(self) -> dict[str, Any]:
        return {"power": self.power, "multioutput": self.multioutput}

    def _check_domain(self, yt: np.ndarray, yp: np.ndarray) -> None:
        check_tweedie(yt, yp, self.power, type(self).__name__)

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        return tweedie_deviance(yt, yp, self.power)


class _FixedPower(TweedieDeviance, base=True):
    fixed: ClassVar[float] = 1.0

    def __init__(self, *, multioutput: Any = "uniform_average") -> None:
        super().__init__(self.fixed, multioutput=multioutput)

    def get_config(self) -> dict[str, Any]:
        return {"multioutput": self.multioutput}


class PoissonDeviance(_FixedPower):
    """The mean Poisson deviance ``2 (y log(y / ŷ) - y + ŷ)`` (scikit-learn ``mean_poisson_deviance``):
    y_true >= 0, y_pred > 0.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.PoissonDeviance().update([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0]).compute(), 6)
        1.426015
    """

    fixed: ClassVar[float] = 1.0


class GammaDeviance(_FixedPower):
    """The mean gamma deviance ``2 (log(ŷ / y) + y / ŷ - 1)`` (scikit-learn ``mean_gamma_deviance``):
    y_true > 0, y_pred > 0.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.GammaDeviance().update([2, 0.5, 1, 4], [0.5, 0.5, 2, 2.0]).compute(), 6)
        1.056853
    """

    fixed: ClassVar[float] = 2.0


class D2TweedieScore(_RowRegression):
    """D², the fraction of Tweedie deviance explained: ``1 - D(y, ŷ) / D(y, ȳ)`` with ȳ the
    weighted mean of y_true (scikit-learn ``d2_tweedie_score``; 1-D input).

    The null deviance ``D(y, ȳ)`` is exact from sums kept per row (of y and of the term of y
    alone, e.g. ``y log y`` for power 1), so the score merges and reverts; fewer than two rows
    of positive weight, or y_true constant: NaN with an
    :class:`~streammetrics.UndefinedMetricWarning` (scikit-learn: NaN for one row, ``-inf`` for a
    constant y_true: a weight of 2 is then two equal rows, and the weights must not change
    which). Power 0 (R²)
    subtracts ``sum w y^2 - ȳ sum w y``: targets of a large offset and a small spread lose
    precision there (:class:`~streammetrics.R2` keeps shifted co-moments).

    Args:
        power: The Tweedie power, <= 0 or >= 1; default 0.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.D2TweedieScore(power=1).update([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0]).compute(), 6)
        0.05379
    """

    higher_is_better: ClassVar[bool | None] = True
    row_width: ClassVar[int] = 3
    per_output: ClassVar[bool] = False

    def __init__(self, power: float = 0.0) -> None:
        self.power = _check_power(power)
        super().__init__()

    @property
    def row_domain(self) -> Any:  # type: ignore[override]
        return _tweedie_domain(self.power)

    def get_config(self) -> dict[str, Any]:
        return {"power": self.power}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt, yp = self._pair(inputs)
        if yt.shape[1] != 1:
            raise InputError(
                f"y_true: expected 1-D targets for {type(self).__name__}, found {yt.shape[1]} outputs"
            )
        check_tweedie(yt, yp, self.power, type(self).__name__)
        return yt[:, 0], yp[:, 0], inputs.weights(len(yt))

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        out = work(("d2 tweedie",), (len(yt), 3))  # (the row values: read once, by the sums)
        out[:, 0] = tweedie_deviance(yt, yp, self.power)
        out[:, 1] = yt
        p = self.power
        with np.errstate(divide="ignore"):
            if p == 0:
                out[:, 2] = yt * yt
            elif p == 1:
                out[:, 2] = y_log(yt, yt.copy())
            elif p == 2:
                out[:, 2] = np.log(yt)
            else:
                out[:, 2] = power_of(np.where(yt > 0, yt, 0.0), 2 - p)
        return out

    def _compute(self, state: RowSums) -> float:
        value = d2_tweedie(state.totals, state.total_weight, self.power)
        if math.isnan(value) and np.isfinite(state.totals).all():
            warnings.warn(
                "D2TweedieScore is undefined when y_true has no spread (one row, or all equal); returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
        return value


def d2_tweedie(totals: np.ndarray, weight: float, power: float) -> float:
    """``1 - D / D0`` from the sums ``[sum w dev(y, ŷ), sum w y, sum w t(y)]`` and ``sum w``;
    NaN when the null deviance ``D0`` is zero up to the rounding of its terms."""
    dev, sy, ty = (float(x) for x in totals)
    mu, p, w = sy / weight, power, weight
    if p == 0:
        terms = (ty, -mu * sy)
    elif p == 1:
        terms = (2 * ty, -2 * (sy * math.log(mu) if sy > 0 else 0.0))
    elif p == 2:
        terms = (2 * w * math.log(mu), -2 * ty)
    else:
        with np.errstate(over="ignore"):  # (NumPy's power: inf past the float range, no error)
            mu_1, mu_2 = float(np.power(mu, 1 - p)), float(np.power(mu, 2 - p))
        terms = (2 * ty / ((1 - p) * (2 - p)), -2 * mu_1 * sy / (1 - p), 2 * mu_2 * w / (2 - p))
    if not all(map(math.isfinite, (*terms, dev))):  # past the float range: as plain arithmetic
        with np.errstate(invalid="ignore", divide="ignore"):
            return float(1.0 - np.float64(dev) / np.float64(sum(terms)))
    null = math.fsum(terms)
    if abs(null) <= 64 * EPS * sum(abs(t) for t in terms):
        return math.nan  # no spread: one row, or y_true constant
    return 1.0 - dev / null


# ------------------------------------------------------------------------------- torchmetrics
class LogCoshError(_RowRegression):
    """The mean of ``log(cosh(ŷ - y))`` per output (torchmetrics ``LogCoshError``), computed as
    ``|r| + log1p(exp(-2|r|)) - log 2`` (no overflow for large residuals).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output, as torchmetrics) or a list of output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.LogCoshError().update([2.5, 5.0, 4.0, 8.0], [3.0, 5.0, 2.5, 7.0]).compute(), 6)
        0.352334
    """

    finite_from_sums: ClassVar[bool] = True

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        a = np.abs(yp - yt)
        return a + np.log1p(np.exp(-2.0 * a)) - math.log(2.0)

    def _loss_1d(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        a, e, *_ = scratch(len(yt))
        np.subtract(yp, yt, out=a)
        np.abs(a, out=a)
        np.multiply(a, -2.0, out=e)
        np.exp(e, out=e)
        np.log1p(e, out=e)
        e += a
        e -= math.log(2.0)
        return e


class _Pooled(_RowRegression, base=True):
    """All values of a row pooled (torchmetrics flattens): no ``multioutput``."""

    per_output: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {}


#: The pair losses whose batch sums the compiled kernel makes (``_rowkernels.pair_sum``' kinds).
PAIR_SMAPE, PAIR_ABSOLUTE, PAIR_MAGNITUDE, PAIR_SQUARE, PAIR_CUBE, PAIR_FOURTH = range(6)


def _compiled_pair_sums(batch: tuple[Any, ...], *kinds: int) -> np.ndarray | None:
    """The batch's value sums of one output, unweighted, by the compiled kernel (a column per
    kind): each value by the NumPy formula's operations and the sums by NumPy's pairwise
    summation (the same bits as the values' column sums), in one pass over the two arrays per
    column. ``None`` where it does not apply."""
    yt, yp, w = batch
    if rowkernels is None or w is not None or yt.shape[1] != 1:
        return None
    t, p = np.ascontiguousarray(yt[:, 0]), np.ascontiguousarray(yp[:, 0])
    return np.array([rowkernels.pair_sum(kind, t, p, TORCH_EPS, len(t)) for kind in kinds])


class SMAPE(_Pooled):
    """The symmetric mean absolute percentage error ``mean 2 |ŷ - y| / max(|y| + |ŷ|, eps)``
    (torchmetrics ``SymmetricMeanAbsolutePercentageError``, eps = 1.17e-6), over every value.

    A fraction in [0, 2]; river's ``SMAPE`` reports 100 times it (and 0 where ``|y| + |ŷ| = 0``,
    as here).

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.SMAPE().update([1, 10, 1e6], [0.9, 15, 1.2e6]).compute(), 6)
        0.229027
    """

    finite_from_sums: ClassVar[bool] = True

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        per = 2.0 * np.abs(yp - yt) / np.maximum(np.abs(yt) + np.abs(yp), TORCH_EPS)
        return per.mean(axis=1, keepdims=True)

    def _loss_1d(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        d, scale, other, _ = scratch(len(yt))
        np.subtract(yp, yt, out=d)
        np.abs(d, out=d)
        np.abs(yt, out=scale)
        scale += np.abs(yp, out=other)
        np.maximum(scale, TORCH_EPS, out=scale)
        d += d  # 2 |r|, exactly
        return np.divide(d, scale, out=d)

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        sums = _compiled_pair_sums(batch, PAIR_SMAPE)
        return super()._value_sums(batch) if sums is None else sums

    def _compute(self, state: RowSums) -> float:
        return float(self._means(state)[0])


class WMAPE(_Pooled):
    """The weighted mean absolute percentage error ``sum |ŷ - y| / max(sum |y|, eps)``
    (torchmetrics ``WeightedMeanAbsolutePercentageError``, eps = 1.17e-6), over every value;
    with sample weights, the sums are weighted and eps is times the mean weight.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.WMAPE().update([1.0, 2.0, 4.0], [1.5, 2.0, 3.0]).compute(), 6)
        0.214286
    """

    finite_from_sums: ClassVar[bool] = True

    row_width: ClassVar[int] = 2

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        out = np.empty((2, len(yt)))  # rows of the transpose: each column written contiguously
        np.abs(yp - yt).sum(axis=1, out=out[0])
        np.abs(yt).sum(axis=1, out=out[1])
        return out.T

    def _loss_1d(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        out = scratch(len(yt), 2)[0]
        np.subtract(yp, yt, out=out[0])
        np.abs(out[0], out=out[0])
        np.abs(yt, out=out[1])
        return out.T

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        sums = _compiled_pair_sums(batch, PAIR_ABSOLUTE, PAIR_MAGNITUDE)
        return super()._value_sums(batch) if sums is None else sums

    def _compute(self, state: RowSums) -> float:
        err, scale = state.totals
        # torchmetrics' clamp of the total, times the mean weight (1 unweighted): free of the
        # weights' scale
        return float(err / max(scale, TORCH_EPS * state.total_weight / state.n_samples))


class MinkowskiDistance(_Pooled):
    """The Minkowski distance ``(sum w |ŷ - y|^p)^(1/p)`` over every value (torchmetrics
    ``MinkowskiDistance``): a sum, not a mean, so it grows with the rows seen.

    Args:
        p: The order, a number >= 1.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.MinkowskiDistance(p=3).update([1.0, 2.0, 4.0], [1.5, 2.0, 3.0]).compute(), 6)
        1.040042
    """

    finite_from_sums: ClassVar[bool] = True

    def __init__(self, p: float = 2.0) -> None:
        self.p = _number(p, "p", 1.0)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"p": self.p}

    def _loss(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        return (np.abs(yp - yt) ** self.p).sum(axis=1, keepdims=True)

    def _loss_1d(self, yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
        d = scratch(len(yt))[0]
        np.subtract(yp, yt, out=d)
        np.abs(d, out=d)
        if self.p in (2.0, 3.0, 4.0):  # small integer orders: products, not pow
            square = np.multiply(d, d, out=scratch(len(yt))[1])
            if self.p == 3.0:
                return np.multiply(square, d, out=d)
            return np.multiply(square, square if self.p == 4.0 else 1.0, out=d)
        return np.power(d, self.p, out=d)

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        yt, yp, w = batch
        if w is not None or yt.shape[1] != 1 or self.p not in (2.0, 3.0, 4.0):
            return super()._value_sums(batch)
        kind = {2.0: PAIR_SQUARE, 3.0: PAIR_CUBE, 4.0: PAIR_FOURTH}[self.p]
        sums = _compiled_pair_sums(batch, kind)  # (the values' pairwise sums: not the dot's bits)
        if sums is not None:
            return sums
        # one output, unweighted, a small integer order: the sum of |d|^p as one dot product
        # (|d|^2 . |d| or |d|^2 . |d|^2), without the per-row values
        d, square, *_ = scratch(len(yt))
        np.subtract(yp[:, 0], yt[:, 0], out=d)
        if self.p == 2.0:
            return np.array([np.dot(d, d)])
        np.multiply(d, d, out=square)
        return np.array([np.dot(square, square if self.p == 4.0 else np.abs(d, out=d))])

    def _compute(self, state: RowSums) -> float:
        return float(max(state.totals[0], 0.0) ** (1.0 / self.p))


#: The range a row's sum of squares is used in directly: its values' squares are normal floats
#: where they matter, and the product of two such rows' norms cannot overflow.
SQUARES_SAFE = (1e-280, 1e280)


def _row_products(yt: np.ndarray, yp: np.ndarray) -> np.ndarray:
    """Each row's sum of squares of ``yt``, of ``yp`` and sum of their products, the rows of a
    ``(3, n)`` array, for two ``(n, d)`` arrays of a small batch: three products and one
    matrix-vector product (a batch of a training step costs NumPy calls, not arithmetic; an
    einsum per sum costs more). Call it with overflow and invalid-value warnings off."""
    n, d = yt.shape
    products = np.empty((3, n, d))
    np.multiply(yt, yt, out=products[0])
    np.multiply(yp, yp, out=products[1])
    np.multiply(yt, yp, out=products[2])
    return np.matmul(products.reshape(3 * n, d), ones(d)).reshape(3, n)


def _compiled_cosine(yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Each row's cosine and product of norms of two ``(n, d)`` arrays of a small batch, by the
    compiled kernel (each row's three sums sequential, then the same square roots, product and
    quotient as :func:`_row_products`' callers); the norms ``None`` when a row's sum of squares
    is outside :data:`SQUARES_SAFE` or not finite."""
    n, d = yt.shape
    cosine, norms = np.empty(n), np.empty(n)
    assert rowkernels is not None
    safe = rowkernels.cosine_rows(
        np.ascontiguousarray(yt), np.ascontiguousarray(yp), cosine, norms, n, d, *SQUARES_SAFE
    )
    return cosine, norms if safe else None


class CosineSimilarity(RowValueMetric):
    """The cosine similarity of each row's prediction vector with its target vector, summed or
    averaged over rows (torchmetrics ``CosineSimilarity``, which stores every row).

    ``update(y_true, y_pred)`` with ``(n, d)`` arrays; a row of zero norm is refused (its
    cosine is undefined; torchmetrics gives NaN).

    Args:
        reduction: ``"sum"`` (default, as torchmetrics) or ``"mean"`` over rows (weighted).

    Examples:
        >>> import streammetrics as sm
        >>> sm.CosineSimilarity(reduction="mean").update([[1, 0], [0, 1]], [[1, 0], [1, 1]]).compute()
        0.8535533905932737
    """

    higher_is_better: ClassVar[bool | None] = True

    def __init__(self, reduction: str = "sum") -> None:
        self.reduction = check_option("reduction", reduction, ("sum", "mean"))
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"reduction": self.reduction}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.unchecked_floats(0, "y_true", (2,))
        yp = inputs.unchecked_floats(1, "y_pred", (2,))
        if yt.shape == yp.shape and 0 < yt.size < ROW_DOT_EINSUM_BELOW:
            summed = self._small_batch(inputs, yt, yp)
            if summed is not None:
                return summed
        arrays, squares = [], []
        with np.errstate(over="ignore", under="ignore"):
            # (the second in a work array on a large batch: the first becomes the product of the
            # norms, which the batch keeps)
            spare = None if len(yp) < SMALL_ROWS else work(("cosine", "squares"), len(yp))
            sums = [row_dot(yt, yt), row_dot(yp, yp, out=spare)]
        for i, arr, name, sq in ((0, yt, "y_true", sums[0]), (1, yp, "y_pred", sums[1])):
            # a row's sum of squares is finite only if its values are: one pass checks both
            low, high = (float(sq.min()), float(sq.max())) if len(sq) else (1.0, 1.0)
            inputs.confirm_finite(i, name, arr, math.isfinite(high))
            if not (low > SQUARES_SAFE[0] and high < SQUARES_SAFE[1]):
                # squares that under- or overflow: the cosine of rows divided by their largest
                # magnitude is the same, and their squares are between 1 and the row's length
                top = row_max(np.abs(arr))
                if not top.min() > 0:
                    raise InputError(f"{name}: expected rows of non-zero norm, found a row of zeros")
                arr = arr / top[:, None]
                sq = row_dot(arr, arr)
            arrays.append(arr)
            squares.append(sq)
        v.check_length(yp, len(yt), "y_pred")
        if yp.shape[1] != yt.shape[1]:
            raise InputError(f"y_pred: expected {yt.shape[1]} columns (those of y_true), found {yp.shape[1]}")
        # the product of the norms in the memory of the sums of squares (each row_dot's own)
        norms = np.sqrt(squares[0], out=squares[0])
        norms *= np.sqrt(squares[1], out=squares[1])
        return arrays[0], arrays[1], norms, inputs.weights(len(yt))

    @staticmethod
    def _small_batch(inputs: Inputs, yt: np.ndarray, yp: np.ndarray) -> SummedBatch | None:
        """A small batch of two arrays of one shape parsed with its value sums, in fewer NumPy
        calls than the general path; ``None`` when a row's sum of squares is outside
        :data:`SQUARES_SAFE` or not finite (an inf or NaN: the max is then not below the bound),
        for the general path to scale the rows or name the fault."""
        if rowkernels is not None:  # (the same values, in one call)
            cosine, norms = _compiled_cosine(yt, yp)
            if norms is None:
                return None
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                products = _row_products(yt, yp)
            squares = products[:2]
            if not (squares.min() > SQUARES_SAFE[0] and squares.max() < SQUARES_SAFE[1]):
                return None
            norms = np.sqrt(squares, out=squares)
            norms = np.multiply(norms[0], norms[1], out=norms[0])
            cosine = np.divide(products[2], norms, out=products[2])  # (_row_values')
        inputs.confirm_finite(0, "y_true", yt, True)
        inputs.confirm_finite(1, "y_pred", yp, True)
        weights = inputs.weights(len(yt))
        return SummedBatch((yt, yp, norms, weights), weighted_column_sums(cosine.reshape(-1, 1), weights))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        yt, yp, norms, _ = batch
        if yt.size < ROW_DOT_EINSUM_BELOW:  # (the values of :meth:`_small_batch`)
            if rowkernels is not None:
                cosine, safe = _compiled_cosine(yt, yp)
                if safe is not None:
                    return cosine.reshape(-1, 1)
            with np.errstate(over="ignore", invalid="ignore"):
                cosine = _row_products(yt, yp)[2]
        else:
            cosine = row_dot(yt, yp, out=None if len(yt) < SMALL_ROWS else scratch_row(len(yt)))
        cosine /= norms
        return cosine.reshape(-1, 1)

    def _compute(self, state: RowSums) -> float:
        total = float(state.totals[0])
        return total if self.reduction == "sum" else total / state.total_weight


class CRPS(RowValueMetric):
    """The continuous ranked probability score of ensemble forecasts, averaged over rows
    (torchmetrics ``ContinuousRankedProbabilityScore``).

    ``update(y_true, y_pred)``: ``(n,)`` observations and ``(n, m)`` ensemble members (m >= 2);
    per row ``mean_j |x_j - y| - sum_{j,k} |x_j - x_k| / (2 m^2)``. The pair term is computed
    from the sorted members in O(m log m).

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.CRPS().update([1.0, 0.0], [[0.5, 1.5, 2.0], [0.0, -1.0, 1.0]]).compute(), 6)
        0.277778
    """

    higher_is_better: ClassVar[bool | None] = False

    def get_config(self) -> dict[str, Any]:
        return {}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.unchecked_floats(0, "y_true", (1,))
        yp = inputs.unchecked_floats(1, "y_pred", (2,))
        v.check_length(yp, len(yt), "y_pred")
        if yp.shape[1] < 2:
            raise InputError(f"y_pred: expected at least 2 ensemble members (columns), found {yp.shape[1]}")
        # an inf or NaN member or observation makes the row's spread term non-finite
        return self._checked_by_sums(
            inputs, (yt, yp, inputs.weights(len(yt))), ((0, "y_true", yt), (1, "y_pred", yp))
        )

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        yt, yp, _ = batch
        m = yp.shape[1]
        # sum_{j,k} |x_j - x_k| = 2 sum_j (2j - m + 1) x_(j) over the sorted members (j from 0)
        if rowkernels is not None and m <= SORTING_NETWORK_MEMBERS:  # (the same operations, a row at a time)
            out = scratch_row(len(yt))
            rowkernels.crps_rows(np.ascontiguousarray(yt), np.ascontiguousarray(yp), out, len(yt), m)
            return out.reshape(-1, 1)
        coef = 2.0 * np.arange(m) - m + 1.0
        if m > SORTING_NETWORK_MEMBERS:
            x = np.sort(yp, axis=1)
            spread = np.abs(x - yt[:, None]).sum(axis=1) / m
            pairs = 2.0 * (x @ coef) / (2.0 * m * m)
            return (spread - pairs).reshape(-1, 1)
        # one row per member, copied into a work array with a spare row (the network sorts
        # them in place, swapping rows with the spare)
        n = len(yt)
        rows = work(("crps", "members"), (m + 1, n))
        transpose_into(rows[:m], yp)
        spare = rows[m]
        spread, ranked, *_ = scratch(n)
        spread.fill(0.0)
        for x in rows[:m]:
            np.subtract(x, yt, out=spare)
            spread += np.abs(spare, out=spare)
        spread /= m
        weights = np.zeros(m + 1)  # the coefficients by row (0 for the spare)
        weights[sort_rows(rows)] = coef
        np.matmul(weights, rows, out=ranked)
        ranked *= 2.0
        ranked /= 2.0 * m * m
        spread -= ranked
        return spread.reshape(-1, 1)

    def _compute(self, state: RowSums) -> float:
        return float(self._means(state)[0])


class NRMSE(RegressionMetric):
    """The root mean squared error over a scale of y_true (torchmetrics
    ``NormalizedRootMeanSquaredError``): its mean, standard deviation (population), L2 norm
    ``sqrt(sum w y^2)`` or range ``max y - min y``, per output.

    ``"mean"``, ``"std"`` and ``"l2"`` are exact from the moments of y_true and of the residual
    (:class:`~streammetrics.regression.moments.TargetMoments`: revertible, shared by the NRMSEs of
    a collection; states saved with the co-moments of earlier versions load). ``"range"`` keeps
    the minimum and maximum of y_true (over rows of positive weight) beside them: it merges but
    cannot revert, and exponential forgetting (:class:`~streammetrics.Decayed`) does not forget
    the extremes.

    Args:
        normalization: ``"mean"`` (default), ``"std"``, ``"l2"`` or ``"range"``.
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.NRMSE().update([0.0, 1, 2, 3], [0.0, 1, 2, 2]).compute(), 6)
        0.333333
        >>> round(sm.NRMSE("range").update([0.0, 1, 2, 3], [0.0, 1, 2, 2]).compute(), 6)
        0.166667
    """

    #: The moments of y_true and of the residual: all the formulas read (a third fewer passes
    #: than the co-moments R² keeps, and no MAE or MAPE sums).
    moments: ClassVar[type[Moments]] = TargetMoments

    def __init__(self, normalization: str = "mean", *, multioutput: Any = "uniform_average") -> None:
        self.normalization = check_option("normalization", normalization, ("mean", "std", "l2", "range"))
        super().__init__(multioutput=multioutput)

    def _make_state(self) -> Any:
        return RangedTargetMoments() if self.normalization == "range" else super()._make_state()

    def get_config(self) -> dict[str, Any]:
        return {"normalization": self.normalization, "multioutput": self.multioutput}

    def _compute(self, state: TargetMoments) -> Any:
        w = state.weight
        rmse = np.sqrt(state.ss_residual / w)
        mean = state.mean_true
        if self.normalization == "mean":
            scale = mean
        elif self.normalization == "std":
            scale = np.sqrt(state.ss_true / w)
        elif self.normalization == "range":
            scale = state.high - state.low
        else:
            scale = np.sqrt(state.ss_true + w * mean * mean)
        with np.errstate(divide="ignore", invalid="ignore"):
            return average_outputs(rmse / scale, self.multioutput)
