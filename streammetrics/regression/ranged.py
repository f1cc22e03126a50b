"""Moment states with the range of y_true: the state of ``NRMSE(normalization="range")``.

:class:`RangedTargetMoments` keeps what :class:`~streammetrics.regression.moments.TargetMoments`
keeps (:class:`RangedCoMoments`, what :class:`~streammetrics.regression.moments.CoMoments` keeps)
and, per output, the smallest and the largest y_true over the rows of positive weight. A minimum
cannot be taken back out: the state merges (the extremes of the union are the extremes of the
extremes) but does not revert, and ``scale`` (exponential forgetting) leaves the extremes as they
are (a factor 0 forgets everything).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._core.schema import Array, Schema
from ..errors import InputError, MergeError, StateError
from .moments import CoMoments, Moments, TargetMoments, _add, _batch_stats, _copy, _earlier_state, _schema_of


@functools.cache
def _fields_of(cls: type[Moments]) -> Schema:
    """The fields of a ranged state's dict: those of its moments, and ``low`` and ``high``."""
    return Schema(
        f"{cls.__name__} state",
        **_schema_of(cls).fields,
        low=Array("if", dtype="float64", shape=("n_outputs",)),
        high=Array("if", dtype="float64", shape=("n_outputs",)),
    )


class _Ranged(Moments):
    """A moment state (the class after this one in a subclass's bases) and the per-output
    minimum and maximum of y_true (``low``, ``high``; zeros while no row has weight).
    Mergeable, not revertible."""

    revertible = False

    def _empty(self, k: int) -> dict[str, Any]:
        return {**super()._empty(k), "low": np.zeros(k), "high": np.zeros(k)}

    def _extremes(
        self, weight: float, low: np.ndarray, high: np.ndarray, w2: float, low2: np.ndarray, high2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The extremes of two parts, each meaningful only when its weight is positive."""
        if w2 <= 0:
            return low, high
        if weight <= 0:
            return low2, high2
        return np.minimum(low, low2), np.maximum(high, high2)

    def update(
        self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None, *, sign: int = 1
    ) -> None:
        """Add a batch (as :meth:`Moments.update`) and widen the range; atomic."""
        if sign < 0:
            raise TypeError(
                f"{type(self).__name__} cannot revert: a minimum or maximum cannot be taken back out"
            )
        n = len(y_true)
        k = 1 if y_true.ndim == 1 else y_true.shape[1]
        if self.n_outputs is not None and k != self.n_outputs and n:
            raise InputError(f"y_true: expected {self.n_outputs} outputs like earlier batches, found {k}")
        if not n:
            return
        if self._transform == "log1p":
            y_true, y_pred = np.log1p(y_true), np.log1p(y_pred)
        batch = _batch_stats(y_true, y_pred, weights, self.shift if self.weight > 0 else None, type(self))
        new = _add(self._fields(), batch)
        t = y_true.reshape(n, k) if weights is None else y_true.reshape(n, k)[weights > 0]
        if len(t):
            low, high = self._extremes(self.weight, self.low, self.high, 1.0, t.min(axis=0), t.max(axis=0))
        else:
            low, high = self.low, self.high
        fields = self._assigned(new, k)
        if fields["weight"] > 0:
            fields.update(low=low, high=high)
        else:
            fields.update(low=np.zeros(k), high=np.zeros(k))
        self._commit(_n=self._n + n, n_outputs=k, **fields)

    def merge(self, other: Any) -> None:
        self.check_mergeable(other)
        assert isinstance(other, _Ranged)
        if other.n_outputs is not None and self.n_outputs is not None and other.n_outputs != self.n_outputs:
            raise MergeError(
                f"cannot merge {self.NAME} of {other.n_outputs} outputs into {self.NAME} of {self.n_outputs}"
            )
        theirs = other._fields()
        if other.weight > 0 and self.weight > 0:
            theirs["mean"] = other.mean + (other.shift - self.shift)
            theirs["shift"] = self.shift
        new = _add(self._fields(), theirs)
        k = other.n_outputs if self.n_outputs is None else self.n_outputs
        fields = self._assigned(None if new is None else {n: _copy(v) for n, v in new.items()}, k or 0)
        low, high = self._extremes(self.weight, self.low, self.high, other.weight, other.low, other.high)
        if fields["weight"] > 0:
            fields.update(low=low.copy(), high=high.copy())
        else:
            fields.update(low=np.zeros(k or 0), high=np.zeros(k or 0))
        self._commit(n_outputs=k, _n=self._n + other._n, **fields)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "low": self.low, "high": self.high}

    @classmethod
    def _schema(cls) -> Schema:
        return _fields_of(cls)

    @classmethod
    def _stored(cls) -> tuple[str, ...]:
        return (*cls.arrays(), "low", "high")

    def check(self) -> None:
        super().check()  # (the moments' checks, on this state's fields)
        where = self._schema().where
        if self.weight <= 0 and (self.low.any() or self.high.any()):
            raise StateError(f"{where}: a range without weight")
        if np.any(self.low > self.high):
            raise StateError(f"{where}: low above high")


class RangedCoMoments(_Ranged, CoMoments):
    """:class:`~streammetrics.regression.moments.CoMoments` and the per-output minimum and
    maximum of y_true (``low``, ``high``; zeros while no row has weight). Mergeable, not
    revertible.

    Examples:
        >>> import numpy as np
        >>> s = RangedCoMoments()
        >>> s.update(np.array([1.0, 4.0, 3.0]), np.array([1.5, 2.0, 2.0]), np.array([1.0, 0.0, 1.0]))
        >>> s.low.tolist(), s.high.tolist(), s.weight
        ([1.0], [3.0], 2.0)
    """

    NAME = "ranged co-moments"


class RangedTargetMoments(_Ranged, TargetMoments):
    """:class:`~streammetrics.regression.moments.TargetMoments` and the per-output minimum and
    maximum of y_true: the state of ``NRMSE(normalization="range")``. Mergeable, not revertible.

    Examples:
        >>> import numpy as np
        >>> s = RangedTargetMoments()
        >>> s.update(np.array([1.0, 4.0, 3.0]), np.array([1.5, 2.0, 2.0]), np.array([1.0, 0.0, 1.0]))
        >>> s.low.tolist(), s.high.tolist(), s.ss_residual.tolist()
        ([1.0], [3.0], [1.25])
    """

    NAME = "ranged target moments"

    def load_dict(self, data: dict[str, Any]) -> None:
        """Load a state dict; a :class:`RangedCoMoments` dict (the state of NRMSE's range in
        earlier versions) is read too: its y_true and residual rows and its range."""
        super().load_dict(_earlier_state(data, RangedCoMoments, RangedTargetMoments, self._transform))
