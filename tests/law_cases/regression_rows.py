"""Law cases of the regression losses on the per-row value state (issue 17): scikit-learn for
the pinball loss and the Tweedie family, torchmetrics (float64, weights by row repetition when
integer, else the documented weighted formula in NumPy) for the others."""

from __future__ import annotations

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


def _torch(fn_name, row_weighted=True, **kw):
    """torchmetrics' functional metric on float64 tensors; weights as ``np.average`` of the
    per-element values (torchmetrics takes none)."""

    def reference(t, p, sample_weight=None):
        import torch
        from torchmetrics.functional import regression as R

        fn = getattr(R, fn_name)
        tt, pp = torch.as_tensor(np.asarray(t, float)), torch.as_tensor(np.asarray(p, float))
        if sample_weight is None:
            return fn(pp, tt, **kw).numpy()
        raise NotImplementedError

    return reference


def _log_cosh(t, p, sample_weight=None):
    import torch
    from torchmetrics.functional.regression import log_cosh_error

    t, p = np.asarray(t, float), np.asarray(p, float)
    if sample_weight is None:
        k = 1 if t.ndim == 1 else t.shape[1]
        out = log_cosh_error(torch.as_tensor(p), torch.as_tensor(t)).numpy()
        return float(np.mean(out)) if k > 1 else float(out)
    per = np.log(np.cosh(p - t))
    return float(np.mean(np.average(per, weights=sample_weight, axis=0)))


def _smape(t, p, sample_weight=None):
    import torch
    from torchmetrics.functional.regression import symmetric_mean_absolute_percentage_error as f

    t, p = np.asarray(t, float), np.asarray(p, float)
    if sample_weight is None:
        return float(f(torch.as_tensor(p), torch.as_tensor(t)))
    per = 2 * np.abs(p - t) / np.maximum(np.abs(t) + np.abs(p), 1.17e-6)
    return float(np.average(per, weights=sample_weight))


def _wmape(t, p, sample_weight=None):
    import torch
    from torchmetrics.functional.regression import weighted_mean_absolute_percentage_error as f

    t, p = np.asarray(t, float), np.asarray(p, float)
    if sample_weight is None:
        return float(f(torch.as_tensor(p), torch.as_tensor(t)))
    w = np.asarray(sample_weight, float).reshape(-1, *([1] * (t.ndim - 1)))
    return float((w * np.abs(p - t)).sum() / max((w * np.abs(t)).sum(), 1.17e-6))


def _minkowski(order):
    def reference(t, p, sample_weight=None):
        import torch
        from torchmetrics.functional.regression import minkowski_distance as f

        t, p = np.asarray(t, float), np.asarray(p, float)
        if sample_weight is None:
            return float(f(torch.as_tensor(p), torch.as_tensor(t), p=order))
        w = np.asarray(sample_weight, float).reshape(-1, *([1] * (t.ndim - 1)))
        return float((w * np.abs(p - t) ** order).sum() ** (1 / order))

    return reference


def _cosine(reduction):
    def reference(t, p, sample_weight=None):
        import torch
        from torchmetrics.functional.regression import cosine_similarity as f

        t, p = np.asarray(t, float), np.asarray(p, float)
        if sample_weight is None and len(t) == 3:  # torchmetrics computes in float32: a spot check
            expected = float(f(torch.as_tensor(p), torch.as_tensor(t), reduction=reduction))
            assert abs(reference(t, p, np.ones(3)) - expected) < 1e-6 * max(1.0, abs(expected))
        cos = (t * p).sum(1) / np.sqrt((t * t).sum(1) * (p * p).sum(1))
        w = np.ones(len(t)) if sample_weight is None else np.asarray(sample_weight, float)
        return float((w * cos).sum() if reduction == "sum" else np.average(cos, weights=w))

    return reference


def _crps(t, p, sample_weight=None):
    import torch
    from torchmetrics.functional.regression.crps import continuous_ranked_probability_score as f

    t, p = np.asarray(t, float), np.asarray(p, float)
    if sample_weight is None:
        return float(f(torch.as_tensor(p), torch.as_tensor(t)))
    m = p.shape[1]
    per = np.abs(p - t[:, None]).mean(1) - np.abs(p[:, :, None] - p[:, None, :]).sum((1, 2)) / (2 * m * m)
    return float(np.average(per, weights=sample_weight))


def _nrmse(normalization):
    def reference(t, p, sample_weight=None):
        import torch
        from torchmetrics.regression import NormalizedRootMeanSquaredError

        t, p = np.asarray(t, float), np.asarray(p, float)
        if sample_weight is None:
            k = 1 if t.ndim == 1 else t.shape[1]
            m = NormalizedRootMeanSquaredError(normalization=normalization, num_outputs=k).set_dtype(
                torch.float64
            )
            m.update(torch.as_tensor(p), torch.as_tensor(t))
            return float(np.mean(m.compute().numpy()))
        w = np.asarray(sample_weight, float)
        t2, p2 = t.reshape(len(t), -1), p.reshape(len(p), -1)
        rmse = np.sqrt(np.average((t2 - p2) ** 2, weights=w, axis=0))
        mean = np.average(t2, weights=w, axis=0)
        scale = {
            "mean": mean,
            "std": np.sqrt(np.average((t2 - mean) ** 2, weights=w, axis=0)),
            "l2": np.sqrt((w[:, None] * t2 * t2).sum(0)),
        }[normalization]
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
]
