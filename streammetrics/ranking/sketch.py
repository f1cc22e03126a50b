"""The score sketch: a mergeable histogram of scores per class, on fixed nested bins.

Every shard uses the same bins (see :mod:`streammetrics.ranking.keys`), so merging is a sorted
union of bin ids and an addition of counts: integer counts come out bit-identical in any merge
order. Per bin and per *group* (a score column and a true class) the sketch keeps

* ``counts``: int64 counts (float64 weighted counts once a non-integer weight is seen);
* ``sums``: the sum of the within-bin coordinate (the dropped key bits, quantized at 24
  mantissa bits so that it is an exact integer), used to refine estimates inside a bin;
* ``kmin`` / ``kmax``: the smallest and largest key of the group in the bin. They are exact
  when the group holds one distinct score (then the bin is exact for it) or, with integer
  counts, two samples (then both samples are known). Otherwise they are rounded outwards to a
  grid of ``2**EXTREME_BITS`` cells per bin (an outer envelope: this keeps the state compact and
  stays a function of the data, so merges remain order independent).

With ``resolution=52`` every bin holds one distinct score: the sketch is then exact (counts per
distinct score), with memory growing with the number of distinct scores.

``revert`` subtracts counts and sums exactly; the extremes of a group that keeps some samples
cannot be tightened again, so they stay as an outer envelope (``loose``: from then on only
single-score groups count as exactly known) and a bin emptied by ``revert`` is dropped. The
resolution never refines back after a coarsening. ``scale(factor)`` multiplies every weight
(exponential forgetting): counts become float64 weighted counts.
"""

from __future__ import annotations

import copy
from typing import Any, NamedTuple

import numpy as np

from .._core.schema import Array, Schema
from .._core.state import State
from ..errors import InputError, MergeError, StateError
from . import codec
from .codec import SketchArrays, group_kinds
from .keys import EXTREME_BITS as EXTREME_BITS
from .keys import MANTISSA_BITS, OFFSET_SHIFT
from .keys import cell_bits as _cell_bits
from .keys import offset_bits as _offset_bits
from .positive import PositiveRule, plan, read_seen

EXACT = MANTISSA_BITS
_UMAX = np.iinfo(np.uint64).max
_U = np.uint64


