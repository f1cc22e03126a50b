"""The score sketch: a mergeable histogram of scores per class, on fixed nested bins.

Every shard uses the same bins (see :mod:`streammetrics.ranking.keys`), so merging is a sorted
union of bin ids and an addition of counts: integer counts come out bit-identical in any merge
order. Per bin and per *group* (a score column and a true class) the sketch keeps

* ``counts``: int64 counts (float64 weighted counts once a non-integer weight is seen);
* ``sums``: the sum of the within-bin coordinate (the dropped key bits, quantized at 24
  mantissa bits so that it is an exact integer), used to refine estimates inside a bin;
* ``kmin`` / ``kmax`` (per bin and score column, both classes together): the smallest and
  largest exact key, so a bin whose samples share one score is exact (and thresholds are real
  scores).

With ``resolution=52`` every bin holds one distinct score: the sketch is then exact (counts per
distinct score), with memory growing with the number of distinct scores.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core.state import State, require_keys
from ..errors import InputError, MergeError, StateError
from .keys import MANTISSA_BITS, OFFSET_SHIFT

EXACT = MANTISSA_BITS
_UMAX = np.iinfo(np.uint64).max


class BinaryHistogram(NamedTuple):
    """One positive-vs-negative view of a sketch, bins in increasing score order (float64)."""

    ids: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    pos_sum: np.ndarray
    neg_sum: np.ndarray
    #: smallest and largest exact key in the bin (both classes)
    kmin: np.ndarray
    kmax: np.ndarray
    #: number of bits of the within-bin coordinate held in ``*_sum`` (0: none)
    offset_bits: int
    resolution: int


def _offset_bits(resolution: int) -> int:
    return max(MANTISSA_BITS - resolution - OFFSET_SHIFT, 0)


class ScoreSketch(State):
    """Per-class score histograms on shared, nested bins (see the module docstring).

    ``layout = (n_columns, n_classes)`` is fixed by the first non-empty batch: one score column
    and classes {negative, positive} for binary input, K columns and K true classes for
    multiclass, L columns and 2 classes for multilabel. Group ``g = column * n_classes + class``.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(resolution=4)
        >>> p = np.array([0.1, 0.4, 0.35, 0.8])
        >>> s.add(keys_of(p, "probability"), np.array([0, 1, 0, 1]), None, (1, 2))
        >>> s.n_bins, s.counts.sum(axis=0).tolist()
        (4, [2, 2])
    """

    revertible = False

    def __init__(self, resolution: int = 10, max_bins: int | None = None) -> None:
        self._resolution = resolution
        self._max_bins = max_bins
        self.reset()

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {"resolution": self._resolution, "max_bins": self._max_bins}

    def reset(self) -> None:
        self.layout: tuple[int, int] | None = None
        self.multilabel = False
        self.resolution = self._resolution
        self._set(np.empty(0, np.uint64), *self._empty_arrays(0, 0, np.int64))
        self._n = 0

    @staticmethod
    def _empty_arrays(b: int, g: int, dtype: Any, c: int = 0) -> tuple[np.ndarray, ...]:
        return (
            np.zeros((b, g), dtype),
            np.zeros((b, g), dtype),
            np.full((b, c), _UMAX, np.uint64),
            np.zeros((b, c), np.uint64),
        )

    def _set(self, ids, counts, sums, kmin, kmax) -> None:
        self.ids, self.counts, self.sums, self.kmin, self.kmax = ids, counts, sums, kmin, kmax

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def n_bins(self) -> int:
        return len(self.ids)

    @property
    def n_groups(self) -> int:
        return 0 if self.layout is None else self.layout[0] * self.layout[1]

    @property
    def is_exact(self) -> bool:
        return self.resolution == EXACT

    @property
    def nbytes(self) -> int:
        """Memory of the arrays (the state's size in bytes, headers aside)."""
        return sum(a.nbytes for a in (self.ids, self.counts, self.sums, self.kmin, self.kmax))

    def total_weight(self) -> float:
        return float(self.counts.sum())

    # ------------------------------------------------------------------ update
    def add(
        self,
        keys: np.ndarray,
        groups: np.ndarray,
        weights: np.ndarray | None,
        layout: tuple[int, int],
        n_rows: int | None = None,
        multilabel: bool = False,
    ) -> None:
        """Add keys (uint64, shape (n,) or (n, c)) with their groups (same shape) and row weights."""
        n_rows = len(keys) if n_rows is None else n_rows
        if self.layout is not None and (layout != self.layout or multilabel != self.multilabel) and keys.size:
            raise InputError(
                f"y_score: expected {self.layout[0]} score column(s) and {self.layout[1]} classes "
                f"({'multilabel' if self.multilabel else 'binary/multiclass'}) like earlier batches, "
                f"found {layout[0]} and {layout[1]} ({'multilabel' if multilabel else 'binary/multiclass'})"
            )
        if not keys.size:
            self._n += n_rows
            return
        layout[0] * layout[1]
        kf = keys.ravel()
        gf = groups.ravel()
        wf = None
        integral = True
        if weights is not None:
            wf = np.repeat(weights, keys.shape[1]) if keys.ndim == 2 else weights
            keep = wf > 0
            if not keep.all():
                kf, gf, wf = kf[keep], gf[keep], wf[keep]
            integral = bool(np.all(wf == np.floor(wf))) and (not wf.size or wf.max() < 2.0**31)
        batch = _histogram(kf, gf, wf, integral, layout, self.resolution)
        layout_before = self.layout, self.multilabel
        self.layout, self.multilabel = layout, multilabel
        try:
            self._absorb(*batch, self.resolution)
        except Exception:
            self.layout, self.multilabel = layout_before
            raise
        self._n += n_rows

    def _absorb(self, ids, counts, sums, kmin, kmax, resolution: int) -> None:
        """Merge histogram arrays (at ``resolution``) into ``self``; then respect ``max_bins``."""
        res = min(self.resolution, resolution)
        mine = _coarsen(self.resolution, res, self.ids, self.counts, self.sums, self.kmin, self.kmax)
        theirs = _coarsen(resolution, res, ids, counts, sums, kmin, kmax)
        merged = _union(mine, theirs)
        while self._max_bins is not None and len(merged[0]) > self._max_bins and res > 0:
            merged = _coarsen(res, res - 1, *merged)
            res -= 1
        self.resolution = res
        self._set(*merged)

    # ------------------------------------------------------------------ merge / coarsen
    def check_mergeable(self, other: State) -> None:
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge a {type(other).__name__} state into a {type(self).__name__} state"
            )
        if self._max_bins != other._max_bins:  # type: ignore[attr-defined]
            raise MergeError(
                f"cannot merge score sketches of different max_bins: {self._max_bins} vs {other._max_bins}"  # type: ignore[attr-defined]
            )

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ScoreSketch)
        if (
            other.layout is not None
            and self.layout is not None
            and (other.layout != self.layout or other.multilabel != self.multilabel)
        ):
            raise MergeError(f"cannot merge score sketches of layout {other.layout} into {self.layout}")
        if other.layout is not None:
            self.layout, self.multilabel = other.layout, other.multilabel
            self._absorb(other.ids, other.counts, other.sums, other.kmin, other.kmax, other.resolution)
        elif other.resolution < self.resolution:
            self._absorb(other.ids, other.counts, other.sums, other.kmin, other.kmax, other.resolution)
        self._n += other._n

    def coarsen(self, resolution: int) -> None:
        """Lower the resolution in place (bins nest: the result is what that resolution gives)."""
        if resolution > self.resolution:
            raise ValueError(
                f"resolution: expected at most the current {self.resolution}, found {resolution}"
            )
        self._set(
            *_coarsen(self.resolution, resolution, self.ids, self.counts, self.sums, self.kmin, self.kmax)
        )
        self.resolution = resolution

    # ------------------------------------------------------------------ serialization
    def to_dict(self) -> dict[str, Any]:
        return {
            "layout": None if self.layout is None else list(self.layout),
            "multilabel": self.multilabel,
            "resolution": self.resolution,
            "ids": self.ids,
            "counts": self.counts,
            "sums": self.sums,
            "kmin": self.kmin,
            "kmax": self.kmax,
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "ScoreSketch state"
        require_keys(
            data,
            {"layout", "multilabel", "resolution", "ids", "counts", "sums", "kmin", "kmax", "n_samples"},
            where,
        )
        layout, res, n = data["layout"], data["resolution"], data["n_samples"]
        if layout is not None and (
            not isinstance(layout, list)
            or len(layout) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in layout)
        ):
            raise StateError(f"{where}: layout must be None or two positive ints, found {layout!r}")
        if not isinstance(res, int) or isinstance(res, bool) or not 0 <= res <= self._resolution:
            raise StateError(f"{where}: resolution must be an int in [0, {self._resolution}], found {res!r}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise StateError(f"{where}: n_samples must be a non-negative int, found {n!r}")
        ids = np.asarray(data["ids"])
        if ids.dtype != np.uint64 or ids.ndim != 1:
            raise StateError(f"{where}: ids must be a 1-D uint64 array")
        g = 0 if layout is None else layout[0] * layout[1]
        arrays = []
        for name in ("counts", "sums", "kmin", "kmax"):
            arr = np.asarray(data[name])
            width = g if name in ("counts", "sums") else (0 if layout is None else layout[0])
            if arr.shape != (len(ids), width):
                raise StateError(f"{where}: {name} of shape {arr.shape}, expected {(len(ids), width)}")
            if name in ("kmin", "kmax") and arr.dtype != np.uint64:
                raise StateError(f"{where}: {name} must be uint64")
            if name in ("counts", "sums") and arr.dtype not in (np.int64, np.float64):
                raise StateError(f"{where}: {name} must be int64 or float64, found {arr.dtype}")
            arrays.append(arr)
        if not isinstance(data["multilabel"], bool):
            raise StateError(f"{where}: multilabel must be a bool")
        self.multilabel = data["multilabel"]
        self.layout = None if layout is None else (layout[0], layout[1])
        self.resolution = res
        self._set(ids, *arrays)
        self._n = n

    def check(self) -> None:
        where = "ScoreSketch state"
        if self.ids.size > 1 and not np.all(self.ids[1:] > self.ids[:-1]):
            raise StateError(f"{where}: bin ids must be strictly increasing")
        if self.counts.size and (not np.isfinite(self.counts).all() or self.counts.min() < 0):
            raise StateError(f"{where}: counts must be finite and non-negative")
        if self.ids.size and not self.counts.any(axis=1).all():
            raise StateError(f"{where}: empty bins are not stored")
        shift = np.uint64(MANTISSA_BITS - self.resolution)
        if self.layout is None:
            return
        occupied = self.counts.reshape(len(self.ids), *self.layout).sum(axis=2) > 0
        ids = np.broadcast_to(self.ids[:, None], self.kmin.shape)
        if self.ids.size and (
            np.any((self.kmin >> shift)[occupied] != ids[occupied])
            or np.any((self.kmax >> shift)[occupied] != ids[occupied])
            or np.any(self.kmin[occupied] > self.kmax[occupied])
        ):
            raise StateError(f"{where}: kmin/kmax do not lie in their bins")

    # ------------------------------------------------------------------ views
    def binary_view(self, column: int, positive: list[int], negative: list[int]) -> BinaryHistogram:
        """Positive classes vs negative classes of one score column (or all columns: ``-1``)."""
        assert self.layout is not None
        n_cols, n_cls = self.layout
        cols = range(n_cols) if column < 0 else [column]
        pg = [c * n_cls + k for c in cols for k in positive]
        ng = [c * n_cls + k for c in cols for k in negative]
        pos = self.counts[:, pg].sum(axis=1, dtype=np.float64)
        neg = self.counts[:, ng].sum(axis=1, dtype=np.float64)
        keep = (pos > 0) | (neg > 0)
        if not keep.all():
            sel = np.flatnonzero(keep)
        else:
            sel = slice(None)

        return BinaryHistogram(
            ids=self.ids[sel],
            pos=pos[sel],
            neg=neg[sel],
            pos_sum=self.sums[sel][:, pg].sum(axis=1, dtype=np.float64),
            neg_sum=self.sums[sel][:, ng].sum(axis=1, dtype=np.float64),
            kmin=self.kmin[sel][:, list(cols)].min(axis=1),
            kmax=self.kmax[sel][:, list(cols)].max(axis=1),
            offset_bits=_offset_bits(self.resolution),
            resolution=self.resolution,
        )


# ---------------------------------------------------------------------- array helpers
def _histogram(kf, gf, wf, integral: bool, layout: tuple[int, int], resolution: int):
    """Histogram arrays (ids, counts, sums, kmin, kmax) of one batch of keys."""
    shift = np.uint64(MANTISSA_BITS - resolution)
    ids = kf >> shift
    lo, hi = (ids.min(), ids.max()) if ids.size else (np.uint64(0), np.uint64(0))
    span = int(hi - lo) + 1
    dense = span <= max(4 * len(ids), 1 << 16)
    if dense:
        loc = (ids - lo).astype(np.intp)
        n_loc = span
    else:
        uniq, loc = np.unique(ids, return_inverse=True)
        loc = loc.ravel()
        n_loc = len(uniq)
    n_cols, n_cls = layout
    g = n_cols * n_cls
    flat = loc * g + gf if g > 1 else loc
    size = n_loc * g
    if wf is None:
        counts = np.bincount(flat, minlength=size)
        dtype = np.int64
    elif integral:
        counts = np.rint(np.bincount(flat, weights=wf, minlength=size)).astype(np.int64)
        dtype = np.int64
    else:
        counts = np.bincount(flat, weights=wf, minlength=size)
        dtype = np.float64
    bits = _offset_bits(resolution)
    if bits:
        off = (kf >> np.uint64(OFFSET_SHIFT)) & np.uint64((1 << bits) - 1)
        if dtype == np.int64:
            sums = np.zeros(size, np.int64)
            np.add.at(
                sums, flat, off.astype(np.int64) if wf is None else off.astype(np.int64) * wf.astype(np.int64)
            )
        else:
            sums = np.bincount(flat, weights=off.astype(np.float64) * wf, minlength=size)
    else:
        sums = np.zeros(size, dtype)
    cflat = loc * n_cols + gf // n_cls if n_cols > 1 else loc
    kmin = np.full(n_loc * n_cols, _UMAX, np.uint64)
    kmax = np.zeros(n_loc * n_cols, np.uint64)
    np.minimum.at(kmin, cflat, kf)
    np.maximum.at(kmax, cflat, kf)
    counts, sums = counts.reshape(n_loc, g), sums.reshape(n_loc, g)
    kmin, kmax = kmin.reshape(n_loc, n_cols), kmax.reshape(n_loc, n_cols)
    occupied = (counts > 0).any(axis=1)
    rows = np.flatnonzero(occupied)
    out_ids = lo + rows.astype(np.uint64) if dense else uniq[rows]
    return out_ids, counts[rows], sums[rows], kmin[rows], kmax[rows]


def _promote(a: np.ndarray, b: np.ndarray) -> Any:
    return np.float64 if (a.dtype.kind == "f" or b.dtype.kind == "f") else np.int64


def _union(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    ids_a, ids_b = a[0], b[0]
    if not len(ids_b):
        return a
    if not len(ids_a):
        return b
    g, c = b[1].shape[1], b[3].shape[1]
    if a[1].shape[1] != g or a[3].shape[1] != c:
        raise MergeError(f"cannot merge score sketches of {a[1].shape[1]} and {g} groups")
    if np.array_equal(ids_a, ids_b):
        ia = ib = slice(None)
        ids = ids_a
    else:
        ids = np.union1d(ids_a, ids_b)
        ia, ib = np.searchsorted(ids, ids_a), np.searchsorted(ids, ids_b)
    ct = _promote(a[1], b[1])
    st = _promote(a[2], b[2])
    counts = np.zeros((len(ids), g), ct)
    sums = np.zeros((len(ids), g), st)
    kmin = np.full((len(ids), c), _UMAX, np.uint64)
    kmax = np.zeros((len(ids), c), np.uint64)
    counts[ia] = a[1]
    counts[ib] += b[1]
    sums[ia] = a[2]
    sums[ib] += b[2]
    kmin[ia] = a[3]
    kmin[ib] = np.minimum(kmin[ib], b[3])
    kmax[ia] = a[4]
    kmax[ib] = np.maximum(kmax[ib], b[4])
    return ids, counts, sums, kmin, kmax


def _coarsen(res_from: int, res_to: int, ids, counts, sums, kmin, kmax) -> tuple[np.ndarray, ...]:
    """The same histogram at a coarser resolution (exact integer arithmetic on integer states)."""
    d = res_from - res_to
    if d <= 0 or not len(ids):
        return ids, counts, sums, kmin, kmax
    s_old, s_new, q = MANTISSA_BITS - res_from, MANTISSA_BITS - res_to, OFFSET_SHIFT
    low = ids & np.uint64((1 << d) - 1)
    if s_new <= q:
        new_sums = np.zeros_like(sums)
    elif s_old >= q:
        base = (low << np.uint64(s_old - q)).astype(np.int64)
        new_sums = sums + counts * base[:, None].astype(sums.dtype if sums.dtype.kind == "f" else np.int64)
    else:
        per = ((ids << np.uint64(s_old)) >> np.uint64(q)) & np.uint64((1 << (s_new - q)) - 1)
        dtype = np.float64 if counts.dtype.kind == "f" else np.int64
        new_sums = (counts * per.astype(np.int64)[:, None]).astype(dtype)
    if new_sums.dtype != counts.dtype:
        new_sums = new_sums.astype(np.float64)
    new_ids = ids >> np.uint64(d)
    starts = np.flatnonzero(np.concatenate([[True], new_ids[1:] != new_ids[:-1]]))
    return (
        new_ids[starts],
        np.add.reduceat(counts, starts, axis=0),
        np.add.reduceat(new_sums, starts, axis=0),
        np.minimum.reduceat(kmin, starts, axis=0),
        np.maximum.reduceat(kmax, starts, axis=0),
    )
