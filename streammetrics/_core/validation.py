"""Input validation in one place: every batch goes through these before touching a state.

Messages follow one pattern: ``<argument>: expected <what>, found <what>``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError


def to_array(value: Any, name: str) -> np.ndarray:
    """``np.asarray`` with a clear error; accepts lists, pandas, Arrow, CPU torch tensors."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch tensors, without importing torch
        value = value.detach().cpu().numpy()
    elif hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):  # pandas, Arrow
        value = value.to_numpy()
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name}: expected an array-like, found {type(value).__name__} ({err})") from None


def check_ndim(arr: np.ndarray, name: str, allowed: tuple[int, ...]) -> None:
    if arr.ndim not in allowed:
        expected = " or ".join(f"{d}-D" for d in allowed)
        raise InputError(f"{name}: expected a {expected} array, found shape {arr.shape}")


def check_length(arr: np.ndarray, n: int, name: str, reference: str = "y_true") -> None:
    if arr.shape[0] != n:
        raise InputError(f"{name}: expected {n} rows (the length of {reference}), found {arr.shape[0]}")


def as_float(value: Any, name: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """A finite float64 array (converted once; no copy when already float64)."""
    arr = to_array(value, name)
    check_ndim(arr, name, ndim)
    if arr.dtype.kind not in "biuf":
        raise InputError(f"{name}: expected numbers, found values of dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    check_finite(arr, name)
    return arr


def check_finite(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind == "f" and arr.size and not np.isfinite(arr).all():
        bad = arr[~np.isfinite(arr)][0]
        raise InputError(f"{name}: expected finite values, found {bad}")


def check_probability(arr: np.ndarray, name: str) -> None:
    """Values in [0, 1] (for ``input="probability"``)."""
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        bad = arr.min() if arr.min() < 0.0 else arr.max()
        raise InputError(
            f"{name}: expected probabilities in [0, 1] (input='probability'), found {bad}; "
            "pass input='score' for logits or margins"
        )


def as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """``None`` or a 1-D float64 array of ``n`` finite, non-negative weights."""
    if sample_weight is None:
        return None
    w = as_float(sample_weight, "sample_weight")
    check_length(w, n, "sample_weight")
    if w.size and w.min() < 0:
        raise InputError(f"sample_weight: expected non-negative weights, found {w.min()}")
    return w


def as_labels(value: Any, name: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """Class labels as int64 or str arrays.

    Bools become 0/1 ints, floats must be whole numbers (0.0/1.0 from a model), object arrays
    must hold only strings (or only numbers).
    """
    arr = to_array(value, name)
    check_ndim(arr, name, ndim)
    kind = arr.dtype.kind
    if kind in "iu":
        return arr if arr.dtype == np.int64 else arr.astype(np.int64)
    if kind == "b":
        return arr.astype(np.int64)
    if kind == "U":
        return arr
    if kind == "f":
        check_finite(arr, name)
        if arr.size and not np.array_equal(arr, np.round(arr)):
            raise InputError(
                f"{name}: expected class labels (ints, bools or strings), found continuous values "
                "such as "
                + repr(float(arr[arr != np.round(arr)][0]))
                + "; pass threshold= to turn scores into labels"
            )
        return arr.astype(np.int64)
    if kind == "O":
        flat = arr.ravel()
        if all(isinstance(v, str) for v in flat):
            return arr.astype(str)
        if all(isinstance(v, (int, np.integer, bool, np.bool_)) for v in flat):
            return arr.astype(np.int64)
        kinds = sorted({type(v).__name__ for v in flat})
        raise InputError(f"{name}: expected labels all strings or all integers, found a mix of {kinds}")
    raise InputError(f"{name}: expected class labels (ints, bools or strings), found dtype {arr.dtype}")


def as_indicator(value: Any, name: str) -> np.ndarray:
    """A 2-D 0/1 indicator matrix as bool."""
    arr = to_array(value, name)
    check_ndim(arr, name, (2,))
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind not in "iuf":
        raise InputError(f"{name}: expected a 0/1 indicator matrix, found dtype {arr.dtype}")
    if arr.size and not np.isin(arr, (0, 1)).all():
        bad = arr[~np.isin(arr, (0, 1))][0]
        raise InputError(
            f"{name}: expected a 0/1 indicator matrix, found the value {bad}; "
            "pass threshold= to turn scores into labels"
        )
    return arr.astype(bool)
