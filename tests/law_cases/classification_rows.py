"""Law cases of the classification metrics on the per-row value state (issue 17): scikit-learn,
SciPy or the documented formula (``math.fsum``) as reference; the agreement with torchmetrics and
torcheval is in ``tests/catalogue/test_peer_agreement.py``."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.spatial.distance import jensenshannon
from scipy.special import softmax
from scipy.stats import entropy
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _quiet(fn):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return wrapped


def _scores(rng, n, k=4):
    y = rng.integers(0, k, n)
    s = rng.standard_normal((n, k)) + np.eye(k)[y]
    s[: n // 3, 0] = s[: n // 3, 1]  # ties, ranked as scikit-learn
    return y, np.round(s, 1)


def _proba(rng, n, k=3):
    y = rng.integers(0, k, n)
    p = rng.dirichlet(np.ones(k), n) + 0.3 * np.eye(k)[y]
    return y, p / p.sum(axis=1, keepdims=True)


def _binary_proba(rng, n):
    y = rng.integers(0, 2, n)
    return y, np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99)


def _targets(rng, n):
    y, p = _binary_proba(rng, n)
    return y.astype(float), p


def _margins(rng, n):
    y = rng.choice([-1, 1], n)
    return y, y * rng.normal(0.8, 1.0, n)


def _labels(rng, n):
    y = rng.integers(0, 3, n)
    return y, np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))


def _multilabel(rng, n):
    y = rng.integers(0, 2, (n, 3))
    return y, np.where(rng.random((n, 3)) < 0.8, y, 1 - y)


def _distributions(rng, n):
    return rng.dirichlet(np.ones(4), n) * 3.0, rng.dirichlet(np.ones(4), n) + 0.01


def _topk(k):
    return _quiet(
        lambda y, s, sample_weight=None: skm.top_k_accuracy_score(
            y, s, k=k, labels=np.arange(s.shape[1]), sample_weight=sample_weight
        )
    )


def _hinge_multi(squared):
    def reference(y, d, sample_weight=None):
        if not squared:
            return skm.hinge_loss(y, d, labels=np.arange(d.shape[1]), sample_weight=sample_weight)
        n = len(y)
        other = d.copy()
        other[np.arange(n), y] = -np.inf
        loss = np.maximum(0, 1 - (d[np.arange(n), y] - other.max(1))) ** 2
        return np.average(loss, weights=sample_weight)

    return _quiet(reference)


def _divergence(name, reduction="mean"):
    """SciPy: ``entropy(p, q)`` (KL of the normalized rows) and ``jensenshannon(p, q) ** 2``."""

    def reference(p, q, sample_weight=None):
        p, q = np.asarray(p, float), np.asarray(q, float)
        if name == "kl":
            per = entropy(p, q, axis=1)
        else:
            per = jensenshannon(p, q, axis=1) ** 2
        w = np.ones(len(p)) if sample_weight is None else np.asarray(sample_weight, float)
        return float(np.average(per, weights=w) if reduction == "mean" else (w * per).sum())

    return reference


def _tokens(rng, n, k=6, padded=False):
    """Token ids and logits (``padded``: some ids are -100, Hugging Face's padding)."""
    y = rng.integers(0, k, n)
    x = 2.0 * rng.standard_normal((n, k)) + np.eye(k)[y]
    if padded:
        y[rng.random(n) < 0.2] = -100
    return y, x


def _perplexity(ignore_index=None):
    """exp of scikit-learn's log loss of the softmax probabilities (SciPy) over the counted rows."""

    def reference(y, x, sample_weight=None):
        y, x = np.asarray(y), np.asarray(x, float)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        keep = (y != ignore_index) & (w > 0)
        if not keep.any():
            return math.nan
        p = softmax(x[keep], axis=1)
        return math.exp(skm.log_loss(y[keep], p, labels=np.arange(x.shape[1]), sample_weight=w[keep]))

    return reference


def _normalized_entropy(y, p, sample_weight=None):
    """scikit-learn's weighted log loss over the entropy (SciPy) of the weighted base rate."""
    rate = np.average(y, weights=sample_weight)
    return skm.log_loss(y, p, sample_weight=sample_weight, labels=[0, 1]) / entropy([rate, 1 - rate])


def _weighted_calibration(y, p, sample_weight=None):
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    return math.fsum(w * np.asarray(p, float)) / math.fsum(w * np.asarray(y, float))


def _d2(fn, k):
    """scikit-learn's score; NaN with one class (scikit-learn's null loss is then 0, its score
    -inf or a huge negative number from its clipping: undefined here, with a warning)."""

    def reference(y, p, sample_weight=None):
        if len(np.unique(y)) < 2:
            return np.nan
        return fn(y, p, sample_weight=sample_weight, labels=np.arange(k))

    return _quiet(reference)


def _hinge_binary(y, d, sample_weight=None):
    """scikit-learn's binary hinge loss with both labels known: a row of each, of weight 0
    (scikit-learn takes the greater label it sees as positive; one label alone is negative)."""
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    return skm.hinge_loss(
        np.concatenate([y, [-1, 1]]),
        np.concatenate([d, [0.0, 0.0]]),
        sample_weight=np.concatenate([w, [0, 0]]),
    )


CASES = [
    LawCase("TopKAccuracy", sm.TopKAccuracy, _scores, _topk(2)),
    LawCase("TopKAccuracy[1]", lambda: sm.TopKAccuracy(1), _scores, _topk(1)),
    LawCase(
        "TopKAccuracy[count]",
        lambda: sm.TopKAccuracy(3, normalize=False),
        _scores,
        _quiet(
            lambda y, s, sample_weight=None: skm.top_k_accuracy_score(
                y, s, k=3, labels=np.arange(4), normalize=False, sample_weight=sample_weight
            )
        ),
    ),
    LawCase("HingeLoss", sm.HingeLoss, _margins, _quiet(_hinge_binary)),
    LawCase("HingeLoss[multiclass]", sm.HingeLoss, _scores, _hinge_multi(False)),
    LawCase("HingeLoss[squared]", lambda: sm.HingeLoss(squared=True), _scores, _hinge_multi(True)),
    LawCase("ZeroOneLoss", sm.ZeroOneLoss, _labels, _quiet(skm.zero_one_loss)),
    LawCase("ZeroOneLoss[multilabel]", sm.ZeroOneLoss, _multilabel, _quiet(skm.zero_one_loss)),
    LawCase(
        "ZeroOneLoss[count]",
        lambda: sm.ZeroOneLoss(normalize=False),
        _labels,
        _quiet(
            lambda y, p, sample_weight=None: skm.zero_one_loss(
                y, p, normalize=False, sample_weight=sample_weight
            )
        ),
    ),
    LawCase("KLDivergence", sm.KLDivergence, _distributions, _divergence("kl")),
    LawCase(
        "KLDivergence[sum]",
        lambda: sm.KLDivergence(reduction="sum"),
        _distributions,
        _divergence("kl", "sum"),
    ),
    LawCase("JensenShannonDivergence", sm.JensenShannonDivergence, _distributions, _divergence("js")),
    LawCase("NormalizedEntropy", sm.NormalizedEntropy, _binary_proba, _normalized_entropy),
    LawCase("WeightedCalibration", sm.WeightedCalibration, _targets, _weighted_calibration),
    LawCase("D2LogLossScore", sm.D2LogLossScore, _binary_proba, _d2(skm.d2_log_loss_score, 2), min_rows=2),
    LawCase(
        "D2LogLossScore[multiclass]", sm.D2LogLossScore, _proba, _d2(skm.d2_log_loss_score, 3), min_rows=2
    ),
    LawCase("D2BrierScore", sm.D2BrierScore, _binary_proba, _d2(skm.d2_brier_score, 2), min_rows=2),
    LawCase("D2BrierScore[multiclass]", sm.D2BrierScore, _proba, _d2(skm.d2_brier_score, 3), min_rows=2),
    LawCase("Perplexity", sm.Perplexity, _tokens, _perplexity()),
    LawCase(
        "Perplexity[ignore_index]",
        lambda: sm.Perplexity(ignore_index=-100),
        lambda rng, n: _tokens(rng, n, padded=True),
        _perplexity(-100),
    ),
]
