"""Regression metrics on exact, mergeable co-moments (issue 4).

The error metrics (MAE, MSE, RMSE, mean error, MSLE, RMSLE) read a
:class:`~streammetrics.regression.moments.ResidualMoments` state (per output: the shifted mean
and M2 of the residual, and the sum of its absolute values); R², explained variance, the
correlations and MAPE read :class:`~streammetrics.regression.moments.CoMoments` (the same for
y_true, y_pred and the residual, their cross co-moment, and the sum behind MAPE);
:class:`MaxError` keeps a running maximum. Formulas are public pure
functions in :mod:`streammetrics.regression.formulas`.
"""

from .extremes import MaxAbsError
from .metrics import (
    MAE,
    MAPE,
    MSE,
    MSLE,
    R2,
    RMSE,
    RMSLE,
    AdjustedR2,
    ConcordanceCorrelation,
    ExplainedVariance,
    MaxError,
    MeanError,
    PearsonR,
)
from .moments import CoMoments, ResidualMoments, TargetMoments

__all__ = [
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "R2",
    "RMSE",
    "RMSLE",
    "AdjustedR2",
    "ConcordanceCorrelation",
    "ExplainedVariance",
    "MaxError",
    "MeanError",
    "PearsonR",
]

# The states are public in the subpackage (streammetrics.regression.CoMoments, ...) but not at top level.
_STATES = (CoMoments, ResidualMoments, TargetMoments, MaxAbsError)

# issue 17: losses on the per-row value state, and NRMSE on the moments of y_true and the residual
from .rowlosses import (  # noqa: E402
    CRPS,
    NRMSE,
    SMAPE,
    WMAPE,
    CosineSimilarity,
    D2TweedieScore,
    GammaDeviance,
    LogCoshError,
    MinkowskiDistance,
    PinballLoss,
    PoissonDeviance,
    TweedieDeviance,
)

__all__ += [
    "CRPS",
    "NRMSE",
    "SMAPE",
    "WMAPE",
    "CosineSimilarity",
    "D2TweedieScore",
    "GammaDeviance",
    "LogCoshError",
    "MinkowskiDistance",
    "PinballLoss",
    "PoissonDeviance",
    "TweedieDeviance",
]
