"""Nominal association and cluster accuracy as metrics: formulas on the shared contingency table.

``update(labels_true, labels_pred, sample_weight=None)`` like every external index (rows of the
table are ``labels_true``, columns ``labels_pred``), so a :class:`~streammetrics.MetricCollection`
of them keeps one table with the clustering indices. torchmetrics' nominal metrics take
``nan_strategy`` (``"replace"`` with ``nan_replace_value``, or ``"drop"``): here the default
``None`` refuses a NaN label as every metric does (:class:`~streammetrics.InputError`); the two
torchmetrics strategies are available per batch, row by row (a row with a NaN on either side is
replaced or left out before it reaches the table), which is all they mean on a stream.

Examples:
    >>> import streammetrics as sm
    >>> t, p = [0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 0]
    >>> round(sm.CramersV(bias_correction=False).update(t, p).compute(), 6)
    0.816497
    >>> sm.ClusterAccuracy().update([0, 0, 1, 1], ["b", "b", "a", "a"]).compute()
    1.0
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from ..._core.inputs import Inputs
from ..._core.params import check_option
from . import association
from .assignment import cluster_accuracy
from .base import ExternalMetric
from .contingency import ContingencyState

NAN_STRATEGIES = (None, "replace", "drop")


def _nan_mask(arr: np.ndarray) -> np.ndarray | None:
    """Where ``arr`` holds a missing value (NaN, or None in an object array); ``None``: nowhere."""
    if arr.dtype.kind == "f":
        mask = np.isnan(arr)
    elif arr.dtype.kind == "O":
        mask = np.fromiter(
            (x is None or (isinstance(x, float) and math.isnan(x)) for x in arr.ravel()), bool, arr.size
        ).reshape(arr.shape)
    else:
        return None
    return mask if mask.any() else None


class NominalMetric(ExternalMetric, base=True):
    """An association measure of two nominal labelings (torchmetrics ``nominal``), on the contingency table.

    Args:
        nan_strategy: ``None`` (default): a NaN label raises :class:`~streammetrics.InputError`;
            ``"replace"``: a NaN (or ``None``) label becomes ``nan_replace_value``; ``"drop"``: a row
            with a NaN on either side is left out (as torchmetrics, per batch).
        nan_replace_value: The label a NaN becomes with ``nan_strategy="replace"`` (a whole number or
            a string; default 0, torchmetrics' 0.0).
    """

    def __init__(self, *, nan_strategy: str | None = None, nan_replace_value: Any = 0) -> None:
        self.nan_strategy = check_option("nan_strategy", nan_strategy, NAN_STRATEGIES)
        if isinstance(nan_replace_value, bool) or not isinstance(nan_replace_value, (int, float, str)):
            raise ValueError(
                f"nan_replace_value: expected a whole number or a string, found {nan_replace_value!r}"
            )
        if isinstance(nan_replace_value, float):
            if not (math.isfinite(nan_replace_value) and nan_replace_value == round(nan_replace_value)):
                raise ValueError(f"nan_replace_value: expected a whole number, found {nan_replace_value!r}")
            nan_replace_value = int(nan_replace_value)
        self.nan_replace_value = nan_replace_value
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"nan_strategy": self.nan_strategy, "nan_replace_value": self.nan_replace_value}

    def _share_key(self) -> Hashable:
        if self.nan_strategy is None:  # parsed exactly as every external index: share their table
            code = (ExternalMetric._validate, ExternalMetric._parse, ExternalMetric._apply)
            return ("contingency", self._state.share_key(), code)
        return ("contingency", self._state.share_key(), "nan", self.nan_strategy, self.nan_replace_value)

    def _row_checker(self, state: Any) -> Any:
        # with a NaN strategy a NaN row is valid: rows go through the batch parser
        return super()._row_checker(state) if self.nan_strategy is None else None

    def _parse(self, inputs: Inputs) -> Any:
        if self.nan_strategy is None:
            return super()._parse(inputs)
        t = inputs.array(0, "labels_true")
        p = inputs.array(1, "labels_pred")
        if t.ndim != 1 or p.ndim != 1 or len(t) != len(p):  # the ordinary checks say what is wrong
            return super()._parse(inputs)
        mask_t, mask_p = _nan_mask(t), _nan_mask(p)
        if mask_t is None and mask_p is None:
            return super()._parse(inputs)
        if self.nan_strategy == "replace":
            t, p = (
                a
                if m is None
                else np.where(m, np.asarray(self.nan_replace_value, dtype=object), a.astype(object))
                for a, m in ((t, mask_t), (p, mask_p))
            )
            t, p = (_narrowed(a) for a in (t, p))
            return super()._parse(Inputs((t, p), inputs.sample_weight))
        # "drop": the row is seen (n_samples counts it) but weighs 0, so it adds nothing to the table
        dropped = np.zeros(len(t), bool)
        for m in (mask_t, mask_p):
            if m is not None:
                dropped |= m
        t, p = (a if m is None else _filled(a, m) for a, m in ((t, mask_t), (p, mask_p)))
        w = inputs.weights(len(t))
        w = np.where(dropped, 0.0, 1.0 if w is None else w)
        return super()._parse(Inputs((t, p), w))


def _filled(a: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``a`` with its missing entries replaced by one of its other values (rows that weigh 0)."""
    present = a[~mask]
    stand_in = present[0] if present.size else 0
    out = a.astype(object) if a.dtype.kind == "O" else a.copy()
    out[mask] = stand_in
    return _narrowed(out)


def _narrowed(a: np.ndarray) -> np.ndarray:
    """An object array of replaced labels back to numbers or strings where it holds only those."""
    if a.dtype.kind != "O":
        return a
    values = a.tolist()
    if all(isinstance(x, str) for x in values):
        return np.asarray(values, dtype=str)
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in values):
        try:
            return np.asarray(values, dtype=np.float64)
        except OverflowError:  # an int beyond float: the label checks say what is wrong
            return a
    return a


