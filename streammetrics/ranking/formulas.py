"""Pure formulas from a :class:`~streammetrics.ranking.sketch.BinaryHistogram` to ROC/PR values.

Counts at bin edges are exact, so everything between bins is exact; only the order of positives
and negatives *inside* a bin is unknown. Each formula returns an estimate and guaranteed bounds:

* inside a bin, the share of (positive, negative) pairs ranked correctly lies in [0, 1]
  (all negatives first vs all positives first), narrowed by the per-class min/max keys; a bin
  holding one distinct score is exact (ties count 1/2, as scikit-learn's trapezoid);
* the estimate models each class as a linear density inside the bin, fitted by its mean
  within-bin coordinate: then P(s+ > s-) = 1/2 + mean+ - mean- (exact for linear densities).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .columns import Column, cell_means
from .keys import MANTISSA_BITS as EXACT_RESOLUTION
from .keys import offset_bits, values_of
from .sketch import BinaryHistogram

# Gauss-Legendre nodes and weights on [0, 1]
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)
_GL_X = (_GL_X + 1.0) / 2.0
_GL_W = _GL_W / 2.0


class Estimate(NamedTuple):
    """A value with guaranteed bounds: ``low <= exact <= high`` (``value`` is the estimate)."""

    value: float
    low: float
    high: float


#: Bounds are widened by this much so that floating-point rounding never puts the exact value
#: (computed another way, e.g. scikit-learn's trapezoid) outside them.
ROUNDING_SLACK = 1e-12


def _bounded(value: float, low: float, high: float, top: float = 1.0) -> Estimate:
    low = max(float(low) - ROUNDING_SLACK, 0.0)
    high = min(float(high) + ROUNDING_SLACK, top)
    return Estimate(float(min(max(value, low), high)), low, high)


class ROCCurveResult(NamedTuple):
    """``fpr``, ``tpr`` and ``thresholds`` as returned by :func:`sklearn.metrics.roc_curve`."""

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


class PRCurveResult(NamedTuple):
    """``precision``, ``recall``, ``thresholds`` as :func:`sklearn.metrics.precision_recall_curve`."""

    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray


class ConfusionAtThreshold(NamedTuple):
    """Weighted confusion counts when predicting positive for ``score >= threshold``."""

    threshold: float
    tp: float
    fp: float
    fn: float
    tn: float
    #: whether the counts are exact (the threshold falls on a bin edge or outside every bin)
    exact: bool


def _desc(h: BinaryHistogram) -> BinaryHistogram:
    return BinaryHistogram(*(a[::-1] if isinstance(a, np.ndarray) else a for a in h))


def _means(h: BinaryHistogram) -> tuple[np.ndarray, np.ndarray]:
    """Mean within-bin coordinate in [0, 1] of positives and negatives (1/2 when unknown)."""
    if not h.offset_bits:
        half = np.full(len(h.ids), 0.5)
        return half, half
    scale = float(1 << h.offset_bits)
    with np.errstate(invalid="ignore", divide="ignore"):
        mp = np.where(h.pos > 0, (h.pos_sum / np.where(h.pos > 0, h.pos, 1.0) + 0.5) / scale, 0.5)
        mn = np.where(h.neg > 0, (h.neg_sum / np.where(h.neg > 0, h.neg, 1.0) + 0.5) / scale, 0.5)
    return mp, mn


def _single(h: BinaryHistogram) -> np.ndarray:
    """Per bin: whether all its samples share one score (then it is exact)."""
    return h.kmin == h.kmax


def pair_fractions(h: BinaryHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin: estimated, lowest and highest share of within-bin pairs ranked correctly."""
    single = _single(h)
    lo = np.where(single, 0.5, 0.0)
    hi = np.where(single, 0.5, 1.0)
    mp, mn = _means(h)
    est = np.clip(0.5 + mp - mn, lo, hi)
    return est, lo, hi


