"""The base classes of the internal indices: ``update(X, labels, sample_weight=None)``.

:class:`InternalMetric` parses the points; :class:`MomentsMetric` is exact in streaming (a
formula on :class:`~streammetrics.clustering.internal.moments.ClusterMoments`, revertible);
:class:`SampledMetric` is a distance-based index on exact moments plus a mergeable sample,
exact while the sample holds every distinct row and otherwise an estimate whose
delete-a-group jackknife standard error :meth:`SampledMetric.estimate` reports.
"""

from __future__ import annotations

import abc
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..._core.approximate import Estimate, Z, sampled
from ..._core.inputs import FEATURES_AND_LABELS
from ..._core.metric import Metric
from ..._core.onerow import OneRowMixin
from ..._core.params import check_number
from ...errors import UndefinedMetricWarning
from ..inputs import validate_points
from .cluster_sample import ClusterSample
from .moments import ClusterMoments
from .rows import PointRows

#: Delete-a-group jackknife groups for the standard error of sampled indices.
JACKKNIFE_GROUPS = 20


def jackknife(fn: Callable[[np.ndarray], float], groups: np.ndarray | None) -> tuple[float, np.ndarray]:
    """``fn`` on every sampled row, and with each jackknife group left out (``fn`` takes a row mask;
    ``groups=None``: the value alone, no replicates).

    Examples:
        >>> x = np.array([1.0, 2.0, 3.0, 6.0])
        >>> value, reps = jackknife(lambda m: float(x[m].mean()), np.array([0, 1, 0, 1]))
        >>> value, reps.tolist()
        (3.0, [4.0, 2.0])
    """
    if groups is None:
        return fn(slice(None)), np.empty(0)
    value = fn(np.ones(len(groups), dtype=bool))
    return value, np.array([fn(groups != g) for g in np.unique(groups)])


class InternalMetric(OneRowMixin, Metric[Any], base=True):
    """An internal index: ``update(X, labels, sample_weight=None)`` with a 2-D ``X``, or one row
    ``update(x, label)`` with a 1-D point and one label (buffered, see
    :mod:`streammetrics.clustering.internal.rows`).

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

    def _row_checker(self, state: Any) -> PointRows:
        return PointRows(state)

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


class MomentsMetric(InternalMetric, base=True):
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


class SampledMetric(InternalMetric, base=True):
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
        return self._estimate(state, error=False).value  # the jackknife only where an error is asked

    def estimate(self, z: float = Z) -> Estimate:
        """The value with its standard error and the interval ``value -+ z * stderr``.

        While the sample holds every distinct row the value is exact: ``exact=True``, a standard
        error of 0 and ``low == value == high``. Beyond, the standard error is a delete-a-group
        jackknife's (:data:`JACKKNIFE_GROUPS` groups, with a finite-population correction) and
        ``[low, high]`` an approximate confidence interval (``guaranteed=False``; about 95% at
        the default ``z``), meaningful for the indices that average over rows or pairs; the
        indices built on extremes (nearest or farthest neighbours, diameters) are biased on a
        sample and their interval does not cover the bias (see each class). NaN where the index
        is undefined, or where too few jackknife replicates are finite for a standard error.

        Examples:
            >>> import streammetrics as sm
            >>> e = sm.Silhouette().update([[0.0], [1.0], [10.0], [11.0]], [0, 0, 1, 1]).estimate()
            >>> e.value == e.low == e.high, e.exact, e.stderr
            (True, True, 0.0)
        """
        with self._lock:
            if self._is_empty(self._state):
                return sampled(
                    self.compute(), float("nan"), exact=False, sample_rows=0, distinct_rows=0.0, z=z
                )
            est = self._estimate(self._state)
        if z == Z:
            return est
        return sampled(
            est.value,
            est.stderr,
            exact=est.exact,
            sample_rows=est.sample_rows,
            distinct_rows=est.distinct_rows,
            z=z,
        )

    def compute_with_error(self) -> Estimate:
        """The older name of :meth:`estimate` (the same :class:`~streammetrics.Estimate`).

        Its fields ``value``, ``stderr``, ``exact``, ``sample_rows`` and ``distinct_rows`` keep
        their meaning; ``low``, ``high`` and ``guaranteed`` were added (the tuple's positions
        changed: read the fields by name).
        """
        return self.estimate()

    def bounds(self, z: float = Z) -> tuple[float, float]:
        """The approximate interval ``value -+ z * stderr`` of :meth:`estimate` (the value while exact)."""
        est = self.estimate(z)
        return est.low, est.high

    def _estimate(self, state: ClusterSample, error: bool = True) -> Estimate:
        """The value, and with ``error`` its jackknife standard error (the replicates cost
        :data:`JACKKNIFE_GROUPS` more evaluations: ``compute()`` skips them; while the sample
        holds every row the value is exact and none is needed)."""
        moments, sample = state.moments, state.sample
        k, total = moments.n_clusters, moments.total_weight()
        m = len(sample.keys)
        nan = sampled(
            float("nan"),
            float("nan"),
            exact=not sample.saturated,
            sample_rows=m,
            distinct_rows=sample.distinct_estimate(),
        )
        if k < 2 or k > total - 1:
            return nan
        idx, _ = moments.labels.encode(sample.labels, "labels")
        groups = np.arange(m) % min(JACKKNIFE_GROUPS, m) if error and sample.saturated else None
        value, replicates = self._on_sample(moments, sample.x, idx, sample.weights, groups)
        if groups is not None:  # the value compute() gives (grouped sums may round otherwise)
            value = self._on_sample(moments, sample.x, idx, sample.weights, None)[0]
        if np.isnan(value):
            return nan
        if not sample.saturated:
            return sampled(value, 0.0, exact=True, sample_rows=m, distinct_rows=float(m))
        if not error:
            return sampled(
                value, float("nan"), exact=False, sample_rows=m, distinct_rows=sample.distinct_estimate()
            )
        reps = replicates[np.isfinite(replicates)]
        g = len(reps)
        distinct = sample.distinct_estimate()
        fpc = max(0.0, 1.0 - m / distinct)
        stderr = (
            float(np.sqrt((g - 1) / g * np.sum((reps - reps.mean()) ** 2) * fpc)) if g > 1 else float("nan")
        )
        return sampled(value, stderr, exact=False, sample_rows=m, distinct_rows=distinct)

    @abc.abstractmethod
    def _on_sample(
        self, moments: ClusterMoments, x: np.ndarray, idx: np.ndarray, w: np.ndarray, groups: np.ndarray
    ) -> tuple[float, np.ndarray]:
        """The index on the sample and its delete-a-group jackknife replicates."""
