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
    """Base class of every error raised by streammetrics.

    Examples:
        >>> import streammetrics as sm
        >>> issubclass(sm.InputError, sm.StreamMetricsError), issubclass(sm.InputError, ValueError)
        (True, True)
    """


class InputError(StreamMetricsError, ValueError):
    """A batch passed to ``update`` / ``revert`` is malformed.

    Raised for shape or length mismatches, NaN or infinite values, probabilities outside [0, 1],
    negative or non-finite weights, labels outside a fixed ``labels=`` list, and the like. The
    accumulator is left exactly as it was before the call.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Accuracy(labels=[0, 1])
        >>> try:
        ...     m.update([0, 2], [0, 1])
        ... except sm.InputError as err:
        ...     print(err)
        y_true: expected labels in the fixed list [0, 1], found [2]
    """


class MergeError(StreamMetricsError, ValueError):
    """Two accumulators of different type or configuration cannot be merged.

    Examples:
        >>> import streammetrics as sm
        >>> try:
        ...     sm.F1(average="macro").merge(sm.F1(average="micro"))
        ... except sm.MergeError as err:
        ...     print(err)
        cannot merge F1 accumulators of different configuration: average='macro' vs average='micro'
    """


class StateError(StreamMetricsError, ValueError):
    """Serialized bytes or a state dict are corrupt, truncated, of unknown type or too new.

    Examples:
        >>> import streammetrics as sm
        >>> data = sm.Accuracy().update([0, 1], [0, 1]).to_bytes()
        >>> try:
        ...     sm.from_bytes(data[:-3])
        ... except sm.StateError as err:
        ...     print(err)  # doctest: +ELLIPSIS
        truncated state: the prefix announces ... bytes, found ...
    """


class UndefinedMetricWarning(UserWarning):
    """A value is undefined (zero division, empty accumulator, one class only).

    The metric returns the value chosen by its policy (``zero_division``) instead of raising.

    Examples:
        >>> import warnings, streammetrics as sm
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     value = sm.Precision().update([1, 1], [0, 0]).compute()
        >>> value, caught[0].category.__name__
        (0.0, 'UndefinedMetricWarning')
    """
