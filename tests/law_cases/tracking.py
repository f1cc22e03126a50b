"""Law cases of the tracking wrappers: MetricTracker and MinMax.

A tracker fed without ``increment()`` is one epoch: every law holds, against scikit-learn.
MinMax records the value at each ``compute()`` (torchmetrics' ``MinMaxMetric``), so the laws
that compute an accumulator, change it and compare it with one never computed do not apply;
``tests/streaming/test_tracking.py`` checks what they would have (merges without compute,
round trips of recorded extremes, the torchmetrics semantics).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.7, y, 1 - y)


def _f1(y, p, sample_weight=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skm.f1_score(y, p, sample_weight=sample_weight)


def _accuracy_extremes(y, p, sample_weight=None):
    value = skm.accuracy_score(y, p, sample_weight=sample_weight)
    return {"raw": value, "min": value, "max": value}


#: compute() records the value it returns (torchmetrics' semantics): an accumulator computed
#: before a change keeps that value among its extremes, one never computed does not.
_RECORDS = (
    "compute() records its value: an accumulator computed, then changed, keeps the earlier value "
    "among its extremes, unlike one built without the intermediate compute"
)

CASES = [
    LawCase("MetricTracker[F1]", lambda: sm.MetricTracker(sm.F1()), _binary, _f1),
    LawCase(
        "MinMax[Accuracy]",
        lambda: sm.MinMax(sm.Accuracy()),
        _binary,
        _accuracy_extremes,
        not_applicable={
            "merge_associative_commutative_with_identity": _RECORDS + " (the operands change)",
            "round_trips_keep_merging": _RECORDS,
            "scalar_rows_equal_one_batch": _RECORDS + " (it is read after half the rows)",
        },
    ),
]
