"""Confusion-matrix metrics on a shared, mergeable confusion-counts state."""

from .counts import ConfusionCounts
from .metrics import (
    F1,
    FDR,
    FNR,
    FOR,
    FPR,
    MCC,
    NPV,
    Accuracy,
    BalancedAccuracy,
    CohenKappa,
    DiagnosticOddsRatio,
    FBeta,
    FowlkesMallows,
    Informedness,
    Jaccard,
    Markedness,
    NegativeLikelihoodRatio,
    PositiveLikelihoodRatio,
    Precision,
    Prevalence,
    PrevalenceThreshold,
    RateMean,
    Recall,
    Specificity,
)
from .report import ClassificationReport, ConfusionMatrix, HammingLoss, Report, SubsetAccuracy

__all__ = [
    "F1", "FDR", "FNR", "FOR", "FPR", "MCC", "NPV", "Accuracy", "BalancedAccuracy",
    "ClassificationReport", "CohenKappa", "ConfusionCounts", "ConfusionMatrix",
    "DiagnosticOddsRatio", "FBeta", "FowlkesMallows", "HammingLoss", "Informedness", "Jaccard",
    "Markedness", "NegativeLikelihoodRatio", "PositiveLikelihoodRatio", "Precision", "Prevalence",
    "PrevalenceThreshold", "RateMean", "Recall", "Report", "Specificity", "SubsetAccuracy",
]
