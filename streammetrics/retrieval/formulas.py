"""Per-query retrieval values, vectorized over every query at once (no Python loop per query).

Each function takes the :class:`Ranked` documents of a :class:`~streammetrics.retrieval.state.QueryDocs`
(or of a block of its queries, :meth:`~streammetrics.retrieval.state.QueryDocs.blocks`) and
returns one value per query slot, as torchmetrics' functions of the same name compute it on that query's documents
(documents ranked by score, best first). A query "without target" (no relevant document; for
the fall-out, no irrelevant one) is reported by :func:`empty_targets` and handled by the metric's
``empty_target_action``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..ranking.formulas import mcclish
from .levels import expanded
from .order import SortedDocs, positions
from .state import QueryBlock, QueryDocs


class Ranked:
    """A state's documents (or a block of its queries') sorted per query (best score first) with
    each one's rank."""

    def __init__(self, state: QueryDocs | QueryBlock) -> None:
        n = state.n_queries
        self.n = n
        self._docs = SortedDocs(state.parts, n)
        self.q, self.r = self._docs.q, self._docs.r
        self.hit = self.r > 0
        self.starts, self.pos = positions(self.q, n)
        self.n_docs = state.n_docs
        self.n_rel = state.n_relevant

    @functools.cached_property
    def hits_through(self) -> np.ndarray:
        """Relevant documents at or above each document's rank, within its query (read by
        average precision, reciprocal rank and the partial AUROC only)."""
        cum = np.cumsum(self.hit, dtype=np.int32 if len(self.q) < 2**31 else np.int64)
        before = np.concatenate([[0], cum])[self.starts]
        cum -= before[self.q]
        return cum

    @property
    def ties(self) -> np.ndarray:
        """Equal between two documents exactly where their scores are (read only by the metrics
        that share a gain or a rank among tied scores)."""
        return self._docs.ties

    def in_top(self, rows: np.ndarray, k: int | None) -> np.ndarray:
        """The documents ``rows`` (a mask) among each query's ``k`` best."""
        return rows if k is None else rows & (self.pos < k)

    def top_rows(self, k: int | None) -> np.ndarray | slice:
        """An index of the rows among each query's ``k`` best (every row: a slice, no copy)."""
        return slice(None) if k is None else self.pos < k

    def count(self, rows: np.ndarray) -> np.ndarray:
        """How many of the documents ``rows`` (a mask) each query has, as floats."""
        return np.bincount(self.q[rows], minlength=self.n).astype(np.float64)

    def hits_at(self, k: int | None) -> np.ndarray:
        """Relevant documents among each query's ``k`` best."""
        return self.count(self.in_top(self.hit, k))


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.divide(a, b, out=np.zeros(len(a)), where=b != 0)


def precision(d: Ranked, k: int | None, adaptive_k: bool = False) -> np.ndarray:
    """Relevant among the ``k`` best, over ``k`` (``k=None``: every document; ``adaptive_k``: at
    most the query's number of documents)."""
    kk = d.n_docs.astype(np.float64) if k is None else np.full(d.n, float(k))
    if adaptive_k and k is not None:
        kk = np.minimum(kk, d.n_docs)
    return _divide(d.hits_at(k), kk)


def recall(d: Ranked, k: int | None) -> np.ndarray:
    """Relevant among the ``k`` best, over all relevant."""
    return _divide(d.hits_at(k), d.n_rel.astype(np.float64))


def hit_rate(d: Ranked, k: int | None) -> np.ndarray:
    """1 if a relevant document is among the ``k`` best, else 0."""
    return (d.hits_at(k) > 0).astype(np.float64)


def fall_out(d: Ranked, k: int | None) -> np.ndarray:
    """Irrelevant among the ``k`` best, over all irrelevant."""
    misses = d.count(d.in_top(~d.hit, k))
    return _divide(misses, (d.n_docs - d.n_rel).astype(np.float64))


def r_precision(d: Ranked) -> np.ndarray:
    """Relevant among the ``R`` best, over ``R`` (``R``: the query's relevant documents)."""
    r = d.n_rel.astype(d.pos.dtype)  # (gathered per document: as narrow as the ranks)
    return _divide(d.count(d.hit & (d.pos < r[d.q])), d.n_rel.astype(np.float64))


def reciprocal_rank(d: Ranked, k: int | None) -> np.ndarray:
    """``1 / rank`` of the best-ranked relevant document among the ``k`` best (0 if none)."""
    first = np.flatnonzero(d.in_top(d.hit & (d.hits_through == 1), k))
    return np.bincount(d.q[first], weights=1.0 / (d.pos[first] + 1.0), minlength=d.n)


def average_precision(d: Ranked, k: int | None) -> np.ndarray:
    """Mean, over the relevant documents among the ``k`` best, of the precision at their rank."""
    rows = np.flatnonzero(d.in_top(d.hit, k))  # the formula read at these rows only
    q = d.q[rows]
    total = np.bincount(q, weights=d.hits_through[rows] / (d.pos[rows] + 1.0), minlength=d.n)
    return _divide(total, np.bincount(q, minlength=d.n).astype(np.float64))


def _discounts(pos: np.ndarray, k: int | None) -> np.ndarray:
    """``1 / log2(rank + 1)`` of 0-based positions ``pos`` (0 from position ``k`` on), built in
    one array (the same operations as the formula written out, so the same values)."""
    discount = pos + 2.0
    np.log2(discount, out=discount)
    np.divide(1.0, discount, out=discount)
    if k is not None:
        discount[pos >= k] = 0.0
    return discount


