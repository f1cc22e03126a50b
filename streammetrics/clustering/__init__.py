"""Clustering indices on a mergeable contingency table and per-cluster moments (issue 5).

One sub-package per sub-family, each with its states, formulas and metric classes:

* :mod:`~streammetrics.clustering.external`: a clustering compared with ground truth through a
  sparse, weighted :class:`ContingencyState` (Rand, ARI, mutual information, purity, ...);
* :mod:`~streammetrics.clustering.internal`: a clustering judged from the data, exact in
  streaming on per-cluster moments (:class:`ClusterMoments`: Calinski-Harabasz, ...) or estimated
  on a mergeable bottom-k sample (:class:`Silhouette`);
* :mod:`~streammetrics.clustering.pairwise`: the pairwise-distance indices (Dunn, C-index, ...);
* :mod:`~streammetrics.clustering.centroid`: the centroid-based indices (Davies-Bouldin, DB*,
  S_Dbw, ...) and their exact two-pass mode.

:mod:`~streammetrics.clustering.inputs` parses the batches of both kinds. The sampled indices
report an :class:`Estimate` (``estimate()``: value, standard error, interval).
"""

from .._core.approximate import Estimate
from .centroid import (
    Centroids,
    DaviesBouldin,
    DaviesBouldinStar,
    OSIndex,
    ScoreFunction,
    SDbw,
    SimplifiedSilhouette,
    SVIndex,
    Sym33,
    SymDB,
    SymDunn,
    SymIndex,
    cluster_centroids,
    two_pass,
)
from .external import (
    AdjustedMutualInfo,
    AdjustedRandIndex,
    ClusteringEntropy,
    ClusteringFMeasure,
    Completeness,
    ContingencyState,
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
from .external import (  # issue 17: formulas on the contingency table
    ClusterAccuracy,
    CramersV,
    PearsonsContingencyCoefficient,
    TheilsU,
    TschuprowsT,
)
from .internal import (
    BetweenClusterSS,
    BottomKSample,
    CalinskiHarabasz,
    ClusterMoments,
    ClusterSample,
    NegentropyIncrement,
    Silhouette,
    WithinClusterSS,
)
from .pairwise import (
    CIndex,
    COPIndex,
    CSIndex,
    DunnIndex,
    GammaIndex,
    GeneralizedDunn,
    HubertGamma,
    c_index,
    cop_index,
    cs_index,
    dunn_index,
    gamma_index,
    generalized_dunn_index,
    hubert_gamma,
)

__all__ = [
    "Centroids",
    "cluster_centroids",
    "DaviesBouldinStar",
    "OSIndex",
    "ScoreFunction",
    "SDbw",
    "SimplifiedSilhouette",
    "SVIndex",
    "Sym33",
    "SymDB",
    "SymDunn",
    "SymIndex",
    "two_pass",
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
    "ClusterAccuracy",
    "CramersV",
    "PearsonsContingencyCoefficient",
    "TheilsU",
    "TschuprowsT",
]
