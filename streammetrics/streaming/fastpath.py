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

import copy
import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.labels import LabelSet
from .._core.metric import Metric
from ..errors import InputError

#: Rows buffered before a vectorized flush.
FLUSH_EVERY = 4096

#: Types a label may have on the fast path (anything else takes the checked path).
_LABEL_TYPES = frozenset({int, str, bool, np.int64, np.int32, np.int16, np.int8, np.uint8, np.str_, np.bool_})
#: Types a number may have on the fast path.
_NUMBER_TYPES = frozenset({int, float, bool, np.float64, np.float32, np.int64, np.int32})
_INT64 = (-(2**63), 2**63 - 1)


def _label(value: Any, name: str) -> int | str:
    """One class label as a plain int or str, as :func:`validation.as_labels` would make it."""
    t = type(value)
    if t is str:
        return value
    if t is int:
        if not _INT64[0] <= value <= _INT64[1]:
            raise InputError(f"{name}: expected labels that fit in int64, found {value}")
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

    hot = "labels"

    def __init__(self, rules: Any, state: Any) -> None:
        self.rules = rules
        self.fixed = rules.labels is not None
        self.threshold = rules.threshold
        self.probability = rules.input == "probability"
        self.pos, self.neg = rules.pos_label, rules._negative_label
        if self.threshold is not None:
            self.hot = "scores"
        self.known: set[Any] = set()
        self.kind: type | None = None
        self.refresh(state)

    def refresh(self, state: Any) -> None:
        """Re-read the labels of ``state`` (in place: the hot path holds this very set)."""
        labels = _labels_of(state)
        known = (
            set(self.rules.labels) if self.fixed else set(labels.tolist()) if labels is not None else set()
        )
        self.state = state
        self.known.clear()
        if _mode_of(state) != "multilabel":  # else every row takes the checked path, which says why
            self.known.update(known)
        self.kind = (str if isinstance(next(iter(known)), str) else int) if known else None

    def fast_test(self) -> Callable[[Any, Any], bool]:
        """A side-effect-free test: is this row of known labels (or a valid score) as is?"""
        known, types = self.known, _LABEL_TYPES
        if self.threshold is None:
            return lambda t, p: type(t) in types and type(p) in types and t in known and p in known
        lo, hi = (0.0, 1.0) if self.probability else (-math.inf, math.inf)
        pos, neg, numbers = self.pos, self.neg, _NUMBER_TYPES
        return lambda t, p: (
            type(t) in types
            and t in known
            and type(p) in numbers
            and lo <= p <= hi
            and -math.inf < p < math.inf
            and pos in known
            and neg in known
        )

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        """``(y_true, y_pred as stored, labels to check)``; raises :class:`InputError`."""
        self.rules._check_mode("multiclass")  # e.g. average="samples" needs multilabel input
        if _mode_of(self.state) == "multilabel":
            raise InputError(
                "y_true: expected a 2-D multilabel indicator like earlier batches, found one label"
            )
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

    hot = "numbers"

    def __init__(self, rules: Any, state: Any) -> None:
        self.rules = rules
        self.log = rules.transform == "log1p"
        self.name = type(rules).__name__
        self.open = [True]  # the hot path is open while the state takes one output
        self.refresh(state)

    def refresh(self, state: Any) -> None:
        self.state = state
        self.open[0] = getattr(_innermost_state(state), "n_outputs", None) in (None, 1) and (
            isinstance(self.rules.multioutput, str) or len(self.rules.multioutput) == 1
        )

    def fast_test(self) -> Callable[[Any, Any], bool]:
        types, inf, lo, is_open = _NUMBER_TYPES, math.inf, (0 if self.log else -math.inf), self.open
        return lambda t, p: (
            type(t) in types and type(p) in types and lo <= t < inf and lo <= p < inf and is_open[0]
        )

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        outputs = getattr(_innermost_state(self.state), "n_outputs", None)
        if outputs not in (None, 1):
            raise InputError(f"y_true: expected {outputs} outputs like earlier batches, found 1")
        if not isinstance(self.rules.multioutput, str) and len(self.rules.multioutput) != 1:
            raise InputError(
                f"y_true: expected {len(self.rules.multioutput)} outputs (the length of multioutput), found 1"
            )
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


