"""The narrow-array helpers give what their NumPy spelling gives, bit for bit and dtype for dtype."""

from __future__ import annotations

import numpy as np
import pytest

from streammetrics._core import narrow as N

WIDTHS = range(1, 12)


def _floats(rng: np.random.Generator, n: int, width: int) -> np.ndarray:
    # magnitudes over 16 decades, so that the order of the additions shows in the rounding
    return rng.standard_normal((n, width)) * 10.0 ** rng.integers(-8, 8, (n, width))


@pytest.mark.parametrize("width", WIDTHS)
def test_row_sum_is_numpys_sum_bit_for_bit(width: int) -> None:
    rng = np.random.default_rng(width)
    a = _floats(rng, 3000, width)
    for x, dtype in ((a, None), (a.astype(np.float32), None), (a.astype(np.float32), np.float64)):
        got, want = N.row_sum(x, dtype=dtype), x.sum(axis=1, dtype=dtype)
        assert got.dtype == want.dtype
        assert np.array_equal(got, want)
    ints = rng.integers(-9, 9, (3000, width)).astype(np.int32)
    for x in (ints, ints > 0, ints.astype(np.uint8)):
        got, want = N.row_sum(x), x.sum(axis=1)
        assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("width", WIDTHS)
def test_row_reductions_and_column_sums(width: int) -> None:
    rng = np.random.default_rng(100 + width)
    a = _floats(rng, 500, width)
    u = rng.integers(0, 2**63, (500, width), dtype=np.int64).view(np.uint64)
    b = rng.random((500, width)) < 0.4
    assert np.array_equal(N.row_min(a), a.min(axis=1)) and np.array_equal(N.row_max(a), a.max(axis=1))
    assert np.array_equal(N.row_min(u), u.min(axis=1)) and np.array_equal(N.row_max(u), u.max(axis=1))
    assert np.array_equal(N.row_any(b), b.any(axis=1)) and np.array_equal(N.row_all(b), b.all(axis=1))
    ints = rng.integers(-5, 5, (500, width))
    assert np.array_equal(N.column_sums(ints), ints.sum(axis=0))
    assert np.array_equal(N.column_sums(b), b.sum(axis=0))
    # the type of NumPy's sums, whatever the input's (and no rows, or no columns)
    for x in (ints, ints.astype(np.int8), ints.astype(np.uint8), b, a, a.astype(np.float32), a[:0], a[:, :0]):
        got, want = N.column_sums(x), x.sum(axis=0)
        assert got.dtype == want.dtype and got.shape == want.shape, (x.dtype, x.shape)


@pytest.mark.parametrize("width", WIDTHS)
def test_row_selection_and_column_ops(width: int) -> None:
    rng = np.random.default_rng(200 + width)
    a = _floats(rng, 400, width)
    index = rng.integers(0, 400, 700)
    mask = rng.random(400) < 0.5
    cell_mask = rng.random((400, width)) < 0.5
    assert np.array_equal(N.take_rows(a, index), a[index])
    assert np.array_equal(N.keep_rows(a, mask), a[mask])
    assert np.array_equal(N.cells(a, cell_mask), a[cell_mask])
    v = rng.standard_normal(400)
    for op in (np.subtract, np.multiply, np.add):
        assert np.array_equal(N.with_column(op, a, v), op(a, v[:, None]))
    u = rng.integers(0, 2**40, (400, width), dtype=np.int64).view(np.uint64)
    s = rng.integers(0, 2**30, 400, dtype=np.int64).view(np.uint64)
    got = N.with_column(np.subtract, u, s)
    assert got.dtype == np.uint64 and np.array_equal(got, u - s[:, None])
    ints, by = rng.integers(1, 9, (400, width)), rng.integers(1, 9, 400)
    got = N.with_column(np.divide, ints, by)  # integers divided: float64, as NumPy's
    want = np.divide(ints, by[:, None])
    assert got.dtype == want.dtype and np.array_equal(got, want)
    out = np.empty_like(a)  # into a given array
    assert N.with_column(np.multiply, a, v, out=out) is out and np.array_equal(out, a * v[:, None])


@pytest.mark.parametrize("rows", [0, 3, N.ROW_DOT_EINSUM_BELOW // 8 - 1, N.ROW_DOT_EINSUM_BELOW // 8, 20_000])
@pytest.mark.parametrize("width", [1, 8, 33])
def test_row_dot_is_einsum_to_rounding(rows: int, width: int) -> None:
    rng = np.random.default_rng(rows + width)
    a, b = rng.standard_normal((rows, width)), rng.standard_normal((rows, width))
    got, want = N.row_dot(a, b), np.einsum("ij,ij->i", a, b)
    # the products summed in BLAS's order on the large path: within a few roundings of the
    # row's sum of magnitudes
    scale = np.einsum("ij,ij->i", np.abs(a), np.abs(b))
    assert got.shape == (rows,) and np.all(np.abs(got - want) <= 8 * width * np.finfo(float).eps * scale)


def test_row_offsets_are_numpys_arange_on_both_sides_of_the_small_batches() -> None:
    """The flat offsets of each row's first cell, fresh below ``SMALL_ROWS`` and from the kept
    counting array above it (grown, never shortened, by later larger requests)."""
    for n in (0, 1, 7, N.SMALL_ROWS - 1, N.SMALL_ROWS, 3 * N.SMALL_ROWS + 5, N.SMALL_ROWS + 1):
        for k in (1, 2, 5):
            got = N.row_offsets(n, k)
            assert got.dtype == np.intp and np.array_equal(got, np.arange(0, n * k, k))


@pytest.mark.parametrize("rows", [3, 300, 5000])
def test_row_max_and_row_dot_write_into_out(rows: int) -> None:
    rng = np.random.default_rng(rows)
    a, b = _floats(rng, rows, 5), _floats(rng, rows, 5)
    out = np.full(rows, np.nan)
    assert N.row_max(a, out=out) is out and np.array_equal(out, a.max(axis=1))
    assert N.row_dot(a, b, out=out) is out and np.array_equal(out, N.row_dot(a, b))


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8, 16])
def test_transpose_into_is_numpys_transpose_in_blocks_or_not(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # blocks of 7 rows: several blocks and a short last one on a small array
    monkeypatch.setattr(N, "TRANSPOSE_BLOCK_BYTES", 7 * 8 * width)
    rng = np.random.default_rng(width)
    a = _floats(rng, 103, width)
    for x, dtype in (
        (a, np.float64),
        (a[:, ::-1], np.float64),
        ((a > 0).astype(np.int64), np.float64),
        (a, np.float32),
    ):
        out = np.full((width, len(x)), np.nan, dtype)
        assert N.transpose_into(out, x) is out
        assert np.array_equal(out, x.T.astype(dtype))
    by_label = N.by_label(a, "test", np.float32)
    assert by_label.dtype == np.float32 and np.array_equal(by_label, a.T.astype(np.float32))
