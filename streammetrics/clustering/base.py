"""Base classes of the clustering family: input handling for external and internal indices."""

from __future__ import annotations

import abc
import warnings
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from ..errors import InputError, UndefinedMetricWarning
from .contingency import ContingencyState
from .rows import ContingencyRows


def validate_labelings(
    labels_true: Any, labels_pred: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Two 1-D labelings of equal length (ints, bools or strings) and optional weights."""
    t = v.as_labels(labels_true, "labels_true")
    p = v.as_labels(labels_pred, "labels_pred")
    v.check_length(p, len(t), "labels_pred", "labels_true")
    w = v.as_weights(sample_weight, len(t))
    return t, p, w


def validate_points(
    X: Any, labels: Any, sample_weight: Any, n_features: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A finite 2-D float64 ``X`` (``n_features`` columns if already fixed), labels and weights."""
    x = v.to_array(X, "X")
    if x.ndim != 2:
        raise InputError(f"X: expected a 2-D array (n_samples, n_features), found shape {x.shape}")
    if x.dtype.kind not in "biuf":
        raise InputError(f"X: expected numbers, found values of dtype {x.dtype}")
    x = x.astype(np.float64, copy=False)
    v.check_finite(x, "X")
    if n_features is not None and x.shape[1] != n_features:
        raise InputError(f"X: expected {n_features} features like earlier batches, found {x.shape[1]}")
    labels_arr = v.as_labels(labels, "labels")
    v.check_length(labels_arr, x.shape[0], "labels", "X")
    w = v.as_weights(sample_weight, x.shape[0])
    return x, labels_arr, w


class ExternalMetric(OneRowMixin, Metric[ContingencyState]):
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
        """Every external index parses the same two labelings into the same table."""
        code = (type(self)._validate, type(self)._parse, type(self)._apply)
        return ("contingency", self._state.share_key(), code)

    def _row_checker(self, state: Any) -> Any:
        return ContingencyRows(self, state)

    def _validate(self, labels_true: Any, labels_pred: Any, sample_weight: Any = None) -> Any:
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
