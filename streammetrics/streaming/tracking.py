"""Thin wrappers that follow a metric's value over time: MetricTracker (epochs) and MinMax.

Neither keeps anything a plain metric does not already merge, plus a little history, and the
history is *not* a bag of samples:

* :class:`MetricTracker` keeps one state per epoch (as torchmetrics' ``MetricTracker`` keeps
  one metric per ``increment()``). Two trackers merge epoch by epoch — shards of the *same*
  epochs (data-parallel workers, each tracking its part of every epoch); trackers at different
  epochs raise :class:`~streammetrics.MergeError` (except a tracker that holds no row at all,
  the identity). Merging is never concatenation in time.
* :class:`MinMax` keeps the extremes of the values its ``compute()`` returned, as torchmetrics'
  ``MinMaxMetric`` (which updates them in ``compute``). Merging merges the wrapped metric's
  state and takes the extremes of both sides: each side's observations are kept, but the
  values the merged metric *would* have shown at earlier times are unknown (not a sample
  statistic). Because ``compute()`` records, the laws that compute an accumulator, change it
  and compare it with a fresh one do not apply to it (the law suite marks them).

Examples:
    >>> import streammetrics as sm
    >>> tracker = sm.MetricTracker(sm.Accuracy())
    >>> for y_true, y_pred in [([1, 1, 0], [1, 0, 0]), ([1, 1, 0], [1, 1, 0]), ([0, 0], [1, 1])]:
    ...     _ = tracker.increment().update(y_true, y_pred)
    >>> tracker.compute_all().round(4).tolist(), tracker.best()
    ([0.6667, 1.0, 0.0], TrackerBest(value=1.0, step=1))
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .._core.metric import Metric, metrics_within, validate_within
from .._core.onerow import OneRowMixin
from .._core.schema import Array, Nested, Schema
from .._core.state import State
from ..errors import MergeError, StateError, UndefinedMetricWarning
from . import _spec
from .windows import _fresh

_TRACKER_FIELDS = Schema("TrackerState state", epochs=Nested(many=True))
_MINMAX_FIELDS = Schema(
    "MinMaxState state", state=Nested(), extremes=Array("f", dtype="float64", shape=(2,), finite=False)
)


class TrackerBest(NamedTuple):
    """The best value of a tracked metric and the epoch (``step``, from 0) that reached it."""

    value: float
    step: int | None


# ------------------------------------------------------------------------------------ tracker
class TrackerState(State):
    """One state of the wrapped metric per epoch, the last one the current epoch."""

    holds_states = True  # (the current epoch's state, updated in place)

    def __init__(self, metric: Metric[Any]) -> None:
        self.metric = metric
        #: Reverting takes rows out of the current epoch: possible when the metric's state can.
        self.revertible = metric.is_revertible
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric)}

    def reset(self) -> None:
        self._commit(epochs=[self.metric._make_state()])

    @property
    def state(self) -> State:
        """The current epoch's state (what ``update`` changes; row parsers read it)."""
        return self.epochs[-1]

    @property
    def n_samples(self) -> int:
        """Rows seen over every epoch."""
        return sum(s.n_samples for s in self.epochs)

    def increment(self) -> None:
        """Start a new epoch; the first call on a fresh tracker opens epoch 0 (it is already open)."""
        if len(self.epochs) == 1 and self.n_samples == 0:
            return
        self._commit(epochs=[*self.epochs, self.metric._make_state()])

    def merge(self, other: State) -> None:
        """Epoch by epoch: both trackers hold shards of the same epochs."""
        self.check_mergeable(other)
        assert isinstance(other, TrackerState)
        if len(other.epochs) == 1 and other.n_samples == 0:
            return  # the identity (a fresh tracker)
        if len(self.epochs) == 1 and self.n_samples == 0:
            self._commit(epochs=[s.copy() for s in other.epochs])
            return
        if len(self.epochs) != len(other.epochs):
            raise MergeError(
                f"cannot merge a MetricTracker at {len(other.epochs)} epochs into one at "
                f"{len(self.epochs)}: trackers merge epoch by epoch (shards of the same epochs); "
                "a tracker's history is a sequence of epochs, not a bag of rows"
            )
        merged = []
        for mine, theirs in zip(self.epochs, other.epochs, strict=True):
            state = mine.copy()
            state.merge(theirs)
            merged.append(state)
        self._commit(epochs=merged)

    def to_dict(self) -> dict[str, Any]:
        return {"epochs": [s.to_dict() for s in self.epochs]}

    def load_dict(self, data: dict[str, Any]) -> None:
        epochs = _TRACKER_FIELDS.read(data, make_state=self.metric._make_state)["epochs"]
        if not epochs:
            raise StateError(f"{_TRACKER_FIELDS.where}: epochs must hold at least one epoch, found none")
        self._commit(epochs=epochs)

    def check(self) -> None:
        if not self.epochs:
            raise StateError(f"{_TRACKER_FIELDS.where}: no epoch")
        for state in self.epochs:
            state.check()


