"""Agreement with scikit-learn (SciPy for Pearson) to 1e-12 relative on well-conditioned data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import streammetrics as sm

RTOL = 1e-12
RNG = np.random.default_rng(2024)
N = 5_000
Y1 = 3.0 + 2.0 * RNG.standard_normal(N)
P1 = Y1 + 0.2 + 0.8 * RNG.standard_normal(N)
YM = np.column_stack([Y1, 50.0 + 10.0 * RNG.standard_normal(N), RNG.gamma(2.0, 1.0, N)])
PM = YM + np.array([0.5, 3.0, 0.1]) * RNG.standard_normal((N, 3))
W = RNG.uniform(0.1, 3.0, N)
POS_T, POS_P = RNG.gamma(2.0, 2.0, (N, 2)), RNG.gamma(2.0, 2.0, (N, 2))

SK = {
    sm.MAE: skm.mean_absolute_error,
    sm.MSE: skm.mean_squared_error,
    sm.RMSE: skm.root_mean_squared_error,
    sm.MAPE: skm.mean_absolute_percentage_error,
    sm.R2: skm.r2_score,
    sm.ExplainedVariance: skm.explained_variance_score,
}
LOG = {sm.MSLE: skm.mean_squared_log_error, sm.RMSLE: skm.root_mean_squared_log_error}


def streamed(m: sm.Metric, y, p, w=None, parts: int = 7) -> sm.Metric:
    """Feed in uneven batches, half into a second accumulator, then merge."""
    edges = np.sort(np.random.default_rng(1).choice(np.arange(1, len(y)), parts - 1, replace=False))
    chunks = np.split(np.arange(len(y)), edges)
    other = m.empty_like()
    for i, rows in enumerate(chunks):
        (m if i % 2 else other).update(y[rows], p[rows], sample_weight=None if w is None else w[rows])
    return m.merge(other)


def close(actual, expected, rtol: float = RTOL) -> None:
    np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float), rtol=rtol, atol=0)


@pytest.mark.parametrize("cls", list(SK), ids=lambda c: c.__name__)
@pytest.mark.parametrize("multioutput", ["uniform_average", "raw_values", [0.2, 0.5, 0.3]], ids=str)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_matches_sklearn(cls, multioutput, weighted) -> None:
    w = W if weighted else None
    got = streamed(cls(multioutput=multioutput), YM, PM, w).compute()
    close(got, SK[cls](YM, PM, sample_weight=w, multioutput=multioutput))
    one = streamed(cls(), Y1, P1, w).compute()
    close(one, SK[cls](Y1, P1, sample_weight=w))


@pytest.mark.parametrize("cls", [sm.R2, sm.ExplainedVariance], ids=lambda c: c.__name__)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_variance_weighted(cls, weighted) -> None:
    w = W if weighted else None
    got = streamed(cls(multioutput="variance_weighted"), YM, PM, w).compute()
    close(got, SK[cls](YM, PM, sample_weight=w, multioutput="variance_weighted"))


@pytest.mark.parametrize("cls", list(LOG), ids=lambda c: c.__name__)
@pytest.mark.parametrize("multioutput", ["uniform_average", "raw_values"])
def test_log_metrics_match_sklearn(cls, multioutput) -> None:
    got = streamed(cls(multioutput=multioutput), POS_T, POS_P, W).compute()
    close(got, LOG[cls](POS_T, POS_P, sample_weight=W, multioutput=multioutput))


def test_max_error_matches_sklearn() -> None:
    close(streamed(sm.MaxError(), Y1, P1).compute(), skm.max_error(Y1, P1))
    raw = streamed(sm.MaxError(multioutput="raw_values"), YM, PM).compute()
    close(raw, [skm.max_error(YM[:, j], PM[:, j]) for j in range(3)])


def test_pearson_matches_scipy() -> None:
    close(streamed(sm.PearsonR(), Y1, P1).compute(), stats.pearsonr(Y1, P1)[0])
    raw = streamed(sm.PearsonR(multioutput="raw_values"), YM, PM).compute()
    close(raw, [stats.pearsonr(YM[:, j], PM[:, j])[0] for j in range(3)])


def test_adjusted_r2_and_extras_match_formulas() -> None:
    r2 = skm.r2_score(Y1, P1)
    close(streamed(sm.AdjustedR2(n_features=5), Y1, P1).compute(), 1 - (1 - r2) * (N - 1) / (N - 6))
    close(streamed(sm.MeanError(), Y1, P1, W).compute(), np.average(P1 - Y1, weights=W))
    vt, vp = Y1.var(), P1.var()
    cov = np.mean((Y1 - Y1.mean()) * (P1 - P1.mean()))
    close(
        streamed(sm.ConcordanceCorrelation(), Y1, P1).compute(),
        2 * cov / (vt + vp + (Y1.mean() - P1.mean()) ** 2),
    )


@pytest.mark.parametrize("cls", [sm.R2, sm.ExplainedVariance], ids=lambda c: c.__name__)
@pytest.mark.parametrize("force_finite", [True, False])
@pytest.mark.parametrize("multioutput", ["raw_values", "uniform_average", "variance_weighted"])
def test_force_finite_on_constant_targets(cls, force_finite, multioutput) -> None:
    """Constant columns (perfect and imperfect) as scikit-learn: 1.0 / 0.0 or NaN / -inf."""
    y = np.column_stack([np.full(6, 2.0), np.full(6, 2.0), np.arange(6.0)])
    p = np.column_stack([np.full(6, 2.0), np.arange(6.0), np.arange(6.0) + 0.5])
    got = cls(multioutput=multioutput, force_finite=force_finite).update(y, p).compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = SK[cls](y, p, multioutput=multioutput, force_finite=force_finite)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    close(np.nan_to_num(got, nan=7.0), np.nan_to_num(expected, nan=7.0))


def test_one_dimensional_and_single_column_mix() -> None:
    """(n,) and (n, 1) are both one output; raw_values gives shape (1,) as scikit-learn."""
    m = sm.R2(multioutput="raw_values").update(Y1[:100], P1[:100]).update(Y1[100:, None], P1[100:])
    got = m.compute()
    assert got.shape == (1,)
    close(got, skm.r2_score(Y1, P1, multioutput="raw_values"))


def test_inputs_of_other_dtypes_and_containers() -> None:
    import pandas as pd

    y, p = np.arange(10), np.arange(10)[::-1]
    close(sm.MSE().update(pd.Series(y), list(p)).compute(), skm.mean_squared_error(y, p))
    close(sm.MAE().update(y.astype(np.float32), p.astype(np.int8)).compute(), skm.mean_absolute_error(y, p))
    frame = pd.DataFrame(YM)
    close(sm.R2().update(frame, PM).compute(), skm.r2_score(YM, PM))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_batches_larger_than_one_chunk(weighted) -> None:
    """A batch above the scratch-buffer size is reduced in chunks and combined exactly."""
    from streammetrics.regression.moments import CHUNK

    rng = np.random.default_rng(9)
    n = CHUNK + CHUNK // 2 + 17
    y = 1e6 + rng.normal(size=(n, 2))
    p = y + rng.normal(size=(n, 2))
    w = rng.uniform(0.0, 2.0, n) if weighted else None
    close(
        sm.R2(multioutput="raw_values").update(y, p, sample_weight=w).compute(),
        skm.r2_score(y, p, sample_weight=w, multioutput="raw_values"),
        rtol=1e-10,
    )
    close(
        sm.MAPE().update(y[:, 0], p[:, 0], sample_weight=w).compute(),
        skm.mean_absolute_percentage_error(y[:, 0], p[:, 0], sample_weight=w),
    )
