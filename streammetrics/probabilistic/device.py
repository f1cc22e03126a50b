"""The log loss's device path: a batch of tensors reduced where it lives to its table (see
:mod:`streammetrics._core.tensors`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import tensors as t


def logloss_batch(metric: Any, inputs: Any, torch: Any) -> tuple[Any, ...] | None:
    """:class:`~streammetrics.LogLoss`'s batch (2-D class probabilities or logits, integer classes)
    reduced on the device to its table ``[loss, loss, weight]``, or ``None``."""
    if metric.labels is not None:
        return None
    yt = t.labels_on_device(torch, inputs.args[0].detach())
    p = inputs.args[1].detach()
    if yt is None or p.ndim != 2 or not p.is_floating_point() or len(p) != len(yt) or p.shape[1] < 2:
        return None
    n, k = len(yt), p.shape[1]
    w, wstats = t.weights_on_device(torch, inputs.sample_weight, n)
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
    values = t.to_host(torch.stack([*stats, total, weight]))
    if values[0] or values[1] < 0 or values[2] >= k:
        return None
    at = 3
    if metric.input == "probability":
        if values[3] < 0.0 or values[4] > 1.0 or values[5] > 1e-8 + 1e-5:
            return None
        at = 6
    if w is not None and not t.weights_ok(values[at : at + t.WEIGHT_STATS], n):
        return None
    loss_sum, weight_sum = float(values[-2]), float(values[-1])
    return np.array([loss_sum, loss_sum, weight_sum]), n, (), None
