"""Which label of binary ``y_true`` is the positive one: scikit-learn's rules, function by function.

scikit-learn decides the positive class of a binary problem from the whole set of labels in
``y_true``, and each function has its own rule:

* ``"greater"`` (:func:`~sklearn.metrics.roc_auc_score`, :func:`~sklearn.metrics.log_loss`): the
  greater of the two labels (``np.unique(y_true)[-1]``);
* ``"fixed"`` (:func:`~sklearn.metrics.average_precision_score`): ``pos_label`` (default 1), which
  must be one of the labels when two are present;
* ``"curve"`` (:func:`~sklearn.metrics.roc_curve`, :func:`~sklearn.metrics.precision_recall_curve`)
  and ``"calibration"`` (:func:`~sklearn.calibration.calibration_curve`): without ``pos_label`` the
  labels must lie in {0, 1} or {-1, 1} and 1 is positive; with it, ``y_true == pos_label``
  (the curves then accept any number of labels, the calibration curve two);
* ``"brier"`` (:func:`~sklearn.metrics.brier_score_loss`): as ``"curve"``, but other labels that are
  not strings take the greater one as positive.

A stream sees its labels one batch at a time, so a state keeps the labels seen so far (``seen``,
sorted) and its two groups (negative, positive) under the rule applied to them. While only one
label has been seen, the rule may change its mind when the second arrives (``{1}`` then ``{2}``:
2 becomes positive): every row then has that one label, so the state swaps its two groups
(``flip``). A set the rule refuses (a third label, strings without ``pos_label``) raises
:class:`~streammetrics.InputError` naming ``pos_label`` or ``y_true``, on every path: a batch,
a row, a merge.

Examples:
    >>> PositiveRule("greater", None).positive((1, 2))
    2
    >>> PositiveRule("fixed", 1).positive((1, 2))
    1
    >>> PositiveRule("curve", None).positive((1, 2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    streammetrics.errors.InputError: pos_label: y_true takes values [1, 2] and pos_label is not given: ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.labels import sorted_distinct
from ..errors import InputError

KINDS = ("greater", "fixed", "curve", "calibration", "brier")


class PositiveRule:
    """One function's rule for the positive label, with the metric's ``pos_label`` (``None``: unset)."""

    __slots__ = ("kind", "pos_label")

    def __init__(self, kind: str, pos_label: Any) -> None:
        assert kind in KINDS
        self.kind = kind
        self.pos_label = pos_label

    def __getstate__(self) -> tuple[str, Any]:
        return (self.kind, self.pos_label)

    def __setstate__(self, state: tuple[str, Any]) -> None:
        self.kind, self.pos_label = state

    def __repr__(self) -> str:
        return f"PositiveRule({self.kind!r}, {self.pos_label!r})"

    @property
    def tracked(self) -> bool:
        """Whether the labels seen matter (curves with a given ``pos_label`` take any labels)."""
        return not (self.kind == "curve" and self.pos_label is not None)

    def settled(self, labels: tuple[Any, ...]) -> bool:
        """Whether the positive label can no longer change once these labels are seen (two
        labels: a third is refused; or the labels do not matter). A table then never swaps its
        sides again, so the other side's sums need not be kept."""
        return not self.tracked or len(labels) == 2

    def positive(self, labels: tuple[Any, ...]) -> Any:
        """The positive label for these sorted distinct labels; raises :class:`InputError` as
        scikit-learn raises. ``None`` when no label is known yet and none is given."""
        p = self.pos_label
        if not self.tracked:
            return p
        if len(labels) > 2:
            raise InputError(
                f"y_true: expected binary labels (two distinct values at most, across every batch, "
                f"row and merge), found {list(labels[:6])}; pass 2-D scores (one column per class) for multiclass"
            )
        strings = bool(labels) and isinstance(labels[0], str)
        if self.kind == "greater":
            return p if p is not None else (labels[-1] if labels else None)
        if self.kind == "fixed":
            p = 1 if p is None else p
            if len(labels) == 2 and p not in labels:
                raise InputError(
                    f"pos_label: expected one of the labels of y_true {list(labels)}, found {p!r}"
                )
            return p
        if p is not None:
            return p
        if not strings and (set(labels) <= {0, 1} or set(labels) <= {-1, 1}):
            return 1
        if self.kind == "brier" and not strings:
            return labels[-1]
        raise InputError(
            f"pos_label: y_true takes values {list(labels)} and pos_label is not given: pass pos_label= "
            "(or labels in {0, 1} or {-1, 1})"
        )


