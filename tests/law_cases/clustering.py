"""Law cases of the clustering family.

References: scikit-learn's ``sklearn.metrics.cluster`` functions on unweighted rows; with
(fractional) weights, textbook formulas written here on a weighted contingency table built with
``np.add.at`` (independent of streammetrics), and scikit-learn's ``mutual_info_score`` on that
table. Internal indices: scikit-learn, or direct NumPy formulas for weighted rows.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn import metrics as skm
from sklearn.metrics import cluster as skc

import streammetrics as sm

from . import LawCase


def _labelings(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = rng.integers(0, 4, n)
    return t, np.where(rng.random(n) < 0.6, t, rng.integers(0, 5, n))


def _string_labelings(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t, p = _labelings(rng, n)
    return np.array(["ant", "bee", "cat", "dog"])[t], p * 10 - 7


def _points(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, 3, n)
    centres = np.array([[0.0, 0.0], [3.0, 1.0], [0.5, 4.0]])
    return centres[labels] + rng.normal(0, 1, (n, 2)), labels


def _quiet(fn):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return fn(*args, **kwargs)
            except ValueError:  # scikit-learn raises where streammetrics returns NaN
                return float("nan")

    return wrapped


def _table(t, p, w):
    """Weighted contingency table (classes x clusters), zero-weight rows left out."""
    w = np.ones(len(t)) if w is None else np.asarray(w, dtype=float)
    keep = w > 0
    t, p, w = np.asarray(t)[keep], np.asarray(p)[keep], w[keep]
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    c = np.zeros((ti.max() + 1 if ti.size else 0, pi.max() + 1 if pi.size else 0))
    np.add.at(c, (ti, pi), w)
    return c


def _pairs(c):
    """Unordered pair counts (together in both, classes only, clusters only, apart in both)."""
    comb = lambda x: x * (x - 1) / 2  # noqa: E731
    n = c.sum()
    both = comb(c).sum()
    classes = comb(c.sum(axis=1)).sum() - both
    clusters = comb(c.sum(axis=0)).sum() - both
    return both, classes, clusters, comb(n) - both - classes - clusters


def _h(x):
    x = x[x > 0]
    p = x / x.sum()
    return float(-(p * np.log(p)).sum())


def _weighted_or(sk_fn, formula):
    """scikit-learn on unweighted rows, else the formula on the weighted table."""

    def ref(t, p, sample_weight=None):
        if sample_weight is None:
            return _quiet(sk_fn)(t, p)
        return formula(_table(t, p, sample_weight))

    return ref


def _ari(c):
    both, classes, clusters, apart = _pairs(c)
    if classes == 0 and clusters == 0:
        return 1.0
    index, a, b = both, both + classes, both + clusters
    expected = a * b / (both + classes + clusters + apart)
    return (index - expected) / ((a + b) / 2 - expected)


def _rand(c):
    both, classes, clusters, apart = _pairs(c)
    total = both + classes + clusters + apart
    return 1.0 if total == 0 or classes + clusters == 0 else (both + apart) / total


def _mi(c):
    pij = c / c.sum()
    outer = pij.sum(1)[:, None] * pij.sum(0)[None, :]
    nz = pij > 0
    return max(float((pij[nz] * np.log(pij[nz] / outer[nz])).sum()), 0.0)


def _nmi(c):
    if c.shape == (1, 1):
        return 1.0
    mi = _mi(c)
    return 0.0 if mi == 0 else mi / ((_h(c.sum(1)) + _h(c.sum(0))) / 2)


def _hcv(c, which):
    hc, hk, mi = _h(c.sum(1)), _h(c.sum(0)), _mi(c)
    h = mi / hc if hc else 1.0
    k = mi / hk if hk else 1.0
    v = 0.0 if h + k == 0 else 2 * h * k / (h + k)
    return (h, k, v)[which]


def _fmi(c):
    both, classes, clusters, _ = _pairs(c)
    return 0.0 if both == 0 else both / math.sqrt((both + classes) * (both + clusters))


def _jaccard(c):
    both, classes, clusters, _ = _pairs(c)
    return 1.0 if classes == clusters == 0 else both / (both + classes + clusters)


def _phi(c):
    tp, fn, fp, tn = _pairs(c)
    if fp == fn == 0:
        return 1.0
    den = (tp + fn) * (tp + fp) * (tn + fn) * (tn + fp)
    return 0.0 if den == 0 else (tp * tn - fp * fn) / math.sqrt(den)


def _minkowski(c):
    tp, fn, fp, _ = _pairs(c)
    if fp == fn == 0:
        return 0.0
    return float("nan") if tp + fn == 0 else math.sqrt((fp + fn) / (tp + fn))


def _purity(c):
    return c.max(axis=0).sum() / c.sum()


def _entropy(c):
    b = c.sum(axis=0)
    nz = c > 0
    return float(-(c[nz] / c.sum() * np.log((c / b)[nz])).sum())


def _fmeasure(c):
    a, b = c.sum(axis=1), c.sum(axis=0)
    f = 2 * c / (a[:, None] + b[None, :])
    return float((a * f.max(axis=1)).sum() / a.sum())


def _vi(c):
    return max(_h(c.sum(1)) + _h(c.sum(0)) - 2 * _mi(c), 0.0)


def _pcm(c):
    both, classes, clusters, apart = _pairs(c)
    return 2 * np.array([[apart, clusters], [classes, both]])


def _ami_ref(method):
    def ref(t, p, sample_weight=None):
        if sample_weight is not None:  # whole-number weights only: repeat the rows
            reps = np.rint(np.asarray(sample_weight)).astype(int)
            t, p = np.repeat(t, reps), np.repeat(p, reps)
        return _quiet(skm.adjusted_mutual_info_score)(t, p, average_method=method)

    return ref


def _sk_unweighted(fn):
    return lambda t, p: fn(t, p)


CASES: list[LawCase] = [
    LawCase(
        "ContingencyTable",
        sm.ContingencyTable,
        _string_labelings,
        _weighted_or(lambda t, p: skc.contingency_matrix(t, p), lambda c: c),
        exact=True,
    ),
    LawCase(
        "PairConfusionMatrix",
        sm.PairConfusionMatrix,
        _labelings,
        _weighted_or(skc.pair_confusion_matrix, _pcm),
        exact=True,
    ),
    LawCase("RandIndex", sm.RandIndex, _labelings, _weighted_or(skm.rand_score, _rand)),
    LawCase(
        "AdjustedRandIndex", sm.AdjustedRandIndex, _labelings, _weighted_or(skm.adjusted_rand_score, _ari)
    ),
    LawCase(
        "AdjustedRandIndex[strings]",
        sm.AdjustedRandIndex,
        _string_labelings,
        _weighted_or(skm.adjusted_rand_score, _ari),
    ),
    LawCase("MutualInfo", sm.MutualInfo, _labelings, _weighted_or(skm.mutual_info_score, _mi)),
    LawCase(
        "NormalizedMutualInfo",
        sm.NormalizedMutualInfo,
        _labelings,
        _weighted_or(skm.normalized_mutual_info_score, _nmi),
    ),
    LawCase(
        "NormalizedMutualInfo[geometric]",
        lambda: sm.NormalizedMutualInfo(average_method="geometric"),
        _labelings,
        lambda t, p, sample_weight=None: (
            _quiet(skm.normalized_mutual_info_score)(t, p, average_method="geometric")
            if sample_weight is None
            else None
        ),
        weights=False,
    ),
    # Fractional weights are refused (the expected MI needs integer cells): the law suite's
    # weight laws use integer weights and run; its weighted reference (fractional) is skipped.
    LawCase(
        "AdjustedMutualInfo",
        sm.AdjustedMutualInfo,
        _labelings,
        _ami_ref("arithmetic"),
        weights=False,
        rtol=1e-9,
    ),
    LawCase(
        "AdjustedMutualInfo[max]",
        lambda: sm.AdjustedMutualInfo(average_method="max"),
        _labelings,
        _ami_ref("max"),
        weights=False,
        rtol=1e-9,
    ),
    LawCase(
        "Homogeneity", sm.Homogeneity, _labelings, _weighted_or(skm.homogeneity_score, lambda c: _hcv(c, 0))
    ),
    LawCase(
        "Completeness",
        sm.Completeness,
        _labelings,
        _weighted_or(skm.completeness_score, lambda c: _hcv(c, 1)),
    ),
    LawCase("VMeasure", sm.VMeasure, _labelings, _weighted_or(skm.v_measure_score, lambda c: _hcv(c, 2))),
    LawCase(
        "VMeasure[beta=2]",
        lambda: sm.VMeasure(beta=2.0),
        _labelings,
        lambda t, p, sample_weight=None: skm.v_measure_score(t, p, beta=2.0),
        weights=False,
    ),
    LawCase(
        "FowlkesMallowsIndex",
        sm.FowlkesMallowsIndex,
        _labelings,
        _weighted_or(skm.fowlkes_mallows_score, _fmi),
    ),
    LawCase(
        "PairJaccard",
        sm.PairJaccard,
        _labelings,
        _weighted_or(lambda t, p: _jaccard(_table(t, p, None)), _jaccard),
    ),
    LawCase("PhiIndex", sm.PhiIndex, _labelings, _weighted_or(lambda t, p: _phi(_table(t, p, None)), _phi)),
    LawCase(
        "MinkowskiScore",
        sm.MinkowskiScore,
        _labelings,
        _weighted_or(lambda t, p: _minkowski(_table(t, p, None)), _minkowski),
    ),
    LawCase(
        "GoodmanKruskal",
        sm.GoodmanKruskal,
        _labelings,
        _weighted_or(lambda t, p: 1 - _purity(skc.contingency_matrix(t, p)), lambda c: 1 - _purity(c)),
    ),
    LawCase(
        "Purity",
        sm.Purity,
        _labelings,
        _weighted_or(lambda t, p: _purity(skc.contingency_matrix(t, p)), _purity),
    ),
    LawCase(
        "ClusteringEntropy",
        sm.ClusteringEntropy,
        _labelings,
        _weighted_or(lambda t, p: _entropy(skc.contingency_matrix(t, p).astype(float)), _entropy),
    ),
    LawCase(
        "ClusteringFMeasure",
        sm.ClusteringFMeasure,
        _labelings,
        _weighted_or(lambda t, p: _fmeasure(skc.contingency_matrix(t, p).astype(float)), _fmeasure),
    ),
    LawCase(
        "VariationOfInformation",
        sm.VariationOfInformation,
        _labelings,
        _weighted_or(lambda t, p: _vi(skc.contingency_matrix(t, p)), _vi),
    ),
]


# ---------------------------------------------------------------------- internal indices
def _wmoments(X, labels, w):
    w = np.ones(len(X)) if w is None else np.asarray(w, float)
    keep = w > 0
    X, labels, w = X[keep], labels[keep], w[keep]
    ks = np.unique(labels)
    W = w.sum()
    mu = (w[:, None] * X).sum(0) / W
    means = np.array([np.average(X[labels == k], axis=0, weights=w[labels == k]) for k in ks])
    wk = np.array([w[labels == k].sum() for k in ks])
    wss = sum(
        float((w[labels == k] * ((X[labels == k] - means[i]) ** 2).sum(1)).sum()) for i, k in enumerate(ks)
    )
    bss = float((wk * ((means - mu) ** 2).sum(1)).sum())
    return ks, W, wss, bss, X, labels, w, means, wk


def _ch(X, labels, sample_weight=None):
    if sample_weight is None:
        return _quiet(skm.calinski_harabasz_score)(X, labels)
    ks, W, wss, bss, *_ = _wmoments(X, labels, sample_weight)
    k = len(ks)
    if k < 2 or k >= W:
        return float("nan")
    return 1.0 if wss == 0 else bss * (W - k) / (wss * (k - 1))


def _wss(X, labels, sample_weight=None):
    return _wmoments(X, labels, sample_weight)[2] if len(X) else float("nan")


def _bss(X, labels, sample_weight=None):
    return _wmoments(X, labels, sample_weight)[3] if len(X) else float("nan")


def _ni(X, labels, sample_weight=None):
    ks, W, _, _, X, labels, w, _, wk = _wmoments(X, labels, sample_weight)
    if len(ks) < 2:
        return float("nan")
    p = wk / W
    covs = [np.cov(X[labels == k].T, aweights=w[labels == k], bias=True) for k in ks]
    for c in covs:
        eig = np.linalg.eigvalsh(c)
        if eig[0] <= 1e-9 * max(eig[-1], 1e-300):
            return float("nan")
    dets = [np.linalg.det(c) for c in covs]
    total = np.linalg.det(np.cov(X.T, aweights=w, bias=True))
    if min(dets) <= 0 or total <= 0:
        return float("nan")
    return float(0.5 * np.sum(p * np.log(dets)) - 0.5 * np.log(total) - np.sum(p * np.log(p)))


def _silhouette(X, labels, sample_weight=None, metric="euclidean"):
    if sample_weight is None:
        return _quiet(skm.silhouette_score)(X, labels, metric=metric)
    _, W, _, _, X, labels, w, _, _ = _wmoments(X, labels, sample_weight)
    ks = np.unique(labels)
    if len(ks) < 2 or len(ks) > W - 1:
        return float("nan")
    d = skm.pairwise_distances(X, metric=metric)
    np.fill_diagonal(d, 0.0)
    s = np.zeros(len(X))
    for i in range(len(X)):
        own = labels == labels[i]
        wc = w[own].sum()
        if wc <= 1:
            continue
        a = (w[own] * d[i, own]).sum() / (wc - 1)
        b = min(
            (w[labels == k] * d[i, labels == k]).sum() / w[labels == k].sum() for k in ks if k != labels[i]
        )
        s[i] = (b - a) / max(a, b) if max(a, b) > 0 else 0.0
    return float((w * s).sum() / w.sum())


def _db(X, labels, sample_weight=None):
    if sample_weight is None:
        return _quiet(skm.davies_bouldin_score)(X, labels)
    ks, W, _, _, X, labels, w, means, wk = _wmoments(X, labels, sample_weight)
    if len(ks) < 2 or len(ks) > W - 1:
        return float("nan")
    spread = np.array(
        [
            (w[labels == k] * np.sqrt(((X[labels == k] - means[i]) ** 2).sum(1))).sum() / wk[i]
            for i, k in enumerate(ks)
        ]
    )
    dist = np.sqrt(((means[:, None] - means[None]) ** 2).sum(-1))
    if np.allclose(spread, 0) or np.allclose(dist, 0):
        return 0.0
    dist[dist == 0] = np.inf
    return float(np.mean(((spread[:, None] + spread[None]) / dist).max(1)))


CASES += [
    LawCase("CalinskiHarabasz", sm.CalinskiHarabasz, _points, _ch, rtol=1e-8),
    LawCase("WithinClusterSS", sm.WithinClusterSS, _points, _wss, rtol=1e-8, atol=1e-9),
    LawCase("BetweenClusterSS", sm.BetweenClusterSS, _points, _bss, rtol=1e-8, atol=1e-9),
    LawCase("NegentropyIncrement", sm.NegentropyIncrement, _points, _ni, rtol=1e-7, atol=1e-9, min_rows=12),
    # Exact while the sample holds every distinct row (sample_size far above the law batches):
    # the bottom-k keys are a hash of the row content, so every law holds exactly.
    LawCase("Silhouette", sm.Silhouette, _points, _silhouette, rtol=1e-8, atol=1e-10),
    LawCase("DaviesBouldin", sm.DaviesBouldin, _points, _db, rtol=1e-8, atol=1e-10),
    LawCase(
        "Silhouette[cosine]",
        lambda: sm.Silhouette(metric="cosine"),
        _points,
        lambda X, labels, sample_weight=None: _silhouette(X, labels, sample_weight, metric="cosine"),
        rtol=1e-8,
        atol=1e-10,
    ),
    # A sample smaller than the data: the estimate still obeys every law (content-hash keys),
    # but it is not the exact value, so no reference here (tests/clustering checks it against
    # the exact value within its standard error).
    LawCase(
        "Silhouette[sampled]",
        lambda: sm.Silhouette(sample_size=8, seed=3),
        _points,
        None,
        rtol=1e-8,
        atol=1e-10,
        tags=frozenset({"approximate"}),
    ),
    LawCase(
        "DaviesBouldin[sampled]",
        lambda: sm.DaviesBouldin(sample_size=8, seed=3),
        _points,
        None,
        rtol=1e-8,
        atol=1e-10,
        tags=frozenset({"approximate"}),
    ),
]
