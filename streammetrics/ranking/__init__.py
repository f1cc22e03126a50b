"""Ranking metrics (ROC/PR/AUC/AP) on a mergeable score sketch with guaranteed bounds (issue 3)."""

from .base import BestThreshold as BestThreshold
from .base import RankingMetric as RankingMetric
from .formulas import ConfusionAtThreshold as ConfusionAtThreshold
from .formulas import Estimate as Estimate
from .formulas import PRCurveResult as PRCurveResult
from .formulas import ROCCurveResult as ROCCurveResult
from .metrics import ROCAUC, AveragePrecision, PRCurve, ROCCurve
from .sketch import BinaryHistogram as BinaryHistogram
from .sketch import ScoreSketch as ScoreSketch

__all__: list[str] = ["ROCAUC", "AveragePrecision", "ROCCurve", "PRCurve"]

# issue 17: operating points on the score sketch
from .operating import (
    DETCurve,
    EqualErrorRate,
    LogAUC,
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)
from .points import DETCurveResult as DETCurveResult
from .points import OperatingPoint as OperatingPoint

__all__ += [
    "PrecisionAtRecall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "EqualErrorRate",
    "LogAUC",
    "DETCurve",
]

# issue 17: multilabel ranking and per-query DCG/NDCG on the per-row value state
from .rowranking import DCG, NDCG, CoverageError, LabelRankingAveragePrecision, LabelRankingLoss  # noqa: E402

__all__ += ["CoverageError", "LabelRankingAveragePrecision", "LabelRankingLoss", "DCG", "NDCG"]
