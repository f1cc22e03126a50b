"""Windows over a stream: the last N rows (Rolling) and exponential forgetting (Decayed)."""

from __future__ import annotations

import inspect
import math
import warnings
from collections import deque
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.approximate import Estimate, bounded
from .._core.metric import Metric, metrics_within, validate_within
from .._core.onerow import OneRowMixin
from .._core.params import check_number
from .._core.schema import Array, Check, Int, Nested, Schema
from .._core.state import State
from ..errors import InputError, MergeError, StateError
from . import _spec
from .scaling import can_scale, scale_state

Rows = tuple[tuple[np.ndarray, ...], "np.ndarray | None"]


class _InnerEstimate:
    """``estimate()`` and ``bounds()`` of a window: the inner metric's over the window's state
    (a sketch's guaranteed bounds, a sample's standard error), or, for an exact metric, its
    value as an exact estimate."""

    metric: Metric[Any]

    def _inner_state(self, state: Any) -> State:
        raise NotImplementedError

    def estimate(self, z: float | None = None) -> Estimate:
        """The inner metric's :class:`~streammetrics.Estimate` over the window (``z``: the width of
        a sampled metric's standard-error interval; a sketch's bounds take none).

        Examples:
            >>> import streammetrics as sm
            >>> r = sm.Rolling(sm.ROCAUC(max_bins=4), window=3)
            >>> low, high = r.update([0, 1, 1, 0], [0.1, 0.35, 0.8, 0.4]).bounds()
            >>> bool(low <= sm.ROCAUC().update([1, 1, 0], [0.35, 0.8, 0.4]).compute() <= high)
            True
        """
        with self._lock:  # type: ignore[attr-defined]
            view = self.metric.empty_like()
            view._state = self._inner_state(self._state)  # type: ignore[attr-defined]
        inner = getattr(view, "estimate", None)
        if inner is None:  # an exact metric: its value, exactly
            value = view.compute()
            return bounded(value, value, value, exact=True)
        if z is None:
            return inner()
        if "z" not in inspect.signature(inner).parameters:
            raise ValueError(f"z: {type(self.metric).__name__}'s bounds are guaranteed, they take no z")
        return inner(z)

    def bounds(self, z: float | None = None) -> tuple[Any, Any]:
        """``(low, high)`` of :meth:`estimate`."""
        e = self.estimate(z)
        return e.low, e.high


def _slice(rows: Rows, start: int, stop: int | None = None) -> Rows:
    args, weights = rows
    cut = slice(start, stop)
    return tuple(a[cut] for a in args), None if weights is None else weights[cut]


def _stored_array(values: Any) -> np.ndarray:
    """A stored argument as an array: the bytes format writes an object array (the crossed keys
    of a :class:`~streammetrics.Sliced` metric, strings beside ints) as nested lists, which
    ``np.asarray`` would turn into strings; mixed values stay objects."""
    arr = np.asarray(values)
    if arr.dtype.kind == "U" and isinstance(values, list):
        mixed = np.array(values, dtype=object)
        if not all(isinstance(v, str) for v in mixed.ravel().tolist()):
            return mixed
    return arr


def _n_rows(rows: Rows) -> int:
    return len(rows[0][0]) if rows[0] else 0


# ---------------------------------------------------------------------------------------- schemas
def _is_chunk(args: Any) -> bool:
    """A chunk's arguments: a non-empty list of arrays (each at least 1-D) of equal lengths."""
    if not isinstance(args, list) or not args:
        return False
    arrays = [np.asarray(a) for a in args]
    return all(a.ndim >= 1 and len(a) == len(arrays[0]) for a in arrays)


#: A window in exact mode: the wrapped metric's state and the rows it holds, in chunks.
_EXACT_FIELDS = Schema(
    "Rolling state", state=Nested(), rows=Check("a list of chunks", lambda v: isinstance(v, list))
)
_CHUNK_FIELDS = Schema(
    "Rolling state rows",
    args=Check("a non-empty list of arrays of equal lengths", _is_chunk),
    weights=Array(
        "if", dtype="float64", shape=lambda v: (len(v["args"][0]),), non_negative=True, optional=True
    ),
)
#: A window in pane mode: a ring of per-pane states with their row counts.
_PANES_FIELDS = Schema("Rolling state", panes=Check("a list of panes", lambda v: isinstance(v, list)))
_PANE_FIELDS = Schema("Rolling state pane", state=Nested(), rows=Int(low=1))
_DECAYED_FIELDS = Schema("Decayed state", state=Nested())


