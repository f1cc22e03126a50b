"""The internal indices as metrics: ``update(X, labels, sample_weight=None)``.

Exact in streaming (per-cluster moments, revertible): :class:`CalinskiHarabasz`,
:class:`WithinClusterSS`, :class:`BetweenClusterSS`, :class:`NegentropyIncrement`.
A bounded-memory estimate (exact moments plus a mergeable bottom-k sample of the distinct
rows): :class:`Silhouette` — exact while at most ``sample_size`` distinct rows were seen, else
an estimate whose standard error and interval ``estimate()`` reports. The other sampled indices
are in :mod:`streammetrics.clustering.pairwise` and :mod:`streammetrics.clustering.centroid`
(:class:`~streammetrics.DaviesBouldin` among them).

Examples:
    >>> import numpy as np, streammetrics as sm
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])
    >>> labels = [0, 0, 1, 1]
    >>> round(sm.CalinskiHarabasz().update(X, labels).compute(), 4)
    100.0
    >>> round(sm.Silhouette().update(X[:2], labels[:2]).update(X[2:], labels[2:]).compute(), 4)
    0.8586
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from . import formulas as f
from .base import MomentsMetric, SampledMetric
from .distances import check_metric, pairwise_distances
from .functions import silhouette_values
from .moments import ClusterMoments


class CalinskiHarabasz(MomentsMetric):
    """Calinski-Harabasz index (variance ratio criterion); exact in streaming. Seeds 000, 004.

    :func:`sklearn.metrics.calinski_harabasz_score`. Seed 004 writes the dispersions with plain
    norms; the index uses squared norms (a typo corrected, as scikit-learn).

    Examples:
        >>> import streammetrics as sm
        >>> sm.CalinskiHarabasz().update([[0.0], [2.0], [5.0], [7.0]], [0, 0, 1, 1]).compute()
        12.5
    """

    higher_is_better: ClassVar[bool | None] = True

    def _formula(self, state: ClusterMoments) -> float:
        return f.calinski_harabasz(state)


class WithinClusterSS(MomentsMetric):
    """Within-cluster sum of squares (cohesion, seed 004 WSS); exact in streaming. Defined for one cluster.

    Examples:
        >>> import streammetrics as sm
        >>> sm.WithinClusterSS().update([[0.0], [2.0], [5.0], [7.0]], [0, 0, 1, 1]).compute()
        4.0
    """

    higher_is_better: ClassVar[bool | None] = False

    def _formula(self, state: ClusterMoments) -> float:
        return f.within_ss(state)


class BetweenClusterSS(MomentsMetric):
    """Between-cluster sum of squares (separation, seed 004 BSS; its ``n`` corrected to ``|C_k|``).

    Examples:
        >>> import streammetrics as sm
        >>> sm.BetweenClusterSS().update([[0.0], [2.0], [5.0], [7.0]], [0, 0, 1, 1]).compute()
        25.0
    """

    higher_is_better: ClassVar[bool | None] = True

    def _formula(self, state: ClusterMoments) -> float:
        return f.between_ss(state)


class NegentropyIncrement(MomentsMetric):
    """Negentropy increment (seed 004); lower is better; exact in streaming (full scatter matrices).

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> rng = np.random.default_rng(0)
        >>> X = np.concatenate([rng.normal(0, 1, (50, 2)), rng.normal(8, 1, (50, 2))])
        >>> sm.NegentropyIncrement().update(X, np.repeat([0, 1], 50)).compute() < 0
        True
    """

    higher_is_better: ClassVar[bool | None] = False
    full: ClassVar[bool] = True

    def _formula(self, state: ClusterMoments) -> float:
        return f.negentropy_increment(state)


class Silhouette(SampledMetric):
    """Mean silhouette coefficient; a mergeable bounded-memory estimate. Seeds 000, 001, 004.

    :func:`sklearn.metrics.silhouette_score`, with its ``metric=`` among Euclidean, Manhattan,
    cosine, squared Euclidean and Chebyshev. The state is a sample of the distinct rows
    themselves (not per-cluster moments), so every distance between two kept rows is exact
    whatever the metric: exact (equal to scikit-learn) while at most ``sample_size`` distinct rows
    were seen; beyond, the silhouette of a uniform sample of the distinct rows (each with its
    total weight) with a jackknife standard error (:meth:`estimate`), for every metric alike.
    Exact in memory: :func:`~streammetrics.clustering.internal.silhouette_score`.

    Args:
        sample_size: The number of distinct rows kept (memory ``sample_size x n_features``; compute time
            grows as ``sample_size^2``); default 1000.
        seed: Salt of the row hashes: the same seed gives the same sample for the same data in any
            batching or merge order; shards to merge must share it. Default 0.
        metric: The distance between rows, by scikit-learn's names: ``"euclidean"`` (default, also
            ``"l2"``), ``"manhattan"`` (also ``"cityblock"``, ``"l1"``), ``"cosine"`` (``1 - cos``),
            ``"sqeuclidean"`` or ``"chebyshev"``. ``"precomputed"`` and callables are refused: a stream
            has no distance matrix, and a callable could not be saved or merged.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Silhouette().update([[0.0], [1.0], [10.0], [11.0]], [0, 0, 1, 1])
        >>> round(m.compute(), 4), m.compute_with_error().exact
        (0.8997, True)
        >>> m = sm.Silhouette(metric="manhattan").update([[0.0, 0.0], [1.0, 1.0], [9.0, 9.0], [9.0, 8.0]], [0, 0, 1, 1])
        >>> round(m.compute(), 4)
        0.9088
    """

    higher_is_better: ClassVar[bool | None] = True

    def __init__(self, sample_size: int = 1000, seed: int = 0, *, metric: str = "euclidean") -> None:
        self.metric = check_metric(metric)
        super().__init__(sample_size=sample_size, seed=seed)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "metric": self.metric}

    def _on_sample(self, moments, x, idx, w, groups):
        k = moments.n_clusters
        ow = np.zeros((len(x), k))
        ow[np.arange(len(x)), idx] = w
        dist = pairwise_distances(x, x, metric=self.metric)
        dsum = dist @ ow
        # A row is at distance 0 from itself (its other copies keep the metric's distance).
        dsum[np.arange(len(x)), idx] -= np.diag(dist)
        cw = ow.sum(axis=0)
        if (cw > 0).sum() < 2:
            return float("nan"), np.empty(0)
        value = float(np.sum(w * silhouette_values(dsum, idx, cw)) / w.sum())
        if groups is None:
            return value, np.empty(0)
        reps = []
        for g in np.unique(groups):
            out = groups == g
            keep = ~out
            if (cw - ow[out].sum(axis=0) > 0).sum() < 2:
                continue
            d_rest = dsum[keep] - dist[np.ix_(keep, out)] @ ow[out]
            s = silhouette_values(d_rest, idx[keep], cw - ow[out].sum(axis=0))
            reps.append(np.sum(w[keep] * s) / w[keep].sum())
        return value, np.asarray(reps)
