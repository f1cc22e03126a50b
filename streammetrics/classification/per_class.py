"""The per-class 2x2 confusion matrices, ``sklearn.metrics.multilabel_confusion_matrix``.

:class:`MultilabelConfusionMatrix` reads the shared :class:`ConfusionCounts` (one-vs-rest tables
of a multiclass matrix, or the multilabel stack as is); with ``samplewise=True`` it keeps one
2x2 table per row in :class:`SampleConfusion`, a state that grows with the rows (scikit-learn's
output has one table per row: no bounded statistic can give it back).

Examples:
    >>> import streammetrics as sm
    >>> sm.MultilabelConfusionMatrix().update([0, 1, 2, 2], [0, 2, 2, 1]).compute().tolist()
    [[[3, 0], [0, 1]], [[2, 1], [1, 0]], [[1, 1], [1, 1]]]
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._core.params import check_option
from .._core.schema import Array, Schema
from .._core.state import State
from ..errors import InputError, StateError
from .base import ConfusionMetric
from .counts import ConfusionCounts

#: The per-row tables of a :class:`SampleConfusion` state dict (the rest is ConfusionCounts').
_ROWS = Schema("SampleConfusion state", rows=Array("if", ndim=3, non_negative=True))


class SampleConfusion(ConfusionCounts):
    """Multilabel confusion counts plus one ``[[tn, fp], [fn, tp]]`` table per row, in row order.

    Memory grows with the rows (4 numbers a row). A merge appends the other state's rows after
    these, so merging is associative but not commutative (the order of the tables is the order of
    the shards). A row of weight 0 is left out, as everywhere; a weighted row's table is scaled
    by its weight, as scikit-learn. Not revertible.

    Examples:
        >>> import numpy as np
        >>> s = SampleConfusion()
        >>> s.add_multilabel(np.array([[True, False]]), np.array([[True, True]]), None)
        >>> s.rows.tolist()
        [[[0, 1], [0, 1]]]
    """

    revertible = False

    def _commit(self, **values: Any) -> None:
        """The counts' change and the new row tables in one swap (see :meth:`_with_rows`)."""
        if "_rows_next" in self.__dict__:
            values["rows"] = self.__dict__["_rows_next"]
        super()._commit(**values)

    def _with_rows(self, rows: np.ndarray, change: Any) -> None:
        """Run the counts' ``change`` so that its one commit also sets ``rows`` (atomic)."""
        self.__dict__["_rows_next"] = rows
        try:
            change()
        finally:
            self.__dict__.pop("_rows_next", None)

    def reset(self) -> None:
        self._with_rows(np.zeros((0, 2, 2), dtype=np.int64), super().reset)

    def add_multiclass(self, *args: Any, **kwargs: Any) -> None:
        raise InputError("y_true: samplewise tables need multilabel (2-D indicator) input, found 1-D labels")

    def add_multilabel(
        self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None, *, sign: int = 1
    ) -> None:
        if sign < 0:
            raise TypeError("SampleConfusion cannot revert: which row tables to drop is not known")
        if weights is not None:
            keep = weights > 0  # weight 0 = leaving the row out
            y_true, y_pred, weights = y_true[keep], y_pred[keep], weights[keep]
        n_labels = y_true.shape[1]
        tp = (y_true & y_pred).sum(axis=1, dtype=np.int64)
        fp = (y_pred & ~y_true).sum(axis=1, dtype=np.int64)
        fn = (y_true & ~y_pred).sum(axis=1, dtype=np.int64)
        tn = n_labels - tp - fp - fn
        new = np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], 1)
        if weights is not None:
            new = new * weights[:, None, None]
        # the counts check the columns and change nothing if they raise
        self._with_rows(
            _concat(self.rows, new),
            lambda: super(SampleConfusion, self).add_multilabel(y_true, y_pred, weights),
        )

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, SampleConfusion)
        self._with_rows(_concat(self.rows, other.rows), lambda: super(SampleConfusion, self).merge(other))

    def scale(self, factor: float) -> None:
        self._with_rows(
            self.rows.astype(np.float64) * factor, lambda: super(SampleConfusion, self).scale(factor)
        )

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "rows": self.rows}

    def load_dict(self, data: dict[str, Any]) -> None:
        if not isinstance(data, dict) or "rows" not in data:
            raise StateError("SampleConfusion state: expected a dict with the field 'rows'")
        rows = _ROWS.read({"rows": data["rows"]})["rows"]
        rest = {key: value for key, value in data.items() if key != "rows"}
        self._with_rows(rows, lambda: super(SampleConfusion, self).load_dict(rest))
        self._check_rows()

    def check(self) -> None:
        super().check()
        _ROWS.check({"rows": self.rows})
        self._check_rows()

    def _check_rows(self) -> None:
        where = "SampleConfusion state"
        if self.rows.shape[1:] != (2, 2):
            raise StateError(f"{where}: rows must have shape (n, 2, 2), found {self.rows.shape}")
        if len(self.rows) > self._n:
            raise StateError(f"{where}: {len(self.rows)} row tables for n_samples={self._n}")
        if self.mode not in (None, "multilabel") or (self.mode is None and len(self.rows)):
            raise StateError(f"{where}: row tables need multilabel counts, found mode={self.mode!r}")
        if self.rows.dtype == np.int64 and self.matrix.dtype == np.int64 and self.mode == "multilabel":
            if not np.array_equal(self.rows.sum(axis=0), self.matrix.sum(axis=0)):
                raise StateError(f"{where}: the row tables do not add up to the per-label tables")


