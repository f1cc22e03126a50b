"""Law cases of the aggregators (issue 17): exact sums (``math.fsum``) as reference; the
agreement with torchmetrics and river is in ``tests/catalogue/test_peer_agreement.py``."""

from __future__ import annotations

import math

import numpy as np

import streammetrics as sm

from . import LawCase


def _values(rng: np.random.Generator, n: int) -> tuple[np.ndarray]:
    return (3.0 + 2.0 * rng.standard_normal(n),)


def _rows(rng: np.random.Generator, n: int) -> tuple[np.ndarray]:
    return (rng.standard_normal((n, 3)),)


def _flat(x, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    """Every value with its row's weight."""
    x = np.asarray(x, dtype=np.float64)
    per_row = x.size // len(x)
    w = np.ones(len(x)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return x.reshape(-1), np.repeat(w, per_row)


def _mean(x, sample_weight=None) -> float:
    v, w = _flat(x, sample_weight)
    return math.fsum(w * v) / math.fsum(w)


def _sum(x, sample_weight=None) -> float:
    v, w = _flat(x, sample_weight)
    return math.fsum(w * v)


def _extreme(pick):
    def reference(x, sample_weight=None) -> float:
        v, w = _flat(x, sample_weight)
        return float(pick(v[w > 0]))  # rows of weight 0 left out

    return reference


CASES = [
    LawCase("Mean", sm.Mean, _values, _mean),
    LawCase("Mean[rows]", sm.Mean, _rows, _mean),
    LawCase("Sum", sm.Sum, _values, _sum),
    LawCase("Min", sm.Min, _values, _extreme(min)),
    LawCase("Max[rows]", sm.Max, _rows, _extreme(max)),
]
