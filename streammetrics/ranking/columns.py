"""One score column of the sketch: its histogram arrays, and the operations on them.

A :class:`Column` holds, for one score column (one binary view, or one column of one-vs-one
groups), the bins at its own resolution and, per bin and *group* (a true class), counts, sums of
the within-bin coordinate and the smallest and largest key (see
:mod:`streammetrics.ranking.sketch`). At resolution :data:`EXACT` (52) every bin is one
distinct score: the column is exact.

Everything here is a pure function of arrays, so that the sketch can build new columns and
commit them at once. The budget rule lives here too: :func:`size_bound` is an upper bound on the
bytes a column takes in the state format that never decreases when data is added (at a given
resolution), and :func:`fit` takes a column to the finest resolution whose bound fits the budget
(exact first, then ``cap`` and coarser). Since the bound only grows with the data, the
resolution chosen for some data is the one chosen for any part of it or coarser: any split and
merge order ends in the same state.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core import narrow as N
from .._core.labels import run_starts
from ..errors import MergeError
from .keys import MANTISSA_BITS, OFFSET_SHIFT, cell_bits, offset_bits

EXACT = MANTISSA_BITS
#: The coarsest resolution: bins of ``2**63`` keys (one or two bins hold every score).
COARSEST = MANTISSA_BITS - 63
_U = np.uint64
_UMAX = np.iinfo(np.uint64).max
_POW7 = [_U(1 << (7 * k)) for k in range(1, 10)]
#: An integer column whose weight in some group reaches this keeps float64 counts and sums from
#: then on (as fractional weights do): a within-bin sum adds up to ``2**24`` per unit of weight,
#: so integer sums could otherwise pass int64 (sums of columns below it stay below ``2**62``).
WIDEN_AT = 1 << 37


class Column(NamedTuple):
    """The histogram of one score column (arrays shared, never written in place)."""

    res: int
    #: whether some extremes are only an envelope after a revert (see the sketch)
    loose: bool
    ids: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    kmin: np.ndarray
    kmax: np.ndarray

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.ids, self.counts, self.sums, self.kmin, self.kmax


def widened(col: Column) -> Column:
    """``col``, with float64 counts and sums once its weight in some group reaches :data:`WIDEN_AT`.

    Examples:
        >>> col = Column(10, False, np.array([3], np.uint64), np.array([[WIDEN_AT, 1]]),
        ...              np.array([[5, 0]]), np.array([[0, 0]], np.uint64), np.array([[0, 0]], np.uint64))
        >>> widened(col).counts.dtype, widened(col).sums.tolist()
        (dtype('float64'), [[5.0, 0.0]])
    """
    counts = col.counts
    # the grand total first: a flat sum is fast, a sum along the short rows is not
    if counts.dtype.kind != "i" or not counts.size or int(counts.sum()) < WIDEN_AT:
        return col
    if int(N.column_sums(counts).max()) < WIDEN_AT:
        return col
    return col._replace(counts=counts.astype(np.float64), sums=col.sums.astype(np.float64))


def empty(g: int, dtype: Any = np.int64, res: int = EXACT, loose: bool = False) -> Column:
    return Column(res, loose, np.empty(0, np.uint64), *empty_arrays(0, g, dtype))


def empty_arrays(b: int, g: int, dtype: Any) -> tuple[np.ndarray, ...]:
    return (
        np.zeros((b, g), dtype),
        np.zeros((b, g), dtype),
        np.full((b, g), _UMAX, np.uint64),
        np.zeros((b, g), np.uint64),
    )


# ---------------------------------------------------------------------- budget
def _varint_table() -> np.ndarray:
    """Bytes of a varint by the biased float64 exponent of its value (0: the value 0)."""
    exponent = np.arange(2048)
    bits = np.maximum(exponent - 1022, 1)  # a value of exponent e has e - 1022 bits
    return np.where(exponent == 0, 1, -(-bits // 7))


_VARINT_BY_EXPONENT = _varint_table()
#: values below this convert to float64 exactly, so their exponent gives their bit length
_EXACT_FLOAT = 1 << 53


def _exponents(x: np.ndarray) -> np.ndarray:
    """The biased float64 exponent of each value (all below :data:`_EXACT_FLOAT`)."""
    return x.astype(np.float64).view(np.int64) >> 52


def varint_bytes(x: np.ndarray, top: int | None = None) -> int:
    """The bytes of the values of ``x`` (uint64, any shape) as LEB128 varints, summed without
    an array of each one's length (``top``: ``x``'s largest value, where the caller has it)."""
    x = np.asarray(x, dtype=np.uint64)
    total = x.size
    if top is None:
        top = int(x.max()) if x.size else 0
    if 1 << 21 <= top < _EXACT_FLOAT:  # three or more bytes: one pass over exponents, not one per byte
        return int(np.bincount(_exponents(x).ravel(), minlength=2048) @ _VARINT_BY_EXPONENT)
    for k in range(1, 10):
        if top >> (7 * k) == 0:
            break
        total += int(np.count_nonzero(x >= _POW7[k - 1]))
    return total


def size_bound(col: Column) -> int:
    """An upper bound on the bytes of ``col``'s fields in the state format, monotone in the data.

    Exact for bin ids, counts and single-score extremes; a group of several scores is charged
    the larger of its two possible encodings (two exact samples, or an envelope with its sum),
    so that adding data never lowers the bound. Weighted (float64) counts are charged 18 bytes
    per cell (counts and sums as float64, and the most a varint pair would take).
    """
    ids, counts, _, kmin, kmax = col.arrays
    if not len(ids):
        return 0
    shift = MANTISSA_BITS - col.res
    total = _gap_bytes(ids)
    occupied = counts > 0
    single = occupied & (kmin == kmax)
    multi = occupied & ~single
    # a single score's offset from its bin's start: its key's low bits (shift < 64 at any resolution)
    total += varint_bytes(N.cells(kmin & _U((1 << shift) - 1), single))
    total += (int(np.count_nonzero(occupied)) + 7) // 8
    pair = 2 * max(1, -(-shift // 7))
    if counts.dtype.kind == "f":
        total += 18 * counts.size + int(multi.sum()) * max(pair, 2)
    else:
        top = int(counts.max())
        total += varint_bytes(counts.view(np.uint64), top)  # (counts >= 0)
        total += _envelope_bytes(counts, multi, top, 2 + -(-offset_bits(col.res) // 7), pair)
    return total


def _gap_bytes(ids: np.ndarray) -> int:
    """The varint bytes of ``np.diff(ids, prepend=0)`` (what the state format writes for the
    increasing ``uint64`` ids of a non-empty column): the first gap, the first id, is large and
    counted apart, so that the small ones take :func:`varint_bytes`' cheap path."""
    return _varint_length(int(ids[0])) + varint_bytes(np.diff(ids))


