"""The retrieval state: each query's documents as (score, relevance) pairs, keyed by query id.

Documents of one query may arrive in any batch and any shard: rows are kept per query (the
query id encoded to a slot by the keyed :class:`~streammetrics.keyed.keys.KeyTable`), and merging
unites the queries and concatenates their documents. With ``top_k`` the state keeps, per query,
only the ``top_k`` best-scored documents (and any tied with the k-th: ties are resolved the
same way whatever the order of arrival), the number of documents and of relevant ones, and,
for NDCG, the ``top_k`` largest positive relevances (the ideal ranking; a relevance of 0 adds
nothing to the ideal DCG), as counts per relevance level (:mod:`~streammetrics.retrieval.levels`):
exactly what a metric at
``k`` reads, so its value is exact while memory stays ``O(queries x k)``.

Memory, per kept document, where the documents fit a packed key (float32 scores, whole relevances
below 2**16: :mod:`~streammetrics.retrieval.order`): 8 bytes with ``top_k``; without it, about 4
(a part's query slots kept as one count a query: a score code and the relevance bits); else 24
(an int64 query slot, a float64 score and a float64 relevance). 16 bytes per query (document
and relevant counts); NDCG with ``top_k`` keeps each query's ``top_k`` largest positive
relevances as packed keys too, one a relevance level (a count with it): for graded relevance a
few a query, whatever ``top_k``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from .._core.state import State, require_keys
from ..errors import StateError
from ..keyed.keys import KeyTable
from .levels import expanded, levels, levels_added
from .order import (
    Docs,
    Grouped,
    Packed,
    Part,
    as_docs,
    as_part,
    grouped,
    joined,
    joined_part,
    query_blocks,
    query_bounds,
    query_range,
    size,
    top_added,
)

_EMPTY_I = np.empty(0, np.int64)
_EMPTY_F = np.empty(0, np.float64)


#: The formulas read the kept documents in blocks of whole queries of about this many documents:
#: their temporaries (tens of bytes a document) are those of a block, not of every document.
BLOCK_DOCS = 1 << 17


class QueryBlock(NamedTuple):
    """The kept documents of a range of query slots, the first slot as 0 (see
    :meth:`QueryDocs.blocks`): what the formulas read of a state."""

    n_queries: int
    parts: tuple[Part, ...]
    ideal_parts: tuple[Part, ...]
    n_docs: np.ndarray
    n_relevant: np.ndarray
    top_k: int | None


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
            _parts=(),
            n_docs=_EMPTY_I,
            n_relevant=_EMPTY_I,
            _ideal=(),
        )

    @property
    def n_samples(self) -> int:
        return int(self.n_docs.sum())

    @property
    def n_queries(self) -> int:
        return len(self.keys)

    def docs(self) -> Docs:
        """The kept documents: ``(query slot, score, relevance)``.

        The documents are kept in parts, packed (:mod:`~streammetrics.retrieval.order`: 8
        bytes a document) where they fit. Without a ``top_k`` bound, a part is a batch or a few
        joined, and all are joined only when read (appending each batch to one array would copy
        every document at every batch: quadratic in the stream); with a bound, the kept
        documents are one part."""
        parts = self._parts
        if len(parts) == 1:
            return as_docs(parts[0])
        docs = joined([as_docs(part) for part in parts])
        if not any(isinstance(part, (Packed, Grouped)) for part in parts):  # the same documents: not a change
            self.__dict__.update(_parts=(docs,) if parts else ())
        return docs

    @property
    def parts(self) -> tuple[Part, ...]:
        """The kept documents as :meth:`docs`, in the parts they are kept in."""
        return self._parts

    @property
    def ideal_parts(self) -> tuple[Part, ...]:
        """NDCG with ``top_k``: each query's ``top_k`` largest positive relevances as levels
        (:mod:`~streammetrics.retrieval.levels`): documents whose score is a relevance and whose
        relevance is how many of the ``top_k`` have it."""
        return self._ideal

    def ideal_levels(self) -> Docs:
        """:attr:`ideal_parts` as three arrays: query slots, relevances and counts."""
        return levels(self._ideal)

    @property
    def query(self) -> np.ndarray:
        return self.docs()[0]

    @property
    def scores(self) -> np.ndarray:
        return self.docs()[1]

    @property
    def relevance(self) -> np.ndarray:
        return self.docs()[2]

    @property
    def ideal_query(self) -> np.ndarray:
        """Each value of the ideal ranking's query slot (a level repeated by its count)."""
        return expanded(self._ideal)[0]

    @property
    def ideal_relevance(self) -> np.ndarray:
        """The ideal ranking's values, by query, largest first."""
        return expanded(self._ideal)[1]

    def blocks(self, max_docs: int | None = None) -> Iterator[QueryDocs | QueryBlock]:
        """The state in blocks of consecutive query slots, each of about ``max_docs`` kept
        documents (default :data:`BLOCK_DOCS`; one query's documents are never split), in slot
        order; the whole state as one block where it holds no more, or where some documents are
        not packed."""
        max_docs = BLOCK_DOCS if max_docs is None else max_docs
        parts, ideal = self._parts, self._ideal
        kept = sum(size(part) for part in parts)
        n = self.n_queries
        if kept <= max_docs or n < 2 or not all(isinstance(p, (Packed, Grouped)) for p in (*parts, *ideal)):
            yield self
            return
        # each query's kept documents, bounded states: about its top_k (ties may keep a few more)
        per_query = self.n_docs if self.top_k is None else np.minimum(self.n_docs, self.top_k)
        edges = query_blocks(np.cumsum(per_query) - per_query, max_docs)
        # each part's first document of each block: its documents are in query order
        bounds = [query_bounds(p, edges, n) for p in parts]  # type: ignore[arg-type]
        ideal_bounds = [query_bounds(p, edges, n) for p in ideal]  # type: ignore[arg-type]
        for i, (lo, hi) in enumerate(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)):
            yield QueryBlock(
                hi - lo, _sliced(parts, bounds, i, lo, hi), _sliced(ideal, ideal_bounds, i, lo, hi),
                self.n_docs[lo:hi], self.n_relevant[lo:hi], self.top_k,
            )  # fmt: skip

    def _with(
        self, new: Docs, new_ideal: tuple[np.ndarray, np.ndarray, np.ndarray | None], n: int
    ) -> dict[str, Any]:
        """The kept documents after ``new`` ones (and, for NDCG with ``top_k``, ``new_ideal``
        relevances as ``(query slots, relevances, counts or None for one each)``) are added,
        query slots among ``n``."""
        if self.top_k is None:
            parts = self._parts
            for start in range(0, max(len(new[0]), 1), CHUNK_DOCS):  # (temporaries of a chunk)
                parts = _appended(parts, tuple(a[start : start + CHUNK_DOCS] for a in new), n)  # type: ignore[arg-type]
            return {"_parts": parts}
        out = {"_parts": _bounded(self._parts, new, self.top_k, n)}
        if self.ideal:
            iq, ir, ic = new_ideal
            # only positive relevances (a 0 adds nothing to the ideal DCG: most documents, kept
            # neither in the state nor while it is updated)
            positive = ir > 0
            if not positive.all():
                iq, ir, ic = iq[positive], ir[positive], None if ic is None else ic[positive]
            if len(ir):
                out["_ideal"] = levels_added(self._ideal, iq, ir, ic, self.top_k, n)
        return out

    def add(self, scores: np.ndarray, relevance: np.ndarray, key_columns: list[np.ndarray]) -> None:
        """Add a validated batch of documents: finite scores (float32 or float64), relevances
        (non-negative: bools, integers or floats) and query id columns."""
        slots, table = self.keys.encode(key_columns, "query")
        n = len(table)
        n_docs = _grown(self.n_docs, n) + np.bincount(slots, minlength=n)
        n_rel = _grown(self.n_relevant, n) + np.bincount(slots[relevance > 0], minlength=n)
        if n < 2**31:  # half the bytes while the documents are ranked (kept slots are int64)
            slots = slots.astype(np.int32)
        new = (slots, scores, relevance)  # read, never kept: kept documents are copies
        kept = self._with(new, (slots, relevance, None), n)
        self._commit(keys=table, n_docs=n_docs, n_relevant=n_rel, **kept)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, QueryDocs)
        if not other.n_queries:
            return
        pos, table = self.keys.encode(other.keys.key_columns(), "query")
        n = len(table)
        n_docs, n_rel = _grown(self.n_docs, n), _grown(self.n_relevant, n)
        n_docs[pos] += other.n_docs
        n_rel[pos] += other.n_relevant
        oq, os_, or_ = other.docs()
        lq, lrel, lcount = other.ideal_levels()
        kept = self._with((pos[oq], os_, or_), (pos[lq], lrel, lcount.astype(np.int64)), n)
        self._commit(keys=table, n_docs=n_docs, n_relevant=n_rel, **kept)

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
            # scores: -0.0 as 0.0, as batches are added
            arrays[name] = a.astype(np.int64) if kind == "i" else a.astype(np.float64) + 0.0
        docs = (arrays.pop("query"), arrays.pop("scores"), arrays.pop("relevance"))
        ideal = (arrays.pop("ideal_query"), arrays.pop("ideal_relevance"))
        if (ideal[1] == 0).any():  # (states of 0.1 kept zeros there: they add nothing)
            kept = ideal[1] != 0  # (anything else is checked below)
            ideal = (ideal[0][kept], ideal[1][kept])
        arrays["_parts"] = (docs,) if len(docs[0]) else ()
        arrays["_ideal"] = ((*ideal, np.ones(len(ideal[1]))),) if len(ideal[0]) else ()  # (each value once)
        trial = QueryDocs(self.top_k, self.ideal)
        trial.__dict__.update(keys=table, **arrays)
        trial.check()
        if len(arrays["n_docs"]) != n:
            raise StateError(f"{where}: {len(arrays['n_docs'])} document counts for {n} queries")
        if len(ideal[0]) and self.top_k is not None:  # checked: as levels
            arrays["_ideal"] = levels_added((), *ideal, None, self.top_k, n)
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


