"""The contingency state shared by every external clustering index.

A sparse, weighted table of (true label, predicted cluster) counts. Row labels (classes) and
column labels (clusters) are two independent :class:`~streammetrics._core.labels.LabelSet`
objects, discovered as they come and unioned on merge; any mix of int and string labelings works
(true labels strings, clusters ints, ...). Only the non-zero cells are stored, as sorted keys
``row * n_cols + col`` with their counts: int64 while unweighted, float64 once a weighted batch
arrives. Updates are vectorized (one ``np.bincount`` or ``np.unique`` per batch plus a
``searchsorted`` into the stored keys), merges cost O(cells), and ``revert`` undoes ``update``
exactly, dropping labels whose counts fall to zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.labels import LabelSet
from ..._core.schema import INT64_MAX, exact_total, short
from ..._core.state import State, require_keys
from ..._core.validation import check_factor, check_total_weight
from ...errors import InputError, MergeError, StateError
from ..inputs import validate_labelings

#: Count a batch with a dense ``np.bincount`` while the table has at most this many cells
#: beyond ``16 * batch rows`` (else ``np.unique``, whose cost does not grow with the table).
_DENSE_SLACK = 1 << 16


def _check_total(values: np.ndarray, error: type[Exception]) -> None:
    if values.dtype.kind == "f" and values.size:
        with np.errstate(over="ignore"):
            check_total_weight(values.sum(), error)


class ContingencyState(State):
    """Sparse weighted contingency table of ``(labels_true, labels_pred)`` pairs.

    Rows are the sorted true labels (classes), columns the sorted predicted labels (clusters), as
    :func:`sklearn.metrics.cluster.contingency_matrix`.

    Examples:
        >>> import numpy as np
        >>> s = ContingencyState()
        >>> s.add(np.array([0, 0, 1, 1]), np.array(["a", "b", "b", "b"]), None)
        >>> s.row_labels.tolist(), s.col_labels.tolist(), s.dense().tolist()
        ([0, 1], ['a', 'b'], [[1, 1], [0, 2]])
        >>> s.add(np.array([1]), np.array(["b"]), None, sign=-1)
        >>> s.dense().tolist()
        [[1, 1], [0, 1]]
    """

    revertible = True
    overflowing = ()  # (counts of weights of at most 2^255 a batch)

    def __init__(self) -> None:
        self.reset()

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {}

    def reset(self) -> None:
        self._commit(
            row_labels=LabelSet(),
            col_labels=LabelSet(),
            keys=np.empty(0, dtype=np.int64),
            values=np.empty(0, dtype=np.int64),
            _n=0,
        )

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.row_labels), len(self.col_labels)

    @property
    def weighted(self) -> bool:
        """Whether the counts are float64 weights (a weighted batch was seen)."""
        return self.values.dtype.kind == "f"

    # ------------------------------------------------------------------ views for formulas
    @property
    def rows(self) -> np.ndarray:
        """Row (class) index of each stored non-zero cell."""
        return self.keys // max(len(self.col_labels), 1)

    @property
    def cols(self) -> np.ndarray:
        """Column (cluster) index of each stored non-zero cell."""
        return self.keys % max(len(self.col_labels), 1)

    def row_sums(self) -> np.ndarray:
        """Total count (weight) of each class ``a_i``."""
        return _sums(self.rows, self.values, len(self.row_labels))

    def col_sums(self) -> np.ndarray:
        """Total count (weight) of each cluster ``b_j``."""
        return _sums(self.cols, self.values, len(self.col_labels))

    def total(self) -> int | float:
        """``N``: the total count (weight)."""
        return self.values.sum().item() if self.values.size else 0

    def dense(self) -> np.ndarray:
        """The full ``(n_classes, n_clusters)`` matrix (int64, or float64 when weighted)."""
        r, c = self.shape
        out = np.zeros(r * c, dtype=self.values.dtype)
        out[self.keys] = self.values
        return out.reshape(r, c)

    # ------------------------------------------------------------------ update / revert
    def add(
        self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None, *, sign: int = 1
    ) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) a batch of validated label pairs."""
        n_rows = len(y_true)
        if weights is not None and n_rows and weights.min() == 0:
            keep = weights > 0  # zero weight = leaving the row out, labels included
            y_true, y_pred, weights = y_true[keep], y_pred[keep], weights[keep]
        idx_t, grown_t = self.row_labels.encode(y_true, "labels_true")
        idx_p, grown_p = self.col_labels.encode(y_pred, "labels_pred")
        rows_ls, cols_ls = grown_t or self.row_labels, grown_p or self.col_labels
        if sign < 0 and (grown_t is not None or grown_p is not None):
            raise InputError("labels_true: cannot revert rows with labels that were never added")
        keys = self._rekeyed(rows_ls, cols_ls)
        n_cols = len(cols_ls)
        batch_keys = idx_t * n_cols + idx_p
        n_cells = len(rows_ls) * n_cols
        values = self.values
        if weights is not None and values.dtype.kind != "f":
            values = values.astype(np.float64)
        if sign > 0 and batch_keys.size and n_cells <= 16 * len(batch_keys) + _DENSE_SLACK:
            # small table: accumulate densely, then keep the non-zero cells (sorted by construction)
            dense = np.bincount(batch_keys, weights=weights, minlength=n_cells)
            if dense.dtype != values.dtype:
                dense = dense.astype(values.dtype)
            dense[keys] += values
            keys = np.flatnonzero(dense)
            _check_total(dense, InputError)
            self._commit(
                row_labels=rows_ls, col_labels=cols_ls, keys=keys, values=dense[keys], _n=self._n + n_rows
            )
            return
        cells, counts = _count(batch_keys, weights, n_cells)
        pos = np.searchsorted(keys, cells)
        found = pos < len(keys)
        found[found] = keys[pos[found]] == cells[found]
        if sign > 0:
            values = values.copy()
            values[pos[found]] += counts[found].astype(values.dtype, copy=False)
            if not found.all():
                keys = np.insert(keys, pos[~found], cells[~found])
                values = np.insert(values, pos[~found], counts[~found].astype(values.dtype, copy=False))
        else:
            if not found.all():
                raise InputError(
                    "labels_true: reverting rows that were never added (a cell would go negative)"
                )
            values = values.copy()
            values[pos] -= counts.astype(values.dtype, copy=False)
            keys, values, rows_ls, cols_ls = _pruned(keys, values, rows_ls, cols_ls)
        _check_total(values, InputError)
        self._commit(
            row_labels=rows_ls, col_labels=cols_ls, keys=keys, values=values, _n=self._n + sign * n_rows
        )

    def _rekeyed(self, rows_ls: LabelSet, cols_ls: LabelSet) -> np.ndarray:
        """Our keys re-expressed over (grown) label sets; order is preserved (sorted sets)."""
        if rows_ls is self.row_labels and cols_ls is self.col_labels:
            return self.keys
        r, c = self.rows, self.cols
        if rows_ls is not self.row_labels:
            r = self.row_labels.positions_in(rows_ls)[r] if self.keys.size else r
        if cols_ls is not self.col_labels:
            c = self.col_labels.positions_in(cols_ls)[c] if self.keys.size else c
        return r * len(cols_ls) + c

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting): counts become weighted
        counts, ``n_samples`` unchanged; a cell that underflows to 0 leaves, with its labels if
        they hold nothing else."""
        check_factor(factor)
        values = self.values.astype(np.float64) * factor
        keys, rows_ls, cols_ls = self.keys, self.row_labels, self.col_labels
        if values.size and not values.min() > 0:
            keys, values, rows_ls, cols_ls = _pruned(keys, values, rows_ls, cols_ls, snap=False)
        self._commit(row_labels=rows_ls, col_labels=cols_ls, keys=keys, values=values)

    # ------------------------------------------------------------------ merge / serialize
    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ContingencyState)
        try:
            rows_ls = self.row_labels.union(other.row_labels)
            cols_ls = self.col_labels.union(other.col_labels)
        except InputError as err:
            raise MergeError(str(err)) from None
        keys = np.concatenate([self._rekeyed(rows_ls, cols_ls), other._rekeyed(rows_ls, cols_ls)])
        weighted = self.weighted or other.weighted
        dtype = np.float64 if weighted else np.int64
        values = np.concatenate([self.values.astype(dtype), other.values.astype(dtype)])
        if keys.size:
            keys, inverse = np.unique(keys, return_inverse=True)
            summed = np.bincount(inverse.ravel(), weights=values, minlength=len(keys))
            values = summed if weighted else np.rint(summed).astype(np.int64)
            if not weighted and values.size and values.max() > 2**52:  # exact int sums for huge counts
                values = np.zeros(len(keys), dtype=np.int64)
                np.add.at(
                    values, inverse.ravel(), np.concatenate([self.values, other.values]).astype(np.int64)
                )
        _check_total(values, MergeError)
        self._commit(
            row_labels=rows_ls,
            col_labels=cols_ls,
            keys=keys.astype(np.int64),
            values=values.astype(dtype),
            _n=self._n + other._n,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "row_labels": self.row_labels.to_list(),
            "col_labels": self.col_labels.to_list(),
            "rows": self.rows.astype(np.int64),
            "cols": self.cols.astype(np.int64),
            "values": self.values,
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "ContingencyState state"
        require_keys(data, {"row_labels", "col_labels", "rows", "cols", "values", "n_samples"}, where)
        n = data["n_samples"]
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= INT64_MAX:
            raise StateError(f"{where}: n_samples must be a non-negative int64, found {short(n)}")
        rows_ls = LabelSet.from_list(data["row_labels"], False, where)
        cols_ls = LabelSet.from_list(data["col_labels"], False, where)
        rows, cols = (np.asarray(data[k]) for k in ("rows", "cols"))
        values = np.asarray(data["values"])
        for name, arr in (("rows", rows), ("cols", cols)):
            if arr.dtype.kind != "i" or arr.ndim != 1:
                raise StateError(f"{where}: {name} must be a 1-D int64 array, found {arr.dtype} {arr.shape}")
        if values.dtype.kind not in "if" or values.ndim != 1 or not (len(values) == len(rows) == len(cols)):
            raise StateError(f"{where}: values must be a 1-D int64/float64 array as long as rows and cols")
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            raise StateError(f"{where}: values hold non-finite counts")
        r, c = len(rows_ls), len(cols_ls)
        if rows.size and (rows.min() < 0 or rows.max() >= r or cols.min() < 0 or cols.max() >= c):
            raise StateError(f"{where}: cell indices outside the {r} x {c} table")
        keys = rows.astype(np.int64) * c + cols.astype(np.int64)
        if keys.size > 1 and not (np.diff(keys) > 0).all():
            raise StateError(f"{where}: cells must be distinct and sorted by (row, col)")
        self._commit(
            row_labels=rows_ls,
            col_labels=cols_ls,
            keys=keys,
            values=values.astype(np.int64 if values.dtype.kind == "i" else np.float64),
            _n=n,
        )

    def check(self) -> None:
        where = "ContingencyState state"
        if self.values.size and self.values.min() <= 0:
            raise StateError(f"{where}: stored cells must hold positive counts")
        if self.keys.size and (self.row_sums().min() <= 0 or self.col_sums().min() <= 0):
            raise StateError(f"{where}: a label has no count (labels must be pruned)")
        if not self.keys.size and (len(self.row_labels) or len(self.col_labels)):
            raise StateError(f"{where}: labels without any count")
        total = exact_total(self.values, where, "values")
        if isinstance(total, int) and total != self._n:  # rows of weight 0 make counts weighted
            raise StateError(f"{where}: unweighted counts do not sum to n_samples={self._n}")
        if self._n == 0 and self.keys.size:
            raise StateError(f"{where}: counts without rows (n_samples=0)")


def _sums(index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    if values.dtype.kind == "f":
        return np.bincount(index, weights=values, minlength=size)
    if not values.size or values.sum() < 2**53:
        return np.rint(np.bincount(index, weights=values, minlength=size)).astype(np.int64)
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, index, values)
    return out


def _count(keys: np.ndarray, weights: np.ndarray | None, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys of a batch (sorted) and their counts (int64) or summed weights (float64)."""
    if not keys.size:
        return keys.astype(np.int64), np.empty(0, dtype=np.int64 if weights is None else np.float64)
    if n_cells <= 16 * len(keys) + _DENSE_SLACK:
        counts = np.bincount(keys, weights=weights, minlength=n_cells)
        cells = np.flatnonzero(counts)
        return cells, counts[cells]
    cells, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=weights, minlength=len(cells))
    return cells, counts