class BinaryHistogram(NamedTuple):
    """One positive-vs-negative view of a sketch, bins in increasing score order (float64)."""

    #: a sort key per bin (the bin id; refined views: the bin's first key or the exact score key)
    ids: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    pos_sum: np.ndarray
    neg_sum: np.ndarray
    #: smallest and largest key in the bin (an outer envelope unless equal)
    kmin: np.ndarray
    kmax: np.ndarray
    #: number of bits of the within-bin coordinate held in ``*_sum`` (0: none)
    offset_bits: int
    resolution: int


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

    revertible = True

    def __init__(
        self, resolution: int = 10, max_bins: int | None = None, rule: PositiveRule | None = None
    ) -> None:
        self._resolution = resolution
        self._max_bins = max_bins
        #: The positive-label rule of binary input (see :mod:`streammetrics.ranking.positive`).
        self.rule = rule
        self.reset()

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {"resolution": self._resolution, "max_bins": self._max_bins}

    def reset(self) -> None:
        # loose: whether some extremes are only an envelope after a revert (see the module docstring);
        # seen: the distinct binary labels seen so far, sorted (groups are negative/positive under
        # ``rule`` applied to them).
        self._commit(
            layout=None,
            multilabel=False,
            resolution=self._resolution,
            loose=False,
            _n=0,
            seen=(),
            **_arrays(np.empty(0, np.uint64), *_empty_arrays(0, 0, np.int64)),
        )

    def _flipped(self) -> dict[str, np.ndarray]:
        """The arrays with the two groups of binary input swapped (negative <-> positive)."""
        return _arrays(self.ids, *(a[:, ::-1].copy() for a in (self.counts, self.sums, self.kmin, self.kmax)))

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
        """Memory of the arrays (in memory; the serialized form is much smaller)."""
        return sum(a.nbytes for a in (self.ids, self.counts, self.sums, self.kmin, self.kmax))

    def total_weight(self) -> float:
        return float(self.counts.sum())

    # ------------------------------------------------------------------ update
    def _check_layout(self, layout: tuple[int, int], multilabel: bool) -> None:
        if self.layout is not None and (layout != self.layout or multilabel != self.multilabel):
            raise InputError(
                f"y_score: expected {self.layout[0]} score column(s) and {self.layout[1]} classes "
                f"({'multilabel' if self.multilabel else 'binary/multiclass'}) like earlier batches, "
                f"found {layout[0]} and {layout[1]} ({'multilabel' if multilabel else 'binary/multiclass'})"
            )

    def _batch(self, keys, groups, weights, layout):
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
        return _histogram(kf, gf, wf, integral, layout, self.resolution)

    def add(
        self,
        keys: np.ndarray,
        groups: np.ndarray,
        weights: np.ndarray | None,
        layout: tuple[int, int],
        n_rows: int | None = None,
        multilabel: bool = False,
        labels: tuple[Any, ...] = (),
        used: Any = None,
    ) -> None:
        """Add keys (uint64, shape (n,) or (n, c)) with their groups (same shape) and row weights.

        Binary input also gives the batch's distinct ``labels`` and the positive label ``used``
        for its groups: the labels seen grow, and the groups swap where the rule changes its mind.
        """
        n_rows = len(keys) if n_rows is None else n_rows
        if keys.size:
            self._check_layout(layout, multilabel)
        seen, flip_state, flip_batch = plan(self.rule, self.seen, labels, used)
        if not keys.size:
            self._commit(_n=self._n + n_rows, seen=seen)
            return
        if flip_batch:
            groups = 1 - groups
        batch = self._batch(keys, groups, weights, layout)
        if flip_state:  # the state's groups under the new positive label (a copy: nothing changes yet)
            base = copy.copy(self)
            base.__dict__.update(self._flipped())
        else:
            base = self
        merged = base._absorbed(*batch, self.resolution, self.loose)
        self._commit(layout=layout, multilabel=multilabel, _n=self._n + n_rows, seen=seen, **merged)

    def remove(
        self,
        keys: np.ndarray,
        groups: np.ndarray,
        weights: np.ndarray | None,
        layout: tuple[int, int],
        n_rows: int | None = None,
        multilabel: bool = False,
        labels: tuple[Any, ...] = (),
        used: Any = None,
    ) -> None:
        """Take out keys added before (the inverse of :meth:`add`, see the module docstring).

        Raises :class:`InputError`, leaving the sketch unchanged, when the rows cannot have been
        added (more weight than the bin holds, a score outside the group's known range, a label
        never seen). The labels seen stay: a revert does not forget a label.
        """
        if labels and self.rule is not None and self.rule.tracked:
            if set(labels) - set(self.seen):
                raise InputError(
                    f"y_true: expected labels seen before {list(self.seen)}, found {list(labels)}"
                )
            if plan(self.rule, self.seen, labels, used)[2]:  # groups made under another positive label
                groups = 1 - groups
        n_rows = len(keys) if n_rows is None else n_rows
        if n_rows > self._n:
            raise InputError(f"y_score: expected at most the {self._n} rows added, found {n_rows} to revert")
        if not keys.size:
            self._commit(_n=self._n - n_rows)
            return
        if self.layout is None:
            raise InputError("y_score: expected rows that were added before, found an empty sketch")
        self._check_layout(layout, multilabel)
        ids, counts, sums, kmin, kmax = self._batch(keys, groups, weights, layout)
        where = np.searchsorted(self.ids, ids)
        where = np.minimum(where, max(len(self.ids) - 1, 0))
        not_added = "y_score: expected rows that were added before, found rows the sketch does not hold"
        if not len(self.ids) or np.any(self.ids[where] != ids):
            raise InputError(not_added)
        new_counts = self.counts.astype(np.result_type(self.counts, counts), copy=True)
        new_sums = self.sums.astype(np.result_type(self.sums, sums), copy=True)
        old = new_counts[where]
        left = old - counts
        if new_counts.dtype.kind == "f":  # rounding residue of weighted counts
            left[np.abs(left) <= 1e-9 * np.abs(old)] = 0.0
        present = counts > 0
        if (
            np.any(left < 0)
            or np.any((kmin < self.kmin[where]) & present)
            or np.any((kmax > self.kmax[where]) & present)
        ):
            raise InputError(not_added)
        new_counts[where] = left
        new_sums[where] -= sums
        if new_sums.dtype.kind == "f":
            new_sums[where] = np.where(left > 0, np.maximum(new_sums[where], 0.0), 0.0)
        new_kmin, new_kmax = self.kmin.copy(), self.kmax.copy()
        emptied = new_counts <= 0
        new_kmin[emptied], new_kmax[emptied] = _UMAX, 0
        touched = np.zeros(new_counts.shape, bool)
        touched[where] = present
        loose = self.loose or bool(np.any(touched & ~emptied & (new_kmin != new_kmax)))
        keep = ~emptied.all(axis=1)
        arrays = (self.ids, new_counts, new_sums, new_kmin, new_kmax)
        arrays = tuple(a[keep] for a in arrays)
        if not len(arrays[0]):
            arrays = (np.empty(0, np.uint64), *_empty_arrays(0, self.n_groups, new_counts.dtype))
        self._commit(loose=loose, _n=self._n - n_rows, **_arrays(*_settle(self.resolution, *arrays, loose)))

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (counts become float64 weighted counts).

        Examples:
            >>> import numpy as np
            >>> from streammetrics.ranking.keys import keys_of
            >>> s = ScoreSketch(resolution=4)
            >>> s.add(keys_of(np.array([0.1, 0.8]), "probability"), np.array([0, 1]), None, (1, 2))
            >>> s.scale(0.5)
            >>> s.counts.sum(axis=0).tolist()
            [0.5, 0.5]
        """
        factor = float(factor)
        if not np.isfinite(factor) or factor < 0:
            raise ValueError(f"factor: expected a finite number >= 0, found {factor!r}")
        counts = self.counts.astype(np.float64) * factor
        sums = self.sums.astype(np.float64) * factor
        kmin, kmax = self.kmin.copy(), self.kmax.copy()
        emptied = counts <= 0
        kmin[emptied], kmax[emptied] = _UMAX, 0
        sums[emptied] = 0.0
        keep = ~emptied.all(axis=1)
        arrays = tuple(a[keep] for a in (self.ids, counts, sums, kmin, kmax))
        self._commit(**_arrays(*_settle(self.resolution, *arrays, self.loose)))

    def _absorbed(self, ids, counts, sums, kmin, kmax, resolution: int, loose: bool) -> dict[str, Any]:
        """Histogram arrays (at ``resolution``) merged into ours, within ``max_bins``: the fields
        to commit (the resolution and the five arrays)."""
        res = min(self.resolution, resolution)
        mine = _coarsen(self.resolution, res, self.ids, self.counts, self.sums, self.kmin, self.kmax)
        theirs = _coarsen(resolution, res, ids, counts, sums, kmin, kmax)
        merged = _settle(res, *_union(mine, theirs), loose)
        while self._max_bins is not None and len(merged[0]) > self._max_bins and res > 0:
            merged = _settle(res - 1, *_coarsen(res, res - 1, *merged), loose)
            res -= 1
        return {"resolution": res, **_arrays(*merged)}

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
        seen, flip_self, flip_other = plan(self.rule, self.seen, other.seen, _positive_of(other))
        if flip_other:
            other = copy.copy(other)
            other.__dict__.update(other._flipped())
        base = self
        if flip_self:
            base = copy.copy(self)
            base.__dict__.update(self._flipped())
        loose = self.loose or other.loose
        new: dict[str, Any] = {"loose": loose, "_n": self._n + other._n, "seen": seen}
        if flip_self:
            new.update(self._flipped())
        theirs = (other.ids, other.counts, other.sums, other.kmin, other.kmax, other.resolution)
        if other.layout is not None:
            new.update(layout=other.layout, multilabel=other.multilabel)
            new.update(base._absorbed(*theirs, loose))
        elif other.resolution < self.resolution:
            new.update(base._absorbed(*theirs, loose))
        elif self.loose != loose:
            new.update(
                _arrays(
                    *_settle(self.resolution, base.ids, base.counts, base.sums, base.kmin, base.kmax, True)
                )
            )
        self._commit(**new)

    def coarsen(self, resolution: int) -> None:
        """Lower the resolution in place (bins nest: the result is what that resolution gives)."""
        if resolution > self.resolution:
            raise ValueError(
                f"resolution: expected at most the current {self.resolution}, found {resolution}"
            )
        arrays = _coarsen(self.resolution, resolution, self.ids, self.counts, self.sums, self.kmin, self.kmax)
        self._commit(resolution=resolution, **_arrays(*_settle(resolution, *arrays, self.loose)))

    # ------------------------------------------------------------------ serialization
    def _kinds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per group: occupied, single score, two exactly known samples, envelope extremes."""
        return group_kinds(self.counts, self.kmin, self.kmax, self.loose)

    def _arrays(self) -> SketchArrays:
        return SketchArrays(
            self.layout,
            self.multilabel,
            self.resolution,
            self.loose,
            self._n,
            self.ids,
            self.counts,
            self.sums,
            self.kmin,
            self.kmax,
        )

    def to_dict(self) -> dict[str, Any]:
        """The compact form of :mod:`streammetrics.ranking.codec` (see the docs' state format page):
        delta-coded bin ids and LEB128 varints of counts, extremes (relative to their bin) and the
        sums that cannot be derived.
        """
        out = codec.encode(self._arrays())
        if self.seen:
            out["seen"] = list(self.seen)
        return out

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "ScoreSketch state"
        seen, data = read_seen(data, where)
        if isinstance(data, dict) and set(data) == _V1_KEYS:
            data = _from_v1(data, where)
        s = codec.decode(data, self._resolution)
        # the codec reads what is stored; the canonical form of the extremes is the sketch's rule
        settled = _settle(s.resolution, s.ids, s.counts, s.sums, s.kmin, s.kmax, s.loose)
        if any(not np.array_equal(x, y) for x, y in zip(settled[3:], (s.kmin, s.kmax), strict=True)):
            raise StateError(f"{where}: extremes not in canonical form")
        self._commit(
            multilabel=s.multilabel,
            layout=s.layout,
            resolution=s.resolution,
            loose=s.loose,
            _n=s.n_samples,
            seen=seen,
            **_arrays(s.ids, s.counts, s.sums, s.kmin, s.kmax),
        )

    def check(self) -> None:
        where = _LIVE.where
        _LIVE.check(
            {"ids": self.ids, "counts": self.counts, "sums": self.sums, "kmin": self.kmin, "kmax": self.kmax},
            n_groups=self.n_groups,
        )
        if self.ids.size and not self.counts.any(axis=1).all():
            raise StateError(f"{where}: empty bins are not stored")
        if self.layout is None:
            if self.ids.size:
                raise StateError(f"{where}: bins without a layout")
            return
        columns, classes = self.layout
        # binary: 1 score column, 2 classes; multiclass: K columns, K classes; multilabel: L x 2
        if (self.multilabel and classes != 2) or (
            not self.multilabel and (columns, classes) != (1, 2) and columns != classes
        ):
            raise StateError(
                f"{where}: layout {list(self.layout)} is neither binary [1, 2], multiclass [K, K] "
                "nor multilabel [L, 2]"
            )
        # (int64 counts do not bound the sum by n_samples: integer weights keep counts int64)
        elif self._n == 0 and self.counts.any():
            raise StateError(f"{where}: weights without rows (n_samples=0)")
        shift = _U(MANTISSA_BITS - self.resolution)
        occupied = self.counts > 0
        ids = np.broadcast_to(self.ids[:, None], self.kmin.shape)
        if self.ids.size and (
            np.any((self.kmin >> shift)[occupied] != ids[occupied])
            or np.any((self.kmax >> shift)[occupied] != ids[occupied])
            or np.any(self.kmin[occupied] > self.kmax[occupied])
        ):
            raise StateError(f"{where}: kmin/kmax do not lie in their bins")

    # ------------------------------------------------------------------ views
    def _exact_groups(self) -> np.ndarray:
        """Per group: whether every sample's score is known (one distinct score, or two samples)."""
        occupied, single, pair, _ = self._kinds()
        return ~occupied | single | pair

    def binary_view(
        self, column: int, positive: list[int], negative: list[int], refine: bool = True
    ) -> BinaryHistogram:
        """Positive classes vs negative classes of one score column (or all columns: ``-1``).

        With ``refine``, a bin whose samples are all known exactly (each group holds one
        distinct score or two samples) is split into one exact bin per distinct score.
        """
        assert self.layout is not None
        n_cols, n_cls = self.layout
        cols = range(n_cols) if column < 0 else [column]
        pg = [c * n_cls + k for c in cols for k in positive]
        ng = [c * n_cls + k for c in cols for k in negative]
        both = pg + ng
        pos = self.counts[:, pg].sum(axis=1, dtype=np.float64)
        neg = self.counts[:, ng].sum(axis=1, dtype=np.float64)
        keep = (pos > 0) | (neg > 0)
        sel = np.flatnonzero(keep) if not keep.all() else slice(None)
        ids, pos, neg = self.ids[sel], pos[sel], neg[sel]
        counts = self.counts[sel][:, both]
        kmin_g, kmax_g = self.kmin[sel][:, both], self.kmax[sel][:, both]
        pos_sum = self.sums[sel][:, pg].sum(axis=1, dtype=np.float64)
        neg_sum = self.sums[sel][:, ng].sum(axis=1, dtype=np.float64)
        kmin, kmax = kmin_g.min(axis=1), kmax_g.max(axis=1)
        ob = _offset_bits(self.resolution)
        shift = MANTISSA_BITS - self.resolution
        if not refine or shift == 0 or not len(ids):
            return BinaryHistogram(ids, pos, neg, pos_sum, neg_sum, kmin, kmax, ob, self.resolution)
        exact = self._exact_groups()[sel][:, both]
        split = exact.all(axis=1) & (kmin != kmax)
        if not split.any():
            return BinaryHistogram(ids, pos, neg, pos_sum, neg_sum, kmin, kmax, ob, self.resolution)
        # the exactly known samples of the split bins: (key, positive weight, negative weight)
        c, lo, hi = counts[split], kmin_g[split], kmax_g[split]
        occ = c > 0
        single = occ & (lo == hi)
        is_pos = np.zeros(len(both), bool)
        is_pos[: len(pg)] = True
        is_pos = np.broadcast_to(is_pos, c.shape)
        w1 = np.where(single, c, 1).astype(np.float64)
        two = occ & ~single
        keys = np.concatenate([lo[occ], hi[two]])
        w = np.concatenate([w1[occ], np.ones(int(two.sum()))])
        side = np.concatenate([is_pos[occ], is_pos[two]])
        uk, inv = np.unique(keys, return_inverse=True)
        sp = np.bincount(inv, weights=np.where(side, w, 0.0), minlength=len(uk))
        sn = np.bincount(inv, weights=np.where(side, 0.0, w), minlength=len(uk))
        off = ((uk >> _U(OFFSET_SHIFT)) & _U((1 << ob) - 1)).astype(np.float64) if ob else np.zeros(len(uk))
        rest = ~split
        rk = ids[rest] << _U(shift)
        order = np.argsort(np.concatenate([rk, uk]), kind="stable")

        def cat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return np.concatenate([x, y])[order]

        return BinaryHistogram(
            cat(rk, uk),
            cat(pos[rest], sp),
            cat(neg[rest], sn),
            cat(pos_sum[rest], sp * off),
            cat(neg_sum[rest], sn * off),
            cat(kmin[rest], uk),
            cat(kmax[rest], uk),
            ob,
            self.resolution,
        )