# ---------------------------------------------------------------------------------------- Rolling
class WindowState(State):
    """The last ``window`` rows of a stream for one metric.

    Exact mode (revertible metrics): the metric's state over the window plus the window's rows,
    so that rows leaving the window are reverted. Pane mode: a ring of per-pane states of
    ``ceil(window / panes)`` rows each, merged on compute; the oldest pane is dropped once the
    newer ones hold ``window`` rows, so the value covers the last ``window`` to
    ``window + pane_size - 1`` rows.
    """

    revertible = False

    def __init__(self, metric: Metric[Any], window: int, panes: int | None) -> None:
        self.metric, self.window, self.panes = metric, window, panes
        self.pane_size = math.ceil(window / panes) if panes else window
        self.reset()

    @property
    def exact(self) -> bool:
        return self.panes is None

    def config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric), "window": self.window, "panes": self.panes}

    def reset(self) -> None:
        # exact mode: the state over the window and the window's rows, oldest first;
        # pane mode: the ring of [state, rows] panes, oldest first
        self._commit(state=self.metric._make_state(), chunks=deque(), ring=deque())

    @property
    def n_samples(self) -> int:
        """Rows currently in the window."""
        if self.exact:
            return self.state.n_samples
        return sum(rows for _, rows in self.ring)

    # ------------------------------------------------------------------ adding rows
    def add(self, rows: Rows, batch: Any = None) -> None:
        """Add rows (raw arrays + weights); ``batch`` is their validated form if at hand."""
        n = _n_rows(rows)
        if not n:
            return
        if self.exact:
            self._add_exact(rows, batch, n)
        else:
            self._add_panes(rows, n)

    def _validated(self, rows: Rows) -> Any:
        args, weights = rows
        return self.metric._validate(*args, sample_weight=weights)

    def _add_exact(self, rows: Rows, batch: Any, n: int) -> None:
        if n >= self.window:  # the window is made of this batch's tail alone
            tail = _slice(rows, n - self.window)
            fresh = self.metric._make_state()
            self.metric._apply(fresh, self._validated(tail))
            self._commit(state=fresh, chunks=deque([tail]))
            return
        # built aside, then committed: rows entering and rows leaving change the state together
        state, chunks = self.state.copy(), deque(self.chunks)
        self.metric._apply(state, self._validated(rows) if batch is None else batch)
        chunks.append(rows)
        excess = state.n_samples - self.window
        # a total past the float range cannot be reverted: the window is rebuilt from its rows
        rebuild = excess > 0 and state.overflowed()
        while excess > 0:
            oldest = chunks[0]
            k = min(excess, _n_rows(oldest))
            if not rebuild:
                self.metric._unapply(state, self._validated(_slice(oldest, 0, k)))
            if k == _n_rows(oldest):
                chunks.popleft()
            else:
                chunks[0] = _slice(oldest, k)
            excess -= k
        if rebuild:
            state = self.metric._make_state()
            for chunk in chunks:
                self.metric._apply(state, self._validated(chunk))
        self._commit(state=state, chunks=chunks)

    def _add_panes(self, rows: Rows, n: int) -> None:
        # checks that depend on the data seen (label sets, output counts) see the whole window
        self.metric._apply(self.merged(), self._validated(rows))
        new: list[list[Any]] = []
        start = 0
        last = self.ring[-1] if self.ring else None
        refill = last is not None and last[1] < self.pane_size
        if refill:
            take = min(self.pane_size - last[1], n)
            pane = [last[0].copy(), last[1]]
            self.metric._apply(pane[0], self._validated(_slice(rows, 0, take)))
            pane[1] += take
            new.append(pane)
            start = take
        while start < n:
            take = min(self.pane_size, n - start)
            state = self.metric._make_state()
            self.metric._apply(state, self._validated(_slice(rows, start, start + take)))
            new.append([state, take])
            start += take
        ring = deque(self.ring)
        if refill:
            ring.pop()  # replaced by its updated copy
        ring.extend(new)
        self._commit(ring=self._trimmed(ring))

    def _trimmed(self, ring: deque[list[Any]]) -> deque[list[Any]]:
        """``ring`` (changed in place) without the panes that left the window."""
        total = sum(rows for _, rows in ring)
        while ring and total - ring[0][1] >= self.window:
            total -= ring.popleft()[1]
        return ring

    def merged(self) -> State:
        """The metric's state over the window."""
        if self.exact:
            return self.state
        out = self.metric._make_state()
        for state, _ in self.ring:
            out.merge(state)
        return out

    # ------------------------------------------------------------------ protocol
    def merge(self, other: State) -> None:
        """Concatenation: ``other``'s rows come after ours (as if one stream had seen both)."""
        self.check_mergeable(other)
        assert isinstance(other, WindowState)
        if self.exact:
            trial = self.copy()
            for chunk in other.chunks:
                trial.add(chunk)
            self._commit(state=trial.state, chunks=trial.chunks)
        else:
            ring = deque(self.ring)
            ring.extend([state.copy(), rows] for state, rows in other.ring)
            self._commit(ring=self._trimmed(ring))

    def to_dict(self) -> dict[str, Any]:
        if self.exact:
            return {
                "state": self.state.to_dict(),
                "rows": [{"args": list(args), "weights": w} for args, w in self.chunks],
            }
        return {"panes": [{"state": state.to_dict(), "rows": rows} for state, rows in self.ring]}

    def load_dict(self, data: dict[str, Any]) -> None:
        if self.exact:
            values = _EXACT_FIELDS.read(data, make_state=self.metric._make_state)
            state = values["state"]
            chunks: deque[Rows] = deque()
            for chunk in values["rows"]:
                fields = _CHUNK_FIELDS.read(chunk)
                chunks.append((tuple(_stored_array(a) for a in fields["args"]), fields["weights"]))
            self._check_window(state, chunks)
            self._commit(state=state, chunks=chunks)
            return
        ring: deque[list[Any]] = deque()
        for pane in _PANES_FIELDS.read(data)["panes"]:
            fields = _PANE_FIELDS.read(pane, make_state=self.metric._make_state)
            ring.append([fields["state"], fields["rows"]])
        self._check_ring(ring)
        self.ring = ring

    def _check_window(self, state: State, chunks: deque[Rows]) -> None:
        """An exact window: its stored rows are its state's rows, at most ``window`` of them."""
        n = sum(_n_rows(c) for c in chunks)
        if n != state.n_samples or n > self.window:
            raise StateError(
                f"{_EXACT_FIELDS.where}: the stored rows ({n}) do not match the window's state "
                f"({state.n_samples} rows; window {self.window})"
            )
        self._check_rows(state, chunks)

    def _check_ring(self, ring: deque[list[Any]]) -> None:
        """A ring of panes: each holds its state's rows, at most a pane's worth, and no pane
        has left the window (the ring without its oldest pane holds fewer than ``window`` rows)."""
        for state, rows in ring:
            if rows != state.n_samples or not 1 <= rows <= self.pane_size:
                raise StateError(
                    f"{_PANE_FIELDS.where}: rows must be the pane state's {state.n_samples} rows, "
                    f"between 1 and the pane size {self.pane_size}, found {rows}"
                )
        if ring and sum(rows for _, rows in ring) - ring[0][1] >= self.window:
            raise StateError(f"{_PANES_FIELDS.where}: the ring holds panes that have left the window")

    def _check_rows(self, state: State, chunks: deque[Rows]) -> None:
        """The stored rows are rows the metric accepts (they will be reverted as the window
        slides), and the window's state is theirs: both give the same value."""
        where = _EXACT_FIELDS.where
        rebuilt = self.metric._make_state()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                for chunk in chunks:
                    self.metric._apply(rebuilt, self._validated(chunk))
                mine, theirs = (_plain_value(self.metric._value_of(s)) for s in (state, rebuilt))
            except (InputError, TypeError, ValueError) as err:
                raise StateError(
                    f"{where}: the stored rows are not rows of the window's metric: {err}"
                ) from None
        same_labels = self.metric.output_labels(state) == self.metric.output_labels(rebuilt)
        if not same_labels or not _same_value(mine, theirs):
            raise StateError(f"{where}: the window's state is not the state of its stored rows")

    def check(self) -> None:
        """The metric's states, and the window's own invariants (those a load checks)."""
        if self.exact:
            self.state.check()
            self._check_window(self.state, self.chunks)
        else:
            for state, _ in self.ring:
                state.check()
            self._check_ring(self.ring)


