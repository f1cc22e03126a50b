"""Law cases of the centroid-based internal indices (DB*, SF, S_Dbw, SV, OS, the Sym family,
simplified silhouette) and of the exact two-pass mode.

References are written here with plain Python loops over rows (independent of streammetrics'
vectorized code), from the papers' definitions as the catalogue states them: frequency weights
(an integer weight ``k`` is ``k`` copies; "the ``m`` nearest / farthest" is a mass ``m`` of
weight, the boundary row counting for the fraction that fits), rows of weight 0 left out, NaN
unless ``2 <= K <= N - 1``. Davies-Bouldin also checks against scikit-learn.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase

NAN = float("nan")


def _points(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, 3, n)
    centres = np.array([[0.0, 0.0], [3.0, 1.0], [0.5, 4.0]])
    return centres[labels] + rng.normal(0, 1, (n, 2)), labels


#: Fixed centroids of the two-pass cases (near, not at, the centres of ``_points``).
FIXED = np.array([[0.2, -0.1], [2.8, 1.3], [0.4, 3.7]])


def _rows(X, labels, sample_weight):
    """Rows of positive weight, as lists of (x, label, w)."""
    X = np.asarray(X, float)
    w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
    return [(X[i], labels[i], float(w[i])) for i in range(len(X)) if w[i] > 0]


def _dist(a, b):
    return math.sqrt(sum((float(p) - float(q)) ** 2 for p, q in zip(a, b, strict=True)))


def _clusters(rows):
    out: dict = {}
    for x, lab, w in rows:
        out.setdefault(lab, []).append((x, w))
    return dict(sorted(out.items()))


def _mean(members):
    total = math.fsum(w for _, w in members)
    return np.array([math.fsum(w * x[j] for x, w in members) / total for j in range(len(members[0][0]))])


def _mass_mean(pairs, mass):
    """Mean of the first ``mass`` units of weight of (value, weight) pairs taken in order."""
    left, acc, used = mass, 0.0, 0.0
    for value, w in pairs:
        if left <= 0:
            break
        take = min(w, left)
        acc += take * value
        used += take
        left -= take
    return acc / used


def _setup(X, labels, sample_weight):
    rows = _rows(X, labels, sample_weight)
    cl = _clusters(rows)
    total = math.fsum(w for _, _, w in rows)
    if not 2 <= len(cl) <= total - 1:
        return None
    means = {k: _mean(m) for k, m in cl.items()}
    return rows, cl, means, total


def _spreads(cl, means):
    return {
        k: math.fsum(w * _dist(x, means[k]) for x, w in m) / math.fsum(w for _, w in m) for k, m in cl.items()
    }


def ref_db_star(X, labels, sample_weight=None, centroids=None):
    s = (
        _setup(X, labels, sample_weight)
        if centroids is None
        else _setup_fixed(X, labels, sample_weight, centroids)
    )
    if s is None:
        return NAN
    _, cl, means, _ = s
    spread = _spreads(cl, means)
    ks = list(cl)
    if all(abs(v) < 1e-8 for v in spread.values()):
        return 0.0
    terms = []
    for k in ks:
        num = max(spread[k] + spread[j] for j in ks if j != k)
        den = min(
            (_dist(means[k], means[j]) for j in ks if j != k and _dist(means[k], means[j]) > 0),
            default=math.inf,
        )
        terms.append(num / den)
    return float(np.mean(terms))


def ref_db(X, labels, sample_weight=None, centroids=None):
    s = (
        _setup(X, labels, sample_weight)
        if centroids is None
        else _setup_fixed(X, labels, sample_weight, centroids)
    )
    if s is None:
        return NAN
    _, cl, means, _ = s
    spread = _spreads(cl, means)
    ks = list(cl)
    if all(abs(v) < 1e-8 for v in spread.values()):
        return 0.0
    return float(
        np.mean([max((spread[k] + spread[j]) / _dist(means[k], means[j]) for j in ks if j != k) for k in ks])
    )


def ref_score_function(X, labels, sample_weight=None, centroids=None):
    s = (
        _setup(X, labels, sample_weight)
        if centroids is None
        else _setup_fixed(X, labels, sample_weight, centroids)
    )
    if s is None:
        return NAN
    _, cl, means, total = s
    weights = {k: math.fsum(w for _, w in m) for k, m in cl.items()}
    grand = sum(weights[k] * means[k] for k in cl) / total
    bcd = math.fsum(weights[k] * _dist(means[k], grand) for k in cl) / (total * len(cl))
    wcd = math.fsum(_spreads(cl, means).values())
    return 1.0 - 1.0 / math.exp(math.exp(bcd - wcd))


def ref_simplified_silhouette(X, labels, sample_weight=None, centroids=None):
    s = (
        _setup(X, labels, sample_weight)
        if centroids is None
        else _setup_fixed(X, labels, sample_weight, centroids)
    )
    if s is None:
        return NAN
    rows, _, means, total = s
    if centroids is not None:
        means = {lab: np.asarray(c) for lab, c in zip(*centroids, strict=True)}
    acc = 0.0
    for x, lab, w in rows:
        a = _dist(x, means[lab])
        b = min(_dist(x, c) for k, c in means.items() if k != lab)
        acc += w * ((b - a) / max(a, b) if max(a, b) > 0 else 0.0)
    return acc / total


def _setup_fixed(X, labels, sample_weight, centroids):
    """As ``_setup`` with the fixed centroids (clusters present in the data only)."""
    rows = _rows(X, labels, sample_weight)
    cl = _clusters(rows)
    total = math.fsum(w for _, _, w in rows)
    if not 2 <= len(cl) <= total - 1:
        return None
    fixed = {lab: np.asarray(c) for lab, c in zip(*centroids, strict=True)}
    return rows, cl, {k: fixed[k] for k in cl}, total


def ref_s_dbw(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    rows, cl, means, total = s
    ks, d = list(cl), len(rows[0][0])
    var = {}
    for k, m in cl.items():
        wk = math.fsum(w for _, w in m)
        var[k] = np.array([math.fsum(w * (x[j] - means[k][j]) ** 2 for x, w in m) / wk for j in range(d)])
    grand = sum(w * x for x, _, w in rows) / total
    var_x = np.array([math.fsum(w * (x[j] - grand[j]) ** 2 for x, _, w in rows) / total for j in range(d)])
    norm = lambda v: math.sqrt(math.fsum(t * t for t in v))  # noqa: E731
    K = len(ks)
    scat = math.fsum(norm(var[k]) for k in ks) / K / norm(var_x)
    stdev = math.sqrt(math.fsum(norm(var[k]) for k in ks)) / K

    def density(members, centre):
        return math.fsum(w for x, w in members if _dist(x, centre) <= stdev)

    dens = 0.0
    for k in ks:
        for j in ks:
            if j == k:
                continue
            mid = (means[k] + means[j]) / 2
            num = density(cl[k] + cl[j], mid)
            top = max(density(cl[k], means[k]), density(cl[j], means[j]))
            dens += num / top if top > 0 else 0.0
    return scat + dens / (K * (K - 1))


def _tops(cl, means):
    """Per cluster: the mean distance to the centroid of the 10% (by weight) farthest rows."""
    out = {}
    for k, m in cl.items():
        pairs = sorted(((_dist(x, means[k]), w) for x, w in m), key=lambda p: -p[0])
        out[k] = _mass_mean(pairs, 0.1 * math.fsum(w for _, w in m))
    return out


def ref_sv(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    _, cl, means, _ = s
    sep = math.fsum(min(_dist(means[k], means[j]) for j in cl if j != k) for k in cl)
    return sep / math.fsum(_tops(cl, means).values())


def ref_os(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    rows, cl, means, _ = s
    weights = {k: math.fsum(w for _, w in m) for k, m in cl.items()}
    overlap = 0.0
    for x, lab, w in rows:
        a = math.fsum(wj * _dist(x, xj) for xj, wj in cl[lab]) / weights[lab]
        outside = sorted((_dist(x, xj), wj) for xj, lj, wj in rows if lj != lab)
        b = _mass_mean(outside, weights[lab])
        if a + b > 0 and (b - a) / (b + a) < 0.4:
            overlap += w * a / b
    return overlap / math.fsum(_tops(cl, means).values())


def _dps(cl, means):
    """Point-symmetry distance of every (cluster, member index)."""
    out = {}
    for k, m in cl.items():
        mass = min(2.0, math.fsum(w for _, w in m))
        for i, (x, _) in enumerate(m):
            reflected = 2 * means[k] - x
            near = sorted((_dist(reflected, xj), wj) for xj, wj in m)
            out[k, i] = _mass_mean(near, mass) * _dist(x, means[k])
    return out


def ref_sym(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    _, cl, means, _ = s
    dps = _dps(cl, means)
    total = math.fsum(cl[k][i][1] * v for (k, i), v in dps.items())
    num = max(_dist(means[k], means[j]) for k in cl for j in cl)
    return num / (len(cl) * total) if total > 0 else math.inf


def _sym_spread(cl, dps):
    return {
        k: math.fsum(m[i][1] * dps[k, i] for i in range(len(m))) / math.fsum(w for _, w in m)
        for k, m in cl.items()
    }


def ref_sym_db(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    _, cl, means, _ = s
    spread = _sym_spread(cl, _dps(cl, means))
    ks = list(cl)
    if all(abs(v) < 1e-8 for v in spread.values()):
        return 0.0
    return float(
        np.mean([max((spread[k] + spread[j]) / _dist(means[k], means[j]) for j in ks if j != k) for k in ks])
    )


def ref_sym_dunn(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    _, cl, means, _ = s
    dps = _dps(cl, means)
    sep = min(_dist(x, y) for k in cl for j in cl if j != k for x, _ in cl[k] for y, _ in cl[j])
    diam = max(dps.values())
    return sep / diam if diam > 0 else math.inf


def ref_sym33(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    _, cl, means, _ = s
    spread = _sym_spread(cl, _dps(cl, means))
    sep = min(
        math.fsum(wx * wy * _dist(x, y) for x, wx in cl[k] for y, wy in cl[j])
        / (math.fsum(w for _, w in cl[k]) * math.fsum(w for _, w in cl[j]))
        for k in cl
        for j in cl
        if j != k
    )
    diam = max(2 * v for v in spread.values())
    return sep / diam if diam > 0 else math.inf


def _sk_db(X, labels, sample_weight=None, centroids=None):
    """scikit-learn where it applies (no weights), else the loop reference."""
    if sample_weight is None and centroids is None and 2 <= len(np.unique(labels)) <= len(labels) - 1:
        return skm.davies_bouldin_score(X, labels)
    return ref_db(X, labels, sample_weight, centroids)


def _fixed(ref):
    return lambda X, labels, sample_weight=None: ref(X, labels, sample_weight, centroids=([0, 1, 2], FIXED))


def _two_pass(cls):
    return lambda: cls(centroids=([0, 1, 2], FIXED))


_EXACT = [
    ("SimplifiedSilhouette", sm.SimplifiedSilhouette, ref_simplified_silhouette, 1),
    ("DaviesBouldinStar", sm.DaviesBouldinStar, ref_db_star, 1),
    ("ScoreFunction", sm.ScoreFunction, ref_score_function, 1),
    ("SDbw", sm.SDbw, ref_s_dbw, 1),
    ("SVIndex", sm.SVIndex, ref_sv, 1),
    ("OSIndex", sm.OSIndex, ref_os, 1),
    ("SymIndex", sm.SymIndex, ref_sym, 1),
    ("SymDB", sm.SymDB, ref_sym_db, 1),
    ("SymDunn", sm.SymDunn, ref_sym_dunn, 1),
    ("Sym33", sm.Sym33, ref_sym33, 1),
]

CASES: list[LawCase] = []
for name, cls, ref, min_rows in _EXACT:
    # Exact while the sample holds every distinct row (sample_size far above the law batches).
    CASES.append(LawCase(name, cls, _points, ref, rtol=1e-8, atol=1e-10, min_rows=min_rows))
    # A sample smaller than the data: every law still holds (content-hash keys) but the value
    # is an estimate: tests/clustering/test_centroid.py checks it against the exact value.
    CASES.append(
        LawCase(
            f"{name}[sampled]",
            (lambda cls=cls: cls(sample_size=8, seed=3)),
            _points,
            None,
            rtol=1e-8,
            atol=1e-10,
            tags=frozenset({"approximate"}),
        )
    )

CASES += [
    LawCase(
        "DaviesBouldin[two-pass]", _two_pass(sm.DaviesBouldin), _points, _fixed(ref_db), rtol=1e-8, atol=1e-10
    ),
    LawCase(
        "SimplifiedSilhouette[two-pass]",
        _two_pass(sm.SimplifiedSilhouette),
        _points,
        _fixed(ref_simplified_silhouette),
        rtol=1e-8,
        atol=1e-10,
    ),
    LawCase(
        "DaviesBouldinStar[two-pass]",
        _two_pass(sm.DaviesBouldinStar),
        _points,
        _fixed(ref_db_star),
        rtol=1e-8,
        atol=1e-10,
    ),
    LawCase(
        "ScoreFunction[two-pass]",
        _two_pass(sm.ScoreFunction),
        _points,
        _fixed(ref_score_function),
        rtol=1e-8,
        atol=1e-10,
    ),
    # The reference here is scikit-learn itself (unweighted) with in-memory centroids: the
    # sampled class with a sample that holds every row.
    LawCase("DaviesBouldin[sklearn]", sm.DaviesBouldin, _points, _sk_db, rtol=1e-8, atol=1e-10),
]
