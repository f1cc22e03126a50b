"""Weighted column sums for many replicates of one batch at once (the bootstrap's replicates).

A replicate of a metric is its state updated with the batch's rows under weights
``counts[r, i] * w_i`` (``counts``: the replicate's Poisson draws, ``w``: the batch's own weights).
Where a state is a weighted sum over rows of per-row values ``f``, every replicate's sums are one
matrix product ``(counts * w) @ f``, taken here in chunks of rows so that the float64 weights
stay cache-sized.

Examples:
    >>> import numpy as np
    >>> counts = np.array([[1, 0, 2], [0, 3, 1]], dtype=np.uint8)
    >>> sums, totals = replicate_sums(counts, None, np.array([[1.0], [2.0], [4.0]]))
    >>> sums.tolist(), totals.tolist()
    ([[9.0], [10.0]], [3.0, 4.0])
"""

from __future__ import annotations

import numpy as np

#: (replicate, row) weights per chunk: 1 MB of float64.
CHUNK = 1 << 17


def replicate_sums(
    counts: np.ndarray, weights: np.ndarray | None, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(counts * weights) @ values`` (``(R, k)``) and each replicate's total weight (``(R,)``),
    for ``counts`` ``(R, n)``, ``weights`` ``None`` or ``(n,)`` and ``values`` ``(n, k)``."""
    r, n = counts.shape
    sums, totals = np.zeros((r, values.shape[1])), np.zeros(r)
    step = max(1, CHUNK // max(r, 1))
    for lo in range(0, n, step):
        w = counts[:, lo : lo + step].astype(np.float64)
        if weights is not None:
            w *= weights[lo : lo + step]
        sums += w @ values[lo : lo + step]
        totals += w.sum(axis=1)
    return sums, totals
