"""Keras' metrics against the streammetrics configurations the coming-from page gives for them
(``docs/_ext/peers.toml``), on the same data: Keras (torch backend) fed whole arrays,
streammetrics in several batches. Keras computes in float32, hence ``rtol=1e-6``. The notes of
the page are checked too: where a Keras name needs another configuration (``BinaryIoU``'s two
classes, ``CosineSimilarity``'s mean, percent ``MAPE``, the root of the pooled ``MSE``), the
configuration given reproduces Keras' value. Keras' threshold-grid metrics (``AUC``, the
operating points at ``num_thresholds``) approximate the exact values and are left out. Keras
comes with torch on CI (``tests/integrations/frameworks.py``): missing, the tests skip locally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same, fed_in_batches
from tests.integrations.frameworks import require_torch_framework
from tests.peer_data import K, N, binary, class_probabilities, labels, regression


def _one_hot(y: np.ndarray) -> np.ndarray:
    return np.eye(K)[y]


def _binary_scores() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, N)
    return y, rng.normal(size=N) + y


def _positive_regression() -> tuple[np.ndarray, np.ndarray]:
    t, p = regression()
    return np.abs(t), np.abs(p)


def _one_output() -> tuple[np.ndarray, np.ndarray]:
    t, p = regression()
    return t[:, 0], p[:, 0]


def _distributions() -> tuple[np.ndarray, np.ndarray]:
    _, p = class_probabilities()
    return p, np.roll(p, 1, axis=0)


def _keras(name: str, truth: Callable[[np.ndarray], np.ndarray] | None = None, **kwargs: Any) -> Callable:
    """Keras' ``metrics.name(**kwargs)`` over the whole arrays (``truth``: how Keras takes
    ``y_true``, e.g. one-hot)."""

    def peer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        keras = require_torch_framework("keras")
        metric = getattr(keras.metrics, name)(**kwargs)
        metric.update_state(truth(a) if truth else a, b)
        return np.asarray(metric.result(), dtype=float)

    return peer


CASES: list[tuple[str, Callable, Callable, Callable]] = [
    ("Accuracy", sm.Accuracy, labels, _keras("Accuracy")),
    ("BinaryAccuracy", lambda: sm.Accuracy(threshold=0.5), binary, _keras("BinaryAccuracy")),
    ("CategoricalAccuracy", sm.Accuracy, class_probabilities, _keras("CategoricalAccuracy", _one_hot)),
    ("SparseCategoricalAccuracy", sm.Accuracy, class_probabilities, _keras("SparseCategoricalAccuracy")),
    ("BinaryCrossentropy", sm.LogLoss, binary, _keras("BinaryCrossentropy")),
    (
        "CategoricalCrossentropy",
        sm.LogLoss,
        class_probabilities,
        _keras("CategoricalCrossentropy", _one_hot),
    ),
    (
        "SparseCategoricalCrossentropy",
        sm.LogLoss,
        class_probabilities,
        _keras("SparseCategoricalCrossentropy"),
    ),
    (
        "CategoricalHinge (probabilities)",
        sm.HingeLoss,
        class_probabilities,
        _keras("CategoricalHinge", _one_hot),
    ),
    ("Hinge", sm.HingeLoss, _binary_scores, _keras("Hinge")),
    ("SquaredHinge", lambda: sm.HingeLoss(squared=True), _binary_scores, _keras("SquaredHinge")),
    ("KLDivergence", sm.KLDivergence, _distributions, _keras("KLDivergence")),
    ("LogCoshError", sm.LogCoshError, regression, _keras("LogCoshError")),
    ("MeanAbsoluteError", sm.MAE, regression, _keras("MeanAbsoluteError")),
    ("MeanSquaredError", sm.MSE, regression, _keras("MeanSquaredError")),
    ("MeanSquaredLogarithmicError", sm.MSLE, _positive_regression, _keras("MeanSquaredLogarithmicError")),
    ("RootMeanSquaredError (1-D)", sm.RMSE, _one_output, _keras("RootMeanSquaredError")),
    ("R2Score", sm.R2, regression, _keras("R2Score")),
    ("PearsonCorrelation", sm.PearsonR, _one_output, _keras("PearsonCorrelation")),
    ("ConcordanceCorrelation", sm.ConcordanceCorrelation, _one_output, _keras("ConcordanceCorrelation")),
    (
        "CosineSimilarity",
        lambda: sm.CosineSimilarity(reduction="mean"),
        regression,
        _keras("CosineSimilarity"),
    ),
    ("Precision", lambda: sm.Precision(threshold=0.5), binary, _keras("Precision")),
    ("Recall", lambda: sm.Recall(threshold=0.5), binary, _keras("Recall")),
    ("F1Score", lambda: sm.F1(average=None), class_probabilities, _keras("F1Score", _one_hot)),
    (
        "F1Score[macro]",
        lambda: sm.F1(average="macro"),
        class_probabilities,
        _keras("F1Score", _one_hot, average="macro"),
    ),
    (
        "FBetaScore[macro]",
        lambda: sm.FBeta(2.0, average="macro"),
        class_probabilities,
        _keras("FBetaScore", _one_hot, beta=2.0, average="macro"),
    ),
    ("MeanIoU", lambda: sm.Jaccard(average="macro"), labels, _keras("MeanIoU", num_classes=K)),
    (
        "BinaryIoU",
        lambda: sm.Jaccard(threshold=0.5, average="macro"),
        binary,
        _keras("BinaryIoU"),
    ),
    (
        "SparseTopKCategoricalAccuracy",
        lambda: sm.TopKAccuracy(2),
        class_probabilities,
        _keras("SparseTopKCategoricalAccuracy", k=2),
    ),
]


@pytest.mark.parametrize(("make", "data", "peer"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_keras_agrees(make, data, peer) -> None:
    a, b = data()
    ours = fed_in_batches(make, (a, b), defined=True)
    assert_same(np.asarray(ours, float), peer(a, b), rtol=1e-6, atol=1e-7)


def test_keras_per_class_iou_and_percent_mape_and_pooled_rmse_are_the_configurations_noted() -> None:
    """The page's notes: IoU's value is the mean of its target classes' Jaccard values, Keras'
    MAPE is 100 times ours, and its 2-D RMSE is the square root of the pooled MSE."""
    y, pred = labels()
    per_class = sm.Jaccard(average=None).update(y, pred).compute()
    for ids in ([1], [0, 2]):
        iou = _keras("IoU", num_classes=K, target_class_ids=ids)(y, pred)
        assert_same(float(iou), float(np.mean(per_class[ids])), rtol=1e-6)
    t, p = regression()
    assert_same(
        100 * sm.MAPE().update(t, p).compute(), _keras("MeanAbsolutePercentageError")(t, p), rtol=1e-6
    )
    pooled = np.sqrt(sm.MSE().update(t, p).compute())
    assert_same(pooled, _keras("RootMeanSquaredError")(t, p), rtol=1e-6)
