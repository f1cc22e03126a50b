"""Declarative schemas of state dicts: the validation every ``load_dict`` and ``check`` needs.

A state declares its fields once, each with its kind and its constraints, and reads a state
dict through the schema: the keys must be exactly the declared ones, each value is checked in
declaration order and converted (arrays to int64, float64, uint64 or bool; numbers to float), and
the first failure raises :class:`~streammetrics.StateError` naming the state, the field, what was
expected and what was found. A state's ``check()`` runs the same declarations over its live
values (:meth:`Schema.check`), then checks what only it knows (counts adding up to ``n_samples``).

The fields: :class:`Int`, :class:`Number`, :class:`Flag`, :class:`OneOf`, :class:`Array` (dtype
kinds, shape, finite, non-negative, strictly increasing), :class:`Nested` (a state inside a state:
windows, bootstrap replicates) and :class:`Check` (a predicate, for the odd field).

A dimension, a bound or a shape may name another field (declared earlier) or a value passed as
context (a configuration): an int is used as is, ``None`` counts as 0 (nothing seen yet) and a
list or an array as its length. A shape may also be a function of those values.

Examples:
    >>> import numpy as np
    >>> schema = Schema(
    ...     "Example state",
    ...     n_outputs=Int(low=1, optional=True),
    ...     sums=Array("if", shape=("n_outputs",), non_negative=True),
    ...     n_samples=Int(low=0),
    ... )
    >>> schema.read({"n_outputs": 2, "sums": [1, 2], "n_samples": 3})["sums"].dtype
    dtype('int64')
    >>> schema.read({"n_outputs": 2, "sums": [1.0], "n_samples": 3})
    Traceback (most recent call last):
    ...
    streammetrics.errors.StateError: Example state: sums must be an int64 or float64 array of shape (2,), found float64 array of shape (1,)
    >>> schema.read({"n_outputs": None, "sums": [], "n_samples": -1})
    Traceback (most recent call last):
    ...
    streammetrics.errors.StateError: Example state: n_samples must be a non-negative int, found -1
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import StateError
from .state import require_keys

#: A bound or a dimension: a number, or the name of a field or a context value.
Ref = int | str | None
#: A shape: one entry per dimension (``None``: any length), or a function of the values read.
Shape = tuple[Ref, ...] | Callable[[Mapping[str, Any]], tuple[int, ...]]

#: The largest count a state holds: counts are int64, and a sum beyond this would wrap.
INT64_MAX = 2**63 - 1
_KIND_NAMES = {"i": "int64", "u": "uint64", "f": "float64", "b": "bool"}
_WIDE = {"i": np.int64, "u": np.uint64, "f": np.float64, "b": np.bool_}


class Invalid(Exception):
    """Raised by a field: what it expected and what it found (the schema adds where and which)."""

    def __init__(self, expected: str, found: str) -> None:
        super().__init__(expected, found)
        self.expected, self.found = expected, found


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _resolve(ref: Ref, values: Mapping[str, Any]) -> Any:
    """A bound or dimension: an int as is; a name looked up (None: 0, a sized value: its length)."""
    if not isinstance(ref, str):
        return ref
    value = values[ref]
    if value is None:
        return 0
    return value if _is_int(value) else len(value)


class Field(abc.ABC):
    """One field of a state dict."""

    @abc.abstractmethod
    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        """``value`` checked and converted, given the values read so far (and the context);
        raise :class:`Invalid` otherwise."""


@dataclass(frozen=True)
class Int(Field):
    """A Python int (not a bool) in ``[low, high]``; ``None`` too when ``optional``."""

    low: Ref = None
    high: Ref = None
    optional: bool = False

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if value is None and self.optional:
            return None
        low, high = _resolve(self.low, values), _resolve(self.high, values)
        if not _is_int(value) or (low is not None and value < low) or (high is not None and value > high):
            raise Invalid(self._expected(low, high), short(value))
        if abs(value) > INT64_MAX:  # every count and size of a state is an int64
            raise Invalid(f"{self._expected(low, high)} within int64", short(value))
        return value

    def _expected(self, low: Any, high: Any) -> str:
        if low is not None and high is not None:
            text = f"an int in [{low}, {high}]"
        elif low == 0:
            text = "a non-negative int"
        elif low == 1:
            text = "a positive int"
        elif low is not None:
            text = f"an int >= {low}"
        else:
            text = "an int" if high is None else f"an int <= {high}"
        return f"None or {text}" if self.optional else text


@dataclass(frozen=True)
class Number(Field):
    """A real number (an int or a float, not a bool), finite, at least ``low``; read as a float."""

    low: float | None = None

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or (self.low is not None and value < self.low)
        ):
            bound = "" if self.low is None else " non-negative" if self.low == 0 else f" >= {self.low}"
            raise Invalid(f"a finite{bound} number", repr(value))
        return float(value)


@dataclass(frozen=True)
class Flag(Field):
    """A bool."""

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if not isinstance(value, bool):
            raise Invalid("a bool", repr(value))
        return value


class OneOf(Field):
    """One of the given values (compared by type and value: ``True`` is not ``1``)."""

    def __init__(self, *choices: Any) -> None:
        self.choices = choices

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if not any(value is c or (type(value) is type(c) and value == c) for c in self.choices):
            raise Invalid(f"one of {list(self.choices)!r}", repr(value))
        return value


@dataclass(frozen=True)
class Check(Field):
    """Anything ``accept`` says yes to (for the odd field: a list of labels, a nested dict)."""

    expected: str
    accept: Callable[[Any], bool]

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if not self.accept(value):
            raise Invalid(self.expected, short(value))
        return value


@dataclass(frozen=True)
class Nested(Field):
    """A nested state dict (a list of them with ``many``), loaded into a fresh state made by the
    context value named ``make`` and checked; read as that state (a list of states)."""

    make: str = "make_state"
    many: bool = False

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if self.many:
            if not isinstance(value, list):
                raise Invalid("a list of state dicts", short(value))
            return [self._load(v, values) for v in value]
        return self._load(value, values)

    def _load(self, value: Any, values: Mapping[str, Any]) -> Any:
        if not isinstance(value, dict):
            raise Invalid("a state dict", short(value))
        state = values[self.make]()
        state.load_dict(value)  # its own errors name it
        state.check()
        return state


@dataclass(frozen=True)
class Array(Field):
    """A numeric array, read as ``dtype`` (default: its kind's wide dtype: int64, uint64, float64, bool).

    ``kinds`` are the accepted NumPy dtype kinds (``"i"``, ``"u"``, ``"f"``, ``"b"``);
    ``shape`` (see :data:`Shape`) or ``ndim`` constrain the shape; ``finite`` (for floats),
    ``non_negative`` and ``increasing`` (strictly, along a 1-D array) the values. With
    ``optional``, ``None`` is accepted too; with ``infinite``, floats may be infinite (a total
    that grew past the float range, as the accumulated arithmetic leaves it), never NaN.
    """

    kinds: str = "if"
    shape: Shape | None = None
    dtype: str | None = None
    ndim: int | None = None
    finite: bool = True
    infinite: bool = False
    non_negative: bool = False
    increasing: bool = False
    optional: bool = False

    def read(self, value: Any, values: Mapping[str, Any]) -> Any:
        if value is None and self.optional:
            return None
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            arr = np.asarray(None)  # ragged lists and the like: reported as an object array
        shape = self._shape(values)
        ndim = len(shape) if shape is not None else self.ndim
        if (
            arr.dtype.kind not in self.kinds
            or (ndim is not None and arr.ndim != ndim)
            or (
                shape is not None
                and any(s is not None and s != n for s, n in zip(shape, arr.shape, strict=True))
            )
        ):
            raise Invalid(self._expected(shape, ndim), f"{arr.dtype} array of shape {arr.shape}")
        arr = arr.astype(
            self.dtype or _WIDE[arr.dtype.kind]
        )  # a copy: the state never shares the dict's memory
        if self.finite and arr.dtype.kind == "f" and not np.isfinite(arr).all():
            if not self.infinite:
                raise Invalid("finite", f"non-finite {arr[~np.isfinite(arr)].flat[0]!r}")
            if np.isnan(arr).any():
                raise Invalid("finite or infinite", "NaN")
        if self.non_negative and arr.dtype.kind in "if" and arr.size and arr.min() < 0:
            raise Invalid("non-negative", f"negative value {arr.min()!r}")
        if self.increasing and arr.ndim == 1 and arr.size > 1 and not np.all(arr[1:] > arr[:-1]):
            i = int(np.flatnonzero(arr[1:] <= arr[:-1])[0])
            raise Invalid("strictly increasing", f"{arr[i + 1]!r} after {arr[i]!r}")
        return arr

    def _shape(self, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        if self.shape is None:
            return None
        if callable(self.shape):
            return tuple(self.shape(values))
        return tuple(None if s is None else _resolve(s, values) for s in self.shape)

    def _expected(self, shape: tuple[Any, ...] | None, ndim: int | None) -> str:
        dtypes = self.dtype or " or ".join(_KIND_NAMES[k] for k in self.kinds)
        text = f"{'an' if dtypes[0] in 'iu' else 'a'} {dtypes} array"
        if shape is not None:
            dims = ", ".join("any" if s is None else str(s) for s in shape)
            text += f" of shape ({dims}{',' if len(shape) == 1 else ''})"
        elif ndim is not None:
            text = f"a {ndim}-D {text[text.index(' ') + 1 :]}"
        return f"None or {text}" if self.optional else text


def exact_total(arr: np.ndarray, where: str, name: str) -> int | float:
    """The sum of a non-negative array: a Python int for an integer array (refused with
    :class:`StateError` where int64 arithmetic would wrap), a float otherwise.

    Examples:
        >>> exact_total(np.array([2, 3]), "Example state", "counts")
        5
        >>> exact_total(np.array([2**62, 2**62]), "Example state", "counts")
        Traceback (most recent call last):
        ...
        streammetrics.errors.StateError: Example state: counts must sum to at most 9223372036854775807, found a sum of 9223372036854775808
    """
    if arr.dtype.kind not in "iu":
        return float(arr.sum())
    # Non-negative entries: the partial sums only grow, so the int64 sum is exact whenever the
    # (approximate) float sum stays well below the limit; beyond it, sum exactly in Python.
    if float(arr.sum(dtype=np.float64)) < 2.0**62:
        return int(arr.sum())
    total = sum(int(v) for v in arr.ravel().tolist())
    if total > INT64_MAX:
        raise StateError(f"{where}: {name} must sum to at most {INT64_MAX}, found a sum of {total}")
    return total


def short(value: Any) -> str:
    """A found value, in a message: an array by its dtype and shape, anything else cut at 80."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape}"
    if _is_int(value) and value.bit_length() > 256:  # repr of a huge int is slow, or refused
        return f"an int of {value.bit_length()} bits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # ints beyond 4300 digits nested in lists, deep nesting
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


class Schema:
    """The fields of a state dict, in order (see the module docstring).

    ``where`` names the state in messages (``"SumTable state"``).
    """

    def __init__(self, where: str, /, **fields: Field) -> None:
        self.where = where
        self.fields = fields

    def read(self, data: Any, /, **context: Any) -> dict[str, Any]:
        """Every field of ``data`` checked and converted; ``data`` must hold exactly the fields."""
        require_keys(data, set(self.fields), self.where)
        values = dict(context)
        out = {}
        for name, field in self.fields.items():
            out[name] = values[name] = self._read(name, field, data[name], values)
        return out

    def check(self, values: Mapping[str, Any], /, **context: Any) -> None:
        """Check live values (a subset of the fields, in their dict form: numbers, arrays, lists;
        not nested states) against their declarations."""
        known = {**context, **values}
        for name, value in values.items():
            self._read(name, self.fields[name], value, known)

    def _read(self, name: str, field: Field, value: Any, values: Mapping[str, Any]) -> Any:
        try:
            return field.read(value, values)
        except Invalid as err:
            raise StateError(f"{self.where}: {name} must be {err.expected}, found {err.found}") from None
