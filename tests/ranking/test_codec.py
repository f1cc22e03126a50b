"""The score sketch's wire codec against the documented layout, written here with plain Python loops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streammetrics as sm
from streammetrics.ranking import codec
from streammetrics.ranking.keys import MANTISSA_BITS, cell_bits, keys_of
from streammetrics.ranking.sketch import ScoreSketch


def leb128(values) -> list[int]:
    """The reference LEB128 writer: 7 bits at a time, low first, continuation bit on all but the last."""
    out = []
    for v in values:
        v = int(v)
        while True:
            byte, v = v & 0x7F, v >> 7
            out.append(byte | (0x80 if v else 0))
            if not v:
                break
    return out


def read_leb128(data) -> list[int]:
    values, value, shift = [], 0, 0
    for byte in data.tolist():
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            values.append(value)
            value, shift = 0, 0
    assert shift == 0, "truncated"
    return values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=40))
def test_varints_are_leb128(values):
    arr = np.array(values, dtype=np.uint64)
    encoded = codec.varint_encode(arr)
    assert encoded.dtype == np.uint8 and encoded.tolist() == leb128(values)
    assert codec.varint_decode(encoded, len(values), "x").tolist() == values


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([0x80, 0x00], "malformed"),  # 0 with a redundant zero group: not canonical
        ([0xFF] * 10 + [0x01], "malformed"),  # 11 groups: more than 64 bits
        ([0xFF] * 9 + [0x02], "malformed"),  # a tenth group above bit 63
        ([0x05, 0x80], "truncated"),
        ([0x05, 0x06], "expected 3 values, found 2"),
    ],
)
def test_non_canonical_varints_are_refused(data, message):
    with pytest.raises(sm.StateError, match=message):
        codec.varint_decode(np.array(data, np.uint8), 3 if "expected" in message else None, "x")
    with pytest.raises(sm.StateError, match="1-D uint8"):
        codec.varint_decode(np.array(data, np.int64), None, "x")


def _sketches():
    rng = np.random.default_rng(11)
    n = 400
    y = rng.integers(0, 2, n)
    p = rng.random(n)
    coarse = ScoreSketch(resolution=6)  # no byte budget: bins at resolution 6 from the start
    coarse.add(keys_of(p, "probability"), y, None, (1, 2))
    few = ScoreSketch(resolution=6)  # groups of one score, of two samples, of several
    few.add(
        keys_of(np.array([0.1, 0.1, 0.3, 0.30001, 0.6, 0.60001, 0.60002]), "probability"),
        np.zeros(7, int),
        None,
        (1, 2),
    )
    weighted = ScoreSketch(resolution=8)
    weighted.add(keys_of(p, "probability"), y, rng.random(n), (1, 2))
    loose = coarse.copy()
    loose.remove(keys_of(p[:50], "probability"), y[:50], None, (1, 2))
    yk = rng.integers(0, 3, n)
    multiclass = ScoreSketch(resolution=10, compact=False)  # one-vs-one: a group per true class
    scores = rng.dirichlet(np.ones(3), n)
    multiclass.add(keys_of(scores, "probability"), yk[:, None], None, (3, 3))
    ovr = ScoreSketch(max_bytes=2**12)  # exact until 3 KiB per column, then bins
    ovr.add(keys_of(scores, "probability"), (yk[:, None] == np.arange(3)).astype(int), None, (3, 2), ovr=True)
    exact = ScoreSketch(max_bytes=2**16)  # exact: simple bins, a score in both groups, repeats
    ps = np.array([0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.4, 0.9])
    exact.add(
        keys_of(np.r_[ps, p[:40]], "probability"), np.r_[[0, 0, 1, 1, 1, 0, 0, 0, 1], y[:40]], None, (1, 2)
    )
    return {
        "exact": exact,
        "coarse": coarse,
        "few": few,
        "weighted": weighted,
        "loose": loose,
        "multiclass": multiclass,
        "ovr": ovr,
        "empty": ScoreSketch(),
    }


def _column_fields(fields, j):
    """The fields of column ``j``: its slices of the concatenated fields (by ``sizes``)."""
    out = {"layout": [1, fields["layout"][1]], "multilabel": False, "n_samples": 0}
    out["resolution"], out["loose"] = fields["resolution"][j], fields["loose"][j]
    for k, name in enumerate(("bins", "counts", "multi", "extremes", "sums")):
        start = sum(row[k] for row in fields["sizes"][:j])
        out[name] = fields[name][start : start + fields["sizes"][j][k]]
    return out


@pytest.mark.parametrize(
    "name", ["exact", "coarse", "few", "weighted", "loose", "multiclass", "ovr", "empty"]
)
def test_fields_follow_the_documented_layout(name):
    sketch = _sketches()[name]
    whole = sketch.to_dict()
    assert list(whole) == list(codec.COLUMN_FIELDS.fields)
    assert len(whole["sizes"]) == len(sketch.cols) == (0 if sketch.layout is None else sketch.layout[0])
    if name == "ovr":
        assert [c.res for c in sketch.cols] != [52] * 3  # some compressed
    for j, col in enumerate(sketch.cols):
        _check_column_fields(name, _column_fields(whole, j), col)
    back = ScoreSketch(max_bytes=sketch._max_bytes, compact=sketch._compact)
    back.load_dict(whole)
    for a, b in zip(back.cols, sketch.cols, strict=True):
        assert a.res == b.res and a.loose == b.loose
        for got, want in zip(a.arrays, b.arrays, strict=True):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype


def _check_exact_fields(fields, s):
    """The exact form: one bit per bin "simple" (one group, once), the simple bins' groups on
    (g - 1).bit_length() bits (little-endian), varints of the other bins' counts."""
    assert read_leb128(fields["bins"]) == np.diff(s.ids.astype(object), prepend=0).tolist()
    g = s.counts.shape[1]
    simple, groups, others = [], [], []
    for row in s.counts.tolist():
        if sorted(row)[-1] == 1 and sum(row) == 1:
            simple.append(True)
            groups.append(row.index(1))
        else:
            simple.append(False)
            others += row
    assert np.unpackbits(fields["multi"], count=len(simple)).astype(bool).tolist() == simple
    gb = (g - 1).bit_length()
    bits = [(x >> k) & 1 for x in groups for k in range(gb)]
    assert np.unpackbits(fields["extremes"], count=len(bits), bitorder="little").tolist() == bits
    assert read_leb128(fields["counts"]) == others and len(fields["sums"]) == 0
    assert any(simple) and not all(simple)  # both kinds present
    back = codec.decode(fields, s.res, exact_form=True)
    for got, want in zip(back[5:], s.arrays, strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    # a simple bin written as counts is not canonical
    bad = {**fields, "multi": np.zeros_like(fields["multi"]), "extremes": np.zeros(0, np.uint8)}
    bad["counts"] = codec.varint_encode(s.counts.ravel().astype(np.uint64))
    with pytest.raises(sm.StateError, match="simple bin"):
        codec.decode(bad, s.res, exact_form=True)


def _check_column_fields(name, fields, s):
    if name == "exact":
        return _check_exact_fields(fields, s)
    if name == "few":  # every kind of group is present
        assert all(kind.any() for kind in codec.group_kinds(s.counts, s.kmin, s.kmax, s.loose))
    assert read_leb128(fields["bins"]) == np.diff(s.ids.astype(object), prepend=0).tolist()
    if s.counts.dtype.kind == "i":
        assert read_leb128(fields["counts"]) == s.counts.ravel().tolist()
    else:
        np.testing.assert_array_equal(fields["counts"], s.counts)
    shift = MANTISSA_BITS - s.res
    cell = cell_bits(s.res)
    multi, extremes, env_sums = [], [], []
    for i, bin_id in enumerate(s.ids.tolist()):
        start = bin_id << shift
        for j in range(s.counts.shape[1]):
            count, lo, hi = s.counts[i, j], int(s.kmin[i, j]), int(s.kmax[i, j])
            if count <= 0:
                continue
            multi.append(lo != hi)
            if lo == hi:  # one distinct score: its offset in the bin
                extremes.append(lo - start)
            elif s.counts.dtype.kind == "i" and count == 2 and not s.loose:  # two known samples
                extremes += [lo - start, hi - lo]
            else:  # an envelope, in cells of 2**cell keys
                extremes += [(lo - start) >> cell, ((hi + 1 - lo) >> cell) - 1]
                env_sums.append(s.sums[i, j])
    assert np.unpackbits(fields["multi"], count=len(multi)).astype(bool).tolist() == multi
    assert read_leb128(fields["extremes"]) == extremes
    if s.counts.dtype.kind == "i":
        assert read_leb128(fields["sums"]) == [int(v) for v in env_sums]
    back = codec.decode(fields, s.res)
    assert back.loose == s.loose
    for got, want in zip(back[5:], s.arrays, strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


def test_decode_names_the_field_and_the_limit():
    fields = _column_fields(_sketches()["coarse"].to_dict(), 0)
    with pytest.raises(sm.StateError, match=r"resolution must be an int in \[-11, 5\], found 6"):
        codec.decode(fields, 5)
    with pytest.raises(sm.StateError, match="ScoreSketch state: extremes: truncated varint"):
        codec.decode({**fields, "extremes": fields["extremes"][:-1]}, 6)
