"""Validation of constructor parameters, in one place, with messages naming the argument."""

from __future__ import annotations

import math
import types
from collections.abc import Iterable
from typing import Any


def check_option(name: str, value: Any, options: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``options`` else raise ``ValueError``."""
    options = list(options)
    if not any(value is o or (type(value) is type(o) and value == o) for o in options):
        raise ValueError(f"{name}: expected one of {options!r}, found {value!r}")
    return value


def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    integer: bool = False,
) -> Any:
    """Return ``value`` if it is a real number (an int if ``integer``) in the given interval."""
    kind = "an integer" if integer else "a real number"
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok_type or (not integer and math.isnan(value)):
        raise ValueError(f"{name}: expected {kind}, found {value!r}")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name}: expected {kind} {'>' if low_open else '>='} {low}, found {value!r}")
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(f"{name}: expected {kind} {'<' if high_open else '<='} {high}, found {value!r}")
    return value


def check_zero_division(value: Any) -> Any:
    """``"warn"``, 0.0, 1.0 or NaN, as scikit-learn's ``zero_division``."""
    if value == "warn":
        return "warn"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isnan(value) or value in (0, 1):
            return float(value)
    raise ValueError(f"zero_division: expected 'warn', 0.0, 1.0 or nan, found {value!r}")


def plain(value: Any) -> Any:
    """NumPy scalars and tuples to plain Python values (for JSON configurations)."""
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def own_constructor(cls: type) -> None:
    """Give a class that inherits its ``__init__`` a copy named after it.

    Python names the function, not the class called, in a call error: ``sm.F1(foo=1)`` would say
    ``RateMetric.__init__() got an unexpected keyword argument 'foo'``. With its own copy (same
    code, defaults and signature) the message names ``F1.__init__``.

    Examples:
        >>> class Base:
        ...     def __init__(self, *, a: int = 1) -> None:
        ...         self.a = a
        >>> class Child(Base):
        ...     pass
        >>> own_constructor(Child)
        >>> Child(foo=1)
        Traceback (most recent call last):
        ...
        TypeError: Child.__init__() got an unexpected keyword argument 'foo'
        >>> Child(a=2).a
        2
    """
    init = cls.__init__  # type: ignore[misc]
    if "__init__" in cls.__dict__ or not isinstance(init, types.FunctionType):
        return
    copy = types.FunctionType(
        init.__code__, init.__globals__, init.__name__, init.__defaults__, init.__closure__
    )
    copy.__kwdefaults__ = None if init.__kwdefaults__ is None else dict(init.__kwdefaults__)
    copy.__annotations__ = dict(init.__annotations__)
    copy.__doc__, copy.__module__ = init.__doc__, init.__module__
    copy.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = copy  # type: ignore[misc]
