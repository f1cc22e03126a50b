"""Classification metrics that are weighted means of a value of each row (issue 17).

Each keeps the per-row value state (:class:`~streammetrics.aggregation.state.RowSums`): the
compensated weighted sums of the row's values and the total weight, so they merge, revert and
decay exactly. Top-k accuracy, the hinge loss, the zero-one loss and the D² scores agree with
scikit-learn; the KL and Jensen-Shannon divergences with torchmetrics; the normalized entropy
and the weighted calibration with torcheval.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from .._core import narrow as N
from .._core import validation as v
from .._core.compiled import divergences, rowkernels
from .._core.inputs import Inputs
from .._core.labels import check_label_list
from .._core.params import check_option, plain
from .._core.workspace import work
from ..aggregation.base import RowValueMetric, always, scratch
from ..aggregation.state import RowSums
from ..errors import InputError, UndefinedMetricWarning
from ..probabilistic.base import _class_index
from ..probabilistic.metrics import _clipped

#: torch's floor of a logarithm in its binary cross entropy (torcheval's normalized entropy).
TORCH_LOG_FLOOR = -100.0
#: Integers up to this magnitude survive the row buffer's float64 encoding exactly.
_EXACT_INT = 2**53


def _label_value(x: Any) -> bool:
    """Whether one number of a scalar row is a label the per-row path keeps exactly (an integer
    value within 2^53: the buffer holds float64, the batch parser reads it back as int64)."""
    return -_EXACT_INT <= x <= _EXACT_INT and x % 1 == 0


def _int_label(label: Any) -> bool:
    return type(label) is int and -_EXACT_INT <= label <= _EXACT_INT


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, found {value!r}")
    return bool(value)


def _labels_option(labels: Any) -> list[Any] | None:
    if labels is None:
        return None
    out = plain(list(labels))
    check_label_list(out)
    if len(set(map(repr, out))) != len(out):
        raise ValueError(f"labels: expected distinct labels, found {out!r}")
    return out


class _ClassRows(RowValueMetric, base=True):
    prediction: ClassVar[str | None] = "scores"

    def _compute(self, state: RowSums) -> Any:
        return float(self._means(state)[0])


def _true_cells(idx: np.ndarray, k: int) -> np.ndarray:
    """The flat indices of each row's true-class cell in a C-ordered ``(n, k)`` array (a 1-D
    gather or scatter: NumPy pays per row for a 2-D one), in a work array."""
    cells = N.row_offsets(len(idx), k)
    cells += idx
    return cells


def _true_class(p: np.ndarray, idx: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``p[np.arange(n), idx]``: each row's score (or probability) of its true class (into
    ``out`` when given)."""
    if not p.flags.c_contiguous:
        return np.take_along_axis(p, idx[:, None], axis=1)[:, 0]
    # (mode="clip": the cells are in range by construction; the default mode copies the result
    # through a buffer of its own when given ``out``)
    return np.take(np.ravel(p), _true_cells(idx, p.shape[1]), out=out, mode="clip")


#: Classes up to which the top-k rank is counted column by column (a pass per class); wider rows
#: count along each row, a block of rows at a time (a pass per class would be thousands of calls).
COLUMN_CLASSES = 128
#: Cells of a block of rows of the wide top-k count (its bool temporaries stay cache-sized).
WIDE_BLOCK_CELLS = 1 << 20


