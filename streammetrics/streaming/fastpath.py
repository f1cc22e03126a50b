"""The per-sample fast path: one-row updates without creating NumPy arrays per call.

Online loops (river-style) call ``update`` with one sample thousands of times per second. On
that path, building and validating NumPy arrays costs tens of microseconds per call. Instead,
:meth:`update_one` checks the row with plain Python (same rules, same error messages as the
batch validation, raised at once, the accumulator unchanged), appends it to a small buffer, and
the buffer is applied as one vectorized batch when it is full or before anything reads the
state (``compute``, ``merge``, ``state_dict``, ``copy``, ``n_samples``, pickling...).

Row checkers exist for the confusion family (labels, hard predictions, scores with
``threshold=``, and river's ``predict_proba_one`` dicts) and the regression co-moments; other
metrics fall back to a one-row ``update``. :class:`OneRowMixin` is the wiring: the streaming
classes use it, and it is written so that :class:`~streammetrics.Metric` can take it over
whole (see the report of issue 6).

Examples:
    >>> import streammetrics as sm
    >>> c = sm.MetricCollection([sm.Accuracy(), sm.F1()])
    >>> for y, p in [(0, 0), (1, 1), (1, 0), (0, 0)]:
    ...     _ = c.update_one(y, p)
    >>> c.compute()
    {'accuracy': 0.75, 'f1': 0.6666666666666666}
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.labels import LabelSet
from .._core.metric import Metric
from ..errors import InputError

#: Rows buffered before a vectorized flush.
FLUSH_EVERY = 4096

_INT_TYPES = (int, np.integer)


def _label(value: Any, name: str) -> int | str:
    """One class label as a plain int or str, as :func:`validation.as_labels` would make it."""
    t = type(value)
    if t is int or t is str:
        return value
    if t is bool or isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise InputError(f"{name}: expected finite values, found {value}")
        if value != int(value):
            raise InputError(
                f"{name}: expected class labels (ints, bools or strings), found continuous values such as "
                f"{float(value)!r}; pass threshold= to turn scores into labels"
            )
        return int(value)
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # 0-d arrays, CPU tensors
        return _label(value.item(), name)
    raise InputError(f"{name}: expected one class label (int, bool or str), found {type(value).__name__}")


def _number(value: Any, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a number, found {type(value).__name__}") from None
    if not math.isfinite(x):
        raise InputError(f"{name}: expected finite values, found {x}")
    return x


def _weight(w: Any) -> float | None:
    if w is None:
        return None
    x = _number(w, "sample_weight")
    if x < 0:
        raise InputError(f"sample_weight: expected non-negative weights, found {x}")
    return None if x == 1.0 else x


def _labels_of(state: Any) -> Any:
    """The :class:`LabelSet` of a confusion state, looking through window/decay wrappers."""
    while True:
        labels = getattr(state, "labels", None)
        if isinstance(labels, LabelSet):
            return labels
        if hasattr(state, "merged"):
            state = state.merged()
        elif hasattr(state, "state"):
            state = state.state
        else:
            return None


def _mode_of(state: Any) -> Any:
    while not hasattr(state, "mode") and hasattr(state, "state"):
        state = state.state
    return getattr(state, "mode", None)


def innermost(metric: Metric[Any]) -> Metric[Any]:
    inner = getattr(metric, "metric", None)
    return innermost(inner) if isinstance(inner, Metric) else metric


# ----------------------------------------------------------------------------- row checkers
class _ConfusionRows:
    """Checks one (y_true, y_pred) row against a confusion metric's rules."""

    def __init__(self, rules: Any, state: Any) -> None:
        self.rules = rules
        rules._check_mode("multiclass")  # e.g. average="samples" needs multilabel input
        if _mode_of(state) == "multilabel":
            raise InputError(
                "y_true: expected a 2-D multilabel indicator like earlier batches, found one label"
            )
        labels = _labels_of(state)
        self.known: set[Any] = set(labels.tolist()) if labels is not None else set()
        self.fixed = rules.labels is not None
        if self.fixed:
            self.known = set(rules.labels)
        self.kind: type | None = None
        if self.known:
            self.kind = str if isinstance(next(iter(self.known)), str) else int
        self.threshold = rules.threshold
        self.probability = rules.input == "probability"
        self.pos, self.neg = rules.pos_label, rules._negative_label

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        """``(y_true, y_pred as stored, labels to check)``; raises :class:`InputError`."""
        yt = _label(y_true, "y_true")
        if self.threshold is None:
            yp = self._argmax(y_pred) if isinstance(y_pred, dict) else _label(y_pred, "y_pred")
            return yt, yp, (yt, yp)
        score = y_pred.get(self.pos, 0.0) if isinstance(y_pred, dict) else y_pred
        score = _number(score, "y_pred")
        if self.probability and not 0.0 <= score <= 1.0:
            raise InputError(
                f"y_pred: expected probabilities in [0, 1] (input='probability'), found {score}; "
                "pass input='score' for logits or margins"
            )
        return yt, score, (yt, self.pos if score >= self.threshold else self.neg)

    def _argmax(self, proba: dict[Any, Any]) -> Any:
        if not proba:
            raise InputError("y_pred: expected a non-empty dict of class probabilities, found {}")
        best, best_p = None, -math.inf
        for label, p in proba.items():
            p = _number(p, "y_pred")
            if self.probability and not 0.0 <= p <= 1.0:
                raise InputError(f"y_pred: expected probabilities in [0, 1] (input='probability'), found {p}")
            if p > best_p:
                best, best_p = label, p
        return _label(best, "y_pred")

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        """Check the row's labels against the kind and the label rules; return the new ones."""
        new: list[Any] = []
        for label, name in zip(labels, ("y_true", "y_pred"), strict=False):
            if label in self.known or label in new:
                continue
            kind = str if type(label) is str else int
            seen = self.kind if self.kind is not None else (type(new[0]) if new else None)
            if seen is not None and kind is not seen:
                raise InputError(
                    f"{name}: expected {seen.__name__} labels like those seen so far, found "
                    f"{kind.__name__} labels such as {label!r}"
                )
            if self.fixed:
                raise InputError(
                    f"{name}: expected labels in the fixed list {self.rules.labels}, found [{label!r}]"
                )
            new.append(label)
        if new:
            grown = sorted(self.known | set(new))
            self.rules._check_labels(LabelSet(np.array(grown)))
        return new

    def commit(self, new: list[Any]) -> None:
        if new:
            self.known.update(new)
            self.kind = str if type(new[0]) is str else int


