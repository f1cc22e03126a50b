"""Hugging Face Transformers: a ``compute_metrics`` that accumulates per batch (``batch_eval_metrics``).

By default ``Trainer`` keeps every logit of the evaluation set and calls ``compute_metrics``
once; with ``TrainingArguments(batch_eval_metrics=True)`` it calls it after every batch instead
(``compute_result=False``) and once more with the last batch (``compute_result=True``), where
the epoch's values are due. :class:`BatchEvalMetrics` updates a metric or a
:class:`~streammetrics.MetricCollection` on each call, so memory is the state's (a confusion
matrix, a sketch), never the logits', and the values equal those of the whole evaluation set::

    from transformers import Trainer, TrainingArguments
    import streammetrics as sm
    from streammetrics.integrations.transformers import BatchEvalMetrics

    metrics = BatchEvalMetrics(
        sm.MetricCollection({"accuracy": sm.Accuracy(input="score"), "f1": sm.F1(average="macro", input="score")})
    )
    args = TrainingArguments("out", batch_eval_metrics=True, eval_strategy="epoch")
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=val, compute_metrics=metrics)
    trainer.evaluate()          # {"eval_accuracy": ..., "eval_f1": ..., "eval_loss": ...}

The logits arrive as tensors on the model's device; confusion metrics and ``LogLoss`` reduce
them there (:mod:`streammetrics._core.tensors`). Under multi-process evaluation ``Trainer``
gathers each batch across processes (dropping the sampler's repeated rows) before calling, so
the values are those of the whole set. Rows whose label is ``ignore_index`` (``-100``, the
padding of token classification) are left out; token-level predictions ``(batch, tokens,
classes)`` are flattened to rows first.

Transformers is not imported by this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _shards

__all__ = ["BatchEvalMetrics"]


class BatchEvalMetrics:
    """``compute_metrics`` for ``TrainingArguments(batch_eval_metrics=True)``.

    Args:
        metric: a metric or a :class:`~streammetrics.MetricCollection` (an empty copy is kept).
        ignore_index: label of rows to leave out (``None``: keep every row).
        name: the returned key of a single metric (default: its class name in snake case).

    After each evaluation, :attr:`result` holds that evaluation's accumulator (save it with
    ``.save(path)`` to merge later); the next evaluation starts empty.

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> from types import SimpleNamespace
        >>> compute_metrics = BatchEvalMetrics(sm.Accuracy(input="score"))
        >>> batch = lambda y, logits: SimpleNamespace(predictions=np.array(logits), label_ids=np.array(y))
        >>> compute_metrics(batch([0, 1], [[2.0, 1.0], [0.0, 3.0]]), compute_result=False)
        {}
        >>> compute_metrics(batch([1, -100], [[2.0, 1.0], [5.0, 0.0]]), compute_result=True)
        {'accuracy': 0.6666666666666666}
    """

    def __init__(self, metric: Any, *, ignore_index: int | None = -100, name: str | None = None) -> None:
        _shards.check_accumulator(metric)
        self.metric = _shards.empty_like(metric)
        self.ignore_index = ignore_index
        self.name = name
        self.result: Any = None

    def __call__(self, eval_pred: Any, compute_result: bool = False) -> dict[str, float]:
        preds = eval_pred.predictions
        labels = eval_pred.label_ids
        if isinstance(preds, (tuple, list)):  # (logits, hidden states, ...): the logits
            preds = preds[0]
        if isinstance(labels, (tuple, list)):
            labels = labels[0]
        if hasattr(preds, "detach"):
            preds = preds.detach()
        if hasattr(labels, "detach"):
            labels = labels.detach()
        if getattr(labels, "ndim", 1) > 1 and getattr(preds, "ndim", 1) == labels.ndim + 1:
            preds = preds.reshape(-1, preds.shape[-1])  # token classification: one row per token
            labels = labels.reshape(-1)
        if self.ignore_index is not None:
            keep = labels != self.ignore_index
            if not bool(keep.all()):
                labels, preds = labels[keep], preds[keep]
        self.metric.update(labels, preds)
        if not compute_result:
            return {}
        value = self.metric.compute()
        self.result = self.metric.copy()
        self.metric.reset()
        if isinstance(value, dict):
            return {k: float(v) for k, v in value.items()}
        if isinstance(value, np.ndarray):
            raise TypeError(
                f"{type(self.metric).__name__}: Trainer logs numbers; wrap a per-class metric in a "
                "MetricCollection (it logs name/label keys)"
            )
        return {self.name or _name(self.metric): float(value)}


def _name(metric: Any) -> str:
    from ..streaming import _spec

    return _spec.snake_case(metric.type_name())
