"""NDCG's ideal ranking under a ``top_k`` bound: each query's k largest positive relevances, kept
as levels ``(relevance, count)``.

The ideal DCG at ``k`` of a query reads the multiset of its ``k`` largest relevances, not which
documents hold them. Graded relevance has few levels (0-3, 0-4), so those ``k`` values are a few
``(relevance, how many)`` pairs: the state keeps one pair a query and level, the counts of a
query summing to at most ``k`` (the lowest kept level's count cut there). With continuous
relevances every level counts 1: as many pairs as values, no more.

Levels are documents of :mod:`~streammetrics.retrieval.order` — query slot, the relevance as
the score (largest first), the count as the relevance — so that they pack into one ``uint64``
key each where they fit (8 bytes a level) and are sliced by queries as documents are.

Examples:
    >>> import numpy as np
    >>> q, rel = np.array([0, 0, 0, 1, 0]), np.array([3.0, 1.0, 3.0, 2.0, 2.0])
    >>> (part,) = levels_added((), q, rel, None, k=3, n_queries=2)
    >>> [a.tolist() for a in as_docs(part)]  # query slot, relevance, count
    [[0, 0, 1], [3.0, 2.0, 2.0], [2.0, 1.0, 1.0]]
"""

from __future__ import annotations

import functools

import numpy as np

from .order import (
    SCORE_BITS,
    Docs,
    Packed,
    Part,
    as_docs,
    field,
    fits,
    joined,
    merged_cut,
    packed_under,
    query_starts,
    ranked,
    relevance_bits,
)


def levels_added(
    kept: tuple[Part, ...], q: np.ndarray, rel: np.ndarray, counts: np.ndarray | None, k: int, n_queries: int
) -> tuple[Part, ...]:
    """The levels of ``kept`` (no part, or one from this function) and of new relevances ``rel``
    (positive) of query slots ``q``, ``counts`` of each (``None``: one), each query cut to its
    ``k`` largest values."""
    if not len(q):
        return kept
    if counts is None:
        counts = np.ones(len(q), np.uint8)
    old = kept[0] if kept else Packed(np.empty(0, np.uint64), 1)
    bits = relevance_bits(rel, counts)  # (the relevance is the levels' score, the count their relevance)
    # bits for any count up to k: summed and cut counts are packed back in the same keys (at
    # most 16, as a document's relevance: a k past 65,535 keeps its levels unpacked)
    c_bits = max(bits or 0, old.r_bits if isinstance(old, Packed) else 0, k.bit_length())
    if isinstance(old, Packed) and bits is not None and c_bits <= 16 and fits(n_queries, c_bits):
        return _packed_levels(old, q, rel, counts, k, n_queries, c_bits)
    oq, orel, ocount = as_docs(old)
    q, rel = np.concatenate([oq, q]), np.concatenate([orel, rel]).astype(np.float64)
    counts = np.concatenate([ocount, counts]).astype(np.uint64)
    order = ranked(q, rel, counts)  # by query, largest relevance first
    q, rel, counts = q[order], rel[order], counts[order]
    same = (q[1:] == q[:-1]) & (rel[1:] == rel[:-1])
    firsts, counts = _cut(q, same, counts, k)
    return ((q[firsts].astype(np.int64), rel[firsts], counts.astype(np.float64)),)


def _packed_levels(
    old: Packed, q: np.ndarray, rel: np.ndarray, counts: np.ndarray, k: int, n_queries: int, c_bits: int
) -> tuple[Part, ...]:
    """:func:`levels_added` of packed levels (``c_bits`` of count, enough for ``k``): new values
    below a full query's lowest level are dropped as they are packed (they cannot enter its
    ``k`` largest), the others sorted and merged into the kept keys a block of queries at a time,
    equal levels summed and each query cut."""
    old = old.widened(c_bits)
    mask = np.uint64((1 << c_bits) - 1)
    starts = query_starts(old.keys, c_bits, n_queries)
    bars = np.full(n_queries, np.iinfo(np.uint64).max, np.uint64)
    if len(old.keys):
        ends = np.append(starts[1:], len(old.keys))
        held = np.flatnonzero(ends > starts)  # the queries with levels
        counts_kept = np.bitwise_and(old.keys, mask, out=np.empty(len(old.keys), np.uint32), casting="unsafe")
        full = held[np.add.reduceat(counts_kept, starts[held], dtype=np.int64) >= k]
        # a value at or below a full query's lowest level leaves its k largest as they are
        bars[full] = (old.keys[ends[full] - 1] & ~mask) - np.uint64(1)
    new = packed_under(q, rel, counts, c_bits, bars)
    new.sort()
    cut = functools.partial(_level_keys, c_bits=c_bits, k=k)
    return (Packed(merged_cut(old.keys, starts, new, c_bits, n_queries, k * n_queries, cut), c_bits),)


def _level_keys(keys: np.ndarray, n_queries: int, c_bits: int, k: int) -> np.ndarray:
    """Sorted level keys (``c_bits`` of count) summed by level and cut (:func:`_cut`)."""
    level = keys >> np.uint64(c_bits)
    firsts, counts = _cut(
        field(level, SCORE_BITS, np.int64), level[1:] == level[:-1], keys & np.uint64((1 << c_bits) - 1), k
    )
    level = level[firsts]
    level <<= np.uint64(c_bits)
    level |= counts
    return level


def _cut(q: np.ndarray, same: np.ndarray, counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Levels sorted by query and relevance, largest first (``same``: a level equal to the one
    before): the first row of each run of equal levels and its summed count, each query's counts
    cut to sum to at most ``k`` (the levels past that dropped)."""
    firsts = np.flatnonzero(np.concatenate([[True], ~same]))
    if len(firsts) < len(counts):
        counts = np.add.reduceat(counts, firsts)
        q = q[firsts]
    before = np.cumsum(counts)
    before -= counts  # the count of the levels before, over every query
    # ... less that at the query's first level: the running maximum of those firsts' counts
    opens = np.concatenate([[True], q[1:] != q[:-1]])
    before -= np.maximum.accumulate(np.where(opens, before, 0))
    keep = before < k
    return firsts[keep], np.minimum(counts[keep], k - before[keep])


def levels(parts: tuple[Part, ...]) -> Docs:
    """The levels of ``parts`` (none, or one from :func:`levels_added`) as three arrays: query
    slots, relevances and counts, by query, largest relevance first."""
    return joined([as_docs(part) for part in parts])  # (no part: three empty arrays)


def expanded(parts: tuple[Part, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The values of levels (:func:`levels`), one each: ``(query slots, relevances)``."""
    q, rel, counts = levels(parts)
    counts = counts.astype(np.int64)
    return np.repeat(q, counts), np.repeat(rel, counts)
