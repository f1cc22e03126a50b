"""Law cases of issue 17's formulas on states already kept (one case per metric and a few variants;
the other options are compared with their peers in ``tests/nominal/test_catalogue_formulas.py``).

Contingency table: CramersV, TschuprowsT, PearsonsContingencyCoefficient (SciPy's
``chi2_contingency`` / ``contingency.association`` on a weighted table built here with
``np.add.at``, Bergsma's correction written out), TheilsU (SciPy's ``entropy``) and
ClusterAccuracy (SciPy's ``linear_sum_assignment``). Per-subject counts: FleissKappa (the
textbook formula, looped over subjects). Confusion counts: MultiFBeta and GeometricMean (river,
fed row by row with the same weights).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from river import metrics as rm
from scipy import stats
from scipy.optimize import linear_sum_assignment
from scipy.stats import contingency as scc

import streammetrics as sm

from . import LawCase


def _labelings(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = rng.integers(0, 4, n)
    return t, np.where(rng.random(n) < 0.6, t, rng.integers(0, 5, n))


def _string_labelings(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t, p = _labelings(rng, n)
    return np.array(["ant", "bee", "cat", "dog"])[t], p * 10 - 7


def _with_nans(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t, p = (a.astype(float) for a in _labelings(rng, n))
    t[rng.random(n) < 0.15] = np.nan
    p[rng.random(n) < 0.15] = np.nan
    return t, p


def _table(t, p, w):
    """Weighted contingency table (rows: first labeling), zero-weight rows left out."""
    w = np.ones(len(t)) if w is None else np.asarray(w, dtype=float)
    keep = w > 0
    t, p, w = np.asarray(t)[keep], np.asarray(p)[keep], w[keep]
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    c = np.zeros((ti.max() + 1 if ti.size else 0, pi.max() + 1 if pi.size else 0))
    np.add.at(c, (ti, pi), w)
    return c


def _on_table(formula, nan=None, value=0.0):
    def ref(t, p, sample_weight=None):
        t, p = np.asarray(t, dtype=object if np.asarray(t).dtype.kind in "UO" else float), np.asarray(p)
        if nan == "drop":
            keep = ~(np.isnan(t.astype(float)) | np.isnan(p.astype(float)))
            t, p = t[keep], p[keep]
            sample_weight = None if sample_weight is None else np.asarray(sample_weight)[keep]
        elif nan == "replace":
            t, p = (np.where(np.isnan(a.astype(float)), value, a) for a in (t, p))
        c = _table(t, p, sample_weight)
        if not c.size:
            return math.nan
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return formula(c)

    return ref


def _chi2(c, correction):
    if min(c.shape) == 1:
        return 0.0
    return float(stats.chi2_contingency(c, correction=correction).statistic)


def _bergsma(c, denominator, correction):
    """Cramér-style coefficient ``sqrt(phi2 / denominator(r, c))``, Bergsma-corrected or not."""
    n, (r, k) = c.sum(), c.shape
    phi2 = _chi2(c, correction) / n
    if correction:
        if n <= 1:
            return math.nan
        phi2 = max(0.0, phi2 - (r - 1) * (k - 1) / (n - 1))
        r, k = r - (r - 1) ** 2 / (n - 1), k - (k - 1) ** 2 / (n - 1)
        if min(r, k) == 1:
            return math.nan
    den = denominator(r, k)
    if not den > 0 or phi2 / den < 0:
        return math.nan
    return min(math.sqrt(phi2 / den), 1.0)


def _cramer(correction):
    def formula(c):
        if not correction and min(c.shape) > 1 and np.array_equal(c, np.round(c)):  # SciPy's own
            return scc.association(c.astype(np.int64), method="cramer")
        return _bergsma(c, lambda r, k: min(r - 1, k - 1), correction)

    return formula


def _tschuprow(correction):
    def formula(c):
        if not correction and min(c.shape) > 1 and np.array_equal(c, np.round(c)):
            return scc.association(c.astype(np.int64), method="tschuprow")
        # (corrected sizes on either side of 1: no real root, NaN as torchmetrics' sqrt gives)
        return _bergsma(
            c, lambda r, k: math.sqrt((r - 1) * (k - 1)) if (r - 1) * (k - 1) > 0 else math.nan, correction
        )

    return formula


def _pearson(c):
    if min(c.shape) > 1 and np.array_equal(c, np.round(c)):
        return scc.association(c.astype(np.int64), method="pearson")
    phi2 = _chi2(c, False) / c.sum()
    return math.sqrt(phi2 / (1 + phi2))


def _theil(c):
    h_k = stats.entropy(c.sum(axis=0))
    if h_k == 0:
        return 0.0
    a = c.sum(axis=1)
    h_k_given_c = sum(a[i] / c.sum() * stats.entropy(c[i]) for i in range(len(a)))
    return (h_k - h_k_given_c) / h_k


def _cluster_accuracy(c):
    rows, cols = linear_sum_assignment(c, maximize=True)
    return c[rows, cols].sum() / c.sum()


# ----------------------------------------------------------------------------- Fleiss
def _subject_counts(rng: np.random.Generator, n: int) -> tuple[np.ndarray]:
    favourite = rng.integers(0, 3, n)
    probs = np.full((n, 3), 0.15)
    probs[np.arange(n), favourite] = 0.7
    return (np.array([rng.multinomial(5, row) for row in probs], dtype=np.int64).reshape(n, 3),)


def _rater_scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray]:
    return (rng.random((n, 3, 4)),)


def _fleiss_ref(mode):
    def ref(ratings, sample_weight=None):
        ratings = np.asarray(ratings, dtype=float)
        if mode == "probs":  # each rater's arg-max is its rating
            n, k, r = ratings.shape
            counts = np.zeros((n, k))
            for i in range(n):
                for rater in range(r):
                    counts[i, int(np.argmax(ratings[i, :, rater]))] += 1
        else:
            counts = ratings
        w = np.ones(len(counts)) if sample_weight is None else np.asarray(sample_weight, float)
        if not len(counts) or w.sum() == 0:
            return math.nan
        agreement = 0.0
        for row, weight in zip(counts, w, strict=True):
            m = row.sum()
            agreement += weight * (sum(x * (x - 1) for x in row) / (m * (m - 1)))
        p_bar = agreement / w.sum()
        shares = (w @ counts) / (w @ counts).sum()
        p_e = float(np.sum(shares**2))
        return math.nan if p_e == 1 else (p_bar - p_e) / (1 - p_e)

    return ref


# ----------------------------------------------------------------------------- river
BETAS = {0: 0.5, 1: 1.0, 2: 2.0, 3: 3.0}
WEIGHTS = {0: 1.0, 1: 2.0, 2: 0.5}


def _classes(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 4, n)
    return y, np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))


def _river(make):
    def ref(y, p, sample_weight=None):
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        metric = make()
        for a, b, weight in zip(np.asarray(y).tolist(), np.asarray(p).tolist(), w.tolist(), strict=True):
            if weight > 0:  # river keeps a class seen with weight 0; a zero weight leaves the row out
                metric.update(a, b, weight)
        return metric.get() if w.sum() > 0 else math.nan

    return ref


CASES = [
    LawCase("CramersV", sm.CramersV, _labelings, _on_table(_cramer(True))),
    LawCase("CramersV-uncorrected", lambda: sm.CramersV(False), _string_labelings, _on_table(_cramer(False))),
    LawCase("TschuprowsT", sm.TschuprowsT, _labelings, _on_table(_tschuprow(True))),
    LawCase(
        "PearsonsContingencyCoefficient", sm.PearsonsContingencyCoefficient, _labelings, _on_table(_pearson)
    ),
    LawCase("TheilsU", sm.TheilsU, _string_labelings, _on_table(_theil)),
    LawCase(
        "TheilsU-nan-drop", lambda: sm.TheilsU(nan_strategy="drop"), _with_nans, _on_table(_theil, nan="drop")
    ),
    LawCase("ClusterAccuracy", sm.ClusterAccuracy, _string_labelings, _on_table(_cluster_accuracy)),
    LawCase("FleissKappa", sm.FleissKappa, _subject_counts, _fleiss_ref("counts")),
    LawCase("FleissKappa-probs", lambda: sm.FleissKappa(mode="probs"), _rater_scores, _fleiss_ref("probs")),
    LawCase(
        "MultiFBeta",
        lambda: sm.MultiFBeta(BETAS, WEIGHTS),
        _classes,
        _river(lambda: rm.MultiFBeta(betas=BETAS, weights={**{k: 1.0 for k in BETAS}, **WEIGHTS})),
    ),
    LawCase("GeometricMean", sm.GeometricMean, _classes, _river(rm.GeometricMean)),
]
