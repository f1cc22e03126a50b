"""Pairwise-distance internal clustering indices of seed 004, exact on an in-memory batch.

Dunn and the generalized Dunn family (Bezdek and Pal 1998), the C-index (Hubert and Levin
1976), the Gamma index (Baker and Hubert 1975, as in Arbelaitz et al. 2013), the normalized
Hubert Γ statistic, COP (Gurrutxaga et al. 2010) and CS (Chou, Su and Lai 2004). Distances are
Euclidean, computed by direct differences in row chunks (never ``|a|^2 + |b|^2 - 2ab``).

Weights are frequency weights: an integer weight ``k`` equals ``k`` copies of the row, weight-0
rows are dropped, and fractional weights extend the same formulas (a row of weight ``w`` stands
for ``w`` points, ``w (w - 1) / 2`` zero-distance pairs among its own copies). Every index is
NaN (undefined) unless ``2 <= K <= N - 1`` (``K`` clusters, ``N`` the total weight), as the
silhouette of :mod:`streammetrics.clustering.internal`.

Cost: the profile-based indices (Dunn, generalized Dunn, Hubert Γ, COP, CS) take ``O(N^2)``
time and ``O(N K)`` memory; the C-index and Gamma sort all ``N (N - 1) / 2`` pair distances
(``O(N^2)`` memory). The streaming metrics of :mod:`streammetrics.clustering.pairwise.metrics`
evaluate the same code on a mergeable bounded sample.

Examples:
    >>> X = [[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]]
    >>> labels = [0, 0, 1, 1]
    >>> round(dunn_index(X, labels), 4), c_index(X, labels), gamma_index(X, labels)
    (6.4031, 0.0, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.params import check_option
from ..internal.distances import prepare_points
from .pairs import pair_index
from .profiles import COMPACTNESS, SEPARATIONS, Exact, exact_parts, profile_index


def _exact(
    X: Any, labels: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, Exact] | None:
    x, idx, w, k = prepare_points(X, labels, sample_weight)
    if k < 2 or k > w.sum() - 1:
        return None
    return x, idx, w, k, exact_parts(x, idx, w, k)


def dunn_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Dunn index (Dunn 1974; seed 004): higher is better.

    ``min_{k != l} delta(c_k, c_l) / max_k Delta(c_k)`` with ``delta`` the smallest distance
    between a row of ``c_k`` and one of ``c_l`` and ``Delta`` the cluster diameter (largest
    distance within it). NaN when every diameter is 0. Equals
    ``generalized_dunn_index(..., separation=1, compactness=1)``.

    Examples:
        >>> dunn_index([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
        4.0
    """
    return generalized_dunn_index(X, labels, sample_weight, separation=1, compactness=1)


def generalized_dunn_index(
    X: Any, labels: Any, sample_weight: Any = None, *, separation: int = 3, compactness: int | str = 3
) -> float:
    """Generalized Dunn index gD\\ *sc* (Bezdek and Pal 1998; seed 004's gD31 ... gD53): higher is better.

    ``min_{k != l} delta_s(c_k, c_l) / max_k Delta_c(c_k)`` with the separation ``delta_s``:

    * 1: smallest distance between the clusters (the Dunn index with ``compactness=1``);
    * 3: mean distance between their rows ``sum_{i in k, j in l} w_i w_j d_ij / (W_k W_l)``;
    * 4: distance between their centroids;
    * 5: ``(W_k S_k + W_l S_l) / (W_k + W_l)``, ``S_k`` the mean distance to the centroid;

    and the compactness ``Delta_c``: 1 the diameter, 3 ``2 S_k``, ``"radius"`` the largest
    distance from a row to its centroid (with ``separation=4``, torchmetrics' ``DunnIndex``).
    NaN when every compactness is 0.

    Examples:
        >>> X, labels = [[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1]
        >>> generalized_dunn_index(X, labels, separation=4, compactness=3)
        5.0
        >>> generalized_dunn_index(X, labels, separation=3, compactness=1)
        5.0
        >>> generalized_dunn_index(X, labels, separation=4, compactness="radius")
        10.0
    """
    check_option("separation", separation, SEPARATIONS)
    check_option("compactness", compactness, COMPACTNESS)
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("dunn", x, idx, w, k, exact, separation=separation, compactness=compactness)[0]


