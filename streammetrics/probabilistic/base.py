"""Base of the probabilistic family: how probabilities enter (binary, multiclass, logits).

``update(y_true, y_proba, sample_weight=None)``: the truth and class probabilities (or logits
with ``input="score"``); the family derives one-hot truth and a probability matrix once per
batch (kept in the batch's :class:`~streammetrics._core.inputs.Inputs`, so a collection's members
with the same options share them), and a binary row is a label and one score
(:class:`~streammetrics.ranking.rows.ScoreRows`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs
from .._core.labels import check_label_list
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.params import check_option, plain
from ..errors import InputError
from ..ranking.positive import PositiveRule, check_binary_classes, present_labels, union
from ..ranking.rows import ScoreRows

INPUTS = ("probability", "score")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1.0 + np.exp(-np.abs(x))))


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


class _ProbabilityMetric(OneRowMixin, Metric[Any]):
    """Shared input handling: ``update(y_true, y_proba, sample_weight=None)``.

    Binary: 1-D ``y_true`` (two labels at most; which is positive follows scikit-learn's rule for
    the metric's function, :mod:`streammetrics.ranking.positive`) and 1-D probabilities of the
    positive class. Multiclass: 1-D ``y_true`` with labels in ``labels``
    (or ints ``0..K-1``) and a 2-D ``(n, K)`` array of class probabilities whose rows sum to 1.
    ``input="score"`` takes logits instead (sigmoid for 1-D, softmax for 2-D).
    """

    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_proba")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    prediction: ClassVar[str | None] = "scores"
    #: scikit-learn's rule for the positive label of binary input (:mod:`streammetrics.ranking.positive`).
    positive_rule: ClassVar[str] = "greater"
    #: Whether a 2-D 0/1 ``y_true`` (one column per class) is taken, as scikit-learn's function does.
    one_hot_truth: ClassVar[bool] = False
    #: Whether two ``labels=`` with 1-D probabilities name the classes (the greater one positive,
    #: every ``y_true`` one of them), as :func:`sklearn.metrics.log_loss` reads them.
    labels_name_binary_classes: ClassVar[bool] = False

    def __init__(self, *, input: str = "probability", pos_label: Any = None, labels: Any = None) -> None:
        self.input = check_option("input", input, INPUTS)
        self.pos_label = plain(pos_label)
        self.labels = None if labels is None else plain(list(labels))
        if self.labels is not None:
            check_label_list(self.labels)  # one kind, within int64
        if self.labels is not None and len(set(map(repr, self.labels))) != len(self.labels):
            raise ValueError(f"labels: expected distinct labels, found {self.labels!r}")
        super().__init__()

    def _base_config(self) -> dict[str, Any]:
        return {"input": self.input, "pos_label": self.pos_label, "labels": self.labels}

    def get_config(self) -> dict[str, Any]:
        return self._base_config()

    def _validate(self, y_true: Any, y_proba: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        return self._parse(Inputs((y_true, y_proba), sample_weight))

    def _row_checker(self, state: Any) -> Any:
        return ScoreRows(self, state)

    def _rule(self) -> PositiveRule:
        # kept with what decides it (read on every batch; the options are plain attributes)
        labels = self.labels
        decided_by = (self.positive_rule, self.pos_label, None if labels is None else tuple(labels))
        cached = self.__dict__.get("_rule_cache")
        if cached is not None and cached[0] == decided_by:
            return cached[1]
        pos = self.pos_label
        if (
            pos is None
            and self.labels_name_binary_classes
            and self.labels is not None
            and len(self.labels) == 2
        ):
            pos = sorted(self.labels)[-1]  # scikit-learn binarizes on the sorted labels
        rule = PositiveRule(self.positive_rule, pos)
        shown = None if labels is None else tuple(map(repr, labels))
        self.__dict__["_rule_cache"] = (decided_by, rule, repr(rule), shown)
        return rule

    def _probabilities_key(self, seen: tuple[Any, ...]) -> tuple[Any, ...]:
        """What decides a batch's derived probabilities (see :meth:`_probabilities`)."""
        rule = self._rule()
        _, _, shown_rule, shown_labels = self.__dict__["_rule_cache"]
        return ("probabilities", self.input, shown_rule, shown_labels, rule.kind, repr(seen))

    def _indicator_truth(self, inputs: Inputs) -> tuple[Any, ...]:
        """A 2-D 0/1 ``y_true`` (one-hot, or several ones per row as scikit-learn's
        ``LabelBinarizer`` passes them) with 2-D ``y_proba`` of the same shape."""
        onehot = v.as_indicator(inputs.array(0, "y_true"), "y_true").astype(np.float64)
        p = inputs.probabilities(1, "y_proba") if self.input == "probability" else inputs.floats(1, "y_proba")
        if p.shape != onehot.shape:
            raise InputError(
                f"y_proba: expected shape {onehot.shape} (the shape of the 2-D y_true), found {p.shape}"
            )
        if self.input == "score":
            p = _softmax(p)
        else:
            inputs.check_rows_sum_to_one(1, p, "y_proba")
        return onehot, p, len(onehot), False, (), None

    def _probabilities(self, inputs: Inputs) -> tuple[Any, ...]:
        """(one-hot truth (n, K) float, probabilities (n, K), weights or None, n, binary?, the
        batch's distinct binary labels, the positive label used).

        Kept per batch under what decides it (options, rule, labels seen), so the members of a
        collection that agree on all of it derive them once.
        """
        seen = tuple(getattr(self._state, "seen", ()))
        key = self._probabilities_key(seen)
        onehot, p, n, binary, present, used = inputs.derived(
            key, lambda: self._derive_probabilities(inputs, seen)
        )
        return onehot, p, inputs.weights(n), n, binary, present, used

    def _settled(self, present: tuple[Any, ...]) -> bool:
        """Whether the batch alone settles the positive label of any state it joins (both binary
        labels present, see :meth:`SumTable.settle`): the other side's sums are then not
        computed. The batch's own labels decide, not this metric's state: a window or a
        collection may add the batch to another state."""
        return self._rule().settled(present)

    def _derive_probabilities(self, inputs: Inputs, seen: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        if self.one_hot_truth and inputs.array(0, "y_true").ndim == 2:
            return self._indicator_truth(inputs)
        yt = inputs.labels(0, "y_true")
        if self.input == "probability":
            p = inputs.probabilities(1, "y_proba")
        else:
            p = inputs.floats(1, "y_proba")
        v.check_length(p, len(yt), "y_proba")
        if p.ndim == 1:
            if self.labels_name_binary_classes and self.labels is not None:
                check_binary_classes(self.labels, yt)
            if self.input == "score":
                p = _sigmoid(p)
            rule = self._rule()
            w = inputs.weights(len(yt))  # a row of weight 0 is a row left out: its label is not seen
            present = present_labels(yt if w is None else yt[w > 0], seen) if rule.tracked else ()
            used = rule.positive(union(seen, present)) if rule.tracked else rule.pos_label
            positive = yt == used if used is not None else np.zeros(len(yt), bool)
            n = len(yt)
            onehot, both = np.empty((n, 2)), np.empty((n, 2))  # columns: negative, positive
            onehot[:, 1] = positive
            np.subtract(1.0, onehot[:, 1], out=onehot[:, 0])
            both[:, 1] = p
            np.subtract(1.0, p, out=both[:, 0])
            return onehot, both, n, True, present, used
        k = p.shape[1]
        if self.input == "score":
            p = _softmax(p)
        else:
            inputs.check_rows_sum_to_one(1, p, "y_proba")
        idx = _class_index(yt, k, self.labels)
        onehot = np.zeros((len(yt), k))
        onehot[np.arange(len(yt)), idx] = 1.0
        return onehot, p, len(yt), False, (), None


def _class_index(yt: np.ndarray, k: int, labels: list[Any] | None) -> np.ndarray:
    if labels is not None:
        if len(labels) != k:
            raise InputError(f"y_proba: expected {len(labels)} columns (one per label), found {k}")
        lab = np.asarray(labels)
        order = np.argsort(lab, kind="stable")
        idx = (
            order[np.minimum(np.searchsorted(lab, yt, sorter=order), k - 1)] if len(yt) else np.zeros(0, int)
        )
        bad = lab[idx] != yt
        if bad.any():
            raise InputError(f"y_true: expected labels in {labels}, found {yt[bad][:5].tolist()}")
        return idx
    if yt.dtype.kind != "i":
        raise InputError(
            "y_true: expected integer classes 0..K-1 for 2-D probabilities, found strings; pass labels="
        )
    if yt.size and (yt.min() < 0 or yt.max() >= k):
        bad = yt[(yt < 0) | (yt >= k)][0]
        raise InputError(f"y_true: expected classes in 0..{k - 1} (one per column), found {bad}")
    return yt


def _wsum(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(values.sum() if w is None else np.dot(w, values))
