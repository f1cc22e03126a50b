"""Law cases of the probabilistic family: scikit-learn or the textbook formula as reference."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)


def _logits(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, rng.normal(size=n) * 2 + y


def _multiclass(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n)
    p[np.arange(n), y] += 0.3
    return y, p / p.sum(axis=1, keepdims=True)


COSTS = np.array([[0.0, 1.0, 0.3], [5.0, 0.0, 0.3], [2.0, 2.0, 0.3]])  # 3 classes x (2 decisions + reject)


def _decisions(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.integers(0, 3, n), rng.integers(0, 3, n)


def _weights(y, sample_weight):
    return np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)


def _ece(n_bins, norm):
    """Textbook binned calibration error on sklearn's uniform edges (positive-class probability)."""

    def ref(y, p, sample_weight=None):
        w = _weights(y, sample_weight)
        if w.sum() == 0:
            return np.nan
        edges = np.linspace(0, 1, n_bins + 1)
        b = np.searchsorted(edges[1:-1], p)
        gaps, mass = [], []
        for k in range(n_bins):
            sel = b == k
            if w[sel].sum() > 0:
                gaps.append(abs(np.average(y[sel], weights=w[sel]) - np.average(p[sel], weights=w[sel])))
                mass.append(w[sel].sum() / w.sum())
        gaps, mass = np.array(gaps), np.array(mass)
        return {"l1": np.sum(mass * gaps), "l2": np.sqrt(np.sum(mass * gaps**2)), "max": gaps.max()}[norm]

    return ref


def _top_label_ece(y, p, sample_weight=None):
    conf, hit = p.max(axis=1), (p.argmax(axis=1) == y).astype(float)
    return _ece(10, "l1")(hit, conf, sample_weight=sample_weight)


def _ec(priors=None, normalize=False, posteriors=False):
    """Textbook empirical expected cost: sum_c sum_d C[c,d] P_c R_cd."""

    def ref(y, d, sample_weight=None):
        w = _weights(y, sample_weight)
        if posteriors:
            d = np.argmin(d @ COSTS, axis=1)
        k = COSTS.shape[0]
        n_c = np.array([w[y == c].sum() for c in range(k)])
        p = n_c / n_c.sum() if priors is None else np.asarray(priors)
        if priors is not None and np.any(n_c == 0):
            return np.nan
        total = 0.0
        for c in range(k):
            for j in range(COSTS.shape[1]):
                if n_c[c] > 0:
                    total += COSTS[c, j] * p[c] * w[(y == c) & (d == j)].sum() / n_c[c]
        if normalize:
            total /= min(sum(COSTS[c, j] * p[c] for c in range(k)) for j in range(COSTS.shape[1]))
        return total

    return ref


def _log_loss(y, p, sample_weight=None):
    return skm.log_loss(y, p, sample_weight=sample_weight, labels=[0, 1, 2] if np.ndim(p) == 2 else [0, 1])


CASES: list[LawCase] = [
    # pos_label=1: the reference's labels=[0, 1] fixes the positive class before both labels are seen
    LawCase("LogLoss[binary]", lambda: sm.LogLoss(pos_label=1), _binary, _log_loss),
    LawCase("LogLoss[multiclass]", sm.LogLoss, _multiclass, _log_loss),
    LawCase(
        "LogLoss[score]",
        lambda: sm.LogLoss(input="score", pos_label=1),
        _logits,
        lambda y, x, sample_weight=None: skm.log_loss(
            y, 1 / (1 + np.exp(-x)), sample_weight=sample_weight, labels=[0, 1]
        ),
        rtol=1e-7,
    ),
    LawCase(
        "BrierScore[binary]",
        sm.BrierScore,
        _binary,
        lambda y, p, sample_weight=None: skm.brier_score_loss(
            y, p, sample_weight=sample_weight, labels=[0, 1]
        ),
    ),
    LawCase(
        "BrierScore[multiclass]",
        sm.BrierScore,
        _multiclass,
        lambda y, p, sample_weight=None: skm.brier_score_loss(
            y, p, sample_weight=sample_weight, labels=[0, 1, 2]
        ),
    ),
    LawCase("CalibrationError[l1]", lambda: sm.CalibrationError(n_bins=10), _binary, _ece(10, "l1")),
    LawCase("CalibrationError[l2]", lambda: sm.CalibrationError(n_bins=5, norm="l2"), _binary, _ece(5, "l2")),
    LawCase(
        "CalibrationError[max]", lambda: sm.CalibrationError(n_bins=7, norm="max"), _binary, _ece(7, "max")
    ),
    LawCase(
        "CalibrationError[top-label]", lambda: sm.CalibrationError(n_bins=10), _multiclass, _top_label_ece
    ),
    LawCase(
        "CalibrationError[quantile]", lambda: sm.CalibrationError(n_bins=4, strategy="quantile"), _binary
    ),
    LawCase("ExpectedCost[decisions]", lambda: sm.ExpectedCost(COSTS), _decisions, _ec(), exact=True),
    LawCase("ExpectedCost[posteriors]", lambda: sm.ExpectedCost(COSTS), _multiclass, _ec(posteriors=True)),
    LawCase(
        "ExpectedCost[priors-normalized]",
        lambda: sm.ExpectedCost(COSTS, priors=[0.5, 0.3, 0.2], normalize=True),
        _decisions,
        _ec(priors=[0.5, 0.3, 0.2], normalize=True),
    ),
]
