"""river adapter: any streammetrics metric as a ``river.metrics.base.Metric``.

Importing this module imports river (``pip install river``); ``import streammetrics`` does not.

Examples:
    >>> import streammetrics as sm
    >>> from streammetrics.integrations.river import RiverMetric
    >>> metric = RiverMetric(sm.F1())
    >>> for y, p in [(True, True), (True, False), (False, False), (True, True)]:
    ...     metric.update(y, p)
    >>> round(metric.get(), 4)
    0.8
    >>> metric.update(True, {False: 0.2, True: 0.8})  # predict_proba_one output: the arg-max class
    >>> round(metric.get(), 4)
    0.8571
"""

from __future__ import annotations

import warnings
from typing import Any

from river import base as river_base
from river.metrics import base as river_metrics

from .._core.metric import Metric
from .._core.onerow import RowBuffer, innermost
from ..errors import InputError, UndefinedMetricWarning
from ..ranking.positive import union

__all__ = ["RiverMetric"]


def _family(metric: Metric[Any]) -> str:
    """``"labels"``, ``"scores"``, ``"values"`` or ``"clusters"``: the prediction the metric declares."""
    members = getattr(metric, "_members", None)
    if members is not None:  # a MetricCollection: its members must agree
        kinds = {_family(m) for m in members.values()}
        if kinds <= {"labels", "scores"}:
            return "labels" if kinds == {"labels"} else "scores"
        if len(kinds) == 1:
            return kinds.pop()
        raise ValueError(f"metric: a river metric needs members of one kind, found {sorted(kinds)}")
    inner = innermost(metric)
    kind = inner.prediction
    if kind is None:
        raise ValueError(
            f"metric: {type(inner).__name__} is not fed one prediction per sample (it takes "
            f"{', '.join(inner.roles) or 'other arguments'}), so it cannot be a river metric"
        )
    return kind


