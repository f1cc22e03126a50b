"""Confidence intervals and significance tests for streaming metrics (issue 9).

* :class:`Bootstrap` — a Poisson bootstrap around any metric: streaming, mergeable across shards;
* analytic intervals: :func:`wilson` / :func:`wilson_interval` (proportions),
  :func:`hanley_mcneil` / :func:`auc_interval` (ROC AUC), :func:`auc_difference_test` (two
  AUCs on independent data), :func:`fisher_z` /
  :func:`pearson_interval` (Pearson r and the r² of the least-squares line);
* significance: :func:`permutation_test` (labels independent of predictions, fixed margins),
  :class:`McNemar` / :func:`mcnemar_test` (two classifiers on the same rows).

The classes are exported at top level (``sm.Bootstrap``, ``sm.McNemar``); the functions live
here (``sm.uncertainty.wilson``).
"""

from .analytic import (
    PROPORTION_METRICS,
    auc_difference_test,
    auc_interval,
    class_counts,
    fisher_z,
    hanley_mcneil,
    hanley_mcneil_se,
    pearson_interval,
    proportion_counts,
    wilson,
    wilson_interval,
)
from .bootstrap import Bootstrap, BootstrapState
from .mcnemar import McNemar, PairedCorrectness, mcnemar_test
from .results import Interval, McNemarResult, TestResult
from .significance import permutation_test, random_tables

__all__ = ["Bootstrap", "McNemar"]

_PUBLIC = (
    PROPORTION_METRICS, auc_difference_test, auc_interval, class_counts, fisher_z, hanley_mcneil, hanley_mcneil_se,
    pearson_interval, proportion_counts, wilson, wilson_interval, BootstrapState, PairedCorrectness,
    mcnemar_test, Interval, McNemarResult, TestResult, permutation_test, random_tables,
)  # fmt: skip
