"""States of the probabilistic family: fixed-shape sums and count tables (exactly mergeable)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._core.schema import Array, Int, Schema, exact_total
from .._core.state import State
from ..errors import InputError, MergeError, StateError
from ..ranking.keys import probability_keys


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

    def __init__(self, shape: tuple[int, ...], integer: bool = False, revertible: bool = False) -> None:
        self.shape = tuple(int(x) for x in shape)
        self.integer = integer
        self._revertible = revertible
        self.reset()

    @property
    def revertible(self) -> bool:  # type: ignore[override]
        return self._revertible

    def config(self) -> dict[str, Any]:
        return {"shape": list(self.shape), "integer": self.integer}

    def reset(self) -> None:
        self._commit(table=np.zeros(self.shape, np.int64 if self.integer else np.float64), _n=0)

    @property
    def n_samples(self) -> int:
        return self._n

    def add(self, delta: np.ndarray, n_rows: int, sign: int = 1) -> None:
        if delta.shape != self.table.shape:
            raise InputError(f"internal: table of shape {delta.shape}, expected {self.table.shape}")
        if self.table.dtype.kind == "i" and delta.dtype.kind == "i":
            new = self.table + sign * delta
        else:
            new = self.table.astype(np.float64) + sign * delta.astype(np.float64)
        if sign < 0 and new.size and new.min() < 0 and self.integer:
            raise InputError("y_true: reverting rows that were never added (counts would go negative)")
        self._commit(table=new, _n=self._n + sign * n_rows)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, SumTable)
        if self.table.dtype.kind == "i" and other.table.dtype.kind == "i":
            table = self.table + other.table
        else:
            table = self.table.astype(np.float64) + other.table.astype(np.float64)
        self._commit(table=table, _n=self._n + other._n)

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "n_samples": self._n}

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _table_fields(self.shape, self.integer).read(data)
        self._commit(table=values["table"], _n=values["n_samples"])

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
        if isinstance(total, int) and total > self._n:
            raise StateError(f"{fields.where}: counts sum to {total}, more than n_samples={self._n}")


@functools.cache
def _table_fields(shape: tuple[int, ...], integer: bool) -> Schema:
    """The fields of a :class:`SumTable` dict: an integer table holds counts (never negative)."""
    return Schema(
        "SumTable state",
        table=Array("if", shape=shape, non_negative=integer),
        n_samples=Int(low=0),
    )


class KeyedSums(State):
    """Sparse sums over the fine probability bins of the score sketch (for equal-mass calibration).

    ``ids`` are sorted bin ids (probability keys at a fixed resolution); ``sums[:, j]`` are the
    weighted sums of column j (weight, confidence, correctness).
    """

    def __init__(self, resolution: int, width: int) -> None:
        self.resolution = resolution
        self.width = width
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"resolution": self.resolution, "width": self.width}

    def reset(self) -> None:
        self._commit(ids=np.empty(0, np.uint64), sums=np.zeros((0, self.width)), _n=0)

    @property
    def n_samples(self) -> int:
        return self._n

    def add(self, ids: np.ndarray, values: np.ndarray, n_rows: int) -> None:
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
        self._commit(ids=ids, sums=sums, _n=self._n + n_rows)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, KeyedSums)
        ids, sums = _union(self.ids, self.sums, other.ids, other.sums)
        self._commit(ids=ids, sums=sums, _n=self._n + other._n)

    def to_dict(self) -> dict[str, Any]:
        return {"ids": self.ids, "sums": self.sums, "n_samples": self._n}

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _KEYED_FIELDS.read(data, width=self.width)
        self._commit(ids=values["ids"], sums=values["sums"], _n=values["n_samples"])

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
