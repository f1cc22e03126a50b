"""One value of a row, checked with plain Python: the pieces every family's row parser uses.

The same rules and messages as the batch validation of :mod:`streammetrics._core.validation`,
for one scalar at a time (no array is built per row).

Examples:
    >>> label_of(1.0, "y_true"), number_of(2, "y_pred"), weight_of(1.0)
    (1, 2.0, None)
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from ..errors import InputError

#: Types a label may have on the fast path (anything else takes the checked path).
LABEL_TYPES = frozenset({int, str, bool, np.int64, np.int32, np.int16, np.int8, np.uint8, np.str_, np.bool_})
#: Types a number may have on the fast path.
NUMBER_TYPES = frozenset({int, float, bool, np.float64, np.float32, np.int64, np.int32})
_INT64 = (-(2**63), 2**63 - 1)


def floats_of(values: list[Any]) -> np.ndarray:
    """A buffer of numbers (each a Python or NumPy number a float64 holds: the fast paths
    buffer nothing else) as a float64 array, each converted as ``float()`` converts it: packed
    as C doubles in one call, about twice as fast as ``np.fromiter`` over the list (read-only).

    Examples:
        >>> floats_of([1.5, 2, np.float32(0.25)]).tolist()
        [1.5, 2.0, 0.25]
    """
    return np.frombuffer(struct.pack(f"{len(values)}d", *values), dtype=np.float64)


def label_of(value: Any, name: str) -> int | str:
    """One class label as a plain int or str, as :func:`validation.as_labels` would make it."""
    t = type(value)
    if t is str:
        return value
    if t is int:
        if not _INT64[0] <= value <= _INT64[1]:
            raise InputError(f"{name}: expected labels that fit in int64, found {value}")
        return value
    if t is bool or isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.integer):
        return label_of(int(value), name)  # np.uint64 may be beyond int64
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise InputError(f"{name}: expected finite values, found {value}")
        if not -(2.0**63) <= value < 2.0**63:  # a batch would have to wrap it
            raise InputError(f"{name}: expected labels that fit in int64, found {float(value)!r}")
        if value != int(value):
            raise InputError(
                f"{name}: expected class labels (ints, bools or strings), found continuous values such as "
                f"{float(value)!r}; pass threshold= to turn scores into labels"
            )
        return int(value)
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # 0-d arrays, CPU tensors
        return label_of(value.item(), name)
    raise InputError(f"{name}: expected one class label (int, bool or str), found {type(value).__name__}")


def number_of(value: Any, name: str) -> float:
    if isinstance(value, (str, bytes)):  # float("1e3") parses text: a batch refuses it
        raise InputError(f"{name}: expected a number, found {type(value).__name__} {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a number, found {type(value).__name__}") from None
    except OverflowError:
        raise InputError(f"{name}: expected finite values, found an integer beyond float range") from None
    if not math.isfinite(x):
        raise InputError(f"{name}: expected finite values, found {x}")
    return x


def weight_of(w: Any) -> float | None:
    if w is None:
        return None
    x = number_of(w, "sample_weight")
    if x < 0:
        raise InputError(f"sample_weight: expected non-negative weights, found {x}")
    return None if x == 1.0 else x


def innermost_state(state: Any, attribute: str) -> Any:
    """The state inside window/decay wrappers that has ``attribute``."""
    while not hasattr(state, attribute):
        state = state.merged() if hasattr(state, "merged") else state.state
    return state
