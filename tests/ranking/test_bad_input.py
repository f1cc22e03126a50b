"""Bad input to the ranking metrics: clear errors naming the argument, state unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same

CASES = [
    (sm.ROCAUC, {}, ([0, 1], [0.2, 1.5]), "y_score"),
    (sm.ROCAUC, {}, ([0, 1], [0.2, -0.1]), "y_score"),
    (sm.ROCAUC, {"input": "score"}, ([0, 1], [0.2, np.nan]), "y_score"),
    (sm.ROCAUC, {"input": "score"}, ([0, 1], [np.inf, 0.3]), "y_score"),
    (sm.ROCAUC, {}, ([0, 1, 2], [[0.5, 0.5, 0.1], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), "y_score"),
    (sm.ROCAUC, {}, ([0, 1, 3], [[0.5, 0.4, 0.1], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), "y_true"),
    (sm.ROCAUC, {}, ([0, 1], [0.2]), "y_score"),
    (sm.ROCAUC, {}, ([0, 1, 2], [0.2, 0.3, 0.4]), "y_true"),
    (sm.ROCAUC, {}, ([0, 1], [0.2, 0.3]), "sample_weight", [1.0, -1.0]),
    (
        sm.ROCAUC,
        {"max_fpr": 0.5},
        ([0, 1, 2], [[0.5, 0.4, 0.1], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
        "y_score",
    ),
    (sm.ROCCurve, {}, ([[0, 1]], [[0.2, 0.3]]), "y_score"),
    (sm.AveragePrecision, {}, ([0, 1], ["a", "b"]), "y_score"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}-{c[3]}")
def test_bad_batch_raises_and_leaves_state_unchanged(case):
    cls, kw, args, argument, *weights = case
    m = cls(**kw).update([0, 1, 1], [0.1, 0.7, 0.4])
    before = m.state_dict()
    with pytest.raises(sm.InputError, match=argument):
        m.update(*args, sample_weight=weights[0] if weights else None)
    assert_same(m.state_dict()["state"], before["state"], exact=True)


def test_layout_change_is_an_error_and_leaves_state_unchanged():
    m = sm.ROCAUC().update([0, 1], [0.1, 0.9])
    before = m.state_dict()
    with pytest.raises(sm.InputError, match="y_score"):
        m.update([[0, 1]], [[0.2, 0.3]])
    assert_same(m.state_dict()["state"], before["state"], exact=True)


@pytest.mark.parametrize(
    "kw, argument",
    [
        ({"input": "logit"}, "input"),
        ({"resolution": 60}, "resolution"),
        ({"max_bins": 0}, "max_bins"),
        ({"average": "samples"}, "average"),
        ({"multi_class": "raise"}, "multi_class"),
        ({"max_fpr": 0.0}, "max_fpr"),
    ],
)
def test_bad_parameters_name_the_argument(kw, argument):
    with pytest.raises(ValueError, match=argument):
        sm.ROCAUC(**kw)


def test_merging_different_configuration_is_a_merge_error():
    with pytest.raises(sm.MergeError):
        sm.ROCAUC(input="score").merge(sm.ROCAUC())
    with pytest.raises(sm.MergeError):
        sm.ROCAUC(exact=True).merge(sm.ROCAUC())


def test_corrupt_state_dicts_are_state_errors():
    d = sm.ROCAUC().update([0, 1, 1], [0.1, 0.7, 0.4]).state_dict()
    d["state"]["ids"] = d["state"]["ids"][::-1].copy()
    with pytest.raises(sm.StateError):
        sm.from_state_dict(d)
    d = sm.ROCAUC().update([0, 1, 1], [0.1, 0.7, 0.4]).state_dict()
    d["state"]["counts"] = d["state"]["counts"][:1]
    with pytest.raises(sm.StateError):
        sm.from_state_dict(d)