def _maximize_of(metric: Metric[Any], maximize: Any) -> Any:
    """``maximize`` checked, or read from the metric's ``higher_is_better`` (a dict per key for a collection)."""
    if maximize is not None:
        if isinstance(maximize, (bool, np.bool_)):
            return bool(maximize)
        if isinstance(maximize, dict) and all(isinstance(v, (bool, np.bool_)) for v in maximize.values()):
            return {str(k): bool(v) for k, v in maximize.items()}
        raise ValueError(f"maximize: expected None, True, False or a dict {{key: bool}}, found {maximize!r}")
    items = getattr(metric, "items", None)
    if callable(items):  # a collection: one direction per member
        prefix, postfix = getattr(metric, "prefix", ""), getattr(metric, "postfix", "")
        out = {}
        for name, member in items():
            higher = getattr(member, "higher_is_better", None)
            if higher is None:
                raise ValueError(
                    f"maximize: member {name!r} ({type(member).__name__}) declares no higher_is_better; "
                    "pass maximize={key: True/False}"
                )
            out[f"{prefix}{name}{postfix}"] = bool(higher)
        return out
    higher = getattr(metric, "higher_is_better", None)
    if higher is None:
        raise ValueError(
            f"maximize: {type(metric).__name__} declares no higher_is_better (neither higher nor lower is "
            "better); pass maximize=True or False"
        )
    return bool(higher)


class MetricTracker(OneRowMixin, Metric[TrackerState]):
    """A metric tracked across epochs: the value of each, and the best value and its epoch.

    ``increment()`` starts a new epoch (on a fresh tracker the first call opens epoch 0, so
    calling it at the start of every epoch, as with torchmetrics' ``MetricTracker``, or after
    every epoch but the last, both work); ``update`` feeds the current epoch; ``compute()`` is
    the current epoch's value; :meth:`compute_all` the value of every epoch; :meth:`best` the
    best value and its epoch, for early stopping and checkpoints. Better means higher or lower
    as the metric's ``higher_is_better`` says (``maximize=`` overrides it, and is needed where a
    metric declares none). Undefined (NaN) epochs are skipped; ties go to the earliest epoch.

    Merging is epoch by epoch (shards of the same epochs, e.g. one tracker per worker): trackers
    at different epochs raise :class:`~streammetrics.MergeError`. ``revert`` takes rows out of the
    current epoch when the metric can revert.

    Args:
        metric: The metric (or :class:`~streammetrics.MetricCollection`) to track: a fresh metric
            (used as a template), a name or a ``{"type", "config"}`` dict.
        maximize: ``None`` (default): from the metric's ``higher_is_better``; ``True``/``False``; for a
            collection, a dict ``{output key: bool}``.

    Examples:
        >>> import streammetrics as sm
        >>> tracker = sm.MetricTracker(sm.MAE())  # lower is better
        >>> for epoch_error in ([3.0, 1.0], [0.5, 0.5], [1.0, 2.0]):
        ...     _ = tracker.increment().update([0.0, 0.0], epoch_error)
        >>> tracker.compute_all().tolist(), tracker.best(), tracker.n_epochs
        ([2.0, 0.5, 1.5], TrackerBest(value=0.5, step=1), 3)
    """

    higher_is_better: ClassVar[bool | None] = None

    def __init__(self, metric: Any, maximize: Any = None) -> None:
        self.metric = _fresh(metric, "metric")
        self.maximize = _maximize_of(self.metric, maximize)
        self._maximize_arg = None if maximize is None else self.maximize
        if isinstance(self.maximize, bool):
            self.higher_is_better = self.maximize  # type: ignore[misc]
        self.roles = self.metric.roles  # type: ignore[misc]
        self.convention = self.metric.convention  # type: ignore[misc]
        self.prediction = self.metric.prediction  # type: ignore[misc]
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric), "maximize": self._maximize_arg}

    def _make_state(self) -> TrackerState:
        return TrackerState(self.metric)

    def _validate(self, *args: Any, sample_weight: Any = None) -> Any:
        return validate_within(self.metric, args, sample_weight)

    def _parse(self, inputs: Any) -> Any:
        return self.metric._parse(inputs)

    def _apply(self, state: TrackerState, batch: Any) -> None:
        self.metric._apply(state.state, batch)

    def _unapply(self, state: TrackerState, batch: Any) -> None:
        if batch is None:
            raise TypeError(f"MetricTracker cannot revert: {type(self.metric).__name__} cannot revert")
        self.metric._unapply(state.state, batch)

    def _value_of(self, state: TrackerState) -> Any:
        return self.metric._value_of(state.state)

    def _compute(self, state: TrackerState) -> Any:
        return self.metric._compute(state.state)

    @property
    def n_epochs(self) -> int:
        """The number of epochs (the current one included)."""
        return len(self._state.epochs)

    def increment(self) -> MetricTracker:
        """Start a new epoch (see the class docstring for the first call); returns ``self``."""
        self._sync()
        with self._lock:
            self._state.increment()
        self._refresh()
        return self

    def compute_all(self) -> Any:
        """The value of every epoch, oldest first: a float array for a scalar metric, a dict of
        arrays for a collection, else a list. An epoch without rows is NaN (without a warning)."""
        self._sync()
        with self._lock:
            values = []
            for state in self._state.epochs:
                with warnings.catch_warnings():
                    if state.n_samples == 0:
                        warnings.simplefilter("ignore", UndefinedMetricWarning)
                    values.append(self.metric._value_of(state))
        if values and all(isinstance(x, dict) for x in values):
            keys = list(dict.fromkeys(k for x in values for k in x))
            return {k: _stack([x.get(k, math.nan) for x in values]) for k in keys}
        return _stack(values)

    def best(self) -> Any:
        """The best epoch's value and step (:class:`TrackerBest`; a dict of them for a collection).

        ``(nan, None)`` with an :class:`~streammetrics.UndefinedMetricWarning` when no epoch has
        a value.
        """
        values = self.compute_all()
        if isinstance(values, dict):
            return {k: _best(v, _direction(self.maximize, k)) for k, v in values.items()}
        if not isinstance(values, np.ndarray) or values.ndim != 1:
            raise TypeError(f"best: {type(self.metric).__name__}'s value is not a number; use compute_all()")
        return _best(values, self.maximize)


