"""Permutation tests of a confusion metric against "labels independent of predictions".

Permuting the true labels against fixed predictions keeps both margins of the confusion matrix
(how many rows of each true class, how many predictions of each class) and makes every table
with those margins as likely as its number of permutations: the multiple hypergeometric
distribution. The test therefore needs only the confusion counts, never the rows — so it works
on a streamed or merged accumulator.

* two labels: the table is fixed by one cell, so the p-value is **exact**: a sum of
  hypergeometric probabilities over all tables (for accuracy this is Fisher's exact test);
* more labels: **Monte Carlo** over random tables with the observed margins (sequential
  hypergeometric draws, vectorized over resamples, at most :data:`TABLE_CELLS` cells at a
  time), p-value ``(1 + #{T_b >= t}) / (1 + B)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._core.metric import Metric
from .._core.params import check_number, check_option
from ..classification.base import ConfusionMetric
from ..classification.counts import MAX_CLASSES, ConfusionCounts
from ._stats import hypergeom_pmf
from .results import TestResult

_REL_TOL = 1e-12  # ties: a resampled value within this relative distance counts as "as extreme"
#: The most cells of random tables drawn at once (int64: 32 MB); more resamples are drawn and
#: scored a chunk at a time (the same tables as one draw whenever they fit in one: up to 41,943
#: resamples of 10 labels; 100 labels and the default 9,999 would otherwise hold 800 MB).
TABLE_CELLS = 1 << 22


def _integer_table(metric: Metric[Any]) -> np.ndarray:
    if not isinstance(metric, ConfusionMetric):
        raise ValueError(f"metric: expected a confusion-matrix metric, found {type(metric).__name__}")
    state = metric.state
    if state.mode != "multiclass":
        raise ValueError("metric: expected a metric updated with binary or multiclass labels")
    if not state.dense:
        raise ValueError(
            f"metric: a permutation test draws whole confusion matrices, kept up to {MAX_CLASSES:,} "
            f"classes; found {state.n_labels:,} (their per-class counts only)"
        )
    m = state.matrix
    if m.dtype.kind == "f":
        if not np.array_equal(m, np.round(m)):
            raise ValueError(
                "metric: a permutation test needs whole counts, found non-integer weighted counts"
            )
        if m.size and m.max() > 2**53:  # (their int64 counts would be neither exact nor safe)
            raise ValueError(
                "metric: a permutation test needs whole counts of at most 2^53 rows, found weighted counts "
                f"up to {float(m.max()):.4g}"
            )
        m = np.round(m).astype(np.int64)
    return m


def _values(metric: Metric[Any], tables: np.ndarray) -> np.ndarray:
    """The metric on each table (NaN where undefined), with the metric's zero_division policy."""
    state = metric.state
    out = np.empty(len(tables))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, table in enumerate(tables):
            s = ConfusionCounts(metric.labels)
            s.mode, s.labels, s.matrix, s._n = "multiclass", state.labels, table, int(table.sum())
            s.margins = None
            value = np.nan if metric._is_empty(s) else metric._compute(s)
            if np.ndim(value):
                raise ValueError(
                    f"metric: expected a single-valued metric, found {type(metric).__name__} with an array value"
                )
            out[i] = value
    return out


