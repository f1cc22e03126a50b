"""Every pair of rows sorted by distance, and the rank-based indices computed from them.

The C-index and the Gamma index compare within-cluster pair distances with all pair distances
(the smallest and largest sums, the strictly closer between-cluster pairs): they need the
``N (N - 1) / 2`` pair distances sorted (:func:`sorted_pairs`, ``O(N^2)`` memory).
:func:`pair_index` evaluates one of them and its delete-a-group jackknife replicates.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..internal.distances import pairwise_distances

#: Distances computed per chunk (rows x columns x features) in the profile pass.
_CHUNK = 1 << 22


def condensed_pairs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices ``i < j`` and distances of every pair, in row-major upper-triangle order.

    Examples:
        >>> i, j, d = condensed_pairs(np.array([[0.0], [1.0], [3.0]]))
        >>> i.tolist(), j.tolist(), d.tolist()
        ([0, 0, 1], [1, 2, 2], [1.0, 3.0, 2.0])
    """
    m = len(x)
    p = m * (m - 1) // 2
    counts = np.arange(m - 1, 0, -1)  # row r meets the m - 1 - r rows after it
    ii = np.repeat(np.arange(m - 1, dtype=np.int32), counts)
    # within row r's run, j counts up from r + 1
    jj = np.arange(p, dtype=np.int32) - np.repeat(
        (np.cumsum(counts) - counts - np.arange(1, m)).astype(np.int32), counts
    )
    dd = np.empty(p)
    pos = 0
    step = max(1, _CHUNK // max(1, m * max(1, x.shape[1])))
    for s in range(0, m - 1, step):
        e = min(m - 1, s + step)
        dist = pairwise_distances(x[s:e], x, chunk=step)
        for r in range(s, e):  # one slice copy per row: no index arrays
            dd[pos : pos + m - 1 - r] = dist[r - s, r + 1 :]
            pos += m - 1 - r
    return ii, jj, dd


class SortedPairs(NamedTuple):
    """Every pair of distinct rows, sorted by distance: ``d``, multiplicity ``w_i w_j``, whether
    both rows are in the same cluster, and the jackknife groups of the two rows."""

    d: np.ndarray
    mult: np.ndarray
    same: np.ndarray
    g_i: np.ndarray
    g_j: np.ndarray


def sorted_pairs(x: np.ndarray, idx: np.ndarray, w: np.ndarray, groups: np.ndarray | None) -> SortedPairs:
    """All pairs with their multiplicities ``w_i w_j``, sorted by distance.

    Examples:
        >>> sp = sorted_pairs(np.array([[0.0], [1.0], [3.0]]), np.array([0, 0, 1]), np.ones(3), None)
        >>> sp.d.tolist(), sp.same.tolist()
        ([1.0, 2.0, 3.0], [True, False, False])
    """
    i, j, d = condensed_pairs(x)
    order = np.argsort(d)  # ties need no order: every use sums over them or compares strictly
    # what each pair carries is made in row-major order (near-sequential reads of w and idx),
    # then moved by one gather each
    mult, same = (w[i] * w[j])[order], (idx[i] == idx[j])[order]
    if groups is None:
        g_i = g_j = np.zeros(len(d), dtype=np.int16)
    else:
        g = groups.astype(np.int16)
        g_i, g_j = g[i][order], g[j][order]
    d = d[order]
    if len(d) > 1:  # distances equal up to rounding (1e-12 relative) are ties: one value
        start = np.empty(len(d), dtype=bool)
        start[0] = True
        start[1:] = d[1:] - d[:-1] > 1e-12 * d[1:]
        if not start.all():
            first = np.flatnonzero(start)
            d = np.repeat(d[first], np.diff(np.append(first, len(d))))
    return SortedPairs(d, mult, same, g_i, g_j)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` over all pairs without BLAS: a threaded BLAS dot of this length leaves its
    threads spinning (CPU time) long after the call, for a sum NumPy does as fast on one core."""
    return float(np.add.reduce(np.multiply(a, b)))


def _sum_smallest(d: np.ndarray, cum: np.ndarray, csum: np.ndarray, amount: float) -> float:
    """Sum of the ``amount`` smallest values of a weighted sorted multiset (fractional last item),
    from the cumulative masses ``cum`` and cumulative weighted values ``csum``."""
    if amount <= 0 or not d.size:
        return 0.0
    pos = int(np.searchsorted(cum, amount, side="left"))
    if pos >= len(d):
        return float(csum[-1])
    before_w = float(cum[pos - 1]) if pos else 0.0
    before_s = float(csum[pos - 1]) if pos else 0.0
    return before_s + (amount - before_w) * float(d[pos])


def _c_index_from(d: np.ndarray, mult: np.ndarray, same: np.ndarray, self_pairs: float) -> float:
    """C-index of sorted pairs (``mult`` may hold zeros for pairs left out); ``self_pairs`` the
    zero-distance pairs among the copies of a row (within-cluster pairs too)."""
    if not d.size:
        return float("nan")
    md = mult * d
    a = _dot(mult, same)
    s = _dot(md, same)
    cum, csum = np.cumsum(mult), np.cumsum(md)
    p, total = float(cum[-1]), float(csum[-1])
    n_w = a + self_pairs
    s_min = _sum_smallest(d, cum, csum, a)
    s_max = total - _sum_smallest(d, cum, csum, p - min(max(n_w, 0.0), p))
    span = s_max - s_min
    if not span > 1e-12 * abs(s_max) or not np.isfinite(span):
        return float("nan")
    return float(min(1.0, max(0.0, (s - s_min) / span)))


def pair_index(
    name: str,
    x: np.ndarray,
    idx: np.ndarray,
    w: np.ndarray,
    groups: np.ndarray | None = None,
    self_scale: float = 1.0,
) -> tuple[float, np.ndarray]:
    """A sorted-pairs index (``"c"`` or ``"gamma"``) and its delete-a-group jackknife replicates.

    ``self_scale`` multiplies the ``w (w - 1) / 2`` zero-distance pairs among the copies of a
    row (1 on the full data; the sampling fraction on a sample, where pairs of distinct rows are
    under-represented by that factor relative to a row's own pairs).

    Examples:
        >>> x, idx = np.array([[0.0], [1.0], [5.0], [7.0]]), np.array([0, 0, 1, 1])
        >>> pair_index("c", x, idx, np.ones(4))[0], pair_index("gamma", x, idx, np.ones(4))[0]
        (0.0, 0.0)
    """
    sp = sorted_pairs(x, idx, w, groups)
    self_w = w * (w - 1.0) / 2.0
    n_groups = 1 if groups is None else int(groups.max()) + 1
    g = np.zeros(len(x), dtype=np.int64) if groups is None else groups
    same_f = sp.same.astype(np.float64)
    if name == "gamma":
        d_w, m_w, gw_i, gw_j = sp.d[sp.same], sp.mult[sp.same], sp.g_i[sp.same], sp.g_j[sp.same]
        d_b, m_b, gb_i, gb_j = sp.d[~sp.same], sp.mult[~sp.same], sp.g_i[~sp.same], sp.g_j[~sp.same]
        pos = np.searchsorted(d_b, d_w, side="left")  # between pairs strictly closer
        del d_w

    def value(drop: int | None) -> float:
        rows = slice(None) if drop is None else g != drop
        if len(np.unique(idx[rows])) < 2:
            return float("nan")
        self_pairs = self_scale * float(self_w[rows].sum())
        if name == "c":
            mult = sp.mult if drop is None else sp.mult * ((sp.g_i != drop) & (sp.g_j != drop))
            return _c_index_from(sp.d, mult, same_f, self_pairs)
        mw = m_w if drop is None else m_w * ((gw_i != drop) & (gw_j != drop))
        mb = m_b if drop is None else m_b * ((gb_i != drop) & (gb_j != drop))
        cum = np.concatenate([[0.0], np.cumsum(mb)])
        n_w, n_b = float(mw.sum()) + self_pairs, float(mb.sum())
        if n_w <= 0 or n_b <= 0:
            return float("nan")
        return _dot(mw, cum[pos]) / (n_w * n_b)

    full = value(None)
    if groups is None:
        return full, np.empty(0)
    return full, np.array([value(gr) for gr in range(n_groups)])
