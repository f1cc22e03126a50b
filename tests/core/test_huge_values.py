"""Huge finite values: overflow gives what the arithmetic gives (inf), never inf - inf = NaN."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

# ---------------------------------------------------------------- regression near 1e308
HUGE = [
    ([1e308, -1e308], [-1e308, 1e308]),  # residuals beyond float range, mean 0
    ([1e308, -1e308, 3.0], [-1e308, 1e308, 1.0]),
    ([1.0, 2.0, 3.0], [1e308, -1e308, 0.0]),  # the first residual (the shift) overflows
    ([1e308, -1e308, 1.0], [1.0, 2.0, 3.0]),  # y_true's own deviations overflow
    ([1e200, 2e200], [0.0, 0.0]),  # squares overflow, differences do not
]
REGRESSION = {
    "MSE": (sm.MSE, skm.mean_squared_error),
    "RMSE": (sm.RMSE, skm.root_mean_squared_error),
    "MAE": (sm.MAE, skm.mean_absolute_error),
    "MAPE": (sm.MAPE, skm.mean_absolute_percentage_error),
    "R2": (sm.R2, skm.r2_score),
    "ExplainedVariance": (sm.ExplainedVariance, skm.explained_variance_score),
}


@pytest.mark.parametrize("name", list(REGRESSION))
@pytest.mark.parametrize("data", HUGE, ids=range(len(HUGE)))
def test_regression_near_the_float_maximum(name, data):
    make, reference = REGRESSION[name]
    t, p = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = reference(t, p)
        ours = make().update(t, p).compute()
    np.testing.assert_allclose(ours, expected, rtol=1e-12)


def test_an_overflowed_batch_then_ordinary_ones():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = sm.MSE(multioutput="raw_values").update([1.0, 2.0], [0.0, 1.0])
        m.update(np.array([[1e308], [-1e308]]), np.array([[-1e308], [1e308]])).update([3.0], [2.0])
        assert m.compute().tolist() == [np.inf]
        two = np.array([[1e308, 1.0], [-1e308, 2.0]]), np.array([[-1e308, 1.0], [1e308, 3.0]])
        expected = skm.mean_squared_error(*two, multioutput="raw_values")
        np.testing.assert_allclose(sm.MSE(multioutput="raw_values").update(*two).compute(), expected)


# ---------------------------------------------------------------- F-beta with a huge beta
T = [0, 1, 1, 0, 1, 2, 2, 1]
P = [0, 1, 0, 0, 1, 1, 0, 2]


@pytest.mark.parametrize("beta", [1e100, 1e154, 1e160, 1e200, 1e300])
@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted"])
def test_fbeta_huge_beta_is_the_recall_limit(beta, average):
    # scikit-learn computes beta**2 (OverflowError from 1e155, NaN before): the value tends to
    # the recall as beta grows, and equals it in double precision far below 1e154
    ours = sm.FBeta(beta=beta, average=average).update(T, P).compute()
    np.testing.assert_allclose(ours, skm.recall_score(T, P, average=average), rtol=1e-15)
    np.testing.assert_allclose(ours, skm.fbeta_score(T, P, beta=1e100, average=average), rtol=1e-15)


def test_fbeta_huge_beta_binary_and_false_positives_only():
    assert sm.FBeta(beta=1e200).update([0, 1, 1, 0], [0, 1, 0, 0]).compute() == 0.5
    # a label with false positives only: 0.0 for every finite beta, as scikit-learn
    ours = sm.FBeta(beta=1e200, average=None).update([0, 0, 1], [1, 1, 2]).compute()
    expected = skm.fbeta_score([0, 0, 1], [1, 1, 2], beta=1e100, average=None, zero_division=0.0)
    np.testing.assert_array_equal(ours, expected)


def test_fbeta_tiny_beta_is_the_precision():
    ours = sm.FBeta(beta=1e-200, average=None).update(T, P).compute()
    np.testing.assert_allclose(ours, skm.precision_score(T, P, average=None), rtol=1e-15)
