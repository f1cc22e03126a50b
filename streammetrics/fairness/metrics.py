"""Fairness metrics: per-group rates over a :class:`~streammetrics.Sliced` state, and their gaps.

Every class here is a :class:`~streammetrics.Sliced` accumulator keyed by the sensitive feature
(``update(y_true, y_pred, sensitive_features, sample_weight=None)``; several columns for
intersectional groups): one confusion matrix per group, updated by one ``bincount`` per batch,
merged exactly across shards. ``by_group()`` gives the per-group values, ``overall`` the value
over every row (from the same states), and ``compute()`` the gap, as fairlearn's functions of the
same name compute it on the same rows.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .._core.params import check_option
from ..classification.base import ConfusionMetric
from ..classification.counts import ConfusionCounts
from ..keyed.sliced import Sliced, SlicedState
from ..streaming import _spec
from . import formulas as f


class SelectionRate(ConfusionMetric):
    """Share of rows predicted ``pos_label`` (the "selection" of a decision), weighted:
    ``sum w [ŷ = pos_label] / sum w``, as fairlearn's ``selection_rate``. ``y_true`` is read (and
    checked) but does not change the value; multiclass predictions count ``pos_label`` against
    the rest.

    Args:
        labels: The class labels, as for :class:`~streammetrics.Accuracy`.
        unlisted: A label outside ``labels``: ``"refuse"`` (default) or ``"count"``, as for :class:`~streammetrics.Accuracy`.
        pos_label: The positive (selected) label; default 1.
        threshold: Scores at or above it predict the positive label (``None``: ``y_pred`` holds labels), as for :class:`~streammetrics.Accuracy`.
        input: What thresholded ``y_pred`` holds: ``"probability"`` (default) or ``"score"``, as for :class:`~streammetrics.Accuracy`.

    Examples:
        >>> import streammetrics as sm
        >>> sm.SelectionRate().update([0, 1, 1, 0], [1, 1, 0, 0]).compute()
        0.5
    """

    higher_is_better: ClassVar[bool | None] = None

    def _compute(self, state: ConfusionCounts) -> float:
        return f.selection_rate(state, self.pos_label)


class _GroupGap(Sliced):
    """A gap between groups of a per-group value (a :class:`Sliced` over a confusion state)."""

    #: The value(s) compared per group: ``name -> function(counts, pos_label)``.
    rates: ClassVar[dict[str, Any]] = {}
    #: ``"difference"`` or ``"ratio"``.
    kind: ClassVar[str] = "difference"
    numeric_value: ClassVar[bool] = True  # (one gap, not Sliced's dict of values)

    def __init__(
        self, method: str = "between_groups", pos_label: Any = 1, max_keys: int | None = None
    ) -> None:
        self.method = check_option("method", method, f.METHODS)
        self.pos_label = pos_label
        super().__init__(_Counts(pos_label=pos_label), max_keys=max_keys)

    def get_config(self) -> dict[str, Any]:
        return {"method": self.method, "pos_label": self.pos_label, "max_keys": self.max_keys}

    def _empty_value(self) -> Any:
        return float("nan")

    def _rates_of(self, state: ConfusionCounts) -> dict[str, float]:
        return {name: rate(state, self.pos_label) for name, rate in self.rates.items()}

    def by_group(self) -> dict[Any, Any]:
        """``{group: value}`` (one value per compared rate: ``{group: {rate: value}}`` when several)."""
        with self._lock:
            state = self._state
            keys = state.keys.keys()
            out = {keys[g]: self._rates_of(state.states_of(g)["metric"]) for g in self._live_slots(state)}
        return {k: (next(iter(v.values())) if len(v) == 1 else v) for k, v in out.items()}

    def overall(self) -> Any:
        """The compared value(s) over every row (from the per-group states)."""
        with self._lock:
            values = self._rates_of(self._state.overall()["metric"])
        return next(iter(values.values())) if len(values) == 1 else values

    def _gaps(self, state: SlicedState) -> list[float]:
        keys = state.keys.keys()
        per = {keys[g]: self._rates_of(state.states_of(g)["metric"]) for g in self._live_slots(state)}
        overall = self._rates_of(state.overall()["metric"])
        gap = f.difference if self.kind == "difference" else f.ratio
        return [gap({k: v[name] for k, v in per.items()}, overall[name], self.method) for name in self.rates]

    def _compute(self, state: SlicedState) -> float:  # type: ignore[override]
        return self._gaps(state)[0]

    def flat(self) -> dict[str, Any]:
        return {_spec.snake_case(self.type_name()): self.compute()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class _Counts(ConfusionMetric):
    """The per-group confusion counts the fairness metrics read (not exported)."""

    needs_matrix: ClassVar[bool] = True

    def _compute(self, state: ConfusionCounts) -> Any:
        return state.matrix


class DemographicParityDifference(_GroupGap):
    """Largest gap in selection rate (share predicted ``pos_label``) between groups
    (``method="between_groups"``: ``max - min``) or to the overall rate (``"to_overall"``), as
    fairlearn's ``demographic_parity_difference``. 0 is parity.

    Args:
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        pos_label: The positive (selected) label; default 1.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.DemographicParityDifference()
        >>> m.update([0, 1, 1, 0], [1, 1, 0, 0], ["a", "a", "b", "b"]).compute()
        1.0
        >>> m.by_group(), m.overall()
        ({'a': 1.0, 'b': 0.0}, 0.5)
    """

    higher_is_better: ClassVar[bool | None] = False
    rates: ClassVar[dict[str, Any]] = {"selection_rate": f.selection_rate}


class DemographicParityRatio(_GroupGap):
    """Smallest ratio of selection rates between groups (``min / max``) or to the overall rate,
    as fairlearn's ``demographic_parity_ratio``. 1 is parity.

    Args:
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        pos_label: The positive (selected) label; default 1.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> sm.DemographicParityRatio().update([0, 1, 1, 0], [1, 1, 1, 0], ["a", "a", "b", "b"]).compute()
        0.5
    """

    higher_is_better: ClassVar[bool | None] = True
    kind: ClassVar[str] = "ratio"
    rates: ClassVar[dict[str, Any]] = {"selection_rate": f.selection_rate}


class EqualOpportunityDifference(_GroupGap):
    """Largest gap in true positive rate between groups (or to the overall rate), as fairlearn's
    ``equal_opportunity_difference``.

    Args:
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        pos_label: The positive (selected) label; default 1.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> sm.EqualOpportunityDifference().update([1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 1, 1]).compute()
        0.5
    """

    higher_is_better: ClassVar[bool | None] = False
    rates: ClassVar[dict[str, Any]] = {"tpr": f.true_positive_rate}


class EqualOpportunityRatio(_GroupGap):
    """Smallest ratio of true positive rates between groups (or to the overall rate), as
    fairlearn's ``equal_opportunity_ratio``.

    Args:
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        pos_label: The positive (selected) label; default 1.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> sm.EqualOpportunityRatio().update([1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 1, 1]).compute()
        0.5
    """

    higher_is_better: ClassVar[bool | None] = True
    kind: ClassVar[str] = "ratio"
    rates: ClassVar[dict[str, Any]] = {"tpr": f.true_positive_rate}


class _EqualizedOdds(_GroupGap):
    rates: ClassVar[dict[str, Any]] = {"tpr": f.true_positive_rate, "fpr": f.false_positive_rate}

    def __init__(
        self,
        method: str = "between_groups",
        pos_label: Any = 1,
        agg: str = "worst_case",
        max_keys: int | None = None,
    ) -> None:
        self.agg = check_option("agg", agg, f.AGGREGATES)
        super().__init__(method=method, pos_label=pos_label, max_keys=max_keys)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "agg": self.agg}

    def _compute(self, state: SlicedState) -> float:  # type: ignore[override]
        gaps = self._gaps(state)
        if self.agg == "mean":  # fairlearn: a pandas mean, which leaves out an undefined (NaN) gap
            held = [gap for gap in gaps if not math.isnan(gap)]
            return float(sum(held) / len(held)) if held else math.nan
        # (Python's min and max over the gaps in order, as fairlearn: a NaN first is the result)
        return float(max(gaps) if self.kind == "difference" else min(gaps))


class EqualizedOddsDifference(_EqualizedOdds):
    """The larger of the true positive rate and false positive rate gaps between groups
    (``agg="worst_case"``; ``"mean"``: their mean), as fairlearn's ``equalized_odds_difference``.

    Args:
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        pos_label: The positive (selected) label; default 1.
        agg: How the two gaps combine (fairlearn's ``agg``): ``"worst_case"`` (default) or ``"mean"``.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> sm.EqualizedOddsDifference().update([1, 0, 1, 0], [1, 0, 1, 1], [0, 0, 1, 1]).compute()
        1.0
    """

    higher_is_better: ClassVar[bool | None] = False


class EqualizedOddsRatio(_EqualizedOdds):
    """The smaller of the true positive rate and false positive rate ratios between groups
    (``agg="worst_case"``; ``"mean"``: their mean), as fairlearn's ``equalized_odds_ratio``.

    Args:
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        pos_label: The positive (selected) label; default 1.
        agg: How the two gaps combine (fairlearn's ``agg``): ``"worst_case"`` (default) or ``"mean"``.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> sm.EqualizedOddsRatio().update([1, 0, 1, 0], [1, 0, 1, 1], [0, 0, 1, 1]).compute()
        0.0
    """

    higher_is_better: ClassVar[bool | None] = True
    kind: ClassVar[str] = "ratio"


class GroupDifference(Sliced):
    """The between-group difference of any scalar metric (fairlearn's ``MetricFrame.difference``):
    ``max - min`` of its per-group values (``method="between_groups"``) or the largest
    ``|group - overall|`` (``"to_overall"``), with the overall value read from the same states.

    Args:
        metric: The metric (or :class:`~streammetrics.MetricCollection`) kept once per key.
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.GroupDifference(sm.Accuracy())
        >>> m.update([0, 1, 1, 0], [0, 1, 0, 0], ["a", "a", "b", "b"]).compute()
        0.5
        >>> m.by_group()
        {'a': 1.0, 'b': 0.5}
    """

    numeric_value: ClassVar[bool] = True  # (one gap, not Sliced's dict of values)

    kind: ClassVar[str] = "difference"

    def __init__(self, metric: Any, method: str = "between_groups", max_keys: int | None = None) -> None:
        self.method = check_option("method", method, f.METHODS)
        super().__init__(metric, max_keys=max_keys)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "method": self.method}

    def _empty_value(self) -> Any:
        return float("nan")

    def by_group(self) -> dict[Any, Any]:
        """``{group: value}`` of the metric."""
        with self._lock:
            return Sliced._compute(self, self._state)

    def _compute(self, state: SlicedState) -> float:  # type: ignore[override]
        per = Sliced._compute(self, state)
        overall = self._value_of_states(state.overall())
        gap = f.difference if self.kind == "difference" else f.ratio
        return gap({k: float(v) for k, v in per.items()}, float(overall), self.method)

    def flat(self) -> dict[str, Any]:
        return {
            f"{_spec.snake_case(self.type_name())}/{_spec.snake_case(self.metric.type_name())}": self.compute()
        }


class GroupRatio(GroupDifference):
    """The between-group ratio of any scalar metric (fairlearn's ``MetricFrame.ratio``): ``min /
    max`` of its per-group values (``"between_groups"``) or the smallest group-to-overall ratio,
    each taken below one (``"to_overall"``).

    Args:
        metric: The metric (or :class:`~streammetrics.MetricCollection`) kept once per key.
        method: ``"between_groups"`` (default): the groups' largest minus smallest value (difference) or smallest over largest (ratio); ``"to_overall"``: each group against the overall value, as fairlearn's ``MetricFrame``.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> sm.GroupRatio(sm.Accuracy()).update([0, 1, 1, 0], [0, 1, 0, 0], ["a", "a", "b", "b"]).compute()
        0.5
    """

    kind: ClassVar[str] = "ratio"


__all__ = [
    "SelectionRate",
    "DemographicParityDifference",
    "DemographicParityRatio",
    "EqualizedOddsDifference",
    "EqualizedOddsRatio",
    "EqualOpportunityDifference",
    "EqualOpportunityRatio",
    "GroupDifference",
    "GroupRatio",
]
