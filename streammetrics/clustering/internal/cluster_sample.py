"""The state of the sampled internal indices: exact per-cluster moments plus a bottom-k sample.

The moments give what only needs cluster sizes and centroids exactly; the sample (of the
distinct rows, each with its total weight) gives what needs the points. Mergeable (both parts
are), not revertible (a sample cannot give back a row it dropped).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.labels import LabelSet
from ..._core.state import State, require_keys
from ...errors import StateError
from .moments import ClusterMoments
from .sample import BottomKSample


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
        self._commit(moments=moments, sample=sample)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ClusterSample)
        moments, sample = self.moments.copy(), self.sample.copy()
        moments.merge(other.moments)
        sample.merge(other.sample)
        self._commit(moments=moments, sample=sample)

    def _fresh(self) -> tuple[ClusterMoments, BottomKSample]:
        """Empty parts of the same configuration (built aside, then committed)."""
        return ClusterMoments(self.moments.full), BottomKSample(self.sample.sample_size, self.sample.seed)

    def reset(self) -> None:
        moments, sample = self._fresh()
        self._commit(moments=moments, sample=sample)

    def to_dict(self) -> dict[str, Any]:
        return {"moments": self.moments.to_dict(), "sample": self.sample.to_dict()}

    def load_dict(self, data: dict[str, Any]) -> None:
        require_keys(data, {"moments", "sample"}, "ClusterSample state")
        moments, sample = self._fresh()
        moments.load_dict(data["moments"])
        sample.load_dict(data["sample"])
        self._commit(moments=moments, sample=sample)

    def check(self) -> None:
        """Both parts' invariants, and that they saw the same rows: the sampled rows lie in the
        clusters of the moments (the indices look their labels up there)."""
        self.moments.check()
        self.sample.check()
        where = "ClusterSample state"
        if self.sample.n_samples != self.moments.n_samples:
            raise StateError(
                f"{where}: the sample saw {self.sample.n_samples} rows, the moments {self.moments.n_samples}"
            )
        labels = self.sample.labels
        if labels.size:
            if self.sample.n_features != self.moments.n_features:
                raise StateError(f"{where}: the sample and the moments disagree on the feature count")
            known = self.moments.labels.values
            same_kind = (labels.dtype.kind == "U") == (known.dtype.kind == "U")
            if not same_kind or not np.isin(labels, known).all():
                raise StateError(f"{where}: sampled rows carry labels of no cluster of the moments")
            # a sampled row's weight is part of its cluster's: the sample never outweighs it
            uniq, index = np.unique(labels, return_inverse=True)
            sampled = np.bincount(index.ravel(), weights=self.sample.weights)
            cluster = self.moments.weight[LabelSet(uniq).positions_in(self.moments.labels)]
            if np.any(sampled > cluster * (1 + 1e-9) + 1e-300):
                raise StateError(f"{where}: sampled rows outweigh their clusters")
