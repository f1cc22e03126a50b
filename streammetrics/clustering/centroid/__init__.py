"""Centroid-based internal indices (seed 004) and the exact two-pass mode.

* :mod:`.geometry`: rows against centroids (distances to the own centroid, per-cluster means,
  the simplified silhouette), shared by the indices below;
* the indices, each as ``*_from`` formulas on a few components and an exact in-memory function:
  :mod:`.spread` (DB*, score function, SV, OS), :mod:`.density` (S_Dbw) and :mod:`.symmetry`
  (the point-symmetry family Sym, SymDB, SymD, Sym33);
* the two-pass mode: :mod:`.centroids` (pass 1, fixed centres), :mod:`.fixed` (pass 2, the
  per-cluster sums of distances to them) and :mod:`.two_pass` (the ``centroids=`` option and
  the :func:`two_pass` driver);
* :mod:`.metrics`: the streaming metrics (exact moments plus a mergeable sample;
  :class:`~streammetrics.DaviesBouldin` among them).

Examples:
    >>> from streammetrics.clustering import centroid
    >>> X, labels = [[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]
    >>> centroid.sv_index(X, labels), centroid.SVIndex().update(X, labels).compute()
    (10.0, 10.0)
"""

from .centroids import Centroids, cluster_centroids
from .density import s_dbw, s_dbw_from, sdbw_densities, sdbw_radius
from .fixed import (
    FixedCentroidSums,
    fixed_davies_bouldin,
    fixed_davies_bouldin_star,
    fixed_score_function,
    fixed_simplified_silhouette,
)
from .geometry import distances_to_own, mass_mean, per_cluster_mean, simplified_silhouettes
from .metrics import (
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
)
from .spread import (
    OVERLAP_THRESHOLD,
    TOP_SHARE,
    davies_bouldin_star,
    davies_bouldin_star_from,
    os_from,
    os_index,
    overlap_sum,
    score_function,
    score_function_from,
    sv_from,
    sv_index,
    top_share_means,
)
from .symmetry import (
    SYMMETRY_NEIGHBOURS,
    dunn_from,
    mean_linkage,
    point_symmetry_distances,
    single_linkage,
    sym33,
    sym_db,
    sym_dunn,
    sym_from,
    sym_index,
    symmetry_distances,
)
from .two_pass import TwoPassMixin, two_pass

__all__ = [
    "OVERLAP_THRESHOLD",
    "SYMMETRY_NEIGHBOURS",
    "TOP_SHARE",
    "Centroids",
    "DaviesBouldin",
    "DaviesBouldinStar",
    "FixedCentroidSums",
    "OSIndex",
    "SDbw",
    "SVIndex",
    "ScoreFunction",
    "SimplifiedSilhouette",
    "Sym33",
    "SymDB",
    "SymDunn",
    "SymIndex",
    "TwoPassMixin",
    "cluster_centroids",
    "davies_bouldin_star",
    "davies_bouldin_star_from",
    "distances_to_own",
    "dunn_from",
    "fixed_davies_bouldin",
    "fixed_davies_bouldin_star",
    "fixed_score_function",
    "fixed_simplified_silhouette",
    "mass_mean",
    "mean_linkage",
    "os_from",
    "os_index",
    "overlap_sum",
    "per_cluster_mean",
    "point_symmetry_distances",
    "s_dbw",
    "s_dbw_from",
    "score_function",
    "score_function_from",
    "sdbw_densities",
    "sdbw_radius",
    "simplified_silhouettes",
    "single_linkage",
    "sv_from",
    "sv_index",
    "sym33",
    "sym_db",
    "sym_dunn",
    "sym_from",
    "sym_index",
    "symmetry_distances",
    "top_share_means",
    "two_pass",
]
