"""Flattening metric values into ``{name: number}`` dicts ready for any logger."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


def flatten_value(name: str, value: Any, labels: list[Any] | None = None) -> dict[str, Any]:
    """``{name: float}`` for a scalar; ``{name/label: float}`` for per-class arrays.

    One-dimensional arrays whose length matches ``labels`` use the labels as keys, other arrays
    their indices; result objects (named tuples, dataclasses, objects with ``to_dict``) become
    ``name/field`` keys; nested values nest further.

    Examples:
        >>> import numpy as np
        >>> flatten_value("f1", np.array([0.5, 1.0]), ["cat", "dog"])
        {'f1/cat': 0.5, 'f1/dog': 1.0}
        >>> flatten_value("acc", np.float64(0.25))
        {'acc': 0.25}
    """
    if hasattr(value, "_asdict"):
        value = value._asdict()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    elif hasattr(value, "to_dict") and callable(value.to_dict):
        value = value.to_dict()
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten_value(f"{name}/{key}", item, labels))
        return out
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return {name: _scalar(value[()])}
        keys = labels if labels is not None and len(labels) == len(value) else range(len(value))
        out = {}
        for key, item in zip(keys, value, strict=True):
            out.update(flatten_value(f"{name}/{key}", item, labels if value.ndim > 1 else None))
        return out
    return {name: _scalar(value)}


def _scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value
