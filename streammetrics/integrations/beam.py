"""An Apache Beam ``CombineFn`` that evaluates a metric: accumulators are streammetrics states.

``MetricCombineFn(metric_factory)`` works with ``beam.CombineGlobally`` and
``beam.CombinePerKey``. Elements are rows ``(y_true, y_pred)`` or ``(y_true, y_pred,
sample_weight)``; rows are buffered and applied to the accumulator in vectorized batches (of
``buffer_size`` rows), and with ``batched=True`` each element is already a whole batch of arrays.
Beam's combiner lifting creates one accumulator per bundle, merges them with
``merge_accumulators`` and calls ``extract_output`` once. Apache Beam is imported when
``MetricCombineFn`` is first used, not when this module is imported.

Examples:
    >>> import apache_beam as beam
    >>> import streammetrics as sm
    >>> from streammetrics.integrations.beam import MetricCombineFn
    >>> rows = [(0, 0), (1, 1), (1, 0), (0, 0)]
    >>> with beam.Pipeline() as p:  # doctest: +SKIP
    ...     _ = (p | beam.Create(rows)
    ...            | beam.CombineGlobally(MetricCombineFn(sm.Accuracy, output="value"))
    ...            | beam.Map(print))
    0.75
    >>> fn = MetricCombineFn(sm.Accuracy, output="value")
    >>> acc = fn.add_inputs(fn.create_accumulator(), rows)
    >>> fn.extract_output(fn.merge_accumulators([acc, fn.create_accumulator()]))
    0.75
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.metric import Metric, metrics_within
from ..errors import InputError
from . import _shards

__all__ = ["MetricCombineFn"]  # noqa: F822 (built on first access, see __getattr__)

OUTPUTS = ("metric", "value", "bytes")


class ShardAccumulator:
    """A Beam accumulator: a metric plus rows not yet applied (flushed in vectorized batches)."""

    __slots__ = ("metric", "rows")

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self.rows: list[tuple[Any, ...]] = []

    def flush(self) -> ShardAccumulator:
        if not self.rows:
            return self
        rows, self.rows = self.rows, []
        a = _n_args(self.metric)  # (y_true, y_pred), and the key for a Sliced metric
        widths = {len(r) for r in rows}
        if not widths <= {a, a + 1}:
            raise InputError(
                f"element: expected {a} values (then optionally sample_weight), found a row "
                f"of {sorted(widths - {a, a + 1})[0]} values"
            )
        args = [np.asarray([r[j] for r in rows]) for j in range(a)]
        weight = None if widths == {a} else np.asarray([r[a] if len(r) == a + 1 else 1.0 for r in rows])
        self.metric.update(*args, sample_weight=weight)
        return self

    def __getstate__(self) -> tuple[Any, Any]:
        self.flush()
        return (_shards.dump(self.metric), None)

    def __setstate__(self, state: tuple[Any, Any]) -> None:
        self.metric = _shards.load(state[0])
        self.rows = []


def _n_args(metric: Any) -> int:
    """The positional arguments of an element: 2, and 3 for a keyed metric (the key last)."""
    from ..keyed import Sliced

    return 3 if isinstance(metric, Sliced) else 2


def _make(metric_factory: Any) -> Any:
    """A new, empty accumulator from a factory (or from an accumulator instance: an empty copy)."""
    if not isinstance(metric_factory, type) and hasattr(metric_factory, "update"):
        _shards.check_accumulator(metric_factory)
        return _shards.empty_like(metric_factory)
    if not callable(metric_factory):
        raise TypeError(
            f"metric_factory: expected a callable returning a metric, found {type(metric_factory).__name__}"
        )
    metric = metric_factory()
    _shards.check_accumulator(metric)
    return metric


def _check_unordered(metric: Any) -> None:
    """Refuse a window (its merge is concatenation): Beam combines accumulators in any order."""
    if not isinstance(metric, Metric):
        return
    ordered = next((m for m in metrics_within(metric) if type(m).ordered_merge), None)
    if ordered is not None:
        raise TypeError(
            f"metric_factory: {type(ordered).__name__} merges by concatenation (the order of rows "
            "matters) and Beam combines accumulators in any order; evaluate the metric without the "
            "window, or the window outside Beam"
        )


def _build_class() -> type:
    import apache_beam as beam

    class MetricCombineFn(beam.CombineFn):
        """Combine rows (or batches) into a streammetrics accumulator.

        Args:
            metric_factory: a callable returning a new, empty metric or collection (a class such
                as ``sm.F1``, or ``lambda: sm.F1(average="macro")``); a metric instance also
                works (an empty copy of it is used).
            batched: elements are whole batches ``(y_true_array, y_pred_array[, weights])``
                instead of single rows.
            output: what ``extract_output`` returns: ``"metric"`` (the merged accumulator,
                default), ``"value"`` (its ``compute()``) or ``"bytes"`` (its ``to_bytes()``).
            buffer_size: rows buffered before a vectorized update.
        """

        def __init__(
            self,
            metric_factory: Any,
            *,
            batched: bool = False,
            output: str = "metric",
            buffer_size: int = 4096,
        ) -> None:
            super().__init__()
            if output not in OUTPUTS:
                raise ValueError(f"output: expected one of {', '.join(map(repr, OUTPUTS))}, found {output!r}")
            if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 1:
                raise ValueError(f"buffer_size: expected a positive integer, found {buffer_size!r}")
            _check_unordered(_make(metric_factory))  # fail early on a bad factory
            self.metric_factory = metric_factory
            self.batched = bool(batched)
            self.output = output
            self.buffer_size = buffer_size

        def create_accumulator(self) -> ShardAccumulator:
            return ShardAccumulator(_make(self.metric_factory))

        def add_input(self, accumulator: ShardAccumulator, element: Any) -> ShardAccumulator:
            if self.batched:
                accumulator.flush()
                a = _n_args(accumulator.metric)
                if not isinstance(element, (tuple, list)) or len(element) not in (a, a + 1):
                    raise InputError(
                        "element: expected a batch (y_true, y_pred) or (y_true, y_pred, sample_weight)"
                        + ("" if a == 2 else " with the keys after y_pred")
                    )
                accumulator.metric.update(
                    *element[:a], sample_weight=element[a] if len(element) == a + 1 else None
                )
                return accumulator
            if not isinstance(element, (tuple, list)):
                raise InputError(
                    f"element: expected a row (y_true, y_pred[, sample_weight]), found {type(element).__name__}"
                )
            accumulator.rows.append(tuple(element))
            if len(accumulator.rows) >= self.buffer_size:
                accumulator.flush()
            return accumulator

        def add_inputs(self, accumulator: ShardAccumulator, elements: Any) -> ShardAccumulator:
            for element in elements:
                accumulator = self.add_input(accumulator, element)
            return accumulator.flush()

        def merge_accumulators(self, accumulators: Any) -> ShardAccumulator:
            accumulators = [a.flush() for a in accumulators]
            if not accumulators:
                return self.create_accumulator()
            merged = ShardAccumulator(_shards.empty_like(accumulators[0].metric))
            _shards.merge_all([merged.metric, *(a.metric for a in accumulators)], where="accumulator")
            return merged

        def compact(self, accumulator: ShardAccumulator) -> ShardAccumulator:
            return accumulator.flush()

        def extract_output(self, accumulator: ShardAccumulator) -> Any:
            metric = accumulator.flush().metric
            if self.output == "value":
                return metric.compute()
            if self.output == "bytes":
                return metric.to_bytes()
            return metric

    MetricCombineFn.__module__ = __name__
    return MetricCombineFn


def __getattr__(name: str) -> Any:
    if name == "MetricCombineFn":
        cls = _build_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
