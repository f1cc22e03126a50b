"""The retrieval state: each query's documents as (score, relevance) pairs, keyed by query id.

Documents of one query may arrive in any batch and any shard: rows are kept per query (the
query id encoded to a slot by the keyed :class:`~streammetrics.keyed.keys.KeyTable`), and merging
unites the queries and concatenates their documents. With ``top_k`` the state keeps, per query,
only the ``top_k`` best-scored documents (and any tied with the k-th: ties are resolved the
same way whatever the order of arrival), the number of documents and of relevant ones, and,
for NDCG, the ``top_k`` largest relevances (the ideal ranking): exactly what a metric at
``k`` reads, so its value is exact while memory stays ``O(queries x k)``.

Memory: 24 bytes per kept document (an int64 query slot, a float64 score and a float64
relevance) plus 16 bytes per query (document and relevant counts); NDCG with ``top_k`` adds 16
bytes per kept ideal relevance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.state import State, require_keys
from ..errors import StateError
from ..keyed.keys import KeyTable

_EMPTY_I = np.empty(0, np.int64)
_EMPTY_F = np.empty(0, np.float64)


def ranked(q: np.ndarray, s: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The order putting each query's documents best score first; tied scores put the less
    relevant first (a pessimistic, order-independent tie rule).

    One sort by score, then a stable sort by query (half the work of a three-key ``lexsort``);
    runs of tied scores within a query (common with float32 scores) are then ordered by
    relevance, touching only their rows."""
    by_score = np.argsort(-s)
    qo = q[by_score]
    if len(q) and q.max() < 2**31:
        qo = qo.astype(np.int32)
    order = by_score[np.argsort(qo, kind="stable")]
    if len(order) < 2:
        return order
    qs, ss = q[order], s[order]
    same = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not same.any():
        return order
    in_run = np.zeros(len(order), bool)
    in_run[1:] |= same
    in_run[:-1] |= same
    rows = np.flatnonzero(in_run)
    starts = np.ones(len(rows), bool)
    starts[1:] = ~same[rows[1:] - 1]
    run = np.cumsum(starts)
    sub = order[rows]
    order[rows] = sub[np.lexsort((r[sub], run))]
    return order


