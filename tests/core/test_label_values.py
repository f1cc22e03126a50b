"""Label values: never wrapped beyond int64, and one kind in ``labels=``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core.onerow import update_one


@pytest.mark.parametrize(
    "y_true, y_pred, argument, found",
    [
        ([2**63, 0], [0, 0], "y_true", "9.223372036854776e+18"),  # NumPy makes this list float64
        (np.array([2**63, 0], dtype=np.uint64), [0, 0], "y_true", "9223372036854775808"),
        (np.array([1e20, 3e20]), np.array([3e20, 1e20]), "y_true", "3e+20"),
        ([0, 0], [0, -(2**63) - 1], "y_pred", "-9223372036854775809"),
        ([0, 10**30], [0, 0], "y_true", "31 digits"),
    ],
)
def test_confusion_matrix_refuses_labels_beyond_int64(y_true, y_pred, argument, found):
    m = sm.ConfusionMatrix().update([0, 1], [0, 1])
    before = m.to_bytes()
    with pytest.raises(
        sm.InputError, match=rf"^{argument}: expected labels that fit in int64, found .*{re.escape(found)}"
    ):
        m.update(y_true, y_pred)
    assert m.to_bytes() == before


@pytest.mark.parametrize("value", [2**63, np.uint64(2**63), -(2**63) - 1, 10**30, 1e20])
@pytest.mark.parametrize("path", ["update", "update_one"])
def test_one_row_refuses_labels_beyond_int64(value, path):
    for m in (sm.ConfusionMatrix(), sm.MetricCollection({"acc": sm.Accuracy(), "auc": sm.ROCAUC()})):
        m.update([0, 1], [0, 1])
        before = m.to_bytes()
        with pytest.raises(sm.InputError, match=r"^y_true: expected labels that fit in int64"):
            if path == "update":
                m.update(value, 1)
            else:
                update_one(m, value, 1, None)
        assert m.to_bytes() == before


def test_a_label_just_inside_int64_is_kept_exactly():
    m = sm.ConfusionMatrix(labels=[-(2**63), 2**63 - 1]).update([2**63 - 1], [-(2**63)])
    m.update(np.array([-(2.0**63)]), np.array([-(2.0**63)]))
    assert m.compute().tolist() == [[1, 0], [1, 0]]


@pytest.mark.parametrize("make", [sm.F1, sm.ConfusionMatrix, sm.ROCAUC, sm.LogLoss, sm.AveragePrecision])
@pytest.mark.parametrize(
    "labels, message",
    [
        ([1, "a"], r"labels: expected labels all strings or all integers, found a mix of \['int', 'str'\]"),
        (("a", np.int64(2)), r"labels: expected labels all strings or all integers, found a mix of"),
        ([0, 2**63], r"labels: expected labels that fit in int64, found 9223372036854775808"),
    ],
)
def test_labels_option_of_one_kind_within_int64(make, labels, message):
    # the constructors' error for a bad option is ValueError (InputError is for batches)
    with pytest.raises(ValueError, match=message):
        make(labels=labels)
