"""Errors and warnings raised by streammetrics.

Every error derives from :class:`StreamMetricsError`; the three concrete errors also derive from
:class:`ValueError`, so code that already catches ``ValueError`` keeps working.

Examples:
    >>> import streammetrics as sm
    >>> try:
    ...     sm.F1().update([0, 1], [1])
    ... except sm.InputError as err:
    ...     print(err)
    y_pred: expected 2 rows (the length of y_true), found 1
"""

from __future__ import annotations

__all__ = [
    "InputError",
    "MergeError",
    "StateError",
    "StreamMetricsError",
    "UndefinedMetricWarning",
]


class StreamMetricsError(Exception):
    """Base class of every error raised by streammetrics."""


class InputError(StreamMetricsError, ValueError):
    """A batch passed to ``update`` / ``revert`` is malformed.

    Raised for shape or length mismatches, NaN or infinite values, probabilities outside [0, 1],
    negative or non-finite weights, labels outside a fixed ``labels=`` list, and the like. The
    accumulator is left exactly as it was before the call.
    """


class MergeError(StreamMetricsError, ValueError):
    """Two accumulators of different type or configuration cannot be merged."""


class StateError(StreamMetricsError, ValueError):
    """Serialized bytes or a state dict are corrupt, truncated, of unknown type or too new."""


class UndefinedMetricWarning(UserWarning):
    """A value is undefined (zero division, empty accumulator, one class only).

    The metric returns the value chosen by its policy (``zero_division``) instead of raising.
    """
