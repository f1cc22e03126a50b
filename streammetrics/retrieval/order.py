"""Each query's documents in rank order: packed keys, one sort, and the ``top_k`` cut.

A document is ``(query slot, score, relevance)``. Its rank order is: by query, best score first,
tied scores less relevant first (a pessimistic rule that gives the same order whatever the
order of arrival). Where every document fits, each becomes one ``uint64`` key (:func:`packed`)
whose ascending order is that rank order, so one ``np.sort`` ranks every query at once: NumPy
sorts 64-bit integers with vectorized instructions, several times faster than an ``argsort``
of the scores followed by a stable one of the queries, and the sorted keys hold the documents
themselves (8 bytes each instead of 24); a large part of them is kept without its query slots,
as one count a query (:class:`Grouped`: about 4 bytes a document), and its keys rebuilt for a
range of queries at a time. Documents that do not fit (float64 scores that are not float32
values, relevances that are not small whole numbers, more than about two billion queries) are
ranked by :func:`ranked`, with the same result.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

#: Bits of a packed document's score: a float32's bit pattern.
SCORE_BITS = 32
#: Documents per slice where a per-query value is gathered for every document.
_SLICE = 1 << 16
#: Documents (kept and new) per block where a bounded state merges new documents into those it
#: keeps and cuts each query to its ``top_k``.
MERGE_BLOCK = 1 << 15
_EMPTY_I = np.empty(0, np.int64)
_EMPTY_F = np.empty(0, np.float64)

#: Documents as three arrays: query slots (int64), scores and relevances (float64).
Docs = tuple[np.ndarray, np.ndarray, np.ndarray]


def ranked(q: np.ndarray, s: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The rank order of documents as indices (for those :func:`packed` cannot hold).

    One sort by score, then a stable sort by query (half the work of a three-key ``lexsort``);
    runs of tied scores within a query are then ordered by relevance, touching only their rows."""
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


def relevance_bits(s: np.ndarray, r: np.ndarray) -> int | None:
    """The bits that hold every relevance as an unsigned integer (at least 1), or ``None`` when
    the documents cannot be packed: a score that is not a float32, or a relevance that is not a
    whole number below 2**16."""
    if not len(s):
        return 1
    top = float(r.max())
    with np.errstate(over="ignore"):  # a float64 beyond float32's range is simply not one
        exact = s.dtype == np.float32 or np.array_equal(s.astype(np.float32), s)
    whole = r.dtype.kind in "bui" or bool((r == np.floor(r)).all())
    if top >= 2**16 or not exact or not whole:
        return None
    return max(1, int(top).bit_length())


def fits(n_queries: int, r_bits: int) -> bool:
    """Whether query slots below ``n_queries``, a score and ``r_bits`` of relevance fit 64 bits."""
    return max(1, (n_queries - 1).bit_length()) + SCORE_BITS + r_bits <= 64


def packed(q: np.ndarray, s: np.ndarray, r: np.ndarray, r_bits: int) -> np.ndarray:
    """Each document as one ``uint64``: its query slot, then its score descending, then its
    relevance (``r_bits`` wide); the documents must fit (:func:`relevance_bits`, :func:`fits`)."""
    code = (s.astype(np.float32) + np.float32(0.0)).view(np.uint32)  # -0.0 and 0.0 tie: one pattern
    _descending(code, out=code)
    # built in place, field after field: the keys are the only array of 8 bytes a document
    keys = q.astype(np.uint64)
    keys <<= np.uint64(SCORE_BITS)
    keys |= code  # (the uint32 codes widened in the ufunc's buffers: no temporary)
    keys <<= np.uint64(r_bits)
    return np.bitwise_or(keys, r, out=keys, dtype=np.uint64, casting="unsafe")