class _ContingencyRows:
    """Checks one (labels_true, labels_pred) pair for the contingency table (each side its own kind)."""

    hot = "pairs"

    def __init__(self, rules: Any, state: Any) -> None:
        self.known: tuple[set[Any], set[Any]] = (set(), set())
        self.kinds: list[type | None] = [None, None]
        self.refresh(state)

    def refresh(self, state: Any) -> None:
        state = _innermost_state(state, "row_labels")
        for side, labels in enumerate((state.row_labels.tolist(), state.col_labels.tolist())):
            self.known[side].clear()
            self.known[side].update(labels)
            self.kinds[side] = (str if isinstance(labels[0], str) else int) if labels else None

    def fast_test(self) -> Callable[[Any, Any], bool]:
        types, (known_t, known_p) = _LABEL_TYPES, self.known
        return lambda t, p: type(t) in types and type(p) in types and t in known_t and p in known_p

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        t, p = _label(y_true, "labels_true"), _label(y_pred, "labels_pred")
        return t, p, (t, p)

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        new = []
        for side, (label, name) in enumerate(zip(labels, ("labels_true", "labels_pred"), strict=True)):
            if label in self.known[side]:
                continue
            kind, seen = (str if type(label) is str else int), self.kinds[side]
            if seen is not None and kind is not seen:
                raise InputError(
                    f"{name}: expected {seen.__name__} labels like those seen so far, found "
                    f"{kind.__name__} labels such as {label!r}"
                )
            new.append((side, label))
        return new

    def commit(self, new: list[Any]) -> None:
        for side, label in new:
            self.known[side].add(label)
            self.kinds[side] = str if type(label) is str else int


def _innermost_state(state: Any, attribute: str = "n_outputs") -> Any:
    while not hasattr(state, attribute):
        state = state.merged() if hasattr(state, "merged") else state.state
    return state


def _checker(rules: Metric[Any], state: Any) -> Any:
    from ..classification.base import ConfusionMetric

    if isinstance(rules, ConfusionMetric):
        return _ConfusionRows(rules, state)
    from ..regression.base import RegressionMetric

    if isinstance(rules, RegressionMetric):
        return _RegressionRows(rules, state)
    from ..clustering.base import ExternalMetric

    if isinstance(rules, ExternalMetric):
        return _ContingencyRows(rules, state)
    return None


