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
from .per_class import MultilabelConfusionMatrix
from .report import ClassificationReport, ConfusionMatrix, HammingLoss, Report, SubsetAccuracy
from .river_scores import GeometricMean, MultiFBeta

__all__ = [
    "F1",
    "FDR",
    "FNR",
    "FOR",
    "FPR",
    "MCC",
    "NPV",
    "Accuracy",
    "BalancedAccuracy",
    "ClassificationReport",
    "CohenKappa",
    "ConfusionCounts",
    "ConfusionMatrix",
    "DiagnosticOddsRatio",
    "FBeta",
    "FowlkesMallows",
    "HammingLoss",
    "Informedness",
    "Jaccard",
    "Markedness",
    "MultilabelConfusionMatrix",
    "NegativeLikelihoodRatio",
    "PositiveLikelihoodRatio",
    "Precision",
    "Prevalence",
    "PrevalenceThreshold",
    "RateMean",
    "Recall",
    "Report",
    "Specificity",
    "SubsetAccuracy",
    "GeometricMean",
    "MultiFBeta",
]

# issue 17: per-row losses on the per-row value state
from .perplexity import Perplexity
from .rowlosses import (
    D2BrierScore,
    D2LogLossScore,
    HingeLoss,
    JensenShannonDivergence,
    KLDivergence,
    NormalizedEntropy,
    TopKAccuracy,
    WeightedCalibration,
    ZeroOneLoss,
)

__all__ += [
    "D2BrierScore",
    "D2LogLossScore",
    "HingeLoss",
    "JensenShannonDivergence",
    "KLDivergence",
    "NormalizedEntropy",
    "Perplexity",
    "TopKAccuracy",
    "WeightedCalibration",
    "ZeroOneLoss",
]
