"""The per-row value state: exact, mergeable ``(sum of w * f(row), sum of w)`` per column.

Every metric that is a (weighted) mean or sum of a value of each row — a loss per row, a hit
indicator, a per-query DCG — keeps this state: for each value column ``j`` the weighted sum
``S_j = sum w f_j(row)``, the total weight ``W = sum w`` and the row count. ``merge`` adds,
``revert`` subtracts, ``scale`` multiplies (exponential forgetting) and the formula divides.

Each running total is kept as an unevaluated pair ``hi + lo`` (compensated summation, Neumaier's
TwoSum on every batch total, merge and revert): however many batches are folded in, the totals
carry the rounding of one batch sum only, and a revert gives back the totals from before (the
rounding of the batch sum it subtracts aside). A batch's own column sums are NumPy's pairwise
sums, column by column (BLAS dot products when weighted).

Examples:
    >>> import numpy as np
    >>> s = RowSums()
    >>> s.update(np.array([[1.0], [2.0], [4.0]]), None)
    >>> s.update(np.array([[8.0]]), np.array([0.5]))
    >>> s.totals.tolist(), s.total_weight, s.n_samples
    ([11.0], 3.5, 4)
    >>> s.update(np.array([[8.0]]), np.array([0.5]), sign=-1)  # revert
    >>> s.totals.tolist(), s.total_weight
    ([7.0], 3.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core import narrow as N
from .._core.schema import Array, Int, Schema
from .._core.state import State
from .._core.validation import check_factor
from ..errors import InputError, MergeError, StateError


def two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """``s, e`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


#: Up to this many columns, the pairs are added as Python floats: the same IEEE arithmetic,
#: without NumPy's cost per call on a few values (most states have one or two columns).
_FLOAT_COLUMNS = 8


def _add_pairs(hi: Any, lo: Any, b_hi: Any, b_lo: Any) -> tuple[Any, Any]:
    """``(hi + lo) + (b_hi + b_lo)`` as a new compensated pair (arrays of one shape, or
    ``b_lo`` a scalar; or four scalars)."""
    if np.ndim(hi) == 0:  # the total weight
        pair = _add_float_pair(float(hi), float(lo), float(b_hi), float(b_lo))
        if pair is not None:
            return pair
    elif len(hi) <= _FLOAT_COLUMNS:
        b_lo = b_lo.tolist() if isinstance(b_lo, np.ndarray) else [float(b_lo)] * len(hi)
        pairs = _add_float_columns(hi.tolist(), lo.tolist(), b_hi.tolist(), b_lo)
        if pairs is not None:
            return np.array(pairs[0]), np.array(pairs[1])
    with np.errstate(invalid="ignore", over="ignore"):
        s, e = two_sum(hi, b_hi)
        s2, e2 = two_sum(s, lo + b_lo + e)
        finite = np.isfinite(s2)
        if np.all(finite):
            return s2, e2
        # a total beyond the float range: its plain sum (inf; NaN for inf - inf), no compensation
        # to keep (TwoSum's error terms of an inf are NaN); the other totals as they are
        plain = (hi + lo) + (b_hi + b_lo)
    return np.where(finite, s2, plain), np.where(finite, e2, 0.0)


def _add_float_pair(hi: float, lo: float, b_hi: float, b_lo: float) -> tuple[float, float] | None:
    """:func:`_add_pairs` of Python floats (the same IEEE arithmetic, without NumPy's cost per
    call on a few values), or ``None`` when the sum is not finite (the array rule handles it)."""
    s = hi + b_hi
    bb = s - hi
    lo = lo + b_lo + ((hi - (s - bb)) + (b_hi - bb))
    s2 = s + lo
    if not math.isfinite(s2):
        return None
    bb = s2 - s
    return s2, (s - (s2 - bb)) + (lo - bb)


def _add_float_columns(
    his: list[float], los: list[float], b_his: list[Any], b_los: list[float]
) -> tuple[list[float], list[float]] | None:
    """:func:`_add_float_pair` column by column: the new ``(his, los)``, or ``None`` when a sum
    is not finite."""
    new_his, new_los = [], []
    for four in zip(his, los, b_his, b_los, strict=True):
        pair = _add_float_pair(*four)
        if pair is None:
            return None
        new_his.append(pair[0])
        new_los.append(pair[1])
    return new_his, new_los


class RowSums(State):
    """Weighted sums of per-row values, one per column, and the total weight (compensated).

    ``width`` (the number of value columns) is fixed by the first batch with rows. The metric
    on top decides what the columns mean.
    """

    revertible = True
    overflowing = ("sums",)  # (the weight stays below 2^255 a batch)

    def __init__(self) -> None:
        self.reset()

    def config(self) -> dict[str, Any]:
        return {}

    def reset(self) -> None:
        self._commit(_n=0, width=None, weight=np.zeros(2), sums=np.zeros((2, 0)))

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def totals(self) -> np.ndarray:
        """``sum w f_j(row)`` per column."""
        return self.sums[0] + self.sums[1]

    @property
    def total_weight(self) -> float:
        """``sum w``."""
        return float(self.weight[0] + self.weight[1])

    def update(
        self, values: np.ndarray, weights: np.ndarray | None, *, sign: int = 1, n_rows: int | None = None
    ) -> None:
        """Add (``sign=-1``: take out) the rows ``values`` of shape ``(m, width)``; ``n_rows``
        (default ``m``) is the number of rows they stand for. Atomic."""
        m, k = values.shape
        if weights is None:
            batch, total = N.column_sums(values), float(m)
        else:
            batch, total = weights @ values, float(weights.sum())
        self.add_sums(batch, total, m if n_rows is None else n_rows, k, sign=sign)

    def add_sums(self, batch: np.ndarray, total: float, n: int, k: int, *, sign: int = 1) -> None:
        """Add (``sign=-1``: take out) the column sums ``batch`` of ``n`` rows of ``k`` values
        and their total weight ``total`` (a batch reduced by its metric, chunk by chunk). Atomic."""
        if not n:
            return
        if self.width is not None and k != self.width:
            raise InputError(f"y_pred: expected {self.width} values per row like earlier batches, found {k}")
        if sign < 0 and n > self._n:
            raise InputError(f"y_true: cannot revert {n} rows from a state holding {self._n}")
        n_after = self._n + sign * n
        if n_after == 0:
            self.reset()
            return
        pairs = self._float_sums(batch, total, k, sign) if k <= _FLOAT_COLUMNS else None
        if pairs is not None:  # (the common case: a few columns, finite totals)
            sums, weight = pairs
            if sign < 0 and weight[0] + weight[1] < -1e-9 * abs(self.total_weight):
                raise InputError("sample_weight: reverting more weight than was added")
            self._commit(_n=n_after, width=k, weight=np.array(weight), sums=np.array(sums))
            return
        sums = self.sums if self.width is not None else np.zeros((2, k))
        hi, lo = _add_pairs(sums[0], sums[1], sign * batch, 0.0)
        whi, wlo = _add_pairs(self.weight[0], self.weight[1], sign * total, 0.0)
        if sign < 0 and whi + wlo < -1e-9 * abs(self.total_weight):
            raise InputError("sample_weight: reverting more weight than was added")
        self._commit(_n=n_after, width=k, weight=np.array([whi, wlo]), sums=np.array([hi, lo]))

    def _float_sums(
        self, batch: np.ndarray, total: float, k: int, sign: int
    ) -> tuple[list[list[float]], tuple[float, float]] | None:
        """:meth:`add_sums`' new sums and weight pairs, as :func:`_add_pairs` computes them for a
        few columns (Python floats, the same IEEE arithmetic), both in one call; ``None`` when a
        total is not finite (:func:`_add_pairs`' array rule then handles them all)."""
        if k == 1:  # (one column, the usual case: no lists of columns to build and zip)
            (hi,), (lo,) = self.sums.tolist() if self.width is not None else ((0.0,), (0.0,))
            value = batch.item()
            if sign < 0:
                value, total = -value, -total
            weight = _add_float_pair(*self.weight.tolist(), total, 0.0)
            pair = None if weight is None else _add_float_pair(hi, lo, value, 0.0)
            return None if pair is None else ([[pair[0]], [pair[1]]], weight)
        his, los = self.sums.tolist() if self.width is not None else ([0.0] * k, [0.0] * k)
        added = batch.tolist()
        if sign < 0:
            added, total = [-x for x in added], -total
        weight = _add_float_pair(*self.weight.tolist(), total, 0.0)
        sums = None if weight is None else _add_float_columns(his, los, added, [0.0] * k)
        return None if sums is None else (list(sums), weight)

    def revert(self, values: np.ndarray, weights: np.ndarray | None) -> None:
        self.update(values, weights, sign=-1)

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting); exact in the pairs."""
        check_factor(factor)
        self._commit(weight=self.weight * factor, sums=self.sums * factor)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, RowSums)
        if other.width is None:
            self._commit(_n=self._n + other._n)
            return
        if self.width is not None and other.width != self.width:
            raise MergeError(f"cannot merge row sums of {other.width} columns into row sums of {self.width}")
        sums = self.sums if self.width is not None else np.zeros((2, other.width))
        hi, lo = _add_pairs(sums[0], sums[1], other.sums[0], other.sums[1])
        whi, wlo = _add_pairs(self.weight[0], self.weight[1], other.weight[0], other.weight[1])
        self._commit(
            _n=self._n + other._n, width=other.width, weight=np.array([whi, wlo]), sums=np.array([hi, lo])
        )

    def to_dict(self) -> dict[str, Any]:
        return {"n_samples": self._n, "width": self.width, "weight": self.weight, "sums": self.sums}

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _FIELDS.read(data)
        self._commit(
            _n=values["n_samples"], width=values["width"], weight=values["weight"], sums=values["sums"]
        )

    def check(self) -> None:
        _FIELDS.check(self.to_dict())
        where = _FIELDS.where
        if (self._n == 0) != (self.width is None):
            raise StateError(f"{where}: a width without rows, or rows without a width")
        if self._n == 0 and (self.weight.any() or self.sums.any()):
            raise StateError(f"{where}: sums without rows (n_samples=0)")
        if self.total_weight < 0:
            raise StateError(f"{where}: negative total weight {self.total_weight!r}")
        if self.total_weight == 0 and self.sums.any():
            raise StateError(f"{where}: sums without weight")
        # a total past the float range is inf (NaN where overflows of both signs met, as the
        # plain sum leaves it), without compensation
        hi, lo = self.sums
        if not np.isfinite(lo).all() or (~np.isfinite(hi) & (lo != 0)).any():
            raise StateError(
                f"{where}: sums: expected a finite compensation, 0 beside a total past the float range"
            )


_FIELDS = Schema(
    "RowSums state",
    n_samples=Int(low=0),
    width=Int(low=1, optional=True),
    weight=Array("if", dtype="float64", shape=(2,)),
    sums=Array("if", dtype="float64", shape=(2, "width"), finite=False),
)


class RowExtremes(State):
    """The smallest or largest value over rows of positive weight (mergeable, not revertible)."""

    revertible = False

    def __init__(self, kind: str = "min") -> None:
        if kind not in ("min", "max"):
            raise ValueError(f"kind: expected 'min' or 'max', found {kind!r}")
        self.kind = kind
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def reset(self) -> None:
        self._commit(_n=0, value=np.zeros(0))

    @property
    def n_samples(self) -> int:
        return self._n

    def _pick(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not a.size:
            return b
        if not b.size:
            return a
        return np.minimum(a, b) if self.kind == "min" else np.maximum(a, b)

    def update(self, values: np.ndarray, weights: np.ndarray | None) -> None:
        """``values`` (n, ...) finite; rows of weight 0 are left out."""
        n = len(values)
        if weights is not None:
            values = values[weights > 0]
        flat = values.reshape(-1)
        best = (
            np.zeros(0) if not flat.size else np.atleast_1d(flat.min() if self.kind == "min" else flat.max())
        )
        self._commit(_n=self._n + n, value=self._pick(self.value, best))

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, RowExtremes)
        self._commit(_n=self._n + other._n, value=self._pick(self.value, other.value))

    def scale(self, factor: float) -> None:
        """A minimum or maximum does not depend on the weights: nothing to scale (a factor 0
        forgets everything)."""
        check_factor(factor)
        if factor == 0:
            self._commit(value=np.zeros(0))

    def to_dict(self) -> dict[str, Any]:
        return {"n_samples": self._n, "value": self.value}

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _EXTREME_FIELDS.read(data)
        self._commit(_n=values["n_samples"], value=values["value"])

    def check(self) -> None:
        _EXTREME_FIELDS.check(self.to_dict())
        if self.value.size > 1:
            raise StateError(f"{_EXTREME_FIELDS.where}: value must hold at most one number")
        if self._n == 0 and self.value.size:
            raise StateError(f"{_EXTREME_FIELDS.where}: a value without rows (n_samples=0)")


_EXTREME_FIELDS = Schema(
    "RowExtremes state",
    n_samples=Int(low=0),
    value=Array("if", dtype="float64", ndim=1),
)
