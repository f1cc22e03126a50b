"""Multilabel ranking metrics and per-query DCG/NDCG on the per-row value state (issue 17).

A row is one sample's label relevances and label scores (scikit-learn's multilabel ranking
layout), or one query's document relevances and document scores (scikit-learn's ``dcg_score``
and ``ndcg_score`` layout): ``update(y_true, y_score)`` with two ``(n, n_labels)`` arrays. Each
row gives one number (its coverage, its label ranking average precision, its ranking loss, its
DCG or NDCG); the metric keeps their compensated weighted sum and the total weight
(:class:`~streammetrics.aggregation.state.RowSums`), so it merges, reverts and decays exactly,
and ``compute()`` is scikit-learn's weighted mean over every row seen.

The rows of a batch are ranked at once, with no Python loop per row: rows of up to
:data:`PAIRWISE_LABELS` labels by comparing every pair of labels (each label's counts of the
labels scored at least and at most as high), wider rows by one sort of each row (``np.argsort``
along the rows), the tie groups found from the sorted scores, counts by cumulative sums.
Batches may hold different numbers of labels (documents): each row stands alone.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.compiled import rowkernels
from .._core.inputs import Inputs
from .._core.narrow import SMALL_ROWS, SORTING_NETWORK_MEMBERS, by_label, ones, sort_rows, transpose_into
from .._core.workspace import work
from ..aggregation.base import RowValueMetric, scratch_row
from ..aggregation.state import RowSums
from ..errors import InputError


def _check_k(k: Any) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k: expected None or an int >= 1, found {k!r}")
    return int(k)


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, found {value!r}")
    return bool(value)


def _columns(arr: np.ndarray, name: str, what: str) -> None:
    """A 2-D ``(n, n_labels)`` array with at least 2 columns (an ``(n, 1)`` column reads as 1-D)."""
    if arr.ndim != 2 or (len(arr) and arr.shape[1] < 2):
        shape = arr.shape if arr.ndim != 1 else f"({len(arr)},) or ({len(arr)}, 1)"
        raise InputError(
            f"{name}: expected an (n_samples, n_{what}) array with at least 2 {what}, found {shape}"
        )


def _scores(inputs: Inputs, shape: tuple[int, ...], checked: bool = True) -> np.ndarray:
    """``y_score`` of the shape of ``y_true``: finite, or, unless ``checked``, not yet checked
    (the caller then confirms it, :meth:`Inputs.confirm_finite`)."""
    s = inputs.floats(1, "y_score", (1, 2)) if checked else inputs.unchecked_floats(1, "y_score", (1, 2))
    v.check_length(s, shape[0], "y_score")
    if s.shape != shape:
        raise InputError(f"y_score: expected shape {shape} (that of y_true), found {s.shape}")
    return s


def tie_groups(ss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted along axis 1: the first and the last index of each entry's tie group."""
    n, m = ss.shape
    pos = np.arange(m)
    differs = ss[:, 1:] != ss[:, :-1]
    first = np.zeros((n, m), dtype=np.intp)
    first[:, 1:] = np.where(differs, pos[1:], 0)
    np.maximum.accumulate(first, axis=1, out=first)
    last = np.full((n, m), m - 1, dtype=np.intp)
    last[:, :-1] = np.where(differs, pos[:-1], m - 1)
    last = np.minimum.accumulate(last[:, ::-1], axis=1)[:, ::-1]
    return first, last


