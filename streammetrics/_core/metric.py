"""The accumulator base class: the protocol of API.md section 1, once for every metric."""

from __future__ import annotations

import abc
import contextlib
import copy
import os
import threading
import warnings
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from ..errors import InputError, MergeError, StateError, UndefinedMetricWarning
from . import registry, serialization
from .params import own_constructor
from .schema import INT64_MAX
from .state import State, describe_difference, equal_configs

if TYPE_CHECKING:
    from .inputs import Inputs

S = TypeVar("S", bound=State)
#: Types that mark a one-sample update (the fast path of :meth:`Metric.update`).
SCALAR_TYPES = frozenset(
    {int, float, str, bool, np.int64, np.int32, np.float64, np.float32, np.bool_, np.str_}
)
Batch = Any


class Metric(abc.ABC, Generic[S]):
    """A streaming, mergeable metric: a state (sufficient statistics) plus a formula.

    Subclasses say how to validate a batch (:meth:`_validate`), how to build an empty state
    (:meth:`_make_state`), how to apply a validated batch to a state (:meth:`_apply`) and how
    to compute the value from a state (:meth:`_compute`). Everything else — merging, copying,
    serialization, pickling, thread safety, batch values — lives here.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Accuracy()
        >>> m.update([0, 1, 1], [0, 1, 0]).update([1], [1]).compute()
        0.75
        >>> m.n_samples
        4
        >>> (sm.Accuracy().update([0], [0]) + sm.Accuracy().update([1], [0])).compute()
        0.5
    """

    #: Version of the state layout; loading a newer one raises :class:`StateError`.
    version: ClassVar[int] = 1
    #: Whether larger values are better (``None`` when it depends).
    higher_is_better: ClassVar[bool | None] = None
    #: The names of the arguments ``update`` takes (declared by each family).
    roles: ClassVar[tuple[str, ...]] = ()
    #: Whether this metric wraps another (``.metric``) whose rows it takes with more arguments
    #: (:class:`~streammetrics.Sliced`: the keys), so the inner metric's row rules are not its own.
    adds_arguments: ClassVar[bool] = False
    #: Whether ``compute()`` gives a number or an array of numbers (a
    #: :class:`~streammetrics.Bootstrap` can put an interval around it): not a curve, a report,
    #: a table of counts or a dict of values.
    numeric_value: ClassVar[bool] = True
    #: Whether ``update`` takes ``sample_weight`` (a :class:`~streammetrics.Bootstrap` weighs rows).
    takes_weights: ClassVar[bool] = True
    #: Whether sample weights must be whole numbers (:class:`~streammetrics.Decayed` refuses it).
    whole_weights: ClassVar[bool] = False
    #: Whether merging is concatenation, ``a.merge(b)`` holding ``a``'s rows before ``b``'s (the
    #: windows): an engine that combines accumulators in any order (Beam) refuses it.
    ordered_merge: ClassVar[bool] = False
    #: The calling convention of those arguments (:mod:`streammetrics._core.inputs`): members
    #: of a collection are fed the same arguments, so they must follow the same one.
    convention: ClassVar[str | None] = None
    #: What one prediction is (declared by each family): ``"labels"`` (hard labels),
    #: ``"scores"`` (scores or probabilities), ``"values"`` (real values), ``"clusters"``
    #: (cluster labels); ``None`` for metrics fed otherwise. River adapters read it.
    prediction: ClassVar[str | None] = None
    #: Whether the class is a family's base (``class F(Base, base=True)``), not an accumulator.
    _is_base: ClassVar[bool] = True

    def __init_subclass__(cls, base: bool = False, **kwargs: Any) -> None:
        """``class F(Base, base=True)`` declares a family's base class: not an accumulator a
        state can name, so it stays out of the registry (a crafted state naming it is refused)."""
        super().__init_subclass__(**kwargs)
        own_constructor(cls)  # a wrong keyword's error names the class called, not a base
        cls._is_base = base
        if not base and not getattr(cls, "__abstractmethods__", None) and not cls.__name__.startswith("_"):
            registry.register(cls)

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._state: S = self._make_state()

    # ----------------------------------------------------------------- to implement
    @abc.abstractmethod
    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, as plain JSON-compatible values."""

    @abc.abstractmethod
    def _make_state(self) -> S:
        """A new, empty state for this configuration."""

    @abc.abstractmethod
    def _validate(self, *args: Any, sample_weight: Any = None) -> Batch:
        """Check and convert a batch; raise :class:`InputError`; never touch the state."""

    @abc.abstractmethod
    def _apply(self, state: S, batch: Batch) -> None:
        """Add a validated batch to ``state`` (atomically: all or nothing)."""

    @abc.abstractmethod
    def _compute(self, state: S) -> Any:
        """The metric's value on ``state`` (which holds some data)."""

    def _apply_reweighted(
        self, states: list[S], batch: Batch, counts: np.ndarray, inputs: Inputs
    ) -> list[S] | None:
        """Each of ``states`` updated with ``batch`` under its own row weights, as new states.

        State ``r`` takes row ``i`` with weight ``counts[r, i]`` (``(len(states), n_rows)``
        integers: the bootstrap's Poisson draws) times the batch's own weight. ``batch`` is
        what :meth:`_validate` made of ``inputs`` (the raw arguments and weights), for families
        whose parsed batch no longer holds the rows. Families whose
        state is a weighted sum over rows reduce every replicate at once
        (:func:`~streammetrics._core.replicates.replicate_sums`); ``None`` (the default) says
        the family has no such form, and the caller updates one state at a time.
        """
        return None

    def _parse(self, inputs: Inputs) -> Batch:
        """Check and convert a batch given as an :class:`~streammetrics._core.inputs.Inputs`.

        Families that share conversions (a collection hands one ``Inputs`` to every member)
        override this and make :meth:`_validate` call it; the default reads the raw arguments.
        """
        return self._validate(*inputs.args, sample_weight=inputs.sample_weight)

    def _share_key(self) -> Hashable | None:
        """The sharing key (``None``: never shares a state in a collection).

        Two members share one state, updated once per batch, when their keys are equal: equal
        keys promise states of the same kind and configuration, and batches parsed and
        accepted or refused identically. Families declare theirs.
        """
        return None

    def _share_checks(self) -> frozenset[str]:
        """The checks this metric adds to its shared parsing (members of one sharing key share
        a state when one of them imposes every check of the others)."""
        return frozenset()

    def output_labels(self, state: S) -> list[Any] | None:
        """The class labels of a per-class value, in its order (``None``: positions)."""
        labels = getattr(state, "labels", None)
        if labels is None:
            return None
        return labels.tolist() if hasattr(labels, "tolist") else list(labels)

    def _unapply(self, state: S, batch: Batch) -> None:
        """Remove a validated batch from ``state`` (for revertible states)."""
        raise TypeError(f"{type(self).__name__} cannot revert: its state is not exactly invertible")

    def _is_empty(self, state: S) -> bool:
        """Whether ``state`` holds no (positively weighted) data: its value is undefined."""
        return state.n_samples == 0

    def _empty_value(self) -> Any:
        return float("nan")

    # ----------------------------------------------------------------- the protocol
    @classmethod
    def type_name(cls) -> str:
        """The name under which states of this class are stored."""
        return cls.__name__

    @property
    def n_samples(self) -> int:
        """Number of rows seen so far (sample weights ignored)."""
        return self._state.n_samples

    @property
    def state(self) -> S:
        """The underlying state (sufficient statistics); formulas are functions of it."""
        return self._state

    @property
    def is_revertible(self) -> bool:
        """Whether :meth:`revert` can take data out again exactly."""
        return self._state.revertible

    def update(self, *args: Any, sample_weight: Any = None) -> Metric[S]:
        """Add a batch; returns ``self``. Any batch size, 0 included.

        Raises :class:`~streammetrics.InputError` on a malformed batch, leaving the accumulator
        unchanged.
        """
        if args and (
            type(args[0]) in SCALAR_TYPES or _zero_dimensional(args[0])
        ):  # one sample: a one-row batch
            args = tuple([a] for a in args)
            sample_weight = None if sample_weight is None else [sample_weight]
        batch = self._validate(*args, sample_weight=sample_weight)
        with self._lock:
            self._apply(self._state, batch)
        return self

    def _check_state(self, state: S) -> None:
        """Raise :class:`StateError` if a loaded ``state`` (whose own invariants hold) is one this
        configuration could never have built (e.g. labels a binary average refuses)."""

    def _row_checker(self, state: S) -> Any:
        """The one-row checker of the per-sample fast path (see :mod:`streammetrics._core.onerow`).

        ``None``: rows of this metric are applied as one-row batches. Families with a cheap
        exact row check (confusion counts, regression moments, contingency tables) return one.
        """
        return None

    def revert(self, *args: Any, sample_weight: Any = None) -> Metric[S]:
        """Take a batch out again: the inverse of :meth:`update` (exact states only)."""
        if not self._state.revertible:
            self._unapply(self._state, None)  # raises TypeError naming the metric
        batch = self._validate(*args, sample_weight=sample_weight)
        with self._lock:
            if self._state.overflowed():
                raise InputError(
                    f"{type(self).__name__}.revert: expected a state within the float64 range, found "
                    "a total that overflowed (inf or NaN): the rows added before it cannot be "
                    "taken out exactly"
                )
            self._unapply(self._state, batch)
        return self

    def compute(self) -> Any:
        """The metric's value over everything seen; warns and returns NaN when empty."""
        with self._lock:
            return self._value_of(self._state)

    def _value_of(self, state: S) -> Any:
        if self._is_empty(state):
            warnings.warn(
                f"{type(self).__name__} is undefined on an empty accumulator; returning NaN",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return self._empty_value()
        return self._compute(state)

    def __call__(self, *args: Any, sample_weight: Any = None) -> Any:
        """Update with a batch and return the metric's value on that batch alone.

        Examples:
            >>> import streammetrics as sm
            >>> m = sm.Accuracy()
            >>> m([0, 1], [0, 0]), m([1, 1], [1, 1]), m.compute()
            (0.5, 1.0, 0.75)
        """
        batch = self._validate(*args, sample_weight=sample_weight)
        fresh = self._make_state()
        self._apply(fresh, batch)
        with self._lock:
            self._accumulate_call(self._state, batch, fresh)
        return self._value_of(fresh)

    def _accumulate_call(self, state: S, batch: Any, fresh: S) -> None:
        """Add the batch of a :meth:`__call__` to ``state``, all or nothing; ``fresh`` is the
        batch's own state. The parsed batch is applied again, which is exactly what
        :meth:`update` does and cheaper than merging ``fresh`` (a configuration check, a label
        union); a family whose fresh state is the costly part (the score sketch) merges it."""
        self._apply(state, batch)

    def check_compatible(self, other: Metric[Any]) -> None:
        """Raise :class:`MergeError` unless ``other`` has the same type and configuration."""
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge {type(other).__name__} into {type(self).__name__}: "
                "accumulators of different types"
            )
        mine, theirs = self.get_config(), other.get_config()
        if not equal_configs(mine, theirs):
            raise MergeError(
                f"cannot merge {type(self).__name__} accumulators of different configuration: "
                + describe_difference(mine, theirs)
            )

    def merge(self, other: Metric[Any]) -> Metric[S]:
        """Add the data of ``other`` into ``self`` (in place); ``other`` is unchanged."""
        self.check_compatible(other)
        with other._lock:
            snapshot = other._state.copy()
        with self._lock:
            self._check_rows(snapshot)
            self._state.merge(snapshot)
        return self

    def _check_rows(self, snapshot: S) -> None:
        """Refuse a merge past :data:`~streammetrics._core.schema.INT64_MAX` rows in all: the
        states' counts are int64 (they would wrap) and their formats store it."""
        mine, theirs = self._state.n_samples, snapshot.n_samples
        if mine + theirs > INT64_MAX:
            raise MergeError(
                f"n_samples: expected at most {INT64_MAX} rows in all (int64 counts), found {mine} + {theirs}"
            )

    def __add__(self, other: Any) -> Metric[S]:
        if not isinstance(other, Metric):
            return NotImplemented
        return self.copy().merge(other)

    def __radd__(self, other: Any) -> Metric[S]:
        if isinstance(other, int) and other == 0:  # makes sum(list_of_metrics) work
            return self.copy()
        if isinstance(other, Metric):
            return other.copy().merge(self)
        return NotImplemented

    def reset(self) -> Metric[S]:
        """Forget all data; the configuration is kept. Returns ``self``."""
        with self._lock:
            self._state.reset()
        return self

    def copy(self) -> Metric[S]:
        """A deep, independent copy."""
        with self._lock:
            return copy.deepcopy(self)

    def empty_like(self) -> Metric[S]:
        """A new, empty accumulator with the same configuration."""
        return type(self)(**self.get_config())

    # ----------------------------------------------------------------- persistence
    def state_dict(self) -> dict[str, Any]:
        """A plain dict ``{"type", "version", "config", "state"}`` describing the accumulator."""
        with self._lock:
            state = self._state.to_dict()
        return {
            "type": self.type_name(),
            "version": self.version,
            "config": self.get_config(),
            "state": state,
        }

    @classmethod
    def from_state_dict(cls, data: dict[str, Any]) -> Metric[Any]:
        """Rebuild an accumulator from :meth:`state_dict` output (raises :class:`StateError`)."""
        if cls is Metric or cls._is_base or getattr(cls, "__abstractmethods__", None):
            return registry.from_state_dict(data)
        if not isinstance(data, dict) or set(data) != {"type", "version", "config", "state"}:
            raise StateError(
                "state dict: expected the keys ['config', 'state', 'type', 'version'], found "
                + (repr(sorted(data)) if isinstance(data, dict) else type(data).__name__)
            )
        if data["type"] != cls.type_name():
            raise StateError(f"state dict: holds a {data['type']!r}, not a {cls.type_name()!r}")
        version = data["version"]
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise StateError(f"state dict: bad version {version!r}")
        if version > cls.version:
            raise StateError(
                f"state dict: {cls.type_name()} version {version} is newer than this library "
                f"reads ({cls.version})"
            )
        config = data["config"]
        if not isinstance(config, dict):
            raise StateError("state dict: 'config' must be a dict")
        serialization.check_depth(data)  # a dict built in Python may nest as deep as it likes
        try:
            metric = cls(**config)
        except (TypeError, ValueError, OverflowError, RecursionError) as err:
            raise StateError(
                f"state dict: invalid configuration for {cls.type_name()}: {_short_error(err)}"
            ) from None
        try:
            metric._state.load_dict(data["state"])
            metric._state.check()
            metric._check_state(metric._state)
            refresh = getattr(metric, "_refresh", None)
            if callable(refresh):  # the row checkers re-read what the loaded state knows
                refresh()
        except StateError:
            raise
        except (TypeError, ValueError, OverflowError, IndexError, KeyError, ZeroDivisionError) as err:
            # A field no declaration caught (a value NumPy refuses to convert): still a bad state.
            raise StateError(
                f"state dict: invalid {cls.type_name()} state: {type(err).__name__}: {_short_error(err)}"
            ) from None
        return metric

    def to_bytes(self) -> bytes:
        """Compact, versioned, checksummed bytes (see the state file format in the docs)."""
        return serialization.encode(self.state_dict())

    @classmethod
    def from_bytes(cls, data: bytes) -> Metric[Any]:
        """Rebuild an accumulator from :meth:`to_bytes` output; never runs code."""
        return cls.from_state_dict(serialization.decode(data))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_bytes` to ``path`` (atomically: a temporary file, then a rename).

        Whatever fails (encoding the state, writing, renaming; Ctrl-C included), no temporary
        file is left behind and an existing file at ``path`` is unchanged.
        """
        data = self.to_bytes()  # before any file exists: an encoding error leaves nothing
        tmp = f"{os.fspath(path)}.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    # ----------------------------------------------------------------- Python protocol
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def __deepcopy__(self, memo: dict[int, Any]) -> Metric[S]:
        new = type(self).__new__(type(self))
        for key, value in self.__dict__.items():
            if key != "_lock":
                new.__dict__[key] = copy.deepcopy(value, memo)
        new._lock = threading.RLock()
        return new

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={_short_repr(v)}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _zero_dimensional(value: Any) -> bool:
    """A 0-d array or tensor, or a missing value (``pd.NA``, ``None``): one sample, not a batch."""
    if isinstance(value, (list, tuple, dict)):
        return False
    ndim = getattr(value, "ndim", None)
    return ndim == 0 if ndim is not None else value is None or np.ndim(value) == 0


def _short_error(err: BaseException) -> str:
    """An error's message for another message: one line, at most 200 characters."""
    text = " ".join(str(err).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _short_repr(value: Any) -> str:
    if isinstance(value, float) and np.isnan(value):
        return "nan"
    return repr(value)


def metrics_within(metric: Metric[Any]) -> list[Metric[Any]]:
    """``metric`` and every metric it wraps (``.metric``) or holds (a collection's members)."""
    out, todo = [], [metric]
    while todo:
        m = todo.pop()
        out.append(m)
        inner = getattr(m, "metric", None)
        if isinstance(inner, Metric):
            todo.append(inner)
        todo.extend(getattr(m, "_members", {}).values())
    return out


def roles_of(metric: Metric[Any]) -> tuple[str, ...]:
    """The arguments ``metric`` takes: its class's, or those of the metric it wraps (with the
    keys after them for a wrapper that adds them: a :class:`~streammetrics.Sliced` of a sliced
    metric takes both columns of keys)."""
    inner = getattr(metric, "metric", None)
    if not isinstance(inner, Metric) or type(metric).roles:
        return type(metric).roles or tuple(getattr(metric, "member_roles", ()))  # (a collection's)
    inner_roles = roles_of(inner)
    return (*inner_roles, "keys") if type(metric).adds_arguments and inner_roles else inner_roles


def validate_within(metric: Metric[Any], args: tuple[Any, ...], sample_weight: Any) -> Any:
    """``metric._validate(*args, sample_weight=...)`` for a wrapper that passes its rows on: its
    arguments counted first (``InputError``, not a ``TypeError`` from the inner signature)."""
    roles = roles_of(metric)
    if roles and len(args) != len(roles):
        raise InputError(
            f"inputs: expected {len(roles)} argument(s) ({', '.join(roles)}; sample_weight= by name), "
            f"found {len(args)}"
        )
    return metric._validate(*args, sample_weight=sample_weight)
