"""The state of the sampled internal indices: exact per-cluster moments plus a bottom-k sample.

The moments give what only needs cluster sizes and centroids exactly; the sample (of the
distinct rows, each with its total weight) gives what needs the points. Mergeable (both parts
are), not revertible (a sample cannot give back a row it dropped).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.state import State, require_keys
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