def _dcg(
    q: np.ndarray, ties: np.ndarray, r: np.ndarray, pos: np.ndarray, k: int | None, n: int
) -> np.ndarray:
    """DCG at ``k`` of rows sorted per query (best first), tied scores sharing their mean gain
    (torchmetrics' and scikit-learn's tie rule)."""
    if not len(q):
        return np.zeros(n)
    discount = _discounts(pos, k)
    same = (q[1:] == q[:-1]) & (ties[1:] == ties[:-1])  # row i + 1 tied with row i
    if not same.any():  # no tie (the common case with float scores): gain times discount
        discount *= r
        return np.bincount(q, weights=discount, minlength=n)
    in_run = np.zeros(len(q), bool)
    in_run[1:] |= same
    in_run[:-1] |= same
    alone = np.flatnonzero(~in_run)
    dcg = np.bincount(q[alone], weights=discount[alone] * r[alone], minlength=n)
    rows = np.flatnonzero(in_run)  # runs of tied scores: their mean gain times their discounts
    opens = np.ones(len(rows), bool)
    opens[1:] = ~same[rows[1:] - 1]
    tie = np.cumsum(opens)
    tie -= 1
    gain = np.bincount(tie, weights=r[rows]) / np.bincount(tie)
    # (not in place: a bincount of no row, every row tied, is of integers)
    return dcg + np.bincount(
        q[rows][opens], weights=gain * np.bincount(tie, weights=discount[rows]), minlength=n
    )


def ndcg(d: Ranked, state: QueryDocs | QueryBlock, k: int | None) -> np.ndarray:
    """DCG over the ideal DCG at ``k`` (0 where the ideal is 0)."""
    dcg = _dcg(d.q, d.ties, d.r, d.pos, k, d.n)
    if state.top_k is not None:  # each query's k largest relevances, kept as levels
        iq, ir = expanded(state.ideal_parts)
    else:
        best = SortedDocs([(d.q, d.r.astype(np.float64), np.zeros(len(d.r)))], d.n)
        iq, ir = best.q, best.scores()
    discount = _discounts(positions(iq, d.n)[1], k)
    discount *= ir
    ideal = np.bincount(iq, weights=discount, minlength=d.n)
    return _divide(dcg, ideal)


def auroc(d: Ranked, k: int | None) -> np.ndarray:
    """Area under the ROC curve of each query's ``k`` best documents (tied scores share their
    mean rank); 0 where they hold no relevant or no irrelevant document."""
    top = d.top_rows(k)
    q, s, hit, pos = d.q[top], d.ties[top], d.hit[top], d.pos[top]
    size = np.bincount(q, minlength=d.n)
    rank = (size[q] - pos).astype(np.float64)  # ascending rank, 1-based
    if len(q):
        new = np.ones(len(q), bool)
        new[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
        tie = np.cumsum(new) - 1
        rank = (np.bincount(tie, weights=rank) / np.bincount(tie))[tie]
    pos_n = np.bincount(q, weights=hit, minlength=d.n)
    neg_n = size - pos_n
    u = np.bincount(q, weights=np.where(hit, rank, 0.0), minlength=d.n) - pos_n * (pos_n + 1) / 2
    return _divide(u, pos_n * neg_n)


def partial_auroc(d: Ranked, k: int | None, max_fpr: float) -> np.ndarray:
    """McClish-standardized area under each query's ROC curve over FPR in [0, ``max_fpr``] (as
    scikit-learn's ``roc_auc_score(max_fpr=...)``: one point per distinct score, tied scores one
    diagonal step, the curve cut at ``max_fpr`` by linear interpolation); 0 where the ``k`` best
    documents hold no relevant or no irrelevant one."""
    top = d.top_rows(k)
    q, s, hit = d.q[top], d.ties[top], d.hit[top]
    if not len(q):
        return np.zeros(d.n)
    pos_n = np.bincount(q, weights=hit, minlength=d.n)
    neg_n = np.bincount(q, minlength=d.n) - pos_n
    # the end of each run of tied scores within a query is a point of the curve; the k best are a
    # prefix of each query's ranking, so its cumulative counts are those of the whole ranking
    last = np.ones(len(q), bool)
    last[:-1] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
    qe = q[last]
    tp = d.hits_through[top][last].astype(np.float64)
    fp = (d.pos[top][last] + 1) - tp
    opens = np.ones(len(qe), bool)  # a query's first point starts from (0, 0)
    opens[1:] = qe[1:] != qe[:-1]
    tp0, fp0 = np.where(opens, 0.0, np.roll(tp, 1)), np.where(opens, 0.0, np.roll(fp, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        x0, x1 = fp0 / neg_n[qe], fp / neg_n[qe]
        y0, y1 = tp0 / pos_n[qe], tp / pos_n[qe]
        cut = np.minimum(x1, max_fpr)  # the part of the step left of max_fpr
        y_cut = np.where(x1 > x0, y0 + (y1 - y0) * (cut - x0) / (x1 - x0), y1)
        area = np.where(x0 < max_fpr, (cut - x0) * (y0 + y_cut) / 2.0, 0.0)
    defined = (pos_n > 0) & (neg_n > 0)
    partial = np.bincount(qe, weights=np.where(defined[qe], area, 0.0), minlength=d.n)
    if max_fpr == 1.0:  # scikit-learn: the whole area, not standardized
        return np.where(defined, partial, 0.0)
    return np.where(defined, mcclish(partial, max_fpr), 0.0)


def empty_targets(state: QueryDocs, negatives: bool = False) -> np.ndarray:
    """Queries without a relevant document (``negatives``: without an irrelevant one)."""
    if negatives:
        return state.n_docs - state.n_relevant == 0
    return state.n_relevant == 0