class Rolling(_InnerEstimate, OneRowMixin, Metric[WindowState]):
    """A metric over the last ``window`` rows of the stream.

    Exact for metrics with :meth:`~streammetrics.Metric.revert` (confusion counts, moments,
    contingency tables): the window's rows are kept and reverted as they leave. For other metrics
    (or when ``panes=`` is given) the window is a ring of ``panes`` per-pane states of
    ``ceil(window / panes)`` rows, merged on compute: the value then covers the last ``window``
    to ``window + pane_size - 1`` rows (the granularity is the pane size).

    A row is a row: a zero-weight row takes a place in the window. ``n_samples`` is the number
    of rows in the window. Merging is concatenation: ``a.merge(b)`` gives the window of a
    stream that saw ``a``'s rows and then ``b``'s (not commutative once the window is full).
    ``metric`` is a template (a fresh metric, a name, or a ``{"type", "config"}`` dict).

    Args:
        metric: The metric to evaluate over the window: a fresh metric (used as a template), a name or a
            ``{"type", "config"}`` dict.
        window: The number of most recent rows the value covers, an int >= 1.
        panes: ``None`` (default): exact for revertible metrics (the window's rows are kept), else 16 panes at
            most; an int from 1 to ``window``: a ring of that many pane states.

    Examples:
        >>> import streammetrics as sm
        >>> r = sm.Rolling(sm.Accuracy(), window=3)
        >>> r.update([1, 1, 1], [0, 0, 0]).update([1, 1], [1, 1]).compute()  # last 3 rows
        0.6666666666666666
        >>> r.n_samples
        3
        >>> panes = sm.Rolling(sm.Accuracy(), window=4, panes=2)  # panes of 2 rows
        >>> panes.update([1, 1, 1, 1, 1], [0, 0, 1, 1, 1]).compute()  # rows 1..5, 5 > 4
        0.6
    """

    higher_is_better: ClassVar[bool | None] = None
    ordered_merge: ClassVar[bool] = True  # (concatenation: the order of rows matters)

    def __init__(self, metric: Any, window: int, *, panes: int | None = None) -> None:
        check_number("window", window, low=1, integer=True)
        if panes is not None:
            check_number("panes", panes, low=1, high=window, integer=True)
        self.metric = _fresh(metric, "metric")
        from ..uncertainty.bootstrap import Bootstrap  # (uncertainty imports the windows)

        if any(isinstance(m, Bootstrap) for m in metrics_within(self.metric)):
            raise ValueError(
                "metric: a window of Bootstrap panes would draw the same replicates in every pane; "
                "bootstrap the window instead: Bootstrap(Rolling(metric, window))"
            )
        self.window, self._panes_arg = int(window), panes
        #: Panes in the ring (``None``: exact mode, the window's rows are kept).
        self.panes = panes if panes is not None or self.metric.is_revertible else min(16, self.window)
        self.higher_is_better = type(self.metric).higher_is_better  # type: ignore[misc]
        super().__init__()

    @property
    def exact(self) -> bool:
        """Whether the window holds exactly the last ``window`` rows (revert mode)."""
        return self.panes is None

    def get_config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric), "window": self.window, "panes": self._panes_arg}

    def _make_state(self) -> WindowState:
        return WindowState(self.metric, self.window, self.panes)

    def _validate(self, *args: Any, sample_weight: Any = None) -> tuple[Rows, Any]:
        batch = validate_within(self.metric, args, sample_weight)
        arrays = tuple(v.to_array(a, "inputs") for a in args)
        weights = None if sample_weight is None else v.as_float(sample_weight, "sample_weight")
        return (arrays, weights), batch

    def _apply(self, state: WindowState, batch: tuple[Rows, Any]) -> None:
        rows, validated = batch
        state.add(rows, validated if state.exact else None)

    def _unapply(self, state: WindowState, batch: Any) -> None:
        raise TypeError("Rolling cannot revert: rows leave the window by themselves")

    def _value_of(self, state: WindowState) -> Any:
        return self.metric._value_of(state.merged())

    def _compute(self, state: WindowState) -> Any:
        return self.metric._compute(state.merged())

    def _inner_state(self, state: WindowState) -> State:
        return state.merged()