class TopKAccuracy(_ClassRows):
    """The fraction of rows whose true class is among the ``k`` highest scores (scikit-learn
    ``top_k_accuracy_score``).

    ``update(y_true, y_score)``: labels and ``(n, n_classes)`` scores; a label is a column index
    ``0..C-1``, or a position in ``labels``. Ties rank as in scikit-learn (a stable sort,
    reversed: of equal scores, the higher column ranks first).

    Args:
        k: How many of the highest scores count, an int >= 1; default 2.
        normalize: ``True`` (default): the weighted fraction; ``False``: the weighted count of hits.
        labels: The class labels, one per score column (``None``: the column indices).

    Examples:
        >>> import streammetrics as sm
        >>> scores = [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]]
        >>> sm.TopKAccuracy(k=2).update([0, 1, 2, 2], scores).compute()
        0.75
    """

    higher_is_better: ClassVar[bool | None] = True

    def __init__(self, k: int = 2, *, normalize: bool = True, labels: Any = None) -> None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k: expected an int >= 1, found {k!r}")
        self.k = int(k)
        self.normalize = _check_bool(normalize, "normalize")
        self.labels = _labels_option(labels)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"k": self.k, "normalize": self.normalize, "labels": self.labels}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.labels(0, "y_true")
        s = inputs.floats(1, "y_score", (2,))
        v.check_length(s, len(yt), "y_score")
        idx = _class_index(yt, s.shape[1], self.labels)
        return s, idx, inputs.weights(len(yt))

    def _hits(self, batch: tuple[Any, ...]) -> np.ndarray:
        """Whether each row's true class is among its ``k`` highest scores."""
        s, idx, _ = batch
        n, c = s.shape
        if c > COLUMN_CLASSES:
            return self._wide_hits(s, idx)
        true = _true_class(s, idx, out=None if n < N.SMALL_ROWS else work(("top k", "true"), n))
        # the true class's rank: the classes scored above it, and those tied with it after it;
        # one column at a time, each contiguous (a broadcast over short rows pays per row, and a
        # column of the rows reads every row's memory), small integer counts
        st = N.by_label(s, "scores")
        small = N.counter_dtype(c)
        rank, equal = np.zeros(n, small), np.zeros(n, small)
        for j in range(c):
            np.add(rank, np.greater(st[j], true), out=rank)
            np.add(equal, np.equal(st[j], true), out=equal)
        if n and int(equal.max()) > 1:  # ties with the true class's score: those after it count
            for j in range(c):
                np.add(rank, np.equal(st[j], true) & (idx < j), out=rank)
        return rank < self.k

    def _wide_hits(self, s: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """:meth:`_hits` of rows of many classes, counted along each row."""
        n, c = s.shape
        true = _true_class(s, idx)
        columns = np.arange(c)
        step = max(WIDE_BLOCK_CELLS // c, 1)
        if self.k == 1:
            # the top class is the last column of the highest score: a hit where the true class
            # holds the highest score (its first column by argmax) and no later column ties it
            hits = true == _true_class(s, np.argmax(s, axis=1))
            held = np.flatnonzero(hits)
            for lo in range(0, len(held), step):
                rows = held[lo : lo + step]
                later = (s[rows] == true[rows, None]) & (columns > idx[rows, None])
                hits[rows[later.any(axis=1)]] = False
            return hits
        hits = np.empty(n, bool)
        for lo in range(0, n, step):
            block, t = s[lo : lo + step], true[lo : lo + step, None]
            rank = np.count_nonzero(block > t, axis=1)
            equal = block == t
            tied = np.flatnonzero(np.count_nonzero(equal, axis=1) > 1)  # (the true class itself: 1)
            if len(tied):  # ties with the true class's score: those after it count
                after = columns > idx[lo : lo + step][tied, None]
                rank[tied] += np.count_nonzero(equal[tied] & after, axis=1)
            hits[lo : lo + step] = rank < self.k
        return hits

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        return self._hits(batch).astype(np.float64).reshape(-1, 1)

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        if batch[-1] is not None:
            return super()._value_sums(batch)
        return np.array([float(np.count_nonzero(self._hits(batch)))])  # (0/1 values: sums exact)

    def _compute(self, state: RowSums) -> float:
        return float(self._means(state)[0] if self.normalize else state.totals[0])


class HingeLoss(_ClassRows):
    """The mean hinge loss ``max(0, 1 - margin)`` (scikit-learn ``hinge_loss``), or its square.

    Binary: 1-D decisions; the margin is ``y d`` with ``y = +1`` for ``pos_label`` and -1 for
    any other label (scikit-learn takes the greater of the labels it sees as positive: the same
    for {0, 1} and {-1, 1}). Multiclass (Crammer-Singer): ``(n, n_classes)`` decisions, margin
    ``d_y - max_{j != y} d_j``; a label is a column index or a position in ``labels``.

    Args:
        squared: Whether each row's loss is squared (torchmetrics ``squared=True``); default ``False``.
        pos_label: The positive label of binary input; default 1.
        labels: The class labels of multiclass input, one per column (``None``: column indices).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.HingeLoss().update([-1, 1, 1], [-2.18, 2.36, 0.09]).compute(), 6)
        0.303333
    """

    higher_is_better: ClassVar[bool | None] = False

    def __init__(self, *, squared: bool = False, pos_label: Any = 1, labels: Any = None) -> None:
        self.squared = _check_bool(squared, "squared")
        self.pos_label = plain(pos_label)
        self.labels = _labels_option(labels)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"squared": self.squared, "pos_label": self.pos_label, "labels": self.labels}

    @property
    def row_domain(self) -> Any:  # type: ignore[override]
        """A binary row (an integer label, a finite decision) takes the per-row path."""
        return (lambda t, d: _label_value(t)) if _int_label(self.pos_label) else None

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.labels(0, "y_true")
        d = inputs.floats(1, "y_score")
        v.check_length(d, len(yt), "y_score")
        if d.ndim == 1:
            # (-d in a work array; the margins themselves are the parsed batch: fresh)
            margin = np.where(yt == self.pos_label, d, np.negative(d, out=work(("hinge", "negated"), len(d))))
        else:
            n, c = d.shape
            if c < 2:
                raise InputError(f"y_score: expected at least 2 columns for multiclass decisions, found {c}")
            idx = _class_index(yt, c, self.labels)
            # the true class's decision, less the largest other (the true cells set to -inf in
            # a work copy)
            cells = _true_cells(idx, c)
            margin = d.ravel()[cells]
            small = n < N.SMALL_ROWS  # (fresh arrays: cheaper than a look-up on a small batch)
            other = d.copy() if small else work(("hinge", "other"), d.shape)
            if not small:
                np.copyto(other, d)
            other.ravel()[cells] = -np.inf
            if n:
                np.subtract(
                    margin, N.row_max(other, out=None if small else work(("hinge", "max"), n)), out=margin
                )
        return margin, inputs.weights(len(yt))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        loss = scratch(len(batch[0]))[0]
        np.subtract(1.0, batch[0], out=loss)
        np.maximum(loss, 0.0, out=loss)
        if self.squared:
            np.multiply(loss, loss, out=loss)
        return loss.reshape(-1, 1)


class ZeroOneLoss(_ClassRows):
    """The fraction of misclassified rows (scikit-learn ``zero_one_loss``): ``1 - accuracy``; a
    multilabel row (2-D indicators) counts as misclassified unless every label is right.

    Args:
        normalize: ``True`` (default): the weighted fraction; ``False``: the weighted count.

    Examples:
        >>> import streammetrics as sm
        >>> sm.ZeroOneLoss().update([1, 2, 3, 4], [2, 2, 3, 4]).compute()
        0.25
    """

    higher_is_better: ClassVar[bool | None] = False
    prediction: ClassVar[str | None] = "labels"

    def __init__(self, *, normalize: bool = True) -> None:
        self.normalize = _check_bool(normalize, "normalize")
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"normalize": self.normalize}

    @staticmethod
    def row_domain(t: Any, p: Any) -> bool:
        """Two integer labels take the per-row path (strings and others: the batch check)."""
        return _label_value(t) and _label_value(p)

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        if inputs.array(0, "y_true").ndim == 2:
            yt = v.as_indicator(inputs.array(0, "y_true"), "y_true")
            yp = v.as_indicator(inputs.array(1, "y_pred"), "y_pred")
            if yp.shape != yt.shape:
                raise InputError(f"y_pred: expected shape {yt.shape} (that of y_true), found {yp.shape}")
            wrong = N.row_any(yt != yp) if len(yt) else np.zeros(0, bool)
        else:
            yt = inputs.labels(0, "y_true")
            yp = inputs.labels(1, "y_pred")
            v.check_length(yp, len(yt), "y_pred")
            if len(yt) and (yt.dtype.kind == "i") != (yp.dtype.kind == "i"):
                raise InputError(
                    f"y_pred: expected labels of the kind of y_true ({yt.dtype.kind}), found {yp.dtype.kind}"
                )
            wrong = yt != yp
        return wrong, inputs.weights(len(wrong))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        return batch[0].astype(np.float64).reshape(-1, 1)

    def _compute(self, state: RowSums) -> float:
        return float(self._means(state)[0] if self.normalize else state.totals[0])


