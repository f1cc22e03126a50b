"""MetricCollection: many metrics fed by one call, sharing the states they have in common."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any, ClassVar

from .._core.inputs import Inputs
from .._core.metric import Metric, roles_of
from .._core.onerow import OneRowMixin, RowBuffer, innermost
from .._core.state import State, canonical_json, require_keys
from ..errors import InputError, MergeError, StateError
from . import _spec
from .flatten import flatten_value
from .scaling import can_scale, scale_state
from .sharing import sharing_key


class CollectionState(State):
    """The distinct states of a collection, keyed by the name of the member leading each group.

    Examples:
        >>> import streammetrics as sm
        >>> c = sm.MetricCollection([sm.F1(), sm.Precision(), sm.Recall()])
        >>> sorted(c.state.states)  # one state serves all three
        ['f1']
    """

    def __init__(self, states: dict[str, State], groups: dict[str, str] | None = None) -> None:
        self.states = states
        #: Member name -> the leader whose state it reads (state dicts saved with another grouping
        #: still load: every member of a group saw the same batches).
        self.groups = groups or {name: name for name in states}
        self.revertible = all(s.revertible for s in states.values())  # type: ignore[misc]

    @property
    def n_samples(self) -> int:
        """Rows seen (the largest count: a windowed member counts only its window)."""
        return max((s.n_samples for s in self.states.values()), default=0)

    def config(self) -> dict[str, Any]:
        return {name: [type(s).__qualname__, s.config()] for name, s in self.states.items()}

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, CollectionState)
        self._all_or_none(lambda name, state: state.merge(other.states[name]))

    def reset(self) -> None:
        self._all_or_none(lambda name, state: state.reset())

    @property
    def scalable(self) -> bool:
        """Whether every member state can be scaled (see :meth:`scale`)."""
        return all(can_scale(state) for state in self.states.values())

    def scale(self, factor: float) -> None:
        """Multiply every member state's weights by ``factor`` (exponential forgetting of the
        whole collection), all of them or none."""
        if not self.scalable:
            names = [name for name, state in self.states.items() if not can_scale(state)]
            raise TypeError(f"MetricCollection states cannot be scaled: {names} cannot")
        self._all_or_none(lambda name, state: scale_state(state, factor))

    def _all_or_none(self, change: Any) -> None:
        """``change(name, state)`` for every member state, or (whatever is raised, Ctrl-C
        included) for none: the states are shared with the member views, so they change in place,
        each backed up first and restored if a later one fails."""
        # A state's change is one ``_commit`` that swaps its fields (never changing an array in
        # place), so a shallow copy of its fields is a backup; the last state needs none.
        backups: list[tuple[State, dict[str, Any]]] = []
        items = list(self.states.items())
        try:
            for i, (name, state) in enumerate(items):
                if i < len(items) - 1:
                    backups.append((state, dict(state.__dict__)))
                change(name, state)
        except BaseException:
            for state, fields in backups:
                state.__dict__.update(fields)  # one update: no interruption can split it
            raise

    def to_dict(self) -> dict[str, Any]:
        return {name: state.to_dict() for name, state in self.states.items()}

    def load_dict(self, data: dict[str, Any]) -> None:
        if isinstance(data, dict) and set(data) != set(self.states) and set(data) <= set(self.groups):
            data = self._regrouped(data)
        require_keys(data, set(self.states), "MetricCollection state")
        for name, state in self.states.items():  # validate everything before changing anything
            trial = state.copy()
            trial.load_dict(data[name])
            trial.check()
        self._all_or_none(lambda name, state: state.load_dict(data[name]))

    def _regrouped(self, data: dict[str, Any]) -> dict[str, Any]:
        """A state dict saved under other leaders (another grouping), keyed by this one's."""
        out: dict[str, Any] = {}
        for name, value in data.items():
            leader = self.groups[name]
            if leader in out and canonical_json(_plain(out[leader])) != canonical_json(_plain(value)):
                raise StateError(f"MetricCollection state: members sharing {leader!r} hold different states")
            out[leader] = value
        return out

    def check(self) -> None:
        for state in self.states.values():
            state.check()


