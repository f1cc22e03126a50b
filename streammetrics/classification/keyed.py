"""The confusion family's keyed kernel: every key's confusion matrix in one (keys, K, K) array.

A keyed batch of label pairs is counted with one ``bincount`` over ``(key, true, predicted)``
against one label set shared by the keys (the union of their labels); no Python runs per key.
A key's :class:`~streammetrics.classification.counts.ConfusionCounts` is read out on demand,
restricted to the labels that key has seen (those whose row or column count is not zero, which
are exactly the labels a state fed only that key's rows would have discovered), so its values
equal those of the metric over that key's rows, bit for bit.

Multilabel batches go through the generic kernel (a tuple of per-key states), and so do label
sets a dense stack should not hold for a metric that reads no matrix: more classes than a state
keeps as a matrix (``counts.DENSE_CLASSES``), or more cells over the keys than one table of
``counts.MAX_CLASSES`` classes. Each key's state then keeps its own labels as per-class margins
(3 numbers a class: per-key matrices would again add up to the keys times K^2), updated from the
batch parsed once (a key's rows are not parsed again). A metric that reads the matrix refuses
such cells instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core.labels import LabelSet, sorted_distinct
from .._core.state import State
from ..errors import InputError, MergeError, StateError
from ..keyed.kernels import GenericKernel, Rows
from . import counts as _counts_module
from .counts import ConfusionCounts, _subtract


class DenseCounts:
    """Per-key multiclass confusion matrices over one shared, sorted label set."""

    __slots__ = ("labels", "matrix", "n")

    def __init__(self, labels: LabelSet, matrix: np.ndarray, n: np.ndarray) -> None:
        self.labels, self.matrix, self.n = labels, matrix, n

    def reindexed(self, labels: LabelSet, n_keys: int) -> np.ndarray:
        """The matrices over ``labels`` (a superset) for ``n_keys`` keys (new keys empty)."""
        k, g = len(labels), len(self.n)
        if labels is self.labels and g == n_keys:
            return self.matrix
        out = np.zeros((n_keys, k, k), dtype=self.matrix.dtype)
        if g and len(self.labels):
            pos = self.labels.positions_in(labels)
            out[:g, pos[:, None], pos[None, :]] = self.matrix
        return out

    def counts(self, n_keys: int) -> np.ndarray:
        return np.concatenate([self.n, np.zeros(n_keys - len(self.n), np.int64)])


def _alive(matrix: np.ndarray) -> np.ndarray:
    """``(keys, K)``: the labels each key has seen (a count in its row or column)."""
    return (matrix.sum(axis=2) != 0) | (matrix.sum(axis=1) != 0)


class ConfusionKernel(GenericKernel):
    """Keyed confusion counts, vectorized over keys for multiclass (binary included) labels."""

    def __init__(self, metric: Any) -> None:
        super().__init__(metric)
        #: Label patterns (bit sets over a label set) the metric accepted, per label set.
        self._accepted: dict[tuple[Any, ...], set[int]] = {}

    def empty(self) -> Any:
        return DenseCounts(LabelSet(), np.zeros((0, 0, 0), np.int64), np.zeros(0, np.int64))

    def states(self, stack: Any) -> tuple[State, ...]:
        if isinstance(stack, DenseCounts):
            return tuple(self.state(stack, g) for g in range(len(stack.n)))
        return stack

    def state(self, stack: Any, slot: int) -> State:
        if not isinstance(stack, DenseCounts):
            return stack[slot]
        return _counts(stack.labels, stack.matrix[slot], int(stack.n[slot]))

    def n_keys(self, stack: Any) -> int:
        return len(stack.n) if isinstance(stack, DenseCounts) else len(stack)

    def key_samples(self, stack: Any) -> np.ndarray:
        if isinstance(stack, DenseCounts):
            return stack.n
        return super().key_samples(stack)

    def from_states(self, states: Sequence[State]) -> Any:
        if any(getattr(s, "mode", None) == "multilabel" or not getattr(s, "dense", True) for s in states):
            return tuple(states)  # (per-class margins: no matrix to stack)
        labels = LabelSet()
        try:
            for s in states:
                labels = labels.union(s.labels)  # type: ignore[attr-defined]
        except InputError:  # keys whose labels are of different kinds: one state each
            return tuple(states)
        k = len(labels)
        if not self._stacks(len(states), k):
            return tuple(states)
        weighted = any(s.matrix.dtype.kind == "f" for s in states)  # type: ignore[attr-defined]
        matrix = np.zeros((len(states), k, k), np.float64 if weighted else np.int64)
        for g, s in enumerate(states):
            if len(s.labels):  # type: ignore[attr-defined]
                pos = s.labels.positions_in(labels)  # type: ignore[attr-defined]
                matrix[g, pos[:, None], pos[None, :]] = s.matrix  # type: ignore[attr-defined]
        n = np.fromiter((s.n_samples for s in states), np.int64, len(states))
        return DenseCounts(labels, matrix, n)

    def _own_states(self, stack: Any, n_keys: int) -> tuple[State, ...]:
        """Every key's own state (``n_keys`` of them) as per-class margins: the form past the
        dense stack, where one key's K x K matrix times the keys would again exhaust memory."""
        states = [s.in_margins() for s in self.states(stack)]  # type: ignore[attr-defined]
        states += [self.metric._make_state().in_margins() for _ in range(n_keys - len(states))]
        return tuple(states)

    def _in_margins(self, stack: Any) -> bool:
        """Whether ``stack`` is per-key states already in per-class margins (the wide form)."""
        return not isinstance(stack, DenseCounts) and any(not getattr(s, "dense", True) for s in stack)

    def apply(self, stack: Any, slots: np.ndarray, n_keys: int, rows: Rows, batch: Any, sign: int) -> Any:
        if batch[0] == "multiclass" and self._in_margins(stack):
            stack = self._own_states(stack, n_keys)  # (new keys in the same form)
        if batch[0] == "multiclass" and len(batch) == 4 and not isinstance(stack, DenseCounts):
            return self._apply_each(self.states(stack), slots, n_keys, batch, sign)
        if batch[0] != "multiclass" or not isinstance(stack, DenseCounts):
            return super().apply(self.states(stack), slots, n_keys, rows, batch, sign)
        _, yt, yp, w = batch
        slots_all = slots
        n_delta = None if w is None else np.bincount(slots, minlength=n_keys)
        if w is not None and len(w) and w.min() == 0:
            keep = w > 0  # zero weight = leaving the row out, labels included
            yt, yp, w, slots = yt[keep], yp[keep], w[keep], slots[keep]
        labels = stack.labels
        try:
            idx_t, grown_t = labels.encode(yt, "y_true")
            idx_p, grown_p = labels.encode(yp, "y_pred")
            if grown_t is not None and grown_p is not None:
                grown_t.union(grown_p)
        except InputError:  # labels of another kind than other keys': one state per key
            return self._apply_each(self.states(stack), slots_all, n_keys, batch, sign)
        if grown_t is not None or grown_p is not None:
            if sign < 0:
                raise InputError("y_true: cannot revert rows with labels that were never added")
            labels = (grown_t or labels).union(grown_p or labels)
            idx_t, _ = labels.encode(yt, "y_true")
            idx_p, _ = labels.encode(yp, "y_pred")
        k = len(labels)
        if not self._stacks(n_keys, k):  # each key's own state, as per-class margins
            return self._apply_each(self._own_states(stack, n_keys), slots_all, n_keys, batch, sign)
        _check_cells(n_keys, k, InputError)
        flat = slots * k  # (then in place: no temporary per operation)
        flat += idx_t
        flat *= k
        flat += idx_p
        counts = np.bincount(flat, weights=w, minlength=n_keys * k * k).reshape(n_keys, k, k)
        if n_delta is None:  # unweighted: every row is counted once
            n_delta = counts.sum(axis=(1, 2))
        old = stack.reindexed(labels, n_keys)
        if sign > 0:
            matrix = old + counts if old.dtype == counts.dtype else old.astype(np.float64) + counts
        else:
            matrix = _subtract(old, counts)
        n = stack.counts(n_keys) + sign * n_delta
        if n.size and n.min() < 0:
            raise InputError("keys: reverting rows that were never added (row counts would go negative)")
        self._check_labels(labels, matrix, np.flatnonzero(n_delta))
        return DenseCounts(labels, matrix, n)

    def _apply_each(
        self, states: Sequence[State], slots: np.ndarray, n_keys: int, batch: Any, sign: int
    ) -> Any:
        """:meth:`apply_parts` with each key's rows of the parsed multiclass ``batch`` (its pairs
        of labels and weights are the batch's rows; each state discovers and checks its own
        labels): a key's rows are not parsed again."""
        mode, yt, yp, w = batch
        return self.apply_parts(
            states,
            slots,
            n_keys,
            lambda index: (mode, yt[index], yp[index], None if w is None else w[index]),
            sign,
        )

    def _stacks(self, n_keys: int, k: int) -> bool:
        """Whether ``n_keys`` keys of ``k`` classes stay one dense stack. Always for a metric
        that reads the matrix (which :func:`_check_cells` refuses past the limit); else up to
        the classes its state keeps as a matrix and the cells of one table of the most classes."""
        limit = _counts_module.dense_limit(self.metric._keeps_matrix())  # type: ignore[attr-defined]
        if limit >= _counts_module.MAX_CLASSES:  # (a state kept as a matrix: read as one)
            return True
        return k <= limit and n_keys * k * k <= _counts_module.MAX_CLASSES**2

    def _check_labels(self, labels: LabelSet, matrix: np.ndarray, touched: np.ndarray) -> None:
        """Each touched key's labels must be ones the metric accepts (binary: two at most).

        Keys are checked by their pattern of labels seen (one int per key); a pattern found
        acceptable once is remembered, so a batch adding no new pattern checks nothing."""
        if not len(touched) or not len(labels):
            return
        part = matrix[touched] if len(touched) < len(matrix) else matrix
        k = part.shape[1]
        if k <= 62:  # each key's pattern as the bits of one int64
            if k <= 16:  # a few labels: cell by cell (no reduction along short axes)
                bits = np.zeros(len(part), np.int64)
                for i in range(k):
                    for j in range(k):  # a count in cell (i, j): labels i and j were seen
                        np.bitwise_or(bits, (1 << i) | (1 << j), out=bits, where=part[:, i, j] != 0)
            else:
                alive = part.any(axis=2) | part.any(axis=1)
                bits = alive @ (np.int64(1) << np.arange(k, dtype=np.int64))
            accepted = self._accepted.setdefault(tuple(labels.values.tolist()), set())
            todo = [
                (c, (c >> np.arange(k)) & 1 == 1) for c in sorted_distinct(bits).tolist() if c not in accepted
            ]
        else:
            alive = part.any(axis=2) | part.any(axis=1)
            accepted, todo = set(), [(None, row) for row in np.unique(alive, axis=0)]
        for code, pattern in todo:
            self.metric._check_labels(LabelSet(labels.values[pattern]))  # type: ignore[attr-defined]
            if code is not None:
                accepted.add(code)

    def merge(self, stack: Any, other: Any, positions: np.ndarray, n_keys: int) -> Any:
        if self._in_margins(stack) or self._in_margins(other):
            return super().merge(self._own_states(stack, n_keys), self.states(other), positions, n_keys)
        if not (isinstance(stack, DenseCounts) and isinstance(other, DenseCounts)):
            return super().merge(self.states(stack), self.states(other), positions, n_keys)
        try:
            labels = stack.labels.union(other.labels)
        except InputError:  # keys whose labels are of different kinds: one state each
            return super().merge(self.states(stack), self.states(other), positions, n_keys)
        if not self._stacks(n_keys, len(labels)):
            return super().merge(self._own_states(stack, n_keys), self.states(other), positions, n_keys)
        _check_cells(n_keys, len(labels), MergeError)
        mine = stack.reindexed(labels, n_keys)
        theirs = other.reindexed(labels, len(other.n))
        kind = np.float64 if "f" in (mine.dtype.kind, theirs.dtype.kind) else np.int64
        matrix = mine.astype(kind, copy=True)
        matrix[positions] += theirs
        n = stack.counts(n_keys).copy()
        n[positions] += other.n
        self._check_labels(labels, matrix, positions)
        return DenseCounts(labels, matrix, n)

    def overall(self, stack: Any) -> State:
        if not isinstance(stack, DenseCounts):
            return super().overall(stack)
        return _counts(stack.labels, stack.matrix.sum(axis=0), int(stack.n.sum()))


