"""Keyed updates: how one metric's per-key states absorb a batch whose rows carry keys.

A *kernel* owns the per-key states of one metric (one sharing group of a collection) as a
*stack*: an immutable value indexed by key slot. The generic kernel's stack is a tuple of the
metric's own states; a batch is grouped by key with one stable argsort, and each key present
gets its rows parsed and applied as a batch of its own (a Python loop over the keys present in
the batch). A family that can do better declares ``_keyed_kernel()`` on its base metric class and
returns its own kernel, vectorized over keys (the confusion family: one ``bincount`` over
``(key, true, predicted)``; see ``classification/keyed.py``).

Every kernel method returns a new stack and never changes the one it is given, so the keyed
state commits the key table and every stack at once (an update that raises changes nothing).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._core.inputs import Inputs
from .._core.metric import Metric
from .._core.state import State

#: ``rows(index) -> Inputs``: the rows of one key (or any subset) as a batch of their own.
Rows = Callable[[np.ndarray], Inputs]


def groups(slots: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``[(slot, row indices)]`` for each slot present, rows in their original order (one argsort).

    Examples:
        >>> [(g, rows.tolist()) for g, rows in groups(np.array([2, 0, 2, 1]))]
        [(0, [1]), (1, [3]), (2, [0, 2])]
    """
    if not len(slots):
        return []
    order = np.argsort(slots, kind="stable")
    ordered = slots[order]
    cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    starts = np.concatenate([[0], cuts])
    return [(int(ordered[s]), part) for s, part in zip(starts, np.split(order, cuts), strict=True)]


class GenericKernel:
    """Per-key states as a tuple of the metric's own states: works for every metric."""

    def __init__(self, metric: Metric[Any]) -> None:
        self.metric = metric

    def empty(self) -> Any:
        return ()

    def states(self, stack: Any) -> tuple[State, ...]:
        """Every key's state, in slot order (shared: never change them)."""
        return stack

    def state(self, stack: Any, slot: int) -> State:
        return self.states(stack)[slot]

    def from_states(self, states: Sequence[State]) -> Any:
        return tuple(states)

    def n_keys(self, stack: Any) -> int:
        return len(self.states(stack))

    def key_samples(self, stack: Any) -> np.ndarray:
        """Rows seen per key."""
        return np.fromiter((s.n_samples for s in self.states(stack)), np.int64, self.n_keys(stack))

    def _grown(self, states: Sequence[State], n_keys: int) -> list[State]:
        out = list(states)
        out.extend(self.metric._make_state() for _ in range(n_keys - len(out)))
        return out

    def apply(self, stack: Any, slots: np.ndarray, n_keys: int, rows: Rows, batch: Any, sign: int) -> Any:
        """The stack after adding (``sign=1``) or removing (``-1``) the rows of a batch.

        ``batch`` is the whole batch parsed once (every row already checked); each key's rows
        are parsed again on their own, because what a state learns (labels, outputs) is its
        key's.
        """
        return self.apply_parts(
            self.states(stack), slots, n_keys, lambda index: self.metric._parse(rows(index)), sign
        )

    def apply_parts(
        self,
        states: Sequence[State],
        slots: np.ndarray,
        n_keys: int,
        part_of: Callable[[np.ndarray], Any],
        sign: int,
    ) -> Any:
        """:meth:`apply` to the keys' ``states`` (in slot order), each key present changed by
        ``part_of(its row indices)``, its rows' parsed batch: a Python call per key present."""
        new = self._grown(states, n_keys)
        change = self.metric._apply if sign > 0 else self.metric._unapply
        for slot, index in groups(slots):
            part = part_of(index)
            state = fork(new[slot]) if slot < len(states) else new[slot]
            change(state, part)
            new[slot] = state
        return self.from_states(new)

    def merge(self, stack: Any, other: Any, positions: np.ndarray, n_keys: int) -> Any:
        """``stack`` with ``other``'s key ``j`` merged into key ``positions[j]``."""
        new = self._grown(self.states(stack), n_keys)
        mine = len(self.states(stack))
        for j, state in enumerate(self.states(other)):
            slot = int(positions[j])
            target = fork(new[slot]) if slot < mine else new[slot]
            target.merge(state)
            new[slot] = target
        return self.from_states(new)

    def overall(self, stack: Any) -> State:
        """One state over every key's rows (the unsliced value, without a second state)."""
        out = self.metric._make_state()
        for state in self.states(stack):
            out.merge(state)
        return out

    def united(self, stack: Any) -> State:
        """:meth:`overall` by :meth:`State.unite`: the keys' states are parts of one stream (the
        check that they are consistent, e.g. labels of one kind, also for bootstrap states)."""
        out = self.metric._make_state()
        for state in self.states(stack):
            out.unite(state)
        return out


def fork(state: State) -> State:
    """A copy of ``state`` to change, sharing its arrays: a state never changes a value it holds
    in place (every change builds new values and commits them with one ``dict.update``), so the
    original is left as it was. Far cheaper than a deep copy, per key and per batch. A state that
    holds another state its updates change in place (``holds_states``) is copied whole."""
    return state.copy() if type(state).holds_states else copy.copy(state)


def kernel_for(metric: Metric[Any]) -> GenericKernel:
    """The metric's own keyed kernel when its family declares one, else the generic one."""
    hook = getattr(metric, "_keyed_kernel", None)
    kernel = hook() if callable(hook) else None
    return kernel if kernel is not None else GenericKernel(metric)