class MetricCollection(OneRowMixin, Metric[CollectionState]):
    """Several metrics updated together; metrics that need the same state share it.

    ``metrics`` is a dict ``{name: metric}`` or a list of metrics or metric names (names are
    then the snake-case class names, ``"_2"``, ``"_3"``... added to repeats).
    ``update(y_true, prediction, sample_weight=None)`` routes one prediction to every member,
    whatever its kind: each member derives its own input from it (labels by ``threshold=`` or
    by the arg-max of class probabilities, the scores themselves, probabilities), and each input
    is converted and checked once per batch. Members must take the same arguments: metrics fed
    ``(X, labels)`` (internal clustering indices) cannot join metrics fed ``(y_true,
    prediction)``, and the error says which member takes what. Members whose sharing keys are
    equal (same kind and configuration of state, same parsing: see
    :mod:`streammetrics.streaming.sharing`) share one state, updated once per batch.
    ``compute()`` returns a flat ``{prefix + name + postfix: value}`` dict; per-class arrays
    become ``name/label`` keys in the label order of each member. Calling the collection gives
    the same dict for the batch. One sample given as two scalars takes the per-row path of
    every member.

    The members are the collection's own: ``collection["f1"]`` is a live view whose state is the
    shared one (update through the collection, not through the view). Merging needs the same
    members with the same configurations; ``to_bytes``/``from_bytes`` store the whole collection.

    Examples:
        >>> import streammetrics as sm
        >>> c = sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1(), "recall": sm.Recall()})
        >>> c.update([0, 1, 1, 0], [0, 1, 0, 0]).compute()
        {'acc': 0.75, 'f1': 0.6666666666666666, 'recall': 0.5}
        >>> c([1, 1], [1, 1])  # the values on this batch alone
        {'acc': 1.0, 'f1': 1.0, 'recall': 1.0}
        >>> c.compute()["acc"], c.n_samples
        (0.8333333333333334, 6)
        >>> mixed = sm.MetricCollection(
        ...     {"acc": sm.Accuracy(threshold=0.5), "auc": sm.ROCAUC(), "ll": sm.LogLoss()}
        ... )
        >>> {k: round(v, 4) for k, v in mixed.update([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.6]).compute().items()}
        {'acc': 0.5, 'auc': 0.75, 'll': 0.5403}
        >>> per_class = sm.MetricCollection([sm.F1(average=None)], prefix="val_")
        >>> per_class.update(["cat", "dog", "dog"], ["cat", "cat", "dog"]).compute()
        {'val_f1/cat': 0.6666666666666666, 'val_f1/dog': 0.6666666666666666}
    """

    higher_is_better: ClassVar[bool | None] = None
    numeric_value: ClassVar[bool] = False  # (a dict of the members' values)

    @property
    def member_roles(self) -> tuple[str, ...]:
        """The arguments the members take (they all take the same: see the class docstring)."""
        return next((roles for roles in map(roles_of, self._members.values()) if roles), ())

    def __init__(self, metrics: Any, *, prefix: str = "", postfix: str = "") -> None:
        for arg, value in (("prefix", prefix), ("postfix", postfix)):
            if not isinstance(value, str):
                raise ValueError(f"{arg}: expected a string, found {value!r}")
        self.prefix, self.postfix = prefix, postfix
        self._members = _members(metrics)
        _check_same_convention(self._members)
        self._groups = _groups(self._members)
        super().__init__()
        self._link()

    def _install(self) -> None:
        self.hot_path()  # ``f = collection.update`` taken before the first call is the fast one

    def _row_buffers(self) -> list[RowBuffer]:
        return [
            RowBuffer(self._members[leader], innermost(self._members[leader]), name=leader)
            for leader in self._groups
        ]

    def _link(self) -> None:
        upstream = weakref.ref(self)
        for leader, names in self._groups.items():
            for name in names:
                member = self._members[name]
                member._state = self._state.states[leader]
                if isinstance(member, OneRowMixin):  # read on its own, it applies the rows buffered here
                    member.__dict__["_upstream"] = upstream
                if isinstance(member, MetricCollection):  # nested: its members follow its state
                    member._link()

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        new = super().__deepcopy__(memo)
        new._link()
        return new

    # ------------------------------------------------------------------ mapping view
    def __getitem__(self, name: str) -> Metric[Any]:
        try:
            return self._members[name]
        except KeyError:
            raise KeyError(f"{name!r} is not a member; members are {list(self._members)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __contains__(self, name: object) -> bool:
        return name in self._members

    def keys(self) -> list[str]:
        """The member names, in order."""
        return list(self._members)

    def items(self) -> list[tuple[str, Metric[Any]]]:
        return list(self._members.items())

    @property
    def groups(self) -> dict[str, list[str]]:
        """Members grouped by shared state: ``{leader: [members]}`` (one state per group)."""
        return {leader: list(names) for leader, names in self._groups.items()}

    # ------------------------------------------------------------------ Metric protocol
    def get_config(self) -> dict[str, Any]:
        return {
            "metrics": {name: _spec.describe(m) for name, m in self._members.items()},
            "prefix": self.prefix,
            "postfix": self.postfix,
        }

    def _make_state(self) -> CollectionState:
        states = {leader: self._members[leader]._make_state() for leader in self._groups}
        return CollectionState(
            states, {name: leader for leader, names in self._groups.items() for name in names}
        )

    def _validate(self, *args: Any, sample_weight: Any = None) -> dict[str, Any]:
        return self._parse(Inputs(args, sample_weight))

    def _parse(self, inputs: Inputs) -> dict[str, Any]:
        """Each group's leader parses the batch from one :class:`Inputs`: every input role is
        converted and checked once, and each member derives its own input from it."""
        batches = {}
        for leader in self._groups:
            try:
                batches[leader] = self._members[leader]._parse(inputs)
            except InputError as err:
                raise InputError(f"{err} (member {leader!r})") from None
            except TypeError as err:
                raise InputError(f"inputs: member {leader!r} cannot take these arguments: {err}") from None
        return batches

    def _apply(self, state: CollectionState, batch: dict[str, Any], sign: int = 1) -> None:
        """Apply every group's batch, all or nothing (whatever is raised, a Ctrl-C included).

        Groups whose state reverts exactly go first; a group that cannot revert, or whose state
        changes by whole commits (:attr:`State.commits_whole`), is backed up before it changes,
        unless it goes last (nothing after it can fail).
        """
        order = sorted(self._groups, key=lambda leader: not state.states[leader].revertible)
        done: list[str] = []
        backups: dict[str, State] = {}
        fields: dict[str, dict[str, Any]] = {}
        current, mark = None, 0
        try:
            for leader in order:
                member, target = self._members[leader], state.states[leader]
                if target.commits_whole and leader != order[-1]:
                    fields[leader] = dict(target.__dict__)  # (a shallow copy: see commits_whole)
                elif not target.revertible and leader != order[-1]:
                    backups[leader] = target.copy()
                current, mark = leader, target._changes
                try:
                    (member._apply if sign > 0 else member._unapply)(target, batch[leader])
                except InputError as err:
                    raise InputError(f"{err} (member {leader!r})") from None
                done.append(leader)
        except BaseException:
            # A state's change is atomic, so the group in hand when this struck changed iff its
            # change count moved (the exception may have come between its change and done).
            if current is not None and current not in done and state.states[current]._changes != mark:
                done.append(current)
            if len(done) == len(order):  # every group changed: the update happened, keep it
                raise
            for leader in done:  # roll back the groups already changed: all or nothing
                target = state.states[leader]
                if leader in fields:
                    target.__dict__.update(fields[leader])  # (one update: no interruption splits it)
                elif leader in backups:
                    target.load_dict(backups[leader].to_dict())
                else:
                    member = self._members[leader]
                    (member._unapply if sign > 0 else member._apply)(target, batch[leader])
            raise

    def _accumulate_call(self, state: CollectionState, batch: dict[str, Any], fresh: CollectionState) -> None:
        """Each group as its leader adds a call's batch (applied again, or its fresh state merged),
        all or nothing."""

        def accumulate(leader: str, target: State) -> None:
            try:
                self._members[leader]._accumulate_call(target, batch[leader], fresh.states[leader])
            except InputError as err:
                raise InputError(f"{err} (member {leader!r})") from None

        state._all_or_none(accumulate)

    def _unapply(self, state: CollectionState, batch: dict[str, Any] | None) -> None:
        if batch is None or not state.revertible:
            fixed = [n for n, s in state.states.items() if not s.revertible]
            raise TypeError(f"MetricCollection cannot revert: members {fixed} are not revertible")
        self._apply(state, batch, sign=-1)

    def _is_empty(self, state: CollectionState) -> bool:
        return False  # each member warns and returns NaN on its own

    def _compute(self, state: CollectionState) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for leader, names in self._groups.items():
            group_state = state.states[leader]
            for name in names:
                member = self._members[name]
                value = member._value_of(group_state)
                labels = member.output_labels(group_state)
                out.update(flatten_value(f"{self.prefix}{name}{self.postfix}", value, labels))
        return out

    def check_compatible(self, other: Metric[Any]) -> None:
        if type(other) is not type(self):
            raise MergeError(f"cannot merge {type(other).__name__} into MetricCollection: different types")
        assert isinstance(other, MetricCollection)
        if list(other._members) != list(self._members):
            raise MergeError(
                f"cannot merge MetricCollection accumulators with different members: "
                f"{list(self._members)} vs {list(other._members)}"
            )
        for name, metric in self._members.items():
            if not _spec.same_config(metric, other._members[name]):
                raise MergeError(
                    f"cannot merge MetricCollection accumulators: member {name!r} differs "
                    f"({metric!r} vs {other._members[name]!r})"
                )
        super().check_compatible(other)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._link()

    def __repr__(self) -> str:
        inner = ", ".join(f"{name!r}: {m!r}" for name, m in self._members.items())
        extra = "".join(f", {k}={getattr(self, k)!r}" for k in ("prefix", "postfix") if getattr(self, k))
        return f"MetricCollection({{{inner}}}{extra})"


def _members(metrics: Any) -> dict[str, Metric[Any]]:
    if isinstance(metrics, Metric) or isinstance(metrics, str):
        metrics = [metrics]
    if isinstance(metrics, dict):
        pairs = list(metrics.items())
        for name, _ in pairs:
            if not isinstance(name, str) or not name:
                raise ValueError(f"metrics: expected non-empty string names, found {name!r}")
    elif isinstance(metrics, (list, tuple)):
        pairs = []
        taken: set[str] = set()
        for spec in metrics:
            metric = _spec.resolve(spec)
            base = _spec.snake_case(metric.type_name())
            name, k = base, 1
            while name in taken:
                k += 1
                name = f"{base}_{k}"
            taken.add(name)
            pairs.append((name, metric))
    else:
        raise ValueError(f"metrics: expected a dict or a list of metrics, found {type(metrics).__name__}")
    if not pairs:
        raise ValueError("metrics: expected at least one metric, found none")
    out: dict[str, Metric[Any]] = {}
    for name, spec in pairs:
        metric = _spec.resolve(spec, f"metrics[{name!r}]")
        if metric.n_samples:
            raise ValueError(
                f"metrics[{name!r}]: expected a fresh metric, found one holding {metric.n_samples} rows"
            )
        out[name] = metric.empty_like()
    return out


def _groups(members: dict[str, Metric[Any]]) -> dict[str, list[str]]:
    """``{leader: [members]}``: members with equal sharing keys share the leader's state.

    Within one key, members may differ by the checks they impose (binary ``F1`` refuses a third
    label, ``Accuracy`` does not): they share when one of them imposes them all (it leads, so
    its parsing refuses whatever any of them would); otherwise they split by their checks.
    Groups come in the order of their first member.
    """
    by_key: dict[Any, list[str]] = {}
    for name, metric in members.items():
        key = sharing_key(metric)
        by_key.setdefault(("alone", name) if key is None else ("key", key), []).append(name)
    order = {name: i for i, name in enumerate(members)}
    groups: dict[str, list[str]] = {}
    for names in by_key.values():
        checks = {name: members[name]._share_checks() for name in names}
        leaders: list[str] = []  # the strictest first: each member joins the first leader covering it
        for name in sorted(names, key=lambda n: (-len(checks[n]), order[n])):
            leader = next((lead for lead in leaders if checks[lead] >= checks[name]), None)
            if leader is None:
                leaders.append(name)
                groups[name] = [name]
            else:
                groups[leader].append(name)
    for group in groups.values():
        group.sort(key=order.__getitem__)
    return dict(sorted(groups.items(), key=lambda item: order[item[1][0]]))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return [str(getattr(value, "dtype", "")), value.tolist()]
    return value


def convention_of(metric: Metric[Any]) -> str | None:
    """The calling convention a metric declares (a wrapper's is its metric's; ``None``: undeclared)."""
    if isinstance(metric, MetricCollection):
        return next((c for c in map(convention_of, metric._members.values()) if c is not None), None)
    inner = getattr(metric, "metric", None)
    if isinstance(inner, Metric):
        return convention_of(inner)
    return type(metric).convention


def _check_same_convention(members: dict[str, Metric[Any]]) -> None:
    """Members are fed the same arguments: they must declare the same calling convention."""
    seen: dict[str, str] = {}
    for name, metric in members.items():
        convention = convention_of(metric)
        if convention is not None:
            seen.setdefault(convention, name)
    if len(seen) > 1:
        described = "; ".join(
            f"{name!r} takes ({', '.join(roles_of(members[name]))}): {convention}"
            for convention, name in seen.items()
        )
        raise ValueError(
            f"metrics: members cannot be fed the same arguments, so they cannot share a collection: {described}"
        )


__all__ = ["MetricCollection", "CollectionState"]