class _RegressionRows:
    """Checks one (y_true, y_pred) pair of real numbers against a regression metric's rules."""

    def __init__(self, rules: Any, state: Any) -> None:
        outputs = getattr(_innermost_state(state), "n_outputs", None)
        if outputs not in (None, 1):
            raise InputError(f"y_true: expected {outputs} outputs like earlier batches, found 1")
        if not isinstance(rules.multioutput, str) and len(rules.multioutput) != 1:
            raise InputError(
                f"y_true: expected {len(rules.multioutput)} outputs (the length of multioutput), found 1"
            )
        self.log = rules.transform == "log1p"
        self.name = type(rules).__name__

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        t, p = _number(y_true, "y_true"), _number(y_pred, "y_pred")
        if self.log and (t < 0 or p < 0):
            name, bad = ("y_true", t) if t < 0 else ("y_pred", p)
            raise InputError(
                f"{name}: expected non-negative values for {self.name} (log1p of targets and predictions), "
                f"found {bad}"
            )
        return t, p, ()

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        return []

    def commit(self, new: list[Any]) -> None:
        pass


def _innermost_state(state: Any) -> Any:
    while hasattr(state, "state") and not hasattr(state, "n_outputs"):
        state = state.state
    return state


def _checker(rules: Metric[Any], state: Any) -> Any:
    from ..classification.base import ConfusionMetric

    if isinstance(rules, ConfusionMetric):
        return _ConfusionRows(rules, state)
    from ..regression.base import RegressionMetric

    if isinstance(rules, RegressionMetric):
        return _RegressionRows(rules, state)
    return None