# ---------------------------------------------------------------------------------------- Decayed
class DecayedState(State):
    """A metric's state in which a row ``t`` rows old weighs ``decay ** t``."""

    revertible = False

    def __init__(self, metric: Metric[Any], decay: float) -> None:
        self.metric, self.decay = metric, decay
        self.state = metric._make_state()

    @property
    def n_samples(self) -> int:
        return self.state.n_samples

    def config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric), "decay": self.decay}

    def reset(self) -> None:
        self._commit(state=self.metric._make_state())

    def add(self, fresh: State, n_rows: int) -> None:
        """Age everything by ``n_rows`` rows, then add ``fresh`` (already weighted by age)."""
        trial = self.state.copy()
        scale_state(trial, self.decay**n_rows)
        trial.merge(fresh)
        self._commit(state=trial)

    def merge(self, other: State) -> None:
        """Concatenation: ``other``'s rows come after ours, so ours age by its row count."""
        self.check_mergeable(other)
        assert isinstance(other, DecayedState)
        try:
            self.add(other.state, other.n_samples)
        except InputError as err:
            raise MergeError(str(err)) from None

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state.to_dict()}

    def load_dict(self, data: dict[str, Any]) -> None:
        self.state = _DECAYED_FIELDS.read(data, make_state=self.metric._make_state)["state"]

    def check(self) -> None:
        self.state.check()