def _positive_of(s: ScoreSketch) -> Any:
    """The positive label of a sketch's groups under its rule (``None``: no label seen)."""
    if s.rule is None or not s.rule.tracked or not s.seen:
        return None
    return s.rule.positive(s.seen)


#: The arrays of a sketch in memory (what :meth:`ScoreSketch.check` checks; the wire fields are
#: :data:`streammetrics.ranking.codec.FIELDS`).
_LIVE = Schema(
    "ScoreSketch state",
    ids=Array("u", ndim=1, increasing=True),
    counts=Array("if", shape=("ids", "n_groups"), non_negative=True),
    sums=Array("if", shape=("ids", "n_groups")),
    kmin=Array("u", shape=("ids", "n_groups")),
    kmax=Array("u", shape=("ids", "n_groups")),
)


# ---------------------------------------------------------------------- version 1 states
_V1_KEYS = {"layout", "multilabel", "resolution", "ids", "counts", "sums", "kmin", "kmax", "n_samples"}


def _from_v1(data: dict[str, Any], where: str) -> dict[str, Any]:
    """A version-1 state (raw arrays, min/max keys per bin and column) in the current form.

    Its per-column extremes become every group's envelope (``loose``), which keeps the bounds.
    """
    layout = data["layout"]
    ids, counts, sums = (np.asarray(data[k]) for k in ("ids", "counts", "sums"))
    kmin, kmax = np.asarray(data["kmin"]), np.asarray(data["kmax"])
    try:
        n_cls = 1 if layout is None else int(layout[1])
        if ids.dtype != np.uint64 or kmin.dtype != np.uint64 or kmax.dtype != np.uint64:
            raise ValueError
        gk_min, gk_max = np.repeat(kmin, n_cls, axis=1), np.repeat(kmax, n_cls, axis=1)
        empty = counts <= 0
        gk_min[empty], gk_max[empty] = _UMAX, 0
        res = int(data["resolution"])
        _, counts, sums, gk_min, gk_max = _settle(res, ids, counts, sums, gk_min, gk_max, True)
    except (ValueError, TypeError, IndexError) as err:
        raise StateError(f"{where}: malformed version-1 state") from err
    current = SketchArrays(
        None if layout is None else (int(layout[0]), int(layout[1])),
        data["multilabel"],
        res,
        True,
        0,
        ids,
        counts,
        sums,
        gk_min,
        gk_max,
    )
    out = codec.encode(current)
    out["layout"], out["n_samples"] = layout, data["n_samples"]
    return out


