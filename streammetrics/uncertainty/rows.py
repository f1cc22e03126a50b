"""One-row path of McNemar's paired correctness (see :mod:`streammetrics._core.onerow`).

A McNemar row is three labels, ``(y_true, pred_a, pred_b)``, and its state reads only who was
right: the row is buffered as one small code, ``2 * (A wrong) + (B wrong)``, and the buffer is
decoded into labels that give the same codes (truth 0, predictions 0 or 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError

#: Label types taken as they are on the per-row path: every value of these fits in int64 except
#: a Python ``int`` (range-checked). Other types (floats, bools, ``np.uint64``, 0-d arrays) go
#: through the batch check as a one-row batch.
_FAST_TYPES = frozenset({int, str, np.int64, np.int32, np.int16, np.int8, np.uint32, np.uint16, np.uint8})
_LOW, _HIGH = -(2**63), 2**63 - 1


class PairedRows:
    """The row parser of :class:`~streammetrics.McNemar`: rows of three labels of one type."""

    encoding = "values"
    width = 1

    def refresh(self, state: Any) -> None:
        """Nothing to re-read: the state keeps no labels."""

    def fast_test(self) -> Callable[[Any, Any], bool]:
        return lambda t, p: False  # two-argument rows are not McNemar rows: the batch check says why

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        raise InputError("pred_b: expected three arguments (y_true, pred_a, pred_b), found two")

    def decode(self, flat: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Labels with the buffered codes: truth 0, ``pred_a`` 1 where A was wrong, ``pred_b`` likewise."""
        codes = np.fromiter(flat, dtype=np.int64, count=len(flat))
        return np.zeros(len(codes), dtype=np.int64), codes >> 1, codes & 1

    def row_function(
        self, buffer: Any, limit: int, flush: Callable[[], None], slow: Callable[..., Any], result: Any
    ) -> Callable[..., Any]:
        """The per-row function ``(y_true, pred_a, pred_b, sample_weight=None) -> result``.

        Three labels of one fast type (ints within int64, or strings) are one append; anything
        else (weights, other types, batches) goes to ``slow`` (the checked batch update).
        """
        rows, types, lo, hi = buffer.rows, _FAST_TYPES, _LOW, _HIGH
        append = rows.append

        def update(y_true: Any, pred_a: Any, pred_b: Any, sample_weight: Any = None) -> Any:
            kind = type(y_true)
            if (
                sample_weight is None
                and kind in types
                and type(pred_a) is kind
                and type(pred_b) is kind
                and (kind is not int or (lo <= y_true <= hi and lo <= pred_a <= hi and lo <= pred_b <= hi))
            ):
                append(2 * (pred_a != y_true) + (pred_b != y_true))
                if len(rows) >= limit:
                    flush()
                return result
            slow(y_true, pred_a, pred_b, sample_weight)
            return result

        return update