def _pruned(
    keys: np.ndarray, values: np.ndarray, rows_ls: LabelSet, cols_ls: LabelSet, *, snap: bool = True
) -> tuple[np.ndarray, np.ndarray, LabelSet, LabelSet]:
    """Drop empty cells and the labels left without any count (after a revert; ``snap``: weighted
    cells within the rounding of the largest one count as empty, which a scaled table's tiny
    cells are not)."""
    if values.dtype.kind == "f" and snap:
        scale = max(1.0, float(np.abs(values).max())) if values.size else 1.0
        if values.size and values.min() < -1e-9 * scale:
            raise InputError("labels_true: reverting rows that were never added (a cell would go negative)")
        values = np.where(np.abs(values) <= 1e-12 * scale, 0.0, values)
    elif values.size and values.min() < 0:
        raise InputError("labels_true: reverting rows that were never added (a cell would go negative)")
    keep = values > 0
    if keep.all():
        return keys, values, rows_ls, cols_ls
    keys, values = keys[keep], values[keep]
    n_cols = max(len(cols_ls), 1)
    r, c = keys // n_cols, keys % n_cols
    alive_r = np.zeros(len(rows_ls), dtype=bool)
    alive_r[r] = True
    alive_c = np.zeros(len(cols_ls), dtype=bool)
    alive_c[c] = True
    if not alive_r.all():
        r = (np.cumsum(alive_r) - 1)[r]
        rows_ls = LabelSet(rows_ls.values[alive_r]) if alive_r.any() else LabelSet()
    if not alive_c.all():
        c = (np.cumsum(alive_c) - 1)[c]
        cols_ls = LabelSet(cols_ls.values[alive_c]) if alive_c.any() else LabelSet()
    return r * len(cols_ls) + c, values, rows_ls, cols_ls


def contingency(labels_true: Any, labels_pred: Any, sample_weight: Any = None) -> ContingencyState:
    """Build a :class:`ContingencyState` from in-memory labelings (for the formula functions).

    Examples:
        >>> contingency([0, 0, 1], [1, 1, 1]).dense().tolist()
        [[2], [1]]
    """
    t, p, w = validate_labelings(labels_true, labels_pred, sample_weight)
    state = ContingencyState()
    state.add(t, p, w)
    return state
