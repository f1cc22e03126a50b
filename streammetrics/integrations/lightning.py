"""Lightning: log a metric or a collection per step and per epoch, merged exactly across DDP ranks.

A :class:`MetricsCallback` keeps one copy of your metric (or :class:`~streammetrics.MetricCollection`)
per stage (``"train"``, ``"val"``, ``"test"``). Your ``*_step`` returns the prediction and the
truth; the callback updates the copy with them, logs the batch's values on training steps,
and at each epoch's end gathers every rank's state (a few hundred bytes each, with
:func:`~streammetrics.integrations.torch_distributed.gather_merge`), merges them and logs the
values of the whole epoch through ``LightningModule.log_dict``, where ``ModelCheckpoint`` and
``EarlyStopping`` can monitor them::

    import lightning as L
    import streammetrics as sm
    from streammetrics.integrations.lightning import MetricsCallback

    class Model(L.LightningModule):
        ...
        def validation_step(self, batch, batch_idx):
            x, y = batch
            return {"preds": self(x), "target": y}      # logits: input="score" below

    metrics = sm.MetricCollection({"acc": sm.Accuracy(input="score"), "auc": sm.ROCAUC(input="score")})
    trainer = L.Trainer(callbacks=[MetricsCallback(metrics)], max_epochs=3)

**Padding.** Under DDP, Lightning's ``DistributedSampler`` repeats a few rows so that every
rank gets as many; the callback gives those rows weight 0
(:func:`~streammetrics.integrations.torch_distributed.padding_mask`), so the epoch's values equal
those of one process over the whole set (torchmetrics counts the repeats). This needs the
dataloader to give a rank's rows in sampler order (the default ``DataLoader``).

**Tensors** stay on their device: confusion metrics and ``LogLoss`` reduce each batch there and
move only a few statistics (:mod:`streammetrics._core.tensors`).

Lightning is imported only when a callback is made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import errors
from . import _shards
from .torch_distributed import gather_merge, padding_mask

__all__ = ["MetricsCallback"]

STAGES = ("train", "val", "test", "predict")


def _callback_base() -> type:
    try:
        from lightning.pytorch.callbacks import Callback
    except ImportError:  # the older package name
        from pytorch_lightning.callbacks import Callback
    return Callback


class _Stage:
    """One stage's accumulator and where this rank is in its epoch (for the padding mask)."""

    def __init__(self, metric: Any) -> None:
        self.metric = _shards.empty_like(metric)
        self.seen = 0
        self.mask: np.ndarray | None = None
        self.result: Any = None


def MetricsCallback(
    metric: Any,
    *,
    stages: tuple[str, ...] = ("train", "val"),
    preds_key: str = "preds",
    target_key: str = "target",
    weight_key: str | None = None,
    prefix: str = "{stage}/",
    log_step: bool = True,
    sync: bool = True,
) -> Any:
    """A Lightning ``Callback`` that accumulates ``metric`` per stage and logs it.

    Args:
        metric: a metric or a :class:`~streammetrics.MetricCollection` (copied, empty, per stage).
        stages: the stages to follow, among ``"train"``, ``"val"``, ``"test"``.
        preds_key: the key of the prediction in the dict that ``training_step`` /
            ``validation_step`` / ``test_step`` return (a training step's dict also holds
            ``"loss"``): anything the metric takes (labels, class scores, probabilities), a
            tensor on any device.
        target_key: the key of the truth in that dict.
        weight_key: a key of sample weights in that dict (``None``: unweighted).
        prefix: put before every logged name; ``{stage}`` is replaced by the stage.
        log_step: also log each training batch's own values (``<name>_step``; under DDP, this
            rank's batch); the epoch's are logged as ``<name>`` (validation and test log epoch
            values only).
        sync: under DDP, gather and merge every rank's state at the epoch's end (all ranks
            then log the same values). ``False`` logs each rank's own.

    The last epoch's merged accumulator of each stage is ``callback.result(stage)``: save it
    (``.save(path)``) to merge or recompute later (``streammetrics merge``).
    """
    _shards.check_accumulator(metric)
    bad = [s for s in stages if s not in STAGES[:3]]
    if bad:
        raise ValueError(f"stages: expected a tuple of 'train', 'val', 'test', found {bad}")
    base = _callback_base()
    cls = type("MetricsCallback", (_MetricsCallbackMixin, base), {"__module__": __name__})
    return cls(
        metric,
        stages=tuple(stages),
        preds_key=preds_key,
        target_key=target_key,
        weight_key=weight_key,
        prefix=prefix,
        log_step=log_step,
        sync=sync,
    )


