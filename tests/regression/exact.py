"""Exact references for the accuracy table, and the shard experiment shared with the benchmark.

Every float is an integer times a power of two, so after scaling both arrays to one common
exponent the sums of products are exact Python integers. R², explained variance and Pearson's r
are ratios of such sums (the scale cancels); each is rounded once, at the end, from a
:class:`fractions.Fraction`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np


def _integers(*arrays: np.ndarray) -> list[list[int]]:
    """Exact integer mantissas of float arrays, all scaled by one common power of two."""
    parts = []
    for a in arrays:
        mant, exp = np.frexp(np.asarray(a, dtype=np.float64))
        parts.append(((mant * 2.0**53).astype(np.int64), exp.astype(np.int64) - 53))
    low = min(int(e.min()) for _, e in parts)
    return [
        [int(m) << int(e - low) for m, e in zip(mant.tolist(), exp.tolist(), strict=True)]
        for mant, exp in parts
    ]


def exact_scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """R², explained variance and Pearson's r of 1-D data, computed exactly then rounded once."""
    t, p = _integers(y_true, y_pred)
    n = len(t)
    r = [a - b for a, b in zip(t, p, strict=True)]
    st, sp, sr = sum(t), sum(p), sum(r)
    ss_t = n * sum(a * a for a in t) - st * st  # n * sum (t - mean t)^2
    ss_p = n * sum(b * b for b in p) - sp * sp
    ss_r_centered = n * sum(c * c for c in r) - sr * sr
    ss_res = n * sum(c * c for c in r)  # n * sum (t - p)^2
    cross = n * sum(a * b for a, b in zip(t, p, strict=True)) - st * sp
    out = {
        "R2": float(1 - Fraction(ss_res, ss_t)),
        "ExplainedVariance": float(1 - Fraction(ss_r_centered, ss_t)),
    }
    out["PearsonR"] = math.copysign(math.sqrt(Fraction(cross * cross, ss_t * ss_p)), cross)
    return out


def make_data(offset: float, dtype: type, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """``y = offset + s N(0, 1)``, ``ŷ = y + 0.1 s + 0.5 s N(0, 1)``, cast to ``dtype``.

    ``s = 1`` in float64. In float32 a unit spread would vanish at large offsets (the float32
    spacing at 1e8 is 8, at 1e12 65536), so there ``s = max(1, 64 * spacing(offset))``: 64 levels
    per standard deviation.
    """
    rng = np.random.default_rng(seed)
    s = 1.0
    if dtype == np.float32:
        s = max(1.0, 64.0 * float(np.spacing(np.float32(offset))))
    y = offset + s * rng.standard_normal(n)
    yp = y + 0.1 * s + 0.5 * s * rng.standard_normal(n)
    return y.astype(dtype), yp.astype(dtype), s


def shard_bounds(n: int, n_shards: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Uneven contiguous shards: random cut points (every shard has at least one row)."""
    cuts = np.sort(rng.choice(np.arange(1, n), n_shards - 1, replace=False))
    edges = [0, *cuts.tolist(), n]
    return list(itertools.pairwise(edges))


def merged_in_random_order(make, y_true, y_pred, n_shards: int, rng: np.random.Generator):
    """Feed each shard (in a few uneven batches) to its own accumulator; merge them randomly."""
    accs = []
    for lo, hi in shard_bounds(len(y_true), n_shards, rng):
        m = make()
        inner = np.sort(rng.integers(lo, hi + 1, 2))
        for a, b in ((lo, inner[0]), (inner[0], inner[1]), (inner[1], hi)):
            m.update(y_true[a:b], y_pred[a:b])
        accs.append(m)
    while len(accs) > 1:  # a random merge tree: pick two, merge, put back
        i, j = sorted(rng.choice(len(accs), 2, replace=False).tolist())
        b = accs.pop(j)
        a = accs.pop(i)
        accs.append(a.merge(b) if rng.random() < 0.5 else b.merge(a))
    return accs[0]