def _concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    dtype = np.float64 if (a.dtype.kind == "f" or b.dtype.kind == "f") else np.int64
    return np.concatenate([a.astype(dtype), b.astype(dtype)])


class MultilabelConfusionMatrix(ConfusionMetric):
    """One 2x2 table ``[[tn, fp], [fn, tp]]`` per label, ``sklearn.metrics.multilabel_confusion_matrix``.

    A metric of its own beside :class:`~streammetrics.ConfusionMatrix` (as scikit-learn has two
    functions): its output is always ``(n, 2, 2)``, for multiclass input (label c against the
    rest, in label order) as for multilabel input (one table per column), where
    ``ConfusionMatrix`` gives a K x K matrix for multiclass input. It shares the confusion counts
    of the other confusion metrics in a collection. ``samplewise=True`` gives one table per row
    instead (multilabel input only), kept in a state that grows with the rows.

    Args:
        samplewise: ``False`` (default): one table per label, summed over rows; ``True``: one table per
            row (over the labels), in the order the rows arrived (a merge appends the other's rows);
            multilabel input only. Memory then grows with the rows.
        labels: The labels, in the order of the tables: for multiclass input their values (``None``,
            default: every label of the data, sorted; a list chooses and orders them, rows of other labels
            counting as negatives), for multilabel input column indices, which pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.MultilabelConfusionMatrix(samplewise=True)
        >>> m.update([[1, 0, 1], [0, 1, 0]], [[1, 0, 0], [0, 1, 0]]).compute().tolist()
        [[[1, 0], [1, 1]], [[2, 0], [0, 1]]]
    """

    higher_is_better: ClassVar[bool | None] = None

    def __init__(
        self,
        samplewise: bool = False,
        *,
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.samplewise = check_option("samplewise", samplewise, (False, True))
        super().__init__(
            labels=labels, unlisted=unlisted, pos_label=pos_label, threshold=threshold, input=input
        )

    def get_config(self) -> dict[str, Any]:
        return {"samplewise": self.samplewise, **self._base_config()}

    def _make_state(self) -> ConfusionCounts:
        return SampleConfusion() if self.samplewise else ConfusionCounts()

    def _check_mode(self, mode: str) -> None:
        if mode == "multiclass" and self.samplewise:
            raise InputError(
                "y_true: samplewise=True needs multilabel (2-D indicator) input, found 1-D labels"
            )

    def _unapply(self, state: ConfusionCounts, batch: tuple[Any, ...] | None) -> None:
        if isinstance(state, SampleConfusion):
            raise TypeError(
                "MultilabelConfusionMatrix(samplewise=True) cannot revert: its per-row tables are "
                "not exactly invertible (which rows to drop is not known)"
            )
        super()._unapply(state, batch)

    @property
    def classes(self) -> list[Any]:
        """The labels (multiclass) or column indices (multilabel), in the order of the tables."""
        return self._view(self._state).labels.tolist()

    def _compute(self, state: ConfusionCounts) -> np.ndarray:
        if isinstance(state, SampleConfusion):
            return state.rows.copy()
        if state.mode == "multilabel":
            return state.matrix.copy()
        tp, fp, fn, tn = self._view(state).one_vs_rest()
        out = np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], 1)
        # Counts stay integers unless weighted, as scikit-learn's.
        return np.rint(out).astype(np.int64) if not state.weighted else out
