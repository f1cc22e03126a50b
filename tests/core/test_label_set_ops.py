"""The fast paths of label-set operations agree with NumPy's plain set operations, and the
configuration test of a merge agrees with the canonical JSON text it short-cuts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from streammetrics._core.labels import LabelSet, merged_sorted, sorted_distinct
from streammetrics._core.state import _plain_equal, canonical_json, equal_configs

ints = st.lists(st.integers(-(2**62), 2**62) | st.integers(-3, 12), max_size=40)
# (no NUL: NumPy's unicode arrays strip trailing NULs, so '' and '\x00' are one label there)
words = st.lists(st.text(st.characters(exclude_characters="\x00"), max_size=4), max_size=30)


@settings(max_examples=100, deadline=None)
@given(values=ints | words, as_bool=st.booleans())
def test_sorted_distinct_is_numpy_unique(values, as_bool):
    arr = np.array(values) if values else np.array([], dtype=np.int64)
    if as_bool and arr.dtype.kind == "i":
        arr = arr % 2 == 0
    got, expected = sorted_distinct(arr), np.unique(arr)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=200, deadline=None)
@given(a=ints | words, b=ints | words)
def test_merged_sorted_is_numpy_union_of_disjoint_sets(a, b):
    """Two sorted sets of distinct labels with none in common (what a label set and a batch's
    new labels are): the same values and dtype as ``np.union1d``, string widths included."""
    if not a or not b or type(a[0]) is not type(b[0]):
        return
    first = np.unique(np.array(a))
    second = np.setdiff1d(np.unique(np.array(b)), first)
    expected = np.union1d(first, second)
    got = merged_sorted(first, second)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=100, deadline=None)
@given(a=ints | words, b=ints | words)
def test_a_grown_label_set_is_the_sorted_union_and_encodes_the_batch(a, b):
    if not a or not b or type(a[0]) is not type(b[0]):
        return
    labels, batch = LabelSet(np.unique(np.array(a))), np.array(b)
    idx, grown = labels.encode(batch, "y_true")
    expected = np.union1d(labels.values, batch)
    if grown is None:
        assert set(np.unique(batch).tolist()) <= set(labels.values.tolist())
        grown = labels
    else:
        assert grown.values.dtype == expected.dtype
        np.testing.assert_array_equal(grown.values, expected)
    np.testing.assert_array_equal(grown.values[idx], batch)


@settings(max_examples=100, deadline=None)
@given(a=ints | words, b=ints | words, fixed=st.booleans())
def test_union_is_numpy_union(a, b, fixed):
    if not a or not b or type(a[0]) is not type(b[0]):
        return
    mine = LabelSet(list(dict.fromkeys(a)), fixed=True) if fixed else LabelSet(np.unique(np.array(a)))
    theirs = LabelSet(np.unique(np.array(b)))
    out = mine.union(theirs)
    if fixed:
        assert out is mine
    else:
        np.testing.assert_array_equal(out.values, np.union1d(mine.values, theirs.values))
        if set(b) <= set(a):
            assert out is mine  # nothing new: the same set, no sort
    # encoding with the union finds every label of both
    for arr in (mine.values, theirs.values):
        if not fixed:
            idx, grown = out.encode(arr, "y_true")
            assert grown is None
            np.testing.assert_array_equal(out.values[idx], arr)


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(a=plain, b=plain)
def test_equal_configs_is_equal_canonical_json(a, b):
    if _plain_equal(a, b):  # the shortcut never says equal where JSON says different
        assert canonical_json(a) == canonical_json(b)
    assert equal_configs(a, b) == (canonical_json(a) == canonical_json(b))
    assert equal_configs(a, a)  # NaN too: JSON decides


def test_equal_configs_tells_types_apart():
    assert not equal_configs({"beta": 1}, {"beta": 1.0})
    assert not equal_configs({"normalize": True}, {"normalize": 1})
    assert not equal_configs({"x": -0.0}, {"x": 0.0})
    assert equal_configs({"labels": [1, "a"], "k": None}, {"k": None, "labels": [1, "a"]})
