"""Bad batches raise InputError naming the argument and leave the accumulator unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm

GOOD_T = np.array([1.0, 2.0, 3.0, 4.0])
GOOD_P = np.array([1.5, 2.0, 2.5, 4.5])
ALL = [
    sm.MAE,
    sm.MSE,
    sm.RMSE,
    sm.MSLE,
    sm.RMSLE,
    sm.MAPE,
    sm.MaxError,
    sm.MeanError,
    sm.R2,
    sm.ExplainedVariance,
    sm.PearsonR,
    sm.ConcordanceCorrelation,
    lambda: sm.AdjustedR2(n_features=1),
    # the per-row losses (issue 17); the first five settle finiteness from their value sums
    lambda: sm.PinballLoss(0.25),
    sm.LogCoshError,
    sm.SMAPE,
    sm.WMAPE,
    lambda: sm.MinkowskiDistance(3),
    lambda: sm.TweedieDeviance(1.5),
    sm.PoissonDeviance,
    sm.GammaDeviance,
]

BAD = [
    ("nan-true", ([1.0, np.nan], [1.0, 2.0]), {}, "y_true", "finite"),
    ("inf-pred", ([1.0, 2.0], [np.inf, 2.0]), {}, "y_pred", "finite"),
    ("length", ([1.0, 2.0, 3.0], [1.0, 2.0]), {}, "y_pred", "3 rows"),
    ("outputs", (np.ones((3, 2)), np.ones((3, 3))), {}, "y_pred", "2 outputs"),
    ("three-d", (np.ones((2, 2, 2)), np.ones((2, 2, 2))), {}, "y_true", "1-D or 2-D"),
    ("three-d-pred", (np.ones(2), np.ones((2, 1, 1))), {}, "y_pred", "1-D or 2-D"),
    ("zero-columns", (np.ones((3, 0)), np.ones((3, 0))), {}, "y_true", "at least one column"),
    ("strings", (["a", "b"], [1.0, 2.0]), {}, "y_true", "numbers"),
    ("weight-length", ([1.0, 2.0], [1.0, 2.0]), {"sample_weight": [1.0]}, "sample_weight", "2 rows"),
    (
        "weight-negative",
        ([1.0, 2.0], [1.0, 2.0]),
        {"sample_weight": [1.0, -1.0]},
        "sample_weight",
        "non-negative",
    ),
    ("weight-nan", ([1.0, 2.0], [1.0, 2.0]), {"sample_weight": [1.0, np.nan]}, "sample_weight", "finite"),
]


def _snapshot(m: sm.Metric) -> bytes:
    return m.to_bytes()


@pytest.mark.parametrize("make", ALL, ids=lambda make: type(make()).__name__)
@pytest.mark.parametrize(("case", "args", "kwargs", "argument", "fragment"), BAD, ids=[b[0] for b in BAD])
def test_bad_batch_raises_and_leaves_state(make, case, args, kwargs, argument, fragment) -> None:
    m = make().update(GOOD_T, GOOD_P)
    before = _snapshot(m)
    with pytest.raises(sm.InputError, match=rf"^{argument}: expected.*{fragment}"):
        m.update(*args, **kwargs)
    assert _snapshot(m) == before
    if m.is_revertible:
        with pytest.raises(sm.InputError):
            m.revert(*args, **kwargs)
        assert _snapshot(m) == before


@pytest.mark.parametrize("cls", [sm.MAE, sm.R2, sm.PearsonR, sm.MaxError], ids=lambda c: c.__name__)
def test_output_count_fixed_by_first_batch(cls) -> None:
    m = cls().update(np.ones((3, 2)), np.zeros((3, 2)))
    before = _snapshot(m)
    with pytest.raises(sm.InputError, match="y_true: expected 2 outputs like earlier batches, found 3"):
        m.update(np.ones((3, 3)), np.zeros((3, 3)))
    with pytest.raises(sm.InputError, match="y_true: expected 2 outputs like earlier batches, found 1"):
        m(np.ones(3), np.zeros(3))
    assert _snapshot(m) == before


def test_multioutput_weights_fix_the_output_count() -> None:
    m = sm.MSE(multioutput=[1.0, 2.0])
    with pytest.raises(
        sm.InputError, match=r"y_true: expected 2 outputs \(the length of multioutput\), found 3"
    ):
        m.update(np.ones((2, 3)), np.ones((2, 3)))
    assert m.n_samples == 0


@pytest.mark.parametrize("cls", [sm.MSLE, sm.RMSLE], ids=lambda c: c.__name__)
@pytest.mark.parametrize("which", ["y_true", "y_pred"])
def test_log_metrics_reject_negative_values(cls, which) -> None:
    m = cls().update(GOOD_T, GOOD_P)
    before = _snapshot(m)
    bad = [1.0, -0.5, 2.0]
    args = (bad, [1.0, 1.0, 1.0]) if which == "y_true" else ([1.0, 1.0, 1.0], bad)
    with pytest.raises(
        sm.InputError, match=rf"^{which}: expected non-negative values for {cls.__name__}.*-0.5"
    ):
        m.update(*args)
    assert _snapshot(m) == before


def test_merging_different_output_counts_or_configs_raises() -> None:
    a = sm.R2().update(np.ones((3, 2)), np.zeros((3, 2)))
    b = sm.R2().update(np.ones((3, 3)), np.zeros((3, 3)))
    before = _snapshot(a)
    with pytest.raises(sm.MergeError, match="2"):
        a.merge(b)
    assert _snapshot(a) == before
    with pytest.raises(sm.MergeError, match="multioutput"):
        sm.R2().merge(sm.R2(multioutput="raw_values"))
    with pytest.raises(sm.MergeError, match="different types"):
        sm.R2().merge(sm.ExplainedVariance())
    with pytest.raises(sm.MergeError):
        sm.MaxError().update(np.ones((2, 2)), np.ones((2, 2))).merge(sm.MaxError().update([1.0], [2.0]))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: sm.MAE(multioutput="variance_weighted"), "multioutput: expected one of"),
        (lambda: sm.PearsonR(multioutput="sum"), "multioutput: expected one of"),
        (lambda: sm.MSE(multioutput=[1.0, -1.0]), "multioutput: expected a 1-D list"),
        (lambda: sm.MSE(multioutput=[[1.0]]), "multioutput: expected a 1-D list"),
        (lambda: sm.R2(force_finite="yes"), "force_finite: expected True or False"),
        (lambda: sm.AdjustedR2(n_features=-1), "n_features: expected an integer >= 0"),
        (lambda: sm.AdjustedR2(n_features=1.5), "n_features: expected an integer"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_argument(make, message) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_adjusted_r2_undefined_for_too_few_samples() -> None:
    m = sm.AdjustedR2(n_features=2).update([1.0, 2.0, 3.0], [1.0, 2.5, 2.5])
    with pytest.warns(sm.UndefinedMetricWarning, match="n_features"):
        assert np.isnan(m.compute())
    m.update([4.0], [4.5])  # n = 4 > n_features + 1: defined
    assert np.isfinite(m.compute())
    raw = sm.AdjustedR2(n_features=5, multioutput="raw_values").update(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(raw.compute()).all() and raw.compute().shape == (2,)


def test_pearson_undefined_for_constant_columns() -> None:
    m = sm.PearsonR(multioutput="raw_values").update(
        np.column_stack([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]),
        np.column_stack([[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]]),
    )
    with pytest.warns(sm.UndefinedMetricWarning, match="constant"):
        value = m.compute()
    assert np.isnan(value[0]) and np.isfinite(value[1])