class _MetricsCallbackMixin:
    def __init__(self, metric: Any, **options: Any) -> None:
        super().__init__()
        self._template = _shards.empty_like(metric)
        self.options = options
        self._stages: dict[str, _Stage] = {s: _Stage(metric) for s in options["stages"]}

    # ------------------------------------------------------------------ public
    def result(self, stage: str = "val") -> Any:
        """The merged accumulator of ``stage``'s last finished epoch (``None`` before one)."""
        return self._stages[stage].result

    @property
    def state_key(self) -> str:
        return f"streammetrics.MetricsCallback[{self._template!r}]"

    # ------------------------------------------------------------------ epochs
    def _start(self, trainer: Any, stage: str) -> None:
        s = self._stages.get(stage)
        if s is None:
            return
        s.metric.reset()
        s.seen = 0
        s.mask = _mask_for(trainer, stage)

    def _update(self, trainer: Any, pl_module: Any, stage: str, outputs: Any) -> None:
        s = self._stages.get(stage)
        if s is None or outputs is None:
            return
        if not isinstance(outputs, dict) or self.options["preds_key"] not in outputs:
            raise errors.InputError(
                f"{stage}_step: expected a dict with keys {self.options['preds_key']!r} and "
                f"{self.options['target_key']!r} to return, found {type(outputs).__name__}"
                + (f" with keys {sorted(outputs)}" if isinstance(outputs, dict) else "")
            )
        preds = outputs[self.options["preds_key"]]
        target = outputs[self.options["target_key"]]
        if hasattr(preds, "detach"):
            preds = preds.detach()
        weight = outputs.get(self.options["weight_key"]) if self.options["weight_key"] else None
        n = len(target)
        weight = _with_padding(weight, s.mask, s.seen, n, preds)
        s.seen += n
        if stage == "train" and self.options["log_step"]:
            values = s.metric(target, preds, sample_weight=weight)
            if isinstance(values, dict):
                step = {f"{self._prefix(stage)}{k}_step": v for k, v in values.items()}
            else:
                step = {f"{self._prefix(stage)}{_name(self._template)}_step": values}
            pl_module.log_dict(_floats(step), on_step=True, on_epoch=False, batch_size=n)
        else:
            s.metric.update(target, preds, sample_weight=weight)

    def _end(self, trainer: Any, pl_module: Any, stage: str) -> None:
        s = self._stages.get(stage)
        if s is None or getattr(trainer, "sanity_checking", False):
            return
        merged = s.metric
        if self.options["sync"] and getattr(trainer, "world_size", 1) > 1:
            merged = gather_merge(s.metric)
        s.result = merged.copy()
        value = merged.compute()
        prefix = self._prefix(stage)
        if isinstance(value, dict):
            logged = {f"{prefix}{k}": v for k, v in value.items()}
        else:
            logged = {f"{prefix}{_name(self._template)}": value}
        # every rank holds the merged values: no further reduction (sync_dist) is needed
        pl_module.log_dict(
            _floats(logged), on_step=False, on_epoch=True, sync_dist=False, rank_zero_only=False
        )

    def _prefix(self, stage: str) -> str:
        return self.options["prefix"].format(stage=stage)

    # ------------------------------------------------------------------ Lightning hooks
    def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        self._start(trainer, "train")

    def on_validation_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        self._start(trainer, "val")

    def on_test_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        self._start(trainer, "test")

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        self._update(trainer, pl_module, "train", outputs)

    def on_validation_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None:
        self._update(trainer, pl_module, "val", outputs)

    def on_test_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0
    ) -> None:
        self._update(trainer, pl_module, "test", outputs)

    def on_train_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        self._end(trainer, pl_module, "train")

    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        self._end(trainer, pl_module, "val")

    def on_test_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        self._end(trainer, pl_module, "test")

    # a checkpoint keeps the accumulators' bytes (resuming mid-epoch loses nothing)
    def state_dict(self) -> dict[str, Any]:
        return {stage: s.metric.to_bytes() for stage, s in self._stages.items()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        from .. import from_bytes

        for stage, blob in state_dict.items():
            if stage in self._stages:
                self._stages[stage].metric = from_bytes(blob)


def _mask_for(trainer: Any, stage: str) -> np.ndarray | None:
    """The padding weights of this rank's rows, when a ``DistributedSampler`` pads them."""
    if getattr(trainer, "world_size", 1) <= 1:
        return None
    loaders = {
        "train": getattr(trainer, "train_dataloader", None),
        "val": getattr(trainer, "val_dataloaders", None),
        "test": getattr(trainer, "test_dataloaders", None),
    }[stage]
    if isinstance(loaders, (list, tuple)):
        loaders = loaders[0] if len(loaders) == 1 else None
    sampler = getattr(loaders, "sampler", None)
    if sampler is None or not all(hasattr(sampler, a) for a in ("num_replicas", "rank", "dataset")):
        return None
    drop_last = bool(getattr(sampler, "drop_last", False))
    mask = padding_mask(
        len(sampler.dataset), int(sampler.num_replicas), int(sampler.rank), drop_last=drop_last
    )
    return mask if (mask == 0).any() else None


def _with_padding(weight: Any, mask: np.ndarray | None, seen: int, n: int, preds: Any) -> Any:
    """The batch's weights with the sampler's padded rows at 0 (a tensor on the prediction's
    device when the prediction is a tensor, so the batch can stay there)."""
    if mask is None:
        return weight
    part = mask[seen : seen + n]
    if len(part) < n:  # more rows than the sampler gives: not a DistributedSampler's order
        part = np.concatenate([part, np.ones(n - len(part))])
    if part.all():
        return weight
    if weight is not None:
        w = weight.detach().cpu().numpy() if hasattr(weight, "detach") else np.asarray(weight, float)
        part = part * w
    if hasattr(preds, "device"):
        import torch

        return torch.as_tensor(part, dtype=torch.float64, device=preds.device)
    return part


def _floats(values: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in values.items()}


def _name(metric: Any) -> str:
    """A single metric's logged name: its class name in snake case (``F1`` -> ``f1``)."""
    from ..streaming import _spec

    return _spec.snake_case(metric.type_name())