#: A bounded state takes a large batch in chunks of at least this many documents (and at least
#: as many as it keeps): the temporaries of ranking stay those of a chunk, and a chunk costs
#: about what the documents already kept do.
CHUNK_DOCS = 1 << 18


def _bounded(kept: tuple[Part, ...], new: Docs, k: int, n: int) -> tuple[Part, ...]:
    """:func:`~streammetrics.retrieval.order.top_added` of ``new`` documents, chunk by chunk."""
    start = 0
    while True:
        step = max(CHUNK_DOCS, len(kept[0][0]) if kept else 0)
        chunk = tuple(a[start : start + step] for a in new)
        kept = (top_added(kept, chunk, k, n),)  # type: ignore[arg-type]
        start += step
        if start >= len(new[0]):
            return kept


def _sliced(parts: tuple[Part, ...], bounds: list[np.ndarray], i: int, lo: int, hi: int) -> tuple[Part, ...]:
    """Block ``i`` (query slots ``lo..hi``) of each part, given each part's block bounds."""
    return tuple(query_range(p, lo, hi, b[i], b[i + 1]) for p, b in zip(parts, bounds, strict=True))  # type: ignore[arg-type]


def _appended(parts: tuple[Part, ...], new: Docs, n: int) -> tuple[Part, ...]:
    """The parts of a state without ``top_k`` after ``new`` documents: one more part, sorted."""
    out = [*parts, as_part(new, n)]
    # small parts join (a binary counter: each document copied O(log) times, and a stream of
    # single documents keeps few parts); parts of 65,536 documents and more stay apart
    while len(out) >= 2 and size(out[-2]) <= min(2 * size(out[-1]), 2**16):
        out[-2:] = [joined_part(*out[-2:])]
    if isinstance(out[-1], Packed):  # kept without query slots where that is smaller
        out[-1] = grouped(out[-1], n)
    return tuple(out)


def _grown(counts: np.ndarray, n: int) -> np.ndarray:
    return np.concatenate([counts, np.zeros(n - len(counts), np.int64)])
