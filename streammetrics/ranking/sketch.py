"""The score sketch: exact until its byte budget, then a mergeable histogram on fixed nested bins.

The sketch keeps one :class:`~streammetrics.ranking.columns.Column` per score column (one for
binary input; one per class for multiclass one-vs-rest and per label for multilabel, each with
two groups, *rest* and *own*; one per class with one group per true class for one-vs-one). Per
bin and group a column keeps

* ``counts``: int64 counts (float64 weighted counts once a non-integer weight is seen, or once
  a group's weight reaches ``2**37``, past which integer within-bin sums could pass int64);
* ``sums``: the sum of the within-bin coordinate (the dropped key bits, quantized at 24
  mantissa bits so that it is an exact integer), used to refine estimates inside a bin;
* ``kmin`` / ``kmax``: the smallest and largest key of the group in the bin. They are exact
  when the group holds one distinct score or, with integer counts, two samples. Otherwise they
  are rounded outwards to a grid of ``2**EXTREME_BITS`` cells per bin.

**Budget.** A column starts *exact*: at resolution 52 every bin is one distinct score, so every
value computed from it is exact. When the column's serialized size would exceed its share of
``max_bytes`` (see :func:`~streammetrics.ranking.columns.size_bound`), it is compressed to bins
about ``2**-resolution`` wide (or coarser, until it fits); from then on values come with
guaranteed bounds. The choice depends on the data only, so any split and merge order gives the
same bytes.

**Amortized updates.** Incoming keys are appended to a pending buffer and folded into the
columns in bulk (when the buffer holds as many keys as the columns hold bins, or when the state
is read), so a small batch or a merge of a small state costs about its own size.

``revert`` subtracts counts and sums exactly; the extremes of a group that keeps some samples
cannot be tightened again, so they stay as an outer envelope (``loose``) and a bin emptied by
``revert`` is dropped. The resolution never refines back after a compression. ``scale(factor)``
multiplies every weight (exponential forgetting): counts become float64 weighted counts.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core import narrow as N
from .._core.schema import Array, Schema
from .._core.state import State
from .._core.validation import check_factor
from ..errors import InputError, MergeError, StateError
from . import codec
from . import columns as C
from .codec import SketchArrays, group_kinds
from .columns import COARSEST, EXACT, Column
from .keys import EXTREME_BITS as EXTREME_BITS
from .keys import MANTISSA_BITS, OFFSET_SHIFT
from .keys import offset_bits as _offset_bits
from .positive import PositiveRule, plan, read_seen

_UMAX = np.iinfo(np.uint64).max
_U = np.uint64
#: Bytes of ``max_bytes`` (per score column) kept for what is not the columns' arrays: the
#: state format's prefix, the JSON header (type, version, configuration, labels seen, array table)
#: and the padding of the arrays.
RESERVE = 1024
#: The smallest ``max_bytes`` accepted (a column at the coarsest resolution always fits).
MIN_BYTES = 2048
#: Pending keys are folded once they reach this many, and :data:`FOLD_RATIO` times the columns'
#: bins (:data:`BOUNDED_FOLD_RATIO` times in a sketch with a budget, whose columns hold a few
#: thousand bins at most: its buffer stays within hundreds of kB a column and folds are rarer;
#: an unbounded exact sketch keeps every distinct score, so its buffer stays closer to that),
#: but at most :data:`FOLD_MAX` (about 38 MB of keys and groups: a sketch of a thousand classes
#: does not buffer sixteen times its bins).
FOLD_MIN = 4096
FOLD_RATIO = 4
BOUNDED_FOLD_RATIO = 16
FOLD_MAX = 1 << 22


class BinaryHistogram(NamedTuple):
    """One positive-vs-negative view of a sketch, bins in increasing score order (float64).

    This is the internal API of "the exact or bounded ROC points of a binary view": cumulative
    sums of ``pos``/``neg`` from the top give exact (tp, fp) at every bin edge; inside a bin
    the order of its positives and negatives is unknown unless ``kmin == kmax`` (one score:
    exact). When :attr:`resolution` is 52 every bin is one distinct score and everything is exact.
    """

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
    """Per-column score histograms, exact until ``max_bytes`` (see the module docstring).

    ``layout = (n_columns, n_groups)`` is fixed by the first non-empty batch: ``(1, 2)`` for
    binary input (groups negative, positive), ``(K, 2)`` for multiclass one-vs-rest
    (``ovr``: groups rest, own class), ``(K, K)`` for one-vs-one (a group per true class) and
    ``(L, 2)`` for multilabel.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(max_bytes=2**16)
        >>> p = np.array([0.1, 0.4, 0.35, 0.8])
        >>> s.add(keys_of(p, "probability"), np.array([0, 1, 0, 1]), None, (1, 2))
        >>> s.n_bins, s.is_exact
        (4, True)
    """

    revertible = True
    overflowing = ()  # (counts of weights of at most 2^255 a batch)

    def __init__(
        self,
        resolution: int = 10,
        max_bins: int | None = None,
        rule: PositiveRule | None = None,
        max_bytes: int | None = None,
        compact: bool = True,
    ) -> None:
        #: the resolution a column is compressed to when it leaves the exact phase (a cap)
        self._resolution = resolution
        self._max_bins = max_bins
        self._max_bytes = max_bytes
        #: multiclass one-vs-rest as K x 2 groups (``False``: K x K, for one-vs-one)
        self._compact = compact
        #: The positive-label rule of binary input (see :mod:`streammetrics.ranking.positive`).
        self.rule = rule
        self.reset()

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {
            "resolution": self._resolution,
            "max_bins": self._max_bins,
            "max_bytes": self._max_bytes,
            "compact": self._compact,
        }

    def reset(self) -> None:
        self._commit(layout=None, multilabel=False, ovr=False, _n=0, seen=(), _cols=(), _pending=(), _npend=0)

    @property
    def _budget(self) -> int | None:
        return None if self._max_bytes is None else self._max_bytes - RESERVE

    @property
    def cols(self) -> tuple[Column, ...]:
        """The columns, pending keys folded in."""
        if self._pending or (not self._cols and self.layout is not None):
            self._commit(_cols=self._folded(), _pending=(), _npend=0)
        return self._cols

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def n_bins(self) -> int:
        return sum(len(c.ids) for c in self.cols)

    @property
    def n_groups(self) -> int:
        return 0 if self.layout is None else self.layout[1]

    @property
    def resolution(self) -> int:
        """The coarsest resolution of the columns (52: every column exact)."""
        return min((c.res for c in self.cols), default=EXACT)

    @property
    def is_exact(self) -> bool:
        return self.resolution == EXACT

    @property
    def integral(self) -> bool:
        """Whether the counts are integers (no fractional weight, no ``scale``)."""
        return all(c.counts.dtype.kind == "i" for c in self.cols)

    @property
    def nbytes(self) -> int:
        """Memory of the arrays (in memory; the serialized form is much smaller)."""
        return sum(a.nbytes for c in self.cols for a in c.arrays)

    def _only(self) -> Column:
        cols = self.cols
        if len(cols) != 1:
            raise AttributeError("the arrays of a sketch of one score column (use .cols for several)")
        return cols[0]

    # the arrays of a one-column (binary) sketch
    ids = property(lambda self: self._only().ids)
    counts = property(lambda self: self._only().counts)
    sums = property(lambda self: self._only().sums)
    kmin = property(lambda self: self._only().kmin)
    kmax = property(lambda self: self._only().kmax)

    @property
    def loose(self) -> bool:
        """Whether some column's extremes are an envelope after a revert."""
        return any(c.loose for c in self.cols)

    def total_weight(self) -> float:
        """The weight held, summed over the columns (pending entries included, none folded)."""
        total = float(sum(c.counts.sum() for c in self._cols))
        for e in self._pending:
            if len(e) == 4:
                total += (len(e[0]) if e[2] is None else float(e[2].sum())) * e[0].shape[1]
            else:
                total += float(sum(c.counts.sum() for c in e[0]))
        return total

    def raw_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """``(keys, groups, weights)`` (keys and groups ``(rows, columns)``) when every sample
        still waits unfolded as a raw row and the columns they make would be exact; else ``None``.

        Values computed from these rows (:mod:`streammetrics.ranking.rawvalues`) are those of the
        folded sketch, without folding (the batch value of ``metric(y, p)``, small streams).
        """
        pending = self._pending
        if not pending or any(len(e) != 4 for e in pending) or any(len(c.ids) for c in self._cols):
            return None
        if self._start_res != EXACT or self.layout is None:
            return None
        n = sum(len(e[0]) for e in pending)
        g = self.layout[1]
        # an exact column takes at most 10 bytes per id, and per group 19 (a count, an extreme;
        # 18 for weighted counts) and a bit
        budget, max_bins = self._budget, self._max_bins
        if (budget is not None and n * (10 + 19 * g) + (n * g + 7) // 8 > budget) or (
            max_bins is not None and n > max_bins
        ):
            return None
        if len(pending) == 1:
            k, grp, w, _ = pending[0]
            return k, grp, w
        keys = np.concatenate([e[0] for e in pending])
        groups = np.concatenate([e[1] for e in pending])
        if all(e[2] is None for e in pending):
            return keys, groups, None
        w = np.concatenate([np.ones(len(e[0])) if e[2] is None else e[2] for e in pending])
        return keys, groups, w

    def class_totals(self) -> np.ndarray:
        """Weight per group of the first column (per true class for one-vs-one layouts)."""
        cols = self.cols
        return cols[0].counts.sum(axis=0, dtype=np.float64) if cols else np.zeros(0)

    # ------------------------------------------------------------------ update
    def _check_layout(self, layout: tuple[int, int], multilabel: bool) -> None:
        if self.layout is not None and (layout != self.layout or multilabel != self.multilabel):
            raise InputError(
                f"y_score: expected {self.layout[0]} score column(s) and {self.layout[1]} groups "
                f"({'multilabel' if self.multilabel else 'binary/multiclass'}) like earlier batches, "
                f"found {layout[0]} and {layout[1]} ({'multilabel' if multilabel else 'binary/multiclass'})"
            )

    @staticmethod
    def _entry(keys, groups, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
        """A pending entry: keys and groups as (rows, columns), positive row weights, integral."""
        k2 = keys.reshape(len(keys), -1)
        g2 = np.broadcast_to(groups.reshape(len(groups), -1) if groups.ndim else groups, k2.shape)
        integral = True
        if weights is not None:
            keep = weights > 0
            if not keep.all():
                k2, g2, weights = k2[keep], g2[keep], weights[keep]
            integral = bool(np.all(weights == np.floor(weights))) and (
                not weights.size or weights.max() < 2.0**31
            )
        return k2, g2, weights, integral

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
        ovr: bool = False,
    ) -> None:
        """Add keys (uint64, shape (n,) or (n, columns)) with their groups in the column (same
        shape, or broadcastable) and row weights.

        Binary input also gives the batch's distinct ``labels`` and the positive label ``used``
        for its groups: the labels seen grow, and the groups swap where the rule changes its mind.
        """
        n_rows = len(keys) if n_rows is None else n_rows
        if keys.size:
            self._check_layout(layout, multilabel)
        seen, flip_state, flip_batch = self.batch_plan(labels, used)
        if not keys.size:
            self._commit(_n=self._n + n_rows, seen=seen)
            return
        if flip_batch:
            groups = 1 - groups
        entry = self._entry(keys, groups, weights)
        cols = self.cols if flip_state else self._cols  # (a flip needs the folded columns)
        if flip_state:
            cols = tuple(_flip(c) for c in cols)
        pending = (*self._pending, entry)
        npend = self._npend + entry[0].size
        new = {"layout": layout, "multilabel": multilabel, "ovr": ovr, "_n": self._n + n_rows, "seen": seen}
        if self._folds_at(npend, cols):
            new.update(_cols=self._folded(cols, pending, layout), _pending=(), _npend=0)
        else:
            new.update(_cols=cols, _pending=pending, _npend=npend)
        self._commit(**new)

    def batch_plan(self, labels: tuple[Any, ...], used: Any) -> tuple[Any, bool, bool]:
        """``(labels seen, swap the state's groups?, swap the batch's?)`` for a batch of distinct
        binary ``labels`` grouped with ``used`` as the positive label (see :func:`.positive.plan`)."""
        return plan(self.rule, self.seen, labels, used)

    def merge_plan(self, other: ScoreSketch) -> tuple[Any, bool, bool]:
        """``(labels seen, swap this state's groups?, swap ``other``'s?)`` for a merge of ``other``."""
        return plan(self.rule, self.seen, other.seen, _positive_of(other))

    @property
    def _start_res(self) -> int:
        return EXACT if self._budget is not None or self._max_bins is not None else self._resolution

    def _folded(
        self, cols: tuple[Column, ...] | None = None, pending: tuple = (), layout: Any = None
    ) -> tuple[Column, ...]:
        """The columns with the pending entries folded in, each fitted to the budget (a sketch
        that has only pending entries has no columns yet: they start empty here)."""
        if cols is None:
            cols, pending = self._cols, self._pending
        layout = self.layout if layout is None else layout
        if not cols and layout is not None:
            cols = tuple(C.empty(layout[1], res=self._start_res) for _ in range(layout[0]))
        raw = [e for e in pending if len(e) == 4]
        merged = [e[0] for e in pending if len(e) == 1]
        if raw:  # every column's keys at once: (rows, columns)
            keys = np.concatenate([e[0] for e in raw]) if len(raw) > 1 else raw[0][0]
            groups = np.concatenate([e[1] for e in raw]) if len(raw) > 1 else raw[0][1]
            integral = all(e[3] for e in raw)
            if all(e[2] is None for e in raw):
                wf = None
            else:
                wf = np.concatenate([np.ones(len(e[0])) if e[2] is None else e[2] for e in raw])
            # one contiguous row per column: every pass below reads one column at a time
            keys, groups = np.ascontiguousarray(keys.T), np.ascontiguousarray(groups.T)
            # exact columns take the keys sorted: one sort along the rows for every column
            order = None
            if (
                wf is None
                and any(c.res == EXACT for c in cols)
                and not self._skips_exact(keys.shape[1], cols)
            ):
                order = np.argsort(keys, axis=1)
                keys = np.take_along_axis(keys, order, 1)
                groups = np.take_along_axis(groups, order, 1)
        out = []
        for c, col in enumerate(cols):
            for m in merged:
                col = C.union(col, m[c])
            if raw:
                if order is not None and col.res == EXACT and col.counts.dtype.kind == "i":
                    col = self._into_exact(col, keys[c], groups[c])
                else:
                    col = self._absorbed(col, keys[c], groups[c], wf, integral)
            out.append(C.fit(col, self._resolution, self._budget, self._max_bins))
        return tuple(out)

    def _folds_at(self, npend: int, cols: tuple[Column, ...]) -> bool:
        """Whether ``npend`` pending keys are enough to fold into ``cols`` (amortized: a fold
        costs about the pending keys plus the columns' bins)."""
        bounded = self._budget is not None or self._max_bins is not None
        ratio = BOUNDED_FOLD_RATIO if bounded else FOLD_RATIO
        return npend >= max(FOLD_MIN, min(ratio * sum(len(c.ids) for c in cols), FOLD_MAX))

    def _skips_exact(self, n: int, cols: tuple[Column, ...]) -> bool:
        """Whether ``n`` more keys per column may be too many for the exact phase (then each
        column checks its own keys, see :meth:`_absorbed`)."""
        g = cols[0].counts.shape[1] if cols else 2
        budget, max_bins = self._budget, self._max_bins
        return self._resolution < EXACT and (
            (budget is not None and n * (g + 2) > budget) or (max_bins is not None and n > max_bins)
        )

    def _absorbed(self, col: Column, kf: np.ndarray, gf: np.ndarray, wf: Any, integral: bool) -> Column:
        """``col`` with keys ``kf`` of groups ``gf`` added, at ``col``'s resolution (or the cap,
        when the keys alone are too many for the exact phase: see the module docstring)."""
        g = col.counts.shape[1]
        budget = self._budget
        max_bins = self._max_bins
        if (
            col.res == EXACT
            and self._resolution < EXACT
            and (
                (budget is not None and len(kf) * (g + 2) > budget)
                or (max_bins is not None and len(kf) > max_bins)
            )
        ):
            # an exact column takes at least g + 2 bytes per distinct key (an id, g counts, an
            # extreme): when a linear-time lower bound of the batch's distinct keys cannot fit,
            # the union cannot either, so go straight to the cap
            distinct = C.distinct_lower_bound(kf)
            if (budget is not None and distinct * (g + 2) > budget) or (
                max_bins is not None and distinct > max_bins
            ):
                return C.union(col, C.histogram(kf, gf, wf, integral, g, self._resolution))
        if col.res == EXACT and wf is None and col.counts.dtype.kind == "i":
            order = np.argsort(kf)
            return self._into_exact(col, kf[order], gf[order])
        if col.res == EXACT:
            return C.union(col, C.histogram(kf, gf, wf, integral, g, col.res))
        return C.histogram(kf, gf, wf, integral, g, col.res, base=col)

    def _into_exact(self, col: Column, kf: np.ndarray, gf: np.ndarray) -> Column:
        """An exact column of integer counts with the sorted keys ``kf`` (groups ``gf``) added:
        exact while the union can fit, else straight at the cap (what :func:`.columns.fit` would
        give, without building the exact union first)."""
        g = col.counts.shape[1]
        if self._resolution < EXACT and C.exact_cannot_fit(kf, g, self._budget, self._max_bins):
            cap = self._resolution
            return C.histogram(kf, gf, None, True, g, cap, base=C.coarsened(col, cap))
        return C.exact_absorbed(col, kf, gf)

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
        ovr: bool = False,
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
        k2, g2, wf, integral = self._entry(keys, groups, weights)
        out = []
        for c, col in enumerate(self.cols):
            h = C.histogram(k2[:, c], g2[:, c], wf, integral, col.counts.shape[1], col.res)
            out.append(_removed(col, h))
        self._commit(_cols=tuple(out), _n=self._n - n_rows)

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (counts become float64 weighted counts).

        Examples:
            >>> import numpy as np
            >>> from streammetrics.ranking.keys import keys_of
            >>> s = ScoreSketch()
            >>> s.add(keys_of(np.array([0.1, 0.8]), "probability"), np.array([0, 1]), None, (1, 2))
            >>> s.scale(0.5)
            >>> s.cols[0].counts.sum(axis=0).tolist()
            [0.5, 0.5]
        """
        factor = float(factor)
        check_factor(factor)
        cols = tuple(_scaled(col, factor) for col in self.cols)
        # weighted counts take more bytes: refit (only ever coarser)
        self._commit(_cols=tuple(C.fit(c, self._resolution, self._budget, self._max_bins) for c in cols))

    # ------------------------------------------------------------------ merge / coarsen
    def check_mergeable(self, other: State) -> None:
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge a {type(other).__name__} state into a {type(self).__name__} state"
            )
        for name in ("_max_bins", "_max_bytes", "_compact"):
            if getattr(self, name) != getattr(other, name):
                raise MergeError(
                    f"cannot merge score sketches of different {name[1:]}: "
                    f"{getattr(self, name)} vs {getattr(other, name)}"
                )

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ScoreSketch)
        if (
            other.layout is not None
            and self.layout is not None
            and (other.layout != self.layout or other.multilabel != self.multilabel or other.ovr != self.ovr)
        ):
            raise MergeError(f"cannot merge score sketches of layout {other.layout} into {self.layout}")
        seen, flip_self, flip_other = self.merge_plan(other)
        new: dict[str, Any] = {"_n": self._n + other._n, "seen": seen}
        cols, pending, npend = self._cols, self._pending, self._npend
        if flip_self:
            cols, pending, npend = tuple(_flip(c) for c in self.cols), (), 0
        if other.layout is not None:
            theirs: tuple[Any, ...]
            if flip_other:
                theirs = ((tuple(_flip(c) for c in other.cols),),)
            elif all(not len(c.ids) and not c.loose and c.res == self._start_res for c in other._cols):
                theirs = other._pending  # its columns are what empty columns start as: nothing to add
            else:
                theirs = (*other._pending, (other._cols,))
            pending = (*pending, *theirs)
            npend += other._npend + sum(len(c.ids) for c in other._cols)
            new.update(layout=other.layout, multilabel=other.multilabel, ovr=other.ovr)
            if self._folds_at(npend, cols):
                cols, pending, npend = self._folded(cols, pending, other.layout), (), 0
        new.update(_cols=cols, _pending=pending, _npend=npend)
        self._commit(**new)

    def coarsen(self, resolution: int) -> None:
        """Lower the resolution of every column in place (bins nest: the result is what that
        resolution gives)."""
        if resolution > self.resolution:
            raise ValueError(
                f"resolution: expected at most the current {self.resolution}, found {resolution}"
            )
        self._commit(_cols=tuple(C.coarsened(col, resolution) for col in self.cols))

    # ------------------------------------------------------------------ serialization
    def to_dict(self) -> dict[str, Any]:
        """The compact form of :mod:`streammetrics.ranking.codec` (see the docs' state format page):
        per column, delta-coded bin ids and LEB128 varints of counts, extremes (relative to their
        bin) and the sums that cannot be derived; the columns' fields concatenated.
        """
        cols = self.cols
        out = codec.encode_columns(
            self.layout, self.multilabel, self.ovr, self._n, [_sketch_arrays(c) for c in cols]
        )
        if self.seen:
            out["seen"] = list(self.seen)
        return out

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "ScoreSketch state"
        seen, data = read_seen(data, where)
        if isinstance(data, dict) and set(data) == _V1_KEYS:
            data = _from_v1(data, where)
        if isinstance(data, dict) and "n_bins" not in data:  # version 2: bins shared by the columns
            s = codec.decode(data, EXACT)
            layout, multilabel, ovr, n = s.layout, s.multilabel, False, s.n_samples
            cols = _split_v2(s)
            if layout is not None and not multilabel and layout != (1, 2) and self._compact:
                cols = tuple(C.one_vs_rest(col, j) for j, col in enumerate(cols))
                layout, ovr = (layout[0], 2), True
            cols = tuple(C.fit(col, self._resolution, self._budget, self._max_bins) for col in cols)
        else:
            layout, multilabel, ovr, n, arrays = codec.decode_columns(data, EXACT)
            cols = []
            for s in arrays:
                # the codec reads what is stored; the canonical form of the extremes is the sketch's rule
                settled = C.settle(s.resolution, s.ids, s.counts, s.sums, s.kmin, s.kmax, s.loose)
                if any(not np.array_equal(x, y) for x, y in zip(settled[3:], (s.kmin, s.kmax), strict=True)):
                    raise StateError(f"{where}: extremes not in canonical form")
                cols.append(Column(s.resolution, s.loose, s.ids, s.counts, s.sums, s.kmin, s.kmax))
            cols = tuple(cols)
            if len({c.counts.dtype for c in cols}) > 1:
                raise StateError(f"{where}: columns of integer and weighted counts")
            if ovr and (multilabel or layout is None or layout[1] != 2):
                raise StateError(f"{where}: one-vs-rest columns hold two groups, found layout {layout}")
        self._commit(
            layout=layout, multilabel=multilabel, ovr=ovr, _n=n, seen=seen, _cols=cols, _pending=(), _npend=0
        )

    def check(self) -> None:
        where = _LIVE.where
        cols = self.cols
        if self.layout is None:
            if cols:
                raise StateError(f"{where}: columns without a layout")
            return
        n_cols, g = self.layout
        if len(cols) != n_cols:
            raise StateError(f"{where}: {len(cols)} columns for layout {list(self.layout)}")
        # binary: 1 column, 2 groups; multiclass: K x 2 (one-vs-rest) or K x K; multilabel: L x 2
        if ((self.multilabel or self.ovr) and g != 2) or (
            not self.multilabel and not self.ovr and (n_cols, g) != (1, 2) and n_cols != g
        ):
            raise StateError(
                f"{where}: layout {list(self.layout)} is neither binary [1, 2], multiclass [K, 2] or "
                "[K, K] nor multilabel [L, 2]"
            )
        for col in cols:
            _check_column(col, g, where)
        if self._n == 0 and any(col.counts.any() for col in cols):
            raise StateError(f"{where}: weights without rows (n_samples=0)")

    # ------------------------------------------------------------------ views
    def binary_view(
        self, column: int, positive: list[int], negative: list[int], refine: bool = True
    ) -> BinaryHistogram:
        """Positive groups vs negative groups of one score column (``-1``: every column pooled,
        at the coarsest resolution among them).

        With ``refine``, a bin whose samples are all known exactly (each group holds one
        distinct score or two samples) is split into one exact bin per distinct score.
        """
        assert self.layout is not None
        cols = self.cols
        if column >= 0:
            col = cols[column]
        else:
            col = C.empty(self.layout[1], res=min(c.res for c in cols))
            for c in cols:
                col = C.union(col, c)
        return column_view(col, positive, negative, refine)


def column_view(
    col: Column, positive: list[int], negative: list[int], refine: bool = True
) -> BinaryHistogram:
    """The binary view of groups ``positive`` against ``negative`` of one column (see
    :meth:`ScoreSketch.binary_view`)."""
    both = positive + negative
    pos = _group_total(col.counts, positive)
    neg = _group_total(col.counts, negative)
    keep = (pos > 0) | (neg > 0)
    ids, counts, sums, kmin_g, kmax_g = col.arrays
    if not keep.all():
        sel = np.flatnonzero(keep)
        ids, pos, neg = ids[sel], pos[sel], neg[sel]
        counts, sums, kmin_g, kmax_g = (N.take_rows(a, sel) for a in (counts, sums, kmin_g, kmax_g))
    pos_sum = _group_total(sums, positive)
    neg_sum = _group_total(sums, negative)
    counts, kmin_g, kmax_g = (np.take(a, both, axis=1) for a in (counts, kmin_g, kmax_g))
    kmin, kmax = N.row_min(kmin_g), N.row_max(kmax_g)
    ob = _offset_bits(col.res)
    shift = MANTISSA_BITS - col.res
    if not refine or shift == 0 or not len(ids):
        return BinaryHistogram(ids, pos, neg, pos_sum, neg_sum, kmin, kmax, ob, col.res)
    occupied, single, pair, _ = group_kinds(counts, kmin_g, kmax_g, col.loose)
    exact = ~occupied | single | pair
    split = N.row_all(exact) & (kmin != kmax)
    if not split.any():
        return BinaryHistogram(ids, pos, neg, pos_sum, neg_sum, kmin, kmax, ob, col.res)
    # the exactly known samples of the split bins: (key, positive weight, negative weight)
    c, lo, hi = (N.keep_rows(a, split) for a in (counts, kmin_g, kmax_g))
    occ = c > 0
    single = occ & (lo == hi)
    is_pos = np.zeros(len(both), bool)
    is_pos[: len(positive)] = True
    is_pos = np.broadcast_to(is_pos, c.shape)
    w1 = np.where(single, c, 1).astype(np.float64)
    two = occ & ~single
    keys = np.concatenate([N.cells(lo, occ), N.cells(hi, two)])
    w = np.concatenate([N.cells(w1, occ), np.ones(int(two.sum()))])
    side = np.concatenate([N.cells(is_pos, occ), N.cells(is_pos, two)])
    uk, inv = C.unique_inverse(keys)
    sp = np.bincount(inv, weights=np.where(side, w, 0.0), minlength=len(uk))
    sn = np.bincount(inv, weights=np.where(side, 0.0, w), minlength=len(uk))
    off = ((uk >> _U(OFFSET_SHIFT)) & _U((1 << ob) - 1)).astype(np.float64) if ob else np.zeros(len(uk))
    rest = np.flatnonzero(~split)
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
        col.res,
    )


def _group_total(a: np.ndarray, groups: list[int]) -> np.ndarray:
    """``a[:, groups].sum(axis=1)`` in float64."""
    if len(groups) == 1:
        return a[:, groups[0]].astype(np.float64)
    return N.row_sum(np.take(a, groups, axis=1), dtype=np.float64)


def _positive_of(s: ScoreSketch) -> Any:
    """The positive label of a sketch's groups under its rule (``None``: no label seen)."""
    if s.rule is None or not s.rule.tracked or not s.seen:
        return None
    return s.rule.positive(s.seen)


def _flip(col: Column) -> Column:
    """A binary column with its two groups swapped (negative <-> positive)."""
    return Column(col.res, col.loose, col.ids, *(a[:, ::-1].copy() for a in col.arrays[1:]))


def _sketch_arrays(col: Column) -> SketchArrays:
    g = col.counts.shape[1]
    return SketchArrays((1, g), False, col.res, col.loose, 0, *col.arrays)


def _scaled(col: Column, factor: float) -> Column:
    counts = col.counts.astype(np.float64) * factor
    sums = col.sums.astype(np.float64) * factor
    kmin, kmax = col.kmin.copy(), col.kmax.copy()
    emptied = counts <= 0
    kmin[emptied], kmax[emptied] = _UMAX, 0
    sums[emptied] = 0.0
    keep = ~emptied.all(axis=1)
    arrays = tuple(a[keep] for a in (col.ids, counts, sums, kmin, kmax))
    return Column(col.res, col.loose, *C.settle(col.res, *arrays, col.loose))


def _removed(col: Column, h: Column) -> Column:
    """``col`` less the batch column ``h`` (same resolution); :class:`InputError` if impossible."""
    ids, counts, sums, kmin, kmax = h.arrays
    not_added = "y_score: expected rows that were added before, found rows the sketch does not hold"
    if not len(ids):
        return col
    where = np.searchsorted(col.ids, ids)
    where = np.minimum(where, max(len(col.ids) - 1, 0))
    if not len(col.ids) or np.any(col.ids[where] != ids):
        raise InputError(not_added)
    new_counts = col.counts.astype(np.result_type(col.counts, counts), copy=True)
    new_sums = col.sums.astype(np.result_type(col.sums, sums), copy=True)
    old = new_counts[where]
    left = old - counts
    if new_counts.dtype.kind == "f":  # rounding residue of weighted counts
        left[np.abs(left) <= 1e-9 * np.abs(old)] = 0.0
    present = counts > 0
    if (
        np.any(left < 0)
        or np.any((kmin < col.kmin[where]) & present)
        or np.any((kmax > col.kmax[where]) & present)
    ):
        raise InputError(not_added)
    new_counts[where] = left
    new_sums[where] -= sums
    if new_sums.dtype.kind == "f":
        new_sums[where] = np.where(left > 0, np.maximum(new_sums[where], 0.0), 0.0)
    new_kmin, new_kmax = col.kmin.copy(), col.kmax.copy()
    emptied = new_counts <= 0
    new_kmin[emptied], new_kmax[emptied] = _UMAX, 0
    touched = np.zeros(new_counts.shape, bool)
    touched[where] = present
    loose = col.loose or bool(np.any(touched & ~emptied & (new_kmin != new_kmax)))
    keep = ~emptied.all(axis=1)
    arrays = tuple(a[keep] for a in (col.ids, new_counts, new_sums, new_kmin, new_kmax))
    return Column(col.res, loose, *C.settle(col.res, *arrays, loose))


#: The arrays of a column in memory (what :meth:`ScoreSketch.check` checks; the wire fields are
#: :data:`streammetrics.ranking.codec.FIELDS`).
_LIVE = Schema(
    "ScoreSketch state",
    ids=Array("u", ndim=1, increasing=True),
    counts=Array("if", shape=("ids", "n_groups"), non_negative=True),
    sums=Array("if", shape=("ids", "n_groups")),
    kmin=Array("u", shape=("ids", "n_groups")),
    kmax=Array("u", shape=("ids", "n_groups")),
)


def _check_column(col: Column, g: int, where: str) -> None:
    _LIVE.check(dict(zip(("ids", "counts", "sums", "kmin", "kmax"), col.arrays, strict=True)), n_groups=g)
    if not COARSEST <= col.res <= EXACT:
        raise StateError(f"{where}: resolution {col.res} outside [{COARSEST}, {EXACT}]")
    if col.ids.size and not N.row_any(col.counts != 0).all():
        raise StateError(f"{where}: empty bins are not stored")
    if (
        col.counts.dtype.kind == "i"
        and col.counts.size
        and int(N.column_sums(col.counts).max()) >= C.WIDEN_AT
    ):
        raise StateError(
            f"{where}: integer counts of {C.WIDEN_AT} or more in a group (kept as float64 beyond)"
        )
    # a within-bin sum adds an offset below 2**bits per unit of weight
    most = col.counts.astype(np.float64) * float(1 << _offset_bits(col.res))
    if col.sums.size and (np.any(col.sums < 0) or np.any(col.sums > most * (1 + 1e-12))):
        raise StateError(f"{where}: within-bin sums outside [0, counts * 2**{_offset_bits(col.res)}]")
    shift = _U(MANTISSA_BITS - col.res)
    occupied = col.counts > 0
    ids = np.broadcast_to(col.ids[:, None], col.kmin.shape)
    if col.ids.size and (
        np.any((col.kmin >> shift)[occupied] != ids[occupied])
        or np.any((col.kmax >> shift)[occupied] != ids[occupied])
        or np.any(col.kmin[occupied] > col.kmax[occupied])
    ):
        raise StateError(f"{where}: kmin/kmax do not lie in their bins")


# ---------------------------------------------------------------------- older states
_V1_KEYS = {"layout", "multilabel", "resolution", "ids", "counts", "sums", "kmin", "kmax", "n_samples"}


def _split_v2(s: SketchArrays) -> tuple[Column, ...]:
    """A version-2 state (bins shared by every column, groups ``column * classes + class``) as columns."""
    if s.layout is None:
        return ()
    n_cols, n_cls = s.layout
    out = []
    for j in range(n_cols):
        part = slice(j * n_cls, (j + 1) * n_cls)
        counts = s.counts[:, part]
        keep = (counts > 0).any(axis=1)
        arrays = (s.ids[keep], counts[keep], s.sums[keep, part], s.kmin[keep, part], s.kmax[keep, part])
        out.append(Column(s.resolution, s.loose, *arrays))
    return tuple(out)


def _from_v1(data: dict[str, Any], where: str) -> dict[str, Any]:
    """A version-1 state (raw arrays, min/max keys per bin and column) in the version-2 form.

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
        _, counts, sums, gk_min, gk_max = C.settle(res, ids, counts, sums, gk_min, gk_max, True)
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