class CramersV(NominalMetric):
    """Cramér's V: the association of two nominal labelings, from the chi-squared statistic.

    ``sqrt(phi^2 / min(r - 1, c - 1))`` with ``phi^2 = chi^2 / N``: 0 for independent labelings,
    1 when one determines the other. torchmetrics ``CramersV`` (whose ``num_classes`` is not
    needed: labels are discovered); :func:`scipy.stats.contingency.association` with
    ``method="cramer"`` when ``bias_correction=False``.

    Args:
        bias_correction: ``True`` (default, as torchmetrics): Bergsma's correction of ``phi^2`` and
            of the dimensions, and Yates' continuity correction on a 2 x 2 table (as SciPy:
            each cell moves ``min(0.5, |E - O|)`` towards its expected count; torchmetrics 1.9
            moves it a full 0.5, which differs on 2 x 2 tables with a cell closer than 0.5 to
            its expected count, and its functional form raises on 2 x 2 integer tables). NaN
            (with a warning) where the corrected table has one row or column.
        nan_strategy: See :class:`NominalMetric`: ``None`` (default, NaN refused), ``"replace"``, ``"drop"``.
        nan_replace_value: The label a NaN becomes with ``nan_strategy="replace"``.

    Examples:
        >>> import streammetrics as sm
        >>> t, p = [0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 0]
        >>> round(sm.CramersV(bias_correction=False).update(t, p).compute(), 6)
        0.816497
        >>> round(sm.CramersV().update(t * 3, p * 3).compute(), 6)
        0.763763
    """

    def __init__(
        self, bias_correction: bool = True, *, nan_strategy: str | None = None, nan_replace_value: Any = 0
    ) -> None:
        if not isinstance(bias_correction, (bool, np.bool_)):
            raise ValueError(f"bias_correction: expected True or False, found {bias_correction!r}")
        self.bias_correction = bool(bias_correction)
        super().__init__(nan_strategy=nan_strategy, nan_replace_value=nan_replace_value)

    def get_config(self) -> dict[str, Any]:
        return {"bias_correction": self.bias_correction, **super().get_config()}

    def _formula(self, state: ContingencyState) -> float:
        return association.cramers_v(state, self.bias_correction)


