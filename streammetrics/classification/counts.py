"""The confusion-counts state shared by every confusion-matrix metric.

One state holds either a multiclass (binary included) confusion matrix over a growing or fixed
label set, or a multilabel stack of 2x2 matrices plus a histogram of per-sample
(tp, fp, fn) triples — the sufficient statistic for ``average="samples"``. Counts are int64;
the first weighted batch turns them into float64 weighted counts.

Past :data:`DENSE_CLASSES` classes a multiclass state keeps each class's ``(tp, fp, fn)``
(``margins``, 3 x K) instead of the K x K matrix (``matrix`` is then ``None``): every formula but
the matrix itself and weighted kappa reads only these (accuracy, precision, recall, F-scores,
Jaccard, the rates, balanced accuracy, MCC, unweighted kappa), as scikit-learn's
``multilabel_confusion_matrix`` does for any number of classes. A state built for a metric that
reads the matrix (``keeps_matrix=True``) keeps it up to :data:`MAX_CLASSES`, and the metric
refuses more (``ConfusionMetric._check_labels``). The change is one way: a state that reverts
below the limit keeps its margins (the off-diagonal cells are gone).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.labels import LabelSet
from .._core.schema import Array, Check, Int, OneOf, Schema, exact_total
from .._core.state import State
from .._core.validation import check_total_weight
from ..errors import InputError, MergeError, StateError

LabelCheck = Callable[[LabelSet], None]


def _matrix_shape(values: Any) -> tuple[int, ...]:
    k = len(values["labels"])
    return (k, 2, 2) if values["mode"] == "multilabel" else (k, k)


def _margins_shape(values: Any) -> tuple[int, ...]:
    return (3, len(values["labels"]))


#: The fields of a state dict (labels are checked further by :meth:`LabelSet.from_list`).
_FIELDS = Schema(
    "ConfusionCounts state",
    mode=OneOf(None, "multiclass", "multilabel"),
    labels=Check("a list of labels", lambda v: isinstance(v, list)),
    matrix=Array("if", shape=_matrix_shape, non_negative=True, optional=True),
    margins=Array("if", shape=_margins_shape, non_negative=True, optional=True),
    codes=Array("i", ndim=1),
    code_weights=Array("if", shape=("codes",), non_negative=True),
    n_samples=Int(low=0),
)


#: Up to this many labels, a weighted matrix's per-label true negatives are summed from their own
#: cells (through a (K, K, K) float64 array: 256 KiB at 32); beyond, they are the total's rest.
EXACT_TN_LABELS = 32
#: The most classes of a dense multiclass confusion matrix: 2^14 = 16,384, a table of 2 GiB
#: (int64). Beyond, a state keeps each class's (tp, fp, fn) (:attr:`ConfusionCounts.margins`);
#: a metric that needs the matrix refuses more (:func:`check_classes`): a dense table of 30,000
#: classes would take 7 GiB a batch, and the process killed.
MAX_CLASSES = 1 << 14
#: Past this many classes a state whose metrics read no matrix keeps per-class margins: a batch
#: then costs three ``bincount`` of K cells, not one of K x K (1,000 classes, 10,000 rows: 0.06 ms
#: against 0.32 ms; 3,000 classes: 0.08 ms against 11 ms), and the state 3 K numbers, not K^2.
DENSE_CLASSES = 512


def dense_limit(keeps_matrix: bool) -> int:
    """The most classes a state keeps as a matrix: :data:`MAX_CLASSES` where a metric reading the
    matrix reads it, else :data:`DENSE_CLASSES`."""
    return MAX_CLASSES if keeps_matrix else min(DENSE_CLASSES, MAX_CLASSES)


def check_classes(k: int, error: type[Exception], name: str, needs: str = "a dense confusion matrix") -> None:
    """Refuse (``error``) a label set of more than :data:`MAX_CLASSES` classes, for ``needs``."""
    if k > MAX_CLASSES:
        raise error(
            f"{name}: expected at most {MAX_CLASSES:,} classes for {needs} (a {MAX_CLASSES:,} x "
            f"{MAX_CLASSES:,} table of counts holds {MAX_CLASSES**2 * 8 / 2**30:.3g} GiB), found {k:,}; "
            "accuracy, precision, recall, F-scores, "
            "Jaccard, balanced accuracy, MCC and unweighted kappa take any number of classes "
            "(they keep each class's counts, not the matrix)"
        )


class ConfusionCounts(State):
    """Confusion counts: a K x K matrix (multiclass) or L 2x2 matrices (multilabel).

    Rows of the multiclass matrix are true labels and columns predicted labels, in the order of
    :attr:`labels`, as :func:`sklearn.metrics.confusion_matrix`. The multilabel matrices are
    ``[[tn, fp], [fn, tp]]`` per label, as :func:`sklearn.metrics.multilabel_confusion_matrix`.

    Examples:
        >>> import numpy as np
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array(["a", "b", "b"]), np.array(["a", "a", "b"]), None)
        >>> s.labels.tolist(), s.matrix.tolist()
        (['a', 'b'], [[1, 0], [1, 1]])
    """

    revertible = True
    overflowing = ()  # (counts of weights of at most 2^255 a batch)
    commits_whole = True  # (a revert cannot undo the change from a matrix to per-class margins)

    def __init__(self, labels: Any = None, *, keeps_matrix: bool = False) -> None:
        self._fixed_labels = None if labels is None else list(labels)
        #: Whether a metric reading the matrix reads this state: it stays a matrix up to
        #: :data:`MAX_CLASSES` classes, not only :data:`DENSE_CLASSES`.
        self._keeps_matrix = keeps_matrix
        self.reset()

    def _dense_limit(self) -> int:
        """The most classes this state keeps as a matrix."""
        return dense_limit(self._keeps_matrix)

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {"labels": self._fixed_labels}

    def reset(self) -> None:
        fixed = self._fixed_labels is not None
        labels = LabelSet(self._fixed_labels, fixed=fixed) if fixed else LabelSet()
        k = len(labels)
        wide = k > self._dense_limit()
        self._commit(
            mode=None,
            labels=labels,
            matrix=None if wide else np.zeros((k, k), dtype=np.int64),
            margins=np.zeros((3, k), dtype=np.int64) if wide else None,
            codes=np.empty(0, dtype=np.int64),
            code_weights=np.empty(0, dtype=np.int64),
            _n=0,
        )

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def total_weight(self) -> float:
        """Sum of the weights of all rows (the number of rows when unweighted)."""
        if self.mode == "multilabel":
            return float(self.code_weights.sum())
        if self.margins is not None:  # each row is a tp or a fn of its true class
            return float(self.margins[0].sum() + self.margins[2].sum())
        return float(self.matrix.sum())

    @property
    def n_labels(self) -> int:
        return self.margins.shape[1] if self.margins is not None else self.matrix.shape[0]

    @property
    def dense(self) -> bool:
        """Whether the multiclass counts are a K x K matrix (not each class's (tp, fp, fn))."""
        return self.margins is None

    @property
    def weighted(self) -> bool:
        """Whether the counts are float64 weighted counts (not int64 row counts)."""
        return (self.matrix if self.margins is None else self.margins).dtype.kind == "f"

    def class_totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Multiclass: per label, as float64, the weight of its rows predicted right, of its true
        rows and of the rows predicted as it (the diagonal and the two margins of the matrix)."""
        if self.margins is not None:
            tp, fp, fn = self.margins.astype(np.float64)
            return tp, tp + fn, tp + fp
        m = self.matrix.astype(np.float64)
        return np.diag(m).copy(), m.sum(axis=1), m.sum(axis=0)

    # ------------------------------------------------------------------ multiclass
    def add_multiclass(
        self,
        y_true: np.ndarray,
        y_pred: np.ndarray,
        weights: np.ndarray | None,
        *,
        sign: int = 1,
        check_labels: LabelCheck | None = None,
        repeats: np.ndarray | None = None,
    ) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) a batch of label pairs.

        ``repeats`` (int64, one per pair): pair ``i`` stands for ``repeats[i]`` rows, and its
        weight (when given) is the sum of theirs: a batch reduced to its distinct pairs on a
        device (:mod:`streammetrics._core.tensors`) adds what its rows would.
        """
        if self.mode == "multilabel":
            raise InputError(
                "y_true: expected a 2-D multilabel indicator like earlier batches, found 1-D labels"
            )
        n_rows = len(y_true) if repeats is None else int(repeats.sum())
        if weights is not None and len(weights) and weights.min() == 0:
            keep = weights > 0  # zero weight = leaving the row out, labels included
            y_true, y_pred, weights = y_true[keep], y_pred[keep], weights[keep]
            repeats = None if repeats is None else repeats[keep]
        # each array grows the label set in turn; y_true is encoded again only if y_pred grew it
        idx_t, grown_t = self.labels.encode(y_true, "y_true")
        labels = grown_t or self.labels
        idx_p, grown_p = labels.encode(y_pred, "y_pred")
        if grown_t is not None or grown_p is not None:
            if sign < 0:
                raise InputError("y_true: cannot revert rows with labels that were never added")
            if grown_p is not None:
                labels = grown_p
                idx_t, _ = labels.encode(y_true, "y_true")
        if check_labels is not None:
            check_labels(labels)
        k = len(labels)
        wide = k > self._dense_limit() or self.margins is not None
        if wide:  # each class's (tp, fp, fn): three bincounts of K cells, never K x K
            w = weights if weights is not None else repeats
            counts = class_counts(idx_t, idx_p, k, None if w is None else w[None])[0]
            current = self._margins_over(labels)
        else:
            flat = idx_t * k + idx_p if k > 1 else idx_t
            w = weights if weights is not None else repeats
            counts = np.bincount(flat, weights=w, minlength=k * k).reshape(k, k)
            current = self._reindexed(labels) if labels is not self.labels else self.matrix
        if weights is None and counts.dtype.kind == "f":  # counts: int64, as rows one by one give
            counts = counts.astype(np.int64)  # (sums of whole repeats: exact)
        if sign > 0:
            new = _add(current, counts)
        else:
            new = _subtract(current, counts)
            labels, new = self._pruned(labels, new, wide)
        self._commit(
            labels=labels,
            matrix=None if wide else new,
            margins=new if wide else None,
            mode="multiclass" if n_rows else self.mode,
            _n=self._n + sign * n_rows,
        )

    def in_margins(self) -> ConfusionCounts:
        """This state holding each class's (tp, fp, fn), whose later updates keep that form at
        any number of classes: itself if it does already (or is multilabel), else a new state
        (a shallow copy that commits its own fields: states never change what they hold)."""
        if self.margins is not None or self.mode == "multilabel":
            return self
        out = copy.copy(self)
        out._commit(matrix=None, margins=self._margins_over(self.labels))
        return out

    def _margins_over(self, labels: LabelSet) -> np.ndarray:
        """This state's (tp, fp, fn) per class over ``labels`` (a superset of its own)."""
        margins = self.margins if self.margins is not None else margins_of(self.matrix)
        if labels is self.labels:
            return margins
        out = np.zeros((3, len(labels)), dtype=margins.dtype)
        if margins.size:
            out[:, self.labels.positions_in(labels)] = margins
        return out

    def _reindexed(self, labels: LabelSet) -> np.ndarray:
        if labels is self.labels:
            return self.matrix  # (never written in place: states commit new arrays)
        k = len(labels)
        out = np.zeros((k, k), dtype=self.matrix.dtype)
        if self.matrix.size:
            pos = self.labels.positions_in(labels)
            out[np.ix_(pos, pos)] = self.matrix
        return out

    def _pruned(
        self, labels: LabelSet, counts: np.ndarray, margins: bool = False
    ) -> tuple[LabelSet, np.ndarray]:
        """Drop discovered labels whose counts fell to zero (so revert undoes update exactly):
        ``counts`` is the K x K matrix, or with ``margins`` each class's (tp, fp, fn)."""
        if labels.fixed:
            return labels, counts
        alive = counts.any(axis=0) if margins else (counts.sum(axis=0) != 0) | (counts.sum(axis=1) != 0)
        if alive.all():
            return labels, counts
        kept = LabelSet(labels.values[alive], distinct=True)
        return kept, counts[:, alive] if margins else counts[np.ix_(alive, alive)]

    # ------------------------------------------------------------------ multilabel
    def add_multilabel(
        self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None, *, sign: int = 1
    ) -> None:
        """Add or remove a batch of 0/1 indicator rows (bool arrays of shape (n, L))."""
        if self.mode == "multiclass":
            raise InputError("y_true: expected 1-D labels like earlier batches, found a 2-D indicator")
        n_rows, n_labels = y_true.shape
        if n_rows == 0 and self.mode is None:
            return
        expected = (
            len(self._fixed_labels)
            if self._fixed_labels is not None
            else (self.matrix.shape[0] if self.mode == "multilabel" else None)
        )
        if expected is not None and n_labels != expected:
            raise InputError(f"y_true: expected {expected} label columns, found {n_labels}")
        tp = y_true & y_pred
        fp = y_pred & ~y_true
        fn = y_true & ~y_pred
        if weights is None:
            tp_l, fp_l, fn_l = tp.sum(0), fp.sum(0), fn.sum(0)
            tn_l = n_rows - tp_l - fp_l - fn_l
        else:
            # (weighted, the rest of the total may round below 0: its own sum instead)
            tp_l, fp_l, fn_l = weights @ tp, weights @ fp, weights @ fn
            tn_l = weights @ ~(y_true | y_pred)
        mcm = np.stack([np.stack([tn_l, fp_l], -1), np.stack([fn_l, tp_l], -1)], 1)
        base = n_labels + 1
        codes = (tp.sum(1, dtype=np.int64) * base + fp.sum(1, dtype=np.int64)) * base + fn.sum(
            1, dtype=np.int64
        )
        uniq, inverse = np.unique(codes, return_inverse=True)
        code_w = np.bincount(inverse.ravel(), weights=weights, minlength=len(uniq))
        current = self.matrix if self.mode == "multilabel" else np.zeros((n_labels, 2, 2), np.int64)
        if sign > 0:
            matrix = _add(current, mcm)
            all_codes = np.concatenate([self.codes, uniq])
            all_w = np.concatenate([_as(self.code_weights, code_w), _as(code_w, self.code_weights)])
        else:
            if self.mode is None and n_rows:
                raise InputError("y_true: cannot revert rows that were never added")
            matrix = _subtract(current, mcm)
            all_codes = np.concatenate([self.codes, uniq])
            all_w = np.concatenate([_as(self.code_weights, code_w), -_as(code_w, self.code_weights)])
        codes_out, weights_out = _compact(all_codes, all_w)
        if weights_out.size and weights_out.min() < 0:
            raise InputError("y_true: reverting rows that were never added (counts would go negative)")
        self._commit(
            matrix=matrix,
            margins=None,
            codes=codes_out,
            code_weights=weights_out,
            mode="multilabel",
            labels=self.labels if self._fixed_labels is not None else LabelSet(np.arange(n_labels)),
            _n=self._n + sign * n_rows,
        )

    # ------------------------------------------------------------------ merge / serialize
    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ConfusionCounts)
        if other.mode is None:
            self._commit(_n=self._n + other._n)
            return
        if self.mode is None:
            self._commit(
                mode=other.mode,
                labels=other.labels,
                matrix=None if other.matrix is None else other.matrix.copy(),
                margins=None if other.margins is None else other.margins.copy(),
                codes=other.codes.copy(),
                code_weights=other.code_weights.copy(),
                _n=self._n + other._n,
            )
            return
        if self.mode != other.mode:
            raise MergeError(f"cannot merge {other.mode} counts into {self.mode} counts")
        if self.mode == "multilabel":
            if self.matrix.shape != other.matrix.shape:
                raise MergeError(
                    f"cannot merge multilabel counts of {other.matrix.shape[0]} labels into "
                    f"counts of {self.matrix.shape[0]} labels"
                )
            codes, code_weights = _compact(
                np.concatenate([self.codes, other.codes]),
                np.concatenate(
                    [_as(self.code_weights, other.code_weights), _as(other.code_weights, self.code_weights)]
                ),
            )
            self._commit(
                matrix=_add(self.matrix, other.matrix, MergeError),
                codes=codes,
                code_weights=code_weights,
                _n=self._n + other._n,
            )
        else:
            try:
                labels = self.labels.union(other.labels)
            except InputError as err:
                raise MergeError(str(err)) from None
            if len(labels) > self._dense_limit() or self.margins is not None or other.margins is not None:
                margins = _add(self._margins_over(labels), other._margins_over(labels), MergeError)
                self._commit(
                    mode="multiclass", labels=labels, matrix=None, margins=margins, _n=self._n + other._n
                )
                return
            mine = self._reindexed(labels)
            theirs = other._reindexed(labels)
            self._commit(labels=labels, matrix=_add(mine, theirs, MergeError), _n=self._n + other._n)

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting; ``n_samples`` unchanged).

        The counts become float64 weighted counts; both arrays are built, then swapped in at once.
        """
        code_weights = self.code_weights.astype(np.float64) * factor
        if self.margins is not None:
            self._commit(margins=self.margins.astype(np.float64) * factor, code_weights=code_weights)
            return
        matrix = self.matrix.astype(np.float64) * factor
        self._commit(matrix=matrix, code_weights=code_weights)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "mode": self.mode,
            "labels": self.labels.to_list(),
            "matrix": self.matrix,
            "codes": self.codes,
            "code_weights": self.code_weights,
            "n_samples": self._n,
        }
        if self.margins is not None:  # (a dense state's dict is what it always was)
            out["margins"] = self.margins
        return out

    def load_dict(self, data: dict[str, Any]) -> None:
        if isinstance(data, dict) and "margins" not in data:
            data = {**data, "margins": None}
        values = _FIELDS.read(data)
        wide = values["margins"] is not None
        if wide == (values["matrix"] is not None):
            raise StateError(
                f"{_FIELDS.where}: expected a matrix or per-class margins, found {'both' if wide else 'neither'}"
            )
        if wide and values["mode"] == "multilabel":
            raise StateError(f"{_FIELDS.where}: multilabel counts with per-class margins")
        if not wide and values["mode"] != "multilabel" and len(values["labels"]) > MAX_CLASSES:
            raise StateError(
                f"{_FIELDS.where}: a dense matrix of {len(values['labels']):,} classes (at most "
                f"{MAX_CLASSES:,}; more keep per-class margins)"
            )
        mode, n = values["mode"], values["n_samples"]
        labels = LabelSet.from_list(values["labels"], self._fixed_labels is not None, _FIELDS.where)
        if self._fixed_labels is not None and labels.to_list() != self.labels.to_list():
            raise StateError(f"{_FIELDS.where}: labels {labels.to_list()} differ from the configured ones")
        self._commit(
            mode=mode,
            labels=labels,
            matrix=values["matrix"],
            margins=values["margins"],
            codes=values["codes"],
            code_weights=values["code_weights"],
            _n=n,
        )

    def check(self) -> None:
        """Every invariant: the fields' declarations, then what they add up to.

        ``n_samples`` counts rows of weight 0 too (they leave the counts unchanged), so unweighted
        (int64) counts sum to at most ``n_samples``; multilabel rows each add 1 to every label's
        2x2 matrix, so with unweighted counts every label's matrix sums to ``n_samples`` exactly.
        """
        where = _FIELDS.where
        _FIELDS.check(ConfusionCounts.to_dict(self))  # its own fields (a subclass checks its others)
        k, n = self.n_labels, self._n
        if self.mode is None:
            counts = self.matrix if self.margins is None else self.margins
            if n or counts.any() or self.codes.size:
                raise StateError(f"{where}: no mode (no rows yet) but n_samples={n} or counts")
            return
        if self.mode == "multiclass":
            if self.codes.size:
                raise StateError(f"{where}: multiclass counts with per-sample codes")
            if self.margins is not None:
                total = self._check_margins(where)
            else:
                total = exact_total(self.matrix, where, "matrix")
            if isinstance(total, int) and total > n:
                raise StateError(f"{where}: unweighted counts sum to {total}, more than n_samples={n}")
            if n == 0 and total:
                raise StateError(f"{where}: counts without rows (n_samples=0)")
            return
        per_label = [exact_total(self.matrix[i], where, "matrix") for i in range(k)]
        code_total = exact_total(self.code_weights, where, "code_weights")
        unweighted = self.matrix.dtype.kind == "i" and self.code_weights.dtype.kind == "i"
        if unweighted and any(t != n for t in [*per_label, code_total]):
            raise StateError(f"{where}: unweighted counts do not sum to n_samples={n}")
        if not unweighted and not all(_close(t, code_total) for t in per_label):
            raise StateError(f"{where}: the labels' weighted counts do not sum to the rows' weight")
        if self.codes.size:
            if self.codes.min() < 0 or np.any(np.diff(self.codes) <= 0):
                raise StateError(f"{where}: codes must be distinct, sorted and non-negative")
            tp, fp, fn, _, w = self.samplewise()
            if (tp + fp + fn).max() > k or self.code_weights.min() <= 0:
                raise StateError(f"{where}: a code names more than {k} labels or has no weight")
            for part, total in (
                (tp, self.matrix[:, 1, 1]),
                (fp, self.matrix[:, 0, 1]),
                (fn, self.matrix[:, 1, 0]),
            ):
                if not _close(float(part @ w), float(total.sum())):
                    raise StateError(f"{where}: the per-sample codes disagree with the label counts")
        elif code_total or any(per_label):
            raise StateError(f"{where}: label counts without per-sample codes")

    def _check_margins(self, where: str) -> Any:
        """Per-class (tp, fp, fn): each wrong row is a false positive of one class and a false
        negative of another, so the two sum alike; returns the total (tp and fn)."""
        tp, fp, fn = (exact_total(row, where, "margins") for row in self.margins)
        if fp != fn if isinstance(fp, int) else not _close(fp, fn):
            raise StateError(f"{where}: the false positives ({fp}) and false negatives ({fn}) differ")
        return tp + fn

    # ------------------------------------------------------------------ views for formulas
    def one_vs_rest(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per-label (tp, fp, fn, tn) as float64 arrays, in label order."""
        if self.margins is not None:  # (as the matrix's path past EXACT_TN_LABELS reads them)
            tp, fp, fn = self.margins.astype(np.float64)
            return tp, fp, fn, (tp.sum() - tp) + (fn.sum() - fp - fn)
        m = self.matrix.astype(np.float64)
        if self.mode == "multilabel":
            return m[:, 1, 1], m[:, 0, 1], m[:, 1, 0], m[:, 0, 0]
        # fp and fn as sums of the off-diagonal cells, not column and row sums minus tp: weights
        # far apart in size (1e-9 beside 1e27) would cancel to 0 (LR+ then read undefined)
        tp = np.diag(m).copy()
        off = m.copy()
        np.fill_diagonal(off, 0.0)
        fp, fn = off.sum(axis=0), off.sum(axis=1)
        k = len(tp)
        if k == 2:  # one label's true negatives are the other's true positives
            return tp, fp, fn, tp[::-1].copy()
        if self.matrix.dtype.kind == "f" and k <= EXACT_TN_LABELS:
            # weighted: each label's tn summed from the cells outside its row and column
            outside = np.ones((k, k, k), bool)
            outside[np.arange(k), np.arange(k), :] = False
            outside[np.arange(k), :, np.arange(k)] = False
            return tp, fp, fn, np.where(outside, m, 0.0).sum(axis=(1, 2))
        # counts (exact in float64 below 2^53), or many labels: the rest of the total
        tn = (tp.sum() - tp) + (off.sum() - fp - fn)
        return tp, fp, fn, tn

    def samplewise(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Multilabel only: distinct per-sample (tp, fp, fn, tn) rows and their total weights."""
        n_labels = self.matrix.shape[0]
        base = n_labels + 1
        fn = self.codes % base
        fp = (self.codes // base) % base
        tp = self.codes // (base * base)
        tn = n_labels - tp - fp - fn
        return (*(a.astype(np.float64) for a in (tp, fp, fn, tn)), self.code_weights.astype(np.float64))


def margins_of(matrices: np.ndarray) -> np.ndarray:
    """Per-class (tp, fp, fn) of K x K matrices (any leading axes: ``(..., 3, K)``): the diagonal,
    and the sums of the off-diagonal cells of each column and row (not the margins minus the
    diagonal, which weights far apart in size would cancel)."""
    k = matrices.shape[-1]
    diagonal = np.diagonal(matrices, axis1=-2, axis2=-1).copy()
    off = matrices.copy()
    off[..., np.arange(k), np.arange(k)] = 0
    return np.stack([diagonal, off.sum(axis=-2), off.sum(axis=-1)], axis=-2)


def class_counts(t: np.ndarray, p: np.ndarray, k: int, weights: np.ndarray | None = None) -> np.ndarray:
    """``(R, 3, K)``: the (tp, fp, fn) of each of ``k`` classes that the pairs ``(t[i], p[i])`` of
    class indices add, each with weight ``weights[r, i]`` in row ``r`` (``(R, m)``; ``None``: one
    row of int64 counts). Three ``bincount`` over ``r * K + class``, never K x K."""
    right = t == p
    r = 1 if weights is None else len(weights)
    offsets = np.arange(r, dtype=np.int64)[:, None] * k
    out = np.empty((r, 3, k), dtype=np.int64 if weights is None else np.float64)
    for row, (classes, rows) in enumerate(((t, right), (p, ~right), (t, ~right))):
        cells = (offsets + classes[rows]).ravel()
        w = None if weights is None else weights[:, rows].ravel()
        out[:, row, :] = np.bincount(cells, weights=w, minlength=r * k).reshape(r, k)
    return out


def _close(a: float, b: float) -> bool:
    """Equal up to the rounding of summing weights in another order."""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _as(a: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``a`` as float64 if either array is float (weighted), else as is."""
    return a.astype(np.float64) if (a.dtype.kind == "f" or other.dtype.kind == "f") else a


def _add(a: np.ndarray, b: np.ndarray, error: type[Exception] = InputError) -> np.ndarray:
    out = _as(a, b) + _as(b, a)
    if out.dtype.kind == "f" and out.size:
        with np.errstate(over="ignore"):  # a matrix's (each label's) total weight must stay finite
            totals = out.sum() if out.ndim == 2 else out.reshape(len(out), -1).sum(axis=1)
        check_total_weight(totals, error)
    return out


def _subtract(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = _as(a, b) - _as(b, a)
    if out.size and out.min() < 0:
        if out.dtype.kind == "f" and out.min() > -1e-9 * max(1.0, float(np.abs(a).max())):
            return np.maximum(out, 0.0)  # rounding in weighted counts
        raise InputError("y_true: reverting rows that were never added (counts would go negative)")
    return out


def _compact(codes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum the weights of equal codes and drop codes whose weight is zero."""
    if not codes.size:
        return codes.astype(np.int64), weights
    uniq, inverse = np.unique(codes, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=weights, minlength=len(uniq))
    if weights.dtype.kind != "f":
        summed = np.rint(summed).astype(np.int64)
    keep = summed != 0
    return uniq[keep], summed[keep]