def random_tables(rows: np.ndarray, cols: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` random tables with row sums ``rows`` and column sums ``cols`` (uniform over permutations).

    Row by row, the counts of each column are drawn by sequential hypergeometric draws from the
    column totals still available: the multiple hypergeometric distribution.

    Examples:
        >>> t = random_tables(np.array([3, 2]), np.array([1, 4]), 5, np.random.default_rng(0))
        >>> t.shape, t.sum(axis=2).tolist()[0], t.sum(axis=1).tolist()[0]
        ((5, 2, 2), [3, 2], [1, 4])
    """
    k = len(rows)
    tables = np.zeros((size, k, k), dtype=np.int64)
    remaining = np.tile(np.asarray(cols, dtype=np.int64), (size, 1))
    for i in range(k - 1):
        need = np.full(size, rows[i], dtype=np.int64)
        for j in range(k - 1):
            bad = remaining[:, j + 1 :].sum(axis=1)
            x = rng.hypergeometric(remaining[:, j], bad, need) if need.any() else np.zeros(size, np.int64)
            tables[:, i, j] = x
            need -= x
        tables[:, i, k - 1] = need
        remaining -= tables[:, i]
    tables[:, k - 1] = remaining
    return tables


def permutation_test(
    metric: Metric[Any],
    n_resamples: int = 9999,
    seed: int | None = None,
    *,
    alternative: str | None = None,
    method: str | None = None,
) -> TestResult:
    """P-value of a confusion metric under "true labels independent of the predictions".

    The null distribution permutes the true labels against the fixed predictions, which keeps
    both margins of the confusion matrix. ``method=None`` picks ``"exact"`` for two labels (a
    hypergeometric sum over every possible table: for accuracy, Fisher's exact test) and
    ``"monte-carlo"`` (``n_resamples`` random tables, p-value ``(1 + hits) / (1 + B)``)
    otherwise. ``alternative``: ``"greater"`` (the metric is higher than by chance; the
    default when larger is better) or ``"less"`` (the default for error rates such as
    ``FPR``). Needs whole (unweighted or integer-weighted) counts and a single-valued metric.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Accuracy().update([0, 1] * 20, [0, 1] * 11 + [1, 0] * 9)
        >>> r = permutation_test(m)
        >>> round(m.compute(), 3), r.method, round(r.pvalue, 4)
        (0.55, 'exact (hypergeometric)', 0.3762)
    """
    check_number("n_resamples", n_resamples, low=1, integer=True)
    method = check_option("method", method, (None, "exact", "monte-carlo"))
    if alternative is None:
        alternative = "less" if metric.higher_is_better is False else "greater"
    alternative = check_option("alternative", alternative, ("greater", "less"))
    table = _integer_table(metric)
    k = table.shape[0]
    observed = _values(metric, table[None])[0]
    sign = 1.0 if alternative == "greater" else -1.0
    if method is None:
        method = "exact" if k <= 2 else "monte-carlo"
    if method == "exact" and k > 2:
        raise ValueError(f"method: 'exact' needs two labels, found {k}; use 'monte-carlo'")
    if np.isnan(observed):
        return TestResult(np.nan, np.nan, method, 0)
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    tol = _REL_TOL * max(1.0, abs(observed))
    if method == "exact":
        if k < 2:
            return TestResult(float(observed), 1.0, "exact (hypergeometric)", 0)
        n = int(table.sum())
        lo, hi = max(0, int(rows[0] + cols[0] - n)), int(min(rows[0], cols[0]))
        x = np.arange(lo, hi + 1)
        tables = np.empty((len(x), 2, 2), dtype=np.int64)
        tables[:, 0, 0] = x
        tables[:, 0, 1] = rows[0] - x
        tables[:, 1, 0] = cols[0] - x
        tables[:, 1, 1] = n - rows[0] - cols[0] + x
        values = _values(metric, tables)
        pmf = hypergeom_pmf(x, n, int(rows[0]), int(cols[0]))
        extreme = sign * (values - observed) >= -tol
        pvalue = float(min(1.0, np.sum(pmf[extreme])))
        return TestResult(float(observed), pvalue, "exact (hypergeometric)", 0)
    rng = np.random.default_rng(seed)
    per_draw = max(1, TABLE_CELLS // (k * k))
    hits = 0
    for start in range(0, n_resamples, per_draw):
        values = _values(metric, random_tables(rows, cols, min(per_draw, n_resamples - start), rng))
        hits += int(np.sum(sign * (values - observed) >= -tol))
    return TestResult(float(observed), (1.0 + hits) / (1.0 + n_resamples), "monte-carlo", n_resamples)
