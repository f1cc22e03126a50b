"""Ranking metrics (ROC/PR/AUC/AP) on a mergeable score sketch with guaranteed bounds (issue 3)."""

from .formulas import ConfusionAtThreshold, Estimate, PRCurveResult, ROCCurveResult
from .metrics import ROCAUC, AveragePrecision, BestThreshold, PRCurve, RankingMetric, ROCCurve
from .sketch import BinaryHistogram, ScoreSketch

__all__: list[str] = ["ROCAUC", "AveragePrecision", "ROCCurve", "PRCurve"]
