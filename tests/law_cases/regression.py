"""Law cases of the regression family, with scikit-learn / SciPy / NumPy formulas as reference."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
from scipy import stats
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _single(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = 5.0 + 3.0 * rng.standard_normal(n)
    return t, t + 0.3 + rng.standard_normal(n)


def _multi(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    scale = np.array([1.0, 10.0, 0.1])
    t = np.array([0.0, 100.0, -3.0]) + scale * rng.standard_normal((n, 3))
    return t, t + scale * (0.2 + 0.7 * rng.standard_normal((n, 3)))


def _positive(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = rng.gamma(2.0, 2.0, n)
    return t, t * rng.uniform(0.5, 1.5, n)


def _positive_multi(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = rng.gamma(2.0, 2.0, (n, 2))
    return t, t * rng.uniform(0.5, 1.5, (n, 2))


def _offset(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = 1e9 + rng.standard_normal(n)
    return t, t + 0.5 * rng.standard_normal(n)


def _float32(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t, p = _single(rng, n)
    return t.astype(np.float32), p.astype(np.float32)


def _quiet(fn):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return wrapped


def _sk(fn, **kw):
    return _quiet(lambda t, p, sample_weight=None: fn(t, p, sample_weight=sample_weight, **kw))


def _max_error(t, p, sample_weight=None):
    keep = np.ones(len(t), bool) if sample_weight is None else np.asarray(sample_weight) > 0
    return skm.max_error(np.asarray(t)[keep], np.asarray(p)[keep])


def _max_error_raw(t, p, sample_weight=None):
    keep = np.ones(len(t), bool) if sample_weight is None else np.asarray(sample_weight) > 0
    return np.array([skm.max_error(t[keep, j], p[keep, j]) for j in range(t.shape[1])])


def _adjusted(n_features, **kw):
    def ref(t, p, sample_weight=None):
        n = len(t) if sample_weight is None else float(np.sum(sample_weight))
        r2 = skm.r2_score(t, p, sample_weight=sample_weight, multioutput="raw_values", **kw)
        adj = 1.0 - (1.0 - r2) * (n - 1.0) / (n - n_features - 1.0)
        return float(np.mean(adj))

    return _quiet(ref)


def _pearson(t, p, sample_weight=None):
    if sample_weight is None:
        return stats.pearsonr(t, p)[0]
    c = np.cov(t, p, aweights=sample_weight)  # NumPy's weighted covariance, normalisation cancels
    return c[0, 1] / np.sqrt(c[0, 0] * c[1, 1])


def _pearson_raw(t, p, sample_weight=None):
    return np.array([_pearson(t[:, j], p[:, j], sample_weight) for j in range(t.shape[1])])


def _ccc(t, p, sample_weight=None):
    mt, mp = np.average(t, weights=sample_weight), np.average(p, weights=sample_weight)
    vt = np.average((t - mt) ** 2, weights=sample_weight)
    vp = np.average((p - mp) ** 2, weights=sample_weight)
    cov = np.average((t - mt) * (p - mp), weights=sample_weight)
    return 2 * cov / (vt + vp + (mt - mp) ** 2)


def _mean_error(t, p, sample_weight=None):
    return np.average(np.asarray(p) - np.asarray(t), weights=sample_weight)


CASES: list[LawCase] = [
    LawCase("MAE", sm.MAE, _single, _sk(skm.mean_absolute_error)),
    LawCase(
        "MAE[multi-weights]",
        lambda: sm.MAE(multioutput=[1.0, 2.0, 0.5]),
        _multi,
        _sk(skm.mean_absolute_error, multioutput=[1.0, 2.0, 0.5]),
    ),
    LawCase("MSE", sm.MSE, _single, _sk(skm.mean_squared_error)),
    LawCase(
        "MSE[raw_values]",
        lambda: sm.MSE(multioutput="raw_values"),
        _multi,
        _sk(skm.mean_squared_error, multioutput="raw_values"),
    ),
    LawCase(
        "MSE[float32]",
        sm.MSE,
        _float32,
        _quiet(
            lambda t, p, sample_weight=None: skm.mean_squared_error(
                t.astype(np.float64), p.astype(np.float64), sample_weight=sample_weight
            )
        ),
    ),
    LawCase("RMSE", sm.RMSE, _single, _sk(skm.root_mean_squared_error)),
    LawCase("RMSE[multi]", sm.RMSE, _multi, _sk(skm.root_mean_squared_error)),
    LawCase("MSLE", sm.MSLE, _positive, _sk(skm.mean_squared_log_error)),
    LawCase("RMSLE", sm.RMSLE, _positive, _sk(skm.root_mean_squared_log_error)),
    LawCase(
        "RMSLE[raw_values]",
        lambda: sm.RMSLE(multioutput="raw_values"),
        _positive_multi,
        _sk(skm.root_mean_squared_log_error, multioutput="raw_values"),
    ),
    LawCase("MAPE", sm.MAPE, _positive, _sk(skm.mean_absolute_percentage_error)),
    LawCase("MAPE[signed]", sm.MAPE, _single, _sk(skm.mean_absolute_percentage_error)),
    LawCase("MaxError", sm.MaxError, _single, _max_error),
    LawCase("MaxError[raw_values]", lambda: sm.MaxError(multioutput="raw_values"), _multi, _max_error_raw),
    LawCase("MeanError", sm.MeanError, _single, _mean_error),
    LawCase("R2", sm.R2, _single, _sk(skm.r2_score), min_rows=2),
    LawCase(
        "R2[raw_values]",
        lambda: sm.R2(multioutput="raw_values"),
        _multi,
        _sk(skm.r2_score, multioutput="raw_values"),
        min_rows=2,
    ),
    LawCase(
        "R2[variance_weighted]",
        lambda: sm.R2(multioutput="variance_weighted"),
        _multi,
        _sk(skm.r2_score, multioutput="variance_weighted"),
        min_rows=2,
    ),
    LawCase(
        "R2[no-force_finite]",
        lambda: sm.R2(force_finite=False),
        _single,
        _sk(skm.r2_score, force_finite=False),
        min_rows=2,
    ),
    LawCase("R2[offset-1e9]", sm.R2, _offset, _sk(skm.r2_score), min_rows=2, rtol=1e-9),
    LawCase(
        "R2[float32]",
        sm.R2,
        _float32,
        _quiet(
            lambda t, p, sample_weight=None: skm.r2_score(
                t.astype(np.float64), p.astype(np.float64), sample_weight=sample_weight
            )
        ),
        min_rows=2,
    ),
    LawCase("AdjustedR2", lambda: sm.AdjustedR2(n_features=2), _single, _adjusted(2), min_rows=4),
    LawCase(
        "ExplainedVariance", sm.ExplainedVariance, _single, _sk(skm.explained_variance_score), min_rows=2
    ),
    LawCase(
        "ExplainedVariance[variance_weighted]",
        lambda: sm.ExplainedVariance(multioutput="variance_weighted"),
        _multi,
        _sk(skm.explained_variance_score, multioutput="variance_weighted"),
        min_rows=2,
    ),
    LawCase("PearsonR", sm.PearsonR, _single, _pearson, min_rows=2),
    LawCase("PearsonR[offset-1e9]", sm.PearsonR, _offset, _pearson, min_rows=2, rtol=1e-9),
    LawCase(
        "PearsonR[raw_values]",
        lambda: sm.PearsonR(multioutput="raw_values"),
        _multi,
        _pearson_raw,
        min_rows=2,
    ),
    LawCase("ConcordanceCorrelation", sm.ConcordanceCorrelation, _single, _ccc),
]

# Reverting subtracts moments: the remainder keeps an absolute error of about one ulp of the
# removed part, so a tiny remainder (2 rows after 90 were removed) is exact only to ~1e-9.
CASES = [replace(case, revert_rtol=1e-7) for case in CASES]
