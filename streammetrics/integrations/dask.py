"""Evaluate a metric over Dask arrays or Dask DataFrame columns: one state per partition, a tree merge.

Each partition updates an empty copy of the metric and ships only its *state* (a few hundred
bytes for confusion counts or moments) instead of its rows; the states are merged by a tree
reduction with ``split_every`` children per node. The result is the merged accumulator, equal to
updating one accumulator with all the rows in one process. Dask is imported when
:func:`evaluate` is called, not when this module is imported.

Examples:
    >>> import dask.array as da
    >>> import numpy as np
    >>> import streammetrics as sm
    >>> from streammetrics.integrations import dask as smd
    >>> y_true = da.from_array(np.array([0, 1, 1, 0, 1, 1]), chunks=2)
    >>> y_pred = da.from_array(np.array([0, 1, 0, 0, 1, 1]), chunks=2)
    >>> m = smd.evaluate(sm.Accuracy(), y_true, y_pred, split_every=2)
    >>> m.compute(), m.n_samples
    (0.8333333333333334, 6)
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from . import _shards

__all__ = ["evaluate"]

DEFAULT_SPLIT_EVERY = 8


def _partition_state(
    template: bytes, index: int, y_true: Any, y_pred: Any, weight: Any, keys: Any = None
) -> bytes:
    """The state of one partition, as bytes: a pure function of the partition's rows."""
    acc = _shards.load(template)
    try:
        extra = () if keys is None else (_shards.column_values(keys, "keys"),)
        acc.update(
            _shards.column_values(y_true, "y_true"),
            _shards.column_values(y_pred, "y_pred"),
            *extra,
            sample_weight=None if weight is None else _shards.column_values(weight, "sample_weight"),
        )
    except InputError as err:
        raise InputError(f"partition {index}: {err}") from None
    return _shards.dump(acc)


def _merge_states(*blobs: bytes) -> bytes:
    return _shards.dump(_shards.merge_all(_shards.load(b) for b in blobs))


def _final(*blobs: bytes) -> Any:
    return _shards.merge_all(_shards.load(b) for b in blobs)


def _is_frame(obj: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(obj, (dd.DataFrame, dd.Series))


def _blocks(args: dict[str, Any]) -> list[list[Any]]:
    """One list of delayed partitions per argument, aligned row-wise."""
    import dask.array as da

    present = {k: v for k, v in args.items() if v is not None}
    for name, value in present.items():
        if not (isinstance(value, da.Array) or _is_frame(value)):
            raise InputError(
                f"{name}: expected a dask array or a dask DataFrame/Series, found {type(value).__name__}"
            )
    frames = {k: v for k, v in present.items() if _is_frame(v)}
    if frames and len(frames) == len(present):
        nparts = {k: v.npartitions for k, v in frames.items()}
        if len(set(nparts.values())) > 1:
            raise InputError(f"partitions: expected aligned partitions, found {nparts}")
        divisions = {k: v.divisions for k, v in frames.items() if v.known_divisions}
        if len({tuple(d) for d in divisions.values()}) > 1:
            raise InputError("partitions: expected aligned partitions, found different divisions")
        return [list(frames[k].to_delayed()) if k in frames else None for k in args]
    # arrays (frames mixed with arrays become arrays with known chunk lengths)
    arrays = {k: (v.to_dask_array(lengths=True) if _is_frame(v) else v) for k, v in present.items()}
    first = arrays["y_true"]
    if first.ndim == 0:
        raise InputError("y_true: expected an array of rows, found a 0-d array")
    rows = first.chunks[0]
    out: list[Any] = []
    for key in args:
        arr = arrays.get(key)
        if arr is None:
            out.append(None)
            continue
        if arr.ndim == 0 or arr.shape[0] != first.shape[0]:
            raise InputError(
                f"{key}: expected {first.shape[0]} rows (the length of y_true), found "
                f"{arr.shape[0] if arr.ndim else 'a 0-d array'}"
            )
        arr = arr.rechunk((rows, *((-1,) * (arr.ndim - 1))))
        out.append(list(arr.to_delayed().reshape(-1)))
    return out


def evaluate(
    metric: Any,
    y_true: Any,
    y_pred: Any,
    sample_weight: Any = None,
    split_every: int | None = None,
    *,
    keys: Any = None,
    scheduler: Any = None,
    **compute_kwargs: Any,
) -> Any:
    """Evaluate ``metric`` over Dask collections, one state per partition, merged by a tree.

    Args:
        metric: a metric or a collection; it is not changed (each partition starts from an empty
            copy of it; data it already holds is not included).
        y_true: a Dask array (chunked along rows; 2-D arrays are rechunked to whole rows) or a
            Dask DataFrame column / frame.
        y_pred: the same kind of collection, with partitions aligned to ``y_true`` (arrays are
            rechunked to the row chunks of ``y_true``).
        sample_weight: optional, like ``y_pred``.
        split_every: how many states each node of the merge tree merges (default 8).
        keys: the key of each row for a :class:`~streammetrics.Sliced` metric (like ``y_pred``;
            a frame of several columns for crossed keys).
        scheduler: passed to :func:`dask.compute` (``"threads"``, ``"processes"``,
            ``"synchronous"``, a ``distributed.Client``); the default is Dask's current one.
        **compute_kwargs: more arguments of :func:`dask.compute` (for example ``retries=`` with
            the distributed scheduler).

    Returns:
        A new accumulator holding every row: ``result.compute()`` is the metric's value.

    Raises:
        InputError: misaligned inputs, or a partition with a bad row (NaN, bad label, ...);
            the message names the partition.
        MergeError: never for one metric; only if states of different configurations meet.

    Examples:
        >>> import dask.dataframe as dd
        >>> import pandas as pd
        >>> import streammetrics as sm
        >>> from streammetrics.integrations import dask as smd
        >>> pdf = pd.DataFrame({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0], "w": [1.0, 1.0, 2.0, 0.0]})
        >>> df = dd.from_pandas(pdf, npartitions=2)
        >>> smd.evaluate(sm.Recall(), df["y"], df["p"], sample_weight=df["w"]).compute()
        0.3333333333333333
    """
    import dask
    from dask import delayed

    _shards.check_accumulator(metric)
    if split_every is None:
        split_every = DEFAULT_SPLIT_EVERY
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every: expected an integer >= 2, found {split_every!r}")
    template = _shards.dump(_shards.empty_like(metric))
    yt, yp, w, k = _blocks({"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight, "keys": keys})
    part = delayed(_partition_state, pure=True)
    level = [
        part(template, i, yt[i], yp[i], None if w is None else w[i], None if k is None else k[i])
        for i in range(len(yt))
    ]
    if not level:  # no partitions at all
        level = [delayed(template, pure=True)]
    while len(level) > split_every:
        level = [
            delayed(_merge_states, pure=True)(*level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    final = delayed(_final, pure=True)(*level)
    kwargs = dict(compute_kwargs)
    if scheduler is not None:
        kwargs["scheduler"] = scheduler
    (result,) = dask.compute(final, **kwargs)
    return result