def c_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """C-index (Hubert and Levin 1976; seed 004): lower is better, in [0, 1].

    ``(S - S_min) / (S_max - S_min)``: ``S`` the sum of the ``n_w`` within-cluster pair
    distances, ``S_min`` (``S_max``) the sum of the ``n_w`` smallest (largest) of all
    ``N (N - 1) / 2`` pair distances. NaN when ``S_max = S_min``. ``O(N^2)`` memory.

    Examples:
        >>> c_index([[0.0], [1.0], [5.0], [7.0]], [0, 0, 1, 1])
        0.0
        >>> c_index([[0.0], [5.0], [1.0], [7.0]], [0, 0, 1, 1])  # S = 5 + 6, S_min = 1 + 2, S_max = 7 + 6
        0.8
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, _, _ = prepared
    return pair_index("c", x, idx, w)[0]


def gamma_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Gamma index (Baker and Hubert 1975, in the form of Arbelaitz et al. 2013; seed 004): lower is better.

    ``sum_{within pairs (i, j)} dl(i, j) / (n_w n_b)``, ``dl(i, j)`` the number of
    between-cluster pairs strictly closer than ``d_ij``, ``n_w`` and ``n_b = N (N - 1) / 2 - n_w``
    the numbers of within- and between-cluster pairs: the share of (within, between) comparisons
    that are discordant, in [0, 1]. Seed 004 prints an extra factor ``|c_k|`` in the numerator,
    which is not in Arbelaitz et al. (and would break the [0, 1] range): corrected. Baker and
    Hubert's original ``Γ = (s+ - s-) / (s+ + s-)`` equals ``1 - 2 G`` when no distances tie.
    ``O(N^2)`` memory.

    Examples:
        >>> gamma_index([[0.0], [1.0], [5.0], [7.0]], [0, 0, 1, 1])
        0.0
        >>> gamma_index([[0.0], [5.0], [1.0], [7.0]], [0, 0, 1, 1])  # 3 + 3 of 2 x 4 comparisons
        0.75
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, _, _ = prepared
    return pair_index("gamma", x, idx, w)[0]


def hubert_gamma(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """Normalized Hubert Γ statistic (seed 004): higher is better, in [-1, 1].

    The Pearson correlation, over all ``N (N - 1) / 2`` pairs, between the distance ``d_ij``
    and the indicator ``q_ij = 1`` when ``i`` and ``j`` are in different clusters. With ``n_w``,
    ``n_b`` the within/between pair counts, ``T = n_w + n_b``, ``mu_w``, ``mu_b`` the mean
    within/between distances and ``sigma`` the standard deviation of all pair distances, it is
    ``sqrt(n_w n_b) / T * (mu_b - mu_w) / sigma`` (the point-biserial form), with the mean
    squared pair distance ``N * TSS / T`` (``TSS`` the total scatter).

    Examples:
        >>> round(hubert_gamma([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]), 4)
        0.9562
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("hubert", x, idx, w, k, exact)[0]


def cop_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """COP index (Gurrutxaga et al. 2010; seed 004): lower is better.

    ``1/N sum_k W_k S_k / min_{x_i not in c_k} max_{x_j in c_k} d_ij``, ``S_k`` the mean
    distance from the rows of ``c_k`` to its centroid (a cluster with ``S_k = 0`` adds 0).

    Examples:
        >>> cop_index([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        0.1
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("cop", x, idx, w, k, exact)[0]


def cs_index(X: Any, labels: Any, sample_weight: Any = None) -> float:
    """CS index (Chou, Su and Lai 2004; seed 004): lower is better.

    ``sum_k (1/W_k) sum_{i in c_k} w_i max_{j in c_k} d_ij / sum_k min_{l != k} ||mu_k - mu_l||``.
    NaN when the centroid-distance sum is 0.

    Examples:
        >>> cs_index([[0.0], [2.0], [10.0], [12.0]], [0, 0, 1, 1])
        0.2
    """
    prepared = _exact(X, labels, sample_weight)
    if prepared is None:
        return float("nan")
    x, idx, w, k, exact = prepared
    return profile_index("cs", x, idx, w, k, exact)[0]
