"""Formulas of the probabilistic family: pure functions of the sum tables.

Examples:
    >>> import numpy as np
    >>> mean_loss(np.array([1.5, 3.0]))
    0.5
    >>> round(calibration_error(np.array([[2.0, 0.5, 1.0], [2.0, 1.8, 2.0]]), "l1"), 6)
    0.175
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core import validation as v
from ..errors import InputError


def mean_loss(totals: np.ndarray) -> float:
    """``[sum of w * loss, sum of w]`` -> the weighted mean loss."""
    return float(totals[0] / totals[1])


def calibration_error(sums: np.ndarray, norm: str) -> float:
    """Per-bin sums ``[w, w * confidence, w * hit]`` -> the ``"l1"`` (expected), ``"l2"`` (root mean
    square) or ``"max"`` gap between accuracy and confidence over the non-empty bins."""
    nb = sums[:, 0]
    ok = nb > 0
    gap = np.abs(sums[ok, 2] / nb[ok] - sums[ok, 1] / nb[ok])
    w = nb[ok] / nb.sum()
    if norm == "l1":
        return float(np.sum(w * gap))
    if norm == "l2":
        return float(np.sqrt(np.sum(w * gap**2)))
    return float(gap.max())


class BrierDecomposition(NamedTuple):
    """Murphy's decomposition on the configured bins (Stephenson et al. 2008 form).

    ``brier = reliability - resolution + uncertainty + within_bin_variance - within_bin_covariance``
    holds exactly; the last two terms vanish when every forecast in a bin is equal.
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float


def brier_decomposition(table: np.ndarray) -> BrierDecomposition:
    """Per-bin sums ``[w, w f, w o, w f^2, w f o]`` -> Murphy's decomposition of the Brier score."""
    t = table.astype(np.float64)
    total = t[:, 0].sum()
    if total == 0:
        nan = float("nan")
        return BrierDecomposition(nan, nan, nan, nan, nan, nan)
    nb = t[:, 0]
    ok = nb > 0
    fbar = np.divide(t[:, 1], nb, out=np.zeros_like(nb), where=ok)
    obar = np.divide(t[:, 2], nb, out=np.zeros_like(nb), where=ok)
    o_all = t[:, 2].sum() / total
    rel = float(np.sum(nb * (fbar - obar) ** 2) / total)
    res = float(np.sum(nb * (obar - o_all) ** 2) / total)
    unc = float(o_all * (1 - o_all))
    wbv = float(np.sum(t[:, 3] - nb * fbar**2) / total)
    wbc = float(2 * np.sum(t[:, 4] - nb * fbar * obar) / total)
    brier = float(np.sum(t[:, 3] - 2 * t[:, 4] + t[:, 2]) / total)
    return BrierDecomposition(brier, rel, res, unc, wbv, wbc)


class ReliabilityCurve(NamedTuple):
    """Per non-empty bin: observed frequency, mean forecast, total weight; and the bin edges."""

    prob_true: np.ndarray
    prob_pred: np.ndarray
    weights: np.ndarray
    edges: np.ndarray


def reliability_curve(sums: np.ndarray, edges: np.ndarray) -> ReliabilityCurve:
    """Per-bin sums ``[w, w * confidence, w * hit]`` and bin edges -> the non-empty bins' points."""
    ok = sums[:, 0] > 0
    return ReliabilityCurve(sums[ok, 2] / sums[ok, 0], sums[ok, 1] / sums[ok, 0], sums[ok, 0], edges)


def _cost_matrix(costs: Any) -> np.ndarray:
    c = np.asarray(costs, dtype=np.float64) if not isinstance(costs, np.ndarray) else costs.astype(np.float64)
    if c.ndim != 2 or c.shape[0] < 2 or c.shape[1] < 1 or not np.isfinite(c).all():
        raise ValueError(
            f"costs: expected a finite 2-D matrix costs[class, decision] with >= 2 classes, "
            f"found shape {c.shape}"
        )
    return c


def bayes_decisions(posteriors: Any, costs: Any) -> np.ndarray:
    """Bayes decisions ``argmin_d sum_c costs[c, d] * q_c`` for each row of posteriors ``q``.

    ``costs`` is K classes x M decisions (decisions may include e.g. a reject option).

    Examples:
        >>> costs = [[0, 10, 1000], [500, 20, 0]]   # tumour / no tumour x operate / test / home
        >>> bayes_decisions([[0.999, 0.001], [0.001, 0.999], [0.3, 0.7]], costs).tolist()
        [0, 2, 1]
    """
    c = _cost_matrix(costs)
    q = v.as_float(posteriors, "posteriors", (2,))
    if q.shape[1] != c.shape[0]:
        raise InputError(
            f"posteriors: expected {c.shape[0]} columns (one per class of costs), found {q.shape[1]}"
        )
    return np.argmin(q @ c, axis=1)


def expected_cost(counts: Any, costs: Any, priors: Any = None, normalize: bool = False) -> float:
    """Empirical expected cost ``sum_c sum_d C[c,d] P_c R_cd`` from a class x decision count table.

    ``P_c`` are the empirical class frequencies, or ``priors`` when given; ``R_cd = n_cd / n_c``.
    ``normalize=True`` divides by the cost of the best decision made without looking at the
    data, ``min_d sum_c C[c,d] P_c`` (Ferrer's normalized expected cost).

    Examples:
        >>> expected_cost([[8, 2], [1, 9]], [[0, 1], [1, 0]])
        0.15
    """
    n = np.asarray(counts, dtype=np.float64)
    c = _cost_matrix(costs)
    if n.shape != c.shape:
        raise ValueError(f"costs: expected shape {n.shape} (classes x decisions), found {c.shape}")
    n_c = n.sum(axis=1)
    if priors is None:
        p = n_c / n_c.sum()
    else:
        p = np.asarray(priors, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(n_c[:, None] > 0, n / np.where(n_c > 0, n_c, 1.0)[:, None], 0.0)
    if priors is not None and np.any((p > 0) & (n_c == 0)):
        return float("nan")
    ec = float(np.sum(c * p[:, None] * r))
    if normalize:
        return ec / float(np.min(p @ c))
    return ec