def _stack(values: list[Any]) -> Any:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return values
    return arr if arr.ndim == 1 else values


def _direction(maximize: Any, key: str) -> bool:
    if isinstance(maximize, bool):
        return maximize
    if key in maximize:
        return maximize[key]
    base = key.split("/")[0]  # a per-class value "f1/cat" follows its member "f1"
    if base in maximize:
        return maximize[base]
    raise ValueError(f"maximize: no direction for output {key!r}; pass maximize={{{key!r}: True/False}}")


def _best(values: Any, maximize: bool) -> TrackerBest:
    arr = np.asarray(values, dtype=np.float64)
    if not np.isfinite(arr).any() and not np.isinf(arr).any():
        warnings.warn(
            "MetricTracker.best: no epoch has a value; returning NaN", UndefinedMetricWarning, stacklevel=3
        )
        return TrackerBest(math.nan, None)
    filled = np.where(np.isnan(arr), -np.inf if maximize else np.inf, arr)
    step = int(np.argmax(filled) if maximize else np.argmin(filled))  # the first of ties
    return TrackerBest(float(arr[step]), step)


# ------------------------------------------------------------------------------------ MinMax
class MinMaxState(State):
    """The wrapped metric's state and the extremes ``[min, max]`` of the values computed (NaN: none yet)."""

    overflowing = ("state",)  # (NaN extremes mean "none yet", not an overflow)
    holds_states = True  # (the metric's state, updated in place)

    def __init__(self, metric: Metric[Any]) -> None:
        self.metric = metric
        self.revertible = metric.is_revertible
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric)}

    def reset(self) -> None:
        self._commit(state=self.metric._make_state(), extremes=np.full(2, np.nan))

    @property
    def n_samples(self) -> int:
        return self.state.n_samples

    def observe(self, value: Any) -> None:
        """Record a computed value (NaN is not a value; nor is an array)."""
        if np.ndim(value) != 0 or math.isnan(value):
            return
        low, high = self.extremes
        self._commit(extremes=np.array([np.fmin(low, value), np.fmax(high, value)]))

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, MinMaxState)
        state = self.state.copy()
        state.merge(other.state)
        extremes = np.array(
            [np.fmin(self.extremes[0], other.extremes[0]), np.fmax(self.extremes[1], other.extremes[1])]
        )
        self._commit(state=state, extremes=extremes)

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state.to_dict(), "extremes": self.extremes.copy()}

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _MINMAX_FIELDS.read(data, make_state=self.metric._make_state)
        extremes = values["extremes"]
        if (
            np.isinf(extremes).any()
            or np.isnan(extremes[0]) != np.isnan(extremes[1])
            or extremes[0] > extremes[1]
        ):
            raise StateError(
                f"{_MINMAX_FIELDS.where}: extremes must be [min, max] with min <= max, or [nan, nan]"
            )
        self._commit(state=values["state"], extremes=extremes)

    def check(self) -> None:
        self.state.check()
        low, high = self.extremes
        if np.isnan(low) != np.isnan(high) or low > high:
            raise StateError(
                f"{_MINMAX_FIELDS.where}: extremes must be [min, max] with min <= max, or [nan, nan]"
            )


