"""The base class of the external indices: a formula on the shared contingency table."""

from __future__ import annotations

import abc
import warnings
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from ..._core import validation as v
from ..._core.inputs import TRUTH_AND_PREDICTION, Inputs, two_plain_arrays
from ..._core.metric import Metric
from ..._core.onerow import OneRowMixin
from ...errors import UndefinedMetricWarning
from .contingency import ContingencyState
from .rows import ContingencyRows


class ExternalMetric(OneRowMixin, Metric[ContingencyState], base=True):
    """An external index: a formula on the shared :class:`ContingencyState`.

    ``update(labels_true, labels_pred, sample_weight=None)`` takes two 1-D labelings of any
    label kind (ints, bools or strings; classes and clusters may be of different kinds). Sample
    weights are frequency weights (an integer weight equals repeating the row).
    """

    higher_is_better: ClassVar[bool | None] = True
    roles: ClassVar[tuple[str, ...]] = ("labels_true", "labels_pred")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    prediction: ClassVar[str | None] = "clusters"

    def __init__(self) -> None:
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {}

    def _make_state(self) -> ContingencyState:
        return ContingencyState()

    def _share_key(self) -> Hashable:
        """Every external index parses the same two labelings into the same table.

        Examples:
            >>> import streammetrics as sm
            >>> sm.AdjustedRandIndex()._share_key() == sm.VMeasure(beta=2.0)._share_key()
            True
        """
        code = (type(self)._validate, type(self)._parse, type(self)._apply)
        return ("contingency", self._state.share_key(), code)

    def _row_checker(self, state: Any) -> Any:
        return ContingencyRows(self, state)

    def _validate(self, labels_true: Any, labels_pred: Any, sample_weight: Any = None) -> Any:
        if (
            two_plain_arrays(labels_true, labels_pred, sample_weight)
            and type(self)._parse is ExternalMetric._parse
        ):
            t, p = v.as_labels(labels_true, "labels_true"), v.as_labels(labels_pred, "labels_pred")
            v.check_length(p, len(t), "labels_pred", "labels_true")
            return t, p, None
        return self._parse(Inputs((labels_true, labels_pred), sample_weight))

    def _parse(self, inputs: Inputs) -> Any:
        t = inputs.labels(0, "labels_true")
        p = inputs.labels(1, "labels_pred")
        v.check_length(p, len(t), "labels_pred", "labels_true")
        return t, p, inputs.weights(len(t))

    def _apply(self, state: ContingencyState, batch: Any) -> None:
        state.add(*batch)

    def _unapply(self, state: ContingencyState, batch: Any) -> None:
        if batch is None:
            super()._unapply(state, batch)
        state.add(*batch, sign=-1)

    def _is_empty(self, state: ContingencyState) -> bool:
        return not state.keys.size

    def _compute(self, state: ContingencyState) -> Any:
        value = self._formula(state)
        if isinstance(value, float) and np.isnan(value):
            warnings.warn(
                f"{type(self).__name__} is undefined on this table; returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
        return value

    @abc.abstractmethod
    def _formula(self, state: ContingencyState) -> Any:
        """The index on a non-empty table."""
