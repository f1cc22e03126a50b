"""Torch tensors: every dtype on the host, and the device path (reduce on the device, move statistics).

**Dtypes.** A tensor of any torch float dtype (``float64``, ``float32``, ``float16``,
``bfloat16``, the ``float8`` kinds) or integer dtype (signed and unsigned, ``bool``) is accepted.
Floats NumPy lacks (``bfloat16``, ``float8``) are widened to ``float32``, which holds each of
their values exactly; every score, probability and value is then computed in float64, as for
NumPy input (:func:`streammetrics._core.validation.as_float`). Counts are int64.

**Device path.** A tensor that lives off the host (``tensor.device.type != "cpu"``: CUDA, MPS,
XLA) is not copied whole to the host. A family that can reduces the batch on the tensor's
device to the statistics its state adds up, and only those cross to the host:

- confusion metrics (1-D labels, labels by ``threshold=`` or the arg-max of class scores): the
  batch's distinct ``(true, predicted)`` label pairs, each with its row count and weight sum (at
  most K x K of them, whatever the batch size);
- :class:`~streammetrics.LogLoss` with 2-D class probabilities or logits and integer
  classes: three float64 sums (loss, loss, weight).

The checks run on the device too (finite values, range, rows summing to one, integral labels)
and cross as a few numbers; when one fails, the batch is handed to the host path, which raises
the same :class:`~streammetrics.InputError` as for NumPy input. Members whose family has no
device reduction yet (the ranking sketches, regression moments) take the host path: the tensor
is moved once per batch and shared by them.

Torch is never imported here: a tensor's own module is already loaded, and is found from the
tensor. A NumPy batch pays one dictionary look-up and a type test per argument.

:func:`device_path` forces the device path for CPU tensors (tests run it without a GPU) and
:data:`PATHS` counts which path each family took.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

#: How many batches took each path, by ``"<family> device"`` / ``"<family> host"`` (for tests
#: and for users who want to check that their GPU batches stay on the GPU).
PATHS: Counter[str] = Counter()

_FORCE = False
_DEVICE_KEY = ("device",)
_MISSING = object()
#: Label ranges up to this many values are counted with one ``bincount`` of pair codes; wider
#: ranges go through ``torch.unique``.
_DENSE_RANGE = 4096


@contextlib.contextmanager
def device_path(force: bool = True) -> Iterator[None]:
    """Within the block, CPU tensors take the device path too (``force=True``).

    The device path runs the same torch code on any device, so tests on a machine without an
    accelerator exercise it with CPU tensors.

    Examples:
        >>> import torch, streammetrics as sm
        >>> from streammetrics._core import tensors
        >>> before = tensors.PATHS["confusion device"]
        >>> with tensors.device_path():
        ...     sm.Accuracy().update(torch.tensor([0, 1, 1]), torch.tensor([0, 1, 0])).compute()
        0.6666666666666666
        >>> tensors.PATHS["confusion device"] - before
        1
    """
    global _FORCE
    old, _FORCE = _FORCE, bool(force)
    try:
        yield
    finally:
        _FORCE = old


def is_tensor(value: Any) -> bool:
    """A torch tensor, tested without importing torch."""
    return type(value).__module__.startswith("torch") and hasattr(value, "device")


def off_host(inputs: Any) -> Any:
    """The torch module when this batch should take the device path, else ``None`` (kept per batch).

    Yes when the prediction is a tensor off the host (or any tensor under :func:`device_path`)
    and the truth and weights are tensors or ``None``.
    """
    memo = inputs._memo
    found = memo.get(_DEVICE_KEY, _MISSING)
    if found is _MISSING:
        found = memo[_DEVICE_KEY] = _find(inputs.args, inputs.sample_weight)
    return found


def _find(args: tuple[Any, ...], weight: Any) -> Any:
    if len(args) < 2:
        return None
    pred = args[1]
    if type(pred) is np.ndarray or not is_tensor(pred):
        return None
    if not (_FORCE or pred.device.type != "cpu"):
        return None
    if not is_tensor(args[0]) or (weight is not None and not is_tensor(weight)):
        return None
    return sys.modules["torch"]


def _host(stats: Any) -> np.ndarray:
    """One small tensor of statistics to the host (the only transfer besides the reduced batch)."""
    return stats.detach().to("cpu", non_blocking=False).numpy()


def _labels(torch: Any, t: Any) -> Any:
    """Integer labels of a 1-D tensor as int64 on its device, or ``None`` (the host path decides)."""
    if t.ndim != 1:
        return None
    if t.dtype == torch.bool or not (t.is_floating_point() or t.is_complex()):
        if t.dtype == torch.uint64:  # may not fit int64: the host path checks
            return None
        return t.to(torch.int64)
    return None  # float labels: the host path checks that they are whole numbers


def _weights(torch: Any, w: Any, n: int) -> tuple[Any, list[Any]]:
    """Weights as float64 on the device and the statistics that check them."""
    if w is None:
        return None, []
    if w.ndim != 1 or len(w) != n or w.is_complex():
        return False, []
    w = w.detach().to(torch.float64)
    if not n:
        return w, []
    return w, [(~torch.isfinite(w)).sum().to(torch.float64), w.min()]


def _weights_ok(values: np.ndarray) -> bool:
    return values[0] == 0 and values[1] >= 0


def confusion_batch(metric: Any, inputs: Any, torch: Any) -> tuple[Any, ...] | None:
    """A confusion metric's batch reduced on the device, or ``None`` (the host path takes it).

    Returns ``("multiclass", true labels, predicted labels, weight sums or None, row counts)``,
    one entry per distinct pair of the batch.
    """
    yt_raw, yp_raw = inputs.args[0], inputs.args[1]
    yt = _labels(torch, yt_raw.detach())
    if yt is None:
        return None
    n = len(yt)
    yp_raw = yp_raw.detach()
    stats: list[Any] = []
    kind = "labels"
    if yp_raw.ndim == 2 and yp_raw.shape[1] >= 2:
        scores = yp_raw.to(torch.float64)
        if metric.labels is not None and scores.shape[1] != len(metric.labels):
            return None
        kind = "arg-max"
        yp = scores.argmax(dim=1) if n else torch.zeros(0, dtype=torch.int64, device=scores.device)
    elif yp_raw.ndim == 1 and metric.threshold is not None:
        scores = yp_raw.to(torch.float64)
        kind = "threshold"
        yp = (scores >= metric.threshold).to(torch.int64)
    elif yp_raw.ndim == 1:
        yp = _labels(torch, yp_raw)
        if yp is None:
            return None
    else:
        return None
    if len(yp) != n:
        return None
    if kind != "labels" and n:
        stats += [(~torch.isfinite(scores)).sum().to(torch.float64), scores.min(), scores.max()]
    w, wstats = _weights(torch, inputs.sample_weight, n)
    if w is False:
        return None
    if n:
        low = torch.minimum(yt.min(), yp.min())
        high = torch.maximum(yt.max(), yp.max())
        stats += [low.to(torch.float64), high.to(torch.float64)]
    stats += wstats
    values = _host(torch.stack(stats)) if stats else np.zeros(0)
    at = 0
    if kind != "labels" and n:
        bad, smin, smax = values[:3]
        if bad or (metric.input == "probability" and (smin < 0.0 or smax > 1.0)):
            return None
        at = 3
    if w is not None and n and not _weights_ok(values[-2:]):
        return None
    if n:
        low_v, high_v = int(values[at]), int(values[at + 1])
        span = high_v - low_v + 1
        if span <= _DENSE_RANGE:
            code = (yt - low_v) * span + (yp - low_v)
            counts = torch.bincount(code, minlength=span * span)
            present = torch.nonzero(counts)[:, 0]
            sums = torch.bincount(code, weights=w, minlength=span * span)[present] if w is not None else None
            moved = [present, counts[present]] + ([sums] if sums is not None else [])
            host = [_host(t) for t in moved]
            codes, reps = host[0], host[1]
            pairs_t, pairs_p = codes // span + low_v, codes % span + low_v
        else:
            pairs, inverse, counts = torch.unique(
                torch.stack([yt, yp], dim=1), dim=0, return_inverse=True, return_counts=True
            )
            sums = None
            if w is not None:
                sums = torch.zeros(len(pairs), dtype=torch.float64, device=w.device).index_add_(0, inverse, w)
            pairs_h, reps = _host(pairs), _host(counts)
            pairs_t, pairs_p = pairs_h[:, 0], pairs_h[:, 1]
            host = [None, None] + ([_host(sums)] if sums is not None else [])
        weight_sums = host[2] if w is not None else None
    else:
        pairs_t = pairs_p = np.zeros(0, np.int64)
        reps = np.zeros(0, np.int64)
        weight_sums = np.zeros(0) if w is not None else None
    return kind, pairs_t.astype(np.int64), pairs_p.astype(np.int64), weight_sums, reps.astype(np.int64)


def logloss_batch(metric: Any, inputs: Any, torch: Any) -> tuple[Any, ...] | None:
    """:class:`~streammetrics.LogLoss`'s batch (2-D class probabilities or logits, integer classes)
    reduced on the device to its table ``[loss, loss, weight]``, or ``None``."""
    if metric.labels is not None:
        return None
    yt = _labels(torch, inputs.args[0].detach())
    p = inputs.args[1].detach()
    if yt is None or p.ndim != 2 or not p.is_floating_point() or len(p) != len(yt) or p.shape[1] < 2:
        return None
    n, k = len(yt), p.shape[1]
    w, wstats = _weights(torch, inputs.sample_weight, n)
    if w is False:
        return None
    if not n:
        return np.zeros(3), 0, (), None
    p = p.to(torch.float64)
    stats = [
        (~torch.isfinite(p)).sum().to(torch.float64),
        yt.min().to(torch.float64),
        yt.max().to(torch.float64),
    ]
    if metric.input == "probability":
        stats += [p.min(), p.max(), (p.sum(dim=1) - 1.0).abs().max()]
    stats += wstats
    index = yt.clamp(0, k - 1)[:, None]
    if metric.input == "probability":
        eps = float(np.finfo(np.float64).eps)
        loss = -torch.log(p.gather(1, index)[:, 0].clamp(eps, 1 - eps))
    else:
        loss = torch.logsumexp(p, dim=1) - p.gather(1, index)[:, 0]
    total = loss.sum() if w is None else (w * loss).sum()
    weight = w.sum() if w is not None else torch.tensor(float(n), dtype=torch.float64, device=p.device)
    values = _host(torch.stack([*stats, total, weight]))
    if values[0] or values[1] < 0 or values[2] >= k:
        return None
    at = 3
    if metric.input == "probability":
        if values[3] < 0.0 or values[4] > 1.0 or values[5] > 1e-8 + 1e-5:
            return None
        at = 6
    if w is not None and not _weights_ok(values[at : at + 2]):
        return None
    loss_sum, weight_sum = float(values[-2]), float(values[-1])
    return np.array([loss_sum, loss_sum, weight_sum]), n, (), None


__all__ = ["PATHS", "confusion_batch", "device_path", "is_tensor", "logloss_batch", "off_host"]
