"""States of the probabilistic family: fixed-shape sums and count tables (exactly mergeable)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._core.schema import Array, Int, Schema, exact_total
from .._core.state import State
from .._core.validation import check_factor
from ..errors import InputError, MergeError, StateError
from ..ranking.keys import probability_keys
from ..ranking.positive import PositiveRule, plan, read_seen


class SumTable(State):
    """A fixed-shape float64 table of weighted sums plus the row count.

    Used for log loss and Brier score (total loss, total weight), for calibration bins
    (weight, confidence sum, accuracy sum per bin) and, with integer counts, for the
    class x decision table of the expected cost (``integer=True``: int64 until a non-integer
    weight arrives).

    Examples:
        >>> t = SumTable((2,))
        >>> t.add(np.array([1.5, 2.0]), 3)
        >>> t.table.tolist(), t.n_samples
        ([1.5, 2.0], 3)
    """

    def __init__(
        self,
        shape: tuple[int, ...],
        integer: bool = False,
        revertible: bool = False,
        rule: PositiveRule | None = None,
        flip: str | None = None,
    ) -> None:
        self.shape = tuple(int(x) for x in shape)
        self.integer = integer
        self._revertible = revertible
        #: The positive-label rule of binary input (:mod:`streammetrics.ranking.positive`) and how
        #: the table swaps its negative and positive sides (``"loss"``, ``"brier"`` or ``None``).
        self.rule = rule
        self.flip = flip
        self.reset()

    @property
    def revertible(self) -> bool:  # type: ignore[override]
        return self._revertible

    def config(self) -> dict[str, Any]:
        return {"shape": list(self.shape), "integer": self.integer}

    def reset(self) -> None:
        # seen: the distinct binary labels seen so far, sorted
        self._commit(table=np.zeros(self.shape, np.int64 if self.integer else np.float64), _n=0, seen=())

    def flipped(self, table: np.ndarray) -> np.ndarray:
        """``table`` (the state's or a batch's) with the negative and positive sides swapped."""
        out = table.astype(np.float64, copy=True)
        if self.flip == "loss":  # [loss, loss with the other label positive, weight]
            out[[0, 1]] = out[[1, 0]]
        elif self.flip == "brier":  # row 0: [loss, weight, flipped loss]; bins: [w, wf, wo, wf^2, wfo]
            out[0, [0, 2]] = out[0, [2, 0]]
            out[1:, 2] = out[1:, 0] - out[1:, 2]
            out[1:, 4] = out[1:, 1] - out[1:, 4]
        return out

    def settle(self, table: np.ndarray, seen: tuple[Any, ...]) -> np.ndarray:
        """``table`` (a new array), with the sums of the other side zeroed once the positive
        label is settled: they would never be read again, and every split and merge order then
        keeps the same table (batches past that point do not compute them)."""
        if self.flip is not None and self.rule is not None and self.rule.settled(seen):
            if self.flip == "loss":
                table[1] = 0
            else:
                table[0, 2] = 0
        return table

    @property
    def n_samples(self) -> int:
        return self._n

    def add(
        self, delta: np.ndarray, n_rows: int, sign: int = 1, labels: tuple[Any, ...] = (), used: Any = None
    ) -> None:
        """Add (``sign=-1``: take out) a batch's table; binary input also gives the batch's distinct
        ``labels`` and the positive label ``used`` for it (see :meth:`ScoreSketch.add`)."""
        if delta.shape != self.table.shape:
            raise InputError(f"internal: table of shape {delta.shape}, expected {self.table.shape}")
        if sign < 0 and n_rows > self._n:
            raise InputError(f"y_true: expected at most the {self._n} rows added, found {n_rows} to revert")
        if sign < 0 and set(labels) - set(self.seen) and self.rule is not None and self.rule.tracked:
            raise InputError(f"y_true: expected labels seen before {list(self.seen)}, found {list(labels)}")
        seen, flip_state, flip_batch = plan(self.rule, self.seen, labels, used)
        table = self.flipped(self.table) if flip_state else self.table
        if flip_batch:
            delta = self.flipped(delta)
        if _int_sum_fits(table, delta):
            new = table + sign * delta
        else:
            new = table.astype(np.float64) + sign * delta.astype(np.float64)
        if sign < 0 and new.size and new.min() < 0 and self.integer:
            raise InputError("y_true: reverting rows that were never added (counts would go negative)")
        if sign < 0 and self._n == n_rows and not self.integer:
            new = np.zeros_like(new)  # every row taken out: no rounding residue is left
        self._commit(table=self.settle(new, seen), _n=self._n + sign * n_rows, seen=seen)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, SumTable)
        seen, flip_self, flip_other = plan(self.rule, self.seen, other.seen, _positive_of(other))
        mine = self.flipped(self.table) if flip_self else self.table
        theirs = self.flipped(other.table) if flip_other else other.table
        if _int_sum_fits(mine, theirs):
            table = mine + theirs
        else:
            table = mine.astype(np.float64) + theirs.astype(np.float64)
        self._commit(table=self.settle(table, seen), _n=self._n + other._n, seen=seen)

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting): every cell is a weighted
        sum (counts become weighted counts), ``n_samples`` unchanged."""
        check_factor(factor)
        self._commit(table=self.table.astype(np.float64) * factor)

    def to_dict(self) -> dict[str, Any]:
        out = {"table": self.table, "n_samples": self._n}
        if self.seen:
            out["seen"] = list(self.seen)
        return out

    def load_dict(self, data: dict[str, Any]) -> None:
        seen, data = read_seen(data, "SumTable state")
        values = _table_fields(self.shape, self.integer).read(data)
        self._commit(table=values["table"], _n=values["n_samples"], seen=seen)

    def check(self) -> None:
        """The table's declaration, and what it adds up to: every table of the family sums
        non-negative terms (losses, weights, weighted frequencies), none holds data without rows,
        and an integer table counts each row at most once."""
        fields = _table_fields(self.shape, self.integer)
        fields.check({"table": self.table, "n_samples": self._n})
        if self.table.size and self.table.min() < 0:
            raise StateError(f"{fields.where}: table must be non-negative, found {self.table.min()!r}")
        total = exact_total(self.table, fields.where, "table")
        if self._n == 0 and total:
            raise StateError(f"{fields.where}: sums without rows (n_samples=0)")
        # (an int64 table's sum is not bounded by n_samples: integer weights keep it int64)


