"""Input validation in one place: every batch goes through these before touching a state.

Messages follow one pattern: ``<argument>: expected <what>, found <what>``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError
from .compiled import rowkernels
from .workspace import work


def to_array(value: Any, name: str) -> np.ndarray:
    """``np.asarray`` with a clear error; accepts lists, pandas, Arrow, CPU torch tensors.

    A NumPy array is returned as it is (the hot path: no copy, no look-up). Missing values (Arrow
    nulls, pandas ``NA``, masked entries) are refused here, since no metric has a meaning for them.

    Examples:
        >>> import pandas as pd
        >>> to_array(pd.Series(["a", "b"], dtype="string"), "y_true")
        array(['a', 'b'], dtype=object)
        >>> to_array(pd.Series([1, None], dtype="Int64"), "y_true")
        Traceback (most recent call last):
        ...
        streammetrics.errors.InputError: y_true: expected no missing values, found a missing value (NA) at row 1
    """
    if type(value) is np.ndarray:
        return value
    try:
        if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch, without importing it
            value = _from_torch(value, name)
        else:
            module = type(value).__module__
            if module.startswith("pyarrow"):
                value = _from_arrow(value, name)
            elif module.startswith("pandas"):
                value = _from_pandas(value, name)
            elif isinstance(value, np.ma.MaskedArray):
                _refuse_missing(np.ma.getmaskarray(value), name, "masked entry")
                value = value.data
            elif hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):  # polars & co
                value = value.to_numpy()
        return np.asarray(value)
    except InputError:
        raise
    except Exception as err:  # a converter of a foreign library: its error, named as ours
        raise InputError(
            f"{name}: expected an array-like, found {type(value).__name__} ({type(err).__name__}: {err})"
        ) from None


def _refuse_missing(missing: np.ndarray, name: str, what: str) -> None:
    """Refuse a batch with any missing value, naming the first one's row."""
    if missing.any():
        row = int(np.argwhere(missing)[0][0])
        raise InputError(f"{name}: expected no missing values, found a {what} at row {row}")


def _from_torch(tensor: Any, name: str) -> np.ndarray:
    """A tensor's values without a copy when on CPU; reduced float types widened exactly."""
    t = tensor.detach().cpu().resolve_conj().resolve_neg()
    try:
        return t.numpy()
    except TypeError:  # a dtype NumPy lacks
        if t.is_floating_point():  # bfloat16, float8: every value is exact in float32
            return t.float().numpy()
        raise InputError(
            f"{name}: expected a tensor of bools, integers or floats, found dtype {t.dtype}"
        ) from None


def _from_arrow(value: Any, name: str) -> np.ndarray:
    """Arrow arrays, chunked arrays, tables and record batches (no nulls).

    List columns of equal lengths (a model's probability rows as Parquet stores them) become a
    2-D array, one row per list.
    """
    import pyarrow.compute as pc  # loaded already: ``value`` is an Arrow object
    import pyarrow.types as pt

    if hasattr(value, "columns") and hasattr(value, "num_columns"):  # Table, RecordBatch
        if not value.num_columns:
            return np.empty((value.num_rows, 0))
        return np.column_stack([_from_arrow(column, name) for column in value.columns])
    if value.null_count:
        _refuse_missing(np.asarray(value.is_null()), name, "null")
    if pt.is_fixed_size_list(value.type) or pt.is_list(value.type) or pt.is_large_list(value.type):
        lengths = np.asarray(pc.list_value_length(value))
        width = int(lengths[0]) if len(lengths) else 0
        if (lengths != width).any():
            other = int(lengths[lengths != width][0])
            raise InputError(f"{name}: expected lists of equal length, found lengths {width} and {other}")
        if hasattr(value, "chunks"):
            value = value.combine_chunks()
        flat = pc.list_flatten(value)
        if flat.null_count:
            inside = np.zeros(len(value), bool)
            inside[np.asarray(pc.list_parent_indices(value))[np.asarray(flat.is_null())]] = True
            _refuse_missing(inside, name, "null inside a list")
        return _from_arrow(flat, name).reshape(len(value), width)
    if hasattr(value, "chunks"):  # ChunkedArray
        return value.to_numpy()
    return value.to_numpy(zero_copy_only=False)


def _from_pandas(value: Any, name: str) -> Any:
    """pandas objects; nullable (extension) dtypes checked for ``NA`` and given NumPy dtypes."""
    if not hasattr(value, "to_numpy"):
        return value
    dtypes = list(value.dtypes) if getattr(value, "ndim", 1) == 2 else [value.dtype]
    if all(isinstance(d, np.dtype) for d in dtypes):
        return value.to_numpy()
    if hasattr(value, "isna"):
        _refuse_missing(np.asarray(value.isna()), name, "missing value (NA)")
    numeric = [getattr(d, "numpy_dtype", d) for d in dtypes]
    if all(isinstance(d, np.dtype) and d.kind in "biuf" for d in numeric):
        return value.to_numpy(dtype=np.result_type(*numeric))
    return value.to_numpy()


