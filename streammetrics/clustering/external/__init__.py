"""External clustering indices: a clustering compared with ground truth through a contingency table.

* :mod:`~streammetrics.clustering.external.contingency`: the state, a sparse weighted table of
  (class, cluster) counts, mergeable and revertible; :mod:`.rows` its one-row checks;
* the formulas, pure functions of the table: :mod:`.pairs` (pair counting: Rand, ARI,
  Fowlkes-Mallows, ...), :mod:`.information` (entropies and mutual information: NMI, AMI,
  V-measure, ...; :mod:`.emi` the expected mutual information) and :mod:`.matching` (purity,
  F-measure);
* :mod:`.base` and :mod:`.metrics`: the metric classes, ``update(labels_true, labels_pred,
  sample_weight=None)``, one formula each on the shared table.

Examples:
    >>> from streammetrics.clustering import external
    >>> t = external.contingency([0, 0, 1, 1], [1, 1, 0, 0])
    >>> external.adjusted_rand_index(t), external.AdjustedRandIndex().update([0, 0, 1, 1], [1, 1, 0, 0]).compute()
    (1.0, 1.0)
"""

from .assignment import cluster_accuracy, linear_sum_assignment_max
from .association import (
    chi_squared,
    cramers_v,
    pearsons_contingency_coefficient,
    theils_u,
    tschuprows_t,
)
from .base import ExternalMetric
from .contingency import ContingencyState, contingency
from .emi import expected_mutual_information
from .information import (
    AVERAGE_METHODS,
    adjusted_mutual_info,
    class_entropy,
    cluster_entropy,
    completeness,
    conditional_entropy,
    homogeneity,
    homogeneity_completeness_v_measure,
    mutual_info,
    normalized_mutual_info,
    v_measure,
    variation_of_information,
)
from .matching import clustering_f_measure, goodman_kruskal, purity
from .metrics import (
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
from .nominal import (
    ClusterAccuracy,
    CramersV,
    NominalMetric,
    PearsonsContingencyCoefficient,
    TheilsU,
    TschuprowsT,
)
from .pairs import (
    adjusted_rand_index,
    fowlkes_mallows_index,
    minkowski_score,
    pair_confusion_matrix,
    pair_jaccard,
    phi_index,
    rand_index,
)

__all__ = [
    "AVERAGE_METHODS",
    "AdjustedMutualInfo",
    "AdjustedRandIndex",
    "ClusteringEntropy",
    "ClusteringFMeasure",
    "Completeness",
    "ContingencyState",
    "ContingencyTable",
    "ExternalMetric",
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
    "VMeasure",
    "VariationOfInformation",
    "adjusted_mutual_info",
    "adjusted_rand_index",
    "class_entropy",
    "cluster_entropy",
    "clustering_f_measure",
    "completeness",
    "conditional_entropy",
    "contingency",
    "expected_mutual_information",
    "fowlkes_mallows_index",
    "goodman_kruskal",
    "homogeneity",
    "homogeneity_completeness_v_measure",
    "minkowski_score",
    "mutual_info",
    "normalized_mutual_info",
    "pair_confusion_matrix",
    "pair_jaccard",
    "phi_index",
    "purity",
    "rand_index",
    "v_measure",
    "variation_of_information",
    "ClusterAccuracy",
    "CramersV",
    "NominalMetric",
    "PearsonsContingencyCoefficient",
    "TheilsU",
    "TschuprowsT",
    "chi_squared",
    "cluster_accuracy",
    "cramers_v",
    "linear_sum_assignment_max",
    "pearsons_contingency_coefficient",
    "theils_u",
    "tschuprows_t",
]
