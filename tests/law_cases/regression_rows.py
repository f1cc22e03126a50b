"""Law cases of the regression losses on the per-row value state (issue 17): scikit-learn for
the pinball loss and the Tweedie family, the documented formulas written independently in NumPy
(``math.fsum`` for sums) for the others; the agreement with torchmetrics and river is in
``tests/catalogue/test_peer_agreement.py``."""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _single(rng, n):
    t = 5.0 + 3.0 * rng.standard_normal(n)
    return t, t + 0.3 + rng.standard_normal(n)


def _multi(rng, n):
    t = np.array([0.0, 100.0, -3.0]) + rng.standard_normal((n, 3))
    return t, t + 0.2 + 0.7 * rng.standard_normal((n, 3))


def _positive(rng, n):
    t = rng.gamma(2.0, 2.0, n)
    return t, t * rng.uniform(0.5, 1.5, n) + 0.01


def _counts(rng, n):
    return rng.poisson(2.0, n).astype(float), rng.gamma(2.0, 1.0, n) + 0.05


def _vectors(rng, n):
    return rng.standard_normal((n, 4)) + 0.5, rng.standard_normal((n, 4)) + 0.5


def _ensemble(rng, n):
    return rng.standard_normal(n), rng.standard_normal((n, 5))


def _quiet(fn):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return wrapped


def _sk(fn, **kw):
    return _quiet(lambda t, p, sample_weight=None: fn(t, p, sample_weight=sample_weight, **kw))


def _weights(t, sample_weight) -> np.ndarray:
    return np.ones(len(t)) if sample_weight is None else np.asarray(sample_weight, float)


def _per_element_weights(t, sample_weight) -> np.ndarray:
    """Each row's weight, shaped to broadcast over the row's values."""
    t = np.asarray(t)
    return _weights(t, sample_weight).reshape(-1, *([1] * (t.ndim - 1)))


def _log_cosh(t, p, sample_weight=None):
    """``log(cosh(r))`` as written (the metric computes it without overflow), per output."""
    t, p = np.asarray(t, float), np.asarray(p, float)
    per = np.log(np.cosh(p - t)).reshape(len(t), -1)
    return float(np.mean(np.average(per, weights=_weights(t, sample_weight), axis=0)))


def _smape(t, p, sample_weight=None):
    t, p = np.asarray(t, float), np.asarray(p, float)
    per = 2 * np.abs(p - t) / np.maximum(np.abs(t) + np.abs(p), 1.17e-6)
    return float(np.average(per.reshape(len(t), -1).mean(1), weights=_weights(t, sample_weight)))


def _wmape(t, p, sample_weight=None):
    """torchmetrics' ``sum |p - t| / max(sum |t|, 1.17e-6)``, weighted sums; the clamp times the
    mean row weight (1 without weights)."""
    t, p = np.asarray(t, float), np.asarray(p, float)
    w = _per_element_weights(t, sample_weight) * np.ones_like(t)
    clamp = 1.17e-6 * float(np.mean(_weights(t, sample_weight)))
    return math.fsum((w * np.abs(p - t)).ravel()) / max(math.fsum((w * np.abs(t)).ravel()), clamp)


def _minkowski(order):
    def reference(t, p, sample_weight=None):
        t, p = np.asarray(t, float), np.asarray(p, float)
        w = _per_element_weights(t, sample_weight) * np.ones_like(t)
        return math.fsum((w * np.abs(p - t) ** order).ravel()) ** (1 / order)

    return reference


def _cosine(reduction):
    def reference(t, p, sample_weight=None):
        t, p = np.asarray(t, float), np.asarray(p, float)
        cos = np.array([a @ b / math.sqrt((a @ a) * (b @ b)) for a, b in zip(t, p, strict=True)])
        w = _weights(t, sample_weight)
        return float((w * cos).sum() if reduction == "sum" else np.average(cos, weights=w))

    return reference


def _crps(t, p, sample_weight=None):
    """Every pair of ensemble members (O(m^2); the metric sorts)."""
    t, p = np.asarray(t, float), np.asarray(p, float)
    m = p.shape[1]
    per = np.abs(p - t[:, None]).mean(1) - np.abs(p[:, :, None] - p[:, None, :]).sum((1, 2)) / (2 * m * m)
    return float(np.average(per, weights=_weights(t, sample_weight)))