def union(seen: tuple[Any, ...], labels: Any) -> tuple[Any, ...]:
    """The sorted distinct labels of both; raises :class:`InputError` on a mix of strings and ints."""
    if labels is seen or (type(labels) is tuple and labels == seen):  # the common case: nothing new
        return seen
    new = set(seen)
    new.update(labels)
    if len({type(x) is str for x in new}) > 1:
        raise InputError(
            f"y_true: expected labels all strings or all integers (across batches), found {sorted(map(repr, new))}"
        )
    return tuple(sorted(new))


def plan(
    rule: PositiveRule | None, seen: tuple[Any, ...], labels: tuple[Any, ...], used: Any
) -> tuple[Any, ...]:
    """``(new seen, flip the state?, flip the batch?)`` for a batch of distinct ``labels`` whose groups
    were made with ``used`` as the positive label (raises :class:`InputError` for a refused set)."""
    if rule is None or not rule.tracked or not labels:
        return seen, False, False
    new = union(seen, labels)
    if new == seen:
        positive = rule.positive(seen)
        return seen, False, (labels[0] == used) != (labels[0] == positive)
    positive = rule.positive(new)
    flip_state = False
    if len(seen) == 1:
        before = rule.positive(seen)
        flip_state = (seen[0] == before) != (seen[0] == positive)
    return new, flip_state, (labels[0] == used) != (labels[0] == positive)


def check_binary_classes(labels: list[Any], yt: np.ndarray) -> None:
    """``labels=`` naming the two classes of one score column: two of them, and every ``y_true``
    among them (raises :class:`InputError`; batches and rows alike)."""
    if len(labels) != 2:
        raise InputError(
            f"labels: expected two classes for 1-D y_proba (the probability of the greater one), "
            f"found {len(labels)}: {labels!r}"
        )
    if not len(yt):
        return
    listed = np.asarray(labels)
    if (listed.dtype.kind == "U") != (yt.dtype.kind == "U"):  # strings against ints: none listed
        outside = yt
    else:
        outside = yt[~np.isin(yt, listed)]
    if len(outside):
        found = sorted({x.item() if hasattr(x, "item") else x for x in outside[:20]}, key=repr)
        raise InputError(f"y_true: expected values among labels {labels!r}, found {found!r}")


def present_labels(yt: np.ndarray, seen: tuple[Any, ...]) -> tuple[Any, ...]:
    """The sorted distinct labels of ``yt`` as plain values, or ``seen`` itself when ``seen`` holds
    two labels and every label of ``yt`` is one of them (the common case after the first batches:
    two comparisons instead of a sort; uniting either with ``seen`` gives ``seen``)."""
    if len(seen) == 2 and len(yt) and (yt.dtype.kind == "U") == isinstance(seen[0], str):
        if bool(((yt == seen[0]) | (yt == seen[1])).all()):
            return seen
    return plain_labels(sorted_distinct(yt))


def plain_labels(values: Any) -> tuple[Any, ...]:
    """Distinct labels (a NumPy array's unique values) as sorted plain Python ints or strings."""
    return tuple(str(x) if isinstance(x, str) else int(x) for x in values)


def read_seen(data: dict[str, Any], where: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Take the optional ``"seen"`` labels out of a state dict (older states have none)."""
    from ..errors import StateError

    if not isinstance(data, dict) or "seen" not in data:
        return (), data
    data = dict(data)
    seen = data.pop("seen")
    if (
        not isinstance(seen, list)
        or len(seen) > 2
        or not all(type(x) in (int, str) for x in seen)
        or len({type(x) for x in seen}) > 1
        or seen != sorted(set(seen))
    ):
        raise StateError(f"{where}: 'seen' must be up to two sorted distinct labels, found {seen!r}")
    return tuple(seen), data