def roc_auc(h: BinaryHistogram) -> Estimate:
    """AUC = P(score+ > score-) + P(tie)/2 with bounds; NaN when a class is missing.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.ranking.sketch import ScoreSketch
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(resolution=52)
        >>> s.add(keys_of(np.array([0.1, 0.4, 0.35, 0.8]), "probability"), np.array([0, 0, 1, 1]), None, (1, 2))
        >>> roc_auc(s.binary_view(0, [1], [0]))
        Estimate(value=0.75, low=0.75, high=0.75)
    """
    p_tot, n_tot = h.pos.sum(), h.neg.sum()
    if p_tot <= 0 or n_tot <= 0:
        return Estimate(np.nan, np.nan, np.nan)
    below = np.cumsum(h.neg) - h.neg
    cross = float(np.dot(h.pos, below))
    pn = h.pos * h.neg
    est, lo, hi = pair_fractions(h)
    denom = p_tot * n_tot
    value = (cross + float(np.dot(pn, est))) / denom
    low = (cross + float(np.dot(pn, lo))) / denom
    high = (cross + float(np.dot(pn, hi))) / denom
    return _bounded(value, low, high)


def roc_auc_replicates(col: Column, counts: np.ndarray) -> np.ndarray:
    """The ROC AUC of many replicates of one column at once: ``counts`` ``(replicates, bins, 2)``
    are each replicate's (negative, positive) weights on ``col``'s bins, whose extremes and mean
    within-bin coordinates every replicate shares (see :mod:`streammetrics.uncertainty.sketch_replicates`).

    Each value is what :func:`roc_auc` gives on the replicate's refined view: per bin, the share
    of its (positive, negative) pairs ranked correctly is 1/2 for one distinct score, 0 or 1 when
    each class holds one distinct score, else the linear-density estimate of :func:`pair_fractions`.
    NaN where a replicate lacks a class.

    Examples:
        >>> from streammetrics.ranking.sketch import ScoreSketch
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(resolution=52)
        >>> s.add(keys_of(np.array([0.1, 0.4, 0.35, 0.8]), "probability"), np.array([0, 0, 1, 1]), None, (1, 2))
        >>> col = s.cols[0]
        >>> roc_auc_replicates(col, np.stack([col.counts, 2 * col.counts])).tolist()
        [0.75, 0.75]
    """
    neg, pos = _replicate_sides(counts)
    p_tot, n_tot = pos.sum(axis=1), neg.sum(axis=1)
    below = np.cumsum(neg, axis=1)
    below -= neg
    cross = np.einsum("rb,rb->r", pos, below)
    tie = np.einsum("rb,rb,b->r", pos, neg, _replicate_pair_fractions(col))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (cross + tie) / (p_tot * n_tot)
    return np.where((p_tot > 0) & (n_tot > 0), value, np.nan)


