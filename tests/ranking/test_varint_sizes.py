"""The byte counts of the sketch's varints (the budget rule) against a plain LEB128 encoder."""

from __future__ import annotations

import numpy as np
import pytest

from streammetrics.ranking import columns as C


def _leb128_length(value: int) -> int:
    n = 1
    while value >= 0x80:
        value >>= 7
        n += 1
    return n


@pytest.mark.parametrize("top_bits", [0, 1, 7, 8, 14, 15, 21, 22, 35, 49, 52, 53, 54, 56, 57, 63, 64])
def test_varint_bytes_match_an_encoder(top_bits: int) -> None:
    rng = np.random.default_rng(top_bits)
    top = (1 << top_bits) - 1
    x = rng.integers(0, top, 2000, dtype=np.uint64, endpoint=True) if top else np.zeros(5, np.uint64)
    # the boundaries where a length changes, and the largest values below 2**53 and above it
    edges = [v for k in range(1, 10) for v in (128**k - 1, 128**k, 128**k + 1) if v <= top]
    edges += [v for v in (top, (1 << 53) - 1, 1 << 53, (1 << 56) - 1, 1 << 56) if v <= top]
    x = np.concatenate([x, np.array(edges, np.uint64)])
    want = [_leb128_length(int(v)) for v in x]
    assert C.varint_bytes(x) == sum(want)
    # value by value too: a count that is right only on the whole could hide offsetting errors
    assert [C.varint_bytes(x[i : i + 1]) for i in range(len(x))] == want


@pytest.mark.parametrize("top_bits", [7, 14, 21, 22, 40])
def test_varint_bytes_of_a_two_dimensional_array(top_bits: int) -> None:
    # the budget rule counts a column's (bins, groups) counts at once
    rng = np.random.default_rng(top_bits)
    x = rng.integers(0, 1 << top_bits, (300, 2), dtype=np.uint64, endpoint=True)
    want = sum(_leb128_length(int(v)) for v in x.ravel())
    assert C.varint_bytes(x) == want
    assert C.varint_bytes(x, int(x.max())) == want


@pytest.mark.parametrize("seed", range(6))
def test_envelope_bytes_match_their_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 1 << int(rng.integers(1, 40)), (200, 3))
    multi = rng.random(counts.shape) < 0.4
    fixed, pair = int(rng.integers(2, 8)), int(rng.integers(2, 20))
    want = sum(max(fixed + _leb128_length(int(c)), pair) for c in counts[multi])
    assert C._envelope_bytes(counts, multi, int(counts.max()), fixed, pair) == want
