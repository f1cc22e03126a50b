"""Bootstrap replicates of a score sketch, kept on the bins of the full data's sketch.

A replicate is the metric's state under Poisson row weights. For the score sketch (ROC AUC,
average precision, the curves and operating points) a replicate holds the same keys as the full
data, only with other weights, so the replicates need no sketch of their own: one tensor of
counts, ``(replicates, bins, groups)``, laid out on the full data's bins (every column's bins one
after the other), holds them all. A batch adds its Poisson-weighted rows to the tensor by one
reduction per column; when the full data's sketch moves to coarser bins (its budget) or grows new
ones, the tensor follows it (bins nest: a bin's id at a coarser resolution is its id shifted
right); a merge lays both tensors on the merged sketch's bins and adds them.

A replicate's value is the metric on its own counts over those bins. Within a bin, the
replicate's keys are those of the full data: the bin's extremes (an envelope, so every bound
stays guaranteed) and its mean within-bin coordinate are the full data's. While the sketch is
exact (every bin one distinct score) a replicate is therefore exactly the metric under its
weights; once it compresses, a replicate's value is the sketch's estimate on these bins, within
the bounds the same bins give.

Memory: ``replicates x bins x groups`` counts (8 bytes each), against one sketch per replicate
for the generic engine.
"""

from __future__ import annotations

import copy

import numpy as np

from .._core.labels import run_starts
from ..ranking.columns import Column, cell_means
from ..ranking.keys import MANTISSA_BITS
from ..ranking.sketch import ScoreSketch

_U = np.uint64
#: (replicate, row) pairs reduced at a time (bounds the gathered weights at 16 MB of float64).
_CHUNK = 1 << 21


def n_bins(cols: tuple[Column, ...]) -> int:
    return sum(len(c.ids) for c in cols)


def _bins_at(ids: np.ndarray, shift: int) -> np.ndarray:
    return ids >> _U(shift) if shift < 64 else np.zeros_like(ids)


def realigned(
    tensor: np.ndarray, old: tuple[Column, ...], new: tuple[Column, ...], groups: int, flip: bool
) -> np.ndarray:
    """``tensor`` (laid out on the bins of the columns ``old``) laid out on the columns ``new``:
    the same data or more, at the same resolution or coarser; ``flip`` swaps the two groups (the
    sketch swapped them: see :mod:`streammetrics.ranking.positive`)."""
    r = tensor.shape[0]
    if flip:
        tensor = tensor[:, :, ::-1]
    if not old or not n_bins(old):
        return np.zeros((r, n_bins(new), groups), tensor.dtype)
    if all(o.res == c.res and len(o.ids) == len(c.ids) for o, c in zip(old, new, strict=True)):
        return np.ascontiguousarray(tensor)  # the same bins (the new ones hold the old ones)
    positions, start = [], 0
    for o, c in zip(old, new, strict=True):
        positions.append(start + np.searchsorted(c.ids, _bins_at(o.ids, o.res - c.res)))
        start += len(c.ids)
    pos = np.concatenate(positions)
    out = np.zeros((r, start, groups), tensor.dtype)
    first = run_starts(pos)  # old bins that fell into one coarser bin are consecutive
    if first.all():  # (cells of a 2-D view: much faster than bins of the 3-D tensor)
        cells = (pos[:, None] * groups + np.arange(groups)).ravel()
        out.reshape(r, -1)[:, cells] = tensor.reshape(r, -1)
    else:
        out[:, pos[first]] = np.add.reduceat(tensor, np.flatnonzero(first), axis=1)
    return out


def batch_counts(
    cols: tuple[Column, ...],
    keys: np.ndarray,
    groups: np.ndarray,
    draws: np.ndarray,
    weights: np.ndarray | None,
) -> np.ndarray:
    """The ``(replicates, bins, groups)`` counts of one batch: row ``i`` weighs ``draws[r, i]``
    (times ``weights[i]``) in replicate ``r``, in every column, at the bin of its key.

    ``keys`` and ``groups`` are ``(rows,)`` or ``(rows, columns)`` as the sketch takes them; every
    key's bin is one of ``cols``' (the columns already hold the batch)."""
    n = len(keys)
    k2 = keys.reshape(n, -1)
    g2 = np.broadcast_to(groups.reshape(n, -1) if groups.ndim else groups, k2.shape)
    n_groups = cols[0].counts.shape[1]
    r = draws.shape[0]
    if weights is not None:
        keep = np.flatnonzero(weights > 0)
        k2, g2, weights, draws = k2[keep], g2[keep], weights[keep], draws[:, keep]
    cells, start = [], 0
    for c, col in enumerate(cols):
        pos = np.searchsorted(col.ids, _bins_at(k2[:, c], MANTISSA_BITS - col.res))
        pos += start
        pos *= n_groups
        pos += g2[:, c]
        cells.append(pos)
        start += len(col.ids)
    cell = np.concatenate(cells) if len(cells) > 1 else cells[0]
    size = start * n_groups
    out = np.zeros((r, size), np.int64 if weights is None else np.float64)
    if not len(cell):
        return out.reshape(r, start, n_groups)
    # rows sorted by cell: the weights gathered in that order (np.take along an axis is much
    # faster than fancy indexing), then summed by runs of one cell
    order = np.argsort(cell, kind="stable")
    sorted_cells = cell[order]
    first = np.flatnonzero(run_starts(sorted_cells))
    occupied = sorted_cells[first]
    row_of = order % len(k2) if len(cells) > 1 else order
    step = max(1, _CHUNK // max(len(row_of), 1))
    for lo in range(0, r, step):
        block = np.take(draws[lo : lo + step], row_of, axis=1)
        if weights is None:  # integers: run sums as differences of one cumulative sum (exact)
            total = np.cumsum(block, axis=1, dtype=np.int32 if len(row_of) < 1 << 26 else np.int64)
            ends = np.take(total, np.append(first[1:], len(row_of)) - 1, axis=1).astype(np.int64)
            ends[:, 1:] -= ends[:, :-1].copy()
            out[lo : lo + step, occupied] = ends
        else:
            block = block * np.take(weights, row_of)
            out[lo : lo + step, occupied] = np.add.reduceat(block, first, axis=1)
    return out.reshape(r, start, n_groups)


def replicate_sketches(base: ScoreSketch, tensor: np.ndarray) -> list[ScoreSketch]:
    """One sketch per replicate: the full data's bins and extremes, the replicate's counts, and
    within-bin sums at the full data's mean within-bin coordinate (see the module docstring)."""
    cols = base.cols
    means = [cell_means(col) for col in cols]
    out = []
    for counts in tensor:
        rep_cols, start = [], 0
        for col, mean in zip(cols, means, strict=True):
            c = counts[start : start + len(col.ids)]  # (integer draws stay integers: AP's unit)
            start += len(col.ids)
            rep_cols.append(Column(col.res, True, col.ids, c, c * mean, col.kmin, col.kmax))
        state = copy.copy(base)
        state._commit(_cols=tuple(rep_cols), _pending=(), _npend=0)
        out.append(state)
    return out


def orphan_cells(base: ScoreSketch, tensor: np.ndarray) -> int:
    """How many (bin, group) cells hold replicate weight where the full data holds none (a
    consistent state has none)."""
    if not tensor.size:
        return 0
    held = np.concatenate([c.counts for c in base.cols]) > 0
    return int(np.count_nonzero((tensor > 0).any(axis=0) & ~held))
