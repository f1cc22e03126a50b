"""States that break or lie (issue 15): zero-weight shards reload, state changes are atomic,
crafted states are refused at load, ``save`` and ``load`` are safe with files."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm


# ----------------------------------------------------------------------------- weight-0 shards
@pytest.mark.parametrize(
    ("make", "reference", "y_true", "y_pred"),
    [
        (sm.Accuracy, skm.accuracy_score, [0, 1, 1, 2], [0, 1, 2, 2]),
        (
            lambda: sm.F1(average="macro"),
            lambda *a, **k: skm.f1_score(*a, average="macro", **k),
            ["a", "b", "b"],
            ["a", "a", "b"],
        ),
        (sm.ConfusionMatrix, skm.confusion_matrix, [0, 1, 1], [1, 1, 0]),
        (
            lambda: sm.F1(average="samples"),
            lambda *a, **k: skm.f1_score(*a, average="samples", **k),
            [[0, 1], [1, 1], [1, 0]],
            [[0, 1], [1, 0], [1, 1]],
        ),
    ],
    ids=["Accuracy", "F1-macro-strings", "ConfusionMatrix", "F1-samples"],
)
def test_shards_of_zero_weight_rows_round_trip_and_merge(make, reference, y_true, y_pred):
    """A shard whose rows all have weight 0 (all masked) reloads, alone and merged, and leaves
    the value of the healthy shards as if it never existed."""
    masked = make().update(y_true, y_pred, sample_weight=np.zeros(len(y_true)))
    healthy = make().update(y_true, y_pred)
    for shard in (masked, healthy + masked, masked + healthy, masked + masked):
        for restored in (sm.from_bytes(shard.to_bytes()), sm.from_state_dict(shard.state_dict())):
            restored.state.check()
            assert restored.n_samples == shard.n_samples
            assert restored.to_bytes() == shard.to_bytes()
    merged = sm.from_bytes((masked + healthy).to_bytes()) + sm.from_bytes(masked.to_bytes())
    assert merged.n_samples == 3 * len(y_true)
    np.testing.assert_allclose(merged.compute(), reference(np.asarray(y_true), np.asarray(y_pred)))


def test_unweighted_counts_may_not_exceed_n_samples():
    masked = sm.Accuracy().update([0, 1], [0, 1], sample_weight=[0, 0])
    d = (masked + sm.Accuracy().update([0, 1], [0, 1])).state_dict()
    sm.from_state_dict(d)  # 2 counted rows of 4
    d["state"]["matrix"] = np.array([[3, 0], [0, 2]])
    with pytest.raises(sm.StateError, match="more than n_samples=4"):
        sm.from_state_dict(d)
