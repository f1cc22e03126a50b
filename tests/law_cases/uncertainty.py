"""Law cases of the uncertainty family: McNemar's counts, and the Bootstrap's deterministic part.

The Bootstrap's replicates are random and a replicate stream may not be merged with itself
(that raises MergeError), so the exact laws (split = whole, merge = concatenation) hold for its
estimate but, for the interval, only in distribution. The law table therefore runs the Bootstrap
with ``n_replicates=0`` (estimate and protocol only); ``tests/uncertainty/test_bootstrap.py``
checks the replicates (exact merges of replicate tensors, reproducible streams, weighted draws
against scikit-learn, coverage by simulation).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _paired(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    return y, a, b


def _mcnemar_ref(exact, correction=True):
    def ref(y, a, b, sample_weight=None):
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        a_ok, b_ok = a == y, b == y
        n10, n01 = float(w[a_ok & ~b_ok].sum()), float(w[~a_ok & b_ok].sum())
        if w.sum() == 0:
            return {"statistic": np.nan, "pvalue": np.nan, "b": np.nan, "c": np.nan}
        whole = n10 == round(n10) and n01 == round(n01)
        use_exact = (whole and n10 + n01 < 25) if exact is None else (exact and whole)
        if use_exact:
            k, n = round(min(n10, n01)), round(n10 + n01)
            p = stats.binomtest(k, n, 0.5).pvalue if n else 1.0
            return {"statistic": float(k), "pvalue": p, "b": n10, "c": n01}
        if n10 + n01 == 0:
            return {"statistic": 0.0, "pvalue": 1.0, "b": n10, "c": n01}
        d = abs(n10 - n01)
        d = max(d - 1.0, 0.0) if correction else d
        stat = d * d / (n10 + n01)
        return {"statistic": stat, "pvalue": stats.chi2.sf(stat, 1), "b": n10, "c": n01}

    return ref


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.75, y, 1 - y)


def _accuracy_estimate(y, p, sample_weight=None):
    w = None if sample_weight is None else np.asarray(sample_weight, float)
    value = skm.accuracy_score(y, p, sample_weight=w) if len(y) and (w is None or w.sum() > 0) else np.nan
    return {"estimate": value, "low": np.nan, "high": np.nan, "level": 0.95, "method": "percentile bootstrap"}


def _regression(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = rng.standard_normal(n)
    return t, t + 0.5 * rng.standard_normal(n)


def _mse_estimate(y, p, sample_weight=None):
    value = skm.mean_squared_error(y, p, sample_weight=sample_weight)
    return {"estimate": value, "low": np.nan, "high": np.nan, "level": 0.9, "method": "percentile bootstrap"}


CASES = [
    LawCase("McNemar", sm.McNemar, _paired, _mcnemar_ref(None), rtol=1e-9),
    LawCase("McNemar-chi2", lambda: sm.McNemar(exact=False), _paired, _mcnemar_ref(False)),
    LawCase(
        "McNemar-exact-uncorrected",
        lambda: sm.McNemar(exact=True, correction=False),
        _paired,
        _mcnemar_ref(True, correction=False),
    ),
    LawCase(
        "Bootstrap-Accuracy-R0", lambda: sm.Bootstrap(sm.Accuracy(), 0, seed=1), _binary, _accuracy_estimate
    ),
    LawCase(
        "Bootstrap-MSE-R0", lambda: sm.Bootstrap(sm.MSE(), 0, seed=1, level=0.9), _regression, _mse_estimate
    ),
]
