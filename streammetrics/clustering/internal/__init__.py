"""Internal clustering indices: a clustering judged from the data alone, ``update(X, labels)``.

* the states: :mod:`.moments` (exact per-cluster moments, mergeable and revertible),
  :mod:`.sample` (a mergeable bottom-k sample of the distinct rows) and
  :mod:`.cluster_sample` (both together, the state of every sampled index);
* the formulas: :mod:`.formulas` on the moments (exact in streaming), :mod:`.distances` (rows,
  centroids, Euclidean distances) and :mod:`.functions` (the distance-based indices exact on
  an in-memory batch);
* :mod:`.base` (parsing the points; the sampled estimate and its jackknife) and
  :mod:`.metrics` (the classes).

The pairwise-distance and centroid-based indices, sampled in the same way, are the
sub-packages :mod:`streammetrics.clustering.pairwise` and :mod:`streammetrics.clustering.centroid`.

Examples:
    >>> from streammetrics.clustering import internal
    >>> X, labels = [[0.0], [2.0], [5.0], [7.0]], [0, 0, 1, 1]
    >>> internal.calinski_harabasz_score(X, labels), internal.CalinskiHarabasz().update(X, labels).compute()
    (12.5, 12.5)
"""

from .base import JACKKNIFE_GROUPS, InternalMetric, MomentsMetric, SampledMetric, jackknife
from .cluster_sample import ClusterSample
from .distances import cluster_means, pairwise_distances, prepare_points
from .formulas import between_ss, calinski_harabasz, negentropy_increment, within_ss
from .functions import (
    calinski_harabasz_score,
    davies_bouldin_from,
    davies_bouldin_score,
    silhouette_samples,
    silhouette_score,
    silhouette_values,
    simplified_silhouette_score,
    simplified_silhouette_values,
)
from .metrics import BetweenClusterSS, CalinskiHarabasz, NegentropyIncrement, Silhouette, WithinClusterSS
from .moments import ClusterMoments
from .sample import BottomKSample, row_keys

__all__ = [
    "JACKKNIFE_GROUPS",
    "BetweenClusterSS",
    "BottomKSample",
    "CalinskiHarabasz",
    "ClusterMoments",
    "ClusterSample",
    "InternalMetric",
    "MomentsMetric",
    "NegentropyIncrement",
    "SampledMetric",
    "Silhouette",
    "WithinClusterSS",
    "between_ss",
    "calinski_harabasz",
    "calinski_harabasz_score",
    "cluster_means",
    "davies_bouldin_from",
    "davies_bouldin_score",
    "jackknife",
    "negentropy_increment",
    "pairwise_distances",
    "prepare_points",
    "row_keys",
    "silhouette_samples",
    "silhouette_score",
    "silhouette_values",
    "simplified_silhouette_score",
    "simplified_silhouette_values",
    "within_ss",
]
