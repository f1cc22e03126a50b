"""The exact two-pass mode of the centroid indices: pass 1 the centroids, pass 2 the distances.

:class:`TwoPassMixin` gives a sampled centroid index (:class:`~streammetrics.DaviesBouldin`,
:class:`~streammetrics.SimplifiedSilhouette`, :class:`~streammetrics.DaviesBouldinStar`,
:class:`~streammetrics.ScoreFunction`) its ``centroids=`` option: with fixed centroids its state
is a :class:`~streammetrics.clustering.centroid.fixed.FixedCentroidSums` and its value exact.
:func:`two_pass` runs both passes over re-iterable batches.

Examples:
    >>> import streammetrics as sm
    >>> X, labels = [[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]
    >>> pass1 = sm.CalinskiHarabasz().update(X, labels)
    >>> sm.DaviesBouldin(centroids=pass1).update(X, labels).estimate().exact
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ..._core.approximate import Estimate, Z, sampled
from ..._core.metric import Metric
from ...errors import InputError
from ..inputs import validate_points
from ..internal.moments import ClusterMoments
from .centroids import Centroids, cluster_centroids
from .fixed import FixedCentroidSums


class TwoPassMixin:
    """The exact two-pass mode of a sampled centroid index: ``Cls(centroids=pass1)``.

    Without ``centroids`` the class behaves as before (a
    :class:`~streammetrics.clustering.internal.base.SampledMetric`). With them
    (anything :func:`cluster_centroids` accepts), its state is a :class:`FixedCentroidSums`
    over those centroids, which belong to the configuration (JSON-able labels and nested
    lists): merging metrics of different centroids raises :class:`~streammetrics.MergeError`.
    Labels outside the fixed ones, or a feature count other than theirs, raise
    :class:`~streammetrics.InputError`. The value is exact (:meth:`estimate` reports a standard
    error of 0), and ``revert`` works.
    """

    centroids: Centroids | None
    #: whether pass 2 needs the simplified silhouette sums
    _needs_silhouette = False

    def __init__(self, sample_size: int = 1000, seed: int = 0, centroids: Any = None) -> None:
        self.centroids = None if centroids is None else cluster_centroids(centroids)
        super().__init__(sample_size=sample_size, seed=seed)  # type: ignore[call-arg]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()  # type: ignore[misc]
        if self.centroids is not None:
            config["centroids"] = self.centroids.to_config()
        return config

    def _make_state(self) -> Any:
        if self.centroids is None:
            return super()._make_state()  # type: ignore[misc]
        return FixedCentroidSums(self.centroids, silhouette=self._needs_silhouette)

    def _validate(self, X: Any, labels: Any, sample_weight: Any = None) -> Any:
        if self.centroids is None:
            return super()._validate(X, labels, sample_weight)  # type: ignore[misc]
        x, lab, w = validate_points(X, labels, sample_weight, None)
        if x.shape[1] != self.centroids.n_features:
            raise InputError(
                f"X: expected {self.centroids.n_features} features (those of the fixed centroids), "
                f"found {x.shape[1]}"
            )
        return x, self._state.encode(lab), w  # type: ignore[attr-defined]

    def _apply(self, state: Any, batch: Any) -> None:
        super()._apply(state, batch)  # type: ignore[misc]

    def _unapply(self, state: Any, batch: Any) -> None:
        if self.centroids is None or batch is None:
            super()._unapply(state, batch)  # type: ignore[misc]
        state.add(*batch, sign=-1)

    def _is_empty(self, state: Any) -> bool:
        if self.centroids is None:
            return super()._is_empty(state)  # type: ignore[misc]
        return not state.present().any()

    def _formula(self, state: Any) -> float:
        if self.centroids is None:
            return super()._formula(state)  # type: ignore[misc]
        return self._fixed_formula(state)

    def _fixed_formula(self, state: FixedCentroidSums) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def estimate(self, z: float = Z) -> Estimate:
        """The exact value: ``exact=True``, a standard error of 0, ``low == value == high``."""
        if self.centroids is None:
            return super().estimate(z)  # type: ignore[misc]
        value = self.compute()  # type: ignore[attr-defined]
        n = self.n_samples  # type: ignore[attr-defined]
        stderr = 0.0 if not np.isnan(value) else float("nan")
        return sampled(value, stderr, exact=True, sample_rows=n, distinct_rows=float(n), z=z)


def _batches(batches: Any) -> Callable[[], Iterator[Any]]:
    if callable(batches) and not isinstance(batches, Iterable):
        return batches
    if not isinstance(batches, Iterable):
        raise ValueError(
            f"batches: expected a re-iterable of (X, labels[, sample_weight]) or a zero-argument "
            f"callable returning an iterator, found {type(batches).__name__}"
        )
    if iter(batches) is batches:
        raise ValueError(
            "batches: expected a re-iterable (a list, a dataset object) or a zero-argument callable "
            "returning a fresh iterator, found a one-shot iterator (two passes need to read it twice)"
        )
    return lambda: iter(batches)


def _unpack(batch: Any) -> tuple[tuple[Any, Any], Any]:
    if not isinstance(batch, (tuple, list)) or len(batch) not in (2, 3):
        raise ValueError(
            f"batches: expected tuples (X, labels) or (X, labels, sample_weight), found {type(batch).__name__}"
        )
    return (batch[0], batch[1]), (batch[2] if len(batch) == 3 else None)


def two_pass(metrics: Any, batches: Any) -> Any:
    """Exact centroid indices in two passes over the data: centroids, then distances to them.

    Pass 1 accumulates exact per-cluster moments; pass 2 feeds the metric(s) constructed with
    those centroids fixed (``Cls(centroids=...)``, configuration otherwise kept from an
    instance). ``metrics``: a class or an instance of :class:`~streammetrics.DaviesBouldin`,
    :class:`SimplifiedSilhouette`, :class:`DaviesBouldinStar` or :class:`ScoreFunction`, or a
    list of them (then a list is returned). ``batches``: a re-iterable of ``(X, labels)`` or
    ``(X, labels, sample_weight)`` tuples, or a zero-argument callable returning a fresh
    iterator. Warns if pass 2 saw another number of rows than pass 1.

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(1000, 3)); labels = (X[:, 0] > 0).astype(int)
        >>> shards = [(X[i:i + 250], labels[i:i + 250]) for i in range(0, 1000, 250)]
        >>> db, sf = sm.two_pass([sm.DaviesBouldin, sm.ScoreFunction], shards)
        >>> from sklearn.metrics import davies_bouldin_score
        >>> abs(db.compute() - davies_bouldin_score(X, labels)) < 1e-12
        True
    """
    get = _batches(batches)
    single = not isinstance(metrics, (list, tuple))
    items = [metrics] if single else list(metrics)
    pass1 = ClusterMoments()
    for batch in get():
        (X, labels), w = _unpack(batch)
        pass1.add(*validate_points(X, labels, w, pass1.n_features))
    centroids = cluster_centroids(pass1)
    built: list[Metric[Any]] = []
    for item in items:
        cls = item if isinstance(item, type) else type(item)
        config = {} if isinstance(item, type) else item.get_config()
        if not (isinstance(cls, type) and issubclass(cls, TwoPassMixin)):
            raise ValueError(
                "metrics: expected DaviesBouldin, SimplifiedSilhouette, DaviesBouldinStar or "
                f"ScoreFunction (classes or instances), found {getattr(cls, '__name__', cls)!r}"
            )
        built.append(cls(**{**config, "centroids": centroids}))
    for batch in get():
        (X, labels), w = _unpack(batch)
        for m in built:
            m.update(X, labels, sample_weight=w)
    if built and built[0].n_samples != pass1.n_samples:
        warnings.warn(
            f"two_pass: pass 2 saw {built[0].n_samples} rows, pass 1 {pass1.n_samples}: the batches "
            "changed between passes, the centroids are not those of the data measured",
            UserWarning,
            stacklevel=2,
        )
    return built[0] if single else built