class RiverMetric(river_metrics.Metric):
    """Wrap a streammetrics metric (or collection or window) as a river metric.

    ``update(y_true, y_pred, w=1.0)`` takes one sample as river gives it: a label from
    ``predict_one``, a number from a regressor, or the ``{label: probability}`` dict of
    ``predict_proba_one`` (label metrics use its arg-max; ``threshold=`` metrics and binary score
    metrics the probability of the positive class; a dict of three classes or more, and every
    dict for ``LogLoss``, is one row of class probabilities, so ``RiverMetric(sm.LogLoss())``
    agrees with river's ``CrossEntropy``). Updates go through the per-sample fast
    path, so they cost about as much as river's own metrics. ``get()`` returns the value
    (undefined values come back as NaN or the metric's policy value without a warning: use
    ``.metric.compute()`` to see warnings). ``revert`` works for revertible metrics, so the
    wrapper also works inside ``river.metrics.Rolling``. Read the wrapped metric through
    ``.metric``: rows buffered by the fast path are applied first.

    Examples:
        >>> import streammetrics as sm
        >>> from river import datasets, evaluate, linear_model, preprocessing
        >>> model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
        >>> metric = RiverMetric(sm.Accuracy())
        >>> result = evaluate.progressive_val_score(datasets.Phishing(), model, metric)
        >>> 0.85 < metric.get() < 0.95, metric.metric.n_samples
        (True, 1250)
    """

    _fmt = ",.6f"

    def __init__(self, metric: Metric[Any]) -> None:
        if not isinstance(metric, Metric):
            raise ValueError(f"metric: expected a streammetrics metric, found {type(metric).__name__}")
        self._metric = metric
        self._kind = _family(metric)
        self._buffer: RowBuffer | None = None
        self._push: Any = None
        if self._kind != "scores":  # ``f = metric.update`` taken now is already the hot path
            self._setup()

    # ------------------------------------------------------------------ the wrapped metric
    @property
    def metric(self) -> Metric[Any]:
        """The wrapped streammetrics metric (with every row applied)."""
        self._sync()
        return self._metric

    def _sync(self) -> None:
        """Apply the rows buffered by the fast path."""
        if self._buffer is not None:
            self._buffer.flush()
        sync = getattr(self._metric, "_sync", None)
        if callable(sync):
            sync()

    def _refresh(self) -> None:
        if self._buffer is not None:
            self._buffer.refresh()
        refresh = getattr(self._metric, "_refresh", None)
        if callable(refresh):
            refresh()

    def _convert(self, y_true: Any, y_pred: Any) -> tuple[Any, Any]:
        """A ``{label: probability}`` dict as the score row the metric takes: a list of class
        probabilities (multiclass: a one-row batch) or the positive class's probability."""
        if self._kind != "scores" or not isinstance(y_pred, dict):
            return y_true, y_pred
        inner = innermost(self._metric)
        labels = getattr(inner, "labels", None)
        if labels is not None and len(labels) > 2:
            return y_true, [float(y_pred.get(label, 0.0)) for label in labels]
        keys = sorted({*y_pred, y_true}, key=lambda k: (isinstance(k, str), k))
        # log loss reads only the true class's probability, so every dict is a multiclass row
        # (binary dicts give the same value); other metrics take one when the dict has 3+ classes
        if labels is None and (len(keys) > 2 or type(inner).__name__ == "LogLoss"):
            return keys.index(y_true), [float(y_pred.get(k, 0.0)) for k in keys]
        rule = getattr(inner, "_rule", None)
        pos = getattr(inner, "pos_label", None)
        if pos is None and rule is not None:
            try:  # the positive class as the metric's rule decides it from the labels known
                pos = rule().positive(union(getattr(inner.state, "seen", ()), keys))
            except (InputError, TypeError):
                pos = None
        return y_true, float(y_pred.get(1 if pos is None else pos, 0.0))

    # ------------------------------------------------------------------ river's protocol
    def _setup(self) -> Any:
        row_updater = getattr(self._metric, "row_updater", None)
        if row_updater is not None:  # the metric's own buffers; river's update returns None
            push = row_updater(None)
        else:  # a plain metric: this wrapper keeps the buffer
            self._buffer = RowBuffer(self._metric)
            push = self._buffer.updater(None)
        self._push = push
        if self._kind != "scores":  # river calls update(y_true=, y_pred=): go straight to the hot path
            self.__dict__["update"] = push
        return push

    def update(self, y_true: Any, y_pred: Any, w: float = 1.0) -> None:
        if type(y_pred) is dict and self._kind == "scores":
            y_true, y_pred = self._convert(y_true, y_pred)
            if isinstance(y_pred, list):  # multiclass probabilities: a one-row batch
                self._sync()
                self._metric.update([y_true], [y_pred], sample_weight=None if w == 1.0 else [w])
                self._refresh()
                return
        (self._push or self._setup())(y_true, y_pred, None if w == 1.0 else w)

    def revert(self, y_true: Any, y_pred: Any, w: float = 1.0) -> None:
        y_true, y_pred = self._convert(y_true, y_pred)
        self._sync()
        if not isinstance(y_pred, list):
            y_true, y_pred, weight, _ = RowBuffer(self._metric).check(y_true, y_pred, w)
            w = 1.0 if weight is None else weight
        try:
            self._metric.revert([y_true], [y_pred], sample_weight=None if w == 1.0 else [w])
        finally:
            self._refresh()

    def get(self) -> Any:
        self._sync()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            return self._metric.compute()

    @property
    def bigger_is_better(self) -> bool:
        higher = type(innermost(self._metric)).higher_is_better
        return True if higher is None else bool(higher)

    def works_with(self, model: Any) -> bool:
        if self._kind in ("labels", "scores"):
            return isinstance(model, river_base.Classifier)
        if self._kind == "values":
            return isinstance(model, river_base.Regressor)
        return isinstance(model, river_base.Clusterer)

    @property
    def requires_labels(self) -> bool:
        """Whether river should pass ``predict_one`` labels (else ``predict_proba_one`` dicts)."""
        return self._kind in ("labels", "clusters")

    @property
    def works_with_weights(self) -> bool:
        return True

    def clone(
        self, new_params: dict[str, Any] | None = None, include_attributes: bool = False
    ) -> RiverMetric:
        """A fresh wrapper around an empty metric of the same configuration."""
        return RiverMetric(
            new_params.get("metric", self._metric) if new_params else self._metric.empty_like()
        )

    def _get_params(self) -> dict[str, Any]:
        return {"metric": self._metric.empty_like()}

    def __add__(self, other: Any) -> river_metrics.Metrics:
        return river_metrics.Metrics([self, other])

    def __repr__(self) -> str:
        value = self.get()
        name = type(innermost(self._metric)).__name__
        try:
            return f"{name}: {value:{self._fmt}}"
        except (TypeError, ValueError):
            return f"{name}: {value}"

    def __getstate__(self) -> dict[str, Any]:
        self._sync()
        state = self.__dict__.copy()
        state.update(_push=None, _buffer=None)
        state.pop("update", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._kind != "scores":
            self._setup()
