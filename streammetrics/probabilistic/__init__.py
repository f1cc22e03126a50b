"""Probabilistic and decision-theoretic metrics: log loss, Brier, calibration, expected cost (issue 3)."""

from .formulas import BrierDecomposition as BrierDecomposition
from .formulas import ReliabilityCurve as ReliabilityCurve
from .formulas import bayes_decisions, expected_cost
from .metrics import BrierScore, CalibrationError, ExpectedCost, LogLoss
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