def label_ranks(relevant: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by score: the relevance in that order, and for each entry ``j`` the number
    of labels scored at least ``s_j`` (its rank, ties given the largest) and the number of
    relevant labels among them; and the relevant labels per row."""
    n, m = s.shape
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    rel = np.take_along_axis(relevant, order, axis=1)
    first, _ = tie_groups(ss)
    rank = m - first
    before = np.cumsum(rel, axis=1, dtype=np.intp)
    n_relevant = before[:, -1].copy() if m else np.zeros(n, np.intp)
    before -= rel  # relevant labels strictly before each entry
    relevant_at_least = n_relevant[:, None] - np.take_along_axis(before, first, axis=1)
    return rel, rank, relevant_at_least, n_relevant


#: Rows of at most this many labels rank by comparisons of every pair of labels (``m**2`` per
#: row, in label-row passes), not by a sort along each short row (which NumPy pays per row);
#: their counts fit in uint8.
PAIRWISE_LABELS = 32
#: Up to this many labels, a large batch compares its label rows pair by pair (a pass per pair);
#: wider rows compare every pair at once, a block of rows at a time.
COLUMN_LABELS = 8


#: Batches of at most this many (label, label, row) cells compare all pairs of labels in one
#: broadcast comparison (a call per pair otherwise: on a small batch the calls, not the
#: comparisons, are the cost; on 100,000 rows of 5 labels the two read about even). Rows of more
#: than :data:`COLUMN_LABELS` labels always do, in blocks of at least :data:`BLOCK_ROWS` rows.
BROADCAST_CELLS = 1 << 20
#: The fewest rows of a block of the broadcast comparisons (measured best for 9 to 32 labels).
BLOCK_ROWS = 4096


def _blocks(m: int, n: int) -> list[slice] | None:
    """The row blocks of the broadcast comparisons of ``n`` rows of ``m`` labels (one slice of
    every row when they fit in one), or ``None`` when the batch compares pair by pair (few
    labels, many rows)."""
    if m * m * n <= BROADCAST_CELLS:
        return [_EVERY_ROW]
    if m <= COLUMN_LABELS:
        return None
    step = max(BROADCAST_CELLS // (m * m), BLOCK_ROWS)
    return [slice(lo, lo + step) for lo in range(0, n, step)]


_EVERY_ROW = slice(None)


def compared_pairs(s: np.ndarray) -> np.ndarray:
    """``ge[i, j] = s_i >= s_j`` for a :func:`by_label` array ``s`` of ``m`` labels: an
    ``(m, m, n)`` bool work array (the diagonal, each label against itself, true)."""
    m, n = s.shape
    return np.greater_equal(s[:, None, :], s[None, :, :], out=work(("compared pairs",), (m, m, n), bool))


def pairwise_ranks(relevant: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each label ``j`` of each row: the number of labels scored at least ``s_j`` (its rank,
    ties given the largest) and the number of relevant labels among them, as :func:`label_ranks`
    gives them in score order, here by label. ``relevant`` (bool) and ``s`` (finite) are
    :func:`by_label` arrays of at most :data:`PAIRWISE_LABELS` labels; so are the two uint8
    results (work arrays)."""
    m, n = s.shape
    blocks = _blocks(m, n)
    if blocks is not None:  # every pair at once; the diagonal counts each label itself
        rank = work(("pairwise ranks", 0), (m, n), np.uint8)
        relevant_at_least = work(("pairwise ranks", 1), (m, n), np.uint8)
        for rows in blocks:
            ge = compared_pairs(s[:, rows])
            np.add.reduce(ge.view(np.uint8), axis=0, dtype=np.uint8, out=rank[:, rows])
            ge &= relevant[:, None, rows]
            np.add.reduce(ge.view(np.uint8), axis=0, dtype=np.uint8, out=relevant_at_least[:, rows])
        return rank, relevant_at_least
    rank = work(("pairwise ranks", 0), (m, n), np.uint8)
    rank.fill(1)  # each label is scored at least as high as itself
    relevant_at_least = work(("pairwise ranks", 1), (m, n), np.uint8)
    np.copyto(relevant_at_least, relevant.view(np.uint8))  # ... and counts itself if relevant
    at_least = work(("pairwise ranks", 2), n, bool)
    count = at_least.view(np.uint8)  # (a uint8 sum of uint8 terms: no cast of the booleans)
    for j in range(m):
        for i in range(m):
            if i != j:
                np.greater_equal(s[i], s[j], out=at_least)
                np.add(rank[j], count, out=rank[j])
                at_least &= relevant[i]
                np.add(relevant_at_least[j], count, out=relevant_at_least[j])
    return rank, relevant_at_least


def looked_up(table: np.ndarray, cells: np.ndarray, slot: str) -> np.ndarray:
    """``table[cells]`` for an integer array of table cells, in the work arrays ``slot``."""
    index = work((slot, "index"), cells.shape, np.intp)
    np.copyto(index, cells)  # (np.take reads any other index type far more slowly)
    # (mode="clip": the cells are in range by construction, and the default mode copies the
    # result through a buffer of its own when given ``out``)
    return np.take(table, index, out=work((slot, "values"), cells.shape), mode="clip")


def label_sums(a: np.ndarray, dtype: Any = np.uint8) -> np.ndarray:
    """The sum over labels of each row of a :func:`by_label` bool or uint8 array, in ``dtype``
    (uint8: the caller knows the sums are at most 255)."""
    return np.add.reduce(a.view(np.uint8), axis=0, dtype=dtype)


@functools.cache
def _precisions(m: int) -> np.ndarray:
    """``a / r`` at ``r * (m + 1) + a`` (``1 <= r <= m``, ``0 <= a <= r``), 0 at 0: a relevant
    label's precision read by its rank and the relevant labels at least as high."""
    r, a = np.divmod(np.arange((m + 1) ** 2), m + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((r >= 1) & (a <= r), a / r, 0.0)


#: The relevance dtypes the compiled kernels read as they are (others are copied as float64).
KERNEL_GAINS = frozenset(np.dtype(t) for t in (np.float64, np.int64, np.int32, np.uint8, np.bool_))


def compiled_rows(relevance: np.ndarray) -> bool:
    """Whether a batch's rows take the compiled kernels (:mod:`streammetrics._core._rowkernels`:
    built, and rows of at most :data:`PAIRWISE_LABELS` documents), whatever the batch's size, so
    that a row's value never depends on the batch it came in."""
    return rowkernels is not None and relevance.shape[1] <= PAIRWISE_LABELS and len(relevance) > 0


def _kernel_gains(relevance: np.ndarray) -> np.ndarray:
    """The relevances as the kernels read them: C-ordered, of a dtype they take."""
    if relevance.dtype not in KERNEL_GAINS:
        return relevance.astype(np.float64, order="C")  # (the conversion the NumPy formulas make)
    return np.ascontiguousarray(relevance)


#: The kinds of the compiled label-ranking kernel (``_rowkernels.label_ranking_rows``' numbering).
COVERAGE, AVERAGE_PRECISION, RANKING_LOSS = 0, 1, 2
#: What ``_rowkernels.label_ranking_rows`` and ``ndcg_rows`` return: the values written; a
#: relevance refused (not 0 or 1; negative); a score that is not finite.
KERNEL_WROTE, KERNEL_BAD_RELEVANCE, KERNEL_NOT_FINITE = 0, 1, 2


#: Whether the kernels run their AVX-512 loops (rows of 2 to 16 entries, where the CPU has them:
#: ``_rowkernels.AVX512``); they measured faster than NumPy's passes at every width.
AVX512_ROWS = bool(getattr(rowkernels, "AVX512", 0))
#: The narrowest rows whose label ranking average precision the compiled kernel computes (narrower
#: ones: NumPy's passes over label rows, measured faster than the portable loops on batches of
#: 100,000 rows of 3 labels, slower from 5; the AVX-512 loops, faster at 2: 196 against 153 M rows/s).
KERNEL_PRECISION_LABELS = 2 if AVX512_ROWS else 5
#: The same for the label ranking loss on a batch of at least ``SMALL_ROWS`` rows (NumPy measured
#: faster than the portable loops up to 6 labels, even at 7; the AVX-512 loops 124-242 M rows/s at 2
#: to 8 labels, NumPy 233-39); a smaller batch takes the kernel at any width (the loss, from whole
#: counts, is the same bit for bit either way). The coverage error takes it at any width.
KERNEL_LOSS_LABELS = 2 if AVX512_ROWS else 8


class _RowRanking(RowValueMetric, base=True):
    """``update(y_true, y_score, sample_weight=None)`` with two ``(n, n_labels)`` arrays; one
    value per row, averaged with the weights."""

    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_score")
    prediction: ClassVar[str | None] = "scores"

    def get_config(self) -> dict[str, Any]:
        return {}

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        raw = inputs.array(0, "y_true")
        _columns(raw, "y_true", "labels")
        kind = self._kernel_kind(raw) if compiled_rows(raw) and raw.dtype in KERNEL_GAINS else None
        if kind is not None:
            # the values at once, into a fresh array (the batch keeps them), the kernel checking
            # the relevances (0 or 1) and the scores (finite) as it reads them: no boolean copy
            s = np.ascontiguousarray(_scores(inputs, raw.shape, checked=False))
            values = np.empty(len(raw))
            assert rowkernels is not None  # (compiled_rows said so)
            if rowkernels.label_ranking_rows(kind, _kernel_gains(raw), s, values, *raw.shape) == KERNEL_WROTE:
                inputs.confirm_finite(1, "y_score", s, True)
                return values, inputs.weights(len(raw))
            # (a relevance or a score refused: the checks below say which, as without the kernel)
        y = v.as_indicator(raw, "y_true")  # (after the kernel's refusal: raises, naming the value)
        return y, _scores(inputs, y.shape), inputs.weights(len(y))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        if len(batch) == 2:  # (the values, computed by :meth:`_parse_rows`)
            return batch[0].reshape(-1, 1)
        y, s, _ = batch
        return self._per_row(y, s).reshape(-1, 1)

    def _kernel_kind(self, relevance: np.ndarray) -> int | None:
        """The compiled label-ranking kernel's kind for a batch's rows (:func:`compiled_rows`), or
        ``None`` for the NumPy formulas."""
        return None

    def _per_row(self, y: np.ndarray, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _compute(self, state: RowSums) -> float:
        return float(self._means(state)[0])


class CoverageError(_RowRanking):
    """How far down the ranked labels one must go to cover every relevant label, averaged over
    rows (scikit-learn ``coverage_error``): per row, the number of labels scored at least as high
    as the lowest-scored relevant label (0 for a row without relevant labels).

    ``update(y_true, y_score)``: ``(n, n_labels)`` 0/1 relevance indicators and scores.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> sm.CoverageError().update([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]).compute()
        2.5
    """

    higher_is_better: ClassVar[bool | None] = False

    def _kernel_kind(self, relevance: np.ndarray) -> int | None:
        return COVERAGE

    def _per_row(self, y: np.ndarray, s: np.ndarray) -> np.ndarray:
        n, m = s.shape
        if m > PAIRWISE_LABELS or not n:
            lowest = np.where(y, s, np.inf).min(axis=1, initial=np.inf)
            return (s >= lowest[:, None]).sum(axis=1).astype(np.float64)
        s = by_label(s, "scores")
        # the lowest relevant score of each row: irrelevant labels' scores raised to +inf by
        # adding 1 / y - 1 (inf, or 0 where relevant; np.where costs more on a random mask)
        raised = work(("coverage", 0), s.shape)
        np.copyto(raised, by_label(y, "relevance"))
        with np.errstate(divide="ignore"):
            np.divide(1.0, raised, out=raised)
        raised -= 1.0
        raised += s
        lowest = np.minimum.reduce(raised, axis=0, out=work(("coverage", 2), n))
        covered = label_sums(np.greater_equal(s, lowest, out=work(("coverage", 1), s.shape, bool)))
        out = scratch_row(n)
        np.copyto(out, covered)
        return out


class LabelRankingAveragePrecision(_RowRanking):
    """The label ranking average precision (scikit-learn ``label_ranking_average_precision_score``):
    per row, the mean over its relevant labels ``j`` of the fraction of relevant labels among
    those scored at least ``s_j``; 1 for a row whose labels are all relevant or all irrelevant.

    ``update(y_true, y_score)``: ``(n, n_labels)`` 0/1 relevance indicators and scores.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.LabelRankingAveragePrecision()
        >>> round(m.update([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]).compute(), 6)
        0.416667
    """

    higher_is_better: ClassVar[bool | None] = True

    def _kernel_kind(self, relevance: np.ndarray) -> int | None:
        return AVERAGE_PRECISION if relevance.shape[1] >= KERNEL_PRECISION_LABELS else None

    def _per_row(self, y: np.ndarray, s: np.ndarray) -> np.ndarray:
        m = y.shape[1]
        if m <= PAIRWISE_LABELS:
            y = by_label(y, "relevance")
            rank, relevant_at_least = pairwise_ranks(y, by_label(s, "scores"))
            n_relevant = label_sums(y)
            # each relevant label's precision from a table, by its two counts (0 if irrelevant):
            # the cell r * (m + 1) + a is at most m * (m + 2)
            narrow = m * (m + 2) <= 255
            cell = np.multiply(
                rank, np.uint8(m + 1) if narrow else np.uint16(m + 1), out=rank if narrow else None
            )
            cell += relevant_at_least
            cell *= y.view(np.uint8)
            ratio = np.matmul(ones(m), looked_up(_precisions(m), cell, "precisions"), out=scratch_row(len(s)))
        else:
            rel, rank, relevant_at_least, n_relevant = label_ranks(y, s)
            ratio = np.where(rel, relevant_at_least / rank, 0.0).sum(axis=1)
        # 1 for a row without relevant labels (as scikit-learn; a row whose labels are all
        # relevant gets m / m = 1 from the sum); arithmetic, not np.where, on a random mask
        ratio /= np.maximum(n_relevant, 1)
        ratio += n_relevant == 0
        return ratio


class LabelRankingLoss(_RowRanking):
    """The label ranking loss (scikit-learn ``label_ranking_loss``): per row, the fraction of
    (relevant, irrelevant) label pairs ordered wrong (the irrelevant label scored at least as
    high), averaged over rows; 0 for a row whose labels are all relevant or all irrelevant.

    ``update(y_true, y_score)``: ``(n, n_labels)`` 0/1 relevance indicators and scores.

    Args:

    Examples:
        >>> import streammetrics as sm
        >>> sm.LabelRankingLoss().update([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]).compute()
        0.75
    """

    higher_is_better: ClassVar[bool | None] = False

    def _kernel_kind(self, relevance: np.ndarray) -> int | None:
        wide = relevance.shape[1] >= KERNEL_LOSS_LABELS
        return RANKING_LOSS if wide or len(relevance) < SMALL_ROWS else None

    def _per_row(self, y: np.ndarray, s: np.ndarray) -> np.ndarray:
        m = y.shape[1]
        if m <= PAIRWISE_LABELS:
            y = by_label(y, "relevance")
            rank, relevant_at_least = pairwise_ranks(y, by_label(s, "scores"))
            n_relevant = label_sums(y)
            # a relevant label's wrong pairs: the irrelevant labels scored at least as high
            rank -= relevant_at_least
            rank *= y.view(np.uint8)
            # the wrong pairs and all (relevant, irrelevant) pairs of a row, at most m**2 / 4
            count = np.uint8 if m * m // 4 <= 255 else np.uint16
            wrong = label_sums(rank, count)
            pairs = np.subtract(
                count(m), n_relevant, out=work(("ranking loss", "pairs"), len(n_relevant), count)
            )
            pairs *= n_relevant
            return np.divide(wrong, np.maximum(pairs, 1, out=pairs), out=scratch_row(len(pairs)))
        rel, rank, relevant_at_least, n_relevant = label_ranks(y, s)
        wrong = np.where(rel, rank - relevant_at_least, 0).sum(axis=1)
        pairs = n_relevant * (m - n_relevant.astype(np.intp))
        return wrong / np.maximum(pairs, 1)  # (no pairs: nothing wrong, 0)


# ----------------------------------------------------------------------------- DCG, NDCG
@functools.lru_cache(maxsize=256)
def discounts(m: int, k: int | None, log_base: float = 2.0) -> np.ndarray:
    """``1 / log_b(i + 2)`` for the ranks ``i < m`` (0 from rank ``k`` on), as scikit-learn
    (read-only: one array per arguments, kept)."""
    discount = 1 / (np.log(np.arange(m) + 2) / np.log(log_base))
    if k is not None:
        discount[k:] = 0
    discount.flags.writeable = False
    return discount


@functools.lru_cache(maxsize=256)
def _mean_discounts(discount_bytes: bytes) -> np.ndarray:
    """The table of :func:`_dcg_pairwise`: the mean discount of the positions ``p .. a`` at
    ``a * m + b`` (``p = m - 1 - b``; 0 where no such positions: a pair of counts no document
    has), for the discounts whose float64 bytes are given (read-only, kept)."""
    discount = np.frombuffer(discount_bytes)
    m = len(discount)
    cum = np.concatenate([[0.0], np.cumsum(discount)])
    a_grid, b_grid = np.divmod(np.arange(m * m), m)
    above, tied = m - 1 - b_grid, a_grid + b_grid - m + 2
    with np.errstate(invalid="ignore", divide="ignore"):
        table = np.where(tied >= 1, (cum[a_grid + 1] - cum[above]) / tied, 0.0)
    table.flags.writeable = False
    return table


@functools.lru_cache(maxsize=256)
def _position_discounts(discount_bytes: bytes) -> np.ndarray:
    """:func:`_mean_discounts`' layout for rows without ties: the discount of position ``p``
    at ``p * m + (m - 1 - p)``, NaN at every cell of a tied document (read-only, kept)."""
    discount = np.frombuffer(discount_bytes)
    m = len(discount)
    table = np.full(m * m, np.nan)
    table[(m - 1) * (np.arange(m) + 1)] = discount  # (a = p above, b = m - 1 - p below)
    table.flags.writeable = False
    return table


def dcg_rows(
    gains: np.ndarray,
    s: np.ndarray,
    discount: np.ndarray,
    ignore_ties: bool,
    gains_by_label: np.ndarray | None = None,
    top_grade: int | None = None,
) -> np.ndarray:
    """The DCG of each row: gains ranked by decreasing score; tied scores share the mean gain of
    their tie group over the group's discounts (scikit-learn's ``_tie_averaged_dcg``), or, with
    ``ignore_ties``, are ranked as scikit-learn's ``np.argsort(y_score)[:, ::-1]`` puts them.
    ``gains_by_label``: the caller's :func:`by_label` copy of the gains, as float64, or as
    :func:`graded_by_label` grades up to ``top_grade`` when that is given."""
    n, m = s.shape
    if not n:
        return np.zeros(0)
    if m <= PAIRWISE_LABELS:
        by_label_gains = by_label(gains, "gains", np.float64) if gains_by_label is None else gains_by_label
        if not ignore_ties:
            return _dcg_pairwise(by_label_gains, s, _mean_discounts(_key(discount)), top_grade)
        # a row without ties has one ranking, whatever breaks ties: its DCG by comparisons; a
        # row with ties (NaN there) ranked as scikit-learn's argsort ranks it
        values = _dcg_pairwise(by_label_gains, s, _position_discounts(_key(discount)), top_grade)
        tied = np.flatnonzero(np.isnan(values))
        if len(tied) == n:  # (every row: sorted in place, without copies)
            return _argsort_dcg(gains, s, discount)
        if len(tied):
            values[tied] = _argsort_dcg(gains[tied], s[tied], discount)
        return values
    if gains.dtype.kind != "f":
        gains = gains.astype(np.float64)  # (integer relevances: summed as floats, never wrapped)
    if ignore_ties:
        return _argsort_dcg(gains, s, discount)
    neg = -s
    order = np.argsort(neg, axis=1, kind="stable")
    ss = np.take_along_axis(neg, order, axis=1)
    g = np.take_along_axis(gains, order, axis=1)
    first, last = tie_groups(ss)
    if not (last - first).any():  # no ties: the plain discounted sum
        return g @ discount
    cum_gain = np.zeros((n, m + 1))
    np.cumsum(g, axis=1, out=cum_gain[:, 1:])
    cum_discount = np.concatenate([[0.0], np.cumsum(discount)])
    ends = last == np.arange(m)  # one entry per tie group: its last
    group_gain = np.take_along_axis(cum_gain, last + 1, axis=1) - np.take_along_axis(cum_gain, first, axis=1)
    group_discount = cum_discount[last + 1] - cum_discount[first]
    terms = np.where(ends, group_gain / (last - first + 1) * group_discount, 0.0)
    return terms.sum(axis=1)


def _kernel_table(discount: np.ndarray, ignore_ties: bool) -> np.ndarray:
    """The table the DCG kernels read a document's discount from by its counts: positions (NaN
    at a tie, with ``ignore_ties``) or tie-averaged means, as :func:`_dcg_pairwise`'s."""
    key = _key(discount)
    return _position_discounts(key) if ignore_ties else _mean_discounts(key)


def compiled_dcg(
    relevance: np.ndarray, s: np.ndarray, discount: np.ndarray, ignore_ties: bool, out: np.ndarray
) -> np.ndarray | None:
    """:func:`dcg_rows` of :func:`compiled_rows` by the compiled kernel, into ``out``: each
    document's counts of the others scored at least and at most as high give its cell of the
    same tables as :func:`_dcg_pairwise` (ties averaged, or, with ``ignore_ties``, rows with ties
    ranked by :func:`_argsort_dcg`). ``None`` where a score is not finite."""
    n, m = s.shape
    table = _kernel_table(discount, ignore_ties)
    assert rowkernels is not None  # (compiled_rows said so)
    if not rowkernels.dcg_rows(np.ascontiguousarray(s), _kernel_gains(relevance), table, out, n, m):
        return None
    if ignore_ties:  # (NaN: a row with ties, ranked as scikit-learn's argsort ranks it)
        tied = np.flatnonzero(np.isnan(out))
        if len(tied):
            out[tied] = _argsort_dcg(relevance[tied], s[tied], discount)
    return out


def compiled_ndcg(
    relevance: np.ndarray, s: np.ndarray, discount: np.ndarray, ignore_ties: bool, out: np.ndarray
) -> int:
    """:func:`compiled_dcg`'s values over the rows' ideal DCGs (over 1 where that is 0), in one
    pass of the kernel over both arrays, into ``out``; the kernel's status: :data:`KERNEL_WROTE`,
    :data:`KERNEL_BAD_RELEVANCE` (a negative relevance, or one not finite) or
    :data:`KERNEL_NOT_FINITE` (a score; returned before every relevance is read)."""
    n, m = s.shape
    table = _kernel_table(discount, ignore_ties)
    top = int(np.count_nonzero(discount))
    assert rowkernels is not None  # (compiled_rows said so)
    status = rowkernels.ndcg_rows(
        np.ascontiguousarray(s), _kernel_gains(relevance), table, discount, top, out, n, m
    )
    if status == KERNEL_WROTE and ignore_ties:  # (NaN: a row with ties, ranked as by argsort)
        tied = np.flatnonzero(np.isnan(out))
        if len(tied):
            ideal = compiled_ideal_dcg(relevance[tied], discount)
            assert ideal is not None  # (non-negative: read)
            ideal += ideal == 0
            out[tied] = _argsort_dcg(relevance[tied], s[tied], discount) / ideal
    return status


def compiled_ideal_dcg(relevance: np.ndarray, discount: np.ndarray) -> np.ndarray | None:
    """:func:`ideal_dcg` of :func:`compiled_rows` by the compiled kernel: each row's relevances
    sorted in decreasing order, times the discounts, summed over the positions with a non-zero
    discount; in the second :func:`scratch_row` (the first holds the DCG). ``None`` where a
    relevance is negative."""
    n, m = relevance.shape
    out = scratch_row(n, 1)
    assert rowkernels is not None  # (compiled_rows said so)
    top = int(np.count_nonzero(discount))
    return out if rowkernels.ideal_dcg_rows(_kernel_gains(relevance), discount, top, out, n, m) else None


def _argsort_dcg(gains: np.ndarray, s: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """The DCG of each row ranked as scikit-learn's ``ignore_ties`` ranks it,
    ``np.argsort(y_score)[:, ::-1]`` (ties in argsort's order)."""
    if gains.dtype.kind != "f":
        gains = gains.astype(np.float64)  # (integer relevances: summed as floats, never wrapped)
    ranking = np.argsort(s, axis=1)[:, ::-1]
    return np.take_along_axis(gains, ranking, axis=1) @ discount


def _key(discount: np.ndarray) -> bytes:
    """The discounts as the key of their kept tables."""
    return np.asarray(discount, np.float64).tobytes()


def _dcg_pairwise(gains: np.ndarray, s: np.ndarray, table: np.ndarray, top_grade: int | None) -> np.ndarray:
    """:func:`dcg_rows` by comparisons (``gains`` by label, float64 or grades up to
    ``top_grade``; ``s`` by row): a document with ``p`` documents scored above it and ``t`` tied
    with it (itself included) takes ``table``'s discount for its counts: :func:`_mean_discounts`
    (ties averaged: the mean discount of the positions ``p .. p + t - 1``, its share of its tie
    group's mean gain) or :func:`_position_discounts`."""
    n, m = s.shape
    s_by_label = by_label(s, "scores")
    # a document's counts of the others scored at least as high (a) and at most as high (b) give
    # p = m - 1 - b above it and t = a + b - m + 2 tied with it (itself included), its positions
    # p .. a: its discount is the table's cell a * m + b
    blocks = _blocks(m, n)
    if blocks is not None:
        # every pair at once: the counts, the document itself included, are the sums of its
        # column (the documents at least as high) and of its row (at most as high)
        at_least = work(("dcg", "at least"), (m, n), np.uint8)
        at_most = work(("dcg", "at most"), (m, n), np.uint8)
        for rows in blocks:
            ge = compared_pairs(s_by_label[:, rows]).view(np.uint8)
            np.add.reduce(ge, axis=0, dtype=np.uint8, out=at_least[:, rows])
            np.add.reduce(ge, axis=1, dtype=np.uint8, out=at_most[:, rows])
        # a * m + b is at most m**2 - 1: uint8 (whose wrapping sums still end right) up to 16
        narrow = m <= 16
        cell = np.multiply(
            at_least, np.uint8(m) if narrow else np.uint16(m), out=at_least if narrow else None
        )
        cell += at_most
        cell -= m + 1  # (the document itself out of both counts)
        return _gain_sums(gains, table, cell, top_grade)
    # each pair compared twice, once each way
    at_least = work(("dcg", "at least"), (m, n), np.uint8)
    at_least.fill(0)
    at_most = work(("dcg", "at most"), (m, n), np.uint8)
    at_most.fill(0)
    ge, le = work(("dcg", "ge"), n, bool), work(("dcg", "le"), n, bool)
    ge_count, le_count = ge.view(np.uint8), le.view(np.uint8)
    for j in range(m):
        for i in range(j + 1, m):
            np.greater_equal(s_by_label[i], s_by_label[j], out=ge)  # i at least as high as j
            np.less_equal(s_by_label[i], s_by_label[j], out=le)
            np.add(at_least[j], ge_count, out=at_least[j])
            np.add(at_most[i], ge_count, out=at_most[i])
            np.add(at_least[i], le_count, out=at_least[i])
            np.add(at_most[j], le_count, out=at_most[j])
    cell = np.multiply(at_least, np.uint8(m), out=at_least)
    cell += at_most
    return _gain_sums(gains, table, cell, top_grade)


def _gain_sums(gains: np.ndarray, table: np.ndarray, cells: np.ndarray, top_grade: int | None) -> np.ndarray:
    """``sum_j gains[j] * table[cells[j]]`` per row (``gains`` and ``cells`` by label), in the
    first :func:`scratch` array. Grades up to ``top_grade`` join their cells (``cell * (top + 1)
    + grade``, in :func:`_graded`'s table of the same products): one look-up, no product, and no
    float64 copy of the gains."""
    if top_grade is not None:
        width = top_grade + 1
        if len(table) * width > 256:  # (uint16 cells)
            graded = np.multiply(cells, np.uint16(width), out=work(("dcg", "graded"), cells.shape, np.uint16))
        else:
            graded = np.multiply(cells, np.uint8(width), out=cells)
        graded += gains
        values = looked_up(_graded(_key(table), width), graded, "dcg")
    else:
        values = looked_up(table, cells, "dcg")
        values *= gains
    return np.matmul(ones(len(cells)), values, out=scratch_row(values.shape[1]))


@functools.lru_cache(maxsize=256)
def _graded(table_bytes: bytes, width: int) -> np.ndarray:
    """``table[c] * g`` at ``c * width + g`` for the grades ``0 <= g < width``: the products
    :func:`_gain_sums` forms otherwise, the same values (NaN cells stay NaN; read-only, kept)."""
    table = np.frombuffer(table_bytes)
    graded = (table[:, None] * np.arange(width)).ravel()
    graded.flags.writeable = False
    return graded


def _graded_path(relevance: np.ndarray) -> bool:
    """Whether a batch's relevances may take the graded look-up (:func:`small_grade` then says):
    pairwise rows of a batch of at least ``SMALL_ROWS`` (on a smaller one, its checks cost more
    calls than the float copy and the product it saves)."""
    return relevance.shape[1] <= PAIRWISE_LABELS and len(relevance) >= SMALL_ROWS


def graded_by_label(relevance: np.ndarray) -> np.ndarray:
    """:func:`by_label` uint8 grades of relevances :func:`small_grade` found to be integers from 0
    to at most :data:`IDEAL_FROM_COUNTS_GRADES` (of any dtype: the cast is exact)."""
    return by_label(relevance, "grades", np.uint8, casting="unsafe")


#: Integer relevances of at most this grade take :func:`ideal_dcg` from counts (a pass over the
#: labels per grade); higher ones the sorting network, which costs about as much as three grades.
IDEAL_FROM_COUNTS_GRADES = 3
#: Float relevances are checked for whole numbers in their first rows before all of them.
SAMPLE_ROWS = 256


def ideal_dcg(
    relevance: np.ndarray, discount: np.ndarray, by_label_relevance: np.ndarray | None = None
) -> np.ndarray:
    """The DCG of each row's non-negative relevances in decreasing order (the best ranking);
    ``by_label_relevance``: the caller's :func:`by_label` copy of them, if it has one."""
    n, m = relevance.shape
    top = small_grade(relevance) if m <= PAIRWISE_LABELS else None  # (integers: no check of each)
    if top is not None:
        rows = by_label(relevance, "relevance") if by_label_relevance is None else by_label_relevance
        return _ideal_from_counts(rows, discount, top)
    if m > SORTING_NETWORK_MEMBERS:
        relevance = relevance.astype(np.float64, copy=False)  # (integers: as floats, as the DCG's)
        return np.sort(relevance, axis=1)[:, ::-1] @ discount if n else np.zeros(0)
    # the relevances by label, sorted in a work array by a sorting network over the label rows
    # (never the caller's copy), the k-th largest weighted by the k-th discount
    rows = work(("ideal", "sorted"), (m + 1, n))
    if by_label_relevance is None:
        transpose_into(rows[:m], relevance)
    else:
        np.copyto(rows[:m], by_label_relevance)
    weights = np.zeros(m + 1)  # (0 for the spare row)
    weights[sort_rows(rows)] = discount[::-1]
    return np.matmul(weights, rows, out=scratch_row(n, 1))  # (not the first: the DCG's)


def small_grade(relevance: np.ndarray, known_non_negative: bool = True) -> int | None:
    """The largest of non-negative relevances (any layout) that are all integers (of any dtype)
    up to :data:`IDEAL_FROM_COUNTS_GRADES`; ``None`` otherwise, or for none (or for a negative
    one, unless the caller knows there is none)."""
    if not relevance.size:
        return None
    top = relevance.max()
    if not top <= IDEAL_FROM_COUNTS_GRADES:
        return None
    if not known_non_negative and relevance.dtype.kind != "b" and not relevance.min() >= 0:
        return None
    if relevance.dtype.kind == "f":
        # (the first rows first: fractional gains are told apart without a pass over all)
        for part in (relevance[:SAMPLE_ROWS], relevance):
            if not np.array_equal(np.trunc(part, out=work(("small grade",), part.shape)), part):
                return None
    return int(top)


def _ideal_from_counts(relevance: np.ndarray, discount: np.ndarray, top: int) -> np.ndarray:
    """:func:`ideal_dcg` of integer relevances from 0 to ``top`` (by label): a relevance ``r`` is
    the number of grades ``1 <= g <= r`` it reaches, and the documents reaching grade ``g`` fill
    the first ``c_g`` positions of the best ranking, so the ideal DCG is ``sum_g D(c_g)`` with
    ``D(c)`` the sum of the first ``c`` discounts."""
    m, n = relevance.shape
    firsts = np.concatenate([[0.0], np.cumsum(discount)])
    out = scratch_row(n, 1)  # (not the first: the DCG's)
    if top * m * n <= BROADCAST_CELLS:  # every grade at once; the grades' sums in the same order
        grades = np.arange(1, top + 1).reshape(-1, 1, 1)
        reached = np.greater_equal(relevance, grades, out=work(("ideal counts", 0), (top, m, n), bool))
        counts = np.add.reduce(
            reached.view(np.uint8), axis=1, dtype=np.uint8, out=work(("ideal counts", 1), (top, n), np.uint8)
        )
        return np.add.reduce(looked_up(firsts, counts, "ideal counts"), axis=0, out=out)
    out.fill(0.0)
    reached = work(("ideal counts", 0), n, bool)
    count = work(("ideal counts", 1), n, np.uint8)
    for grade in range(1, top + 1):
        count.fill(0)
        for row in relevance:
            np.greater_equal(row, grade, out=reached)
            count += reached.view(np.uint8)
        out += looked_up(firsts, count, "ideal counts")
    return out


class _Gain(_RowRanking, base=True):
    """Document relevances (any real gains) and scores of one query per row."""

    higher_is_better: ClassVar[bool | None] = True
    #: Whether the relevances must be non-negative (NDCG).
    non_negative: ClassVar[bool] = False

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        raw = inputs.array(0, "y_true")
        _columns(raw, "y_true", "documents")
        # integer or boolean relevances are kept as they are (exact and finite; the formulas
        # convert each value where they use it): no float64 copy of the batch. Float ones the
        # kernels' values settle (no pass of their own: _relevances_finite)
        integral = raw.dtype.kind in "iub"
        compiled = compiled_rows(raw)
        if integral:
            y = raw
        else:
            y = (inputs.unchecked_floats if compiled else inputs.floats)(0, "y_true", (2,))
        if self.non_negative and y.size and not compiled and y.min() < 0:
            raise self._negative_relevances(y)
        if compiled:
            # the values at once, into a fresh array (the batch keeps them); the kernels check
            # the relevances (non-negative, where they must be) and the scores as they read them,
            # without NumPy's boolean arrays (the scores kept as checked, or refused, naming the
            # first inf or NaN)
            s = np.ascontiguousarray(_scores(inputs, y.shape, checked=False))
            values = self._compiled_values(y, s)  # (None: a score is not finite)
            if not integral:  # (named before a score, as the NumPy formulas name them)
                finite = values is not None and self._relevances_finite(values)
                inputs.confirm_finite(0, "y_true", y, finite)
            inputs.confirm_finite(1, "y_score", s, values is not None)
            return values, inputs.weights(len(y))
        return y, _scores(inputs, y.shape), inputs.weights(len(y))

    def _compiled_values(self, y: np.ndarray, s: np.ndarray) -> np.ndarray | None:
        """Each row's value by the compiled kernels, in a fresh array (``None`` where a score is
        not finite)."""
        raise NotImplementedError

    def _relevances_finite(self, values: np.ndarray) -> bool:
        """Whether the float relevances the kernel's ``values`` came from are finite, as far as
        the values tell (else each is checked): a relevance that is not finite makes its row's
        DCG so (every discount, 0 past ``k`` too, times it is), and finite relevances whose sum
        overflows pass the check that follows."""
        return bool(np.isfinite(values).all())

    def _negative_relevances(self, y: np.ndarray) -> InputError:
        return InputError(
            f"y_true: expected non-negative relevances for {type(self).__name__}, found {y.min()}"
        )


class DCG(_Gain):
    """The discounted cumulative gain of each query, averaged over queries (scikit-learn
    ``dcg_score``): ``sum_i rel_(i) / log_b(i + 2)`` over the documents ranked by decreasing score
    (the top ``k`` only).

    ``update(y_true, y_score)``: one row per query, ``(n, n_documents)`` relevances (real gains)
    and scores. Tied scores share their group's mean gain over the group's discounts, as
    scikit-learn; ``ignore_ties=True`` ranks them in scikit-learn's ``np.argsort`` order
    (arbitrary among ties; scikit-learn's faster option, about as fast as averaging here: rows
    without ties, which any ranking ranks alike, take the comparisons, the others the sort).

    Args:
        k: Only the ``k`` highest-ranked documents count (``None``: all); an int >= 1.
        log_base: The base of the logarithm of the discount, > 0 (and not 1); default 2.
        ignore_ties: Whether to rank tied scores in an arbitrary order instead of averaging; default ``False``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.DCG().update([[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]).compute(), 6)
        9.499458
        >>> round(sm.DCG(k=2).update([[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]).compute(), 6)
        5.63093
    """

    def __init__(self, k: int | None = None, *, log_base: float = 2.0, ignore_ties: bool = False) -> None:
        self.k = _check_k(k)
        try:
            base = float(log_base)
        except (TypeError, ValueError):
            base = math.nan
        if isinstance(log_base, bool) or not (math.isfinite(base) and base > 0 and base != 1):
            raise ValueError(f"log_base: expected a finite number > 0 other than 1, found {log_base!r}")
        self.log_base = base
        self.ignore_ties = _check_bool(ignore_ties, "ignore_ties")
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"k": self.k, "log_base": self.log_base, "ignore_ties": self.ignore_ties}

    def _per_row(self, y: np.ndarray, s: np.ndarray) -> np.ndarray:
        discount = discounts(y.shape[1], self.k, self.log_base)
        top = small_grade(y, known_non_negative=False) if _graded_path(y) else None
        if top is None:
            return dcg_rows(y, s, discount, self.ignore_ties)
        return dcg_rows(y, s, discount, self.ignore_ties, graded_by_label(y), top)

    def _compiled_values(self, y: np.ndarray, s: np.ndarray) -> np.ndarray | None:
        discount = discounts(y.shape[1], self.k, self.log_base)
        return compiled_dcg(y, s, discount, self.ignore_ties, out=np.empty(len(y)))


class NDCG(_Gain):
    """The normalized discounted cumulative gain of each query, averaged over queries
    (scikit-learn ``ndcg_score``): its DCG over the DCG of the ideal ranking (the relevances
    sorted), both of the top ``k``; 0 for a query without a relevant document.

    ``update(y_true, y_score)``: one row per query, ``(n, n_documents)`` non-negative relevances
    and scores; ties as :class:`DCG`.

    Args:
        k: Only the ``k`` highest-ranked documents count (``None``: all); an int >= 1.
        ignore_ties: Whether to rank tied scores in an arbitrary order instead of averaging; default ``False``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.NDCG().update([[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]).compute(), 6)
        0.695694
        >>> sm.NDCG(k=1).update([[1, 0, 2]], [[0.5, 0.5, 0.1]]).compute()
        0.25
    """

    non_negative: ClassVar[bool] = True

    def __init__(self, k: int | None = None, *, ignore_ties: bool = False) -> None:
        self.k = _check_k(k)
        self.ignore_ties = _check_bool(ignore_ties, "ignore_ties")
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"k": self.k, "ignore_ties": self.ignore_ties}

    def _per_row(self, y: np.ndarray, s: np.ndarray) -> np.ndarray:
        discount = discounts(y.shape[1], self.k)
        top = small_grade(y) if _graded_path(y) else None  # (non-negative: parsed)
        if top is not None:  # grades 0 .. top by label, once for both DCGs
            grades = graded_by_label(y)
            gain = dcg_rows(y, s, discount, self.ignore_ties, grades, top)
            ideal = _ideal_from_counts(grades, discount, top)
        else:
            # the relevances by label once, for both DCGs when both take the pairwise path
            # (as floats: integer relevances are converted once, not in each product)
            shared = by_label(y, "gains", np.float64) if y.shape[1] <= PAIRWISE_LABELS and len(y) else None
            gain = dcg_rows(y, s, discount, self.ignore_ties, shared)
            ideal = ideal_dcg(y, discount, shared)
        ideal += ideal == 0  # (0 where no document is relevant: the gain is 0 too)
        gain /= ideal
        return gain

    def _relevances_finite(self, values: np.ndarray) -> bool:
        return True  # (the kernel refused any that is not: _compiled_values raised)

    def _compiled_values(self, y: np.ndarray, s: np.ndarray) -> np.ndarray | None:
        out = np.empty(len(y))
        status = compiled_ndcg(y, s, discounts(y.shape[1], self.k), self.ignore_ties, out)
        if status != KERNEL_WROTE:
            # (named as the NumPy formulas name them: a relevance not finite, then a negative
            # one, then a score; the kernel may have stopped at a score before every relevance)
            v.check_finite(y, "y_true")
            if status == KERNEL_BAD_RELEVANCE or y.min() < 0:
                raise self._negative_relevances(y)
        return out if status == KERNEL_WROTE else None