def _check_cells(n_keys: int, k: int, error: type[Exception]) -> None:
    """Refuse (``error``) per-key K x K tables of more cells in all than one table of the most
    classes holds (2^28: 2 GiB): every key's table is dense."""
    limit = _counts_module.MAX_CLASSES**2
    if n_keys * k * k > limit:
        raise error(
            f"keys: expected at most {limit:,} confusion cells over all keys (dense K x K tables), "
            f"found {n_keys:,} keys x {k:,}^2 classes"
        )


def _counts(labels: LabelSet, matrix: np.ndarray, n: int) -> ConfusionCounts:
    """The :class:`ConfusionCounts` of one key: its matrix over the labels it has seen."""
    out = ConfusionCounts()
    if not len(labels):
        if n:
            out._commit(mode="multiclass", _n=n)
        return out
    alive = (matrix.sum(axis=1) != 0) | (matrix.sum(axis=0) != 0)
    if not n and alive.any():
        raise StateError("keyed confusion counts: counts for a key without rows")
    out._commit(
        mode="multiclass" if n else None,
        labels=LabelSet(labels.values[alive]) if not alive.all() else labels,
        matrix=matrix[np.ix_(alive, alive)],
        codes=np.empty(0, np.int64),
        code_weights=np.empty(0, np.int64),
        _n=n,
    )
    return out
