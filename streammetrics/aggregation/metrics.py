"""Aggregators of logged values: :class:`Mean`, :class:`Sum`, :class:`Min`, :class:`Max`.

``update(values, sample_weight=None)``: one number, or a batch of finite numbers of any shape
(rows along the first axis; a row's weight applies to every value of the row, as torchmetrics
broadcasts its ``weight`` and Keras its ``sample_weight``). One number given as a Python float
is appended to a buffer (no array per call) and folded in with the next read.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from .._core import compiled
from .._core import validation as v
from .._core.metric import Metric
from .._core.rowvalues import floats_of
from ..errors import InputError
from .state import RowExtremes, RowSums

#: Values buffered before a vectorized flush.
FLUSH_EVERY = 16384
#: The calling convention of the aggregators: ``update(values, sample_weight=None)``.
VALUES = "values"


class _Aggregator(Metric[Any], base=True):
    """The shared input handling and the one-value buffer of the aggregators."""

    roles: ClassVar[tuple[str, ...]] = ("values",)
    convention: ClassVar[str | None] = VALUES
    prediction: ClassVar[str | None] = None

    def __init__(self) -> None:
        self.__dict__["_pending"] = ()  # read by the state property while the state is built
        super().__init__()
        self._install()

    def _install(self) -> None:
        """The per-value hot path as the instance's ``update``: a finite Python float is stored
        (no method dispatch, no array); anything else goes to the class's ``update``.

        Compiled (:mod:`streammetrics._core._fastrows`, a C call that runs no Python frame) where
        it was built, else a closure that does the same in Python."""
        d = self.__dict__
        batch_update = type(self).update.__get__(self)
        if compiled.ValueBuffer is not None:
            d["_pending"] = d["update"] = compiled.ValueBuffer(self, batch_update, self._flush, FLUSH_EVERY)
            return
        pending = d["_pending"] = []
        append, flush, limit = pending.append, self._flush, FLUSH_EVERY

        def update(values: Any, sample_weight: Any = None) -> Any:
            if type(values) is float and sample_weight is None and values - values == 0.0:
                append(values)
                if len(pending) >= limit:
                    flush()
                return self
            return batch_update(values, sample_weight)

        update.__doc__ = batch_update.__doc__
        d["update"] = update

    # the state is read through this property: buffered values are applied first
    @property
    def _state(self) -> Any:
        d = self.__dict__
        if d["_pending"]:
            self._flush()
        return d["_state_"]

    @_state.setter
    def _state(self, value: Any) -> None:
        self.__dict__["_state_"] = value

    def _flush(self) -> None:
        d = self.__dict__
        with self._lock:
            pending = d["_pending"]
            n = len(pending)
            if not n:
                return
            if isinstance(pending, list):
                self._apply(d["_state_"], (floats_of(pending[:n]), None))
                del pending[:n]
            else:  # the compiled buffer: its values stay in it until they are applied
                self._apply(d["_state_"], (np.frombuffer(pending.peek(), np.float64, n), None))
                pending.drop(n)

    def get_config(self) -> dict[str, Any]:
        return {}

    def update(self, values: Any, sample_weight: Any = None) -> Any:
        """Add one value or a batch of values; returns ``self``.

        Raises :class:`~streammetrics.InputError` on NaN, infinities, non-numbers, or weights
        that are negative, non-finite or of the wrong length, leaving the accumulator unchanged.
        """
        if sample_weight is None and type(values) is float and values - values == 0.0:
            return self.__dict__["update"](values)  # the installed one-value path: buffered
        return super().update(values, sample_weight=sample_weight)

    def update_one(self, values: Any, w: Any = None) -> Any:
        """One value (``w``: its weight, river's name); the same as ``update(values, w)``."""
        return self.update(values, sample_weight=w)

    def _validate(self, values: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        arr = v.to_array(values, "values")
        if arr.ndim == 0:
            arr = arr.reshape(1)
        x = v.as_float(arr, "values", (arr.ndim,))
        w = None if sample_weight is None else v.as_weights(sample_weight, len(x))
        return x, w

    def _share_key(self) -> Hashable:
        return ("aggregation", self._state.share_key())

    def __getstate__(self) -> dict[str, Any]:
        self._flush()
        state = super().__getstate__()
        state.pop("update", None)  # the hot path and its (empty) buffer are rebuilt, never pickled
        state.pop("_pending", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.__dict__.pop("_pending", None)  # an empty list in pickles of 0.1
        self._install()

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        self._flush()
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key not in ("_lock", "update", "_pending"):
                new.__dict__[key] = copy.deepcopy(value, memo)
        new._lock = threading.RLock()
        new._install()
        return new


def _per_value_weights(x: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of any shape as one column of values, each with its row's weight."""
    if x.ndim == 1:
        return x.reshape(-1, 1), w
    per_row = int(np.prod(x.shape[1:]))
    flat = x.reshape(len(x) * per_row, 1)
    return flat, None if w is None else np.repeat(w, per_row)


class _SumAggregator(_Aggregator, base=True):
    def _make_state(self) -> RowSums:
        return RowSums()

    def _apply(self, state: RowSums, batch: tuple[Any, ...]) -> None:
        values, w = _per_value_weights(*batch)
        state.update(values, w, n_rows=len(batch[0]))

    def _unapply(self, state: RowSums, batch: tuple[Any, ...] | None) -> None:
        if batch is not None:
            values, w = _per_value_weights(*batch)
            state.update(values, w, sign=-1, n_rows=len(batch[0]))

    def _is_empty(self, state: RowSums) -> bool:
        return not state.total_weight > 0


class Mean(_SumAggregator):
    """The weighted mean of logged values: ``sum w x / sum w`` (torchmetrics ``MeanMetric``,
    Keras ``Mean``).

    Every value of a row of a multi-dimensional batch counts once, with its row's weight.
    Exactly revertible; merges add the compensated sums.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Mean()
        >>> for loss in [0.5, 0.25, 1.0]:
        ...     _ = m.update(loss)
        >>> m.compute()
        0.5833333333333334
        >>> sm.Mean().update([1.0, 2.0, 4.0], sample_weight=[1, 1, 2]).compute()
        2.75
    """

    def _compute(self, state: RowSums) -> float:
        return float(state.totals[0] / state.total_weight)


class Sum(_SumAggregator):
    """The weighted sum of logged values: ``sum w x`` (torchmetrics ``SumMetric``, Keras ``Sum``).

    Empty (or only zero weights): NaN with an :class:`~streammetrics.UndefinedMetricWarning`, as
    every empty accumulator (torchmetrics and Keras return 0).

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> sm.Sum().update([1.0, 2.0, 4.0], sample_weight=[1, 1, 2]).compute()
        11.0
    """

    def _compute(self, state: RowSums) -> float:
        return float(state.totals[0])


class _Extreme(_Aggregator, base=True):
    kind: ClassVar[str] = "min"

    def _make_state(self) -> RowExtremes:
        return RowExtremes(self.kind)

    def _apply(self, state: RowExtremes, batch: tuple[Any, ...]) -> None:
        state.update(*batch)

    def _is_empty(self, state: RowExtremes) -> bool:
        return not state.value.size

    def _compute(self, state: RowExtremes) -> float:
        return float(state.value[0])


class Min(_Extreme):
    """The smallest logged value over rows of positive weight (torchmetrics ``MinMetric``).

    Mergeable, not revertible (a minimum cannot be taken back out); weights only say whether a
    row counts (weight 0 leaves it out).

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> sm.Min().update([3.0, -1.0, 2.0]).compute()
        -1.0
    """

    kind: ClassVar[str] = "min"


class Max(_Extreme):
    """The largest logged value over rows of positive weight (torchmetrics ``MaxMetric``).

    Mergeable, not revertible; weights only say whether a row counts.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> sm.Max().update([3.0, -1.0, 2.0]).compute()
        3.0
    """

    kind: ClassVar[str] = "max"


_ = (InputError, threading)