class TschuprowsT(CramersV):
    """Tschuprow's T: ``sqrt(phi^2 / sqrt((r - 1)(c - 1)))``, Cramér's V for square tables.

    torchmetrics ``TschuprowsT``; :func:`scipy.stats.contingency.association` with
    ``method="tschuprow"`` when ``bias_correction=False``.

    Args:
        bias_correction: ``True`` (default, as torchmetrics): corrected as :class:`CramersV`.
        nan_strategy: See :class:`NominalMetric`: ``None`` (default, NaN refused), ``"replace"``, ``"drop"``.
        nan_replace_value: The label a NaN becomes with ``nan_strategy="replace"``.

    Examples:
        >>> import streammetrics as sm
        >>> t, p = [0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 0]
        >>> round(sm.TschuprowsT(bias_correction=False).update(t, p).compute(), 6)
        0.686589
    """

    def _formula(self, state: ContingencyState) -> float:
        return association.tschuprows_t(state, self.bias_correction)


class PearsonsContingencyCoefficient(NominalMetric):
    """Pearson's contingency coefficient ``sqrt(phi^2 / (1 + phi^2))`` (below 1 even for a perfect association).

    torchmetrics ``PearsonsContingencyCoefficient``; :func:`scipy.stats.contingency.association`
    with ``method="pearson"``. No bias correction (torchmetrics has none).

    Args:
        nan_strategy: See :class:`NominalMetric`: ``None`` (default, NaN refused), ``"replace"``, ``"drop"``.
        nan_replace_value: The label a NaN becomes with ``nan_strategy="replace"``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.PearsonsContingencyCoefficient().update([0, 0, 1, 1], [0, 0, 1, 1]).compute(), 6)
        0.707107
    """

    def __init__(self, *, nan_strategy: str | None = None, nan_replace_value: Any = 0) -> None:
        super().__init__(nan_strategy=nan_strategy, nan_replace_value=nan_replace_value)

    def _formula(self, state: ContingencyState) -> float:
        return association.pearsons_contingency_coefficient(state)


class TheilsU(NominalMetric):
    """Theil's uncertainty coefficient ``U(K|C) = (H(K) - H(K|C)) / H(K)``; asymmetric.

    The share of the entropy of ``labels_pred`` that knowing ``labels_true`` removes (torchmetrics
    ``TheilsU`` with ``preds=labels_pred, target=labels_true``); equal to scikit-learn's
    ``completeness_score`` except that a constant ``labels_pred`` gives 0.0 here, as in torchmetrics.

    Args:
        nan_strategy: See :class:`NominalMetric`: ``None`` (default, NaN refused), ``"replace"``, ``"drop"``.
        nan_replace_value: The label a NaN becomes with ``nan_strategy="replace"``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.TheilsU().update([0, 0, 1, 1], [0, 1, 2, 2]).compute(), 6)
        0.666667
    """

    def __init__(self, *, nan_strategy: str | None = None, nan_replace_value: Any = 0) -> None:
        super().__init__(nan_strategy=nan_strategy, nan_replace_value=nan_replace_value)

    def _formula(self, state: ContingencyState) -> float:
        return association.theils_u(state)


class ClusterAccuracy(ExternalMetric):
    """Cluster accuracy: the accuracy after the best one-to-one matching of clusters to classes.

    ``max over one-to-one maps sigma of sum_i n_{i sigma(i)} / N`` (torchmetrics
    ``ClusterAccuracy``, which needs ``torch_linear_assignment``): the matching is an exact
    Hungarian algorithm in NumPy on the ``classes x clusters`` table; labels are discovered, so
    no ``num_classes``. With more clusters than classes (or the reverse) the unmatched ones count
    as errors.

    Examples:
        >>> import streammetrics as sm
        >>> sm.ClusterAccuracy().update([0, 0, 1, 1, 2], [5, 5, 7, 7, 7]).compute()
        0.8
    """

    higher_is_better: ClassVar[bool | None] = True

    def _formula(self, state: ContingencyState) -> float:
        return cluster_accuracy(state)
