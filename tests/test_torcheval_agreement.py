"""torcheval's metrics against the streammetrics configurations the coming-from page gives for
them, on the same data (torcheval fed whole tensors, streammetrics three batches); torcheval
computes some ratios in float32, hence ``rtol=1e-6``. Its per-class multiclass accuracy is the
recall, as torchmetrics'. ``NormalizedEntropy`` and ``WeightedCalibration`` are compared in
``tests/catalogue/test_peer_agreement.py``. torcheval comes from the ``peers`` extra: missing,
the tests skip locally and fail in CI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same, fed_in_batches
from tests.integrations.engine_cases import require
from tests.peer_data import K, binary, class_probabilities, labels, regression


def _te(name: str, reduce: Callable | None = None, **kwargs: Any) -> Callable:
    """torcheval's functional ``name`` on ``(input, target)``, as float64 NumPy."""

    def peer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        torch = require("torch")
        functional = require("torcheval.metrics.functional")
        value = getattr(functional, name)(torch.as_tensor(b), torch.as_tensor(a), **kwargs)
        return np.asarray((reduce(value) if reduce else value).double().numpy())

    return peer


CASES: list[tuple[str, Callable, Callable, Callable]] = [
    ("Accuracy[micro]", sm.Accuracy, labels, _te("multiclass_accuracy", num_classes=K)),
    ("binary Accuracy", lambda: sm.Accuracy(threshold=0.5), binary, _te("binary_accuracy")),
    ("binary F1", lambda: sm.F1(threshold=0.5), binary, _te("binary_f1_score")),
    ("binary Precision", lambda: sm.Precision(threshold=0.5), binary, _te("binary_precision")),
    ("binary Recall", lambda: sm.Recall(threshold=0.5), binary, _te("binary_recall")),
    ("ConfusionMatrix", sm.ConfusionMatrix, labels, _te("multiclass_confusion_matrix", num_classes=K)),
    ("R2", sm.R2, regression, _te("r2_score")),
    (
        "R2[variance_weighted]",
        lambda: sm.R2(multioutput="variance_weighted"),
        regression,
        _te("r2_score", multioutput="variance_weighted"),
    ),
    ("MSE", sm.MSE, regression, _te("mean_squared_error")),
    ("AUROC", sm.ROCAUC, binary, _te("binary_auroc")),
    ("AUPRC", sm.AveragePrecision, binary, _te("binary_auprc")),
    (
        "multiclass AUROC",
        lambda: sm.ROCAUC(multi_class="ovr"),
        class_probabilities,
        _te("multiclass_auroc", num_classes=K),
    ),
    (
        "multiclass AUPRC",
        lambda: sm.AveragePrecision(average="macro"),
        class_probabilities,
        _te("multiclass_auprc", num_classes=K),
    ),
    ("HitRate", lambda: sm.TopKAccuracy(2), class_probabilities, _te("hit_rate", lambda v: v.mean(), k=2)),
]
for _avg in ("macro", None):
    CASES += [
        (
            f"Accuracy[{_avg}] = Recall",
            lambda a=_avg: sm.Recall(average=a),
            labels,
            _te("multiclass_accuracy", num_classes=K, average=_avg),
        ),
        *[
            (
                f"{_ours}[{_avg}]",
                lambda o=_ours, a=_avg: getattr(sm, o)(average=a),
                labels,
                _te(_theirs, num_classes=K, average=_avg),
            )
            for _ours, _theirs in (
                ("F1", "multiclass_f1_score"),
                ("Precision", "multiclass_precision"),
                ("Recall", "multiclass_recall"),
            )
        ],
    ]


@pytest.mark.parametrize(("make", "data", "peer"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_torcheval_agrees(make, data, peer) -> None:
    a, b = data()
    ours = fed_in_batches(make, (a, b), defined=True)
    assert_same(np.asarray(ours, float), peer(a, b), rtol=1e-6, atol=1e-7)
