"""One-row path of the internal indices: ``update(x, label)`` with one point and its cluster.

A row is a 1-D point (its features) and one label (see :mod:`streammetrics._core.onerow`). It is
checked when offered, with the rules of a batch (finite numbers, the number of features of
earlier rows, labels of one kind, the fixed centroids' labels), and buffered as a copy of the
point and the label; the buffer is applied as one batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.rowvalues import label_of
from ...errors import InputError
from ..inputs import is_one_label

#: Types of the sum of a point's values on the fast path (anything else: the checked path).
_SUMS = frozenset({int, float, np.float64})


def _innermost(state: Any) -> Any:
    """The state inside window/decay wrappers that knows the points' width."""
    while not (hasattr(state, "n_features") or hasattr(state, "centroids")):
        state = state.merged() if hasattr(state, "merged") else state.state
    return state


class PointRows:
    """The row parser of the internal indices: rows ``(point, label)``.

    ``n_features`` and the label kind come from the state (or the first row); with fixed
    centroids a label must be one of theirs. :meth:`hot_function` takes a float64 NumPy point
    and an int or str label with one dict look-up and a finiteness test.
    """

    encoding = "values"
    width = 2

    def __init__(self, state: Any) -> None:
        #: Labels already checked (label -> its plain value), cleared on refresh.
        self.known: dict[Any, Any] = {}
        self.refresh(state)

    def refresh(self, state: Any) -> bool:
        """Re-read the state; ``False`` when nothing a row check reads changed (the same state,
        label set and width: the common case after a batch that brought no new label)."""
        inner = _innermost(state)
        fixed = getattr(inner, "centroids", None)
        found = getattr(fixed if fixed is not None else inner, "n_features", None)
        n_features = found() if callable(found) else found
        labels = getattr(getattr(inner, "moments", inner), "labels", None)
        before = self.__dict__.get("_seen")
        if (
            before is not None
            and before[0] is inner
            and before[1] is fixed
            and before[2] is labels
            and before[3] == n_features
        ):
            return False
        self._seen = (inner, fixed, labels, n_features)
        self.n_features: int | None = n_features
        #: The labels a row may have (fixed centroids), else ``None``.
        self.allowed: frozenset[Any] | None = None if fixed is None else frozenset(fixed.labels)
        kind = getattr(labels, "kind", None) if self.allowed is None else None
        #: ``int`` or ``str``: the kind of the labels seen so far (``None``: none yet).
        self.kind: type | None = {"int": int, "str": str}.get(kind) if isinstance(kind, str) else None
        if self.allowed is not None:
            kinds = {type(label_of(v, "labels")) for v in self.allowed}
            self.kind = kinds.pop() if len(kinds) == 1 else None
        self.known.clear()
        return True

    def fast_test(self) -> Callable[[Any, Any], bool]:
        return lambda x, label: False  # the per-row functions below test and copy in one go

    def check(self, X: Any, labels: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        """One point and its label, with the batch's rules (raises :class:`InputError`)."""
        label = label_of(labels, "labels")
        if self.kind is not None and type(label) is not self.kind:
            raise InputError(
                f"labels: expected {self.kind.__name__} labels like those seen so far, "
                f"found {type(label).__name__} label {label!r}"
            )
        if self.allowed is not None and label not in self.allowed:
            raise InputError(f"labels: expected one of the fixed centroids' labels, found {label!r}")
        try:
            point = np.array(X, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"X: expected one point (a 1-D array of numbers), found {X!r}") from None
        if point.ndim != 1:
            raise InputError(f"X: expected one point (a 1-D array of numbers), found shape {point.shape}")
        if np.asarray(X).dtype.kind not in "biuf":
            raise InputError(f"X: expected numbers, found values of dtype {np.asarray(X).dtype}")
        if not np.isfinite(point).all():
            raise InputError("X: expected finite values, found NaN or infinity")
        if self.n_features is not None and len(point) != self.n_features:
            raise InputError(f"X: expected {self.n_features} features like earlier rows, found {len(point)}")
        return point, label, ()

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        return []

    def commit(self, new: list[Any]) -> None:
        pass

    def encode(self, point: np.ndarray, label: Any) -> tuple[Any, ...]:
        """A checked row fixes the number of features and the label kind of the next rows."""
        self.n_features = len(point)
        self.kind = type(label)
        self.known[label] = label
        return (point, label)

    def decode(self, flat: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        return np.array(flat[0::2], dtype=np.float64), np.asarray(flat[1::2])

    def _fast(self) -> Callable[[Any, Any], Any]:
        """``(x, label) -> list | False``: a copy of the point as a list of floats when the row is
        of the common kind (a float64 array or a list of numbers of the known width, a label seen
        before, finite values), else ``False``."""
        known = self.known

        def take(x: Any, label: Any) -> Any:
            kind = type(x)
            if kind is np.ndarray:
                if x.dtype != np.float64 or x.ndim != 1:
                    return False
                values = x.tolist()  # a copy: the caller may reuse its array
            elif kind is list:
                values = x[:]
            else:
                return False
            if len(values) != self.n_features or label not in known:
                return False
            total = sum(values)  # TypeError on a non-number; inf or NaN on a non-finite value
            if type(total) not in _SUMS or total * 0.0 != 0.0:  # (an overflowing sum: checked path)
                return False
            return values

        return take

    def hot_function(
        self, buffer: Any, limit: int, flush: Callable[[], None], slow: Callable[..., Any], result: Any
    ) -> Callable[..., Any]:
        """The per-row function: a float64 point of the known width with a label seen before is a
        copy, a sum and one ``list.extend``; anything else takes the checked path."""
        rows, take = buffer.rows, self._fast()
        extend = rows.extend

        def update(X: Any, labels: Any, sample_weight: Any = None, w: Any = None) -> Any:
            point = False
            if sample_weight is w is None:
                try:
                    point = take(X, labels)
                except (TypeError, OverflowError):  # an unhashable label, a non-number, a huge int
                    point = False
            if point is not False:
                extend((point, labels))
                if len(rows) >= limit:
                    flush()
                return result
            if is_one_label(labels):  # one row of another kind: the checked row path
                buffer.add(X, labels, sample_weight if w is None else w)
            else:
                slow(X, labels, sample_weight if w is None else w)
            return result

        return update

    def pusher(self, buffer: Any) -> Callable[[Any, Any], bool]:
        rows, take = buffer.rows, self._fast()

        def push(X: Any, labels: Any) -> bool:
            try:
                point = take(X, labels)
            except (TypeError, OverflowError):
                return False
            if point is False:
                return False
            rows.extend((point, labels))
            return True

        return push
