"""Bad input to the ranking metrics: clear errors naming the argument, state unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from streammetrics.ranking.codec import varint_encode
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
        ({"average": "binary"}, "average"),
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


def _corrupt(change, exact=False):
    # max_bytes=None: bins at resolution 6 from the start (the general form); exact: the exact form
    m = sm.ROCAUC() if exact else sm.ROCAUC(resolution=6, max_bytes=None)
    d = m.update([0, 1, 1, 0, 1, 0, 1], [0.1, 0.7, 0.4, 0.41, 0.42, 0.43, 0.43]).state_dict()
    change(d["state"])
    return d


def _set(key, value):
    return lambda state: state.__setitem__(key, value(state[key]) if callable(value) else value)


@pytest.mark.parametrize(
    "change",
    [
        _set("bins", lambda a: a[::-1].copy()),  # ids not increasing
        _set("bins", lambda a: a[:-1].copy()),  # one bin missing
        _set("bins", lambda a: np.r_[a, np.uint8(0x80)]),  # truncated varint
        _set("counts", lambda a: a[:1].copy()),
        _set("counts", lambda a: a.astype(np.int64)),  # wrong dtype
        _set("counts", lambda a: np.zeros_like(a)),  # empty bins stored
        _set("multi", lambda a: a ^ np.uint8(0x80)),  # a single-score group made multi
        _set("multi", lambda a: np.r_[a, np.uint8(0)]),
        _set("extremes", lambda a: a[:-1].copy()),
        _set("extremes", lambda a: np.r_[a[:-1], np.uint8(0xFF), np.uint8(0x7F)]),  # outside the bin
        _set("sums", lambda a: np.r_[a, np.uint8(1)]),
        _set("sums", lambda a: varint_encode(np.array([2**40], np.uint64))),  # out of the extremes' range
        _set("resolution", 11),
        _set("resolution", 7),  # ids out of range for the extremes
        _set("layout", [1, 3]),
        _set("loose", 1),
        _set("n_samples", -1),
    ],
)
def test_corrupt_state_dicts_are_state_errors(change):
    with pytest.raises(sm.StateError):
        sm.from_state_dict(_corrupt(change))


@pytest.mark.parametrize(
    "change",
    [
        _set("bins", lambda a: a[:-1].copy()),  # one bin missing
        _set("counts", lambda a: a[:-1].copy()),  # a count missing
        _set("counts", lambda a: np.r_[a, np.uint8(1)]),  # one count too many
        _set("counts", lambda a: np.zeros_like(a)),  # an empty bin stored
        _set("multi", lambda a: a ^ np.uint8(0x80)),  # a simple bin made general (its counts missing)
        _set("multi", lambda a: np.r_[a, np.uint8(0)]),
        _set("extremes", lambda a: np.r_[a, np.uint8(0)]),  # group bits too many
        _set("extremes", lambda a: a ^ np.uint8(0x80)),  # a stray group bit
        _set("sums", lambda a: np.r_[a, np.uint8(1)]),  # an exact column holds no sums
        _set("layout", [1, 3]),
        _set("loose", [True]),  # not the exact form: fields of the other form
    ],
)
def test_corrupt_exact_form_state_dicts_are_state_errors(change):
    with pytest.raises(sm.StateError):
        sm.from_state_dict(_corrupt(change, exact=True))


def test_corrupt_bytes_are_state_errors():
    data = bytearray(sm.ROCAUC().update([0, 1, 1], [0.1, 0.7, 0.4]).to_bytes())
    data[-3] ^= 0xFF
    with pytest.raises(sm.StateError):
        sm.from_bytes(bytes(data))


def test_a_refused_merge_keeps_the_resolution():
    """Merging a coarser sketch lowers the resolution first: a merge then refused (another
    layout) left the accumulator at the coarser resolution. Now nothing changes."""
    a = sm.ROCAUC().update([0, 1], [0.2, 0.8])
    before, resolution = a.to_bytes(), a.resolution
    with pytest.raises(sm.MergeError, match="layout"):
        a.merge(sm.ROCAUC(resolution=8).update([0, 1, 2], np.eye(3)))
    assert a.resolution == resolution == a.state._resolution
    assert a.to_bytes() == before
    assert a.merge(sm.ROCAUC(resolution=8).update([0, 1], [0.3, 0.6])).resolution == 8  # taken