# ----------------------------------------------------------------------------- the buffer
class RowBuffer:
    """One-row updates of one accumulator, buffered and applied as vectorized batches.

    ``owner`` validates and applies the flushed batch to ``owner._state`` (a plain metric, the
    leader of a collection group, a window); ``rules`` is the metric whose input rules the rows
    follow (the innermost metric of a window). Metrics without a row checker get each row
    applied at once through ``owner.update``.
    """

    __slots__ = ("checker", "owner", "w", "yp", "yt")

    def __init__(self, owner: Metric[Any], rules: Metric[Any] | None = None) -> None:
        self.owner = owner
        self.checker = _checker(rules or innermost(owner), owner._state)
        self.yt: list[Any] = []
        self.yp: list[Any] = []
        self.w: list[float] | None = None

    def __len__(self) -> int:
        return len(self.yt)

    def check(self, y_true: Any, y_pred: Any, w: Any = None) -> tuple[Any, ...]:
        """Validate one row (raises :class:`InputError`); returns it ready for :meth:`push`."""
        weight = _weight(w)
        if self.checker is None:
            return (y_true, y_pred, weight, None)
        yt, yp, labels = self.checker.check(y_true, y_pred)
        return (yt, yp, weight, self.checker.admit(labels))

    def push(self, row: tuple[Any, ...]) -> None:
        yt, yp, weight, new = row
        if self.checker is None:
            self.owner.update([yt], [yp], sample_weight=None if weight is None else [weight])
            return
        self.checker.commit(new)
        self.yt.append(yt)
        self.yp.append(yp)
        if weight is not None or self.w is not None:
            if self.w is None:
                self.w = [1.0] * (len(self.yt) - 1)
            self.w.append(1.0 if weight is None else weight)
        if len(self.yt) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Apply the buffered rows as one batch."""
        if not self.yt:
            return
        yt, yp, w = self.yt, self.yp, self.w
        self.yt, self.yp, self.w = [], [], None
        owner = self.owner
        batch = owner._validate(
            np.asarray(yt), np.asarray(yp), sample_weight=None if w is None else np.asarray(w)
        )
        with owner._lock:
            owner._apply(owner._state, batch)


# ----------------------------------------------------------------------------- the wiring
class OneRowMixin:
    """Adds ``update_one(y_true, y_pred, w=None)`` to a :class:`Metric` subclass.

    Every method that reads or replaces the state first applies the buffered rows
    (:meth:`_sync`). Subclasses with several states (collections) override
    :meth:`_row_buffers` to return one :class:`RowBuffer` per state.
    """

    _buffers: list[RowBuffer] | None = None

    def _row_buffers(self) -> list[RowBuffer]:
        return [RowBuffer(self)]  # type: ignore[arg-type]

    def update_one(self, y_true: Any, y_pred: Any, w: Any = None) -> Any:
        """Add one row (scalars; ``y_pred`` may be a dict of class probabilities); returns ``self``.

        Same rules and errors as ``update([y_true], [y_pred], sample_weight=[w])``, faster:
        no array is created per call. ``w=None`` or ``1`` is an unweighted row.
        """
        with self._lock:  # type: ignore[attr-defined]
            buffers = self._buffers
            if buffers is None:
                buffers = self._buffers = self._row_buffers()
            if len(buffers) == 1:
                buffers[0].push(buffers[0].check(y_true, y_pred, w))
            else:
                rows = [b.check(y_true, y_pred, w) for b in buffers]  # all checked, then all pushed
                for b, row in zip(buffers, rows, strict=True):
                    b.push(row)
        return self

    def _sync(self) -> None:
        """Apply buffered rows and forget the buffers (they are rebuilt from the new state)."""
        buffers = self.__dict__.get("_buffers")
        if buffers is not None:
            with self._lock:  # type: ignore[attr-defined]
                self._buffers = None
                for b in buffers:
                    b.flush()

    # every reader syncs first
    def update(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        return super().update(*args, sample_weight=sample_weight)  # type: ignore[misc]

    def revert(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        return super().revert(*args, sample_weight=sample_weight)  # type: ignore[misc]

    def compute(self, *args: Any, **kwargs: Any) -> Any:
        self._sync()
        return super().compute(*args, **kwargs)  # type: ignore[misc]

    def __call__(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        return super().__call__(*args, sample_weight=sample_weight)  # type: ignore[misc]

    def merge(self, other: Any) -> Any:
        self._sync()
        sync = getattr(other, "_sync", None)
        if callable(sync):
            sync()
        return super().merge(other)  # type: ignore[misc]

    def reset(self) -> Any:
        self.__dict__.pop("_buffers", None)
        return super().reset()  # type: ignore[misc]

    def state_dict(self) -> dict[str, Any]:
        self._sync()
        return super().state_dict()  # type: ignore[misc]

    @property
    def n_samples(self) -> int:
        self._sync()
        return self._state.n_samples  # type: ignore[attr-defined]

    @property
    def state(self) -> Any:
        self._sync()
        return self._state  # type: ignore[attr-defined]

    def __getstate__(self) -> dict[str, Any]:
        self._sync()
        state = super().__getstate__()  # type: ignore[misc]
        state.pop("_buffers", None)
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        self._sync()
        new = super().__deepcopy__(memo)  # type: ignore[misc]
        new.__dict__.pop("_buffers", None)
        return new


def update_one(metric: Metric[Any], y_true: Any, y_pred: Any, w: Any = None) -> Metric[Any]:
    """One-row update of any metric: its ``update_one`` when it has one, else a one-row batch.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Accuracy()
        >>> _ = update_one(update_one(m, 1, 1), 0, 1)
        >>> m.compute()
        0.5
    """
    method: Callable[..., Any] | None = getattr(metric, "update_one", None)
    if method is not None:
        return method(y_true, y_pred, w)
    buffer = RowBuffer(metric)
    buffer.push(buffer.check(y_true, y_pred, w))
    buffer.flush()
    return metric