def _int_sum_fits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two int64 tables add (or subtract) without wrapping: beyond 2^62, float64 sums."""
    if a.dtype.kind != "i" or b.dtype.kind != "i":
        return False
    return not a.size or int(np.abs(a).max()) + int(np.abs(b).max()) < 2**62


@functools.cache
def _table_fields(shape: tuple[int, ...], integer: bool) -> Schema:
    """The fields of a :class:`SumTable` dict: an integer table holds counts (never negative);
    a float table's sums of non-negative terms may have grown past the float range (inf)."""
    return Schema(
        "SumTable state",
        table=Array("if", shape=shape, non_negative=integer, infinite=not integer),
        n_samples=Int(low=0),
    )


class KeyedSums(State):
    """Sparse sums over the fine probability bins of the score sketch (for equal-mass calibration).

    ``ids`` are sorted bin ids (probability keys at a fixed resolution); ``sums[:, j]`` are the
    weighted sums of column j (weight, confidence, correctness).
    """

    def __init__(self, resolution: int, width: int, rule: PositiveRule | None = None) -> None:
        self.resolution = resolution
        self.width = width
        #: The positive-label rule of binary input (it never swaps sides here: calibration's
        #: positive label is 1 or ``pos_label``); the labels seen refuse a third one.
        self.rule = rule
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"resolution": self.resolution, "width": self.width}

    def reset(self) -> None:
        self._commit(ids=np.empty(0, np.uint64), sums=np.zeros((0, self.width)), _n=0, seen=())

    @property
    def n_samples(self) -> int:
        return self._n

    def add(
        self, ids: np.ndarray, values: np.ndarray, n_rows: int, labels: tuple[Any, ...] = (), used: Any = None
    ) -> None:
        seen, _, _ = plan(self.rule, self.seen, labels, used)
        uniq, inv = np.unique(ids, return_inverse=True)
        sums = (
            np.stack(
                [
                    np.bincount(inv.ravel(), weights=values[:, j], minlength=len(uniq))
                    for j in range(self.width)
                ],
                axis=1,
            )
            if len(uniq)
            else np.zeros((0, self.width))
        )
        ids, sums = _union(self.ids, self.sums, uniq, sums)
        self._commit(ids=ids, sums=sums, _n=self._n + n_rows, seen=seen)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, KeyedSums)
        seen, _, _ = plan(self.rule, self.seen, other.seen, _positive_of(other))
        ids, sums = _union(self.ids, self.sums, other.ids, other.sums)
        self._commit(ids=ids, sums=sums, _n=self._n + other._n, seen=seen)

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting): the bins' sums are
        weighted sums, ``n_samples`` unchanged."""
        check_factor(factor)
        self._commit(sums=self.sums * factor)

    def to_dict(self) -> dict[str, Any]:
        out = {"ids": self.ids, "sums": self.sums, "n_samples": self._n}
        if self.seen:
            out["seen"] = list(self.seen)
        return out

    def load_dict(self, data: dict[str, Any]) -> None:
        seen, data = read_seen(data, "KeyedSums state")
        values = _KEYED_FIELDS.read(data, width=self.width)
        self._commit(ids=values["ids"], sums=values["sums"], _n=values["n_samples"], seen=seen)

    def check(self) -> None:
        where = _KEYED_FIELDS.where
        _KEYED_FIELDS.check({"ids": self.ids, "sums": self.sums, "n_samples": self._n}, width=self.width)
        if self.sums.size and self.sums.min() < 0:
            raise StateError(f"{where}: sums must be non-negative, found {self.sums.min()!r}")
        top = int(probability_keys(np.ones(1))[0]) >> (52 - self.resolution)  # the bin of p = 1
        if self.ids.size and int(self.ids[-1]) > top:
            raise StateError(f"{where}: bin id {int(self.ids[-1])} beyond the last bin {top}")
        if self._n == 0 and self.ids.size:
            raise StateError(f"{where}: bins without rows (n_samples=0)")


_KEYED_FIELDS = Schema(
    "KeyedSums state",
    ids=Array("u", ndim=1, increasing=True),
    sums=Array("f", shape=("ids", "width")),
    n_samples=Int(low=0),
)


def _positive_of(s: Any) -> Any:
    """The positive label of a state's binary rows under its rule (``None``: no label seen)."""
    if s.rule is None or not s.rule.tracked or not s.seen:
        return None
    return s.rule.positive(s.seen)


def _union(ids_a, sums_a, ids_b, sums_b):
    if not len(ids_b):
        return ids_a, sums_a
    if not len(ids_a):
        return ids_b.copy(), sums_b.copy()
    ids = np.union1d(ids_a, ids_b)
    out = np.zeros((len(ids), sums_a.shape[1]))
    out[np.searchsorted(ids, ids_a)] += sums_a
    out[np.searchsorted(ids, ids_b)] += sums_b
    return ids, out


def check_same(a: SumTable, b: SumTable) -> None:
    if a.shape != b.shape:
        raise MergeError(f"cannot merge tables of shape {b.shape} into {a.shape}")