def _is_missing(item: Any) -> bool:
    """``None``, NaN, pandas ``NA``/``NaT`` inside an object array."""
    if item is None or type(item).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(item, (float, np.floating)) and item != item


def _objects_as_float(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array of real numbers (a mixed pandas column, a list of ints and floats)."""
    flat = arr.ravel()
    _refuse_missing(np.fromiter((_is_missing(x) for x in flat), bool, len(flat)), name, "missing value")
    bad = next((x for x in flat if isinstance(x, (str, bytes)) or not hasattr(x, "__float__")), None)
    if bad is not None or any(isinstance(x, (complex, np.complexfloating)) for x in flat):
        found = (
            bad if bad is not None else next(x for x in flat if isinstance(x, (complex, np.complexfloating)))
        )
        raise InputError(f"{name}: expected numbers, found {found!r} ({type(found).__name__})")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError, OverflowError) as err:
        raise InputError(f"{name}: expected numbers within float range, found {err}") from None


def check_ndim(arr: np.ndarray, name: str, allowed: tuple[int, ...]) -> None:
    if arr.ndim not in allowed:
        expected = " or ".join(f"{d}-D" for d in allowed)
        raise InputError(f"{name}: expected a {expected} array, found shape {arr.shape}")


def check_length(arr: np.ndarray, n: int, name: str, reference: str = "y_true") -> None:
    if arr.shape[0] != n:
        raise InputError(f"{name}: expected {n} rows (the length of {reference}), found {arr.shape[0]}")


def as_float(value: Any, name: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """A finite float64 array (converted once; no copy when already float64)."""
    arr = as_float_unchecked(value, name, ndim)
    check_finite(arr, name)
    return arr


def as_float_unchecked(value: Any, name: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """:func:`as_float` without the finiteness check, for a caller that checks a result derived
    from every value instead (and calls :func:`check_finite` when that result is not finite)."""
    arr = to_array(value, name)
    check_ndim(arr, name, ndim)
    if arr.dtype.kind == "O":
        arr = _objects_as_float(arr, name)
    elif arr.dtype.kind not in "biuf":
        raise InputError(f"{name}: expected numbers, found values of dtype {arr.dtype}")
    return arr.astype(np.float64, copy=False)


#: Values from which :func:`check_finite` writes its mask in a work array: glibc maps a block of
#: 128 KiB and more afresh (by default), and a fresh mask of a large batch then costs more in page
#: faults than the test; a smaller one is cheaper fresh than looked up.
MASK_IN_WORK = 1 << 17


#: Up to this many values, :func:`all_finite` tests them in Python (a NumPy reduction and its
#: temporary cost about 2 µs; a state's few statistics are the usual argument).
FEW_VALUES = 32


def all_finite(arr: np.ndarray) -> bool:
    """Whether every value of ``arr`` is finite.

    Examples:
        >>> all_finite(np.array([1.0, 2.0])), all_finite(np.array([[1.0, np.inf]]))
        (True, False)
    """
    if arr.size <= FEW_VALUES:
        return all(map(math.isfinite, arr.ravel().tolist()))
    if rowkernels is not None and arr.dtype == np.float64 and arr.flags.c_contiguous:
        return bool(rowkernels.all_finite(arr, arr.size))
    return bool(np.isfinite(arr).all())


def check_finite(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind != "f" or not arr.size:
        return
    if rowkernels is not None and arr.dtype == np.float64 and arr.flags.c_contiguous:
        # (one compiled pass: no boolean mask, a tenth of NumPy's two calls on a small batch)
        finite = rowkernels.all_finite(arr, arr.size)
    elif arr.size < MASK_IN_WORK:
        finite = np.logical_and.reduce(np.isfinite(arr), axis=None)
    else:
        finite = np.logical_and.reduce(np.isfinite(arr, out=work(("finite",), arr.shape, bool)), axis=None)
    if not finite:
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


#: The largest total weight of a batch, and of a state whose formulas multiply weighted counts
#: (confusion counts: MCC multiplies four; contingency tables: pair counts square them): 2^255,
#: whose fourth power still fits in float64. Every metric is invariant to a common factor of the
#: weights, so larger weights only need dividing.
WEIGHT_LIMIT = 2.0**255
#: The smallest largest weight of a batch (of positive weights): 2^-255, whose fourth power is
#: still a normal float64; below, the same formulas underflow (MCC and kappa of 0 or NaN, areas
#: under curves of 0). Smaller weights only need multiplying.
WEIGHT_FLOOR = 2.0**-255


def check_total_weight(total: Any, error: type[Exception] = InputError) -> None:
    """Refuse (``error``: :class:`InputError` for an update, ``MergeError`` for a merge) a total
    weight, or totals, beyond :data:`WEIGHT_LIMIT`: past it the formulas overflow float64 and every
    mean and ratio would silently become 0, inf or NaN."""
    totals = np.asarray(total)
    if not np.all(totals <= WEIGHT_LIMIT):  # NaN and inf included
        found = float(np.max(totals)) if not np.isnan(totals).any() else float("nan")
        raise error(
            f"sample_weight: expected weights summing to at most {WEIGHT_LIMIT:.3g} (2^255, beyond which "
            f"the formulas overflow float64), found a sum of {found:.4g}; divide them by a common factor "
            "(no metric changes)"
        )


def as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """``None`` or a 1-D float64 array of ``n`` finite, non-negative weights summing to at most
    :data:`WEIGHT_LIMIT`."""
    if sample_weight is None:
        return None
    w = as_float(sample_weight, "sample_weight")
    check_length(w, n, "sample_weight")
    if w.size and w.min() < 0:
        raise InputError(f"sample_weight: expected non-negative weights, found {w.min()}")
    top = w.max() if w.size else 0.0
    if w.size and top > WEIGHT_LIMIT / len(w):  # the sum (overflow aside) only when it may matter
        with np.errstate(over="ignore"):
            check_total_weight(w.sum())
    elif 0.0 < top < WEIGHT_FLOOR:
        raise InputError(
            f"sample_weight: expected a largest weight of at least {WEIGHT_FLOOR:.3g} (2^-255, below which "
            f"the formulas underflow float64), found {top:.4g}; multiply them by a common factor "
            "(no metric changes)"
        )
    return w


def as_labels(value: Any, name: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """Class labels as int64 or str arrays.

    Bools become 0/1 ints, floats must be whole numbers (0.0/1.0 from a model), object arrays
    must hold only strings (or only numbers). An ``(n, 1)`` column is 1-D labels (scikit-learn's
    ``column_or_1d``).
    """
    arr = to_array(value, name)
    if arr.ndim == 2 and arr.shape[1] == 1 and ndim == (1,):
        arr = arr[:, 0]
    check_ndim(arr, name, ndim)
    kind = arr.dtype.kind
    if kind in "iu":
        if arr.dtype == np.uint64 and arr.size and int(arr.max()) >= 2**63:
            raise InputError(f"{name}: expected labels that fit in int64, found {int(arr.max())}")
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
        _check_int64(arr, name)
        return arr.astype(np.int64)
    if kind == "O":
        flat = arr.ravel()
        _refuse_missing(np.fromiter((_is_missing(x) for x in flat), bool, len(flat)), name, "missing value")
        if all(isinstance(v, str) for v in flat):
            return arr.astype(str)
        if all(isinstance(v, (int, np.integer, bool, np.bool_)) for v in flat):
            big = [str(v) for v in flat if not -(2**63) <= int(v) < 2**63]
            if big:
                found = big[0] if len(big[0]) < 30 else f"an integer of {len(big[0])} digits"
                raise InputError(f"{name}: expected labels that fit in int64, found {found}")
            return arr.astype(np.int64)
        kinds = sorted({type(v).__name__ for v in flat})
        raise InputError(f"{name}: expected labels all strings or all integers, found a mix of {kinds}")
    raise InputError(f"{name}: expected class labels (ints, bools or strings), found dtype {arr.dtype}")


def _check_int64(arr: np.ndarray, name: str) -> None:
    """Refuse float labels outside int64 (the cast would make up a value)."""
    if arr.size:
        low, high = arr.min(), arr.max()
        if low < -(2.0**63) or high >= 2.0**63:
            bad = high if high >= 2.0**63 else low
            raise InputError(f"{name}: expected labels that fit in int64, found {bad}")


#: The unsigned type of each native signed integer type (others: by their type string, which
#: keeps the byte order).
_UNSIGNED = {np.dtype(f"i{size}"): np.dtype(f"u{size}") for size in (1, 2, 4, 8)}


def _zeros_and_ones(arr: np.ndarray) -> bool:
    """Whether every value of a numeric array is 0 or 1 (integers: one reduction, a negative
    value read as unsigned being above 1; ``np.isin`` sorts)."""
    if arr.dtype.kind == "i":
        arr = arr.view(_UNSIGNED.get(arr.dtype) or arr.dtype.str.replace("i", "u"))
    if arr.dtype.kind == "u":
        return bool(arr.max() <= 1)
    return bool(((arr == 0) | (arr == 1)).all())


def as_indicator(value: Any, name: str) -> np.ndarray:
    """A 2-D 0/1 indicator matrix as bool."""
    arr = to_array(value, name)
    check_ndim(arr, name, (2,))
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind not in "iuf":
        raise InputError(f"{name}: expected a 0/1 indicator matrix, found dtype {arr.dtype}")
    if arr.size and not _zeros_and_ones(arr):
        bad = arr[~np.isin(arr, (0, 1))][0]
        raise InputError(
            f"{name}: expected a 0/1 indicator matrix, found the value {bad}; "
            "pass threshold= to turn scores into labels"
        )
    return arr.astype(bool)


def check_factor(factor: float) -> None:
    """Refuse (``ValueError``) a scaling factor (exponential forgetting) that is not a finite
    number >= 0."""
    if not math.isfinite(factor) or factor < 0:
        raise ValueError(f"factor: expected a finite number >= 0, found {factor!r}")