# ---------------------------------------------------------------------- array helpers
def _arrays(ids, counts, sums, kmin, kmax) -> dict[str, np.ndarray]:
    """The five arrays of a sketch, by name (to commit them at once)."""
    return {"ids": ids, "counts": counts, "sums": sums, "kmin": kmin, "kmax": kmax}


def _empty_arrays(b: int, g: int, dtype: Any) -> tuple[np.ndarray, ...]:
    return (
        np.zeros((b, g), dtype),
        np.zeros((b, g), dtype),
        np.full((b, g), _UMAX, np.uint64),
        np.zeros((b, g), np.uint64),
    )


def _settle(res: int, ids, counts, sums, kmin, kmax, loose: bool) -> tuple[np.ndarray, ...]:
    """Round the extremes of groups with several distinct scores out to the grid (canonical form).

    Exact extremes are kept for one distinct score, and, with integer counts and no revert, for
    two samples; the rule depends on the data only, so merges stay order independent.
    """
    cell = _cell_bits(res)
    if not cell or not len(ids):
        return ids, counts, sums, kmin, kmax
    multi = (counts > 0) & (kmin != kmax)
    if counts.dtype.kind == "i" and not loose:
        multi &= counts >= 3
    if multi.any():
        mask = _U((1 << cell) - 1)
        kmin = np.where(multi, kmin & ~mask, kmin)
        kmax = np.where(multi, kmax | mask, kmax)
    return ids, counts, sums, kmin, kmax


