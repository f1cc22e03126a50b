"""Score distributions of real shapes for the ranking accuracy table (shared by tests and benchmark)."""

from __future__ import annotations

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def distributions(n: int, seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (y_true, probability) for n samples."""
    rng = np.random.default_rng(seed)
    out = {}
    y = rng.integers(0, 2, n)
    out["balanced, separable"] = y, _sigmoid(rng.normal(size=n) + 4.0 * (y - 0.5))
    y = rng.integers(0, 2, n)
    out["overlapping"] = y, _sigmoid(rng.normal(size=n) + 1.0 * y)
    y = rng.integers(0, 2, n)
    out["saturating at 0 and 1"] = y, _sigmoid(rng.normal(size=n) * 8.0 + 6.0 * (y - 0.5))
    y = (rng.random(n) < 0.01).astype(np.int64)
    out["1% positives"] = y, _sigmoid(rng.normal(size=n) * 1.5 - 5.0 + 2.5 * y)
    y = (rng.random(n) < 0.001).astype(np.int64)
    out["0.1% positives"] = y, _sigmoid(rng.normal(size=n) * 1.5 - 7.0 + 3.0 * y)
    y = rng.integers(0, 2, n)
    out["tied (quantized 0.01)"] = y, np.round(_sigmoid(rng.normal(size=n) + 1.0 * y), 2)
    return out
