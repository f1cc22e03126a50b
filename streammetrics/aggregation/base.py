"""The base class of the metrics on the per-row value state.

A metric here is (input parser, per-row values, formula): ``_parse_rows`` checks a batch (the family's
inputs: real values, labels and class scores, probabilities, relevance rows), ``_row_values``
turns the parsed batch into an ``(n, width)`` array of per-row values, and ``_compute`` reads the
weighted sums of :class:`~streammetrics.aggregation.state.RowSums`. Merge, revert, scale (for
:class:`~streammetrics.Decayed`), serialization, sharing and the one-row path come with the base.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .._core import narrow as N
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.replicates import replicate_sums
from .._core.state import canonical_json
from .._core.workspace import work
from ..errors import InputError
from .rows import PairRows
from .state import RowSums

#: Rows per chunk of a batch (see :meth:`RowValueMetric._parse` and :meth:`~RowValueMetric._batch_sums`):
#: a batch of 100,000 rows is one chunk (each chunk costs tens of microseconds of calls).
CHUNK_ROWS = 131072
#: Scratch arrays per call of :func:`scratch`.
N_SCRATCH = 4


class SummedBatch(tuple):
    """A parsed batch (a plain tuple to every reader) that also carries ``sums``, its
    :meth:`RowValueMetric._value_sums`, computed while it was checked (a metric whose sums settle
    its inputs' finiteness computes them then). :meth:`RowValueMetric._fold` uses them instead of
    computing them again; anything that rebuilds the tuple drops them, and the sums are computed
    as before: never a different value."""

    sums: np.ndarray

    def __new__(cls, batch: tuple[Any, ...], sums: np.ndarray) -> SummedBatch:
        self = super().__new__(cls, batch)
        self.sums = sums
        return self

    def __reduce__(self) -> Any:  # (pickled as the plain batch: the sums are a cache)
        return tuple, (tuple(self),)


class ChunkedBatch(NamedTuple):
    """A batch of more than :data:`CHUNK_ROWS` rows, parsed a chunk of rows at a time
    (:meth:`RowValueMetric._parse`): each chunk's parsed batch, the column sums of all its
    values (those :meth:`RowValueMetric._batch_sums` gives the whole batch: the same chunks, the
    same additions), its rows and its weights."""

    parts: list[tuple[Any, ...]]
    sums: np.ndarray
    n: int
    weights: np.ndarray | None


def scratch(n: int, columns: int = 1) -> list[np.ndarray]:
    """:data:`N_SCRATCH` float64 work arrays of ``n`` rows (``(columns, n)`` when ``columns``
    > 1), reused across calls in each thread (:func:`~streammetrics._core.workspace.work`): the
    cheap formulas write their temporaries there (fresh temporaries cost page faults that dwarf
    the arithmetic). Valid until the next call in the same thread."""
    return list(work(("scratch",), (N_SCRATCH, columns, n) if columns > 1 else (N_SCRATCH, n)))


def scratch_row(n: int, i: int = 0) -> np.ndarray:
    """``scratch(n)[i]`` (one float64 work array of ``n`` values) without the others' views."""
    return work(("scratch",), (N_SCRATCH, n))[i]


class RowValueMetric(OneRowMixin, Metric[RowSums], base=True):
    """A weighted mean (or sum) of a value of each ``(y_true, y_pred)`` row.

    Subclasses define :meth:`_parse_rows` (returning a tuple whose last item is the weights),
    :meth:`_row_values` and :meth:`_compute`. A subclass whose rows are two scalars sets
    ``row_domain`` (the cheap test of a valid pair of finite numbers) and ``row_width`` (the
    columns such a row gives) to get the buffered per-row path.
    """

    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_pred")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    prediction: ClassVar[str | None] = "values"
    #: ``(t, p) -> bool`` for two finite floats that make a valid row (``None``: rows are
    #: one-row batches).
    row_domain: ClassVar[Callable[[float, float], bool] | None] = None
    #: The number of value columns one scalar row gives.
    row_width: ClassVar[int] = 1

    def _make_state(self) -> RowSums:
        return RowSums()

    def _validate(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        return self._parse(Inputs((y_true, y_pred), sample_weight))

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        """The batch checked and parsed by :meth:`_parse_rows`; a batch of more than
        :data:`CHUNK_ROWS` rows a chunk at a time, each chunk's value sums computed right after
        its check (a :class:`ChunkedBatch`): the temporaries of both stay chunk-sized, where
        batch-sized ones cost page faults and cache misses (a whole batch's checks and sums
        otherwise read its inputs from memory twice). A fault in any chunk raises before the
        state changes, as for any batch."""
        first = inputs.args[0]
        if type(first) is np.ndarray and (not first.ndim or len(first) <= CHUNK_ROWS):
            return self._parse_rows(inputs)  # (the common case, without the checks below)
        n = self._chunked_rows(inputs)
        if n is None:
            return self._parse_rows(inputs)
        parts, sums = [], []
        for lo in range(0, n, CHUNK_ROWS):
            part = self._parse_rows(inputs.rows(lo, lo + CHUNK_ROWS))
            parts.append(part)
            sums.append(part.sums if type(part) is SummedBatch else self._value_sums(part))
        return ChunkedBatch(parts, np.sum(sums, axis=0), n, inputs.weights(n))

    @staticmethod
    def _chunked_rows(inputs: Inputs) -> int | None:
        """The rows of a batch to parse in chunks: every argument an array of the same number of
        rows, more than :data:`CHUNK_ROWS`, and valid weights (``None`` otherwise, the small
        batches after one ``len``: a malformed batch is parsed whole, for its usual error)."""
        try:
            if len(inputs.args[0]) <= CHUNK_ROWS:
                return None
            arrays = [inputs.array(i, "inputs") for i in range(len(inputs.args))]
            n = len(arrays[0])
            if n <= CHUNK_ROWS or any(a.ndim == 0 or len(a) != n for a in arrays):
                return None
            inputs.weights(n)
        except (TypeError, InputError):
            return None
        return n

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        """The batch checked and parsed (a tuple whose last item is the weights); raises
        :class:`~streammetrics.InputError` naming the argument at fault."""
        raise NotImplementedError

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        """The ``(n, width)`` float64 values of the parsed rows."""
        raise NotImplementedError

    def _apply(self, state: RowSums, batch: tuple[Any, ...]) -> None:
        self._fold(state, batch, 1)

    def _unapply(self, state: RowSums, batch: tuple[Any, ...] | None) -> None:
        if batch is not None:
            self._fold(state, batch, -1)

    def _fold(self, state: RowSums, batch: tuple[Any, ...], sign: int) -> None:
        """Add the batch's row values to ``state`` (their sums: those the batch carries, if it
        is a :class:`SummedBatch` or a :class:`ChunkedBatch`, else :meth:`_batch_sums`); the
        state changes once (atomic)."""
        if type(batch) is ChunkedBatch:
            n, sums = batch.n, batch.sums
        else:
            n = len(batch[0])
            sums = batch.sums if type(batch) is SummedBatch else self._batch_sums(batch)
        weights = batch[-1]
        total = float(n) if weights is None else float(weights.sum())
        state.add_sums(sums, total, n, len(sums), sign=sign)

    def _batch_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        """The weighted column sums of the batch's row values, :data:`CHUNK_ROWS` rows at a time.

        The cheap formulas write their temporaries in the reused :func:`scratch` buffers (fresh
        batch-sized temporaries cost page faults that dwarf the arithmetic). Each chunk's column
        sums are pairwise sums, column by column (BLAS dot products when weighted); the chunks'
        sums are added pairwise.
        """
        n = len(batch[0])
        if n <= CHUNK_ROWS:
            return self._value_sums(batch)
        parts = [
            tuple(
                a[lo : lo + CHUNK_ROWS] if isinstance(a, np.ndarray) and a.ndim and len(a) == n else a
                for a in batch
            )
            for lo in range(0, n, CHUNK_ROWS)
        ]
        return np.sum([self._value_sums(part) for part in parts], axis=0)

    def _sums_ahead(self, batch: tuple[Any, ...]) -> np.ndarray:
        """The sums :meth:`_fold` will add for ``batch`` (:meth:`_batch_sums`), computed now with
        over- and invalid-value warnings off (a parser reads the inputs' finiteness from them and
        hands them on in a :class:`SummedBatch`)."""
        with np.errstate(invalid="ignore", over="ignore"):
            return self._batch_sums(batch)

    def _checked_by_sums(
        self, inputs: Inputs, batch: tuple[Any, ...], unchecked: tuple[tuple[int, str, np.ndarray], ...]
    ) -> tuple[Any, ...]:
        """``batch`` once the finiteness of its ``unchecked`` arrays (argument position, name,
        :meth:`Inputs.unchecked_floats` array) is settled from its value sums: for a metric any
        inf or NaN of whose inputs makes its row's value non-finite, whatever the other values
        and the weight (zero times inf is NaN). When every sum is finite, so is every value, and
        the batch carries the sums to :meth:`_fold` (:class:`SummedBatch`); otherwise each array
        is checked value by value (the same errors; an overflow of finite values passes)."""
        sums = self._sums_ahead(batch)
        finite = all(map(math.isfinite, sums.tolist()))
        for i, name, arr in unchecked:
            inputs.confirm_finite(i, name, arr, finite)
        return SummedBatch(batch, sums) if finite else batch

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        """The weighted column sums of the batch's :meth:`_row_values` (a metric whose columns
        have a cheaper sum, such as counts of classes, gives them without the values)."""
        values, w = self._row_values(batch), batch[-1]
        return N.weighted_column_sums(values, w)

    def _apply_reweighted(
        self, states: list[RowSums], batch: tuple[Any, ...], counts: np.ndarray, inputs: Any
    ) -> list[RowSums] | None:
        """Replicate ``r`` adds ``sum_i counts[r, i] w_i f(row_i)``: one matrix product per chunk
        of rows for every replicate (the bootstrap's replicates of a per-row value metric)."""
        if type(self)._apply is not RowValueMetric._apply or not states:
            return None
        n = batch.n if type(batch) is ChunkedBatch else len(batch[0])
        if not n:
            return [s.copy() for s in states]
        if type(batch) is ChunkedBatch:
            # (each chunk's values copied out: a formula may write them in reused scratch arrays)
            values = np.concatenate([self._row_values(part).copy() for part in batch.parts])
        else:
            values = self._row_values(batch)
        sums, totals = replicate_sums(counts, batch[-1], values)
        k = values.shape[1]
        out = []
        for state, row, total in zip(states, sums, totals, strict=True):
            state = copy.copy(state)  # add_sums replaces every field it changes (never in place)
            state.add_sums(row, float(total), n, k)
            out.append(state)
        return out

    def _is_empty(self, state: RowSums) -> bool:
        return not state.total_weight > 0

    def _share_key(self) -> Hashable:
        """Members of one class and configuration share a state (the values are the class's)."""
        return ("row values", type(self).__qualname__, canonical_json(self.get_config()))

    def _row_checker(self, state: Any) -> Any:
        return None if self.row_domain is None else PairRows(self, state)

    def _means(self, state: RowSums) -> np.ndarray:
        """``sum w f_j / sum w`` per column."""
        return state.totals / state.total_weight


def always(t: float, p: float) -> bool:
    """Every pair of finite numbers is a valid row."""
    return True