class Decayed(_InnerEstimate, OneRowMixin, Metric[DecayedState]):
    """A metric with exponential forgetting: a row seen ``t`` rows ago weighs ``decay ** t``.

    Give ``half_life`` (rows after which a row weighs one half: ``decay = 0.5 ** (1 /
    half_life)``) or ``decay`` in (0, 1). Exact for states whose weights can be scaled (counts,
    moments, histograms): the state is multiplied by ``decay ** n`` for each batch of ``n`` rows
    and row ``i`` of the batch enters with weight ``sample_weight[i] * decay ** (n - 1 - i)``,
    so splitting a stream into batches does not change the value. Because age is counted in
    rows, an integer weight is not the same as repeating a row, and merging is concatenation
    (``a.merge(b)``: ``b``'s rows came after ``a``'s; not commutative).

    Args:
        metric: The metric to decay: a fresh metric (used as a template), a name or a ``{"type", "config"}``
            dict; its state must be scalable (counts, moments, histograms).
        half_life: Rows after which a row weighs one half, a number > 0; give it or ``decay``.
        decay: The factor a row's weight is multiplied by for each newer row, in (0, 1); give it or
            ``half_life``.

    Examples:
        >>> import streammetrics as sm
        >>> d = sm.Decayed(sm.Accuracy(), half_life=1)
        >>> d.update([1, 1], [0, 1]).compute()  # weights 1/2 (wrong) and 1 (right)
        0.6666666666666666
        >>> # weights 0.81, 0.9 (right) and 1 (wrong): 1.71 / 2.71
        >>> round(sm.Decayed(sm.Accuracy(), decay=0.9).update([1] * 3, [1, 1, 0]).compute(), 6)
        0.630996
    """

    higher_is_better: ClassVar[bool | None] = None
    ordered_merge: ClassVar[bool] = True  # (concatenation: the order of rows matters)

    def __init__(self, metric: Any, half_life: float | None = None, *, decay: float | None = None) -> None:
        if (half_life is None) == (decay is None):
            raise ValueError(
                f"half_life: expected exactly one of half_life= and decay=, found half_life={half_life!r}, "
                f"decay={decay!r}"
            )
        if half_life is not None:
            check_number("half_life", half_life, low=0.0, low_open=True)
            if math.isinf(half_life):
                raise ValueError(f"half_life: expected a finite number, found {half_life!r}")
            factor = 0.5 ** (1.0 / half_life)
        else:
            check_number("decay", decay, low=0.0, high=1.0, low_open=True, high_open=True)
            factor = float(decay)  # type: ignore[arg-type]
        self.metric = _fresh(metric, "metric")
        if not can_scale(self.metric._make_state()):
            raise ValueError(
                f"metric: Decayed needs a state whose weights can be scaled exactly (counts, "
                f"moments, histograms); {type(self.metric).__name__}'s "
                f"{type(self.metric._make_state()).__name__} cannot (use Rolling instead)"
            )
        whole = next((m for m in metrics_within(self.metric) if type(m).whole_weights), None)
        if whole is not None:
            raise ValueError(
                f"metric: {type(whole).__name__} takes whole-number weights, and decay makes them "
                "fractional (use Rolling instead)"
            )
        self.half_life = None if half_life is None else float(half_life)
        self._decay_arg = None if decay is None else float(decay)
        self.decay = factor
        self.higher_is_better = type(self.metric).higher_is_better  # type: ignore[misc]
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric), "half_life": self.half_life, "decay": self._decay_arg}

    def _make_state(self) -> DecayedState:
        return DecayedState(self.metric, self.decay)

    def _validate(self, *args: Any, sample_weight: Any = None) -> tuple[Any, int]:
        if not args:
            raise InputError("inputs: expected the metric's arguments, found none")
        first = v.to_array(args[0], "y_true")
        if first.ndim == 0:
            return self.metric._validate(*args, sample_weight=sample_weight), 0  # raises
        n = first.shape[0]
        weights = v.as_weights(sample_weight, n)
        ages = self.decay ** np.arange(n - 1, -1, -1, dtype=np.float64)
        weights = ages if weights is None else weights * ages
        return validate_within(self.metric, args, weights), n

    def _apply(self, state: DecayedState, batch: tuple[Any, int]) -> None:
        validated, n = batch
        fresh = self.metric._make_state()
        self.metric._apply(fresh, validated)
        try:
            state.add(fresh, n)
        except MergeError as err:  # (the batch's own state does not join the rest: labels of
            raise InputError(str(err)) from None  # another kind, other categories: a bad batch)

    def _unapply(self, state: DecayedState, batch: Any) -> None:
        raise TypeError("Decayed cannot revert: old rows have already been forgotten in part")

    def _value_of(self, state: DecayedState) -> Any:
        return self.metric._value_of(state.state)

    def _compute(self, state: DecayedState) -> Any:
        return self.metric._compute(state.state)

    def _inner_state(self, state: DecayedState) -> State:
        return state.state


def _fresh(spec: Any, where: str) -> Metric[Any]:
    metric = _spec.resolve(spec, where)
    if metric.n_samples:
        raise ValueError(
            f"{where}: expected a fresh metric (a template), found one holding {metric.n_samples} rows"
        )
    return metric.empty_like()


def _plain_value(value: Any) -> Any:
    """A value as nested lists of floats (result objects by their fields), to compare."""
    if hasattr(value, "to_dict"):  # (a report)
        value = value.to_dict()
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: _plain_value(v) for k, v in value.items()}
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return value


def _same_value(a: Any, b: Any) -> bool:
    """Equal up to rounding (moments rebuilt from rows differ from slid ones in the last bits)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.dtype.kind not in "fiub" or b.dtype.kind not in "fiub":
            return a.shape == b.shape and bool(np.all(a == b))
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))
    return bool(np.all(a == b))
