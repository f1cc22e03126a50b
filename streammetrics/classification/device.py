"""The confusion family's device path: a batch of tensors reduced where it lives to its distinct
label pairs (see :mod:`streammetrics._core.tensors`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import tensors as t


def confusion_batch(metric: Any, inputs: Any, torch: Any) -> tuple[Any, ...] | None:
    """A confusion metric's batch reduced on the device, or ``None`` (the host path takes it).

    Returns ``("multiclass", true labels, predicted labels, weight sums or None, row counts)``,
    one entry per distinct pair of the batch.
    """
    yt_raw, yp_raw = inputs.args[0], inputs.args[1]
    yt = t.labels_on_device(torch, yt_raw.detach())
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
        yp = t.labels_on_device(torch, yp_raw)
        if yp is None:
            return None
    else:
        return None
    if len(yp) != n:
        return None
    if kind != "labels" and n:
        stats += [(~torch.isfinite(scores)).sum().to(torch.float64), scores.min(), scores.max()]
    w, wstats = t.weights_on_device(torch, inputs.sample_weight, n)
    if w is False:
        return None
    if n:
        low = torch.minimum(yt.min(), yp.min())
        high = torch.maximum(yt.max(), yp.max())
        stats += [low.to(torch.float64), high.to(torch.float64)]
    stats += wstats
    values = t.to_host(torch.stack(stats)) if stats else np.zeros(0)
    at = 0
    if kind != "labels" and n:
        bad, smin, smax = values[:3]
        if bad or (metric.input == "probability" and (smin < 0.0 or smax > 1.0)):
            return None
        at = 3
    if w is not None and n and not t.weights_ok(values[-t.WEIGHT_STATS :], n):
        return None
    if n:
        low_v, high_v = int(values[at]), int(values[at + 1])
        span = high_v - low_v + 1
        if span <= t.DENSE_RANGE:
            code = (yt - low_v) * span + (yp - low_v)
            counts = torch.bincount(code, minlength=span * span)
            present = torch.nonzero(counts)[:, 0]
            sums = torch.bincount(code, weights=w, minlength=span * span)[present] if w is not None else None
            moved = [present, counts[present]] + ([sums] if sums is not None else [])
            host = [t.to_host(part) for part in moved]
            codes, reps = host[0], host[1]
            pairs_t, pairs_p = codes // span + low_v, codes % span + low_v
        else:
            pairs, inverse, counts = torch.unique(
                torch.stack([yt, yp], dim=1), dim=0, return_inverse=True, return_counts=True
            )
            sums = None
            if w is not None:
                sums = torch.zeros(len(pairs), dtype=torch.float64, device=w.device).index_add_(0, inverse, w)
            pairs_h, reps = t.to_host(pairs), t.to_host(counts)
            pairs_t, pairs_p = pairs_h[:, 0], pairs_h[:, 1]
            host = [None, None] + ([t.to_host(sums)] if sums is not None else [])
        weight_sums = host[2] if w is not None else None
    else:
        pairs_t = pairs_p = np.zeros(0, np.int64)
        reps = np.zeros(0, np.int64)
        weight_sums = np.zeros(0) if w is not None else None
    return kind, pairs_t.astype(np.int64), pairs_p.astype(np.int64), weight_sums, reps.astype(np.int64)