def average_precision_replicates(col: Column, counts: np.ndarray, unit: float) -> np.ndarray:
    """The average precision of many replicates of one column at once (``counts`` as in
    :func:`roc_auc_replicates`): each value is what :func:`average_precision` gives on the
    replicate's refined view, the bins that view splits into exact scores included.

    Examples:
        >>> from streammetrics.ranking.sketch import ScoreSketch
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(resolution=52)
        >>> s.add(keys_of(np.array([0.1, 0.4, 0.35, 0.8]), "probability"), np.array([0, 0, 1, 1]), None, (1, 2))
        >>> col = s.cols[0]
        >>> np.round(average_precision_replicates(col, np.stack([col.counts, 2 * col.counts]), 1.0), 6).tolist()
        [0.833333, 0.833333]
    """
    neg, pos = _replicate_sides(counts)
    r, b = pos.shape
    p_tot = pos.sum(axis=1)
    # weights above each bin (bins in increasing score order: "above" is to the right)
    a = np.cumsum(pos[:, ::-1], axis=1)[:, ::-1] - pos
    fp0 = np.cumsum(neg[:, ::-1], axis=1)[:, ::-1] - neg
    kmin, kmax = col.kmin, col.kmax
    one_key = kmin.min(axis=1) == kmax.max(axis=1)
    single_g = kmin == kmax
    # the view splits a bin whose every group the replicate holds has one distinct score
    split = ((counts == 0) | single_g[None, :, :]).all(axis=2) & ~one_key[None, :]
    if col.res >= EXACT_RESOLUTION:
        split[:] = False
    has = pos > 0
    est = np.zeros((r, b))
    # split bins: the positives are one exact score, after the negatives only if those score higher
    s_rows, s_bins = np.nonzero(split & has)
    if len(s_rows):
        p_s = pos[s_rows, s_bins]
        a_s = a[s_rows, s_bins]
        neg_first = kmin[s_bins, 0] > kmin[s_bins, 1]
        f_s = fp0[s_rows, s_bins] + np.where(neg_first, neg[s_rows, s_bins], 0.0)
        est[s_rows, s_bins] = p_s * (a_s + p_s) / (a_s + f_s + p_s)
    rows, bins = np.nonzero(~split & has)
    if len(rows):
        bits = offset_bits(col.res)
        p_e, n_e = pos[rows, bins], neg[rows, bins]
        if bits:
            scale = float(1 << bits)
            mean = cell_means(col)
            with np.errstate(invalid="ignore", divide="ignore"):
                # as the replicate's view computes them: its sums over its counts
                mp = np.where(p_e > 0, (p_e * mean[bins, 1] / np.where(p_e > 0, p_e, 1.0) + 0.5) / scale, 0.5)
                mn = np.where(n_e > 0, (n_e * mean[bins, 0] / np.where(n_e > 0, n_e, 1.0) + 0.5) / scale, 0.5)
        else:
            mp = mn = np.full(len(rows), 0.5)
        a_e, f_e, single_e = a[rows, bins], fp0[rows, bins], one_key[bins]
        for lo in range(0, len(rows), _CHUNK):  # (bins x nodes temporaries kept cache-sized)
            part = slice(lo, lo + _CHUNK)
            terms, _, _ = _ap_terms(
                p_e[part], n_e[part], a_e[part], f_e[part], single_e[part], mp[part], mn[part], unit
            )
            est[rows[part], bins[part]] = terms
    with np.errstate(invalid="ignore", divide="ignore"):
        value = est.sum(axis=1) / p_tot
    return np.where(p_tot > 0, value, np.nan)


def _replicate_sides(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (negative, positive) float64 weights ``(replicates, bins)`` of a two-group count tensor."""
    return counts[:, :, 0].astype(np.float64), counts[:, :, 1].astype(np.float64)


def _replicate_pair_fractions(col: Column) -> np.ndarray:
    """Per bin of ``col``, the estimated share of within-bin pairs ranked correctly that every
    replicate of it shares (see :func:`roc_auc_replicates`)."""
    kmin, kmax, counts = col.kmin, col.kmax, col.counts
    one_key = kmin.min(axis=1) == kmax.max(axis=1)
    held = counts > 0
    single = held & (kmin == kmax)
    # each class one distinct score (a bin the refined view splits): its pairs are all ordered
    known = (single | ~held).all(axis=1) & ~one_key
    bits = offset_bits(col.res)
    if bits:
        mean = np.where(held, (cell_means(col) + 0.5) / float(1 << bits), 0.5)
        est = np.clip(0.5 + mean[:, 1] - mean[:, 0], 0.0, 1.0)
    else:
        est = np.full(len(col.ids), 0.5)
    est = np.where(known, (kmin[:, 1] > kmin[:, 0]).astype(np.float64), est)
    return np.where(one_key, 0.5, est)


def _roc_points(h: BinaryHistogram) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative (fps, tps) at bin edges, descending scores, starting at (0, 0)."""
    d = _desc(h)
    return np.concatenate([[0.0], np.cumsum(d.neg)]), np.concatenate([[0.0], np.cumsum(d.pos)])


def partial_roc_auc(h: BinaryHistogram, max_fpr: float) -> Estimate:
    """McClish-standardized partial AUC over FPR in [0, max_fpr], as scikit-learn's ``max_fpr``."""
    p_tot, n_tot = h.pos.sum(), h.neg.sum()
    if p_tot <= 0 or n_tot <= 0:
        return Estimate(np.nan, np.nan, np.nan)
    d = _desc(h)
    fps, tps = _roc_points(h)
    f, t = fps / n_tot, tps / p_tot
    est, lo, hi = pair_fractions(d)
    excess = d.pos * d.neg / (p_tot * n_tot)
    seg = (f[1:] - f[:-1]) * t[:-1]
    full = f[1:] <= max_fpr
    base = float(np.sum((seg + excess * est)[full]))
    base_lo = float(np.sum((seg + excess * lo)[full]))
    base_hi = float(np.sum((seg + excess * hi)[full]))
    cross = np.flatnonzero(~full)
    if cross.size:
        b = cross[0]
        f0, f1, t0, t1 = f[b], f[b + 1], t[b], t[b + 1]
        width = max_fpr - f0
        phi = width / (f1 - f0)
        base += width * t0 + phi * phi * excess[b] * est[b]
        e_lo, e_hi = excess[b] * lo[b], excess[b] * hi[b]
        base_lo += width * t0 + max(0.0, e_lo - (f1 - max_fpr) * (t1 - t0))
        base_hi += width * t0 + min(width * (t1 - t0), e_hi)
    return _bounded(*(mcclish(a, max_fpr) for a in (base, base_lo, base_hi)))


def mcclish(area: Any, max_fpr: float) -> Any:
    """McClish's standardization of a partial ROC area over FPR in [0, ``max_fpr``]: 0.5 for the
    chance diagonal's area, 1 for a perfect curve's (floats or arrays)."""
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - min_area) / (max_area - min_area))