def _descending(u: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Float32 bit patterns (uint32) as codes in decreasing order of value, and back: the map is
    its own inverse. Ascending order of values is negatives flipped, positives above them (the
    sign bit set); inverted, negatives stay as they are and positives lose their sign bit
    (``~u & 0x7FFFFFFF`` is ``0x7FFFFFFF - u`` there). ``out`` may be ``u``."""
    if out is None:
        out = u.copy()
    elif out is not u:
        out[...] = u
    return np.subtract(np.uint32(0x7FFFFFFF), out, out=out, where=out < np.uint32(0x80000000))


def _scores_of(keys: np.ndarray, r_bits: int) -> np.ndarray:
    """The scores (float64) of :func:`packed` keys."""
    code = field(keys, r_bits, np.uint32)
    return _descending(code, out=code).view(np.float32).astype(np.float64)


class Packed(NamedTuple):
    """Documents as :func:`packed` keys in ascending order (their rank order)."""

    keys: np.ndarray
    r_bits: int

    def docs(self) -> Docs:
        q = field(self.keys, SCORE_BITS + self.r_bits, np.int64)
        r = (self.keys & np.uint64((1 << self.r_bits) - 1)).astype(np.float64)
        return q, _scores_of(self.keys, self.r_bits), r

    def widened(self, r_bits: int) -> Packed:
        """The same documents with ``r_bits`` of relevance (at least the current width)."""
        extra = np.uint64(r_bits - self.r_bits)
        if not extra:
            return self
        low = self.keys & np.uint64((1 << self.r_bits) - 1)
        return Packed(((self.keys >> np.uint64(self.r_bits)) << np.uint64(r_bits)) | low, r_bits)


class Grouped(NamedTuple):
    """:class:`Packed` documents without their query slots: each query's number of documents
    (``counts``, over slots ``0..len(counts) - 1``, in the narrowest unsigned type) and, in key
    order, each document's score code (``uint32``) and relevance (bits packed 8 to a byte where
    ``r_bits`` is 1, else one ``uint8``/``uint16`` each): about 4 bytes a document instead of 8.
    The keys are rebuilt for a range of queries at a time (:func:`query_range`)."""

    counts: np.ndarray
    codes: np.ndarray
    rel: np.ndarray
    r_bits: int

    def keys(self, lo: int, hi: int, begin: int, end: int) -> np.ndarray:
        """The keys of query slots ``lo <= q < hi`` (documents ``begin:end``), slots less ``lo``."""
        counts = self.counts[lo:hi]  # (slots past the counts, added later, have no document here)
        keys = np.repeat(np.arange(len(counts), dtype=np.uint64), counts)
        keys <<= np.uint64(SCORE_BITS)
        keys |= self.codes[begin:end]
        keys <<= np.uint64(self.r_bits)
        if self.r_bits == 1:
            first = begin // 8
            bits = np.unpackbits(self.rel[first : -(-end // 8)])[begin - 8 * first :][: end - begin]
            keys |= bits
        else:
            keys |= self.rel[begin:end]
        return keys

    def packed(self) -> Packed:
        return Packed(self.keys(0, len(self.counts), 0, len(self.codes)), self.r_bits)

    def docs(self) -> Docs:
        return self.packed().docs()


def grouped(part: Packed, n_queries: int) -> Part:
    """``part`` as :class:`Grouped` where that is smaller: where its documents are at least twice
    as many as the bytes of one count per query (else the counts would cost more than the
    query slots they replace)."""
    keys, r_bits = part.keys, part.r_bits
    if len(keys) < 2 * n_queries:
        return part
    # (one pass over a part's slots: cheaper here than a binary search per query, measured)
    counts = np.bincount(field(keys, SCORE_BITS + r_bits, np.int64), minlength=n_queries)
    width = np.uint8 if counts.max() < 1 << 8 else np.uint16 if counts.max() < 1 << 16 else np.uint32
    if len(keys) < 2 * n_queries * np.dtype(width).itemsize:
        return part
    low = np.bitwise_and(
        keys,
        np.uint64((1 << r_bits) - 1),
        out=np.empty(len(keys), np.uint8 if r_bits <= 8 else np.uint16),
        casting="unsafe",
    )
    rel = np.packbits(low.view(bool)) if r_bits == 1 else low
    return Grouped(counts.astype(width), field(keys, r_bits, np.uint32), rel, r_bits)


Part = Docs | Packed | Grouped


def size(part: Part) -> int:
    """The number of documents of a part."""
    return len(part.codes) if isinstance(part, Grouped) else len(part[0])


def unpacked(part: Part) -> Docs | Packed:
    """A :class:`Grouped` part as :class:`Packed` keys (any other part as it is)."""
    return part.packed() if isinstance(part, Grouped) else part


def query_bounds(part: Packed | Grouped, edges: np.ndarray, n_queries: int) -> np.ndarray:
    """The index of the first document of each query slot in ``edges`` (increasing, within
    ``0..n_queries``), in a part sorted by query."""
    if isinstance(part, Grouped):
        ends = np.concatenate([[0], np.cumsum(part.counts, dtype=np.int64)])
        return ends[np.minimum(edges, len(part.counts))]
    shift = np.uint64(SCORE_BITS + part.r_bits)
    # (the end of the last query is the end of the keys: n_queries << shift may not fit 64 bits)
    inner = np.asarray(edges)[np.asarray(edges) < n_queries].astype(np.uint64) << shift
    out = np.full(len(edges), len(part.keys), np.int64)
    out[: len(inner)] = np.searchsorted(part.keys, inner)
    return out


def query_range(part: Packed | Grouped, lo: int, hi: int, begin: int, end: int) -> Packed:
    """The documents of query slots ``lo <= q < hi`` (documents ``begin:end`` of the part, see
    :func:`query_bounds`), slots less ``lo``."""
    if isinstance(part, Grouped):
        return Packed(part.keys(lo, hi, begin, end), part.r_bits)
    keys = part.keys[begin:end]
    return Packed(keys - (np.uint64(lo) << np.uint64(SCORE_BITS + part.r_bits)) if lo else keys, part.r_bits)


def as_docs(part: Part) -> Docs:
    return part.docs() if isinstance(part, (Packed, Grouped)) else part


def joined(parts: list[Docs] | tuple[Docs, ...]) -> Docs:
    """The documents of several parts as one."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return _EMPTY_I, _EMPTY_F, _EMPTY_F
    q, s, r = zip(*parts, strict=True)
    return np.concatenate(q), np.concatenate(s), np.concatenate(r)


