"""Evaluate a metric over a PySpark DataFrame: one serialized state per partition, merged on the driver.

``mapInPandas`` runs on the executors: each partition updates an empty copy of the metric with
its Arrow batches and yields one row holding its state as bytes (a ``binary`` column). The driver
collects those few rows and merges them. Only DataFrame operations are used, so this works over
classic PySpark and over Spark Connect alike. PySpark is imported when :func:`evaluate` is
called, not when this module is imported.

A failed task that Spark retries (``spark.task.maxFailures``) recomputes its partition's state
from the partition's rows; only the successful attempt's row reaches the driver, so no row is
counted twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from . import _shards

__all__ = ["evaluate", "STATE_COLUMN"]

#: Name of the binary column holding each partition's state.
STATE_COLUMN = "streammetrics_state"
_WORKER_ERROR = re.compile(r"streammetrics\.errors\.(InputError|MergeError|StateError): (.*)")


def _state_rows(
    template: bytes,
    y_true_col: str,
    y_pred_col: str,
    weight_col: str | None,
    key_cols: list[str] | None = None,
):
    """The function given to ``mapInPandas``: pandas batches in, one state row out."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        acc = _shards.load(template)
        for pdf in batches:
            try:
                weight = None if weight_col is None else _shards.column_values(pdf[weight_col], "weight_col")
                extra = ()
                if key_cols:
                    keys = pdf[key_cols[0]] if len(key_cols) == 1 else pdf[key_cols].to_numpy(dtype=object)
                    extra = (_shards.column_values(keys, "key_cols") if len(key_cols) == 1 else keys,)
                acc.update(
                    _shards.column_values(pdf[y_true_col], "y_true_col"),
                    _shards.column_values(pdf[y_pred_col], "y_pred_col"),
                    *extra,
                    sample_weight=weight,
                )
            except InputError as err:
                raise InputError(f"partition {_partition_id()}: {err}") from None
        yield pd.DataFrame({STATE_COLUMN: [_shards.dump(acc)]})

    return run


def _partition_id() -> Any:
    try:
        from pyspark import TaskContext

        return TaskContext.get().partitionId()
    except Exception:  # not in a task (or Spark Connect without a task context)
        return "?"


def _check_column(df: Any, arg: str, name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{arg}: expected a column name (str), found {type(name).__name__}")
    if name not in df.columns:
        raise InputError(f"{arg}: no column {name!r}; the DataFrame has {', '.join(map(repr, df.columns))}")


def state_frame(
    metric: Any,
    df: Any,
    y_true_col: str,
    y_pred_col: str,
    weight_col: str | None = None,
    key_cols: Any = None,
) -> Any:
    """The lazy DataFrame of per-partition states (one ``binary`` row per partition).

    Useful to write the states somewhere (``.write.parquet``) and merge them later, for example
    with ``streammetrics merge``.

    Examples:
        >>> from streammetrics.integrations import spark as sms
        >>> sms.STATE_COLUMN
        'streammetrics_state'
    """
    _shards.check_accumulator(metric)
    _check_column(df, "y_true_col", y_true_col)
    _check_column(df, "y_pred_col", y_pred_col)
    cols = [y_true_col, y_pred_col]
    if weight_col is not None:
        _check_column(df, "weight_col", weight_col)
        cols.append(weight_col)
    keys = [key_cols] if isinstance(key_cols, str) else (None if key_cols is None else list(key_cols))
    for name in keys or []:
        _check_column(df, "key_cols", name)
        cols.append(name)
    template = _shards.dump(_shards.empty_like(metric))
    fn = _state_rows(template, y_true_col, y_pred_col, weight_col, keys)
    return df.select(*cols).mapInPandas(fn, schema=f"{STATE_COLUMN} binary")


def evaluate(
    metric: Any,
    df: Any,
    y_true_col: str,
    y_pred_col: str,
    weight_col: str | None = None,
    key_cols: Any = None,
) -> Any:
    """Evaluate ``metric`` over the rows of a PySpark DataFrame; returns the merged accumulator.

    Args:
        metric: a metric or a collection; it is not changed (each partition starts from an empty
            copy of it).
        df: a ``pyspark.sql.DataFrame`` (classic or Spark Connect).
        y_true_col: the column of true values; array columns (``array<double>``) become 2-D
            inputs (multilabel indicators).
        y_pred_col: the column of predictions or scores (array columns: class scores).
        weight_col: an optional column of sample weights (0 excludes a row, e.g. padding).
        key_cols: for a :class:`~streammetrics.Sliced` metric, the key column (a name) or the
            crossed key columns (a list of names).

    Raises:
        InputError: a missing column (the message lists the columns that exist), or a partition
            with a bad row (NaN, bad label, ...), re-raised on the driver with the worker's message.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.integrations import spark as sms
        >>> sms.evaluate  # doctest: +ELLIPSIS
        <function evaluate at ...>

    With a running ``spark`` session::

        df = spark.createDataFrame([(0, 0), (1, 1), (1, 0)], ["y", "p"])
        sms.evaluate(sm.Accuracy(), df, "y", "p").compute()   # 0.666...
    """
    frame = state_frame(metric, df, y_true_col, y_pred_col, weight_col, key_cols)
    try:
        rows = frame.collect()
    except Exception as err:
        match = _WORKER_ERROR.findall(str(err))
        if match:
            from .. import errors

            kind, message = match[-1]
            raise getattr(errors, kind)(message.strip()) from None
        raise
    result = _shards.empty_like(metric)
    return _shards.merge_all([result, *(_shards.load(row[0]) for row in rows)])
