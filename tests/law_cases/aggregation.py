"""Law cases of the aggregators (issue 17), with torchmetrics' aggregation metrics as reference."""

from __future__ import annotations

import numpy as np

import streammetrics as sm

from . import LawCase


def _values(rng: np.random.Generator, n: int) -> tuple[np.ndarray]:
    return (3.0 + 2.0 * rng.standard_normal(n),)


def _rows(rng: np.random.Generator, n: int) -> tuple[np.ndarray]:
    return (rng.standard_normal((n, 3)),)


def _torch(name: str, weighted: bool):
    def reference(x, sample_weight=None):
        import torch
        import torchmetrics

        m = getattr(torchmetrics, name)(nan_strategy="error").set_dtype(torch.float64)
        value = torch.as_tensor(np.asarray(x, dtype=np.float64))
        if weighted and sample_weight is not None:
            w = torch.as_tensor(np.asarray(sample_weight, dtype=np.float64))
            w = w.reshape(-1, *([1] * (value.ndim - 1))).expand_as(value)
            m.update(value, w)
        else:
            m.update(value)
        return float(m.compute())

    return reference


def _positive(x, sample_weight=None):
    """Rows of weight 0 left out (torchmetrics' MinMetric and MaxMetric take no weights)."""
    x = np.asarray(x, dtype=np.float64)
    return x if sample_weight is None else x[np.asarray(sample_weight) > 0]


def _sum(x, sample_weight=None):
    x = np.asarray(x, dtype=np.float64)
    w = np.ones(len(x)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return _torch("SumMetric", False)(x * w.reshape(-1, *([1] * (x.ndim - 1))))


CASES = [
    LawCase("Mean", sm.Mean, _values, _torch("MeanMetric", True)),
    LawCase("Mean[rows]", sm.Mean, _rows, _torch("MeanMetric", True)),
    LawCase("Sum", sm.Sum, _values, _sum),
    LawCase(
        "Min",
        sm.Min,
        _values,
        lambda x, sample_weight=None: _torch("MinMetric", False)(_positive(x, sample_weight)),
    ),
    LawCase(
        "Max[rows]",
        sm.Max,
        _rows,
        lambda x, sample_weight=None: _torch("MaxMetric", False)(_positive(x, sample_weight)),
    ),
]
