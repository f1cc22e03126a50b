"""Centroid-based internal indices as streaming metrics: ``update(X, labels, sample_weight=None)``.

Every class here is a :class:`~streammetrics.clustering.internal.base.SampledMetric`: exact
per-cluster moments (so the centroids, cluster weights and, for :class:`SDbw`, the per-feature
variances are exact) plus a mergeable bottom-k sample of the distinct rows for the quantities
that need the points (spreads, farthest points, densities, nearest neighbours). While at most
``sample_size`` distinct rows were seen the value is exact; beyond, ``estimate()`` gives the
estimate with a delete-a-group jackknife standard error and interval.

The centroid-based ones (:class:`DaviesBouldin`, :class:`SimplifiedSilhouette`,
:class:`DaviesBouldinStar`, :class:`ScoreFunction`) also have an exact two-pass mode:
``Cls(centroids=pass1)`` where ``pass1`` holds exact centroids (e.g. a ``sm.CalinskiHarabasz()``
fed the same data); :func:`~streammetrics.two_pass` runs both passes over re-iterable batches
(:mod:`~streammetrics.clustering.centroid.two_pass`).

Examples:
    >>> import numpy as np, streammetrics as sm
    >>> X = np.array([[0.0], [2.0], [10.0], [12.0]])
    >>> labels = [0, 0, 1, 1]
    >>> sm.DaviesBouldinStar().update(X, labels).compute()
    0.2
    >>> sm.two_pass(sm.SimplifiedSilhouette, [(X[:2], labels[:2]), (X[2:], labels[2:])]).compute()
    0.898989898989899
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..._core.approximate import Estimate, sampled
from ..internal.base import SampledMetric, jackknife
from ..internal.cluster_sample import ClusterSample
from ..internal.functions import davies_bouldin_from
from ..internal.moments import ClusterMoments
from . import density, fixed, geometry, spread, symmetry
from .fixed import FixedCentroidSums
from .two_pass import TwoPassMixin


def _spread(
    moments: ClusterMoments, dist: np.ndarray, idx: np.ndarray, w: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """Sampled ``S_k``; a cluster with no sampled row uses ``sqrt(WSS_k / w_k)`` (as DaviesBouldin)."""
    spread = geometry.per_cluster_mean(dist[mask], idx[mask], w[mask], moments.n_clusters)
    fallback = np.sqrt(moments.scatter / moments.weight)
    return np.where(np.isnan(spread), fallback, spread)


def _top(
    moments: ClusterMoments, dist: np.ndarray, idx: np.ndarray, w: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """Sampled mean distance of the 10% farthest rows; ``sqrt(WSS_k / w_k)`` for unsampled clusters."""
    top = spread.top_share_means(dist[mask], idx[mask], w[mask], moments.n_clusters)
    return np.where(np.isnan(top), np.sqrt(moments.scatter / moments.weight), top)


# ---------------------------------------------------------------------- two-pass capable
class DaviesBouldin(TwoPassMixin, SampledMetric):
    """Davies-Bouldin index (lower is better); exact centroids, sampled spreads. Seed 004.

    :func:`sklearn.metrics.davies_bouldin_score`. The centroids come from exact per-cluster
    moments; the spreads ``S_k`` (mean distance to the centroid) from the mergeable sample —
    exact while at most ``sample_size`` distinct rows were seen. A cluster with no sampled row
    uses its root-mean-square distance ``sqrt(WSS_k / w_k)``, an upper bound of ``S_k``.

    Exact two-pass mode: ``DaviesBouldin(centroids=pass1)`` with ``pass1`` any state or metric
    with exact centroids (e.g. ``sm.CalinskiHarabasz()`` updated with the same data); its state
    is the per-cluster sums of distances to those fixed centroids (exact, mergeable, revertible;
    see :class:`~streammetrics.clustering.centroid.two_pass.TwoPassMixin` and
    :func:`~streammetrics.two_pass`).

    Examples:
        >>> import streammetrics as sm
        >>> X, labels = [[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]
        >>> sm.DaviesBouldin().update(X, labels).compute()
        0.2
        >>> pass1 = sm.CalinskiHarabasz().update(X, labels)
        >>> sm.DaviesBouldin(centroids=pass1).update(X, labels).compute()
        0.2
    """

    higher_is_better: ClassVar[bool | None] = False

    def _fixed_formula(self, state: FixedCentroidSums) -> float:
        return fixed.fixed_davies_bouldin(state)

    def _on_sample(self, moments, x, idx, w, groups):
        k = moments.n_clusters
        centroids = moments.mean
        d = np.sqrt(np.einsum("ij,ij->i", x - centroids[idx], x - centroids[idx]))
        fallback = np.sqrt(moments.scatter / moments.weight)

        def spread(mask: np.ndarray) -> np.ndarray:
            num = np.bincount(idx[mask], weights=(w * d)[mask], minlength=k)
            den = np.bincount(idx[mask], weights=w[mask], minlength=k)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(den > 0, num / den, fallback)

        return jackknife(lambda m: davies_bouldin_from(centroids, spread(m)), groups)


class SimplifiedSilhouette(TwoPassMixin, SampledMetric):
    """Simplified silhouette (higher is better; seed 004): ``a`` and ``b`` are distances to centroids.

    ``s_i = (b_i - a_i) / max(a_i, b_i)`` with ``a_i`` the distance to the row's centroid and
    ``b_i`` to the nearest other centroid; the weighted mean over rows. Exact centroids from the
    moments, the rows from the sample (exact while the sample holds every distinct row); exact
    two-pass mode with ``centroids=``. In memory:
    :func:`~streammetrics.clustering.internal.functions.simplified_silhouette_score` (which, unlike this
    metric, does not return NaN when every row is its own cluster). No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> X, labels = [[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]
        >>> sm.SimplifiedSilhouette().update(X, labels).compute()
        0.898989898989899
        >>> pass1 = sm.CalinskiHarabasz().update(X, labels)
        >>> sm.SimplifiedSilhouette(centroids=pass1).update(X, labels).compute()
        0.898989898989899
    """

    higher_is_better: ClassVar[bool | None] = True
    _needs_silhouette = True

    def _on_sample(self, moments, x, idx, w, groups):
        s = geometry.simplified_silhouettes(x, idx, moments.mean)
        return jackknife(lambda m: float(np.sum(w[m] * s[m]) / np.sum(w[m])), groups)

    def _fixed_formula(self, state: FixedCentroidSums) -> float:
        return fixed.fixed_simplified_silhouette(state)


class DaviesBouldinStar(TwoPassMixin, SampledMetric):
    """DB* (lower is better; seed 004, Kim and Ramakrishna 2005): per cluster the largest spread
    sum over the smallest centroid distance, ``mean_k max_l(S_k + S_l) / min_l ||c_k - c_l||``.

    Exact centroids, sampled spreads (as :class:`~streammetrics.DaviesBouldin`); exact two-pass
    mode with ``centroids=``. In memory: :func:`~streammetrics.clustering.centroid.spread.davies_bouldin_star`.
    No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> X, labels = [[0.0], [2.0], [10.0], [12.0], [30.0], [32.0]], [0, 0, 1, 1, 2, 2]
        >>> round(sm.DaviesBouldinStar().update(X, labels).compute(), 6)
        0.166667
    """

    higher_is_better: ClassVar[bool | None] = False

    def _on_sample(self, moments, x, idx, w, groups):
        dist = geometry.distances_to_own(x, idx, moments.mean)
        return jackknife(
            lambda m: spread.davies_bouldin_star_from(moments.mean, _spread(moments, dist, idx, w, m)), groups
        )

    def _fixed_formula(self, state: FixedCentroidSums) -> float:
        return fixed.fixed_davies_bouldin_star(state)


class ScoreFunction(TwoPassMixin, SampledMetric):
    """Score function (higher is better; seed 004, Saitta, Raphael and Smith 2007).

    ``1 - 1 / exp(exp(bcd - wcd))``: ``bcd`` (exact, from the moments) is the weighted distance
    of the centroids to the grand mean over ``N K``, ``wcd`` the sum of the spreads ``S_k``
    (sampled; exact in the two-pass mode with ``centroids=``). Seed 004's ``bcd + wcd`` is a typo
    corrected to the paper's ``bcd - wcd``. In memory:
    :func:`~streammetrics.clustering.centroid.spread.score_function`. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.ScoreFunction().update([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]).compute(), 6)
        0.807704
    """

    higher_is_better: ClassVar[bool | None] = True

    def _on_sample(self, moments, x, idx, w, groups):
        dist = geometry.distances_to_own(x, idx, moments.mean)
        return jackknife(
            lambda m: spread.score_function_from(
                moments.mean, moments.weight, _spread(moments, dist, idx, w, m)
            ),
            groups,
        )

    def _fixed_formula(self, state: FixedCentroidSums) -> float:
        return fixed.fixed_score_function(state)


# ---------------------------------------------------------------------- sampled only
class _FullClusterSample(ClusterSample):
    """A :class:`ClusterSample` whose moments keep each cluster's per-feature scatter (the
    diagonals of its scatter matrix: ``K d`` numbers, not the ``K d^2`` of whole matrices)."""

    def __init__(self, sample_size: int = 1000, seed: int = 0) -> None:
        super().__init__(sample_size, seed)
        self.moments = ClusterMoments(full="diagonal")

    def config(self) -> dict[str, Any]:
        return {**super().config(), "full": "diagonal"}


class SDbw(SampledMetric):
    """S_Dbw (lower is better; seed 004, Halkidi and Vazirgiannis 2001): scattering plus density.

    ``Scat = mean_k ||sigma(c_k)|| / ||sigma(X)||`` (per-feature variance vectors) and the radius
    ``stdev(C) = sqrt(sum_k ||sigma(c_k)||) / K`` are exact (each cluster's per-feature scatter,
    memory ``K d``); the densities around the centroids and their midpoints are
    counted on the sample (ratios of weights). When the radius is small against the clusters'
    spread (e.g. many features) few sampled rows fall inside it and the density term is poorly
    estimated: if fewer than ``MIN_NEAR_ROWS`` sampled rows lie within the radius of some
    centroid, ``estimate()`` reports a NaN standard error. In memory:
    :func:`~streammetrics.clustering.centroid.density.s_dbw`. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> X, labels = [[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]], [0, 0, 0, 1, 1, 1]
        >>> round(sm.SDbw().update(X, labels).compute(), 6)
        0.025974
    """

    higher_is_better: ClassVar[bool | None] = False
    #: 2: the moments keep each cluster's per-feature scatter, not whole scatter matrices (a
    #: version-1 state's matrices are read by their diagonals).
    version: ClassVar[int] = 2

    #: Sampled rows needed within ``stdev(C)`` of every centroid for a standard error.
    MIN_NEAR_ROWS: ClassVar[int] = 10

    def _make_state(self) -> ClusterSample:
        return _FullClusterSample(self.sample_size, self.seed)

    def _estimate(self, state: ClusterSample, error: bool = True) -> Estimate:
        est = super()._estimate(state, error)
        if not error or est.exact or np.isnan(est.value):
            return est
        moments, sample = state.moments, state.sample
        idx, _ = moments.labels.encode(sample.labels, "labels")
        var_k = moments.feature_scatter() / moments.weight[:, None]
        near = geometry.distances_to_own(sample.x, idx, moments.mean) <= density.sdbw_radius(var_k)
        if np.bincount(idx[near], minlength=moments.n_clusters).min() < self.MIN_NEAR_ROWS:
            # rare-event densities: no reliable error
            return sampled(
                est.value,
                float("nan"),
                exact=False,
                sample_rows=est.sample_rows,
                distinct_rows=est.distinct_rows,
            )
        return est

    def _on_sample(self, moments, x, idx, w, groups):
        var_k = moments.feature_scatter() / moments.weight[:, None]
        diff = moments.mean - moments.grand_mean()
        total = moments.feature_scatter().sum(axis=0) + moments.weight @ diff**2
        var_x = total / moments.total_weight()
        radius = density.sdbw_radius(var_k)

        def value(m: np.ndarray) -> float:
            den, pair = density.sdbw_densities(x[m], idx[m], w[m], moments.mean, radius)
            return density.s_dbw_from(var_k, var_x, den, pair)

        return jackknife(value, groups)


class SVIndex(SampledMetric):
    """SV index (higher is better; seed 004, Zalik and Zalik 2011).

    Separation ``sum_k min_l ||c_k - c_l||`` (exact) over compactness ``sum_k T_k``, ``T_k`` the
    mean distance to the centroid of the 10% farthest points of cluster ``k`` (sampled; a
    cluster with no sampled row uses ``sqrt(WSS_k / w_k)``). In memory:
    :func:`~streammetrics.clustering.centroid.spread.sv_index`. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> sm.SVIndex().update([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]).compute()
        10.0
    """

    higher_is_better: ClassVar[bool | None] = True

    def _on_sample(self, moments, x, idx, w, groups):
        dist = geometry.distances_to_own(x, idx, moments.mean)
        return jackknife(lambda m: spread.sv_from(moments.mean, _top(moments, dist, idx, w, m)), groups)


class OSIndex(SampledMetric):
    """OS index (higher is better; seed 004, Zalik and Zalik 2011): overlap over compactness.

    ``sum_i ov(x_i) / sum_k T_k`` (see :func:`~streammetrics.clustering.centroid.spread.overlap_sum`;
    ``T_k`` as :class:`SVIndex`). The overlap sum is that of the sample scaled by
    ``N / N_sample``, its ``a`` and ``b`` computed among the sampled rows (``b`` over the
    nearest ``|c_k|`` sampled outside rows, the same share of the outside as in the data).
    ``O(sample_size^2)`` per evaluation. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.OSIndex().update([[0.0], [1.0], [1.5], [3.0]], [0, 0, 1, 1]).compute(), 6)
        0.6
    """

    higher_is_better: ClassVar[bool | None] = True

    def _on_sample(self, moments, x, idx, w, groups):
        dist = geometry.distances_to_own(x, idx, moments.mean)
        total, k = moments.total_weight(), moments.n_clusters

        def value(m: np.ndarray) -> float:
            overlap = spread.overlap_sum(x[m], idx[m], w[m], k) * total / w[m].sum()
            return spread.os_from(overlap, _top(moments, dist, idx, w, m))

        return jackknife(value, groups)


class _SymSampled(SampledMetric):
    """The point-symmetry family on the sample, with exact centroids.

    The point-symmetry distance is a nearest-neighbour quantity: on a sample the neighbours
    are farther than in the data, so beyond ``sample_size`` distinct rows the value is that of
    the sample (biased, and the jackknife error does not cover the bias); exact while the
    sample holds every row.
    """

    def _on_sample(self, moments, x, idx, w, groups):
        dps = symmetry.point_symmetry_distances(x, idx, w, moments.mean)
        return jackknife(lambda m: self._sym(moments, x[m], idx[m], w[m], dps[m]), groups)

    def _sym(self, moments, x, idx, w, dps) -> float:
        raise NotImplementedError  # pragma: no cover


class SymIndex(_SymSampled):
    """Sym index (higher is better; seed 004, Bandyopadhyay and Saha 2008).

    ``max_{k,l} ||c_k - c_l|| / (K sum_i d*_ps(x_i, c_k))``: the largest centroid distance
    (exact) over ``K`` times the total point-symmetry distance (the sample's, scaled by
    ``N / N_sample``). See :func:`~streammetrics.clustering.centroid.symmetry.point_symmetry_distances`
    for ``d*_ps``. Exact while the sample holds every distinct row; beyond, a biased estimate
    (nearest neighbours in a sample are farther). No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.SymIndex().update([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]).compute(), 6)
        0.567568
    """

    higher_is_better: ClassVar[bool | None] = True

    def _sym(self, moments, x, idx, w, dps):
        return symmetry.sym_from(moments.mean, float(np.sum(w * dps)) * moments.total_weight() / w.sum())


class SymDB(_SymSampled):
    """SymDB (lower is better; seed 004): Davies-Bouldin with ``S_k`` the mean point-symmetry
    distance of cluster ``k`` (over the clusters with sampled rows).

    Seed 004's ``1 / (|c_k| sum d*_ps)`` is a typo for ``(1 / |c_k|) sum d*_ps``. Exact while the
    sample holds every distinct row; beyond, a biased estimate. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.SymDB().update([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]).compute(), 6)
        0.329365
    """

    higher_is_better: ClassVar[bool | None] = False

    def _sym(self, moments, x, idx, w, dps):
        spread = geometry.per_cluster_mean(dps, idx, w, moments.n_clusters)
        present = ~np.isnan(spread)
        if present.sum() < 2:
            return float("nan")
        return davies_bouldin_from(moments.mean[present], spread[present])


class SymDunn(_SymSampled):
    """SymD (higher is better; seed 004): Dunn's index with ``Delta(c_k) = max d*_ps(x, c_k)``.

    Separation: the smallest distance between rows of two clusters (on the sample: an upper
    bound of the data's). Exact while the sample holds every distinct row; beyond, a biased
    estimate. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.SymDunn().update([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]).compute(), 6)
        2.204082
    """

    higher_is_better: ClassVar[bool | None] = True

    def _sym(self, moments, x, idx, w, dps):
        return symmetry.dunn_from(symmetry.single_linkage(x, idx, moments.n_clusters), dps)


class Sym33(_SymSampled):
    """Sym33 (higher is better; seed 004): gD33 with ``Delta(c_k) = 2 mean d*_ps(x, c_k)``.

    Separation: the mean distance between the rows of two clusters (``delta^3``, a mean: well
    estimated by the sample). Seed 004's ``2 / (|c_k| sum d*_ps)`` is a typo for
    ``(2 / |c_k|) sum d*_ps``. Exact while the sample holds every distinct row; beyond, a
    biased estimate. No scikit-learn equivalent.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.Sym33().update([[0.0], [1.0], [4.0], [10.0], [12.0]], [0, 0, 0, 1, 1]).compute(), 6)
        2.25
    """

    higher_is_better: ClassVar[bool | None] = True

    def _sym(self, moments, x, idx, w, dps):
        k = moments.n_clusters
        sep = symmetry.mean_linkage(x, idx, w, k)
        diam = 2.0 * geometry.per_cluster_mean(dps, idx, w, k)
        if np.isnan(diam).all():
            return float("nan")
        return symmetry.dunn_from(np.where(np.isnan(sep), np.inf, sep), diam[~np.isnan(diam)])
