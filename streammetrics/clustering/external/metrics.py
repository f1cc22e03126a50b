"""The external clustering indices as metrics: each is one formula on a :class:`ContingencyState`.

``update(labels_true, labels_pred, sample_weight=None)``; all share one kind of state, so a
:class:`~streammetrics.MetricCollection` of them keeps a single contingency table.

Examples:
    >>> import streammetrics as sm
    >>> t, p = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]
    >>> round(sm.AdjustedRandIndex().update(t, p).compute(), 4)
    0.2424
    >>> shard_a = sm.AdjustedMutualInfo().update(t[:3], p[:3])
    >>> shard_b = sm.AdjustedMutualInfo().update(t[3:], p[3:])
    >>> round((shard_a + shard_b).compute(), 5)
    0.29879
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..._core.inputs import Inputs
from ..._core.params import check_number, check_option
from ...errors import InputError
from . import information, matching, pairs
from .base import ExternalMetric
from .contingency import ContingencyState


class ContingencyTable(ExternalMetric):
    """The contingency table itself: ``compute()`` is the dense ``(n_classes, n_clusters)`` matrix.

    Rows follow the sorted true labels (:attr:`labels_true`), columns the sorted predicted labels
    (:attr:`labels_pred`), as :func:`sklearn.metrics.cluster.contingency_matrix`; int64 counts,
    float64 once weighted. The state is sparse; :attr:`state` gives the non-zero cells.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.ContingencyTable().update(["x", "x", "y"], [3, 7, 7])
        >>> m.compute().tolist(), m.labels_true, m.labels_pred
        ([[1, 1], [0, 1]], ['x', 'y'], [3, 7])
        >>> m.revert(["y"], [7]).compute().tolist(), m.labels_true
        ([[1, 1]], ['x'])
    """

    higher_is_better: ClassVar[bool | None] = None
    numeric_value: ClassVar[bool] = False  # (a table of counts, its labels those seen)

    @property
    def labels_true(self) -> list[Any]:
        """The classes seen so far (rows), sorted."""
        return self._state.row_labels.to_list()

    @property
    def labels_pred(self) -> list[Any]:
        """The clusters seen so far (columns), sorted."""
        return self._state.col_labels.to_list()

    def _formula(self, state: ContingencyState) -> np.ndarray:
        return state.dense()


class PairConfusionMatrix(ExternalMetric):
    """The 2x2 pair confusion matrix over ordered pairs (seed 004's TP/TN/FP/FN of pairs).

    ``[[C00, C01], [C10, C11]]`` as :func:`sklearn.metrics.cluster.pair_confusion_matrix`:
    ``C11`` pairs together in both labelings, ``C10`` together in the classes only, ``C01``
    together in the clusters only, ``C00`` apart in both.

    Examples:
        >>> import streammetrics as sm
        >>> sm.PairConfusionMatrix().update([0, 0, 1, 1], [0, 0, 0, 1]).compute().tolist()
        [[4, 4], [2, 2]]
    """

    higher_is_better: ClassVar[bool | None] = None

    def _formula(self, state: ContingencyState) -> np.ndarray:
        return pairs.pair_confusion_matrix(state)


class RandIndex(ExternalMetric):
    """Rand index: share of sample pairs on which both labelings agree. Seeds 000, 001, 004.

    :func:`sklearn.metrics.rand_score`.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.RandIndex().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.6667
    """

    def _formula(self, state: ContingencyState) -> float:
        return pairs.rand_index(state)


class AdjustedRandIndex(ExternalMetric):
    """Adjusted Rand index (chance-corrected Rand index). Seeds 000, 001, 004.

    :func:`sklearn.metrics.adjusted_rand_score`; 1.0 when the labelings agree on every pair
    (seed 001's special cases).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.AdjustedRandIndex().update([0, 0, 0, 1, 1, 1], [1, 1, 0, 0, 3, 3]).compute(), 4)
        0.2424
    """

    def _formula(self, state: ContingencyState) -> float:
        return pairs.adjusted_rand_index(state)


class MutualInfo(ExternalMetric):
    """Mutual information ``I(C; K)`` in nats. Seeds 000, 001. :func:`sklearn.metrics.mutual_info_score`.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.MutualInfo().update([0, 0, 1, 1], [0, 0, 1, 1]).compute(), 6)
        0.693147
    """

    def _formula(self, state: ContingencyState) -> float:
        return information.mutual_info(state)


class NormalizedMutualInfo(ExternalMetric):
    """Normalized mutual information. Seeds 000, 001. :func:`sklearn.metrics.normalized_mutual_info_score`.

    Args:
        average_method: how ``H(C)`` and ``H(K)`` are averaged in the denominator:
            ``"arithmetic"`` (default, as scikit-learn), ``"geometric"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.NormalizedMutualInfo().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.5158
    """

    def __init__(self, average_method: str = "arithmetic") -> None:
        self.average_method = check_option("average_method", average_method, information.AVERAGE_METHODS)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"average_method": self.average_method}

    def _formula(self, state: ContingencyState) -> float:
        return information.normalized_mutual_info(state, self.average_method)


class AdjustedMutualInfo(NormalizedMutualInfo):
    """Adjusted mutual information, with the exact expected MI. Seeds 000, 001.

    :func:`sklearn.metrics.adjusted_mutual_info_score`. Sample weights must be whole numbers
    (the expected MI is a hypergeometric sum over integer cells): a fractional weight raises
    :class:`~streammetrics.InputError`. Seed 001's worked values (0.22504..., -0.10526...) are
    those of ``average_method="max"``, scikit-learn's default before version 0.22.

    Examples:
        >>> import streammetrics as sm
        >>> t, p = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]
        >>> round(sm.AdjustedMutualInfo().update(t, p).compute(), 5)
        0.29879
        >>> round(sm.AdjustedMutualInfo(average_method="max").update(t, p).compute(), 5)
        0.22504
    """

    whole_weights: ClassVar[bool] = True

    def _parse(self, inputs: Inputs) -> Any:
        # _parse, not _validate: a collection hands its members the shared Inputs directly
        t, p, w = super()._parse(inputs)
        if w is not None and w.size and not np.array_equal(w, np.round(w)):
            bad = w[w != np.round(w)][0]
            raise InputError(
                f"sample_weight: expected whole-number weights for AdjustedMutualInfo (its expected "
                f"mutual information is a sum over integer cells), found {bad}"
            )
        return t, p, w

    def _formula(self, state: ContingencyState) -> float:
        return information.adjusted_mutual_info(state, self.average_method)


class Homogeneity(ExternalMetric):
    """Homogeneity: each cluster holds members of one class only. Seeds 000, 001.

    :func:`sklearn.metrics.homogeneity_score`.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.Homogeneity().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 2)
        0.67
    """

    def _formula(self, state: ContingencyState) -> float:
        return information.homogeneity(state)


class Completeness(ExternalMetric):
    """Completeness: all members of a class fall in one cluster. Seeds 000, 001.

    :func:`sklearn.metrics.completeness_score`.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.Completeness().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 2)
        0.42
    """

    def _formula(self, state: ContingencyState) -> float:
        return information.completeness(state)


class VMeasure(ExternalMetric):
    """V-measure: weighted harmonic mean of homogeneity and completeness. Seeds 000, 001.

    :func:`sklearn.metrics.v_measure_score`.

    Args:
        beta: weight of homogeneity against completeness (``beta > 1`` favours completeness).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.VMeasure().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 2)
        0.52
    """

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = float(check_number("beta", beta, low=0.0))
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"beta": self.beta}

    def _formula(self, state: ContingencyState) -> float:
        return information.v_measure(state, self.beta)


class FowlkesMallowsIndex(ExternalMetric):
    """Fowlkes-Mallows index: geometric mean of pair precision and recall. Seeds 001, 004.

    :func:`sklearn.metrics.fowlkes_mallows_score`. (Not :class:`~streammetrics.FowlkesMallows`,
    the classification rate of seed 003.)

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.FowlkesMallowsIndex().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 5)
        0.4714
    """

    def _formula(self, state: ContingencyState) -> float:
        return pairs.fowlkes_mallows_index(state)


class PairJaccard(ExternalMetric):
    """Pair-counting Jaccard index ``TP / (TP + FP + FN)`` over sample pairs. Seed 004.

    No scikit-learn function; 1.0 when no pair is together in either labeling.

    Examples:
        >>> import streammetrics as sm
        >>> sm.PairJaccard().update([0, 0, 0, 1], [0, 0, 1, 1]).compute()
        0.25
    """

    def _formula(self, state: ContingencyState) -> float:
        return pairs.pair_jaccard(state)


class PhiIndex(ExternalMetric):
    """Phi coefficient of the pair confusion matrix. Seed 004 (its missing square root restored).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.PhiIndex().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.2722
    """

    def _formula(self, state: ContingencyState) -> float:
        return pairs.phi_index(state)


class MinkowskiScore(ExternalMetric):
    """Minkowski score ``sqrt((FP + FN) / (TP + FN))`` over pairs; lower is better. Seed 004.

    Divides by the pairs together in the *classes* (the reference definition; seed 004 prints
    the cluster pairs). NaN with a warning when every class is a singleton.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.MinkowskiScore().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.9129
    """

    higher_is_better: ClassVar[bool | None] = False

    def _formula(self, state: ContingencyState) -> float:
        return pairs.minkowski_score(state)


class GoodmanKruskal(ExternalMetric):
    """Goodman-Kruskal index ``1 - purity``: share of samples outside their cluster's majority class. Seed 004.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.GoodmanKruskal().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.1667
    """

    higher_is_better: ClassVar[bool | None] = False

    def _formula(self, state: ContingencyState) -> float:
        return matching.goodman_kruskal(state)


class ClusteringEntropy(ExternalMetric):
    """Entropy of the clusters' class make-up ``H(C|K)`` in nats; 0 when clusters are pure. Seed 004.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.ClusteringEntropy().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.2310
    """

    higher_is_better: ClassVar[bool | None] = False

    def _formula(self, state: ContingencyState) -> float:
        return information.conditional_entropy(state)


class Purity(ExternalMetric):
    """Purity: share of samples in their cluster's majority class. Seed 004.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.Purity().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.8333
    """

    def _formula(self, state: ContingencyState) -> float:
        return matching.purity(state)


class ClusteringFMeasure(ExternalMetric):
    """Clustering F-measure: size-weighted best-cluster F1 of every class. Seed 004.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.ClusteringFMeasure().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.8
    """

    def _formula(self, state: ContingencyState) -> float:
        return matching.clustering_f_measure(state)


class VariationOfInformation(ExternalMetric):
    """Variation of information ``H(C) + H(K) - 2 I(C; K)`` in nats; lower is better. Seed 004.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.VariationOfInformation().update([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]).compute(), 4)
        0.8676
    """

    higher_is_better: ClassVar[bool | None] = False

    def _formula(self, state: ContingencyState) -> float:
        return information.variation_of_information(state)
