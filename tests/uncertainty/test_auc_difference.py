"""The AUC-difference z-test from two sketches: agreement with SciPy's normal, size under the null."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import streammetrics as sm
from streammetrics.uncertainty import auc_difference_test, hanley_mcneil_se


def _sample(rng, n, strength):
    y = rng.integers(0, 2, n)
    return y, np.clip(strength * y + (1 - strength) * rng.random(n), 0, 1)


def test_statistic_and_pvalue_match_the_formula_with_scipy():
    rng = np.random.default_rng(5)
    (ya, sa), (yb, sb) = _sample(rng, 800, 0.3), _sample(rng, 600, 0.2)
    result = auc_difference_test(
        sm.ROCAUC(resolution=52).update(ya, sa), sm.ROCAUC(resolution=52).update(yb, sb)
    )
    a, b = roc_auc_score(ya, sa), roc_auc_score(yb, sb)
    se = math.hypot(
        hanley_mcneil_se(a, ya.sum(), len(ya) - ya.sum()), hanley_mcneil_se(b, yb.sum(), len(yb) - yb.sum())
    )
    z = (a - b) / se
    assert result.statistic == pytest.approx(z, rel=1e-9)
    assert result.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)


def test_pvalues_under_the_null_are_not_too_small():
    rng = np.random.default_rng(11)
    pvalues = []
    for _ in range(300):
        ma = sm.ROCAUC().update(*_sample(rng, 300, 0.25))
        mb = sm.ROCAUC().update(*_sample(rng, 300, 0.25))
        pvalues.append(auc_difference_test(ma, mb).pvalue)
    pvalues = np.asarray(pvalues)
    # Hanley-McNeil's SE is approximate: the size at 5% should be near 5%, and not above ~9%.
    assert 0.01 <= np.mean(pvalues < 0.05) <= 0.09
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-3


def test_one_class_only_warns_and_gives_nan():
    ma = sm.ROCAUC().update([1, 1, 1], [0.2, 0.5, 0.9])
    mb = sm.ROCAUC().update([0, 1], [0.2, 0.9])
    with pytest.warns(sm.UndefinedMetricWarning):
        result = auc_difference_test(ma, mb)
    assert math.isnan(result.pvalue)
