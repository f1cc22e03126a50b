"""Accuracy at large offsets: 64 uneven shards merged in random orders vs an exact reference.

The reference (``tests/regression/exact.py``) computes R², explained variance and Pearson's r
exactly with integers and rounds once; the target is 1e-9 relative (issue 4).
"""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from tests.regression.exact import exact_scores, make_data, merged_in_random_order

OFFSETS = [0.0, 1e4, 1e8, 1e9, 1e12]
METRICS = [sm.R2, sm.ExplainedVariance, sm.PearsonR]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("offset", OFFSETS, ids=lambda o: f"offset={o:g}")
def test_sharded_merge_matches_exact_reference(offset: float, dtype: type) -> None:
    y, p, _ = make_data(offset, dtype, 30_000, seed=7)
    exact = exact_scores(y, p)
    for order_seed in range(3):
        rng = np.random.default_rng(order_seed)
        for cls in METRICS:
            value = merged_in_random_order(cls, y, p, 64, rng).compute()
            expected = exact[cls.__name__]
            assert abs(value - expected) <= 1e-9 * abs(expected), (cls.__name__, value, expected)


@pytest.mark.parametrize("offset", [1e9, 1e12], ids=lambda o: f"offset={o:g}")
def test_weighted_and_reverted_stay_accurate(offset: float) -> None:
    """Integer weights equal repetition exactly enough; revert of half the shards stays accurate."""
    y, p, _ = make_data(offset, np.float64, 4_000, seed=3)
    w = np.random.default_rng(4).integers(0, 4, len(y))
    rep = np.repeat(np.arange(len(y)), w)
    exact = exact_scores(y[rep], p[rep])
    m = sm.R2().update(y, p, sample_weight=w)
    assert abs(m.compute() - exact["R2"]) <= 1e-9 * abs(exact["R2"])
    extra_y, extra_p, _ = make_data(offset + 5.0, np.float64, 1_000, seed=5)
    m.update(extra_y, extra_p).revert(extra_y, extra_p)
    assert abs(m.compute() - exact["R2"]) <= 1e-9 * abs(exact["R2"])


def test_exact_reference_agrees_with_sklearn_where_sklearn_is_accurate() -> None:
    """The integer reference itself against scikit-learn / SciPy at offset 0 (a sanity check)."""
    from scipy import stats
    from sklearn import metrics as skm

    y, p, _ = make_data(0.0, np.float64, 5_000, seed=11)
    exact = exact_scores(y, p)
    np.testing.assert_allclose(exact["R2"], skm.r2_score(y, p), rtol=1e-13)
    np.testing.assert_allclose(exact["ExplainedVariance"], skm.explained_variance_score(y, p), rtol=1e-13)
    np.testing.assert_allclose(exact["PearsonR"], stats.pearsonr(y, p)[0], rtol=1e-13)
