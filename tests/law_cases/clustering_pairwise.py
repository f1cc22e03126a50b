"""Law cases of the pairwise-distance internal indices (issue 5, seed 004).

References are written here with plain loops over clusters and pairs on
``scipy.spatial.distance.cdist`` distances, independently of streammetrics. Weights are
frequency weights generalized to fractional values: a row of weight ``w`` is ``w`` points, pairs
of two rows count ``w_i w_j`` times and a row's own copies add ``w (w - 1) / 2`` pairs at
distance 0.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

import streammetrics as sm

from . import LawCase

NAN = float("nan")


def _points(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, 3, n)
    centres = np.array([[0.0, 0.0], [3.0, 1.0], [0.5, 4.0]])
    return centres[labels] + rng.normal(0, 1, (n, 2)), labels


def _setup(X, labels, w):
    X, labels = np.asarray(X, float), np.asarray(labels)
    w = np.ones(len(X)) if w is None else np.asarray(w, float)
    keep = w > 0
    X, labels, w = X[keep], labels[keep], w[keep]
    ks = list(np.unique(labels))
    if len(ks) < 2 or len(ks) > w.sum() - 1:
        return None
    members = [np.flatnonzero(labels == k) for k in ks]
    wk = np.array([w[m].sum() for m in members])
    means = np.array([(w[m][:, None] * X[m]).sum(0) / w[m].sum() for m in members])
    to_centre = [np.sqrt(((X[m] - means[c]) ** 2).sum(1)) for c, m in enumerate(members)]
    spread = np.array([(w[m] * to_centre[c]).sum() / wk[c] for c, m in enumerate(members)])
    return X, labels, w, members, wk, means, spread, cdist(X, X)


def _gdunn(separation, compactness):
    def ref(X, labels, sample_weight=None):
        s = _setup(X, labels, sample_weight)
        if s is None:
            return NAN
        X, labels, w, members, wk, means, spread, D = s
        K = len(members)
        seps = []
        for a in range(K):
            for b in range(K):
                if a == b:
                    continue
                block = D[np.ix_(members[a], members[b])]
                if separation == 1:
                    seps.append(block.min())
                elif separation == 3:
                    seps.append((np.outer(w[members[a]], w[members[b]]) * block).sum() / (wk[a] * wk[b]))
                elif separation == 4:
                    seps.append(np.linalg.norm(means[a] - means[b]))
                else:
                    seps.append((wk[a] * spread[a] + wk[b] * spread[b]) / (wk[a] + wk[b]))
        if compactness == 1:
            comp = max(D[np.ix_(m, m)].max() for m in members)
        elif compactness == "radius":
            comp = max(np.linalg.norm(X[m] - means[a], axis=1).max() for a, m in enumerate(members))
        else:
            comp = max(2 * spread)
        return NAN if comp <= 0 else min(seps) / comp

    return ref


def _all_pairs(labels, w, D):
    """Distinct pairs (distance, multiplicity, same cluster) and the self-pair mass."""
    n = len(w)
    d, mult, same = [], [], []
    for i in range(n):
        for j in range(i + 1, n):
            d.append(D[i, j])
            mult.append(w[i] * w[j])
            same.append(labels[i] == labels[j])
    return np.array(d), np.array(mult), np.array(same, dtype=bool), float((w * (w - 1) / 2).sum())


def _greedy_sum(values, masses, amount):
    """Sum of ``amount`` units taken from the values in the given order (last one partial)."""
    total, left = 0.0, amount
    for v, m in zip(values, masses, strict=True):
        if left <= 0:
            break
        take = min(m, left)
        total += take * v
        left -= take
    return total


def _c_index(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    X, labels, w, _members, wk, *_, D = s
    d, mult, same, self_pairs = _all_pairs(labels, w, D)
    n_w = float((wk * (wk - 1) / 2).sum())
    within = (mult[same] * d[same]).sum()
    order = np.argsort(d)
    # the n_w smallest: the self pairs (distance 0) first, then the smallest distinct pairs
    s_min = _greedy_sum(d[order], mult[order], n_w - self_pairs)
    s_max = _greedy_sum(d[order][::-1], mult[order][::-1], min(max(n_w, 0.0), mult.sum()))
    if s_max - s_min <= 1e-12 * abs(s_max):
        return NAN
    return (within - s_min) / (s_max - s_min)


def _gamma(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    X, labels, w, _members, wk, *_, D = s
    d, mult, same, _ = _all_pairs(labels, w, D)
    n_w = float((wk * (wk - 1) / 2).sum())
    n_b = float(sum(wk[a] * wk[b] for a in range(len(wk)) for b in range(a + 1, len(wk))))
    db, mb = d[~same], mult[~same]
    # strictly closer; distances equal up to rounding are ties
    discordant = sum(
        m * mb[db < dist * (1 - 1e-11)].sum() for dist, m in zip(d[same], mult[same], strict=True)
    )
    return NAN if n_w <= 0 or n_b <= 0 else discordant / (n_w * n_b)


def _hubert(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    X, labels, w, _members, _wk, *_, D = s
    d, mult, same, self_pairs = _all_pairs(labels, w, D)
    # weighted Pearson correlation of (d, q) with the self pairs at (0, 0)
    d = np.append(d, 0.0)
    q = np.append((~same).astype(float), 0.0)
    m = np.append(mult, self_pairs)
    t = m.sum()
    md, mq = (m * d).sum() / t, (m * q).sum() / t
    cov = (m * (d - md) * (q - mq)).sum() / t
    vd, vq = (m * (d - md) ** 2).sum() / t, (m * (q - mq) ** 2).sum() / t
    if vd <= 0 or vq <= 0 or (m * q).sum() <= 0 or t - (m * q).sum() <= 0:
        return NAN
    return cov / np.sqrt(vd * vq)


def _cop(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    X, labels, _w, members, wk, _means, spread, D = s
    total = 0.0
    for c, m in enumerate(members):
        outside = np.setdiff1d(np.arange(len(X)), m)
        inter = D[np.ix_(outside, m)].max(axis=1).min()
        total += wk[c] * (spread[c] / inter if spread[c] > 0 else 0.0)
    return total / wk.sum()


def _cs(X, labels, sample_weight=None):
    s = _setup(X, labels, sample_weight)
    if s is None:
        return NAN
    X, labels, w, members, wk, means, _spread, D = s
    num = sum((w[m] * D[np.ix_(m, m)].max(axis=1)).sum() / wk[c] for c, m in enumerate(members))
    cd = cdist(means, means)
    np.fill_diagonal(cd, np.inf)
    den = cd.min(axis=1).sum()
    return NAN if den <= 0 else num / den


_TOL = {"rtol": 1e-8, "atol": 1e-10}
CASES = [
    LawCase("DunnIndex", sm.DunnIndex, _points, _gdunn(1, 1), **_TOL),
    LawCase("CIndex", sm.CIndex, _points, _c_index, **_TOL),
    LawCase("GammaIndex", sm.GammaIndex, _points, _gamma, **_TOL),
    LawCase("HubertGamma", sm.HubertGamma, _points, _hubert, **_TOL),
    LawCase("COPIndex", sm.COPIndex, _points, _cop, **_TOL),
    LawCase("CSIndex", sm.CSIndex, _points, _cs, **_TOL),
]
CASES += [
    LawCase(
        f"GeneralizedDunn[{s}{c}]",
        lambda s=s, c=c: sm.GeneralizedDunn(separation=s, compactness=c),
        _points,
        _gdunn(s, c),
        **_TOL,
    )
    for s, c in [(3, 1), (4, 1), (5, 1), (3, 3), (4, 3), (5, 3), (4, "radius"), (1, "radius")]
]
# A sample smaller than the data: the estimate still obeys every law (content-hash keys) but
# is not the exact value; tests/clustering/test_pairwise.py checks it against the exact value.
CASES += [
    LawCase(
        f"{name}[sampled]",
        lambda make=make: make(sample_size=8, seed=3),
        _points,
        None,
        tags=frozenset({"approximate"}),
        **_TOL,
    )
    for name, make in [
        ("DunnIndex", sm.DunnIndex),
        ("CIndex", sm.CIndex),
        ("GammaIndex", sm.GammaIndex),
        ("HubertGamma", sm.HubertGamma),
        ("COPIndex", sm.COPIndex),
        ("CSIndex", sm.CSIndex),
        ("GeneralizedDunn", lambda **kw: sm.GeneralizedDunn(separation=5, compactness=3, **kw)),
    ]
]
