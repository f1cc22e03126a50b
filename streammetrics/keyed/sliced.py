"""Sliced: one exact state per key (slice, group, query), created on first sight, merged by key."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import Inputs
from .._core.metric import Metric
from .._core.state import State, require_keys
from ..errors import InputError, MergeError, StateError
from ..streaming import _spec
from ..streaming.collection import CollectionState, MetricCollection, roles_of
from ..streaming.flatten import flatten_value
from ..streaming.scaling import can_scale, scale_state
from .kernels import GenericKernel, fork, kernel_for
from .keys import KeyTable, format_key, key_columns

#: The unit name of a single (not collection) metric.
_ONE = "metric"


class SlicedBatch:
    """One validated keyed batch: the rows' inputs, each unit's parsed batch, the key columns."""

    __slots__ = ("arrays", "columns", "inputs", "n", "parsed", "weights")

    def __init__(self, inputs: Inputs, parsed: dict[str, Any], columns: list[np.ndarray], n: int,
                 arrays: list[np.ndarray], weights: np.ndarray | None) -> None:  # fmt: skip
        self.inputs, self.parsed, self.columns, self.n = inputs, parsed, columns, n
        self.arrays, self.weights = arrays, weights

    def rows(self, index: np.ndarray) -> Inputs:
        """The rows ``index`` as a batch of their own."""
        return Inputs(
            tuple(a[index] for a in self.arrays), None if self.weights is None else self.weights[index]
        )


class SlicedState(State):
    """The key table and, for each unit (the metric, or each sharing group of a collection), the
    stack of per-key states its kernel keeps.

    Examples:
        >>> import streammetrics as sm
        >>> s = sm.Sliced(sm.F1()).update([0, 1, 1], [0, 1, 0], ["a", "a", "b"]).state
        >>> s.keys.keys(), s.n_samples
        (['a', 'b'], 3)
    """

    def __init__(self, units: dict[str, Metric[Any]], max_keys: int | None) -> None:
        self.units = units
        self.kernels: dict[str, GenericKernel] = {name: kernel_for(m) for name, m in units.items()}
        self.max_keys = max_keys
        empties = {name: m._make_state() for name, m in units.items()}
        self.revertible = all(s.revertible for s in empties.values())  # type: ignore[misc]
        self._config = {
            "units": {name: [type(s).__qualname__, s.config()] for name, s in empties.items()},
            "max_keys": max_keys,
        }
        self.reset()

    def __deepcopy__(self, memo: dict[int, Any]) -> SlicedState:
        """The key table and the stacks are never changed in place (every change builds new
        ones and commits them), so a copy shares them, and the metrics they were made for."""
        new = SlicedState.__new__(SlicedState)
        new.__dict__.update(self.__dict__)
        new.stacks = dict(self.stacks)
        return new

    # ------------------------------------------------------------------ protocol
    @property
    def n_samples(self) -> int:
        return max((int(k.key_samples(self.stacks[u]).sum()) for u, k in self.kernels.items()), default=0)

    def config(self) -> dict[str, Any]:
        return self._config

    def reset(self) -> None:
        self._commit(keys=KeyTable(), stacks={u: k.empty() for u, k in self.kernels.items()})

    def key_samples(self) -> np.ndarray:
        """Rows seen per key slot."""
        counts = [k.key_samples(self.stacks[u]) for u, k in self.kernels.items()]
        return np.max(counts, axis=0) if counts and len(self.keys) else np.zeros(len(self.keys), np.int64)

    def _check_size(self, table: KeyTable) -> None:
        if self.max_keys is not None and len(table) > self.max_keys:
            new = len(table) - len(self.keys)
            raise InputError(
                f"keys: expected at most max_keys={self.max_keys} distinct keys, found {len(table)} "
                f"({new} new ones such as {table.keys()[len(self.keys)]!r}); nothing was added"
            )

    def apply(self, batch: SlicedBatch, sign: int = 1) -> None:
        """Add (``sign=1``) or remove (``-1``) a keyed batch, atomically."""
        slots, table = self.keys.encode(batch.columns)
        if sign < 0 and table is not self.keys:
            raise InputError(
                f"keys: cannot revert rows of keys never added, such as {table.keys()[len(self.keys)]!r}"
            )
        self._check_size(table)
        stacks = {
            u: k.apply(self.stacks[u], slots, len(table), batch.rows, batch.parsed[u], sign)
            for u, k in self.kernels.items()
        }
        self._commit(keys=table, stacks=stacks)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, SlicedState)
        if not len(other.keys):
            return
        try:
            positions, table = self.keys.encode(other.keys.key_columns())
        except InputError as err:
            raise MergeError(str(err)) from None
        self._check_size(table)
        stacks = {
            u: k.merge(self.stacks[u], other.stacks[u], positions, len(table))
            for u, k in self.kernels.items()
        }
        self._commit(keys=table, stacks=stacks)

    @property
    def scalable(self) -> bool:
        """Whether the keys' states can be scaled (see :meth:`scale`)."""
        return all(can_scale(metric._make_state()) for metric in self.units.values())

    def scale(self, factor: float) -> None:
        """Multiply every key's weights by ``factor`` (exponential forgetting of every slice),
        each key's state scaled in a fork (scaling commits new arrays), then all committed at once."""
        if not self.scalable:
            raise TypeError("Sliced states cannot be scaled: the sliced metric's states cannot")
        stacks = {}
        for u, k in self.kernels.items():
            states = [fork(state) for state in k.states(self.stacks[u])]
            for state in states:
                scale_state(state, factor)
            stacks[u] = k.from_states(states)
        self._commit(stacks=stacks)

    def states_of(self, slot: int) -> dict[str, State]:
        return {u: k.state(self.stacks[u], slot) for u, k in self.kernels.items()}

    def overall(self) -> dict[str, State]:
        return {u: k.overall(self.stacks[u]) for u, k in self.kernels.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "keys": self.keys.to_list(),
            "states": {u: [s.to_dict() for s in k.states(self.stacks[u])] for u, k in self.kernels.items()},
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "Sliced state"
        require_keys(data, {"keys", "states"}, where)
        table = KeyTable.from_list(data["keys"], where)
        self._check_size_loaded(table, where)
        require_keys(data["states"], set(self.units), f"{where} states")
        stacks = {}
        for u, metric in self.units.items():
            dicts = data["states"][u]
            if not isinstance(dicts, list) or len(dicts) != len(table):
                raise StateError(f"{where}: expected {len(table)} states of {u!r}, one per key")
            states = []
            for d in dicts:
                state = metric._make_state()
                state.load_dict(d)
                state.check()
                metric._check_state(state)
                states.append(state)
            stacks[u] = self.kernels[u].from_states(states)
        self._commit(keys=table, stacks=stacks)

    def _check_size_loaded(self, table: KeyTable, where: str) -> None:
        if self.max_keys is not None and len(table) > self.max_keys:
            raise StateError(f"{where}: {len(table)} keys, more than max_keys={self.max_keys}")

    def check(self) -> None:
        for u, k in self.kernels.items():
            states = k.states(self.stacks[u])
            if len(states) != len(self.keys):
                raise StateError(f"Sliced state: {len(states)} states of {u!r} for {len(self.keys)} keys")
            for state in states:
                state.check()
        try:  # the keys' states come from one stream: they unite (e.g. labels of one kind)
            for u, k in self.kernels.items():
                k.united(self.stacks[u])
        except MergeError as err:
            raise StateError(f"Sliced state: the keys' states do not merge into one: {err}") from None


class Sliced(Metric[SlicedState]):
    """One exact state per key: a metric (or a collection) evaluated per slice, group or query.

    ``update(*args, keys, sample_weight=None)``: the metric's own arguments, then the key of each
    row as the **last positional argument** — one column (ints, bools or strings, as class labels)
    or several for crossed slices (a 2-D array, a DataFrame, or a list of columns; keys are then
    tuples). A key's state is created on first sight and holds exactly what the metric would hold
    over that key's rows, so ``compute()`` returns ``{key: value}`` (keys sorted; keys without
    positively weighted rows are left out), :meth:`flat` a ``{"name/key": value}`` dict for
    loggers and :meth:`overall` the unsliced value, from the same states. Merging unites the keys
    and merges each key's states (exact, in any order); ``revert`` takes rows out again when the
    metric can.

    ``max_keys`` bounds the number of distinct keys: an update (or merge) that would exceed it
    raises :class:`~streammetrics.InputError` and changes nothing.

    A :class:`MetricCollection` is sliced with its sharing: one state per sharing group per key.
    Families may vectorize the per-key update (the confusion family does: one ``bincount`` over
    key, true and predicted label); the others group the rows by key with one argsort.

    Args:
        metric: The metric (or :class:`~streammetrics.MetricCollection`) kept once per key.
        max_keys: ``None`` (default): any number of keys; an int: a batch bringing more distinct keys is refused with :class:`~streammetrics.InputError`, the state unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> s = sm.Sliced(sm.Accuracy())
        >>> s.update([0, 1, 1, 0], [0, 1, 0, 0], ["fr", "fr", "de", "de"]).compute()
        {'de': 0.5, 'fr': 1.0}
        >>> s.flat(), s.overall()
        ({'accuracy/de': 0.5, 'accuracy/fr': 1.0}, 0.75)
        >>> crossed = sm.Sliced(sm.Accuracy()).update([1, 1], [1, 0], [["fr", "fr"], [1, 2]])
        >>> crossed.compute()
        {('fr', 1): 1.0, ('fr', 2): 0.0}
    """

    higher_is_better: ClassVar[bool | None] = None
    adds_arguments: ClassVar[bool] = True  # (the keys, after the metric's own arguments)
    numeric_value: ClassVar[bool] = False  # (a dict: one value per key)

    def __init__(self, metric: Any, max_keys: int | None = None) -> None:
        metric = _spec.resolve(metric, "metric")
        if metric.n_samples:
            raise ValueError(f"metric: expected a fresh metric, found one holding {metric.n_samples} rows")
        if max_keys is not None and (
            not isinstance(max_keys, int) or isinstance(max_keys, bool) or max_keys < 1
        ):
            raise ValueError(f"max_keys: expected None or an int >= 1, found {max_keys!r}")
        self.metric = metric.empty_like()
        self.max_keys = max_keys
        super().__init__()

    @property
    def _units(self) -> dict[str, Metric[Any]]:
        m = self.metric
        if isinstance(m, MetricCollection):
            return {leader: m._members[leader] for leader in m._groups}
        return {_ONE: m}

    # ------------------------------------------------------------------ Metric protocol
    def get_config(self) -> dict[str, Any]:
        return {"metric": _spec.describe(self.metric), "max_keys": self.max_keys}

    def _make_state(self) -> SlicedState:
        return SlicedState(self._units, self.max_keys)

    def _validate(self, *args: Any, sample_weight: Any = None) -> SlicedBatch:
        if len(args) < 2:
            raise InputError(
                f"keys: expected the metric's arguments then the keys, found {len(args)} argument(s)"
            )
        *rest, keys = args
        roles = _roles(self.metric)
        if roles and len(rest) != len(roles):
            raise InputError(
                f"keys: expected ({', '.join(roles)}, keys): the metric's arguments then the keys, "
                f"found {len(args)} argument(s)"
            )
        inputs = Inputs(tuple(rest), sample_weight)
        names = roles or tuple(f"arg{i}" for i in range(len(rest)))
        if len(names) < len(rest):
            names = (*names, *(f"arg{i}" for i in range(len(names), len(rest))))
        arrays = [inputs.array(i, names[i]) for i in range(len(rest))]
        n = len(arrays[0]) if arrays[0].ndim else 0
        if isinstance(self.metric, MetricCollection):
            parsed = self.metric._parse(inputs)
        else:
            parsed = {_ONE: self.metric._parse(inputs)}
        columns = key_columns(keys, n)
        weights = v.as_weights(sample_weight, n)
        return SlicedBatch(inputs, parsed, columns, n, arrays, weights)

    def _apply(self, state: SlicedState, batch: SlicedBatch) -> None:
        state.apply(batch)

    def _unapply(self, state: SlicedState, batch: SlicedBatch | None) -> None:
        if batch is None or not state.revertible:
            raise TypeError(
                f"Sliced({type(self.metric).__name__}) cannot revert: its state is not exactly invertible"
            )
        state.apply(batch, sign=-1)

    def update_one(self, *values: Any) -> Sliced:
        """One row: the metric's values, the key, then optionally the weight."""
        n = len(_roles(self.metric)) + 1
        args, w = (values[:n], values[n]) if len(values) > n else (values, None)
        return self.update(*args, sample_weight=w)  # type: ignore[return-value]

    # ------------------------------------------------------------------ values
    def _value_of_states(self, states: dict[str, State]) -> Any:
        m = self.metric
        if isinstance(m, MetricCollection):
            return m._compute(
                CollectionState(states, {n: lead for lead, ns in m._groups.items() for n in ns})
            )
        return m._value_of(states[_ONE])

    def _live_slots(self, state: SlicedState) -> list[int]:
        """Slots of keys holding data (some unit not empty), in key order."""
        keys = state.keys.keys()
        live = [
            g for g in range(len(keys))
            if any(not u._is_empty(s) for u, s in zip(self._units.values(), state.states_of(g).values(), strict=True))
        ]  # fmt: skip
        return sorted(live, key=lambda g: keys[g])

    def _is_empty(self, state: SlicedState) -> bool:
        return not self._live_slots(state)

    def _empty_value(self) -> Any:
        return {}

    def _compute(self, state: SlicedState) -> dict[Any, Any]:
        keys = state.keys.keys()
        return {keys[g]: self._value_of_states(state.states_of(g)) for g in self._live_slots(state)}

    def flat(self) -> dict[str, Any]:
        """``{"name/key": value}``: the per-key values flattened for loggers (per-class arrays
        become ``name/key/label``; crossed keys are joined by ``/``).

        Examples:
            >>> import streammetrics as sm
            >>> c = sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1()})
            >>> sm.Sliced(c).update([1, 1, 0], [1, 0, 0], [7, 7, 8]).flat()
            {'acc/7': 0.5, 'f1/7': 0.6666666666666666, 'acc/8': 1.0, 'f1/8': 0.0}
        """
        with self._lock:
            state = self._state
            keys = state.keys.keys()
            out: dict[str, Any] = {}
            m = self.metric
            for g in self._live_slots(state):
                states = state.states_of(g)
                key = format_key(keys[g])
                if isinstance(m, MetricCollection):
                    for name, value in self._value_of_states(states).items():
                        head, _, tail = name.partition("/")
                        out[f"{head}/{key}" + (f"/{tail}" if tail else "")] = value
                else:
                    value = m._value_of(states[_ONE])
                    labels = m.output_labels(states[_ONE])
                    out.update(flatten_value(f"{_spec.snake_case(m.type_name())}/{key}", value, labels))
            return out

    def overall(self) -> Any:
        """The unsliced value over every key's rows, from the per-key states (no second state).

        Examples:
            >>> import streammetrics as sm
            >>> s = sm.Sliced(sm.F1()).update([0, 1, 1, 1], [0, 1, 0, 1], [1, 1, 2, 2])
            >>> s.overall() == sm.F1().update([0, 1, 1, 1], [0, 1, 0, 1]).compute()
            True
        """
        with self._lock:
            return self._value_of_states(self._state.overall())

    def keys(self) -> list[Any]:
        """The keys seen, sorted."""
        return sorted(self._state.keys.keys())

    def metric_of(self, key: Any) -> Metric[Any]:
        """A copy of the metric holding ``key``'s state (for its other methods: curves, bounds...)."""
        with self._lock:
            state = self._state
            keys = state.keys.keys()
            if key not in keys:
                raise KeyError(f"{key!r} is not a key; keys are {sorted(keys)[:10]}")
            states = state.states_of(keys.index(key))
            saved = {u: s.to_dict() for u, s in states.items()}
            data = {
                **self.metric.state_dict(),
                "state": saved if isinstance(self.metric, MetricCollection) else saved[_ONE],
            }
            return type(self.metric).from_state_dict(data)

    def __repr__(self) -> str:
        extra = f", max_keys={self.max_keys}" if self.max_keys is not None else ""
        return f"Sliced({self.metric!r}{extra})"


def _roles(metric: Metric[Any]) -> tuple[str, ...]:
    """The names of the arguments ``metric`` takes (a collection's: its members')."""
    if isinstance(metric, MetricCollection):
        return next((r for r in map(_roles, metric._members.values()) if r), ())
    return roles_of(metric)


__all__ = ["Sliced", "SlicedState"]
