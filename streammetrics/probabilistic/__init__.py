"""Probabilistic and decision-theoretic metrics: log loss, Brier, calibration, expected cost (issue 3)."""

from .metrics import BrierDecomposition as BrierDecomposition
from .metrics import (
    BrierScore,
    CalibrationError,
    ExpectedCost,
    LogLoss,
    bayes_decisions,
    expected_cost,
)
from .metrics import ReliabilityCurve as ReliabilityCurve
from .states import KeyedSums as KeyedSums
from .states import SumTable as SumTable

__all__: list[str] = [
    "LogLoss",
    "BrierScore",
    "CalibrationError",
    "ExpectedCost",
    "bayes_decisions",
    "expected_cost",
]
