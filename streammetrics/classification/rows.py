"""One-row checks of the confusion family (the per-sample fast path; see :mod:`streammetrics._core.onerow`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.labels import LabelSet
from .._core.rowvalues import LABEL_TYPES, NUMBER_TYPES, label_of, number_of
from ..errors import InputError


def _labels_of(state: Any) -> Any:
    """The :class:`LabelSet` of a confusion state, looking through window/decay wrappers."""
    while True:
        labels = getattr(state, "labels", None)
        if isinstance(labels, LabelSet):
            return labels
        if hasattr(state, "merged"):
            state = state.merged()
        elif hasattr(state, "state"):
            state = state.state
        else:
            return None


def _mode_of(state: Any) -> Any:
    while not hasattr(state, "mode") and hasattr(state, "state"):
        state = state.state
    return getattr(state, "mode", None)


class ConfusionRows:
    """Checks one (y_true, y_pred) row against a confusion metric's rules."""

    #: Label pairs as pair codes (with ``threshold=``, the score is turned into its label first).
    encoding = "codes"

    def __init__(self, rules: Any, state: Any) -> None:
        self.rules = rules
        # ``unlisted="refuse"``: the listed labels only (a row of another is refused, as in a batch);
        # ``"count"``: the state counts every label, ``labels=`` chooses what is reported.
        self.fixed = rules.labels is not None and rules.unlisted == "refuse"
        self.threshold = rules.threshold
        self.probability = rules.input == "probability"
        self.pos, self.neg = rules.pos_label, rules._negative_label
        self.known: set[Any] = set()
        self.kind: type | None = None
        self._labels: LabelSet | None = None
        self._mode: Any = None
        self.refresh(state)

    def refresh(self, state: Any) -> bool:
        """Re-read the labels of ``state`` (in place: the hot path holds this very set); ``False``
        when nothing changed (the same state with the same, immutable, label set: the common case
        after a batch that brought no new label)."""
        if state is self.__dict__.get("state"):
            # the plain counts state (every batch update ends here): two attribute reads
            d = state.__dict__
            if d.get("labels") is self._labels and self._labels is not None and d.get("mode") == self._mode:
                return False
        labels = _labels_of(state)
        mode = _mode_of(state)
        if state is self.__dict__.get("state") and labels is self._labels and mode == self._mode:
            return False
        self._labels, self._mode = labels, mode
        known = (
            set(self.rules.labels) if self.fixed else set(labels.tolist()) if labels is not None else set()
        )
        self.state = state
        self.known.clear()
        if mode != "multilabel":  # else every row takes the checked path, which says why
            self.known.update(known)
        self.kind = (str if isinstance(next(iter(known)), str) else int) if known else None
        return True

    def decode_pairs(self, t: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The batch arguments of coded pairs. With ``threshold=`` a pair holds the predicted
        label; the batch gets a score on the right side of the threshold (the threshold itself
        for the positive label, the float just below it for the negative one)."""
        if self.threshold is None:
            return t, p
        below = np.nextafter(self.threshold, -np.inf)
        return t, np.where(p == self.pos, self.threshold, below) if len(p) else np.zeros(0)

    def hot_function(
        self, buffer: Any, limit: int, flush: Callable[[], None], slow: Callable[..., Any], result: Any
    ) -> Callable[..., Any] | None:
        """With ``threshold=``: a valid score becomes its label, then the pair code is appended."""
        if self.threshold is None:
            return None  # the buffer's own pair-code function
        codes, append, get = buffer.codes, buffer.codes.append, buffer.pairs.get
        pos, neg, t, numbers = self.pos, self.neg, self.threshold, NUMBER_TYPES

        if self.probability:  # in [0, 1] means finite: one range test

            def update_probability(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
                if type(y_pred) in numbers and 0.0 <= y_pred <= 1.0 and sample_weight is w is None:
                    try:
                        append(get((y_true, pos if y_pred >= t else neg)))
                    except TypeError:  # unknown pair (None appended), or an unhashable label
                        pass
                    else:
                        if len(codes) >= limit:
                            flush()
                        return result
                slow(y_true, y_pred, sample_weight if w is None else w)
                return result

            return update_probability

        def update(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
            if type(y_pred) in numbers and sample_weight is w is None:
                try:  # x * 0.0 is 0 exactly when x is finite (inf and nan give nan)
                    append(get((y_true, pos if y_pred >= t else neg)) if y_pred * 0.0 == 0.0 else None)
                except (TypeError, OverflowError):  # unknown pair (None appended), unhashable, huge int
                    pass
                else:
                    if len(codes) >= limit:
                        flush()
                    return result
            slow(y_true, y_pred, sample_weight if w is None else w)
            return result

        return update

    def pusher(self, buffer: Any) -> Callable[[Any, Any], bool] | None:
        """A collection's push with ``threshold=``: the score's label, then its pair code."""
        if self.threshold is None:
            return None
        append, get = buffer.codes.append, buffer.pairs.get
        pos, neg, t, numbers = self.pos, self.neg, self.threshold, NUMBER_TYPES
        low, high = (0.0, 1.0) if self.probability else (-math.inf, math.inf)

        def push(y_true: Any, y_pred: Any) -> bool:
            try:
                if not (type(y_pred) in numbers and low <= y_pred <= high and y_pred * 0.0 == 0.0):
                    return False
                code = get((y_true, pos if y_pred >= t else neg))
            except (TypeError, OverflowError):  # unhashable, or an int beyond float range
                return False
            if code is None:
                return False
            append(code)
            return True

        return push

    def fast_test(self) -> Callable[[Any, Any], bool]:
        """A side-effect-free test: is this row of known labels (or a valid score) as is?"""
        known, types = self.known, LABEL_TYPES
        if self.threshold is None:
            return lambda t, p: type(t) in types and type(p) in types and t in known and p in known
        lo, hi = (0.0, 1.0) if self.probability else (-math.inf, math.inf)
        pos, neg, numbers = self.pos, self.neg, NUMBER_TYPES
        return lambda t, p: (
            type(t) in types
            and t in known
            and type(p) in numbers
            and lo <= p <= hi
            and -math.inf < p < math.inf
            and pos in known
            and neg in known
        )

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        """``(y_true, y_pred as stored, labels to check)``; raises :class:`InputError`."""
        self.rules._check_mode("multiclass")  # e.g. average="samples" needs multilabel input
        if _mode_of(self.state) == "multilabel":
            raise InputError(
                "y_true: expected a 2-D multilabel indicator like earlier batches, found one label"
            )
        yt = label_of(y_true, "y_true")
        if self.threshold is None:
            yp = self._argmax(y_pred) if isinstance(y_pred, dict) else label_of(y_pred, "y_pred")
            return yt, yp, (yt, yp)
        score = y_pred.get(self.pos, 0.0) if isinstance(y_pred, dict) else y_pred
        score = number_of(score, "y_pred")
        if self.probability and not 0.0 <= score <= 1.0:
            raise InputError(
                f"y_pred: expected probabilities in [0, 1] (input='probability'), found {score}; "
                "pass input='score' for logits or margins"
            )
        label = self.pos if score >= self.threshold else self.neg
        return yt, label, (yt, label)

    def _argmax(self, proba: dict[Any, Any]) -> Any:
        if not proba:
            raise InputError("y_pred: expected a non-empty dict of class probabilities, found {}")
        best, best_p = None, -math.inf
        for label, p in proba.items():
            p = number_of(p, "y_pred")
            if self.probability and not 0.0 <= p <= 1.0:
                raise InputError(f"y_pred: expected probabilities in [0, 1] (input='probability'), found {p}")
            if p > best_p:
                best, best_p = label, p
        return label_of(best, "y_pred")

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        """Check the row's labels against the kind and the label rules; return the new ones."""
        new: list[Any] = []
        for label, name in zip(labels, ("y_true", "y_pred"), strict=False):
            if label in self.known or label in new:
                continue
            kind = str if type(label) is str else int
            seen = self.kind if self.kind is not None else (type(new[0]) if new else None)
            if seen is not None and kind is not seen:
                raise InputError(
                    f"{name}: expected {seen.__name__} labels like those seen so far, found "
                    f"{kind.__name__} labels such as {label!r}"
                )
            if self.fixed:
                raise InputError(
                    f"{name}: expected labels in the fixed list {self.rules.labels}, found [{label!r}]"
                )
            new.append(label)
        if new:
            grown = sorted(self.known | set(new))
            self.rules._check_labels(LabelSet(np.array(grown)))
        return new

    def commit(self, new: list[Any]) -> None:
        if new:
            self.known.update(new)
            self.kind = str if type(new[0]) is str else int