def positions(q_sorted: np.ndarray, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """``(start of each query, 0-based rank of each row within its query)`` of sorted rows."""
    counts = np.bincount(q_sorted, minlength=n_queries)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return starts, np.arange(len(q_sorted), dtype=np.int64) - starts[q_sorted]


def _top(q: np.ndarray, s: np.ndarray, r: np.ndarray, k: int, n_queries: int) -> np.ndarray:
    """Indices of the rows kept by a ``top_k`` bound: rank < k, or tied with the k-th score."""
    order = ranked(q, s, r)
    qs, ss = q[order], s[order]
    starts, pos = positions(qs, n_queries)
    keep = pos < k
    sizes = np.bincount(qs, minlength=n_queries)
    full = sizes > k
    if full.any():
        kth = np.full(n_queries, np.inf)
        kth[full] = ss[starts[full] + k - 1]
        keep |= ss == kth[qs]
    return order[keep]


class QueryDocs(State):
    """Per-query documents (score, relevance), optionally bounded to each query's top ``k``.

    Examples:
        >>> import numpy as np
        >>> s = QueryDocs(top_k=1)
        >>> s.add(np.array([0.2, 0.9, 0.5]), np.array([1.0, 0.0, 1.0]), [np.array(["q1", "q1", "q2"])])
        >>> s.keys.keys(), s.n_docs.tolist(), s.n_relevant.tolist(), len(s.scores)
        (['q1', 'q2'], [2, 1], [1, 1], 2)
    """

    def __init__(self, top_k: int | None = None, ideal: bool = False) -> None:
        self.top_k, self.ideal = top_k, ideal
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"top_k": self.top_k, "ideal": self.ideal}

    def reset(self) -> None:
        self._commit(
            keys=KeyTable(),
            query=_EMPTY_I,
            scores=_EMPTY_F,
            relevance=_EMPTY_F,
            n_docs=_EMPTY_I,
            n_relevant=_EMPTY_I,
            ideal_query=_EMPTY_I,
            ideal_relevance=_EMPTY_F,
        )

    @property
    def n_samples(self) -> int:
        return int(self.n_docs.sum())

    @property
    def n_queries(self) -> int:
        return len(self.keys)

    def _bounded(self, q: np.ndarray, s: np.ndarray, r: np.ndarray, iq: np.ndarray, ir: np.ndarray,
                 n: int) -> dict[str, np.ndarray]:  # fmt: skip
        if self.top_k is not None:
            keep = _top(q, s, r, self.top_k, n)
            q, s, r = q[keep], s[keep], r[keep]
            if self.ideal:
                keep = _top(iq, ir, np.zeros(len(ir)), self.top_k, n)
                iq, ir = iq[keep], ir[keep]
        return {"query": q, "scores": s, "relevance": r, "ideal_query": iq, "ideal_relevance": ir}

    def add(self, scores: np.ndarray, relevance: np.ndarray, key_columns: list[np.ndarray]) -> None:
        """Add a validated batch of documents (float64 scores and relevances, query ids)."""
        slots, table = self.keys.encode(key_columns, "query")
        n = len(table)
        q = np.concatenate([self.query, slots])
        s = np.concatenate([self.scores, scores])
        r = np.concatenate([self.relevance, relevance])
        iq, ir = self.ideal_query, self.ideal_relevance
        if self.top_k is not None and self.ideal:
            iq, ir = np.concatenate([iq, slots]), np.concatenate([ir, relevance])
        n_docs = _grown(self.n_docs, n) + np.bincount(slots, minlength=n)
        n_rel = _grown(self.n_relevant, n) + np.bincount(slots, weights=relevance > 0, minlength=n).astype(
            np.int64
        )
        self._commit(keys=table, n_docs=n_docs, n_relevant=n_rel, **self._bounded(q, s, r, iq, ir, n))

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, QueryDocs)
        if not other.n_queries:
            return
        pos, table = self.keys.encode(other.keys.key_columns(), "query")
        n = len(table)
        q = np.concatenate([self.query, pos[other.query]])
        s = np.concatenate([self.scores, other.scores])
        r = np.concatenate([self.relevance, other.relevance])
        iq = np.concatenate([self.ideal_query, pos[other.ideal_query]])
        ir = np.concatenate([self.ideal_relevance, other.ideal_relevance])
        n_docs, n_rel = _grown(self.n_docs, n), _grown(self.n_relevant, n)
        n_docs[pos] += other.n_docs
        n_rel[pos] += other.n_relevant
        self._commit(keys=table, n_docs=n_docs, n_relevant=n_rel, **self._bounded(q, s, r, iq, ir, n))

    def to_dict(self) -> dict[str, Any]:
        return {
            "keys": self.keys.to_list(),
            "query": self.query,
            "scores": self.scores,
            "relevance": self.relevance,
            "n_docs": self.n_docs,
            "n_relevant": self.n_relevant,
            "ideal_query": self.ideal_query,
            "ideal_relevance": self.ideal_relevance,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "QueryDocs state"
        require_keys(data, set(self.to_dict()), where)
        table = KeyTable.from_list(data["keys"], where)
        if table.n_columns not in (None, 1):
            raise StateError(f"{where}: expected one query id column, found {table.n_columns}")
        n = len(table)
        arrays = {}
        for name, kind in (("query", "i"), ("n_docs", "i"), ("n_relevant", "i"), ("ideal_query", "i"),
                           ("scores", "f"), ("relevance", "f"), ("ideal_relevance", "f")):  # fmt: skip
            a = np.asarray(data[name])
            if a.ndim != 1 or (a.size and a.dtype.kind not in ("iu" if kind == "i" else "iuf")):
                raise StateError(
                    f"{where}: {name} must be a 1-D {'integer' if kind == 'i' else 'float'} array"
                )
            arrays[name] = a.astype(np.int64 if kind == "i" else np.float64)
        trial = QueryDocs(self.top_k, self.ideal)
        trial.__dict__.update(keys=table, **arrays)
        trial.check()
        if len(arrays["n_docs"]) != n:
            raise StateError(f"{where}: {len(arrays['n_docs'])} document counts for {n} queries")
        self._commit(keys=table, **arrays)

    def check(self) -> None:
        where = "QueryDocs state"
        n = len(self.keys)
        if not (len(self.n_docs) == len(self.n_relevant) == n):
            raise StateError(f"{where}: counts for {len(self.n_docs)} queries, {n} keys")
        if not (len(self.query) == len(self.scores) == len(self.relevance)):
            raise StateError(f"{where}: query, scores and relevance of different lengths")
        if len(self.ideal_query) != len(self.ideal_relevance):
            raise StateError(f"{where}: ideal query and relevance of different lengths")
        for name in ("query", "ideal_query"):
            a = getattr(self, name)
            if a.size and (a.min() < 0 or a.max() >= n):
                raise StateError(f"{where}: {name} holds a query slot outside [0, {n})")
        for name in ("scores", "relevance", "ideal_relevance"):
            if not np.isfinite(getattr(self, name)).all():
                raise StateError(f"{where}: {name} holds a non-finite value")
        if (self.relevance < 0).any() or (self.ideal_relevance < 0).any():
            raise StateError(f"{where}: negative relevance")
        kept = np.bincount(self.query, minlength=n)
        rel = np.bincount(self.query, weights=self.relevance > 0, minlength=n)
        if n and ((self.n_relevant < 0).any() or (self.n_relevant > self.n_docs).any() or (kept > self.n_docs).any()
                  or (rel > self.n_relevant).any()):  # fmt: skip
            raise StateError(f"{where}: document counts smaller than the documents kept")
        if self.top_k is None and (
            not np.array_equal(kept, self.n_docs) or not np.array_equal(rel, self.n_relevant)
        ):
            raise StateError(f"{where}: document counts differ from the documents kept (no top_k bound)")


def _grown(counts: np.ndarray, n: int) -> np.ndarray:
    return np.concatenate([counts, np.zeros(n - len(counts), np.int64)])
