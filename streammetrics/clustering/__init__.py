"""Clustering indices on a mergeable contingency table and per-cluster moments (issue 5).

External indices compare a clustering with ground truth through a sparse, weighted
:class:`ContingencyState`; internal indices judge a clustering from the data through exact
per-cluster moments (:class:`ClusterMoments`) or a mergeable bottom-k sample.
Pure formula functions live in :mod:`streammetrics.clustering.external`.
"""

from .contingency import ContingencyState
from .external_metrics import (
    AdjustedMutualInfo,
    AdjustedRandIndex,
    ClusteringEntropy,
    ClusteringFMeasure,
    Completeness,
    ContingencyTable,
    FowlkesMallowsIndex,
    GoodmanKruskal,
    Homogeneity,
    MinkowskiScore,
    MutualInfo,
    NormalizedMutualInfo,
    PairConfusionMatrix,
    PairJaccard,
    PhiIndex,
    Purity,
    RandIndex,
    VariationOfInformation,
    VMeasure,
)
from .internal_metrics import (
    BetweenClusterSS,
    CalinskiHarabasz,
    ClusterSample,
    DaviesBouldin,
    Estimate,
    NegentropyIncrement,
    Silhouette,
    WithinClusterSS,
)
from .moments import ClusterMoments
from .pairwise import (
    c_index,
    cop_index,
    cs_index,
    dunn_index,
    gamma_index,
    generalized_dunn_index,
    hubert_gamma,
)
from .pairwise_metrics import CIndex, COPIndex, CSIndex, DunnIndex, GammaIndex, GeneralizedDunn, HubertGamma
from .sample import BottomKSample

__all__ = [
    "CIndex",
    "COPIndex",
    "CSIndex",
    "DunnIndex",
    "GammaIndex",
    "GeneralizedDunn",
    "HubertGamma",
    "c_index",
    "cop_index",
    "cs_index",
    "dunn_index",
    "gamma_index",
    "generalized_dunn_index",
    "hubert_gamma",
    "BetweenClusterSS",
    "BottomKSample",
    "CalinskiHarabasz",
    "ClusterMoments",
    "ClusterSample",
    "DaviesBouldin",
    "Estimate",
    "NegentropyIncrement",
    "Silhouette",
    "WithinClusterSS",
    "AdjustedMutualInfo",
    "AdjustedRandIndex",
    "ClusteringEntropy",
    "ClusteringFMeasure",
    "Completeness",
    "ContingencyState",
    "ContingencyTable",
    "FowlkesMallowsIndex",
    "GoodmanKruskal",
    "Homogeneity",
    "MinkowskiScore",
    "MutualInfo",
    "NormalizedMutualInfo",
    "PairConfusionMatrix",
    "PairJaccard",
    "PhiIndex",
    "Purity",
    "RandIndex",
    "VariationOfInformation",
    "VMeasure",
]
