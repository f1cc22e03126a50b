"""Fixed cluster centres: pass 1 of the exact two-pass mode of the centroid indices.

:class:`Centroids` holds labels and a ``K x d`` array of means (JSON-able: it becomes part of
a two-pass metric's configuration); :func:`cluster_centroids` takes them from anything that
knows exact centroids (a moments state, a metric, a two-pass metric, a plain pair or dict).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..._core.labels import LabelSet
from ..internal.moments import ClusterMoments


class Centroids(NamedTuple):
    """Fixed cluster centres: labels (ints or strings) and a ``K x d`` array of means.

    Examples:
        >>> c = Centroids([0, 1], np.array([[0.0, 0.0], [1.0, 2.0]]))
        >>> c.to_config()
        {'labels': [0, 1], 'means': [[0.0, 0.0], [1.0, 2.0]]}
    """

    labels: list[Any]
    means: np.ndarray

    @property
    def n_features(self) -> int:
        return int(self.means.shape[1])

    def to_config(self) -> dict[str, Any]:
        """The JSON-able form (part of a two-pass metric's configuration)."""
        return {"labels": list(self.labels), "means": self.means.tolist()}


def cluster_centroids(source: Any) -> Centroids:
    """Exact centroids of ``source``: pass 1 of the two-pass mode.

    ``source`` may be a metric holding exact per-cluster moments (``sm.CalinskiHarabasz()``,
    ``sm.WithinClusterSS()``, or any sampled internal index such as ``sm.Silhouette()``), a
    :class:`~streammetrics.ClusterMoments` state, a two-pass metric (its fixed centroids), a
    :class:`Centroids`, a ``(labels, means)`` pair or the ``{"labels": ..., "means": ...}``
    dict of a configuration. Raises ``ValueError`` naming ``centroids`` otherwise.

    Examples:
        >>> import streammetrics as sm
        >>> pass1 = sm.CalinskiHarabasz().update([[0.0], [2.0], [10.0]], ["a", "a", "b"])
        >>> c = cluster_centroids(pass1)
        >>> c.labels, c.means.tolist()
        (['a', 'b'], [[1.0], [10.0]])
    """
    seen = source
    for _ in range(4):  # metric -> state -> moments
        if isinstance(seen, Centroids):
            return _checked_centroids(seen.labels, seen.means)
        if isinstance(seen, ClusterMoments):
            return _checked_centroids(seen.labels.to_list(), seen.mean)
        if getattr(seen, "centroids", None) is not None and isinstance(seen.centroids, Centroids):
            return seen.centroids
        if isinstance(seen, dict):
            if set(seen) != {"labels", "means"}:
                break
            return _checked_centroids(seen["labels"], seen["means"])
        if isinstance(seen, (tuple, list)) and len(seen) == 2:
            return _checked_centroids(seen[0], seen[1])
        if hasattr(seen, "moments"):
            seen = seen.moments
        elif hasattr(seen, "state"):
            seen = seen.state
        else:
            break
    raise ValueError(
        "centroids: expected a metric or state with exact centroids (e.g. sm.CalinskiHarabasz()), "
        f"Centroids, (labels, means) or {{'labels', 'means'}}, found {type(source).__name__}"
    )


def _checked_centroids(labels: Any, means: Any) -> Centroids:
    try:
        ls = LabelSet(np.asarray(list(labels)) if not isinstance(labels, np.ndarray) else labels)
    except (ValueError, TypeError) as err:
        raise ValueError(f"centroids: {err}") from None
    try:
        arr = np.asarray(means, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"centroids: expected numeric means, found {means!r}") from None
    k = len(ls)
    if k == 0:
        raise ValueError("centroids: expected at least one cluster, found none (an empty pass 1?)")
    if arr.ndim != 2 or arr.shape[0] != k or arr.shape[1] == 0:
        raise ValueError(f"centroids: expected means of shape ({k}, n_features), found {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError("centroids: expected finite means, found NaN or infinite values")
    return Centroids([v.item() if hasattr(v, "item") else v for v in ls.values], arr + 0.0)
