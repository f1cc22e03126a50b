"""The per-row value state and the aggregators of logged values (issue 17).

:class:`~streammetrics.aggregation.state.RowSums` keeps, per value column, the compensated
weighted sum ``sum w f(row)`` and the total weight: the state of every metric that is a weighted
mean of a value of each row (:class:`Mean`, :class:`Sum`, the per-row losses of the other
families). :class:`Min` and :class:`Max` keep a running extreme.
"""

from .base import RowValueMetric
from .metrics import Max, Mean, Min, Sum
from .state import RowExtremes, RowSums

__all__ = ["Max", "Mean", "Min", "Sum"]

# The state and the base are public in the subpackage, not at top level.
_STATES = (RowSums, RowExtremes, RowValueMetric)