def _pair(inputs: Inputs, log_prob: bool) -> tuple[np.ndarray, np.ndarray]:
    """The two ``(n, d)`` arrays, of the same shape: log-probabilities checked finite, weights
    not yet checked (:func:`_distributions` or :func:`_one_pass` checks them)."""
    if log_prob:
        p = inputs.floats(0, "y_true", (2,))
        q = inputs.floats(1, "y_pred", (2,))
    else:  # (finite when their row sums are, the values being checked non-negative: below)
        p = inputs.unchecked_floats(0, "y_true", (2,))
        q = inputs.unchecked_floats(1, "y_pred", (2,))
    v.check_length(q, len(p), "y_pred")
    if q.shape != p.shape:
        raise InputError(f"y_pred: expected shape {p.shape} (that of y_true), found {q.shape}")
    return p, q


def _distributions(
    inputs: Inputs, p: np.ndarray, q: np.ndarray, log_prob: bool
) -> tuple[np.ndarray, np.ndarray, Any, bool]:
    """The two ``(n, d)`` distributions of :func:`_pair`, checked, their row sums and whether
    every value of both is positive: rows of non-negative weights with a positive sum (normalized
    by the formulas), or log-probabilities (sums ``None``)."""
    if log_prob:
        return p, q, None, True
    sums, positive = [], True
    for i, arr, name in ((0, p, "y_true"), (1, q, "y_pred")):
        lowest = arr.min() if arr.size else 0.0
        positive = positive and lowest > 0
        if not lowest >= 0:  # a negative value, or NaN
            v.check_finite(arr, name)  # (NaN and inf said first, as floats() says them)
            raise InputError(f"{name}: expected non-negative probabilities, found {lowest}")
        total = inputs.row_sums(i, arr)
        inputs.confirm_finite(i, name, arr, not len(arr) or bool(np.isfinite(total.max())))
        if len(arr) and not total.min() > 0:
            raise InputError(f"{name}: expected rows with a positive sum, found a row of zeros")
        sums.append(total)
    return p, q, sums, bool(positive)


