"""streammetrics: streaming, mergeable metric accumulators.

Every metric is a small object with ``update`` / ``merge`` / ``compute`` over sufficient
statistics, so it can be computed over batches, over an endless stream, or over shards merged
exactly. See ``API.md`` for the contract.

Examples:
    >>> import streammetrics as sm
    >>> shard_a = sm.F1().update([0, 1, 1], [0, 1, 0])
    >>> shard_b = sm.F1().update([1, 0], [1, 1])
    >>> round((shard_a + shard_b).compute(), 4)
    0.6667
"""

from ._core import Metric, State, from_bytes, from_state_dict, load, registered_types
from .classification import (
    F1,
    FDR,
    FNR,
    FOR,
    FPR,
    MCC,
    NPV,
    Accuracy,
    BalancedAccuracy,
    ClassificationReport,
    CohenKappa,
    ConfusionMatrix,
    DiagnosticOddsRatio,
    FBeta,
    FowlkesMallows,
    HammingLoss,
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
    SubsetAccuracy,
)
from .errors import InputError, MergeError, StateError, StreamMetricsError, UndefinedMetricWarning

__version__ = "0.1.0"

__all__ = [
    # core
    "Metric", "State", "from_bytes", "from_state_dict", "load", "registered_types",
    # errors
    "InputError", "MergeError", "StateError", "StreamMetricsError", "UndefinedMetricWarning",
    # classification
    "F1", "FDR", "FNR", "FOR", "FPR", "MCC", "NPV", "Accuracy", "BalancedAccuracy",
    "ClassificationReport", "CohenKappa", "ConfusionMatrix", "DiagnosticOddsRatio", "FBeta",
    "FowlkesMallows", "HammingLoss", "Informedness", "Jaccard", "Markedness",
    "NegativeLikelihoodRatio", "PositiveLikelihoodRatio", "Precision", "Prevalence",
    "PrevalenceThreshold", "RateMean", "Recall", "Specificity", "SubsetAccuracy",
]
