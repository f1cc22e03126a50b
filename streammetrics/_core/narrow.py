"""Operations on narrow 2-D arrays: many rows, a few columns.

The states and batches here are often ``(n, g)`` arrays with ``g`` small: a score column's two
groups, a multiclass row of five scores. NumPy's generic paths pay a fixed cost per row on such
arrays: a reduction along the short axis runs one inner loop per row, a reduction along the long
axis one per row too (its inner loop is the short axis), and fancy or boolean indexing of rows
goes through the general mapping iterator. On ``(100_000, 5)`` float64 ``a.sum(axis=1)`` takes
about 2 ms where five column passes take 0.4 ms, and ``a[idx]`` on ``(25_000, 2)`` about 0.3 ms
where ``np.take(a, idx, axis=0)`` takes 0.03 ms (the development machine, NumPy 2.4).

Each function returns what its NumPy spelling returns, value for value, rounding included (a row
sum adds the columns one after another, which is NumPy's order for rows of up to :data:`NARROW`
columns, and defers to NumPy beyond), except :func:`column_sums`, whose pairwise sums are more
accurate than NumPy's row-after-row order.

Examples:
    >>> import numpy as np
    >>> a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> row_sum(a).tolist(), row_max(a).tolist(), take_rows(a, [1]).tolist()
    ([6.0, 15.0], [3.0, 6.0], [[4.0, 5.0, 6.0]])
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .workspace import work

#: Batches of fewer rows get fresh temporaries where larger ones get work arrays (a fresh array
#: this small costs less than a look-up of a work array; see :mod:`~streammetrics._core.workspace`).
SMALL_ROWS = 4096
#: Rows of at most this many columns take the column-by-column paths (NumPy sums rows of up to
#: seven values sequentially, so the two agree bit for bit there).
NARROW = 7


#: :func:`transpose_into` copies blocks of rows of about this many bytes (of the source): a
#: block and its transpose stay in the core's cache while the copy reads each cache line of the
#: block once per column.
TRANSPOSE_BLOCK_BYTES = 1 << 19
#: Rows narrower than this many bytes are transposed in one copy (blocks gain nothing there).
TRANSPOSE_BLOCK_ROW_BYTES = 24


def transpose_into(out: np.ndarray, a: np.ndarray, casting: str = "same_kind") -> np.ndarray:
    """``np.copyto(out, a.T, casting=casting)`` for a 2-D ``a`` (``out``: ``a.T``'s shape; by
    default a dtype ``a`` casts to within its kind or to a wider kind; ``"unsafe"`` for a caller
    that knows the values fit), a block of rows at a time where the rows are wide enough to gain: a
    strided read of a whole large column after column misses the cache on every column (a
    ``(100_000, 8)`` float64 transpose takes about 0.5 ms in one copy, 0.33 ms in blocks of
    8,192 rows on the development machine). The same values, whatever the blocks.

    Examples:
        >>> a = np.arange(6).reshape(3, 2)
        >>> transpose_into(np.empty((2, 3)), a).tolist()
        [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    """
    row_bytes = a.shape[1] * a.itemsize
    step = max(TRANSPOSE_BLOCK_BYTES // max(row_bytes, 1), 1)
    if row_bytes < TRANSPOSE_BLOCK_ROW_BYTES or len(a) <= step:
        np.copyto(out, a.T, casting=casting)
        return out
    for lo in range(0, len(a), step):
        np.copyto(out[:, lo : lo + step], a[lo : lo + step].T, casting=casting)
    return out


def by_label(a: np.ndarray, slot: str, dtype: Any = None, casting: str = "same_kind") -> np.ndarray:
    """``(n, m)`` rows as ``(m, n)``, one contiguous row per column, in the work array ``slot``
    (see :func:`~streammetrics._core.workspace.work`), as ``dtype`` when given (else ``a``'s;
    ``casting`` as :func:`transpose_into`'s): the pairwise paths compare column against column
    over every row at once (a column of a narrow row-major array is strided, and a broadcast
    against a column runs an inner loop of ``m`` per row)."""
    out = work(("by label", slot), a.shape[::-1], a.dtype if dtype is None else dtype)
    return transpose_into(out, a, casting)


def take_rows(a: np.ndarray, index: Any) -> np.ndarray:
    """``a[index]`` for an integer index of rows."""
    return np.take(a, index, axis=0)


def keep_rows(a: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``a[mask]`` for a boolean mask of rows (``len(mask) == len(a)``)."""
    return np.compress(mask, a, axis=0)


def cells(a: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``a[mask]`` for a boolean mask of ``a``'s shape: the selected cells in row-major order."""
    return np.compress(mask.ravel(), a.ravel())


def with_column(
    op: Any, a: np.ndarray, v: np.ndarray, dtype: Any = None, out: np.ndarray | None = None
) -> np.ndarray:
    """``op(a, v[:, None])``: a binary ufunc of every column of a 2-D array with the 1-D ``v``
    (into ``out`` when given: an array of ``a``'s shape and the ufunc's result type)."""
    if not 2 <= a.shape[1] <= NARROW:
        return op(a, v[:, None], dtype=dtype, out=out)
    if out is None:
        out = np.empty(a.shape, op(a[:0, 0], v[:0], dtype=dtype).dtype)  # the ufunc's own result type
    for j in range(a.shape[1]):
        op(a[:, j], v, out=out[:, j], dtype=dtype)
    return out


def row_sum(a: np.ndarray, dtype: Any = None) -> np.ndarray:
    """``a.sum(axis=1, dtype=dtype)`` of a 2-D array."""
    n_cols = a.shape[1]
    if not 2 <= n_cols <= NARROW:
        return a.sum(axis=1, dtype=dtype)
    dtype = np.add.reduce(a[:0, 0], dtype=dtype).dtype  # NumPy's sum type (small integers widen)
    out = a[:, 0].astype(dtype)  # (a fresh array: added to in place)
    for j in range(1, n_cols):
        out += a[:, j]
    return out


def _fold(op: Any, a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``op.reduce(a, axis=1)`` for a binary ufunc ``op`` whose reduction is order-free (min,
    max, or, and): pairwise across the columns of a narrow array (into ``out`` when given)."""
    n_cols = a.shape[1]
    if not 2 <= n_cols <= NARROW:
        return op.reduce(a, axis=1, out=out)
    out = op(a[:, 0], a[:, 1], out=out)
    for j in range(2, n_cols):
        op(out, a[:, j], out=out)
    return out


def row_min(a: np.ndarray) -> np.ndarray:
    """``a.min(axis=1)`` of a 2-D array with at least one column."""
    return _fold(np.minimum, a)


def row_max(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``a.max(axis=1)`` of a 2-D array with at least one column (into ``out`` when given)."""
    return _fold(np.maximum, a, out)


def row_any(a: np.ndarray) -> np.ndarray:
    """``a.any(axis=1)`` of a 2-D boolean array."""
    return _fold(np.logical_or, a)


def row_all(a: np.ndarray) -> np.ndarray:
    """``a.all(axis=1)`` of a 2-D boolean array."""
    return _fold(np.logical_and, a)


#: Arrays of fewer values take :func:`row_dot`'s einsum path (a 256-row batch of 8 columns).
ROW_DOT_EINSUM_BELOW = 1 << 13


def row_dot(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.einsum("ij,ij->i", a, b)`` of two float 2-D arrays of one shape: the products summed
    by a matrix-vector product. einsum runs one short loop per row; BLAS's product is several
    times faster on narrow rows (the additions' order is BLAS's, not einsum's); einsum itself on
    arrays of fewer than :data:`ROW_DOT_EINSUM_BELOW` values, whose fixed costs are lower. Into
    ``out`` (float64, one value per row) when given."""
    if a.size < ROW_DOT_EINSUM_BELOW:
        return np.einsum("ij,ij->i", a, b, out=out)
    products = np.multiply(a, b, out=work(("row dot", 0), a.shape))
    return np.matmul(products, ones(a.shape[1]), out=out)


@functools.lru_cache(maxsize=64)
def ones(n: int) -> np.ndarray:
    """``np.ones(n)``, kept read-only: the vector whose matrix product sums a row's values (a
    fresh one costs as much as a small batch's product)."""
    vector = np.ones(n)
    vector.flags.writeable = False
    return vector


def row_offsets(n: int, k: int) -> np.ndarray:
    """``np.arange(0, n * k, k)`` (the flat index of each row's first cell in a C-ordered
    ``(n, k)`` array) in a work array (valid until the next call in the thread); fresh on a
    small batch, where the look-up costs more."""
    if n < SMALL_ROWS:
        return np.arange(0, n * k, k)
    return np.multiply(_counting(n), k, out=work(("row offsets",), n, np.intp))


def _counting(n: int) -> np.ndarray:
    """``np.arange(n)`` as a view of a kept array, grown as needed (never written to; read into
    a local first, so a thread growing it at the same time cannot hand this call a shorter one)."""
    global _COUNTING
    counting = _COUNTING
    if len(counting) < n:
        counting = np.arange(max(n, 2 * len(counting)), dtype=np.intp)
        counting.flags.writeable = False
        _COUNTING = counting
    return counting[:n]


_COUNTING = np.arange(0, dtype=np.intp)


#: Rows of at most this many values are sorted by a sorting network applied to their columns
#: (:func:`sort_rows`; NumPy sorts short rows one at a time).
SORTING_NETWORK_MEMBERS = 16


@functools.cache
def sorting_network(m: int) -> tuple[tuple[int, int], ...]:
    """Batcher's odd-even merge sort on ``m`` positions: compare-exchange pairs ``(i, j)``,
    ``i < j``, that sort any ``m`` values (the network of the next power of two, less the pairs
    reaching past ``m``: those positions would hold +inf and never move).

    Examples:
        >>> sorting_network(3)
        ((0, 1), (0, 2), (1, 2))
    """
    size = 1 << max(m - 1, 0).bit_length()
    pairs = []
    p = 1
    while p < size:
        k = p
        while k >= 1:
            for j in range(k % p, size - k, 2 * k):
                for i in range(min(k, size - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p) and i + j + k < m:
                        pairs.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return tuple(pairs)


def sort_rows(rows: np.ndarray) -> list[int]:
    """Sort, in place, each column of the first ``m`` rows of an ``(m + 1, n)`` float array (the
    last row is spare room) by :func:`sorting_network` over the rows, whole rows at a time;
    returns ``where``: ``rows[where[k]]`` holds each column's ``k``-th smallest value (each
    compare-exchange writes its minimum into the spare row, whose role the emptied row takes:
    no copying back).

    Examples:
        >>> rows = np.array([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0], [0.0, 0.0]])
        >>> where = sort_rows(rows)
        >>> rows[where].tolist()
        [[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]]
    """
    m = len(rows) - 1
    values = list(rows[:m])  # values[k]: the row holding position k
    where = list(range(m))
    low, low_row = rows[m], m
    for i, j in sorting_network(m):  # compare-exchange, row against row
        np.minimum(values[i], values[j], out=low)
        np.maximum(values[i], values[j], out=values[j])
        values[i], low = low, values[i]
        where[i], low_row = low_row, where[i]
    return where


def counter_dtype(most: int) -> Any:
    """The smallest cheap integer type for counts up to ``most`` (uint8, else int64): counts
    added column by column in a narrow type cost less memory traffic."""
    return np.uint8 if most < 256 else np.int64


def column_sums(a: np.ndarray) -> np.ndarray:
    """The sum of each column of a 2-D array, each NumPy's pairwise sum of that column.

    Integers and booleans: ``a.sum(axis=0)`` exactly. Floats: not ``a.sum(axis=0)`` bit for
    bit: NumPy adds a narrow array row after row (one rounding per row, and slowly); a column's
    pairwise sum is both faster and more accurate.
    """
    if a.shape[1] > NARROW or not a.size:
        return a.sum(axis=0)
    add = np.add.reduce  # (ndarray.sum's own reduction, without its wrapper's cost per call)
    # (the sums are NumPy scalars of the reduction's type: the array takes it, as a.sum's)
    return np.array([add(a[:, j]) for j in range(a.shape[1])])


def weighted_column_sums(a: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """``weights @ a``, or :func:`column_sums` of ``a`` when ``weights`` is ``None``: the sums
    of a batch's per-row values."""
    return column_sums(a) if weights is None else weights @ a
