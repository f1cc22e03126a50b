"""The co-moment, residual-moment and maximum states: revert, emptiness, persistence checks, sharing keys, size."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.regression import CoMoments, MaxAbsError, ResidualMoments, TargetMoments
from streammetrics.regression.ranged import RangedCoMoments, RangedTargetMoments

REVERTIBLE = [
    sm.MAE,
    sm.MSE,
    sm.RMSE,
    sm.MSLE,
    sm.RMSLE,
    sm.MAPE,
    sm.MeanError,
    sm.R2,
    sm.ExplainedVariance,
    sm.PearsonR,
    sm.ConcordanceCorrelation,
]


@pytest.mark.parametrize("cls", REVERTIBLE, ids=lambda c: c.__name__)
def test_everything_but_max_error_is_revertible(cls) -> None:
    assert cls().is_revertible


def test_max_error_says_it_cannot_revert() -> None:
    m = sm.MaxError().update([1.0, 2.0], [2.0, 2.0])
    assert not m.is_revertible
    before = m.to_bytes()
    with pytest.raises(TypeError, match="MaxError cannot revert"):
        m.revert([1.0], [2.0])
    assert m.to_bytes() == before


def test_revert_everything_gives_an_empty_accumulator() -> None:
    rng = np.random.default_rng(0)
    y, p = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    m = sm.R2().update(y[:20], p[:20]).update(y[20:], p[20:])
    m.revert(y[20:], p[20:]).revert(y[:20], p[:20])
    assert m.n_samples == 0 and m.state.n_outputs is None
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())
    m.update(y[:, :1], p[:, :1])  # the output count is free again
    np.testing.assert_allclose(m.compute(), skm.r2_score(y[:, 0], p[:, 0]), rtol=1e-12)


def test_revert_more_than_added_raises() -> None:
    m = sm.MSE().update([1.0], [2.0])
    with pytest.raises(sm.InputError, match="cannot revert 2 rows"):
        m.revert([1.0, 2.0], [2.0, 3.0])
    with pytest.raises(sm.InputError, match="sample_weight: reverting more weight"):
        m.revert([1.0], [2.0], sample_weight=[5.0])
    assert m.n_samples == 1 and m.compute() == 1.0


def test_zero_weight_rows_count_but_weigh_nothing() -> None:
    m = sm.R2().update([1.0, 2.0, 3.0], [1.0, 2.0, 2.0], sample_weight=[0.0, 0.0, 0.0])
    assert m.n_samples == 3
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())
    mx = sm.MaxError().update([1.0, 2.0], [9.0, 2.5], sample_weight=[0.0, 1.0])
    assert mx.compute() == 0.5


def test_merge_of_states_with_far_apart_shifts() -> None:
    rng = np.random.default_rng(5)
    a_y = 1e12 + rng.normal(size=1000)
    b_y = -3.0 + rng.normal(size=1000)
    a_p, b_p = a_y + rng.normal(size=1000), b_y + rng.normal(size=1000)
    merged = sm.R2().update(a_y, a_p) + sm.R2().update(b_y, b_p)
    y, p = np.concatenate([a_y, b_y]), np.concatenate([a_p, b_p])
    np.testing.assert_allclose(merged.compute(), skm.r2_score(y, p), rtol=1e-12)


def test_state_size_and_merge_cost_do_not_grow_with_samples() -> None:
    rng = np.random.default_rng(1)
    small = sm.R2(multioutput="raw_values").update(rng.normal(size=(10, 4)), rng.normal(size=(10, 4)))
    big = sm.R2(multioutput="raw_values").update(rng.normal(size=(100_000, 4)), rng.normal(size=(100_000, 4)))
    shapes = {k: np.shape(v) for k, v in small.state.to_dict().items()}
    assert shapes == {k: np.shape(v) for k, v in big.state.to_dict().items()}
    assert abs(len(small.to_bytes()) - len(big.to_bytes())) < 16  # only the digits of n and weight
    assert all(np.asarray(v).size <= 12 for v in big.state.to_dict().values())


def test_error_metrics_share_residual_moments_and_log_metrics_keep_a_separate_state() -> None:
    assert sm.MSE().state.share_key() != sm.MSLE().state.share_key()
    errors = {sm.MAE().state.share_key(), sm.MSE().state.share_key(), sm.RMSE().state.share_key()}
    assert errors == {sm.MeanError().state.share_key()}
    assert sm.R2().state.share_key() == sm.PearsonR().state.share_key() == sm.MAPE().state.share_key()
    assert sm.MSE().state.share_key() != sm.R2().state.share_key()
    assert sm.MSLE().state.share_key() == sm.RMSLE().state.share_key()


def _dict_of(metric: sm.Metric) -> dict:
    return metric.state_dict()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("weight", -1.0, "weight must be"),
        ("weight", float("nan"), "weight must be"),
        ("n_samples", -2, "n_samples"),
        ("n_outputs", 0, "n_outputs"),
        ("m2", np.zeros((3, 5)), "m2 must be"),
        ("mean", np.full((3, 2), np.nan), "non-finite"),
        ("sum_abs", np.array([-1.0, 0.0]), "negative"),
        ("shift", np.array(["a", "b"]), "shift must be"),
    ],
)
def test_corrupt_co_moment_states_are_rejected(key, value, message) -> None:
    d = _dict_of(sm.R2().update(np.ones((3, 2)), np.arange(6.0).reshape(3, 2)))
    d["state"][key] = value
    with pytest.raises(sm.StateError, match=message):
        sm.from_state_dict(d)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("weight", -1.0, "weight must be"),
        ("m2", np.zeros((3, 2)), "m2 must be"),  # a co-moment shape is not a residual one
        ("mean", np.full((1, 2), np.inf), "non-finite"),
        ("sum_abs", np.array([-1.0, 0.0]), "negative"),
        ("cross", np.zeros(2), "keys"),  # a co-moment field is not a residual one
    ],
)
def test_corrupt_residual_moment_states_are_rejected(key, value, message) -> None:
    d = _dict_of(sm.MAE().update(np.ones((3, 2)), np.arange(6.0).reshape(3, 2)))
    d["state"][key] = value
    with pytest.raises(sm.StateError, match=message):
        sm.from_state_dict(d)


@pytest.mark.parametrize(
    ("make", "reference"),
    [
        (sm.MSE, skm.mean_squared_error),
        (sm.RMSE, skm.root_mean_squared_error),
        (sm.MAE, skm.mean_absolute_error),
        (sm.NRMSE, None),
    ],
    ids=["MSE", "RMSE", "MAE", "NRMSE"],
)
def test_moments_past_the_float_range_save_and_load(make, reference) -> None:
    """Residuals whose squares overflow leave an infinite second moment (MSE inf, as scikit-learn
    says; MAE finite): such a state saves and loads, computing what it computed; NaN is still
    refused."""
    y_true, y_pred = np.array([1e200, 3.0, 2.0]), np.array([-1e200, 1.0, 2.5])
    with np.errstate(over="ignore", invalid="ignore"):
        m = make().update(y_true, y_pred)
        value = m.compute()
        if reference is not None:
            np.testing.assert_allclose(value, reference(y_true, y_pred), rtol=1e-12)
        loaded = type(m).from_bytes(m.to_bytes())
        assert loaded.to_bytes() == m.to_bytes()
        assert loaded.compute() == value or (np.isnan(value) and np.isnan(loaded.compute()))
    d = _dict_of(m)
    d["state"]["m2"] = np.full_like(np.asarray(d["state"]["m2"], dtype=float), np.nan)
    with pytest.raises(sm.StateError, match="m2 must be finite or infinite, found NaN"):
        sm.from_state_dict(d)


@pytest.mark.parametrize("outputs", [None, 3])
def test_residual_moments_are_the_residual_part_of_the_co_moments(outputs) -> None:
    # Same reduction code: every residual field is bit-identical, through batches with weights,
    # merges of far-apart shifts, a revert and a scale.
    rng = np.random.default_rng(7)
    shape = (400,) if outputs is None else (400, outputs)
    y = 1e6 + rng.normal(size=shape)
    p = y + rng.normal(size=shape)
    w = rng.random(400)
    full, residual = CoMoments(), ResidualMoments()
    other_full, other_residual = CoMoments(), ResidualMoments()
    for state, second in ((full, other_full), (residual, other_residual)):
        state.update(y[:150], p[:150], None)
        state.update(y[150:300], p[150:300], w[150:300])
        second.update(y[300:] - 5e5, p[300:], w[300:])
        state.merge(second)
        state.revert(y[:20], p[:20], None)
        state.scale(0.75)
    assert residual.n_samples == full.n_samples == 380
    assert residual.weight == full.weight
    for name in ("mean_residual", "ss_residual", "ss_residual_centered", "sum_abs"):
        np.testing.assert_array_equal(getattr(residual, name), getattr(full, name))
    np.testing.assert_array_equal(residual.shift, full.shift[2:])
    np.testing.assert_array_equal(residual.m2, full.m2[2:])


def test_a_residual_state_does_not_merge_into_co_moments() -> None:
    a, b = CoMoments(), ResidualMoments()
    b.update(np.array([1.0]), np.array([2.0]), None)
    with pytest.raises(sm.MergeError, match="ResidualMoments"):
        a.merge(b)
    with pytest.raises(sm.MergeError):
        sm.MAE().merge(sm.R2())


def test_corrupt_max_states_are_rejected() -> None:
    d = _dict_of(sm.MaxError().update([1.0, 2.0], [3.0, 1.0]))
    d["state"]["max_abs"] = np.array([-1.0])
    with pytest.raises(sm.StateError, match="max_abs"):
        sm.from_state_dict(d)
    d["state"].pop("max_abs")
    with pytest.raises(sm.StateError, match="keys"):
        sm.from_state_dict(d)


def test_states_directly() -> None:
    s, t = CoMoments(), CoMoments()
    s.update(np.array([1.0, 2.0]), np.array([1.0, 3.0]), None)
    t.update(np.array([3.0]), np.array([2.0]), np.array([2.0]))
    s.merge(t)
    np.testing.assert_allclose(s.ss_residual, [0 + 1 + 2 * 1])
    np.testing.assert_allclose(s.mean_true, [(1 + 2 + 2 * 3) / 4])
    with pytest.raises(ValueError, match="transform"):
        CoMoments("log")
    with pytest.raises(sm.MergeError):
        s.merge(CoMoments("log1p"))
    m = MaxAbsError()
    m.update(np.array([[1.0, 2.0]]), np.array([[0.0, 0.0]]), None)
    assert m.max_abs.tolist() == [1.0, 2.0]


def test_scale_is_weighting_every_row() -> None:
    """scale(f) then more rows equals weighting the old rows by f (what Decayed relies on)."""
    rng = np.random.default_rng(8)
    y, p = rng.normal(size=40), rng.normal(size=40)
    m = sm.R2().update(y[:25], p[:25])
    m.state.scale(0.25)
    m.update(y[25:], p[25:])
    w = np.r_[np.full(25, 0.25), np.ones(15)]
    np.testing.assert_allclose(m.compute(), skm.r2_score(y, p, sample_weight=w), rtol=1e-12)
    mae = sm.MAE().update(y, p)
    mae.state.scale(3.0)
    np.testing.assert_allclose(mae.compute(), skm.mean_absolute_error(y, p), rtol=1e-12)


def test_decayed_r2_matches_weighted_reference() -> None:
    """Decayed(R2): row i of n weighs decay ** (n - 1 - i), so scikit-learn with those weights."""
    rng = np.random.default_rng(9)
    y, p = rng.normal(size=30), rng.normal(size=30)
    m = sm.Decayed(sm.R2(), decay=0.9).update(y[:10], p[:10]).update(y[10:], p[10:])
    w = 0.9 ** np.arange(29, -1, -1.0)
    np.testing.assert_allclose(m.compute(), skm.r2_score(y, p, sample_weight=w), rtol=1e-12)


def test_revert_down_to_one_row_leaves_no_spread() -> None:
    m = sm.ConcordanceCorrelation().update([2.0], [2.0 + 1e-4])
    rng = np.random.default_rng(1816)
    y, p = rng.normal(size=20), rng.normal(size=20)
    m.update(y, p).revert(y, p)
    assert m.state.ss_true.tolist() == [0.0] and m.state.cross.tolist() == [0.0]
    assert m.compute() == 0.0


@pytest.mark.parametrize(
    ("make", "old_state", "weighted"),
    [
        *[
            (
                lambda make=make: make(multioutput="raw_values"),
                lambda make=make: CoMoments(make.transform),
                False,
            )
            for make in (sm.MAE, sm.RMSE, sm.MeanError, sm.MSLE)
        ],
        *[
            (lambda n=n: sm.NRMSE(n, multioutput="raw_values"), CoMoments, True)
            for n in ("mean", "std", "l2")
        ],
        (lambda: sm.NRMSE("range", multioutput="raw_values"), RangedCoMoments, True),
    ],
    ids=["MAE", "RMSE", "MeanError", "MSLE", "NRMSE-mean", "NRMSE-std", "NRMSE-l2", "NRMSE-range"],
)
def test_states_saved_as_co_moments_still_load(make, old_state, weighted) -> None:
    # Earlier versions kept the co-moments (with the range for NRMSE's) for the error metrics and
    # NRMSE: such a state loads, keeping the rows the metric reads (bit-identical to what its
    # state holds for the same rows), after every check of a co-moment state.
    rng = np.random.default_rng(5)
    y, p = rng.gamma(2.0, size=(60, 2)), rng.gamma(2.0, size=(60, 2))
    w = rng.random(60) if weighted else None
    old = old_state()
    old.update(y, p, w)
    current = make().update(y, p, sample_weight=w)
    saved = current.state_dict()
    saved["state"] = old.to_dict()
    loaded = sm.from_state_dict(saved)
    np.testing.assert_array_equal(loaded.compute(), current.compute())
    assert loaded.to_bytes() == current.to_bytes()
    saved["state"]["m2"] = -saved["state"]["m2"] - 1.0  # still checked as co-moments
    with pytest.raises(sm.StateError):
        sm.from_state_dict(saved)
    saved["state"] = {**old.to_dict(), "cross": np.full(2, 1e300)}  # beyond Cauchy-Schwarz
    with pytest.raises(sm.StateError, match="cross"):
        sm.from_state_dict(saved)


@pytest.mark.parametrize("outputs", [None, 3])
@pytest.mark.parametrize(
    ("kind", "full_kind"), [(TargetMoments, CoMoments), (RangedTargetMoments, RangedCoMoments)]
)
def test_target_moments_are_the_true_and_residual_part_of_the_co_moments(outputs, kind, full_kind) -> None:
    # Same reduction code: the y_true and residual rows are bit-identical, through batches with
    # weights (one of them 0), merges of far-apart shifts, a revert (where revertible) and a scale.
    rng = np.random.default_rng(17)
    shape = (400,) if outputs is None else (400, outputs)
    y = 1e6 + rng.normal(size=shape)
    p = y + rng.normal(size=shape)
    w = rng.random(400)
    w[160] = 0.0
    target, full = kind(), full_kind()
    other_target, other_full = kind(), full_kind()
    for state, second in ((target, other_target), (full, other_full)):
        state.update(y[:150], p[:150], None)
        state.update(y[150:300], p[150:300], w[150:300])
        second.update(y[300:] - 5e5, p[300:], w[300:])
        state.merge(second)
        if state.revertible:
            state.revert(y[:20], p[:20], None)
        state.scale(0.75)
    assert target.n_samples == full.n_samples and target.weight == full.weight
    for name in ("mean_true", "ss_true", "mean_residual", "ss_residual", "ss_residual_centered"):
        np.testing.assert_array_equal(getattr(target, name), getattr(full, name))
    np.testing.assert_array_equal(target.shift, full.shift[0::2])
    np.testing.assert_array_equal(target.m2, full.m2[0::2])
    if kind is RangedTargetMoments:
        assert target.low.tolist() == full.low.tolist() and target.high.tolist() == full.high.tolist()


def test_a_target_state_does_not_merge_into_co_moments() -> None:
    a, b = CoMoments(), TargetMoments()
    b.update(np.array([1.0]), np.array([2.0]), None)
    with pytest.raises(sm.MergeError, match="TargetMoments"):
        a.merge(b)
    with pytest.raises(sm.MergeError):
        sm.R2().merge(sm.NRMSE())