# ----------------------------------------------------------------------------- the buffer
class RowBuffer:
    """One-row updates of one accumulator, buffered and applied as vectorized batches.

    ``owner`` validates and applies the flushed batch to ``owner._state`` (a plain metric, the
    leader of a collection group, a window); ``rules`` is the metric whose input rules the rows
    follow (the innermost metric of a window). Rows of known labels (or valid numbers) take a
    fast test and one ``list.extend`` (atomic, so concurrent callers never interleave half
    rows); others go through the full check under the owner's lock, and weighted rows are
    applied at once. Metrics without a row
    checker get each row applied at once through ``owner.update``.
    """

    __slots__ = ("checker", "fast", "owner", "rows")

    def __init__(self, owner: Metric[Any], rules: Metric[Any] | None = None) -> None:
        self.owner = owner
        self.checker = _checker(rules or innermost(owner), owner._state)
        self.fast: Callable[[Any, Any], bool] = self.checker.fast_test() if self.checker else _never
        #: Buffered rows, flat: y_true, y_pred, y_true, y_pred, ... (one ``extend`` per row).
        self.rows: list[Any] = []

    def __len__(self) -> int:
        return len(self.rows) // 2

    def check(self, y_true: Any, y_pred: Any, w: Any = None) -> tuple[Any, ...]:
        """Validate one row (raises :class:`InputError`); returns it ready for :meth:`push`."""
        weight = _weight(w)
        if self.checker is None:
            return (y_true, y_pred, weight, None)
        yt, yp, labels = self.checker.check(y_true, y_pred)
        return (yt, yp, weight, self.checker.admit(labels))

    def push(self, row: tuple[Any, ...]) -> None:
        """Append a row made by :meth:`check` (call with the owner's lock held).

        A weighted row is applied at once (after the buffered rows, keeping the order).
        """
        yt, yp, weight, new = row
        if self.checker is None or weight is not None:
            self.flush()
            self.owner.update([yt], [yp], sample_weight=None if weight is None else [weight])
            return
        self.checker.commit(new)
        self.rows.extend((yt, yp))
        if len(self.rows) >= 2 * FLUSH_EVERY:
            self.flush()

    def add(self, y_true: Any, y_pred: Any, w: Any = None) -> None:
        """Check and append one row (the checked path)."""
        with self.owner._lock:
            self.push(self.check(y_true, y_pred, w))

    def flush(self) -> None:
        """Apply the buffered rows as one batch."""
        owner = self.owner
        with owner._lock:
            rows = self.rows
            n = len(rows)
            if not n:
                return
            y_true, y_pred = rows[0:n:2], rows[1:n:2]
            del rows[:n]  # rows appended meanwhile stay for the next flush
            validated = owner._validate(np.asarray(y_true), np.asarray(y_pred))
            owner._apply(owner._state, validated)

    def refresh(self) -> None:
        """Re-read what the checker knows from the owner's state (after a batch update, a
        revert, a merge or a reset)."""
        if self.checker is not None:
            self.checker.refresh(self.owner._state)

    def updater(self, result: Any) -> Callable[..., Any]:
        """A function ``(y_true, y_pred, w=None) -> result``: the whole per-row hot path.

        The common cases are written out inline (no inner call): labels already seen for the
        confusion family and the contingency table, finite numbers for the regression moments.
        """
        rows, extend, add, flush = self.rows, self.rows.extend, self.add, self.flush
        limit = 2 * FLUSH_EVERY
        hot = getattr(self.checker, "hot", None)
        if hot in ("labels", "pairs"):
            # "labels": one known-label set for both arguments (confusion family);
            # "pairs": one set per argument (contingency table).
            known = self.checker.known  # type: ignore[union-attr]
            known_t, known_p = (known, known) if hot == "labels" else known
            types = _LABEL_TYPES

            def update_one(y_true: Any, y_pred: Any, w: Any = None) -> Any:
                try:
                    ok = (
                        type(y_true) in types
                        and type(y_pred) in types
                        and y_true in known_t
                        and y_pred in known_p
                    )
                except TypeError:
                    ok = False
                if ok and (w is None or w == 1):
                    extend((y_true, y_pred))
                    if len(rows) >= limit:
                        flush()
                else:
                    add(y_true, y_pred, w)
                return result

            return update_one
        if hot == "numbers":
            types, inf, is_open = _NUMBER_TYPES, math.inf, self.checker.open  # type: ignore[union-attr]
            lo = 0 if self.checker.log else -math.inf  # type: ignore[union-attr]

            def update_one(y_true: Any, y_pred: Any, w: Any = None) -> Any:
                if (
                    type(y_true) in types
                    and type(y_pred) in types
                    and lo <= y_true < inf
                    and lo <= y_pred < inf
                    and is_open[0]
                    and (w is None or w == 1)
                ):
                    extend((y_true, y_pred))
                    if len(rows) >= limit:
                        flush()
                else:
                    add(y_true, y_pred, w)
                return result

            return update_one
        fast = self.fast

        def update_one(y_true: Any, y_pred: Any, w: Any = None) -> Any:
            try:
                ok = (w is None or w == 1) and fast(y_true, y_pred)
            except (TypeError, ValueError):  # unhashable or array-like values: the checked path says why
                ok = False
            if ok:
                extend((y_true, y_pred))
                if len(rows) >= limit:
                    flush()
            else:
                add(y_true, y_pred, w)
            return result

        return update_one


def _never(t: Any, p: Any) -> bool:
    return False


