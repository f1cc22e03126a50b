"""The base class of the metrics on the per-row value state.

A metric here is (input parser, per-row values, formula): ``_parse`` checks a batch (the family's
inputs: real values, labels and class scores, probabilities, relevance rows), ``_row_values``
turns the parsed batch into an ``(n, width)`` array of per-row values, and ``_compute`` reads the
weighted sums of :class:`~streammetrics.aggregation.state.RowSums`. Merge, revert, scale (for
:class:`~streammetrics.Decayed`), serialization, sharing and the one-row path come with the base.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ClassVar

import numpy as np

from .._core.inputs import TRUTH_AND_PREDICTION, Inputs
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.state import canonical_json
from .rows import PairRows
from .state import RowSums


class RowValueMetric(OneRowMixin, Metric[RowSums], base=True):
    """A weighted mean (or sum) of a value of each ``(y_true, y_pred)`` row.

    Subclasses define :meth:`_parse` (returning a tuple whose last item is the weights),
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

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        """The ``(n, width)`` float64 values of the parsed rows."""
        raise NotImplementedError

    def _apply(self, state: RowSums, batch: tuple[Any, ...]) -> None:
        state.update(self._row_values(batch), batch[-1])

    def _unapply(self, state: RowSums, batch: tuple[Any, ...] | None) -> None:
        if batch is None:
            return
        state.update(self._row_values(batch), batch[-1], sign=-1)

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