#: The one-pass kernels' divergences (``_divergences.c``) and what they return.
KULLBACK_LEIBLER, JENSEN_SHANNON, JENSEN_SHANNON_OF_LOGS = 0, 1, 2
KERNEL_WROTE = 0


def _one_pass(inputs: Inputs, p: np.ndarray, q: np.ndarray, kind: int) -> np.ndarray | None:
    """Each row's divergence of ``p`` and ``q`` (:func:`_pair`'s) by the compiled one-pass
    kernel: the values :func:`_kl_of_weights` or :func:`_js_by_ratios` compute of weights, or
    :func:`_js_rows` of the exponentials of log-probabilities (checked finite by :func:`_pair`),
    with glibc's vector logarithms and exponentials (a few units in the last place apart), a
    row's checks and sums included. ``None`` where the kernel does not run (not built, neither
    AVX-512 nor AVX2, rows wider than it takes) or finds a weight or a row sum it must not take:
    the NumPy formulas then check the batch, and name what is wrong."""
    n, k = p.shape
    if divergences is None or not 1 <= k <= divergences.MAX_COLUMNS:
        return None
    out = np.empty(n)
    both = [np.ascontiguousarray(p), np.ascontiguousarray(q)]
    if divergences.divergence_rows(*both, out, n, k, kind) != KERNEL_WROTE:
        return None
    if kind != JENSEN_SHANNON_OF_LOGS:
        # (every weight non-negative and every row sum finite: so are the weights)
        inputs.confirm_finite(0, "y_true", p, True)
        inputs.confirm_finite(1, "y_pred", q, True)
    return out