def _group_updater(buffers: list[RowBuffer], lock: Any, result: Any) -> Callable[..., Any]:
    """The hot path of several buffers fed the same row: all accept it, or none changes."""
    tests = [b.fast for b in buffers]
    extends = [b.rows.extend for b in buffers]
    first = buffers[0].rows

    def update_one(y_true: Any, y_pred: Any, w: Any = None) -> Any:
        try:
            ok = all([test(y_true, y_pred) for test in tests]) and (w is None or w == 1)
        except (TypeError, ValueError):
            ok = False
        with lock:
            if ok:
                row = (y_true, y_pred)
                for extend in extends:
                    extend(row)
                if len(first) >= 2 * FLUSH_EVERY:
                    for b in buffers:
                        b.flush()
            else:
                rows = [b.check(y_true, y_pred, w) for b in buffers]  # all checked, then all pushed
                for b, row in zip(buffers, rows, strict=True):
                    b.push(row)
        return result

    return update_one


# ----------------------------------------------------------------------------- the wiring
class OneRowMixin:
    """Adds ``update_one(y_true, y_pred, w=None)`` to a :class:`Metric` subclass.

    The first call builds the row buffers and installs the hot-path function as the instance's
    ``update_one`` (so ``f = m.update_one`` taken once stays valid); every method that reads the
    state first applies the buffered rows (:meth:`_sync`), and every other write lets the
    buffers re-read the labels they know (:meth:`_refresh`). Subclasses with several states (collections) override
    :meth:`_row_buffers` to return one :class:`RowBuffer` per state.
    """

    def _row_buffers(self) -> list[RowBuffer]:
        return [RowBuffer(self)]  # type: ignore[arg-type]

    def update_one(self, y_true: Any, y_pred: Any, w: Any = None) -> Any:
        """Add one row (scalars; ``y_pred`` may be a dict of class probabilities); returns ``self``.

        Same rules and errors as ``update([y_true], [y_pred], sample_weight=[w])``, faster:
        no array is created per call. ``w=None`` or ``1`` is an unweighted row.
        """
        return self.hot_path()(y_true, y_pred, w)

    def hot_path(self) -> Callable[..., Any]:
        """The per-row function ``(y_true, y_pred, w=None) -> self`` (built once, then reused)."""
        installed = self.__dict__.get("update_one")
        if installed is not None:
            return installed
        with self._lock:  # type: ignore[attr-defined]
            buffers = self._row_buffers()
            if len(buffers) == 1:
                fn = buffers[0].updater(self)
            else:
                fn = _group_updater(buffers, self._lock, self)  # type: ignore[attr-defined]
            self.__dict__["_buffers"] = buffers
            self.__dict__["update_one"] = fn
        return fn

    def _sync(self) -> None:
        """Apply the buffered rows."""
        buffers = self.__dict__.get("_buffers")
        if buffers:
            with self._lock:  # type: ignore[attr-defined]
                for b in buffers:
                    b.flush()

    def _refresh(self) -> None:
        """After a write that did not go through the buffers, let them re-read the state."""
        for b in self.__dict__.get("_buffers") or ():
            b.refresh()

    # every reader syncs first; every other writer also refreshes after
    def update(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        try:
            return super().update(*args, sample_weight=sample_weight)  # type: ignore[misc]
        finally:
            self._refresh()

    def revert(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        try:
            return super().revert(*args, sample_weight=sample_weight)  # type: ignore[misc]
        finally:
            self._refresh()

    def compute(self, *args: Any, **kwargs: Any) -> Any:
        self._sync()
        return super().compute(*args, **kwargs)  # type: ignore[misc]

    def __call__(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        try:
            return super().__call__(*args, sample_weight=sample_weight)  # type: ignore[misc]
        finally:
            self._refresh()

    def merge(self, other: Any) -> Any:
        self._sync()
        sync = getattr(other, "_sync", None)
        if callable(sync):
            sync()
        try:
            return super().merge(other)  # type: ignore[misc]
        finally:
            self._refresh()

    def reset(self) -> Any:
        with self._lock:  # type: ignore[attr-defined]
            for b in self.__dict__.get("_buffers") or ():
                del b.rows[:]
            super().reset()  # type: ignore[misc]
            self._refresh()
        return self

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
        state.pop("update_one", None)
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        self._sync()
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key not in ("_lock", "_buffers", "update_one"):  # the copy builds its own hot path
                new.__dict__[key] = copy.deepcopy(value, memo)
        new._lock = threading.RLock()
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
    buffer.add(y_true, y_pred, w)
    buffer.flush()
    return metric
