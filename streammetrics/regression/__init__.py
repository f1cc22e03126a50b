"""Regression metrics on exact, mergeable co-moments (issue 4).

One :class:`~streammetrics.regression.moments.CoMoments` state (per output: shifted means, M2 of
y_true, y_pred and the residual, their cross co-moment, and the sums behind MAE and MAPE) feeds
every metric but :class:`MaxError`, which keeps a running maximum. Formulas are public pure
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
from .moments import CoMoments

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

# The states are public in the subpackage (streammetrics.regression.CoMoments) but not at top level.
_STATES = (CoMoments, MaxAbsError)
