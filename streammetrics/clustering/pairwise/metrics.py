"""The pairwise-distance internal indices as streaming metrics: ``update(X, labels, sample_weight=None)``.

:class:`DunnIndex`, :class:`GeneralizedDunn`, :class:`CIndex`, :class:`GammaIndex`,
:class:`HubertGamma`, :class:`COPIndex`, :class:`CSIndex` keep exact per-cluster moments and a
mergeable bottom-k sample of the distinct rows (the state of
:class:`~streammetrics.Silhouette`). They are exact (equal to the functions of
:mod:`streammetrics.clustering.pairwise.functions`) while at most ``sample_size`` distinct rows were seen;
beyond, the index is computed on the sample, with the parts that only need cluster sizes and
centroids (centroid distances, cluster weights, total scatter) taken from the exact moments,
and ``estimate()`` reports a delete-a-group jackknife standard error and interval. Compute costs
``O(sample_size^2)``.

Indices built on extremes (the Dunn diameter and single-linkage separation, COP's farthest
neighbours, CS's farthest in-cluster neighbours) are biased on a sample: a sample can only
miss the extreme pairs (a sample's diameter is at most the true one), and their jackknife error
understates the uncertainty. The averaging ones (gD33, gD43, gD53, C-index, Gamma, Hubert Γ)
are ratio estimators whose jackknife error is meaningful.

Examples:
    >>> import numpy as np, streammetrics as sm
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])
    >>> labels = [0, 0, 1, 1]
    >>> m = sm.CIndex().update(X[:2], labels[:2]).update(X[2:], labels[2:])
    >>> m.compute(), round(sm.DunnIndex().update(X, labels).compute(), 4)
    (0.0, 6.4031)
"""

from __future__ import annotations

import contextvars
from typing import Any, ClassVar

import numpy as np

from ..._core.approximate import Estimate
from ..._core.params import check_option
from ..internal.base import SampledMetric
from ..internal.cluster_sample import ClusterSample
from ..internal.moments import ClusterMoments
from . import pairs, profiles

#: The sampling fraction ``m / D`` of the sample being evaluated (1 while exact): a row's own
#: ``w (w - 1) / 2`` zero-distance pairs are kept at that rate relative to pairs of two rows.
_SELF_SCALE: contextvars.ContextVar[float] = contextvars.ContextVar("_SELF_SCALE", default=1.0)


def _exact_from_moments(moments: ClusterMoments) -> profiles.Exact:
    with np.errstate(invalid="ignore", divide="ignore"):
        fallback = np.sqrt(moments.scatter / moments.weight)
    return profiles.Exact(moments.mean, moments.weight, fallback)


class PairwiseMetric(SampledMetric, base=True):
    """A pairwise-distance index on exact moments plus a mergeable sample (see the module)."""

    def _estimate(self, state: ClusterSample, error: bool = True) -> Estimate:
        sample = state.sample
        m = len(sample.keys)
        scale = m / sample.distinct_estimate() if sample.saturated and m else 1.0
        token = _SELF_SCALE.set(scale)
        try:
            return super()._estimate(state, error)
        finally:
            _SELF_SCALE.reset(token)


class _ProfileMetric(PairwiseMetric):
    _name: ClassVar[str]

    def _options(self) -> dict[str, Any]:
        return {}

    def _on_sample(self, moments, x, idx, w, groups):
        return profiles.profile_index(
            self._name,
            x,
            idx,
            w,
            moments.n_clusters,
            _exact_from_moments(moments),
            groups,
            _SELF_SCALE.get(),
            **self._options(),
        )


class _PairMetric(PairwiseMetric):
    _name: ClassVar[str]

    def _on_sample(self, moments, x, idx, w, groups):
        return pairs.pair_index(self._name, x, idx, w, groups, _SELF_SCALE.get())


