"""The regression metrics: each one a state (co-moments or a running maximum) and a formula.

Values agree with scikit-learn's function of the same name (SciPy's ``pearsonr`` for
:class:`PearsonR`); deliberate differences are noted in each docstring.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._core.params import check_number
from .base import ErrorMetric, FractionExplained, RegressionMetric
from .extremes import MaxAbsError
from .formulas import (
    adjusted_r2,
    concordance_correlation,
    explained_variance,
    max_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_error,
    mean_squared_error,
    pearson_r,
    r2,
    root_mean_squared_error,
)
from .moments import CoMoments, ResidualMoments


class MAE(ErrorMetric):
    """Mean absolute error ``sum w |y - ŷ| / sum w`` (:func:`sklearn.metrics.mean_absolute_error`).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> sm.MAE().update([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).compute()
        0.5
    """

    def _compute(self, state: ResidualMoments) -> Any:
        return mean_absolute_error(state, self.multioutput)


class MSE(ErrorMetric):
    """Mean squared error (:func:`sklearn.metrics.mean_squared_error`).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> sm.MSE().update([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).compute()
        0.375
    """

    def _compute(self, state: ResidualMoments) -> Any:
        return mean_squared_error(state, self.multioutput)


class RMSE(ErrorMetric):
    """Root mean squared error, per output then averaged (:func:`sklearn.metrics.root_mean_squared_error`).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.RMSE().update([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).compute(), 6)
        0.612372
    """

    def _compute(self, state: ResidualMoments) -> Any:
        return root_mean_squared_error(state, self.multioutput)


class MSLE(ErrorMetric):
    """Mean squared logarithmic error: the MSE of ``log1p(y)`` and ``log1p(ŷ)``.

    Matches :func:`sklearn.metrics.mean_squared_log_error`. Negative targets or predictions raise
    :class:`~streammetrics.InputError` (scikit-learn >= 1.6 accepts values in (-1, 0); the seed
    and this library require non-negative values).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.MSLE().update([3, 5, 2.5, 7], [2.5, 5, 4, 8]).compute(), 5)
        0.03973
    """

    transform: ClassVar[str | None] = "log1p"

    def _compute(self, state: ResidualMoments) -> Any:
        return mean_squared_error(state, self.multioutput)


class RMSLE(ErrorMetric):
    """Root mean squared logarithmic error (:func:`sklearn.metrics.root_mean_squared_log_error`).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.RMSLE().update([3, 5, 2.5, 7], [2.5, 5, 4, 8]).compute(), 6)
        0.199324
    """

    transform: ClassVar[str | None] = "log1p"

    def _compute(self, state: ResidualMoments) -> Any:
        return root_mean_squared_error(state, self.multioutput)


class MAPE(RegressionMetric):
    """Mean absolute percentage error ``|y - ŷ| / max(|y|, eps)`` with ``eps`` the float64 epsilon.

    Matches :func:`sklearn.metrics.mean_absolute_percentage_error` (a fraction, not a percent).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.MAPE().update([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).compute(), 6)
        0.327381
    """

    def _compute(self, state: CoMoments) -> Any:
        return mean_absolute_percentage_error(state, self.multioutput)


class MaxError(RegressionMetric):
    """The largest absolute error ``max |y - ŷ|`` (:func:`sklearn.metrics.max_error`).

    Mergeable but not revertible: :meth:`revert` raises ``TypeError``. Rows of zero weight are
    left out; other weights do not change a maximum. Unlike scikit-learn (single output only),
    multi-output input gives one maximum per output, averaged by ``multioutput``.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> sm.MaxError().update([3, 2, 7, 1], [4, 2, 7, 1]).compute()
        1.0
    """

    def _make_state(self) -> MaxAbsError:
        return MaxAbsError()

    def _unapply(self, state: Any, batch: Any) -> None:
        raise TypeError(
            "MaxError cannot revert: a maximum cannot be taken back out (the state keeps only the "
            "largest error, not the rows behind it)"
        )

    def _compute(self, state: MaxAbsError) -> Any:
        return max_error(state, self.multioutput)


class MeanError(ErrorMetric):
    """The bias ``sum w (ŷ - y) / sum w``: positive when predictions run high.

    No scikit-learn equivalent; it is ``np.average(y_pred - y_true, weights=w)``.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> sm.MeanError().update([1, 2, 3], [2, 2, 5]).compute()
        1.0
    """

    higher_is_better: ClassVar[bool | None] = None

    def _compute(self, state: ResidualMoments) -> Any:
        return mean_error(state, self.multioutput)


class R2(FractionExplained):
    """The coefficient of determination R² (:func:`sklearn.metrics.r2_score`).

    ``force_finite=True`` (default) returns 1.0 (perfect predictions) or 0.0 instead of NaN / -inf
    when y_true is constant, as scikit-learn. Deliberate difference: scikit-learn returns NaN with
    a warning for fewer than two rows; here one row is a constant y_true (so 1.0 or 0.0 with
    ``force_finite``), which keeps "integer weight = repetition" exact. Only an accumulator with no
    weight at all is undefined.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"variance_weighted"`` (weighted by the variance of each ``y_true`` column), ``"raw_values"`` (an
            array, one value per output) or a list of non-negative output weights.
        force_finite: ``True`` (default): a constant ``y_true`` gives 1.0 (perfect predictions) or 0.0 instead
            of NaN or -inf, as scikit-learn; ``False`` returns those.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.R2().update([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).compute(), 6)
        0.948608
        >>> m = sm.R2(multioutput="raw_values").update([[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]])
        >>> m.compute().round(6).tolist()
        [0.965438, 0.908163]
    """

    def _compute(self, state: CoMoments) -> Any:
        return r2(state, self.multioutput, self.force_finite)


class AdjustedR2(FractionExplained):
    """Adjusted R² ``1 - (1 - R²)(n - 1) / (n - p - 1)`` for a model of ``n_features`` features.

    ``n`` is the total sample weight (the number of rows when unweighted), so integer weights act
    as repetitions. With ``n <= n_features + 1`` the value is undefined: UndefinedMetricWarning
    and NaN. Per output, then averaged like R². No scikit-learn function; the reference is
    the formula applied to :func:`sklearn.metrics.r2_score`.

    Args:
        n_features: The number of features p of the model, an int >= 0 (required).
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"variance_weighted"`` (weighted by the variance of each ``y_true`` column), ``"raw_values"`` (an
            array, one value per output) or a list of non-negative output weights.
        force_finite: ``True`` (default): a constant ``y_true`` gives 1.0 (perfect predictions) or 0.0 instead
            of NaN or -inf, as scikit-learn; ``False`` returns those.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.AdjustedR2(n_features=1).update([1, 2, 3, 4, 5], [1.1, 1.9, 3.2, 3.8, 5.1]).compute(), 6)
        0.985333
    """

    def __init__(
        self, n_features: int, *, multioutput: Any = "uniform_average", force_finite: bool = True
    ) -> None:
        self.n_features = check_number("n_features", n_features, low=0, integer=True)
        super().__init__(multioutput=multioutput, force_finite=force_finite)

    def get_config(self) -> dict[str, Any]:
        return {"n_features": self.n_features, **super().get_config()}

    def _compute(self, state: CoMoments) -> Any:
        return adjusted_r2(state, self.n_features, self.multioutput, self.force_finite)


class ExplainedVariance(FractionExplained):
    """Explained variance ``1 - Var(y - ŷ) / Var(y)`` (:func:`sklearn.metrics.explained_variance_score`).

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"variance_weighted"`` (weighted by the variance of each ``y_true`` column), ``"raw_values"`` (an
            array, one value per output) or a list of non-negative output weights.
        force_finite: ``True`` (default): a constant ``y_true`` gives 1.0 (perfect predictions) or 0.0 instead
            of NaN or -inf, as scikit-learn; ``False`` returns those.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.ExplainedVariance().update([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]).compute(), 6)
        0.957173
    """

    def _compute(self, state: CoMoments) -> Any:
        return explained_variance(state, self.multioutput, self.force_finite)


class PearsonR(RegressionMetric):
    """Pearson's correlation between y_true and y_pred, per output (:func:`scipy.stats.pearsonr`).

    Weighted rows use weighted means and co-moments. A constant column is undefined:
    UndefinedMetricWarning and NaN (SciPy warns and returns NaN too). Unlike every peer that
    keeps raw sums of y and y², it stays exact at large offsets and merges across shards.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.PearsonR().update([1, 2, 3, 4], [1.2, 1.9, 3.4, 3.9]).compute(), 6)
        0.981844
    """

    higher_is_better: ClassVar[bool | None] = True

    def _compute(self, state: CoMoments) -> Any:
        return pearson_r(state, self.multioutput)


class ConcordanceCorrelation(RegressionMetric):
    """Lin's concordance correlation coefficient ``2 s_yŷ / (s_y² + s_ŷ² + (ȳ - mean ŷ)²)``.

    Population (1/n) moments, as Lin (1989). No scikit-learn equivalent.

    Args:
        multioutput: How the outputs of 2-D input combine: ``"uniform_average"`` (default; plain mean),
            ``"raw_values"`` (an array, one value per output) or a list of non-negative output weights.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.ConcordanceCorrelation().update([1, 2, 3, 4], [1.5, 2.5, 3.5, 4.5]).compute(), 6)
        0.909091
    """

    higher_is_better: ClassVar[bool | None] = True

    def _compute(self, state: CoMoments) -> Any:
        return concordance_correlation(state, self.multioutput)
