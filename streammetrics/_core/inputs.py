"""One batch's arguments, each input role converted and validated once.

A family's batch parser (``Metric._parse``) reads its arguments through an :class:`Inputs`:
``inputs.labels(0, "y_true")``, ``inputs.floats(1, "y_score")``, ``inputs.weights(n)``. Every
conversion is kept, so when a :class:`~streammetrics.MetricCollection` hands one ``Inputs`` to
members of several families (a confusion metric, a ranking sketch, a log loss), the truth is turned
into labels once, the prediction into a finite float64 array once, its range checked once, and
the weights once; each member then derives its own input from them (labels by threshold or
arg-max, a score column, probabilities). Conversions raise :class:`~streammetrics.InputError`
naming the argument as the asking member calls it.

The calling conventions say which arguments ``update`` takes; members of one collection must
follow the same one, because they are fed the same arguments.

Examples:
    >>> inputs = Inputs(([0, 1, 1], [0.2, 0.9, 0.6]))
    >>> inputs.labels(0, "y_true").tolist(), inputs.probabilities(1, "y_score").tolist()
    ([0, 1, 1], [0.2, 0.9, 0.6])
    >>> inputs.floats(1, "y_proba") is inputs.floats(1, "y_score")  # converted once
    True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from ..errors import InputError
from . import validation as v
from .narrow import ones

#: ``update(y_true, prediction, sample_weight=None)``: the truth and one prediction (labels, class
#: scores, probabilities or real values), from which each member derives its own input.
TRUTH_AND_PREDICTION = "truth and prediction"
#: ``update(X, labels, sample_weight=None)``: features and cluster labels (internal clustering indices).
FEATURES_AND_LABELS = "features and labels"
#: ``update(y_true, pred_a, pred_b)``: the truth and two models' predictions (paired tests).
TRUTH_AND_TWO_PREDICTIONS = "truth and two predictions"


def two_plain_arrays(a: Any, b: Any, sample_weight: Any) -> bool:
    """Whether an update's two arguments are 1-D NumPy arrays without weights: the training-loop
    batch a family may parse directly (what its ``_parse`` does for it, without the per-batch
    conversion memo, which only a collection's other members read)."""
    return sample_weight is None and type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 1 == b.ndim


class Inputs:
    """The positional arguments and weights of one ``update`` call, converted on demand, once.

    ``args[i]`` is the raw argument; each accessor converts it on first use and keeps the
    result (keyed by the argument's position and the conversion, never by the member asking).
    :meth:`derived` keeps any further family-specific derivation (thresholded labels, arg-max
    columns, sketch keys) under a key the family chooses.
    """

    __slots__ = ("_memo", "args", "sample_weight")

    def __init__(self, args: tuple[Any, ...], sample_weight: Any = None) -> None:
        self.args = args
        self.sample_weight = sample_weight
        self._memo: dict[Hashable, Any] = {}

    def reweight(self, sample_weight: Any) -> Inputs:
        """The same arguments with other weights (``self``, changed in place): the conversions
        are kept, the converted weights dropped. Bootstrap replicates reweight one batch."""
        self.sample_weight = sample_weight
        for key in [k for k in self._memo if isinstance(k, tuple) and k[:1] == ("weights",)]:
            del self._memo[key]
        return self

    def derived(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per batch under ``key`` (errors are not kept)."""
        memo = self._memo
        value = memo.get(key, _MISSING)
        if value is _MISSING:
            value = memo[key] = make()
        return value

    # The accessors below are written out (no closures): they run on every batch, small ones too.
    def array(self, i: int, name: str) -> np.ndarray:
        """Argument ``i`` as a NumPy array (lists, pandas, Arrow, CPU tensors).

        An ``(n, 1)`` column is read as 1-D ``(n,)``, as scikit-learn's ``column_or_1d``: one
        label or value per row (never a one-label indicator or a single class-score column). An
        ``(n, 0)`` array with rows is refused.
        """
        memo, key = self._memo, _ARRAY[i]
        arr = memo.get(key)
        if arr is None:
            arr = v.to_array(self.args[i], name)
            if arr.ndim == 2 and arr.shape[1] <= 1:
                if arr.shape[1] == 1:
                    arr = arr[:, 0]
                elif len(arr):  # no column: no label, score or value to read (not label 0)
                    raise InputError(f"{name}: expected at least one column, found shape {arr.shape}")
            memo[key] = arr
        return arr

    def labels(self, i: int, name: str) -> np.ndarray:
        """Argument ``i`` as 1-D class labels (int64 or str)."""
        memo, key = self._memo, _LABELS[i]
        arr = memo.get(key)
        if arr is None:
            arr = memo[key] = v.as_labels(self.array(i, name), name)
        return arr

    def floats(self, i: int, name: str, ndim: tuple[int, ...] = (1, 2)) -> np.ndarray:
        """Argument ``i`` as a finite float64 array of one of the dimensions ``ndim``."""
        arr = self._memo.get(_FLOATS[i])
        if arr is None:
            arr = self._as_float(i, name)
            self.confirm_finite(i, name, arr, False)  # (checked value by value, then kept)
        if arr.ndim not in ndim:
            v.check_ndim(arr, name, ndim)
        return arr

    def unchecked_floats(self, i: int, name: str, ndim: tuple[int, ...] = (1, 2)) -> np.ndarray:
        """Argument ``i`` as a float64 array of one of the dimensions ``ndim``, not yet checked
        to be finite: the caller derives from it a value that any inf or NaN would make
        non-finite (a sum of squares), then calls :meth:`confirm_finite`. One pass fewer over
        the batch than :meth:`floats` followed by the derivation."""
        arr = self._memo.get(_FLOATS[i])
        if arr is None:
            arr = self._as_float(i, name)
        if arr.ndim not in ndim:
            v.check_ndim(arr, name, ndim)
        return arr

    def _as_float(self, i: int, name: str) -> np.ndarray:
        raw = self.array(i, name)
        return v.as_float_unchecked(raw, name, (raw.ndim,))

    def confirm_finite(self, i: int, name: str, arr: np.ndarray, derived_is_finite: bool) -> None:
        """Settle the finiteness of :meth:`unchecked_floats`' ``arr``: when the value derived
        from all of it is finite, so is every element (kept as :meth:`floats`' result for the
        other members); otherwise check it element by element (an :class:`InputError` naming
        the first inf or NaN; an overflow of finite values passes)."""
        if not derived_is_finite:
            v.check_finite(arr, name)
        self._memo[_FLOATS[i]] = arr

    def probabilities(self, i: int, name: str, ndim: tuple[int, ...] = (1, 2)) -> np.ndarray:
        """:meth:`floats` checked to lie in [0, 1]."""
        memo, key = self._memo, _UNIT[i]
        raw = self.args[i]
        if (
            type(raw) is np.ndarray
            and raw.dtype == np.float64
            and raw.ndim in ndim
            and (raw.ndim == 1 or (raw.ndim == 2 and raw.shape[1] > 1))  # ((n, 1) is read as 1-D)
            and raw.size
            and _FLOATS[i] not in memo
        ):
            # float64 values all in [0, 1] are finite: one pass for both checks (else the checks
            # below say what is wrong)
            if 0.0 <= raw.min() and raw.max() <= 1.0:
                memo[_ARRAY[i]] = memo[_FLOATS[i]] = raw
                memo[key] = True
                return raw
        arr = self.floats(i, name, ndim)
        if key not in memo:
            v.check_probability(arr, name)
            memo[key] = True
        return arr

    def check_rows_sum_to_one(self, i: int, p: np.ndarray, name: str, what: str = "probability rows") -> None:
        """Refuse (:class:`InputError`) a row of ``p``, argument ``i``'s 2-D probabilities, whose sum
        is not 1 within ``np.allclose``'s tolerance at 1 (the sums are kept for the other members)."""
        if len(p):
            sums = self.row_sums(i, p)  # (a tolerance check needs no order of the additions)
            # np.allclose at 1 written out, on the extremes of the sums (no batch-sized temporaries)
            if not (
                abs(sums.min() - 1.0) <= ROW_SUM_TOLERANCE and abs(sums.max() - 1.0) <= ROW_SUM_TOLERANCE
            ):
                close = np.abs(sums - 1.0) <= ROW_SUM_TOLERANCE
                raise InputError(
                    f"{name}: expected {what} summing to 1, found a row summing to {sums[~close][0]}"
                )

    def row_sums(self, i: int, p: np.ndarray) -> np.ndarray:
        """Each row's sum of ``p``, argument ``i`` as a 2-D float array, computed once for every
        member (a matrix-vector product: NumPy's row sums pay per row; the additions' order is
        BLAS's)."""
        return self.derived((i, "row sums"), lambda: p @ ones(p.shape[1]))

    def weights(self, n: int) -> np.ndarray | None:
        """``None`` or ``n`` finite non-negative float64 weights."""
        if self.sample_weight is None:
            return None
        return self.derived(("weights", n), lambda: v.as_weights(self.sample_weight, n))

    def rows(self, lo: int, hi: int) -> Inputs:
        """Rows ``lo:hi`` as a batch of their own, for a batch of ``n`` rows whose every argument
        has been read by :meth:`array` and whose weights by :meth:`weights(n) <weights>`: its
        arguments, weights and conversions are views of this batch's (what was converted or
        checked here is not done again)."""
        n = len(self._memo[_ARRAY[0]])
        weights = self.weights(n)
        part = Inputs(
            tuple(self._memo[_ARRAY[i]][lo:hi] for i in range(len(self.args))),
            None if weights is None else weights[lo:hi],
        )
        memo = part._memo
        for key, value in self._memo.items():
            if key in _PER_ROW:
                memo[key] = value[lo:hi]
            elif key in _FLAGS:
                memo[key] = value
        if weights is not None:
            memo["weights", len(weights[lo:hi])] = part.sample_weight
        return part


_MISSING = object()
#: How far a probability row's sum may be from 1 (``np.allclose``'s default at 1: ``1e-8 + 1e-5``).
ROW_SUM_TOLERANCE = 1e-8 + 1e-5
#: Memo keys by argument position (built once: no tuple per call).
_ARRAY, _LABELS, _FLOATS, _UNIT = (
    tuple((i, what) for i in range(8)) for what in ("array", "labels", "floats", "unit")
)
#: The conversions that are arrays of one entry per row (:meth:`Inputs.rows` slices them: the
#: arguments, their labels and floats, the probability rows' sums), and those that are facts
#: about every value (it keeps them: the probabilities' range checked).
_PER_ROW = frozenset(_ARRAY + _LABELS + _FLOATS + tuple((i, "row sums") for i in range(8)))
_FLAGS = frozenset(_UNIT)

__all__ = ["FEATURES_AND_LABELS", "TRUTH_AND_PREDICTION", "TRUTH_AND_TWO_PREDICTIONS", "Inputs"]
