"""Torch tensors: every dtype on the host, and the device path (reduce on the device, move statistics).

**Dtypes.** A tensor of any torch float dtype (``float64``, ``float32``, ``float16``,
``bfloat16``, the ``float8`` kinds) or integer dtype (signed and unsigned, ``bool``) is accepted.
Floats NumPy lacks (``bfloat16``, ``float8``) are widened to ``float32``, which holds each of
their values exactly; every score, probability and value is then computed in float64, as for
NumPy input (:func:`streammetrics._core.validation.as_float`). Counts are int64.

**Device path.** A tensor that lives off the host (``tensor.device.type != "cpu"``: CUDA, MPS,
XLA) is not copied whole to the host. A family that can reduces the batch on the tensor's
device to the statistics its state adds up (its ``device.py``, built on the helpers here), and
only those cross to the host:

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

from .validation import WEIGHT_FLOOR, WEIGHT_LIMIT

#: How many batches took each path, by ``"<family> device"`` / ``"<family> host"`` (for tests
#: and for users who want to check that their GPU batches stay on the GPU).
PATHS: Counter[str] = Counter()

_FORCE = False
_DEVICE_KEY = ("device",)
_MISSING = object()
#: Label ranges up to this many values are counted with one ``bincount`` of pair codes; wider
#: ranges go through ``torch.unique``.
DENSE_RANGE = 4096


@contextlib.contextmanager
def device_path(force: bool = True) -> Iterator[None]:
    """Within the block, CPU tensors take the device path too (``force=True``).

    The device path runs the same torch code on any device, so tests on a machine without an
    accelerator exercise it with CPU tensors::

        with tensors.device_path():
            sm.Accuracy().update(torch.tensor([0, 1, 1]), torch.tensor([0, 1, 0]))
        tensors.PATHS["confusion device"]    # one more batch reduced on the "device"
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
    args = inputs.args
    if len(args) > 1 and type(args[1]) is np.ndarray:  # the NumPy hot path: one type test
        return None
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


def to_host(stats: Any) -> np.ndarray:
    """One small tensor of statistics to the host (the only transfer besides the reduced batch)."""
    return stats.detach().to("cpu", non_blocking=False).numpy()


def labels_on_device(torch: Any, t: Any) -> Any:
    """Integer labels of a 1-D tensor as int64 on its device, or ``None`` (the host path decides)."""
    if t.ndim != 1:
        return None
    if t.dtype == torch.bool or not (t.is_floating_point() or t.is_complex()):
        if t.dtype == torch.uint64:  # may not fit int64: the host path checks
            return None
        return t.to(torch.int64)
    return None  # float labels: the host path checks that they are whole numbers


def weights_on_device(torch: Any, w: Any, n: int) -> tuple[Any, list[Any]]:
    """Weights as float64 on the device and the statistics that check them."""
    if w is None:
        return None, []
    if w.ndim != 1 or len(w) != n or w.is_complex():
        return False, []
    w = w.detach().to(torch.float64)
    if not n:
        return w, []
    return w, [(~torch.isfinite(w)).sum().to(torch.float64), w.min(), w.max()]


#: How many statistics :func:`weights_on_device` gives for a non-empty batch.
WEIGHT_STATS = 3


def weights_ok(values: np.ndarray, n: int) -> bool:
    """Whether the weights' statistics pass the host's checks for certain (finite, non-negative,
    within :data:`~streammetrics._core.validation.WEIGHT_LIMIT` and above its floor); when not,
    the host path checks them (and names what is wrong)."""
    bad, low, high = values
    return bad == 0 and low >= 0 and (high == 0 or WEIGHT_FLOOR <= high <= WEIGHT_LIMIT / n)


__all__ = [
    "PATHS",
    "device_path",
    "is_tensor",
    "labels_on_device",
    "off_host",
    "to_host",
    "weights_on_device",
    "weights_ok",
]