def _kl_rows(p: np.ndarray, q: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``sum_j p_j log(p_j / q_j)`` per row (0 where p_j = 0; inf where q_j = 0 < p_j), into
    ``out`` when given."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.divide(p, q, out=work(("kl rows", 0), p.shape))
        np.log(terms, out=terms)
        terms *= p
    held = np.greater(p, 0.0, out=work(("kl rows", 1), p.shape, bool))
    if not held.all():
        np.copyto(terms, 0.0, where=~held)  # (p = 0: no term, whatever q; not 0 * -inf)
    return np.matmul(terms, N.ones(terms.shape[1]), out=out)  # (row sums: one matrix-vector product)


def _kl_of_weights(p: np.ndarray, q: np.ndarray, sums: list[np.ndarray]) -> np.ndarray:
    """KL of the normalized rows ``p / P``, ``q / Q`` (``P``, ``Q`` their sums), without
    normalizing them: ``sum_j p_j log(p_j / q_j) / P + log(Q / P)``."""
    total_p, total_q = sums
    out = _kl_rows(p, q)
    out /= total_p
    ratio = np.divide(total_q, total_p, out=work(("kl", "log ratio"), len(out)))
    with np.errstate(divide="ignore", invalid="ignore"):  # (inf rows stay inf: refused)
        out += np.log(ratio, out=ratio)
    return out


def _js_rows(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``(KL(p || m) + KL(q || m)) / 2``, ``m = (p + q) / 2``, per row of two distributions."""
    m = np.add(p, q, out=work(("js rows", 0), p.shape))
    m /= 2
    out = _kl_rows(p, m)
    out += _kl_rows(q, m, out=work(("js rows", 1), len(out)))
    out *= 0.5  # (the mean of the two: halving is exact)
    return out


#: The natural log of 2 (``log(p' / m) = log 2 - log1p(u)``).
LOG_2 = math.log(2.0)


def _js_by_ratios(p: np.ndarray, q: np.ndarray, total_p: np.ndarray, total_q: np.ndarray) -> np.ndarray:
    """JS of the normalized rows ``p / P``, ``q / Q`` of positive weights, without normalizing
    them: with ``u = (q / p) (P / Q)`` (the ratio of the normalized values),
    ``log(p' / m) = log 2 - log1p(u)`` and ``log(q' / m) = log(u) + log(p' / m)``, so
    ``2 JS = sum_j p_j log(p'_j / m_j) / P + sum_j q_j log(q'_j / m_j) / Q`` (half the passes of
    normalizing both, and no quotient ``2 / (1 + u)``). A zero weight, or a ratio beyond the float
    range, makes its row's value NaN or infinite (the caller computes those rows otherwise)."""
    with np.errstate(all="ignore"):
        ratio = np.divide(q, p, out=work(("js ratios", 0), p.shape))
        if rowkernels is not None:  # the same operations, with no broadcast and no pass per step
            n, k = p.shape
            p, q, total_p, total_q = (np.ascontiguousarray(a) for a in (p, q, total_p, total_q))
            rowkernels.scale_rows(ratio, total_p, total_q, n, k)
            log1p_u = np.log1p(ratio, out=work(("js ratios", 1), p.shape))
            log_u = np.log(ratio, out=ratio)
            out = np.empty(n)
            rowkernels.js_sums(p, q, log1p_u, log_u, total_p, total_q, out, n, k)
            return out
        ratio *= np.divide(total_p, total_q, out=work(("js ratios", "sums"), len(p)))[:, None]
        log_p_over_m = np.log1p(ratio, out=work(("js ratios", 1), p.shape))
        np.subtract(LOG_2, log_p_over_m, out=log_p_over_m)
        log_q_over_m = np.log(ratio, out=ratio)
        log_q_over_m += log_p_over_m
        log_p_over_m *= p
        log_q_over_m *= q
        ones = N.ones(p.shape[1])
        out = np.matmul(log_p_over_m, ones)  # (row sums: one matrix-vector product)
        out /= total_p
        second = np.matmul(log_q_over_m, ones, out=work(("js ratios", "sums"), len(p)))
        second /= total_q
        out += second
    out *= 0.5
    return out


def _js_of_weights(p: np.ndarray, q: np.ndarray, sums: list[np.ndarray], positive: bool) -> np.ndarray:
    """JS of the normalized rows of ``p`` and ``q`` (non-negative, positive row sums ``sums``):
    :func:`_js_by_ratios` for the rows it can take, :func:`_js_rows` of the normalized rows for
    the rest (rows with a zero weight, or a ratio beyond the float range). Which formula a row
    takes depends on that row alone, whatever else the batch holds."""
    total_p, total_q = sums
    if positive:
        out = _js_by_ratios(p, q, total_p, total_q)
        redo = ~np.isfinite(out)
    else:  # the rows with a zero go to the normalized path at once
        redo = N.row_any(p == 0)
        redo |= N.row_any(q == 0)
        out = np.empty(len(p))
        take = ~redo
        out[take] = _js_by_ratios(N.keep_rows(p, take), N.keep_rows(q, take), total_p[take], total_q[take])
        redo |= ~np.isfinite(out)
    return _js_redo(p, q, out, redo, sums)


def _js_redo(
    p: np.ndarray, q: np.ndarray, out: np.ndarray, redo: np.ndarray, sums: list[np.ndarray] | None
) -> np.ndarray:
    """``out`` with the rows ``redo`` (a zero weight, or a ratio beyond the float range) computed
    by :func:`_js_rows` of the normalized rows, by their sums ``sums`` (computed here if ``None``)."""
    if redo.any():
        rows = [N.keep_rows(a, redo) for a in (p, q)]
        totals = [a @ N.ones(p.shape[1]) for a in rows] if sums is None else [t[redo] for t in sums]
        out[redo] = _js_rows(*(a / total[:, None] for a, total in zip(rows, totals, strict=True)))
    return out


class _Divergence(_ClassRows, base=True):
    higher_is_better: ClassVar[bool | None] = False

    def __init__(self, *, log_prob: bool = False, reduction: str = "mean") -> None:
        self.log_prob = _check_bool(log_prob, "log_prob")
        self.reduction = check_option("reduction", reduction, ("mean", "sum"))
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"log_prob": self.log_prob, "reduction": self.reduction}

    def _compute(self, state: RowSums) -> float:
        total = float(state.totals[0])
        return total / state.total_weight if self.reduction == "mean" else total


class KLDivergence(_Divergence):
    """The Kullback-Leibler divergence ``KL(P || Q) = sum_j p_j log(p_j / q_j)`` of each row's
    distributions, averaged (or summed) over rows (torchmetrics ``KLDivergence``).

    ``update(y_true, y_pred)``: P and Q as ``(n, d)`` arrays; non-negative rows are normalized to
    sum to 1 (as torchmetrics), or they are log-probabilities with ``log_prob=True``. A row where
    ``q_j = 0 < p_j`` is refused (its divergence is infinite).

    Args:
        log_prob: Whether the inputs are log-probabilities; default ``False``.
        reduction: ``"mean"`` (default) or ``"sum"`` over rows (weighted).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.KLDivergence().update([[0.36, 0.48, 0.16]], [[1 / 3, 1 / 3, 1 / 3]]).compute(), 6)
        0.0853
    """

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        p, q = _pair(inputs, self.log_prob)
        values = None if self.log_prob else _one_pass(inputs, p, q, KULLBACK_LEIBLER)
        if values is None:
            p, q, sums, _ = _distributions(inputs, p, q, self.log_prob)
            values = N.row_sum(np.exp(p) * (p - q)) if sums is None else _kl_of_weights(p, q, sums)
        if len(values) and not np.isfinite(values).all():
            raise InputError("y_pred: expected q_j > 0 wherever p_j > 0, found a zero (infinite divergence)")
        return values, inputs.weights(len(p))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        return batch[0].reshape(-1, 1)


class JensenShannonDivergence(_Divergence):
    """The Jensen-Shannon divergence ``(KL(P || M) + KL(Q || M)) / 2``, ``M = (P + Q) / 2``, of
    each row's distributions (natural log), averaged (or summed) over rows (torchmetrics
    ``JensenShannonDivergence``; SciPy's ``jensenshannon`` is its square root).

    Args:
        log_prob: Whether the inputs are log-probabilities; default ``False``.
        reduction: ``"mean"`` (default) or ``"sum"`` over rows (weighted).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.JensenShannonDivergence().update([[0.36, 0.48, 0.16]], [[1 / 3, 1 / 3, 1 / 3]]).compute(), 6)
        0.02246
    """

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        p, q = _pair(inputs, self.log_prob)
        values = _one_pass(inputs, p, q, JENSEN_SHANNON_OF_LOGS if self.log_prob else JENSEN_SHANNON)
        if values is not None:
            if not self.log_prob:  # (a zero weight, or a ratio beyond the float range: redone)
                values = _js_redo(p, q, values, ~np.isfinite(values), None)
            return values, inputs.weights(len(p))
        p, q, sums, positive = _distributions(inputs, p, q, self.log_prob)
        if sums is None:
            # (the two distributions in work arrays: fresh ones would cost more in page faults)
            p, q = (np.exp(a, out=work(("js", i), a.shape)) for i, a in enumerate((p, q)))
            values = _js_rows(p, q)
        else:
            values = _js_of_weights(p, q, sums, positive)
        return values, inputs.weights(len(p))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        return batch[0].reshape(-1, 1)


def _binary_pair(inputs: Inputs, from_logits: bool) -> tuple[np.ndarray, np.ndarray]:
    labels = inputs.labels(0, "y_true")
    p = inputs.floats(1, "y_pred", (1,)) if from_logits else inputs.probabilities(1, "y_pred", (1,))
    v.check_length(p, len(labels), "y_pred")
    if len(labels) and (labels.dtype.kind != "i" or labels.min() < 0 or labels.max() > 1):
        bad = labels[~np.isin(labels, (0, 1))] if labels.dtype.kind == "i" else labels
        raise InputError(f"y_true: expected 0/1 labels, found {bad[0]!r}")
    return labels.astype(np.float64), p


class NormalizedEntropy(_ClassRows):
    """The binary cross entropy over the entropy of the base rate: ``mean BCE(y, p) / H(ȳ)``
    (torcheval ``BinaryNormalizedEntropy``), with weighted means.

    ``update(y_true, y_pred)``: 0/1 labels and probabilities (logits with ``from_logits=True``);
    logarithms floored at -100 as torch's binary cross entropy.

    Args:
        from_logits: Whether ``y_pred`` holds logits; default ``False``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.NormalizedEntropy().update([1, 0], [0.2, 0.3]).compute(), 4)
        1.4183
    """

    higher_is_better: ClassVar[bool | None] = False
    row_width: ClassVar[int] = 2

    def __init__(self, *, from_logits: bool = False) -> None:
        self.from_logits = _check_bool(from_logits, "from_logits")
        super().__init__()

    @property
    def row_domain(self) -> Any:  # type: ignore[override]
        if self.from_logits:
            return lambda t, p: t == 0 or t == 1
        return lambda t, p: (t == 0 or t == 1) and 0.0 <= p <= 1.0

    def get_config(self) -> dict[str, Any]:
        return {"from_logits": self.from_logits}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        y, p = _binary_pair(inputs, self.from_logits)
        return y, p, inputs.weights(len(y))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        y, p, _ = batch
        out = np.empty((len(y), 2))
        positive = y == 1
        if self.from_logits:
            loss = self._logit_losses(p, positive)
        else:
            loss = np.empty(len(y))
            loss[positive], loss[~positive] = self._probability_losses(p, positive)
        np.minimum(loss, -TORCH_LOG_FLOOR, out=out[:, 0])
        out[:, 1] = y
        return out

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        y, p, w = batch
        if w is not None:
            return super()._value_sums(batch)
        # unweighted: the losses summed in any order (no per-row values to write back in place)
        positive = y == 1
        if self.from_logits:
            parts = [self._logit_losses(p, positive)]
        else:
            parts = self._probability_losses(p, positive)
        total = math.fsum(float(np.add.reduce(np.minimum(x, -TORCH_LOG_FLOOR, out=x))) for x in parts)
        return np.array([total, float(np.count_nonzero(positive))])

    @staticmethod
    def _logit_losses(x: np.ndarray, positive: np.ndarray) -> np.ndarray:
        """-log sigmoid(x) = log(1 + e^-x) on positive rows, -log(1 - sigmoid(x)) = log(1 + e^x)
        on the others: one ``logaddexp`` a row."""
        return np.logaddexp(0.0, np.where(positive, -x, x))

    @staticmethod
    def _probability_losses(p: np.ndarray, positive: np.ndarray) -> list[np.ndarray]:
        """-log p on the ``positive`` rows, -log(1 - p) (as ``log1p(-p)``) on the others, in row
        order: each row's one logarithm, on its rows only (computed in the gathered copies)."""
        ones, zeros = np.compress(positive, p), np.compress(~positive, p)
        with np.errstate(divide="ignore"):
            np.log(ones, out=ones)
            np.negative(zeros, out=zeros)
            np.log1p(zeros, out=zeros)
        return [np.negative(ones, out=ones), np.negative(zeros, out=zeros)]

    def _compute(self, state: RowSums) -> float:
        ce, rate = self._means(state)
        rate = min(max(rate, 0.0), 1.0)
        base = -(math.log(rate) * rate if rate > 0 else 0.0) - (
            math.log1p(-rate) * (1 - rate) if rate < 1 else 0.0
        )
        if base == 0:
            warnings.warn(
                "NormalizedEntropy is undefined when every label is the same (no base entropy); returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
            return math.nan
        return float(ce / base)


class WeightedCalibration(_ClassRows):
    """The weighted sum of predictions over the weighted sum of labels: ``sum w p / sum w y``
    (torcheval ``WeightedCalibration``); 1 for predictions calibrated in the large.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> sm.WeightedCalibration().update([0, 0, 1, 1], [0.8, 0.4, 0.8, 0.7]).compute()
        1.35
    """

    row_width: ClassVar[int] = 2
    row_domain = staticmethod(always)

    def get_config(self) -> dict[str, Any]:
        return {}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        y = inputs.floats(0, "y_true", (1,))
        p = inputs.floats(1, "y_pred", (1,))
        v.check_length(p, len(y), "y_pred")
        return y, p, inputs.weights(len(y))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        y, p, _ = batch
        out = scratch(len(y), 2)[0]
        out[0], out[1] = p, y
        return out.T

    def _compute(self, state: RowSums) -> float:
        pred, label = state.totals
        if label == 0:
            warnings.warn(
                "WeightedCalibration is undefined when the labels sum to 0; returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
            return math.nan
        return float(pred / label)


class _D2Probability(_ClassRows, base=True):
    """``1 - loss(y, p) / loss(y, prior)``, the prior being the weighted class frequencies.

    Columns: the row's loss, then the one-hot truth (its weighted sums are the class weights).
    """

    higher_is_better: ClassVar[bool | None] = True
    #: A binary row gives its loss and the one-hot truth of two classes.
    row_width: ClassVar[int] = 3

    def __init__(self, *, labels: Any = None) -> None:
        self.labels = _labels_option(labels)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"labels": self.labels}

    @property
    def row_domain(self) -> Any:  # type: ignore[override]
        """A binary row (one of the two integer labels, a probability) takes the per-row path."""
        if self.labels is not None and (len(self.labels) != 2 or not all(map(_int_label, self.labels))):
            return None
        negative, positive = [0, 1] if self.labels is None else self.labels
        return lambda t, p: (t == positive or t == negative) and 0.0 <= p <= 1.0

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.labels(0, "y_true")
        p = inputs.probabilities(1, "y_proba")
        v.check_length(p, len(yt), "y_proba")
        if p.ndim == 1:
            known = [0, 1] if self.labels is None else self.labels
            if len(known) != 2:
                raise InputError(f"y_proba: expected 2-D probabilities for {len(known)} labels, found 1-D")
            idx = _class_index(yt, 2, known)
            both = np.empty((len(p), 2))
            both[:, 1] = p
            np.subtract(1.0, p, out=both[:, 0])
            p = both
        else:
            inputs.check_rows_sum_to_one(1, p, "y_proba")
            idx = _class_index(yt, p.shape[1], self.labels)
        width = self._state.width
        if width is not None and len(yt) and p.shape[1] + 1 != width:
            raise InputError(
                f"y_proba: expected {width - 1} classes like earlier batches, found {p.shape[1]}"
            )
        return p, idx, inputs.weights(len(yt))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        p, idx, _ = batch
        n, k = p.shape
        out = np.zeros((n, k + 1))
        out[:, 0] = self._loss(p, idx)
        out[np.arange(n), idx + 1] = 1.0
        return out

    def _value_sums(self, batch: tuple[Any, ...]) -> np.ndarray:
        # the loss column's sum, and the class columns' sums as counts (no one-hot rows)
        p, idx, w = batch
        counts = np.bincount(idx, weights=w, minlength=p.shape[1]).astype(np.float64)
        return np.concatenate([[self._loss_sum(p, idx) if w is None else w @ self._loss(p, idx)], counts])

    def _loss_sum(self, p: np.ndarray, idx: np.ndarray) -> float:
        """The sum of the rows' losses."""
        return float(np.add.reduce(self._loss(p, idx)))

    def _compute(self, state: RowSums) -> float:
        totals = state.totals
        prior = np.maximum(totals[1:], 0.0) / state.total_weight
        num, den = totals[0] / state.total_weight, self._null(prior)
        if state.n_samples < 2 or den <= 64 * np.finfo(float).eps:
            warnings.warn(
                f"{type(self).__name__} is undefined with one row or one class; returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
            return math.nan
        return float(1.0 - num / den)


class D2LogLossScore(_D2Probability):
    """D² of the log loss: ``1 - LogLoss(y, p) / LogLoss(y, prior)`` with the weighted class
    frequencies as the prior (scikit-learn ``d2_log_loss_score``); the true class's probability
    is clipped to ``[eps, 1 - eps]`` (``eps`` the float64 machine epsilon), as scikit-learn's.

    Binary: labels 0/1 (or two ``labels``, the second positive) and 1-D probabilities of the
    positive class; multiclass: ``(n, n_classes)`` probabilities, a label being a column index or
    a position in ``labels``. Undefined (NaN, warning) with fewer than two rows or one class.

    Args:
        labels: The class labels, one per probability column (``None``: column indices).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.D2LogLossScore().update([1, 1, 0, 0], [0.9, 0.6, 0.2, 0.3]).compute(), 6)
        0.568633
    """

    def _loss(self, p: np.ndarray, idx: np.ndarray) -> np.ndarray:
        loss = _true_class(p, idx, out=work(("d2 log loss",), len(idx)))
        _clipped(loss, out=loss)  # to [eps, 1 - eps], as scikit-learn's log loss (and LogLoss)
        np.log(loss, out=loss)
        np.negative(loss, out=loss)
        return loss

    def _null(self, prior: np.ndarray) -> float:
        nz = prior[prior > 0]
        return float(-(nz * np.log(nz)).sum())


class D2BrierScore(_D2Probability):
    """D² of the Brier score: ``1 - Brier(y, p) / Brier(y, prior)`` with the weighted class
    frequencies as the prior (scikit-learn ``d2_brier_score``); inputs as
    :class:`D2LogLossScore`.

    Args:
        labels: The class labels, one per probability column (``None``: column indices).

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.D2BrierScore().update([1, 1, 0, 0], [0.9, 0.6, 0.2, 0.3]).compute(), 6)
        0.7
    """

    def _loss(self, p: np.ndarray, idx: np.ndarray) -> np.ndarray:
        d = self._residuals(p, idx)
        return np.einsum("ij,ij->i", d, d)

    def _loss_sum(self, p: np.ndarray, idx: np.ndarray) -> float:
        d = self._residuals(p, idx).ravel()
        return float(np.dot(d, d))  # (every cell's square at once: no row sums)

    @staticmethod
    def _residuals(p: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``p`` minus the one-hot rows of the true classes (a work copy)."""
        d = work(("brier", "residuals"), p.shape)
        np.copyto(d, p)
        cells = _true_cells(idx, d.shape[1])
        d.ravel()[cells] -= 1.0
        return d

    def _null(self, prior: np.ndarray) -> float:
        return float(1.0 - prior @ prior)
