"""Short ASCII string labels take the packed-integer path of LabelSet.encode: the same indices as
a plain search of the strings, for discovered (sorted) and fixed (user-ordered) label sets."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from streammetrics._core.labels import CodeTable, LabelSet, packed_strings

# Latin-1 with NUL-free ends (NumPy strips trailing NULs), and a few wider or longer ones
short = st.text(st.characters(min_codepoint=1, max_codepoint=255), max_size=8)
any_label = st.one_of(short, st.text(max_size=12).filter(lambda t: not t.endswith("\x00")))


def _expected(values: np.ndarray, arr: np.ndarray) -> np.ndarray:
    index = {v: i for i, v in enumerate(values.tolist())}
    return np.array([index.get(x, -1) for x in arr.tolist()], dtype=np.int64)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(any_label, min_size=1, max_size=30, unique=True), picks=st.lists(st.integers(0, 10**6), max_size=50), fixed=st.booleans())  # fmt: skip
def test_known_labels_encode_as_by_a_plain_search(labels, picks, fixed):
    ls = LabelSet(labels, fixed=fixed) if fixed else LabelSet(np.unique(np.array(labels)))
    arr = np.array([ls.values.tolist()[i % len(ls)] for i in picks], dtype=ls.values.dtype)
    if not arr.size:
        return
    idx, grown = ls.encode(arr, "y_true")
    assert grown is None
    np.testing.assert_array_equal(idx, _expected(ls.values, arr))


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(short, min_size=1, max_size=20, unique=True),
    extra=st.lists(short, min_size=1, max_size=20),
)
def test_unknown_labels_still_grow_the_set(labels, extra):
    ls = LabelSet(np.unique(np.array(labels)))
    arr = np.array(extra + labels)
    idx, grown = ls.encode(arr, "y_true")
    values = (grown or ls).values
    np.testing.assert_array_equal(values[idx], arr)
    assert (grown is None) == (set(arr.tolist()) <= set(labels))


def test_codes_are_distinct_and_do_not_depend_on_the_width():
    words = ["", "a", "ab", "abc", "b", "ba", "z" * 8, "A", "a b", "~~~~~~~~", "\x00a", "a\x00b", "ÿé"]
    codes = packed_strings(np.array(words))
    assert len(set(codes.tolist())) == len(words)
    # the same string in a wider array gets the same code
    for w in words:
        assert packed_strings(np.array([w], dtype="<U8"))[0] == codes[words.index(w)]
        assert packed_strings(np.array([w], dtype="<U30"))[0] == codes[words.index(w)]
        assert packed_strings(np.array([w]))[0] == codes[words.index(w)]
    assert packed_strings(np.array(["x" * 9])) is None and packed_strings(np.array(["€"])) is None
    assert packed_strings(np.array(["x", "x" * 9])) is None


@settings(max_examples=60, deadline=None)
@given(
    stored=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=300, unique=True),
    asked=st.lists(st.integers(0, 2**64 - 1), max_size=300),
    spacing=st.sampled_from([1, 2**57, 2**61]),  # codes differing only in high bits collide more
)
def test_code_table_finds_every_stored_code_and_nothing_else(stored, asked, spacing):
    codes = np.unique(np.array([(x * spacing) % 2**64 for x in stored], dtype=np.uint64))
    values = np.arange(len(codes))[::-1] * 3  # any values, stored with their codes
    table = CodeTable(codes, values)
    queries = np.concatenate([codes, np.array([*asked, 0], dtype=np.uint64)])
    where = {int(c): int(v) for c, v in zip(codes, values, strict=True)}
    np.testing.assert_array_equal(table.lookup(queries), [where.get(int(q), -1) for q in queries])
