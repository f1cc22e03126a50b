"""Loggers: write a metric's or collection's values to TensorBoard and MLflow, with its state bytes.

Besides the numbers, each call saves the accumulator itself (``to_bytes``, a few hundred bytes to
a few KB): an MLflow artifact, or a file beside the TensorBoard event files. Runs and shards can
then be merged and recomputed later, exactly, by any metric of the same configuration::

    streammetrics merge run-a/streammetrics/val-epoch0003.state run-b/streammetrics/val-epoch0003.state

TensorBoard is written with the ``tensorboard`` package's own event writer (no TensorFlow, no
torch), or through a writer you already have (``torch.utils.tensorboard.SummaryWriter``,
tensorboardX: anything with ``add_scalar``). MLflow logs to the active run (or ``run_id=``).
Each module is imported only when used.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from typing import Any

__all__ = ["TensorBoardLogger", "log_mlflow", "values_of"]

#: The folder (TensorBoard) or artifact path (MLflow) of the saved states.
STATE_DIR = "streammetrics"


def values_of(metric: Any, prefix: str = "") -> dict[str, float]:
    """A metric's or collection's value as a flat ``{name: float}`` dict (per-class arrays become
    ``name/label`` keys, as :class:`~streammetrics.MetricCollection` names them).

    Examples:
        >>> import streammetrics as sm
        >>> values_of(sm.Recall(average=None).update([0, 1, 1], [0, 1, 0]), prefix="val/")
        {'val/recall/0': 1.0, 'val/recall/1': 0.5}
    """
    from ..streaming import _spec
    from ..streaming.collection import MetricCollection
    from ..streaming.flatten import flatten_value

    if isinstance(metric, MetricCollection):
        return {f"{prefix}{k}": float(v) for k, v in metric.compute().items()}
    name = f"{prefix}{_spec.snake_case(metric.type_name())}"
    labels = metric.output_labels(metric.state)
    return {k: float(v) for k, v in flatten_value(name, metric.compute(), labels).items()}


def _state_name(name: str, step: int | None) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "metric"
    return f"{safe}.state" if step is None else f"{safe}-{step:06d}.state"


class TensorBoardLogger:
    """Scalars to TensorBoard event files, and each logged accumulator saved beside them.

    Args:
        logdir: the run's folder (event files go there; states under ``logdir/streammetrics``).
        writer: an existing writer with ``add_scalar(tag, value, step)`` (``SummaryWriter``);
            ``None`` opens the ``tensorboard`` package's own event file writer in ``logdir``.
        save_state: also save the accumulator's bytes at each call.

    Examples:
        >>> import streammetrics as sm, tempfile
        >>> class Writer:  # a SummaryWriter's add_scalar (without a writer: event files)
        ...     def add_scalar(self, tag, value, step):
        ...         print(tag, value, step)
        ...     def flush(self):
        ...         pass
        >>> with TensorBoardLogger(tempfile.mkdtemp(), writer=Writer()) as tb:
        ...     path = tb.log(sm.Accuracy().update([0, 1], [0, 0]), step=1, name="val")
        val/accuracy 0.5 1
        >>> sm.load(path).compute(), path.endswith("val-000001.state")
        (0.5, True)
    """

    def __init__(
        self, logdir: str | os.PathLike[str], *, writer: Any = None, save_state: bool = True
    ) -> None:
        self.logdir = os.fspath(logdir)
        self.save_state = save_state
        self._own = writer is None
        if writer is None:
            from tensorboard.summary.writer.event_file_writer import EventFileWriter

            os.makedirs(self.logdir, exist_ok=True)
            writer = EventFileWriter(self.logdir)
        self.writer = writer

    def log(self, metric: Any, step: int, *, name: str = "", prefix: str | None = None) -> str | None:
        """Write ``metric``'s values at ``step`` (tags ``prefix + name``; ``prefix`` defaults to
        ``name + "/"``); returns the saved state's path (``None`` with ``save_state=False``)."""
        prefix = (f"{name}/" if name else "") if prefix is None else prefix
        values = values_of(metric, prefix)
        if self._own:
            self._write(values, step)
        else:
            for tag, value in values.items():
                self.writer.add_scalar(tag, value, step)
        if not self.save_state:
            return None
        folder = os.path.join(self.logdir, STATE_DIR)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, _state_name(name or type(metric).__name__, step))
        metric.save(path)
        return path

    def _write(self, values: dict[str, float], step: int) -> None:
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary

        summary = Summary(value=[Summary.Value(tag=k, simple_value=v) for k, v in values.items()])
        self.writer.add_event(Event(wall_time=time.time(), step=int(step), summary=summary))

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        if self._own:
            self.writer.close()
        else:
            self.writer.flush()

    def __enter__(self) -> TensorBoardLogger:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def log_mlflow(
    metric: Any,
    step: int | None = None,
    *,
    name: str = "",
    prefix: str | None = None,
    save_state: bool = True,
    run_id: str | None = None,
    client: Any = None,
) -> dict[str, float]:
    """Log ``metric``'s values to MLflow (active run, or ``run_id=``) and its state as an artifact.

    Metric keys are ``prefix + name`` (``prefix`` defaults to ``name + "/"``); NaN values (an
    undefined metric) are logged as NaN, which MLflow stores. The state goes to the artifact
    path ``streammetrics/<name>-<step>.state``. Returns the values logged.
    """
    import mlflow

    prefix = (f"{name}/" if name else "") if prefix is None else prefix
    values = values_of(metric, prefix)
    if run_id is None:
        active = mlflow.active_run()
        if active is None:
            raise RuntimeError("log_mlflow: expected an active MLflow run (mlflow.start_run()) or run_id=")
        run_id = active.info.run_id
    client = client or mlflow.MlflowClient()
    stamp = int(time.time() * 1000)
    entities = [
        mlflow.entities.Metric(key=_mlflow_key(k), value=v, timestamp=stamp, step=step or 0)
        for k, v in values.items()
    ]
    client.log_batch(run_id, metrics=entities)
    if save_state:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, _state_name(name or type(metric).__name__, step))
            metric.save(path)
            client.log_artifact(run_id, path, artifact_path=STATE_DIR)
    return values


def _mlflow_key(key: str) -> str:
    """MLflow keys allow letters, digits and ``_-./ `` (other characters become ``_``)."""
    return re.sub(r"[^\w\-./ ]", "_", key)
