"""Keras 3: a callback that evaluates a metric or collection on validation data at each epoch's end.

The values go into the epoch's ``logs`` (``val_f1``, ``val_auc``, ...), where ``EarlyStopping``,
``ModelCheckpoint``, ``ReduceLROnPlateau`` and the ``History`` read them; list this callback
before them::

    import keras
    import streammetrics as sm
    from streammetrics.integrations.keras import MetricsCallback

    metrics = sm.MetricCollection({"f1": sm.F1(average="macro"), "auc": sm.ROCAUC()})
    model.fit(
        x, y, epochs=10,
        callbacks=[
            MetricsCallback(metrics, validation_data=(x_val, y_val), batch_size=256),
            keras.callbacks.EarlyStopping(monitor="val_f1", mode="max", patience=2),
        ],
    )

Each validation batch's predictions update the accumulator and are dropped: memory is the
state's, whatever the size of the validation set. Works with every Keras backend (the tests
use ``KERAS_BACKEND=torch``). Keras is imported only when a callback is made.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from . import _shards

__all__ = ["MetricsCallback"]


def MetricsCallback(
    metric: Any,
    validation_data: Any,
    *,
    batch_size: int = 256,
    prefix: str = "val_",
) -> Any:
    """A ``keras.callbacks.Callback`` that puts ``metric``'s values on ``validation_data`` in ``logs``.

    Args:
        metric: a metric or a :class:`~streammetrics.MetricCollection` (an empty copy is kept).
        validation_data: ``(x, y)`` or ``(x, y, sample_weight)`` arrays (cut into batches of
            ``batch_size``), or an iterable of such batches (a ``keras.utils.PyDataset``, a
            ``tf.data.Dataset``, a torch ``DataLoader``), read again at each epoch.
        batch_size: rows per prediction batch for arrays.
        prefix: put before every name in ``logs``.

    After each epoch, ``callback.result`` is that epoch's accumulator (``.save(path)`` it to
    merge or recompute later) and ``callback.history`` the list of the values logged.
    """
    import keras

    _shards.check_accumulator(metric)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size: expected a positive integer, found {batch_size!r}")
    cls = type("MetricsCallback", (_MetricsCallbackMixin, keras.callbacks.Callback), {"__module__": __name__})
    return cls(metric, validation_data, batch_size, prefix)


class _MetricsCallbackMixin:
    def __init__(self, metric: Any, validation_data: Any, batch_size: int, prefix: str) -> None:
        super().__init__()
        self.metric = _shards.empty_like(metric)
        self.validation_data = validation_data
        self.batch_size = batch_size
        self.prefix = prefix
        self.result: Any = None
        self.history: list[dict[str, float]] = []

    def _batches(self) -> Iterable[tuple[Any, ...]]:
        data = self.validation_data
        if isinstance(data, tuple) and len(data) in (2, 3) and hasattr(data[0], "__len__"):
            n = len(data[1])
            for start in range(0, n, self.batch_size):
                yield tuple(None if part is None else part[start : start + self.batch_size] for part in data)
        else:
            yield from data

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        metric = self.metric
        metric.reset()
        for batch in self._batches():
            x, y = batch[0], batch[1]
            weight = batch[2] if len(batch) > 2 else None
            pred = self.model.predict_on_batch(x)
            if isinstance(pred, (list, tuple)):
                pred = pred[0]
            pred = np.asarray(pred) if not hasattr(pred, "detach") else pred.detach()
            if pred.ndim == 2 and pred.shape[1] == 1:
                pred = pred[:, 0]  # one sigmoid output: the positive class's probability
            metric.update(_plain(y), pred, sample_weight=None if weight is None else _plain(weight))
        value = metric.compute()
        if not isinstance(value, dict):
            from ..streaming import _spec

            value = {_spec.snake_case(metric.type_name()): value}
        logged = {f"{self.prefix}{k}": float(v) for k, v in value.items()}
        self.result = metric.copy()
        self.history.append(logged)
        if logs is not None:
            logs.update(logged)


def _plain(values: Any) -> Any:
    """Labels or weights from a batch (NumPy, a backend tensor, a tf tensor)."""
    if hasattr(values, "numpy") and not isinstance(values, np.ndarray) and not hasattr(values, "detach"):
        return values.numpy()
    return values
