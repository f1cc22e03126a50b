"""Pairwise-distance internal indices: Dunn and generalized Dunn, C-index, Gamma, Hubert Γ, COP, CS.

* :mod:`.profiles`: per-row, per-cluster distance profiles (one chunked pass over the pair
  distances) and the indices computed from them;
* :mod:`.pairs`: every pair sorted by distance, and the rank-based C-index and Gamma;
* :mod:`.functions`: the indices exact on an in-memory batch, ``fn(X, labels, sample_weight=None)``;
* :mod:`.metrics`: the streaming metrics, the same code on exact moments plus a mergeable
  sample (:class:`~streammetrics.clustering.internal.cluster_sample.ClusterSample`).

Examples:
    >>> from streammetrics.clustering import pairwise
    >>> X, labels = [[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]
    >>> pairwise.dunn_index(X, labels), pairwise.DunnIndex().update(X, labels).compute()
    (4.0, 4.0)
"""

from .functions import (
    c_index,
    cop_index,
    cs_index,
    dunn_index,
    gamma_index,
    generalized_dunn_index,
    hubert_gamma,
)
from .metrics import (
    CIndex,
    COPIndex,
    CSIndex,
    DunnIndex,
    GammaIndex,
    GeneralizedDunn,
    HubertGamma,
    PairwiseMetric,
)
from .pairs import SortedPairs, condensed_pairs, pair_index, sorted_pairs
from .profiles import COMPACTNESS, SEPARATIONS, Exact, exact_parts, profile_index, row_profiles

__all__ = [
    "COMPACTNESS",
    "SEPARATIONS",
    "CIndex",
    "COPIndex",
    "CSIndex",
    "DunnIndex",
    "Exact",
    "GammaIndex",
    "GeneralizedDunn",
    "HubertGamma",
    "PairwiseMetric",
    "SortedPairs",
    "c_index",
    "condensed_pairs",
    "cop_index",
    "cs_index",
    "dunn_index",
    "exact_parts",
    "gamma_index",
    "generalized_dunn_index",
    "hubert_gamma",
    "pair_index",
    "profile_index",
    "row_profiles",
    "sorted_pairs",
]
