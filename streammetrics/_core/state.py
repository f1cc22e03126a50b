"""The state protocol: mergeable sufficient statistics that know nothing about metrics."""

from __future__ import annotations

import abc
import copy
import json
import math
from collections import deque
from typing import Any, ClassVar

import numpy as np

from ..errors import MergeError, StateError
from .validation import all_finite


class State(abc.ABC):
    """Mergeable sufficient statistics of everything seen so far.

    A state knows how to absorb a validated batch (its ``update`` method, whose signature is
    specific to the kind of state), how to merge another state of the same kind and
    configuration, how to undo a batch (``revert``, when it can do so exactly), and how to turn
    itself into a plain dict and back. Formulas (pure functions) turn a state into numbers.

    Subclasses keep every change atomic (``update``, ``merge``, ``revert``, ``scale``, ``reset``,
    ``load_dict``): they compute the new values first and set them all with one
    :meth:`_commit`, so that an error, or Ctrl-C between two statements, leaves the state
    unchanged.

    Examples:
        >>> import streammetrics as sm
        >>> state = sm.ConfusionMatrix().update([0, 1], [0, 0]).state
        >>> isinstance(state, sm.State), state.n_samples, state.revertible
        (True, 2, True)
    """

    #: Whether ``revert`` is exact for this kind of state.
    revertible: ClassVar[bool] = False
    #: The attributes whose floats can pass the float range (sums of values, and nested states),
    #: which :meth:`overflowed` reads: ``None`` (default) every attribute; ``()`` for counts of
    #: weights, which the weights' limit keeps far below it.
    overflowing: ClassVar[tuple[str, ...] | None] = None
    #: Whether this state holds another metric's state that its metric's updates change in place
    #: (a tracker's epoch, MinMax's state): a copy that shares its arrays (a keyed stack's fork)
    #: must copy that state too.
    holds_states: ClassVar[bool] = False
    #: Whether every change of this state is one :meth:`_commit` of new objects (never an array
    #: changed in place), so that a shallow copy of its fields backs it up, byte for byte: a
    #: collection restores such a state from that copy when a later member refuses a batch,
    #: rather than by reverting it (which floats, or a change of form, need not undo bit for bit).
    commits_whole: ClassVar[bool] = False
    #: How many times :meth:`_commit` changed this state (not data: it tells a caller whose
    #: call was interrupted whether the change it asked for happened).
    _changes: int = 0

    @property
    @abc.abstractmethod
    def n_samples(self) -> int:
        """Number of rows seen (sample weights ignored)."""

    @abc.abstractmethod
    def config(self) -> dict[str, Any]:
        """The configuration: two states merge only when their configurations are equal."""

    @abc.abstractmethod
    def merge(self, other: State) -> None:
        """Add ``other`` into ``self`` in place; ``other`` is not changed."""

    def unite(self, other: State) -> None:
        """:meth:`merge` ``other``, a part of this state's own stream (the keys of one sliced
        accumulator): where a merge refuses parts of one stream (the bootstrap's correlated
        replicates), this still adds them; used to check that such parts are consistent."""
        self.merge(other)

    @abc.abstractmethod
    def reset(self) -> None:
        """Forget all data, keep the configuration."""

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The data as a plain dict of NumPy arrays, numbers, strings and lists."""

    @abc.abstractmethod
    def load_dict(self, data: dict[str, Any]) -> None:
        """Replace the data by ``data`` (from :meth:`to_dict`), raising :class:`StateError`."""

    def _commit(self, **values: Any) -> None:
        """Set several attributes at once, the one way every state change ends.

        One ``dict.update`` runs no Python code between its assignments, so no exception (a
        ``KeyboardInterrupt`` included) can leave some set and others not: build every new value
        first, then commit them together.
        """
        self.__dict__.update(values, _changes=self._changes + 1)

    def check(self) -> None:  # noqa: B027 - optional hook: no invariants by default
        """Assert the invariants of the state; raise :class:`StateError` if one is broken."""

    def overflowed(self) -> bool:
        """Whether a float statistic went past the float64 range (an ``inf``, or a ``NaN`` where
        overflows of both signs met): the rows added before it cannot be taken out exactly.

        Examples:
            >>> import streammetrics as sm
            >>> sm.MSE().update([1.0], [2.0]).state.overflowed()
            False
            >>> sm.MSE().update([1e200, -1e200], [0.0, 0.0]).state.overflowed()  # squares past 1.8e308
            True
        """
        # (its attributes, not to_dict(): a score sketch's dict is encoded, at a cost per call that
        # a window pays on every update)
        names = self.overflowing
        values = vars(self).values() if names is None else (getattr(self, n, None) for n in names)
        return any(map(_holds_non_finite, values))

    def share_key(self) -> tuple[str, str]:
        """A hashable key: states with equal keys hold the same statistics of the same batches.

        A :class:`~streammetrics.MetricCollection` updates each distinct key once per batch.
        """
        return (type(self).__qualname__, canonical_json(self.config()))

    def copy(self) -> State:
        """A deep, independent copy."""
        return copy.deepcopy(self)

    def check_mergeable(self, other: State) -> None:
        """Raise :class:`MergeError` unless ``other`` has the same kind and configuration."""
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge a {type(other).__name__} state into a {type(self).__name__} state"
            )
        mine, theirs = self.config(), other.config()
        if not equal_configs(mine, theirs):
            raise MergeError(
                f"cannot merge states of different configuration: {describe_difference(mine, theirs)}"
            )


def _holds_non_finite(value: Any) -> bool:
    """Whether ``value`` (a state's attribute: a number, an array, a nested state, or a dict,
    list or deque of them) holds a float that is not finite."""
    if isinstance(value, State):
        return value.overflowed()
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc" and not all_finite(value)
    if isinstance(value, dict):
        return any(map(_holds_non_finite, value.values()))
    if isinstance(value, (list, tuple, deque)):
        return any(map(_holds_non_finite, value))
    return False


_PLAIN = (str, int, float, bool, type(None))


def equal_configs(a: Any, b: Any) -> bool:
    """Whether two configurations are the same: equal :func:`canonical_json` texts, decided
    without building them when the two are equal value for value and type for type.

    Examples:
        >>> equal_configs({"a": [1, "x"], "b": None}, {"b": None, "a": [1, "x"]})
        True
        >>> equal_configs({"a": 1}, {"a": 1.0}), equal_configs({"x": float("nan")}, {"x": float("nan")})
        (False, True)
    """
    return _plain_equal(a, b) or canonical_json(a) == canonical_json(b)


def _plain_equal(a: Any, b: Any) -> bool:
    """Equal value for value and type for type (implies equal JSON texts); ``False`` may still be
    equal in JSON (NaN, values of other types)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(_plain_equal(a[k], b[k]) for k in a)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(map(_plain_equal, a, b))
    if type(a) is float:
        return a.hex() == b.hex()  # -0.0 and 0.0 differ in JSON; NaN equals NaN there
    return type(a) in _PLAIN and a == b


def canonical_json(value: Any) -> str:
    """A canonical text form of a configuration (NaN equals NaN, key order is irrelevant)."""
    return json.dumps(value, sort_keys=True, default=repr)


def describe_difference(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    """Name the configuration keys that differ, with both values."""
    parts = [
        f"{key}={mine.get(key)!r} vs {key}={theirs.get(key)!r}"
        for key in sorted(set(mine) | set(theirs))
        if canonical_json(mine.get(key)) != canonical_json(theirs.get(key))
    ]
    return "; ".join(parts) or "configurations differ"


def require_keys(data: Any, keys: set[str], where: str) -> None:
    """Raise :class:`StateError` unless ``data`` is a dict with exactly ``keys``."""
    if not isinstance(data, dict):
        raise StateError(f"{where}: expected a dict, found {type(data).__name__}")
    if set(data) != keys:
        raise StateError(f"{where}: expected the keys {sorted(keys)}, found {sorted(data)}")
