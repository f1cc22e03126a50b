"""Rebuilding accumulators from state dicts and bytes: a registry of known types, no pickle."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import StateError
from . import serialization

if TYPE_CHECKING:
    from .metric import Metric

_REGISTRY: dict[str, type[Metric]] = {}


def register(cls: type[Metric]) -> None:
    """Make ``cls`` loadable by name (called for every concrete metric class)."""
    name = cls.type_name()
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise TypeError(f"two accumulator classes are named {name!r}")
    _REGISTRY[name] = cls


def registered_types() -> dict[str, type[Metric]]:
    """A copy of the registry: type name -> class.

    Examples:
        >>> import streammetrics as sm
        >>> sm.registered_types()["F1"] is sm.F1
        True
    """
    return dict(_REGISTRY)


def from_state_dict(data: dict[str, Any]) -> Metric:
    """Rebuild an accumulator of the right class from :meth:`Metric.state_dict` output.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Accuracy().update([0, 1, 1], [0, 1, 0])
        >>> sm.from_state_dict(m.state_dict()).compute() == m.compute()
        True
    """
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise StateError("state dict: expected a dict with a string 'type'")
    cls = _REGISTRY.get(data["type"])
    if cls is None:
        raise StateError(f"state dict: unknown accumulator type {data['type']!r}")
    return cls.from_state_dict(data)


def from_bytes(data: bytes) -> Metric:
    """Rebuild an accumulator from :meth:`Metric.to_bytes` output (never runs code).

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.F1().update([0, 1, 1], [0, 1, 0])
        >>> sm.from_bytes(m.to_bytes()).compute() == m.compute()
        True
    """
    return from_state_dict(serialization.decode(data))


def load(path: str | os.PathLike[str], *, max_bytes: int = serialization.MAX_FILE_BYTES) -> Metric:
    """Load an accumulator saved with :meth:`Metric.save`.

    Args:
        path: The file written by :meth:`Metric.save`.
        max_bytes: The largest state file to read (default 1 GiB); a larger one, or a file
            that does not end where its state does, is refused after reading at most
            ``max_bytes + 1`` bytes, so an endless or huge file never fills the memory.

    Raises :class:`StateError` if the file is not a valid state or exceeds ``max_bytes`` (and
    :class:`OSError` if it cannot be read).

    Examples:
        >>> import os, tempfile, streammetrics as sm
        >>> path = os.path.join(tempfile.mkdtemp(), "f1.smstate")
        >>> sm.F1().update([0, 1, 1], [0, 1, 0]).save(path)
        >>> sm.load(path).compute()
        0.6666666666666666
    """
    return from_bytes(serialization.read_file(path, max_bytes=max_bytes))
