"""The internal clustering indices as metrics: ``update(X, labels, sample_weight=None)``.

Exact in streaming (per-cluster moments, revertible): :class:`CalinskiHarabasz`,
:class:`WithinClusterSS`, :class:`BetweenClusterSS`, :class:`NegentropyIncrement`.
Bounded-memory estimates (exact moments plus a mergeable bottom-k sample of the distinct rows):
:class:`Silhouette`, :class:`DaviesBouldin` — exact while fewer than ``sample_size`` distinct
rows were seen, else an estimate whose standard error ``compute_with_error()`` reports.

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

import abc
import warnings
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .._core.inputs import FEATURES_AND_LABELS
from .._core.metric import Metric
from .._core.params import check_number
from .._core.state import State, require_keys
from ..errors import UndefinedMetricWarning
from . import internal as f
from .base import validate_points
from .centroid import FixedCentroidSums, TwoPassMixin, fixed_davies_bouldin
from .moments import ClusterMoments
from .sample import BottomKSample

#: Delete-a-group jackknife groups for the standard error of sampled indices.
JACKKNIFE_GROUPS = 20


class Estimate(NamedTuple):
    """A sampled index with its uncertainty.

    Examples:
        >>> e = Estimate(value=0.5, stderr=0.01, exact=False, sample_rows=1000, distinct_rows=1000.0)
        >>> [round(v, 4) for v in e.bounds()]
        [0.4804, 0.5196]
    """

    value: float
    stderr: float
    exact: bool
    sample_rows: int
    distinct_rows: float

    def bounds(self, z: float = 1.96) -> tuple[float, float]:
        """``value -+ z * stderr`` (a normal-approximation interval; a point when exact)."""
        return self.value - z * self.stderr, self.value + z * self.stderr


class InternalMetric(Metric[Any]):
    """An internal index: ``update(X, labels, sample_weight=None)`` with a 2-D ``X``.

    ``X`` must keep its number of features between batches; NaN or infinite features raise
    :class:`~streammetrics.InputError`. Weights are frequency weights. Fewer than 2 clusters
    (or, for the distance indices, as many clusters as rows) make the index undefined:
    ``compute()`` warns :class:`~streammetrics.UndefinedMetricWarning` and returns NaN.
    """

    roles: ClassVar[tuple[str, ...]] = ("X", "labels")
    convention: ClassVar[str | None] = FEATURES_AND_LABELS

    def get_config(self) -> dict[str, Any]:
        return {}

    def _n_features(self) -> int | None:
        return self._state.n_features

    def _validate(self, X: Any, labels: Any, sample_weight: Any = None) -> Any:
        return validate_points(X, labels, sample_weight, self._n_features())

    def _apply(self, state: Any, batch: Any) -> None:
        state.add(*batch)

    def _compute(self, state: Any) -> float:
        value = self._formula(state)
        if np.isnan(value):
            warnings.warn(
                f"{type(self).__name__} is undefined here (fewer than 2 clusters, as many clusters as "
                "rows, or a singular covariance); returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
        return value

    @abc.abstractmethod
    def _formula(self, state: Any) -> float:
        """The index on a non-empty state."""


class MomentsMetric(InternalMetric):
    """An index exact in streaming: a formula on :class:`ClusterMoments`."""

    full: ClassVar[bool] = False

    def _make_state(self) -> ClusterMoments:
        return ClusterMoments(full=self.full)

    def _unapply(self, state: ClusterMoments, batch: Any) -> None:
        if batch is None:
            super()._unapply(state, batch)
        state.add(*batch, sign=-1)

    def _is_empty(self, state: ClusterMoments) -> bool:
        return state.n_clusters == 0


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


# ---------------------------------------------------------------------- sampled indices
class ClusterSample(State):
    """Exact per-cluster moments plus a bottom-k sample of the distinct rows (not revertible).

    Examples:
        >>> import numpy as np
        >>> s = ClusterSample(sample_size=10, seed=0)
        >>> s.add(np.array([[0.0], [1.0]]), np.array([0, 1]), None)
        >>> s.n_samples, len(s.sample.keys), s.moments.n_clusters
        (2, 2, 2)
    """

    def __init__(self, sample_size: int = 1000, seed: int = 0) -> None:
        self.moments = ClusterMoments()
        self.sample = BottomKSample(sample_size, seed)

    @property
    def n_samples(self) -> int:
        return self.moments.n_samples

    @property
    def n_features(self) -> int | None:
        return self.moments.n_features

    def config(self) -> dict[str, Any]:
        return self.sample.config()

    def add(self, x: np.ndarray, labels: np.ndarray, w: np.ndarray | None) -> None:
        moments, sample = self.moments.copy(), self.sample.copy()
        moments.add(x, labels, w)
        sample.add(x, labels, w)
        self.moments, self.sample = moments, sample  # atomic

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ClusterSample)
        moments, sample = self.moments.copy(), self.sample.copy()
        moments.merge(other.moments)
        sample.merge(other.sample)
        self.moments, self.sample = moments, sample

    def reset(self) -> None:
        self.moments.reset()
        self.sample.reset()

    def to_dict(self) -> dict[str, Any]:
        return {"moments": self.moments.to_dict(), "sample": self.sample.to_dict()}

    def load_dict(self, data: dict[str, Any]) -> None:
        require_keys(data, {"moments", "sample"}, "ClusterSample state")
        self.moments.load_dict(data["moments"])
        self.sample.load_dict(data["sample"])

    def check(self) -> None:
        self.moments.check()
        self.sample.check()


class SampledMetric(InternalMetric):
    """A distance-based index estimated on a mergeable sample (exact while it holds every row).

    Args:
        sample_size: the number of distinct rows kept (memory ``sample_size x n_features``;
            compute time grows as ``sample_size^2``).
        seed: salt of the row hashes: the same seed gives the same sample for the same data in
            any batching or merge order; shards to merge must share it.
    """

    def __init__(self, sample_size: int = 1000, seed: int = 0) -> None:
        self.sample_size = check_number("sample_size", sample_size, low=2, integer=True)
        self.seed = check_number("seed", seed, low=0, integer=True)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"sample_size": self.sample_size, "seed": self.seed}

    def _make_state(self) -> ClusterSample:
        return ClusterSample(self.sample_size, self.seed)

    def _is_empty(self, state: ClusterSample) -> bool:
        return state.moments.n_clusters == 0

    def _formula(self, state: ClusterSample) -> float:
        return self._estimate(state).value

    def compute_with_error(self) -> Estimate:
        """The value with its jackknife standard error (0 and ``exact=True`` while exact)."""
        with self._lock:
            if self._is_empty(self._state):
                value = self.compute()
                return Estimate(value, float("nan"), False, 0, 0.0)
            return self._estimate(self._state)

    def bounds(self, z: float = 1.96) -> tuple[float, float]:
        """An approximate interval ``value -+ z * stderr`` (exactly the value while exact)."""
        return self.compute_with_error().bounds(z)

    def _estimate(self, state: ClusterSample) -> Estimate:
        moments, sample = state.moments, state.sample
        k, total = moments.n_clusters, moments.total_weight()
        m = len(sample.keys)
        nan = Estimate(float("nan"), float("nan"), not sample.saturated, m, sample.distinct_estimate())
        if k < 2 or k > total - 1:
            return nan
        idx, _ = moments.labels.encode(sample.labels, "labels")
        groups = np.arange(m) % min(JACKKNIFE_GROUPS, m)
        value, replicates = self._on_sample(moments, sample.x, idx, sample.weights, groups)
        if np.isnan(value):
            return nan
        if not sample.saturated:
            return Estimate(value, 0.0, True, m, float(m))
        reps = replicates[np.isfinite(replicates)]
        g = len(reps)
        distinct = sample.distinct_estimate()
        fpc = max(0.0, 1.0 - m / distinct)
        stderr = (
            float(np.sqrt((g - 1) / g * np.sum((reps - reps.mean()) ** 2) * fpc)) if g > 1 else float("nan")
        )
        return Estimate(value, stderr, False, m, distinct)

    @abc.abstractmethod
    def _on_sample(
        self, moments: ClusterMoments, x: np.ndarray, idx: np.ndarray, w: np.ndarray, groups: np.ndarray
    ) -> tuple[float, np.ndarray]:
        """The index on the sample and its delete-a-group jackknife replicates."""


class Silhouette(SampledMetric):
    """Mean silhouette coefficient (Euclidean); a mergeable bounded-memory estimate. Seeds 000, 001, 004.

    :func:`sklearn.metrics.silhouette_score`. Exact (equal to scikit-learn) while at most
    ``sample_size`` distinct rows were seen; beyond, the silhouette of a uniform sample of the
    distinct rows (each with its total weight) with a jackknife standard error
    (:meth:`compute_with_error`). Exact in memory: :func:`~streammetrics.clustering.internal.silhouette_score`.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Silhouette().update([[0.0], [1.0], [10.0], [11.0]], [0, 0, 1, 1])
        >>> round(m.compute(), 4), m.compute_with_error().exact
        (0.8997, True)
    """

    higher_is_better: ClassVar[bool | None] = True

    def _on_sample(self, moments, x, idx, w, groups):
        k = moments.n_clusters
        ow = np.zeros((len(x), k))
        ow[np.arange(len(x)), idx] = w
        dist = f.pairwise_distances(x, x)
        dsum = dist @ ow
        cw = ow.sum(axis=0)
        if (cw > 0).sum() < 2:
            return float("nan"), np.empty(0)
        value = float(np.sum(w * f._silhouette_values(dsum, idx, cw)) / w.sum())
        reps = []
        for g in np.unique(groups):
            out = groups == g
            keep = ~out
            if (cw - ow[out].sum(axis=0) > 0).sum() < 2:
                continue
            d_rest = dsum[keep] - dist[np.ix_(keep, out)] @ ow[out]
            s = f._silhouette_values(d_rest, idx[keep], cw - ow[out].sum(axis=0))
            reps.append(np.sum(w[keep] * s) / w[keep].sum())
        return value, np.asarray(reps)


class DaviesBouldin(TwoPassMixin, SampledMetric):
    """Davies-Bouldin index (lower is better); exact centroids, sampled spreads. Seed 004.

    :func:`sklearn.metrics.davies_bouldin_score`. The centroids come from exact per-cluster
    moments; the spreads ``S_k`` (mean distance to the centroid) from the mergeable sample —
    exact while at most ``sample_size`` distinct rows were seen. A cluster with no sampled row
    uses its root-mean-square distance ``sqrt(WSS_k / w_k)``, an upper bound of ``S_k``.

    Exact two-pass mode: ``DaviesBouldin(centroids=pass1)`` with ``pass1`` any state or metric
    with exact centroids (e.g. ``sm.CalinskiHarabasz()`` updated with the same data); its state
    is the per-cluster sums of distances to those fixed centroids (exact, mergeable, revertible;
    see :class:`~streammetrics.clustering.centroid.TwoPassMixin` and
    :func:`~streammetrics.clustering.centroid_metrics.two_pass`).

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
        return fixed_davies_bouldin(state)

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

        value = f.davies_bouldin_from(centroids, spread(np.ones(len(x), dtype=bool)))
        reps = np.array([f.davies_bouldin_from(centroids, spread(groups != g)) for g in np.unique(groups)])
        return value, reps
