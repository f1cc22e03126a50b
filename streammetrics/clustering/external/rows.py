"""One-row checks of the contingency table (the per-sample fast path; see :mod:`streammetrics._core.onerow`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._core.rowvalues import LABEL_TYPES, innermost_state, label_of
from ...errors import InputError


class ContingencyRows:
    """Checks one (labels_true, labels_pred) pair for the contingency table (each side its own kind)."""

    encoding = "codes"

    def __init__(self, rules: Any, state: Any) -> None:
        self.known: tuple[set[Any], set[Any]] = (set(), set())
        self.kinds: list[type | None] = [None, None]
        self._seen: tuple[Any, ...] = ()
        self.refresh(state)

    def refresh(self, state: Any) -> bool:
        """Re-read the labels of both sides; ``False`` when the same state holds the same
        (immutable) label sets as at the last refresh."""
        state = innermost_state(state, "row_labels")
        seen = (state, state.row_labels, state.col_labels)
        if len(self._seen) == 3 and all(a is b for a, b in zip(seen, self._seen, strict=True)):
            return False
        self._seen = seen
        for side, labels in enumerate((state.row_labels.tolist(), state.col_labels.tolist())):
            self.known[side].clear()
            self.known[side].update(labels)
            self.kinds[side] = (str if isinstance(labels[0], str) else int) if labels else None
        return True

    def fast_test(self) -> Callable[[Any, Any], bool]:
        types, (known_t, known_p) = LABEL_TYPES, self.known
        return lambda t, p: type(t) in types and type(p) in types and t in known_t and p in known_p

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        t, p = label_of(y_true, "labels_true"), label_of(y_pred, "labels_pred")
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