class GeneralizedDunn(_ProfileMetric):
    """Generalized Dunn index gD\\ *sc* (Bezdek and Pal 1998; seed 004); higher is better.

    ``separation`` in 1 (single linkage), 3 (average linkage), 4 (centroid distance), 5 (mean
    distance to the two centroids); ``compactness`` in 1 (diameter), 3 (twice the mean distance
    to the centroid), ``"radius"`` (the largest distance from a row to its centroid): gD31, gD41,
    gD51, gD33, gD43, gD53 of seed 004, (1, 1) the Dunn index, and ``(4, "radius")``
    torchmetrics' ``DunnIndex`` (centroid distances over the largest radius; Euclidean, its
    ``p=2``). Centroids and cluster weights are exact; the distances come from the sample (exact
    while it holds every distinct row). With compactness 1 or ``"radius"``, or separation 1, the
    sampled value is biased upwards (a sample's diameter and radius can only be smaller, its
    closest pair farther). Exact in memory:
    :func:`~streammetrics.clustering.pairwise.generalized_dunn_index`.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.GeneralizedDunn(separation=4, compactness=3)
        >>> m.update([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]).compute()
        5.0
        >>> m = sm.GeneralizedDunn(separation=4, compactness="radius")  # torchmetrics' DunnIndex
        >>> m.update([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]).compute()
        10.0
    """

    higher_is_better: ClassVar[bool | None] = True
    _name = "dunn"

    def __init__(
        self, separation: int = 3, compactness: int | str = 3, sample_size: int = 1000, seed: int = 0
    ):
        self.separation = check_option("separation", separation, profiles.SEPARATIONS)
        self.compactness = check_option("compactness", compactness, profiles.COMPACTNESS)
        super().__init__(sample_size, seed)

    def get_config(self) -> dict[str, Any]:
        return {"separation": self.separation, "compactness": self.compactness, **super().get_config()}

    def _options(self) -> dict[str, Any]:
        return {"separation": self.separation, "compactness": self.compactness}


class DunnIndex(_ProfileMetric):
    """Dunn index (seed 004): smallest between-cluster distance over largest diameter; higher is better.

    Exact while the sample holds every distinct row (see :class:`GeneralizedDunn`); beyond, an
    upper estimate (a sample's diameter can only be smaller and its closest pair farther).
    Exact in memory: :func:`~streammetrics.clustering.pairwise.dunn_index`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.DunnIndex().update([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]).compute()
        4.0
    """

    higher_is_better: ClassVar[bool | None] = True
    _name = "dunn"

    def _options(self) -> dict[str, Any]:
        return {"separation": 1, "compactness": 1}


class CIndex(_PairMetric):
    """C-index (Hubert and Levin 1976; seed 004); lower is better, in [0, 1].

    On the sample's pairs (exact while it holds every distinct row). Exact in memory:
    :func:`~streammetrics.clustering.pairwise.c_index`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.CIndex().update([[0.0], [5.0], [1.0], [7.0]], [0, 0, 1, 1]).compute()
        0.8
    """

    higher_is_better: ClassVar[bool | None] = False
    _name = "c"


class GammaIndex(_PairMetric):
    """Gamma index (Baker and Hubert 1975 as in Arbelaitz et al. 2013; seed 004); lower is better.

    The share of (within-cluster pair, between-cluster pair) comparisons where the between pair
    is strictly closer; seed 004's extra ``|c_k|`` factor is a typo, corrected. Exact in memory:
    :func:`~streammetrics.clustering.pairwise.gamma_index`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.GammaIndex().update([[0.0], [5.0], [1.0], [7.0]], [0, 0, 1, 1]).compute()
        0.75
    """

    higher_is_better: ClassVar[bool | None] = False
    _name = "gamma"


class HubertGamma(_ProfileMetric):
    """Normalized Hubert Γ statistic (seed 004); higher is better, in [-1, 1].

    The correlation over all pairs between the distance and the "different clusters"
    indicator, computed on the sample's pairs (exact while it holds every distinct row). Exact
    in memory:
    :func:`~streammetrics.clustering.pairwise.hubert_gamma`.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.HubertGamma().update([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]).compute(), 4)
        0.9562
    """

    higher_is_better: ClassVar[bool | None] = True
    _name = "hubert"


class COPIndex(_ProfileMetric):
    """COP index (Gurrutxaga et al. 2010; seed 004); lower is better.

    Cluster weights and centroids are exact; the mean distances to the centroids and the
    farthest-neighbour separations come from the sample (a cluster with no sampled row is left
    out). Exact in memory: :func:`~streammetrics.clustering.pairwise.cop_index`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.COPIndex().update([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]).compute()
        0.1
    """

    higher_is_better: ClassVar[bool | None] = False
    _name = "cop"


class CSIndex(_ProfileMetric):
    """CS index (Chou, Su and Lai 2004; seed 004); lower is better.

    The centroid distances (denominator) are exact; the mean farthest in-cluster distances come
    from the sample (biased low beyond it). Exact in memory:
    :func:`~streammetrics.clustering.pairwise.cs_index`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.CSIndex().update([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]).compute()
        0.2
    """

    higher_is_better: ClassVar[bool | None] = False
    _name = "cs"
