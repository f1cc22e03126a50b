"""One-row checks of the score metrics (ranking sketch, probabilistic): the per-sample fast path.

A row is a binary sample: a label (one the positive-label rule admits with those seen so far,
see :mod:`streammetrics.ranking.positive`) and one score (a probability in [0, 1] with ``input="probability"``, any finite real with
``input="score"``). The buffer keeps ``(label, score)`` pairs and applies them as one batch (see
:mod:`streammetrics._core.onerow`). Everything a batch of these rows would refuse is refused when
the row is offered: a label the rule refuses with the labels seen before (a third one, strings
without ``pos_label``), a score out of range, a binary row for a state that holds class
columns. Multiclass and multilabel samples are 2-D: they go as batches.

Examples:
    >>> import streammetrics as sm
    >>> m = sm.ROCAUC()
    >>> for y, p in [(0, 0.1), (1, 0.8), (1, 0.25), (0, 0.3)]:
    ...     _ = m.update(y, p)
    >>> m.compute()
    0.75
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.rowvalues import LABEL_TYPES, NUMBER_TYPES, floats_of, label_of, number_of
from ..errors import InputError
from .positive import check_binary_classes, union


class ScoreRows:
    """Checks one ``(y_true, score)`` row against a binary score metric's rules.

    ``truths`` holds the labels a row may carry without a check (those admitted so far); the hot
    path reads this very set. ``low``/``high`` bound
    the score (``[0, 1]`` or the finite reals).
    """

    encoding = "values"
    width = 2

    def __init__(self, rules: Any, state: Any) -> None:
        self.rules = rules
        self.name = rules.roles[1]
        #: scikit-learn's rule for the positive label (:mod:`streammetrics.ranking.positive`).
        self.rule = rules._rule()
        self.probability = rules.input == "probability"
        self.low, self.high = (0.0, 1.0) if self.probability else (-math.inf, math.inf)
        #: The labels admitted so far: the state's, then those of buffered rows (sorted).
        self.admitted: tuple[Any, ...] = ()
        self.truths: set[Any] = set()
        self.refresh(state)

    def refresh(self, state: Any) -> None:
        """Re-read the labels the state has seen (the buffer is empty when this is called)."""
        self.state = state
        self.truths.clear()
        labelled = self._labelled()
        self.admitted = tuple(getattr(labelled, "seen", ()))
        if self._binary_state():
            self.truths.update(self.admitted)

    def _labelled(self) -> Any:
        state = self.state
        while not hasattr(state, "seen") and hasattr(state, "state"):
            state = state.merged() if hasattr(state, "merged") else state.state
        return state

    def _binary_state(self) -> bool:
        layout = getattr(self._sketch(), "layout", None)
        return layout is None or tuple(layout) == (1, 2)

    def _sketch(self) -> Any:
        state = self.state
        while not hasattr(state, "layout") and hasattr(state, "state"):
            state = state.merged() if hasattr(state, "merged") else state.state
        return state

    def decode(self, flat: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Buffered (label, score) values as the batch arguments."""
        return np.asarray(flat[0::2]), floats_of(flat[1::2])

    def hot_function(
        self, buffer: Any, limit: int, flush: Callable[[], None], slow: Callable[..., Any], result: Any
    ) -> Callable[..., Any]:
        """The per-row function: an admitted label and a score in range are one ``extend``."""
        rows, truths, labels, numbers = buffer.rows, self.truths, LABEL_TYPES, NUMBER_TYPES
        low, high, extend = self.low, self.high, rows.extend
        finite_range = math.isfinite(low) and math.isfinite(high)  # [0, 1]: in range means finite

        def update(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
            try:
                ok = (
                    type(y_pred) in numbers
                    and sample_weight is w is None
                    and low <= y_pred <= high
                    and (finite_range or y_pred * 0.0 == 0.0)  # inf and nan give nan
                    and type(y_true) in labels
                    and y_true in truths
                )
            except OverflowError:  # an int beyond float range: the check says why
                ok = False
            if ok:
                extend((y_true, y_pred))
                if len(rows) >= limit:
                    flush()
                return result
            slow(y_true, y_pred, sample_weight if w is None else w)
            return result

        return update

    def fast_test(self) -> Callable[[Any, Any], bool]:
        """A side-effect-free test: is this row of an admitted label and a valid score as is?"""
        truths, types, numbers, low, high = self.truths, LABEL_TYPES, NUMBER_TYPES, self.low, self.high
        return lambda t, p: (
            type(t) in types and t in truths and type(p) in numbers and low <= p <= high and p * 0.0 == 0.0
        )

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        """``(label, score, labels to admit)``; raises :class:`InputError` as a batch would."""
        if isinstance(y_pred, dict):
            raise InputError(
                f"{self.name}: expected one score (a binary sample) on the per-row path, found a dict; "
                "pass multiclass probabilities as a 2-D batch"
            )
        if getattr(self.rules, "average", None) == "samples":
            raise InputError(
                "y_true: average='samples' needs multilabel input (a 2-D 0/1 y_true), found one binary row"
            )
        yt = label_of(y_true, "y_true")
        listed = getattr(self.rules, "labels", None)
        if listed is not None and getattr(self.rules, "labels_name_binary_classes", False):
            check_binary_classes(listed, np.asarray([yt]))
        score = number_of(y_pred, self.name)
        if self.probability and not 0.0 <= score <= 1.0:
            raise InputError(
                f"{self.name}: expected probabilities in [0, 1] (input='probability'), found {score}; "
                "pass input='score' for logits or margins"
            )
        layout = getattr(self._sketch(), "layout", None)
        if not self._binary_state():
            raise InputError(
                f"{self.name}: expected {layout[0]} score columns like earlier batches, found one score"
            )
        return yt, score, (yt,)

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        """The row's label if it is new; refused (:class:`InputError`) where the labels admitted
        with it make a set the rule refuses (a third label, strings without ``pos_label``)."""
        (label,) = labels
        if label in self.admitted:
            return []
        if self.rule.tracked:
            self.rule.positive(union(self.admitted, labels))
        return [label]

    def commit(self, new: list[Any]) -> None:
        if new:
            if self.rule.tracked:
                self.admitted = union(self.admitted, new)
            if self._binary_state():
                self.truths.add(new[0])