def _nrmse(normalization):
    def reference(t, p, sample_weight=None):
        t, p = np.asarray(t, float), np.asarray(p, float)
        w = _weights(t, sample_weight)
        t2, p2 = t.reshape(len(t), -1), p.reshape(len(p), -1)
        rmse = np.sqrt(np.average((t2 - p2) ** 2, weights=w, axis=0))
        mean = np.average(t2, weights=w, axis=0)
        scale = {
            "mean": lambda: mean,
            "std": lambda: np.sqrt(np.average((t2 - mean) ** 2, weights=w, axis=0)),
            "l2": lambda: np.sqrt((w[:, None] * t2 * t2).sum(0)),
            "range": lambda: t2[w > 0].max(0) - t2[w > 0].min(0),
        }[normalization]()
        return float(np.mean(rmse / scale))

    return reference


CASES = [
    LawCase("PinballLoss", sm.PinballLoss, _single, _sk(skm.mean_pinball_loss)),
    LawCase(
        "PinballLoss[0.9-multi]", lambda: sm.PinballLoss(0.9), _multi, _sk(skm.mean_pinball_loss, alpha=0.9)
    ),
    LawCase(
        "PinballLoss[raw]",
        lambda: sm.PinballLoss(0.3, multioutput="raw_values"),
        _multi,
        _sk(skm.mean_pinball_loss, alpha=0.3, multioutput="raw_values"),
    ),
    LawCase("TweedieDeviance", sm.TweedieDeviance, _single, _sk(skm.mean_tweedie_deviance)),
    LawCase(
        "TweedieDeviance[1.5]",
        lambda: sm.TweedieDeviance(1.5),
        _counts,
        _sk(skm.mean_tweedie_deviance, power=1.5),
    ),
    LawCase(
        "TweedieDeviance[3]",
        lambda: sm.TweedieDeviance(3),
        _positive,
        _sk(skm.mean_tweedie_deviance, power=3),
    ),
    LawCase(
        "TweedieDeviance[-1]",
        lambda: sm.TweedieDeviance(-1),
        _positive,
        _sk(skm.mean_tweedie_deviance, power=-1),
    ),
    LawCase("PoissonDeviance", sm.PoissonDeviance, _counts, _sk(skm.mean_poisson_deviance)),
    LawCase("GammaDeviance", sm.GammaDeviance, _positive, _sk(skm.mean_gamma_deviance)),
    LawCase(
        "D2TweedieScore", sm.D2TweedieScore, _single, _sk(skm.d2_tweedie_score), min_rows=2, revert_rtol=1e-6
    ),
    LawCase(
        "D2TweedieScore[1]",
        lambda: sm.D2TweedieScore(1),
        _counts,
        _sk(skm.d2_tweedie_score, power=1),
        min_rows=2,
        revert_rtol=1e-6,
    ),
    LawCase(
        "D2TweedieScore[2]",
        lambda: sm.D2TweedieScore(2),
        _positive,
        _sk(skm.d2_tweedie_score, power=2),
        min_rows=2,
        revert_rtol=1e-6,
    ),
    LawCase(
        "D2TweedieScore[2.5]",
        lambda: sm.D2TweedieScore(2.5),
        _positive,
        _sk(skm.d2_tweedie_score, power=2.5),
        min_rows=2,
        revert_rtol=1e-6,
    ),
    LawCase("LogCoshError", sm.LogCoshError, _single, _log_cosh),
    LawCase("LogCoshError[multi]", sm.LogCoshError, _multi, _log_cosh),
    LawCase("SMAPE", sm.SMAPE, _single, _smape),
    LawCase("WMAPE[multi]", sm.WMAPE, _multi, _wmape),
    LawCase("MinkowskiDistance", lambda: sm.MinkowskiDistance(3), _single, _minkowski(3.0)),
    LawCase("CosineSimilarity", sm.CosineSimilarity, _vectors, _cosine("sum")),
    LawCase("CosineSimilarity[mean]", lambda: sm.CosineSimilarity("mean"), _vectors, _cosine("mean")),
    LawCase("CRPS", sm.CRPS, _ensemble, _crps),
    LawCase("NRMSE", sm.NRMSE, _single, _nrmse("mean"), revert_rtol=1e-6),
    LawCase("NRMSE[std-multi]", lambda: sm.NRMSE("std"), _multi, _nrmse("std"), min_rows=2, revert_rtol=1e-6),
    LawCase("NRMSE[l2]", lambda: sm.NRMSE("l2"), _single, _nrmse("l2"), revert_rtol=1e-6),
    LawCase("NRMSE[range-multi]", lambda: sm.NRMSE("range"), _multi, _nrmse("range"), min_rows=2),
]
