"""The maximum-absolute-error state: a running maximum, mergeable but not revertible."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.schema import Array, Int, Number, Schema
from .._core.state import State
from ..errors import InputError, MergeError, StateError


class MaxAbsError(State):
    """The largest ``|y_true - y_pred|`` per output over rows of positive weight.

    A maximum cannot be taken back out, so this state is not revertible.

    Examples:
        >>> import numpy as np
        >>> s = MaxAbsError()
        >>> s.update(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 0.0]), None)
        >>> s.max_abs.tolist(), s.n_samples
        ([3.0], 3)
    """

    revertible = False

    def __init__(self) -> None:
        self.reset()

    def config(self) -> dict[str, Any]:
        return {}

    def reset(self) -> None:
        self._commit(_n=0, n_outputs=None, weight=0.0, max_abs=np.zeros(0))

    @property
    def n_samples(self) -> int:
        return self._n

    def update(self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None) -> None:
        """Add a batch of finite float64 arrays, 1-D or ``(n, n_outputs)``."""
        n = len(y_true)
        k = 1 if y_true.ndim == 1 else y_true.shape[1]
        if self.n_outputs is not None and k != self.n_outputs and n:
            raise InputError(f"y_true: expected {self.n_outputs} outputs like earlier batches, found {k}")
        absr = np.abs(y_true - y_pred)
        total = float(n) if weights is None else float(weights.sum())
        if weights is not None and n:
            absr = absr[weights > 0]
        new_max = self.max_abs
        if len(absr):
            batch_max = np.atleast_1d(absr.max(axis=0))
            new_max = batch_max if self.weight <= 0 else np.maximum(self.max_abs, batch_max)
        elif n and self.n_outputs is None:
            new_max = np.zeros(k)
        self._commit(
            n_outputs=k if n and self.n_outputs is None else self.n_outputs,
            _n=self._n + n,
            weight=self.weight + total,
            max_abs=new_max,
        )

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, MaxAbsError)
        if other.n_outputs is not None and self.n_outputs is not None and other.n_outputs != self.n_outputs:
            raise MergeError(
                f"cannot merge maxima of {other.n_outputs} outputs into maxima of {self.n_outputs}"
            )
        max_abs = self.max_abs
        if other.weight > 0:
            max_abs = other.max_abs.copy() if self.weight <= 0 else np.maximum(self.max_abs, other.max_abs)
        elif self.n_outputs is None and other.n_outputs is not None:
            max_abs = other.max_abs.copy()
        self._commit(
            max_abs=max_abs,
            n_outputs=other.n_outputs if self.n_outputs is None else self.n_outputs,
            _n=self._n + other._n,
            weight=self.weight + other.weight,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_samples": self._n,
            "n_outputs": self.n_outputs,
            "weight": self.weight,
            "max_abs": self.max_abs,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _FIELDS.read(data)
        self._commit(
            _n=values["n_samples"],
            n_outputs=values["n_outputs"],
            weight=values["weight"],
            max_abs=values["max_abs"],
        )

    def check(self) -> None:
        _FIELDS.check(self.to_dict())
        if self._n == 0 and (self.weight != 0 or self.n_outputs is not None):
            raise StateError(f"{_FIELDS.where}: no rows but a weight or an output count")
        if self._n and self.n_outputs is None:
            raise StateError(f"{_FIELDS.where}: rows but no output count")
        if self.weight == 0 and self.max_abs.any():
            raise StateError(f"{_FIELDS.where}: a maximum without weight")


_FIELDS = Schema(
    "MaxAbsError state",
    n_samples=Int(low=0),
    n_outputs=Int(low=1, optional=True),
    weight=Number(low=0),
    max_abs=Array("if", dtype="float64", shape=("n_outputs",), non_negative=True),
)