def _histogram(kf, gf, wf, integral: bool, layout: tuple[int, int], resolution: int):
    """Histogram arrays (ids, counts, sums, kmin, kmax) of one batch of keys (extremes exact)."""
    shift = _U(MANTISSA_BITS - resolution)
    ids = kf >> shift
    lo, hi = (ids.min(), ids.max()) if ids.size else (_U(0), _U(0))
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
        off = (kf >> _U(OFFSET_SHIFT)) & _U((1 << bits) - 1)
        if wf is None and len(kf) < 1 << 28:  # exact in float64: below 2**24 * 2**28
            sums = np.rint(np.bincount(flat, weights=off.astype(np.float64), minlength=size)).astype(np.int64)
        elif dtype == np.int64:
            sums = np.zeros(size, np.int64)
            np.add.at(sums, flat, off.astype(np.int64) * wf.astype(np.int64))
        else:
            sums = np.bincount(flat, weights=off.astype(np.float64) * wf, minlength=size)
    else:
        sums = np.zeros(size, dtype)
    kmin = np.full(size, _UMAX, np.uint64)
    kmax = np.zeros(size, np.uint64)
    np.minimum.at(kmin, flat, kf)
    np.maximum.at(kmax, flat, kf)
    counts, sums = counts.reshape(n_loc, g), sums.reshape(n_loc, g)
    kmin, kmax = kmin.reshape(n_loc, g), kmax.reshape(n_loc, g)
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
    g = b[1].shape[1]
    if a[1].shape[1] != g:
        raise MergeError(f"cannot merge score sketches of {a[1].shape[1]} and {g} groups")
    ib = np.searchsorted(ids_a, ids_b)
    if ib[-1] < len(ids_a) and np.array_equal(ids_a[ib], ids_b):  # b's bins are all in a
        ia: Any = slice(None)
        ids = ids_a
    else:
        both = np.concatenate([ids_a, ids_b])
        both.sort(kind="stable")
        ids = both[np.concatenate([[True], both[1:] != both[:-1]])]
        ia, ib = np.searchsorted(ids, ids_a), np.searchsorted(ids, ids_b)
    ct = _promote(a[1], b[1])
    st = _promote(a[2], b[2])
    counts = np.zeros((len(ids), g), ct)
    sums = np.zeros((len(ids), g), st)
    kmin = np.full((len(ids), g), _UMAX, np.uint64)
    kmax = np.zeros((len(ids), g), np.uint64)
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
    low = ids & _U((1 << d) - 1)
    if s_new <= q:
        new_sums = np.zeros_like(sums)
    elif s_old >= q:
        base = (low << _U(s_old - q)).astype(np.int64)
        new_sums = sums + counts * base[:, None].astype(sums.dtype if sums.dtype.kind == "f" else np.int64)
    else:
        per = ((ids << _U(s_old)) >> _U(q)) & _U((1 << (s_new - q)) - 1)
        dtype = np.float64 if counts.dtype.kind == "f" else np.int64
        new_sums = (counts * per.astype(np.int64)[:, None]).astype(dtype)
    if new_sums.dtype != counts.dtype:
        new_sums = new_sums.astype(np.float64)
    new_ids = ids >> _U(d)
    starts = np.flatnonzero(np.concatenate([[True], new_ids[1:] != new_ids[:-1]]))
    return (
        new_ids[starts],
        np.add.reduceat(counts, starts, axis=0),
        np.add.reduceat(new_sums, starts, axis=0),
        np.minimum.reduceat(kmin, starts, axis=0),
        np.maximum.reduceat(kmax, starts, axis=0),
    )
