"""Engine-independent pieces of sharded evaluation: ship a state, merge states, clean inputs.

Every engine adapter follows the same plan: each partition starts from an *empty copy* of the
user's accumulator, updates it with the partition's rows, and ships the result as bytes; the
bytes are merged (a tree on Dask, the driver on Spark, the combiner on Beam). A partition's state
is a pure function of its rows, so an engine that retries a failed task recomputes that state
from scratch: nothing is ever added twice.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._core import serialization
from .._core.metric import Metric
from .._core.registry import from_bytes
from ..errors import InputError, MergeError

__all__ = ["dump", "empty_like", "load", "merge_all", "column_values"]

_PICKLE_TAG = b"PKL0"


def empty_like(acc: Any) -> Any:
    """An empty accumulator of the same configuration (a metric or a collection)."""
    if hasattr(acc, "empty_like"):
        return acc.empty_like()
    if hasattr(acc, "copy") and hasattr(acc, "reset"):
        return acc.copy().reset()
    raise TypeError(f"metric: expected a streammetrics metric or collection, found {type(acc).__name__}")


def check_accumulator(acc: Any) -> None:
    """Raise :class:`TypeError` unless ``acc`` looks like an accumulator (update/merge)."""
    if not (hasattr(acc, "update") and hasattr(acc, "merge")):
        raise TypeError(f"metric: expected a streammetrics metric or collection, found {type(acc).__name__}")


def dump(acc: Any) -> bytes:
    """Bytes for ``acc``: the checksummed state format for metrics, pickle for other accumulators."""
    if isinstance(acc, Metric):
        return acc.to_bytes()
    return _PICKLE_TAG + pickle.dumps(acc, protocol=pickle.HIGHEST_PROTOCOL)


def load(blob: bytes) -> Any:
    """Inverse of :func:`dump` (only ever applied to bytes this process's workers made)."""
    blob = bytes(blob)
    if serialization.looks_like_state(blob):
        return from_bytes(blob)
    if blob[: len(_PICKLE_TAG)] == _PICKLE_TAG:
        return pickle.loads(blob[len(_PICKLE_TAG) :])
    return from_bytes(blob)  # raises StateError naming the bad magic


def merge_all(accs: Iterable[Any], where: str = "partition") -> Any:
    """Merge accumulators left to right into the first one; errors name the offending index."""
    it = iter(accs)
    try:
        first = next(it)
    except StopIteration:
        raise ValueError("no states to merge") from None
    for i, acc in enumerate(it, start=1):
        try:
            first.merge(acc)
        except MergeError as err:
            raise MergeError(f"{where} {i}: {err}") from None
    return first


def column_values(values: Any, name: str) -> np.ndarray:
    """A NumPy array from a pandas column; columns of lists/arrays (Arrow list type) are stacked."""
    if hasattr(values, "to_numpy"):
        if getattr(values, "dtype", None) is not None and values.dtype == object and len(values):
            first = values.iloc[0] if hasattr(values, "iloc") else values[0]
            if isinstance(first, (list, tuple, np.ndarray)):
                try:
                    return np.stack([np.asarray(v) for v in values])
                except ValueError as err:
                    raise InputError(f"{name}: expected rows of equal length, found {err}") from None
        return values.to_numpy()
    return np.asarray(values)