_FEW = 8
#: Bins evaluated at a time by :func:`average_precision_replicates`.
_CHUNK = 8192


def _lin_cdf(u: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """CDF on [0, 1] of the linear density with the given mean (slope clipped to stay >= 0)."""
    a = np.clip(12.0 * (mean - 0.5), -2.0, 2.0)[:, None]
    return u + a * (u * u - u) / 2.0, 1.0 + a * (u - 0.5)


def average_precision(h: BinaryHistogram, unit: float = 1.0) -> Estimate:
    """scikit-learn's step AP = sum_k (R_k - R_{k-1}) P_k, with bounds; NaN without positives.

    ``unit`` is the weight of one sample (1 for counts, 0 for continuous weighted counts): the
    i-th positive of a bin is credited with ``unit / 2`` of itself in the estimate (midpoint rule).

    Examples:
        >>> import numpy as np
        >>> from streammetrics.ranking.sketch import ScoreSketch
        >>> from streammetrics.ranking.keys import keys_of
        >>> s = ScoreSketch(resolution=52)
        >>> s.add(keys_of(np.array([0.1, 0.4, 0.35, 0.8]), "probability"), np.array([0, 0, 1, 1]), None, (1, 2))
        >>> round(average_precision(s.binary_view(0, [1], [0])).value, 6)
        0.833333
    """
    p_tot = h.pos.sum()
    if p_tot <= 0:
        return Estimate(np.nan, np.nan, np.nan)
    d = _desc(h)
    keep = d.pos > 0
    a = (np.cumsum(d.pos) - d.pos)[keep]  # true positives above the bin
    fp0 = (np.cumsum(d.neg) - d.neg)[keep]  # false positives above the bin
    sub = BinaryHistogram(*(x[keep] if isinstance(x, np.ndarray) else x for x in d))
    mp, mn = _means(sub)
    est, low, high = _ap_terms(sub.pos, sub.neg, a, fp0, _single(sub), mp, mn, unit)
    return _bounded(float(est.sum() / p_tot), float(low.sum() / p_tot), float(high.sum() / p_tot))


def _ap_terms(
    pos: np.ndarray,
    neg: np.ndarray,
    a: np.ndarray,
    fp0: np.ndarray,
    single: np.ndarray,
    mp: np.ndarray,
    mn: np.ndarray,
    unit: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin holding positives: its share of ``sum_k (R_k - R_{k-1}) P_k`` times the total
    positive weight, as an estimate and bounds. ``a`` and ``fp0`` are the positives and negatives
    above the bin, ``single`` whether it holds one distinct score, ``mp``/``mn`` the mean
    within-bin coordinates of its positives and negatives (see :func:`average_precision`)."""
    up = neg == 0
    down = np.zeros(len(pos), bool)
    c = a + fp0
    tied = pos * (a + pos) / (c + pos + neg)
    # lower bound: negatives first (or after, if known), positives spread: integral of (a+t)/(c'+t)
    d_fp = np.where(up, fp0, fp0 + neg)
    c_lo = a + d_fp
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(d_fp > 0, pos - d_fp * np.log1p(pos / np.where(c_lo > 0, c_lo, 1.0)), pos)
    # upper bound: positives first and tied (or after the negatives, if known)
    high = pos * (a + pos) / (c + pos + np.where(down, neg, 0.0))
    est = np.zeros(len(pos))
    # few positives in a bin (counts): placed at their mean coordinate (exact for one positive);
    # the others: linear densities inside the bin, Gauss-Legendre over the within-bin coordinate;
    # a bin of one distinct score needs neither (it is exact: ``tied`` below)
    few = ~single & (pos <= _FEW) if unit > 0 else np.zeros(len(pos), bool)
    many = ~single & ~few
    if many.any():
        m_pos, m_neg, m_up, m_down = pos[many], neg[many], up[many], down[many]
        fpos, dens = _lin_cdf(_GL_X[None, :], mp[many])
        fneg, _ = _lin_cdf(_GL_X[None, :], mn[many])
        above_p = m_pos[:, None] * (1.0 - fpos)
        above_n = np.where(
            m_up[:, None], 0.0, np.where(m_down[:, None], m_neg[:, None], m_neg[:, None] * (1.0 - fneg))
        )
        tp = a[many][:, None] + above_p + 0.5 * unit
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = np.where(tp > 0, tp / (tp + fp0[many][:, None] + above_n), 1.0)
        est[many] = m_pos * np.sum(_GL_W[None, :] * dens * prec, axis=1)
    if few.any():
        i = np.arange(1, _FEW + 1)[None, :]
        fneg_at, _ = _lin_cdf(mp[few][:, None], mn[few])
        above = np.where(up[few], 0.0, neg[few] * (1.0 - fneg_at[:, 0]))[:, None]
        tp_i = a[few][:, None] + i
        terms = np.where(i <= pos[few][:, None], tp_i / (tp_i + fp0[few][:, None] + above), 0.0)
        est[few] = terms.sum(axis=1)
    est = np.where(single, tied, est)
    low = np.where(single, tied, np.minimum(low, tied))
    high = np.where(single, tied, high)
    return np.clip(est, low, high), low, high


def _thresholds(h: BinaryHistogram, input: str) -> np.ndarray:
    """Per bin (ascending), the smallest score it holds: ``score >= it`` selects this bin and above."""
    return values_of(h.kmin, input)


def roc_curve(h: BinaryHistogram, input: str, drop_intermediate: bool = True) -> ROCCurveResult:
    """The ROC curve at bin edges (every point exact), as :func:`sklearn.metrics.roc_curve`."""
    d = _desc(h)
    fps, tps = np.cumsum(d.neg), np.cumsum(d.pos)
    thresholds = _thresholds(h, input)[::-1]
    if drop_intermediate and fps.shape[0] > 2:
        idx = np.flatnonzero(np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True])
        fps, tps, thresholds = fps[idx], tps[idx], thresholds[idx]
    fps, tps = np.r_[0.0, fps], np.r_[0.0, tps]
    thresholds = np.r_[np.inf, thresholds]
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full(fps.shape, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full(tps.shape, np.nan)
    return ROCCurveResult(fpr, tpr, thresholds)


def roc_curve_bounds(h: BinaryHistogram) -> tuple[ROCCurveResult, ROCCurveResult]:
    """Two staircase ROC curves enclosing the exact one (negatives first / positives first in bins)."""
    fps, tps = _roc_points(h)
    n, p = fps[-1], tps[-1]
    nan = np.full(2 * len(fps) - 1, np.nan)
    fpr_lo = np.repeat(fps, 2)[1:] / n if n > 0 else nan
    tpr_lo = np.repeat(tps, 2)[:-1] / p if p > 0 else nan
    fpr_hi = np.repeat(fps, 2)[:-1] / n if n > 0 else nan
    tpr_hi = np.repeat(tps, 2)[1:] / p if p > 0 else nan
    th = np.full(len(fpr_lo), np.nan)
    return ROCCurveResult(fpr_lo, tpr_lo, th), ROCCurveResult(fpr_hi, tpr_hi, th)


def pr_curve(h: BinaryHistogram, input: str, drop_intermediate: bool = False) -> PRCurveResult:
    """The precision-recall curve at bin edges, as :func:`sklearn.metrics.precision_recall_curve`."""
    d = _desc(h)
    fps, tps = np.cumsum(d.neg), np.cumsum(d.pos)
    thresholds = _thresholds(h, input)[::-1]
    if drop_intermediate and fps.shape[0] > 2:
        idx = np.flatnonzero(np.r_[True, np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), True])
        fps, tps, thresholds = fps[idx], tps[idx], thresholds[idx]
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    recall = tps / tps[-1] if tps.size and tps[-1] > 0 else np.ones(tps.shape)
    return PRCurveResult(np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thresholds[::-1])


def pr_curve_bounds(h: BinaryHistogram) -> tuple[PRCurveResult, PRCurveResult]:
    """Two PR staircases enclosing the exact curve: negatives first / positives first in each bin."""
    d = _desc(h)
    fps, tps = np.r_[0.0, np.cumsum(d.neg)], np.r_[0.0, np.cumsum(d.pos)]
    p = tps[-1]
    # low: inside bin b, the positives arrive after its negatives; high: before them
    tp_lo, fp_lo = np.repeat(tps, 2)[:-1], np.repeat(fps, 2)[1:]
    tp_hi, fp_hi = np.repeat(tps, 2)[1:], np.repeat(fps, 2)[:-1]
    out = []
    for tp, fp in ((tp_lo, fp_lo), (tp_hi, fp_hi)):
        ps = tp + fp
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = np.where(ps > 0, tp / np.where(ps > 0, ps, 1.0), 1.0)
        # no positives: recall 1 wherever a row is predicted positive, and 0 at the point where
        # none is (the curve's last point, (recall 0, precision 1), as scikit-learn's)
        rec = tp / p if p > 0 else (ps > 0).astype(np.float64)
        out.append(PRCurveResult(prec[::-1], rec[::-1], np.full(len(tp), np.nan)))
    return out[0], out[1]


def confusion_at(h: BinaryHistogram, threshold: float, input: str) -> tuple[ConfusionAtThreshold, ...]:
    """Counts at ``score >= threshold``: estimate, lowest-tp/fp and highest-tp/fp versions."""
    from .keys import keys_of

    key = keys_of(np.array([float(threshold)]), input)[0]
    above = h.kmin >= key
    inside = (h.kmin < key) & (h.kmax >= key)
    p_tot, n_tot = float(h.pos.sum()), float(h.neg.sum())
    tp0, fp0 = float(h.pos[above].sum()), float(h.neg[above].sum())
    tp_in = fp_in = (0.0, 0.0)
    tp_in_est = fp_in_est = 0.0
    if inside.any():
        b = np.flatnonzero(inside)[0]
        # the share of the bin at or above the key: unknown in [0, 1]; estimated as if uniform
        frac = float(h.kmax[b] - key + np.uint64(1)) / float(h.kmax[b] - h.kmin[b] + np.uint64(1))
        tp_in, fp_in = (0.0, float(h.pos[b])), (0.0, float(h.neg[b]))
        tp_in_est, fp_in_est = frac * h.pos[b], frac * h.neg[b]
    exact = not inside.any() or (tp_in[0] == tp_in[1] and fp_in[0] == fp_in[1])

    def make(tp_extra: float, fp_extra: float) -> ConfusionAtThreshold:
        tp, fp = tp0 + tp_extra, fp0 + fp_extra
        return ConfusionAtThreshold(float(threshold), tp, fp, p_tot - tp, n_tot - fp, bool(exact))

    if not inside.any():
        c = make(0.0, 0.0)
        return c, c, c
    return make(tp_in_est, fp_in_est), make(tp_in[0], fp_in[0]), make(tp_in[1], fp_in[1])


def threshold_table(h: BinaryHistogram, input: str) -> tuple[np.ndarray, ...]:
    """Exact (thresholds, tp, fp, fn, tn) at every bin edge, descending thresholds."""
    d = _desc(h)
    tp, fp = np.cumsum(d.pos), np.cumsum(d.neg)
    return _thresholds(h, input)[::-1], tp, fp, tp[-1] - tp, fp[-1] - fp
