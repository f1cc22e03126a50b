"""``labels=`` as scikit-learn reads it: a view of the confusion counts on chosen labels, in order.

The state counts every label the data holds; a metric given ``labels=`` reads it through
:class:`LabelView`, whose labels are the chosen ones in the chosen order (a label never seen
has zero counts) and whose per-label ``(tp, fp, fn, tn)`` still count the rows of the other
labels (a row whose truth is another label and whose prediction is a chosen one is a false
positive of it), as scikit-learn's ``precision_recall_fscore_support(labels=...)``. Its
``matrix`` is the chosen labels' block of the confusion matrix (rows holding another label
dropped), as ``confusion_matrix(labels=...)``.

Examples:
    >>> import numpy as np
    >>> s = ConfusionCounts()
    >>> s.add_multiclass(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 1]), None)
    >>> view = LabelView(s, [2, 0])
    >>> view.matrix.tolist(), [a.tolist() for a in view.one_vs_rest()]
    ([[1, 0], [0, 1]], [[1.0, 1.0], [1.0, 0.0], [1.0, 0.0], [1.0, 3.0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.labels import LabelSet
from .counts import ConfusionCounts


class LabelView(ConfusionCounts):
    """Read-only confusion counts of ``full`` restricted to ``labels`` (multiclass), or relabelled
    (multilabel: the columns were picked when parsed, the view names them).

    Only what the formulas read is defined: ``mode``, ``labels``, ``matrix`` (or ``margins``), ``n_samples``,
    ``total_weight``, ``one_vs_rest()``, ``samplewise()``. It is never updated, merged or saved.
    """

    def __init__(self, full: ConfusionCounts, labels: list[Any]) -> None:  # no reset: a view
        self._fixed_labels = list(labels)
        self.full = full
        self.mode = full.mode
        self.labels = LabelSet(labels, fixed=True)
        self._n = full.n_samples
        self.codes, self.code_weights = full.codes, full.code_weights
        if full.mode == "multilabel":
            self.matrix, self.margins = full.matrix, None
            self._ovr: tuple[np.ndarray, ...] | None = None
            return
        pos = _positions(full.labels, self.labels)
        seen = pos >= 0
        k = len(self.labels)
        if full.margins is not None:
            # per-class counts: the chosen labels' (a subset of the data's labels would need the
            # rows holding others dropped, which only the matrix knows: metrics reading the
            # matrix refuse such label sets when the counts take this form)
            self.matrix = None
            self.margins = np.zeros((3, k), dtype=full.margins.dtype)
            self.margins[:, seen] = full.margins[:, pos[seen]]
        else:
            sub = np.zeros((k, k), dtype=full.matrix.dtype)
            sub[np.ix_(seen, seen)] = full.matrix[np.ix_(pos[seen], pos[seen])]
            self.matrix, self.margins = sub, None
        tp, fp, fn, tn = full.one_vs_rest()
        total = full.total_weight
        out = []
        for values, absent in zip((tp, fp, fn, tn), (0.0, 0.0, 0.0, total), strict=True):
            picked = np.full(k, absent, dtype=np.float64)
            picked[seen] = values[pos[seen]]
            out.append(picked)
        self._ovr = tuple(out)

    @property
    def total_weight(self) -> float:
        return self.full.total_weight

    @property
    def covers_data(self) -> bool:
        """Whether every label the data holds is among the chosen ones."""
        if self.mode != "multiclass":
            return True
        return bool((_positions(self.labels, self.full.labels) >= 0).all())

    def one_vs_rest(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if self._ovr is None:
            return self.full.one_vs_rest()
        return self._ovr  # type: ignore[return-value]


def _positions(haystack: LabelSet, needles: LabelSet) -> np.ndarray:
    """For each of ``needles``' labels its index in ``haystack``, -1 where absent."""
    if not len(needles):
        return np.empty(0, dtype=np.int64)
    if not len(haystack) or haystack.kind != needles.kind:
        return np.full(len(needles), -1, dtype=np.int64)
    return haystack._lookup(needles.values)


def view(state: ConfusionCounts, labels: list[Any] | None) -> ConfusionCounts:
    """``state`` through ``labels=`` (the state itself when no labels were given or nothing was seen)."""
    if labels is None or state.mode is None:
        return state
    return LabelView(state, labels)