class MinMax(OneRowMixin, Metric[MinMaxState]):
    """A metric's value with the smallest and largest values it has taken: ``{"raw", "min", "max"}``.

    As torchmetrics' ``MinMaxMetric``: every ``compute()`` records the value it returns (NaN is
    not recorded), and returns it as ``"raw"`` with the extremes of all the values recorded so
    far, that one included. Calling the metric on a batch (``m(y_true, y_pred)``) returns the
    batch's own value (its extremes are that value) and records nothing. The wrapped metric's
    value must be a number: a metric whose value is a curve, a report or a dict is refused
    (``ValueError``), and an array value (``average=None``, raw outputs) is returned with NaN
    extremes and an :class:`~streammetrics.UndefinedMetricWarning`.

    Merging merges the wrapped metric's state and keeps the extremes of both sides: what each
    side observed, not what the merged stream would have shown (see the module docstring).

    Args:
        metric: The metric to follow: a fresh metric (used as a template), a name or a
            ``{"type", "config"}`` dict; its value must be a number.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.MinMax(sm.Accuracy())
        >>> m.update([1, 1], [1, 1]).compute()
        {'raw': 1.0, 'min': 1.0, 'max': 1.0}
        >>> m.update([1, 1], [0, 0]).compute()
        {'raw': 0.5, 'min': 0.5, 'max': 1.0}
    """

    higher_is_better: ClassVar[bool | None] = None
    numeric_value: ClassVar[bool] = False  # (a dict: the value, its minimum and maximum)

    def __init__(self, metric: Any) -> None:
        self.metric = _fresh(metric, "metric")
        other = next((m for m in metrics_within(self.metric) if not type(m).numeric_value), None)
        if other is not None:
            raise ValueError(f"metric: MinMax follows a number; {type(other).__name__}'s value is not one")
        self.higher_is_better = getattr(self.metric, "higher_is_better", None)  # type: ignore[misc]
        self.roles = self.metric.roles  # type: ignore[misc]
        self.convention = self.metric.convention  # type: ignore[misc]
        self.prediction = self.metric.prediction  # type: ignore[misc]
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric)}

    def _make_state(self) -> MinMaxState:
        return MinMaxState(self.metric)

    def _validate(self, *args: Any, sample_weight: Any = None) -> Any:
        return validate_within(self.metric, args, sample_weight)

    def _parse(self, inputs: Any) -> Any:
        return self.metric._parse(inputs)

    def _apply(self, state: MinMaxState, batch: Any) -> None:
        self.metric._apply(state.state, batch)

    def _unapply(self, state: MinMaxState, batch: Any) -> None:
        if batch is None:
            raise TypeError(f"MinMax cannot revert: {type(self.metric).__name__} cannot revert")
        self.metric._unapply(state.state, batch)

    def _value_of(self, state: MinMaxState) -> dict[str, Any]:
        raw = self.metric._value_of(state.state)
        if np.ndim(raw) != 0:  # (an array: per class, per output; compute() never raises)
            warnings.warn(
                f"MinMax records numbers: {type(self.metric).__name__}'s value is an array, its "
                "extremes are NaN (average or combine its outputs to follow them)",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return {"raw": raw, "min": math.nan, "max": math.nan}
        raw = float(raw)
        low, high = state.extremes
        if math.isnan(raw):
            return {"raw": raw, "min": float(low), "max": float(high)}
        return {"raw": raw, "min": float(np.fmin(low, raw)), "max": float(np.fmax(high, raw))}

    def _compute(self, state: MinMaxState) -> dict[str, float]:
        return self._value_of(state)

    def compute(self) -> dict[str, float]:
        """``{"raw": value, "min": ..., "max": ...}``; records the value (see the class docstring)."""
        self._sync()
        with self._lock:
            value = self._value_of(self._state)
            self._state.observe(value["raw"])
        return value