def _varint_length(v: int) -> int:
    """Bytes of the non-negative integer ``v`` as an LEB128 varint."""
    return max(1, -(-v.bit_length() // 7))


def _envelope_bytes(counts: np.ndarray, multi: np.ndarray, top: int, fixed: int, pair: int) -> int:
    """``sum(max(fixed + varint_length(c), pair))`` over the integer counts ``c`` of the ``multi``
    cells (``top``: the largest count), by varint levels: a count of ``j`` varint bytes adds 1
    for each level ``2..j`` at which ``fixed + level > pair``, to ``max(fixed + 1, pair)``."""
    m = int(np.count_nonzero(multi))
    if not m:
        return 0
    total = m * max(fixed + 1, pair)
    if top >= _POW7[0]:
        held = N.cells(counts, multi)
        for level in range(2, 11):
            if top < _POW7[level - 2]:
                break
            if fixed + level > pair:
                total += int(np.count_nonzero(held >= _POW7[level - 2]))
    return total


def fits(col: Column, budget: int | None, max_bins: int | None) -> bool:
    return (budget is None or size_bound(col) <= budget) and (max_bins is None or len(col.ids) <= max_bins)


def fit(col: Column, cap: int, budget: int | None, max_bins: int | None) -> Column:
    """``col`` at the finest resolution that fits: as it is, else ``cap`` or coarser.

    The result for some data is a function of that data only (see the module docstring).
    """
    if fits(col, budget, max_bins):
        return col
    res = min(col.res, cap)
    if res == col.res:  # already at (or below) the cap, and known not to fit: one step coarser
        if res <= COARSEST:
            return col
        res -= 1
    while True:
        col = coarsened(col, res)
        if res <= COARSEST or fits(col, budget, max_bins):
            return col
        res -= 1


def coarsened(col: Column, res: int) -> Column:
    """The same column at a coarser (or equal) resolution, extremes in canonical form."""
    if res >= col.res:
        return col
    arrays = _coarsen(col.res, res, *col.arrays)
    return Column(res, col.loose, *settle(res, *arrays, col.loose))


# ---------------------------------------------------------------------- histograms
def settle(res: int, ids, counts, sums, kmin, kmax, loose: bool) -> tuple[np.ndarray, ...]:
    """Round the extremes of groups with several distinct scores out to the grid (canonical form).

    Exact extremes are kept for one distinct score, and, with integer counts and no revert, for
    two samples; the rule depends on the data only, so merges stay order independent.
    """
    cell = cell_bits(res)
    if not cell or not len(ids):
        return ids, counts, sums, kmin, kmax
    multi = counts >= 3 if counts.dtype.kind == "i" and not loose else counts > 0
    multi &= kmin != kmax
    if multi.any():  # the cell's mask where several scores, 0 elsewhere: two bitwise passes
        mask = multi.view(np.uint8).astype(np.uint64)
        mask *= _U((1 << cell) - 1)
        kmin = kmin & ~mask
        kmax = kmax | mask
    return ids, counts, sums, kmin, kmax


def histogram(
    kf, gf, wf, integral: bool, g: int, res: int, loose: bool = False, base: Column | None = None
) -> Column:
    """The column of one batch of keys ``kf`` with groups ``gf`` (``0..g-1``) and weights ``wf``;
    with ``base`` (a column at ``res``), ``union(base, that column)`` built in one pass where the
    bins are dense enough (no sort, no merge)."""
    if integral and wf is not None and float(wf.sum()) >= WIDEN_AT:
        integral = False  # a batch of that much integer weight is summed in float64 (see widened)
    if base is not None:
        base = widened(base)
    shift = _U(MANTISSA_BITS - res)
    ids = kf >> shift
    if base is not None and (base.res != res or not len(base.ids)):
        return union(base, histogram(kf, gf, wf, integral, g, res, loose))
    if not ids.size:
        h = empty(g, np.int64 if wf is None or integral else np.float64, res, loose)
        return h if base is None else union(base, h)
    lo, hi = ids.min(), ids.max()
    if base is not None:
        lo, hi = min(lo, base.ids[0]), max(hi, base.ids[-1])
    span = int(hi - lo) + 1
    dense = span <= max(4 * len(ids), 1 << 16)
    if base is not None and not dense:
        return union(base, histogram(kf, gf, wf, integral, g, res, loose))
    if dense:
        ids -= lo
        loc = ids.view(np.int64)  # (a fresh array: in place)
        n_loc = span
    else:
        uniq, loc = unique_inverse(ids)
        n_loc = len(uniq)
    if g > 1:
        flat = loc
        flat *= g
        flat += gf
    else:
        flat = loc
    size = n_loc * g
    bits = offset_bits(res)
    n = len(kf)
    sums = None
    if wf is None and bits and 2 * n.bit_length() + bits <= 53:
        # counts and offset sums in one float64 bincount: each key weighs 2**k + offset, with
        # 2**k above any bin's offset sum and every total below 2**53 (so all exact)
        k = n.bit_length() + bits
        w = kf >> _U(OFFSET_SHIFT)
        w &= _U((1 << bits) - 1)
        w |= _U(1 << k)  # (the offset is below 2**k: | adds it)
        # (below 2**53: the signed conversion, faster than the unsigned one, is exact)
        total = np.bincount(flat, weights=w.view(np.int64).astype(np.float64), minlength=size).astype(
            np.int64
        )
        counts = total >> k
        sums = total & ((1 << k) - 1)
        dtype = np.int64
    elif wf is None:
        counts = np.bincount(flat, minlength=size)
        dtype = np.int64
    elif integral:
        counts = np.rint(np.bincount(flat, weights=wf, minlength=size)).astype(np.int64)
        dtype = np.int64
    else:
        counts = np.bincount(flat, weights=wf, minlength=size)
        dtype = np.float64
    if sums is not None:
        pass
    elif bits:
        off = kf >> _U(OFFSET_SHIFT)
        off &= _U((1 << bits) - 1)
        if wf is None and len(kf) < 1 << 28:  # exact in float64: below 2**24 * 2**28
            sums = np.bincount(flat, weights=off.view(np.int64).astype(np.float64), minlength=size).astype(
                np.int64
            )
        elif dtype == np.int64:
            sums = np.zeros(size, np.int64)
            np.add.at(sums, flat, off.astype(np.int64) * wf.astype(np.int64))
        else:
            sums = np.bincount(flat, weights=off.astype(np.float64) * wf, minlength=size)
    else:
        sums = np.zeros(size, dtype)
    if res == EXACT:  # one key per bin: the extremes are the bin's key
        kmin = np.repeat(lo + np.arange(n_loc, dtype=np.uint64) if dense else uniq, g)
        kmax = kmin.copy()
    else:
        kmin = np.full(size, _UMAX, np.uint64)
        kmax = np.zeros(size, np.uint64)
        np.minimum.at(kmin, flat, kf)
        np.maximum.at(kmax, flat, kf)
    # flat (bins x groups) arrays: NumPy is slow on short rows (2-D gathers, reductions along them)
    if base is not None:  # dense: the base's bins are rows of the grid
        if base.counts.dtype != counts.dtype:
            counts = counts.astype(np.float64)
        if base.sums.dtype != sums.dtype:
            sums = sums.astype(np.float64)
        pos = _cells((base.ids - lo).astype(np.intp), g)
        counts[pos] += base.counts.ravel()
        sums[pos] += base.sums.ravel()
        kmin[pos] = np.minimum(kmin[pos], base.kmin.ravel())
        kmax[pos] = np.maximum(kmax[pos], base.kmax.ravel())
        loose = loose or base.loose
    empty_cells = counts <= 0
    if res == EXACT:
        kmin[empty_cells], kmax[empty_cells] = _UMAX, 0
    occupied = ~empty_cells[0::g]
    for j in range(1, g):
        occupied |= ~empty_cells[j::g]
    rows = np.flatnonzero(occupied)
    out_ids = lo + rows.astype(np.uint64) if dense else uniq[rows]
    if len(rows) == n_loc:
        arrays = (out_ids, *(a.reshape(n_loc, g) for a in (counts, sums, kmin, kmax)))
    else:
        arrays = (out_ids, *(N.take_rows(a.reshape(n_loc, g), rows) for a in (counts, sums, kmin, kmax)))
    if base is not None:
        return widened(Column(res, loose, *settle(res, *arrays, loose)))
    return Column(res, loose, *arrays)


def _cells(rows: np.ndarray, g: int) -> np.ndarray:
    """The flat indices of the cells of ``rows`` in a (bins x ``g``) array."""
    if g == 1:
        return rows
    out = np.empty((len(rows), g), rows.dtype)
    first = rows * g
    for j in range(g):  # one column at a time: a broadcast over rows of g cells pays per row
        np.add(first, j, out=out[:, j])
    return out.ravel()


def unique_inverse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(x, return_inverse=True)`` by one sort (NumPy's hashing unique of integers is
    slow on many distinct values)."""
    order = np.argsort(x)
    sx = x[order]
    new = run_starts(sx)
    inv = np.empty(len(sx), np.intp)
    inv[order] = np.cumsum(new) - 1
    return sx[new], inv


def distinct_lower_bound(kf: np.ndarray) -> int:
    """A lower bound of the number of distinct keys in ``kf``, in linear time: the occupied bins
    of width ``2**s`` (from the smallest key) where ``s`` makes at most ``4 * len(kf)`` bins."""
    if not kf.size:
        return 0
    lo = kf.min()
    span = int(kf.max() - lo)
    s = max(0, (span // (4 * len(kf))).bit_length())
    loc = ((kf - lo) >> _U(s)).astype(np.intp)
    return int(np.count_nonzero(np.bincount(loc)))


def exact_cannot_fit(kf: np.ndarray, g: int, budget: int | None, max_bins: int | None) -> bool:
    """Whether an exact column holding the sorted keys ``kf`` (and perhaps more) is sure to
    exceed the budget: its :func:`size_bound` is at least the varint bytes of the differences of
    these distinct keys (inserting a key never lowers that sum: ``v(a + b) <= v(a) + v(b)``),
    plus ``g`` count bytes and one extreme byte per key."""
    if not len(kf):
        return False
    new = run_starts(kf)
    uk = kf[new]
    if max_bins is not None and len(uk) > max_bins:
        return True
    if budget is None or len(uk) * (g + 2) <= budget // 8:
        return False
    low = _gap_bytes(uk) + (g + 1) * len(uk)
    return low > budget


def exact_absorbed(col: Column, kf: np.ndarray, gf: np.ndarray) -> Column:
    """``union(col, histogram(kf, gf, None, True, g, EXACT))`` for an exact column of integer
    counts and keys ``kf`` already sorted (with their groups ``gf``): one merge of two sorted runs."""
    g = col.counts.shape[1]
    if not len(kf):
        return col
    new = run_starts(kf)
    uk = kf[new]
    gid = np.cumsum(new)
    gid -= 1
    if g > 1:
        gid *= g
        gid += gf
    cnt = np.bincount(gid, minlength=len(uk) * g).reshape(len(uk), g)
    if not len(col.ids):
        ids, counts = uk, cnt
    else:
        both = np.concatenate([col.ids, uk])
        order = np.argsort(both, kind="stable")  # two sorted runs: a merge
        sk = both[order]
        first = run_starts(sk)
        ids = sk[first]
        pos = np.empty(len(sk), np.intp)
        pos[order] = np.cumsum(first) - 1
        counts = np.zeros((len(ids), g), np.int64)
        old_at, new_at = pos[: len(col.ids)], pos[len(col.ids) :]
        for j in range(g):  # one group at a time: 1-D scatters (a 2-D one pays per row)
            counts[:, j][old_at] = col.counts[:, j]
            counts[:, j][new_at] += cnt[:, j]
    occupied = counts > 0
    kmin = np.empty(counts.shape, np.uint64)
    kmax = np.empty(counts.shape, np.uint64)
    for j in range(g):
        kmin[:, j] = np.where(occupied[:, j], ids, _UMAX)
        kmax[:, j] = np.where(occupied[:, j], ids, _U(0))
    return widened(Column(EXACT, col.loose, ids, counts, np.zeros(counts.shape, np.int64), kmin, kmax))


def _promote(a: np.ndarray, b: np.ndarray) -> Any:
    return np.float64 if (a.dtype.kind == "f" or b.dtype.kind == "f") else np.int64


def union(a: Column, b: Column) -> Column:
    """The sum of two columns at the coarser of their resolutions (extremes settled)."""
    res = min(a.res, b.res)
    loose = a.loose or b.loose
    a, b = coarsened(widened(a), res), coarsened(widened(b), res)
    merged = _union(a.arrays, b.arrays)
    return widened(Column(res, loose, *settle(res, *merged, loose)))


def _union(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    ids_a, ids_b = a[0], b[0]
    if not len(ids_b):
        return a
    if not len(ids_a):
        return b
    g = b[1].shape[1]
    if a[1].shape[1] != g:
        raise MergeError(f"cannot merge score sketches of {a[1].shape[1]} and {g} groups")
    ids = np.concatenate([ids_a, ids_b])
    order = np.argsort(ids, kind="stable")  # two sorted runs: a merge
    ids = ids[order]
    starts = np.flatnonzero(run_starts(ids))
    # each id is in each side at most once: a run is one bin of a, one of b, or one of each
    first, last = order[starts], order[_run_ends(starts, len(ids))]
    ct, st = _promote(a[1], b[1]), _promote(a[2], b[2])

    def reduce(op: Any, x: np.ndarray, y: np.ndarray, dtype: Any) -> np.ndarray:
        return _pair_reduce(op, np.concatenate([x, y]).astype(dtype, copy=False), first, last)

    return (
        ids[starts],
        reduce(np.add, a[1], b[1], ct),
        reduce(np.add, a[2], b[2], st),
        reduce(np.minimum, a[3], b[3], np.uint64),
        reduce(np.maximum, a[4], b[4], np.uint64),
    )


def _pair_reduce(op: Any, x: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """``op.reduceat`` of the rows of ``x`` over runs of one or two rows, the run ``i`` being rows
    ``first[i]`` and ``last[i]`` (equal for a run of one): two row gathers, in ``reduceat``'s
    order (``x[first] op x[last]``)."""
    if op is not np.add:  # min, max: a run of one reduces with itself
        return op(N.take_rows(x, first), N.take_rows(x, last))
    # a run of one adds a row of zeros (appended), not itself: gathers, no 2-D select
    padded = np.concatenate([x, np.zeros((1, *x.shape[1:]), x.dtype)])
    second = np.where(first != last, last, len(x))
    out = N.take_rows(x, first)
    out += N.take_rows(padded, second)
    return out


def _run_ends(starts: np.ndarray, n: int) -> np.ndarray:
    """The last index of each run of ``n`` sorted values, given the first indices ``starts``."""
    last = np.empty_like(starts)
    last[:-1] = starts[1:] - 1
    last[-1:] = n - 1
    return last


def _coarsen(res_from: int, res_to: int, ids, counts, sums, kmin, kmax) -> tuple[np.ndarray, ...]:
    """The same histogram at a coarser resolution (exact integer arithmetic on integer states)."""
    d = res_from - res_to
    if d <= 0 or not len(ids):
        return ids, counts, sums, kmin, kmax
    s_old, s_new, q = MANTISSA_BITS - res_from, MANTISSA_BITS - res_to, OFFSET_SHIFT
    low = ids & _U((1 << d) - 1) if d < 64 else ids
    if s_new <= q or offset_bits(res_to) == 0:
        new_sums = np.zeros_like(sums)
    elif s_old >= q:
        base = (low << _U(s_old - q)).astype(np.int64)
        new_sums = sums + N.with_column(
            np.multiply, counts, base.astype(sums.dtype if sums.dtype.kind == "f" else np.int64)
        )
    else:
        per = ((ids << _U(s_old)) >> _U(q)) & _U((1 << (s_new - q)) - 1)
        dtype = np.float64 if counts.dtype.kind == "f" else np.int64
        new_sums = N.with_column(np.multiply, counts, per.astype(np.int64)).astype(dtype, copy=False)
    if new_sums.dtype != counts.dtype:
        new_sums = new_sums.astype(np.float64)
    new_ids = ids >> _U(d) if d < 64 else np.zeros_like(ids)
    starts = np.flatnonzero(run_starts(new_ids))
    if d > 1:
        return (
            new_ids[starts],
            np.add.reduceat(counts, starts, axis=0),
            np.add.reduceat(new_sums, starts, axis=0),
            np.minimum.reduceat(kmin, starts, axis=0),
            np.maximum.reduceat(kmax, starts, axis=0),
        )
    # one level: a new bin joins at most two old ones (two row gathers, not a reduceat)
    last = _run_ends(starts, len(ids))
    return (
        new_ids[starts],
        _pair_reduce(np.add, counts, starts, last),
        _pair_reduce(np.add, new_sums, starts, last),
        _pair_reduce(np.minimum, kmin, starts, last),
        _pair_reduce(np.maximum, kmax, starts, last),
    )


def cell_means(col: Column) -> np.ndarray:
    """Per (bin, group) cell, the mean within-bin coordinate of its weight (``sums / counts``; 0
    where the cell is empty)."""
    held = col.counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(held, col.sums / np.where(held, col.counts, 1), 0.0)


def one_vs_rest(col: Column, own: int) -> Column:
    """A column of K true-class groups as two groups: every other class, then class ``own``."""
    others = [k for k in range(col.counts.shape[1]) if k != own]
    counts = np.stack([col.counts[:, others].sum(axis=1), col.counts[:, own]], axis=1)
    sums = np.stack([col.sums[:, others].sum(axis=1), col.sums[:, own]], axis=1)
    kmin = np.stack([col.kmin[:, others].min(axis=1, initial=_UMAX), col.kmin[:, own]], axis=1)
    kmax = np.stack([col.kmax[:, others].max(axis=1, initial=0), col.kmax[:, own]], axis=1)
    keep = (counts > 0).any(axis=1)
    arrays = tuple(a[keep] for a in (col.ids, counts, sums, kmin, kmax))
    return Column(col.res, col.loose, *settle(col.res, *arrays, col.loose))
