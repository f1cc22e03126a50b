"""One-row checks of the expected cost (the per-sample fast path; see :mod:`streammetrics._core.onerow`).

A row of :class:`~streammetrics.ExpectedCost` is a class label and a decision index: both come
from fixed sets (the rows and the columns of the cost matrix), so rows are buffered as pair
codes, like the confusion family's. Posterior rows are 2-D: they go as batches. The binary score
rows of the other probabilistic metrics are :class:`~streammetrics.ranking.rows.ScoreRows`.

Examples:
    >>> import streammetrics as sm
    >>> m = sm.ExpectedCost([[0, 1], [4, 0]])
    >>> for y, d in [(0, 0), (1, 1), (1, 0), (0, 0)]:
    ...     _ = m.update(y, d)
    >>> m.compute()
    1.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core.rowvalues import LABEL_TYPES, label_of
from ..errors import InputError


class DecisionRows:
    """Checks one ``(y_true, decision)`` row against an expected-cost metric's fixed sets."""

    encoding = "codes"

    def __init__(self, rules: Any, state: Any) -> None:
        k, m = rules._c.shape
        self.labels = rules.labels
        self.classes = set(range(k) if rules.labels is None else rules.labels)
        self.decisions = set(range(m))
        self.n_decisions = m

    def refresh(self, state: Any) -> None:
        """Nothing to re-read: both sets are fixed by the configuration."""

    def fast_test(self) -> Callable[[Any, Any], bool]:
        classes, decisions, types = self.classes, self.decisions, LABEL_TYPES
        return lambda t, p: type(t) in types and type(p) in types and t in classes and p in decisions

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        if isinstance(y_pred, dict):
            raise InputError(
                "y_pred: expected one decision index on the per-row path, found a dict; "
                "pass class posteriors as a 2-D batch"
            )
        yt, d = label_of(y_true, "y_true"), label_of(y_pred, "y_pred")
        if yt not in self.classes or type(yt) is not type(next(iter(self.classes))):
            expected = f"labels in {self.labels}" if self.labels is not None else "classes 0..K-1"
            raise InputError(f"y_true: expected {expected} (one per row of costs), found {yt!r}")
        if type(d) is not int or d not in self.decisions:
            raise InputError(
                f"y_pred: expected decision indices in 0..{self.n_decisions - 1} (columns of costs), found {d!r}"
            )
        return yt, d, ()

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        return []

    def commit(self, new: list[Any]) -> None:
        pass