def as_part(docs: Docs, n_queries: int) -> Part:
    """``docs`` as a part: packed and sorted (8 bytes a document) where they fit, else as they are."""
    bits = relevance_bits(docs[1], docs[2])
    if bits is None or not len(docs[0]) or not fits(n_queries, bits):
        q, s, r = docs  # kept as arrays: float64 copies (an input may be the caller's own array)
        return q.astype(np.int64), np.add(s, 0.0, dtype=np.float64), r.astype(np.float64)  # -0.0 as 0.0
    keys = packed(*docs, bits)
    keys.sort()
    return Packed(keys, bits)


def joined_part(a: Part, b: Part) -> Part:
    """Two parts as one: packed if both are (merged in rank order), else three arrays."""
    a, b = unpacked(a), unpacked(b)
    if isinstance(a, Packed) and isinstance(b, Packed):
        r_bits = max(a.r_bits, b.r_bits)
        return Packed(_merged(a.widened(r_bits).keys, b.widened(r_bits).keys.copy()), r_bits)
    return joined([as_docs(a), as_docs(b)])


def positions(q_sorted: np.ndarray, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """``(start of each query, 0-based rank of each row within its query)`` of sorted rows."""
    index = np.int32 if len(q_sorted) < 2**31 else np.int64  # half the bytes where they fit
    # the rows are sorted: each query's start is one binary search (no pass over every row)
    starts = np.searchsorted(q_sorted, np.arange(n_queries, dtype=q_sorted.dtype)).astype(index)
    rank = np.arange(len(q_sorted), dtype=index)
    # each row's query start, repeated over the query's rows (a gather by int32 query slots
    # would first widen them to an index array of 8 bytes a document)
    rank -= np.repeat(starts, np.diff(starts, append=len(q_sorted)))
    return starts, rank


class SortedDocs:
    """The documents of ``parts`` in rank order: by one sort of :func:`packed` keys where every
    document fits, else by :func:`ranked`.

    ``q`` (query slots) and ``r`` (relevances; integers when packed) are arrays; ``ties`` is
    equal between two documents exactly where their scores are equal (the scores, or their
    packed codes, cheaper to read from the keys); :meth:`scores` gives the scores of some rows;
    ``keys`` are the sorted keys (``None`` when not packed).
    """

    def __init__(self, parts: list[Part] | tuple[Part, ...], n_queries: int) -> None:
        parts = [unpacked(part) for part in parts if size(part)]
        widths = [
            part.r_bits if isinstance(part, Packed) else relevance_bits(part[1], part[2]) for part in parts
        ]
        self.keys: np.ndarray | None = None
        r_bits = max([1, *widths]) if None not in widths else 0
        if parts and r_bits and fits(n_queries, r_bits):
            if len(parts) == 1 and isinstance(parts[0], Packed):
                keys = parts[0].widened(r_bits).keys  # sorted already
            else:
                each = [
                    part.widened(r_bits).keys if isinstance(part, Packed) else packed(*part, r_bits)
                    for part in parts
                ]
                keys = each[0] if len(each) == 1 else np.concatenate(each)
                keys.sort()
            self.keys, self.r_bits = keys, r_bits
            return
        q, s, r = joined([as_docs(part) for part in parts])
        # float64 (inputs may be float32 scores, integer relevances); -0.0 as 0.0, as in packed
        # keys: tied scores, one bit pattern
        s, r = np.add(s, 0.0, dtype=np.float64), r.astype(np.float64, copy=False)
        order = ranked(q, s, r)
        self._q, self._s, self._r = q[order], s[order], r[order]

    @functools.cached_property
    def q(self) -> np.ndarray:
        if self.keys is None:
            return self._q
        # fields read straight into narrow arrays (the cast is done in small buffers): query
        # slots fit 31 bits, scores' codes 32, relevances 16
        return field(self.keys, SCORE_BITS + self.r_bits, np.int32)

    @functools.cached_property
    def r(self) -> np.ndarray:
        if self.keys is None:
            return self._r
        return np.bitwise_and(
            self.keys,
            np.uint64((1 << self.r_bits) - 1),
            out=np.empty(len(self.keys), np.uint16),
            casting="unsafe",
        )

    @functools.cached_property
    def ties(self) -> np.ndarray:
        if self.keys is None:
            return self._s
        return field(self.keys, self.r_bits, np.uint32)  # the low 32 bits: the score's code

    @property
    def n_rows(self) -> int:
        return len(self.keys) if self.keys is not None else len(self._q)

    def query_starts(self, n_queries: int) -> np.ndarray:
        """Each query slot's first row (a binary search per slot, of the keys or the slots)."""
        if self.keys is not None:
            return query_starts(self.keys, self.r_bits, n_queries)
        return np.searchsorted(self._q, np.arange(n_queries))

    def ties_at(self, rows: np.ndarray) -> np.ndarray:
        """:attr:`ties` of some rows only."""
        if self.keys is None:
            return self._s[rows]
        return field(self.keys[rows], self.r_bits, np.uint32)

    def scores(self, where: np.ndarray | slice = slice(None)) -> np.ndarray:
        """The scores (float64) of the rows ``where``."""
        if self.keys is None:
            return self._s[where]
        return _scores_of(self.keys[where], self.r_bits)


def query_starts(keys: np.ndarray, r_bits: int, n_queries: int) -> np.ndarray:
    """The index of each query slot's first key in sorted :func:`packed` keys: a binary search of
    the slot's first possible key (no array of every key's slot)."""
    return np.searchsorted(keys, np.arange(n_queries, dtype=np.uint64) << np.uint64(SCORE_BITS + r_bits))


def field(keys: np.ndarray, shift: int, dtype: type) -> np.ndarray:
    """``keys >> shift`` cast to ``dtype`` (keeping its low bits) without a uint64 temporary."""
    return np.right_shift(keys, np.uint64(shift), out=np.empty(len(keys), dtype), casting="unsafe")


def top(parts: list[Part], k: int, n_queries: int) -> Part:
    """The documents of ``parts`` that a ``top_k`` bound keeps, in rank order (packed if they
    fit): each query's ``k`` best and those tied with the k-th."""
    d = SortedDocs(parts, n_queries)
    keep = _kept(d, k, n_queries)
    if d.keys is not None:
        return Packed(d.keys[keep], d.r_bits)
    return d.q[keep].astype(np.int64, copy=False), d.scores(keep), d.r[keep]


def _kept(d: SortedDocs, k: int, n_queries: int) -> np.ndarray:
    """The rows a ``top_k`` bound keeps of rank-ordered documents: rank below ``k``, and those
    whose score ties the k-th, so that the kept documents do not depend on the order of
    arrival. Each query's rows by binary search, the first ``k`` of each marked by
    a running sum of +1/-1 at their ends, and only the rows past the k-th of a query compared
    with its k-th score (no array of query slots, ranks or scores of every row)."""
    n = d.n_rows
    starts = d.query_starts(n_queries)
    ends = np.append(starts[1:], n)
    cut = np.minimum(starts + k, ends)
    # +1 where a query's rows start, -1 where its k best end: the running sum is 1 on the k best
    held = cut > starts  # (a query without rows marks nothing)
    edges = np.zeros(n + 1, np.int8)
    edges[starts[held]] = 1  # distinct rows: each query's first
    edges[cut[held]] -= 1  # distinct rows too (a cut may be the next query's first: 0 there)
    keep = np.cumsum(edges[:n], dtype=np.int8).view(bool)
    full = ends - starts > k
    if full.any():  # rows past the k-th tied with it are kept too
        first, last = cut[full], ends[full]
        kth = d.ties_at(first - 1)  # each full query's k-th score
        # the rows past the k-th, by query: a run of length last - first from each first
        lengths = last - first
        rows = np.repeat(first - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
        keep[rows[d.ties_at(rows) == np.repeat(kth, lengths)]] = True
    return keep


def top_added(kept: tuple[Part, ...], new: Docs, k: int, n_queries: int) -> Part:
    """:func:`top` of ``kept`` (what the bound kept so far) and ``new`` documents.

    Where the kept documents are packed and the new ones fit, a new document below its query's
    k-th kept one is dropped at once: it cannot enter that query's ``k`` best (more documents
    only raise the k-th), so most of a long stream is never sorted; the others are sorted and
    merged into the kept keys, which are in order already."""
    if len(kept) == 1 and isinstance(kept[0], Packed) and len(new[0]):
        bits = relevance_bits(new[1], new[2])
        r_bits = max(kept[0].r_bits, bits or 0)
        if bits is not None and fits(n_queries, r_bits):
            old = kept[0].widened(r_bits)
            starts = query_starts(old.keys, r_bits, n_queries)
            keys = _above_bars(old, starts, new, k, n_queries)
            keys.sort()
            # (room for k a query: ties beyond that are rare, and the kept keys grow if they come)
            cut = functools.partial(_top_keys, k=k, r_bits=r_bits)
            return Packed(merged_cut(old.keys, starts, keys, r_bits, n_queries, k * n_queries, cut), r_bits)
    return top([*kept, new], k, n_queries)


def _top_keys(keys: np.ndarray, n_queries: int, k: int, r_bits: int) -> np.ndarray:
    """What :func:`top` keeps of sorted packed keys (all packed: keys out)."""
    return top([Packed(keys, r_bits)], k, n_queries).keys  # type: ignore[union-attr]


def query_blocks(firsts: np.ndarray, size: int) -> np.ndarray:
    """The edges (query slots, from 0 to ``len(firsts)``) of blocks of whole queries of about
    ``size`` documents each, given each query's first document (non-decreasing, from 0)."""
    cuts = np.searchsorted(firsts, np.arange(size, int(firsts[-1]) + 1, size), side="right") - 1
    return np.unique(np.concatenate([[0], cuts, [len(firsts)]]))


def merged_cut(
    a: np.ndarray,
    a_starts: np.ndarray,
    b: np.ndarray,
    r_bits: int,
    n_queries: int,
    room: int,
    cut: Callable[[np.ndarray, int], np.ndarray],
) -> np.ndarray:
    """What ``cut(keys, n_queries)`` keeps of the sorted packed keys ``a`` (each query's first at
    ``a_starts``) and ``b`` together, merged and cut a block of whole queries at a time (about
    :data:`MERGE_BLOCK` documents each, slots from 0 within a block): the temporaries are those
    of a block, and the kept keys are written into one array (``room`` keys, grown if more are
    kept), shrunk in place at the end."""
    total = len(a) + len(b)
    if total <= MERGE_BLOCK or n_queries < 2:
        return cut(merged_runs(a, b), n_queries)
    # blocks of whole queries by the documents before each query: in a and b together where b
    # is the larger, else in a alone (a binary search of every query slot in b saved)
    firsts = a_starts + query_starts(b, r_bits, n_queries) if len(b) > len(a) else a_starts
    edges = query_blocks(firsts, MERGE_BLOCK)
    a_bounds = np.append(a_starts, len(a))[edges]
    b_bounds = query_bounds(Packed(b, r_bits), edges, n_queries)
    edges = edges.tolist()
    shift = np.uint64(SCORE_BITS + r_bits)
    out = np.empty(min(total, room), np.uint64)
    filled = 0
    for i, (lo, hi) in enumerate(itertools.pairwise(edges)):
        if a_bounds[i] == a_bounds[i + 1] and b_bounds[i] == b_bounds[i + 1]:
            continue  # queries without documents
        pa = query_range(Packed(a, r_bits), lo, hi, a_bounds[i], a_bounds[i + 1])
        pb = query_range(Packed(b, r_bits), lo, hi, b_bounds[i], b_bounds[i + 1])
        kept = cut(merged_runs(pa.keys, pb.keys), hi - lo)
        if lo:
            kept += np.uint64(lo) << shift  # (a fresh array: the slots back in place)
        if filled + len(kept) > len(out):
            out.resize(min(total, 2 * len(out) + len(kept)), refcheck=False)
        out[filled : filled + len(kept)] = kept
        filled += len(kept)
    out.resize(filled, refcheck=False)  # (out is referenced nowhere else: shrunk in place)
    return out


def _above_bars(kept: Packed, starts: np.ndarray, new: Docs, k: int, n_queries: int) -> np.ndarray:
    """The packed keys of the ``new`` documents that may still be among their query's ``k`` best:
    those of a query with fewer than ``k`` kept documents, those ranked above the k-th kept one,
    and those tied with its score, whatever their relevance (``starts``: each query's first kept
    document, :func:`query_starts`)."""
    counts = np.diff(starts, append=len(kept.keys))
    full = counts >= k
    kth = kept.keys[starts[full] + (k - 1)]
    bars = np.full(n_queries, np.iinfo(np.uint64).max, np.uint64)
    bars[full] = kth | np.uint64((1 << kept.r_bits) - 1)  # any relevance at the k-th's score
    return packed_under(*new, kept.r_bits, bars)


def packed_under(q: np.ndarray, s: np.ndarray, r: np.ndarray, r_bits: int, bars: np.ndarray) -> np.ndarray:
    """The :func:`packed` keys of the documents ``(q, s, r)`` that are at most their query's bar
    (``bars[q]``), packed and compared a slice at a time: the only array as long as the
    documents is that of the keys kept (shrunk in place)."""
    out = np.empty(len(q), np.uint64)
    filled = 0
    for start in range(0, len(q), _SLICE):
        part = slice(start, start + _SLICE)
        keys = packed(q[part], s[part], r[part], r_bits)
        keys = keys[keys <= bars[q[part]]]
        out[filled : filled + len(keys)] = keys
        filled += len(keys)
    out.resize(filled, refcheck=False)  # (out is referenced nowhere else: shrunk in place)
    return out


def _merged(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted ``a`` and ``b`` (sorted here, in place) as one sorted array."""
    b.sort()
    return merged_runs(a, b)


def merged_runs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted ``a`` and sorted ``b`` as one sorted array: a stable sort of the two runs is one
    merge (timsort finds the runs), several times faster than sorting again."""
    if not len(b):
        return a
    both = np.concatenate([a, b])
    both.sort(kind="stable")  # in place: no second copy
    return both
