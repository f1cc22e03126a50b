"""The rank order of retrieval documents: packed keys, the fallback, and the ``top_k`` cut,
each against a three-key ``lexsort`` of the same documents."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

import streammetrics as sm
from streammetrics.retrieval import order
from streammetrics.retrieval.levels import expanded, levels_added
from streammetrics.retrieval.order import Packed, SortedDocs, top, top_added


def _docs(seed: int, n: int = 3000, n_queries: int = 40, kind: str = "float32", graded: bool = False):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, n_queries, n)
    s = rng.standard_normal(n)
    if kind == "float32":  # ties, negatives, both zeros, tiny and huge float32 values
        s = np.round(s, 1).astype(np.float32).astype(np.float64)
        s[rng.random(n) < 0.05] = -0.0
        s[rng.random(n) < 0.02] = np.float32(1e-40)  # a subnormal
        s[rng.random(n) < 0.02] = -np.float32(3e38)
    r = rng.integers(0, 4 if graded else 2, n).astype(np.float64)
    return q, s, r


def _reference(q, s, r):
    """The rank order by definition: query, score descending, relevance ascending."""
    i = np.lexsort((r, -s, q))
    return q[i], s[i], r[i]


@pytest.mark.parametrize("kind", ["float32", "float64"])
@pytest.mark.parametrize("graded", [False, True])
def test_sorted_docs_equal_a_lexsort(kind, graded):
    q, s, r = _docs(1, kind=kind, graded=graded)
    d = SortedDocs([(q[:1000], s[:1000], r[:1000]), (q[1000:], s[1000:], r[1000:])], 40)
    assert (d.keys is not None) == (kind == "float32")  # float64 scores: the fallback
    rq, rs, rr = _reference(q, s, r)
    np.testing.assert_array_equal(d.q, rq)
    np.testing.assert_array_equal(d.scores(), rs)
    np.testing.assert_array_equal(d.r.astype(float), rr)
    # ties: equal exactly where the scores are
    np.testing.assert_array_equal(d.ties[1:] == d.ties[:-1], rs[1:] == rs[:-1])


def test_packed_keys_round_trip_and_widen():
    q, s, r = _docs(2, graded=True)
    keys = np.sort(order.packed(q, s, r, 2))
    part = Packed(keys, 2)
    wide = part.widened(5)
    for got in (part.docs(), wide.docs()):
        for a, b in zip(got, _reference(q, s, r), strict=True):
            np.testing.assert_array_equal(a, b)
    assert np.all(wide.keys[1:] >= wide.keys[:-1])  # still in rank order


def test_what_does_not_fit_is_not_packed():
    _, s, r = _docs(3)
    assert order.relevance_bits(s, r) == 1
    assert order.relevance_bits(s + 1e-9, r) is None  # not float32 values
    assert order.relevance_bits(s, r + 0.5) is None  # not whole relevances
    assert order.relevance_bits(s, r * 2**16) is None
    assert order.relevance_bits(np.array([1e300]), np.array([0.0])) is None  # beyond float32
    assert order.fits(2**31, 1) and not order.fits(2**31 + 1, 1)


#: block sizes of the merge and cut of packed documents: the default (one block here), blocks of
#: a few queries, a query a block
MERGE_BLOCKS = [order.MERGE_BLOCK, 64, 1]


@pytest.mark.parametrize("merge_block", MERGE_BLOCKS)
@pytest.mark.parametrize("n_queries", [40, 2500])  # full queries; and many short or empty ones
@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("kind", ["float32", "float64"])
def test_top_added_equals_top_of_everything(k, kind, n_queries, merge_block, monkeypatch):
    """Documents dropped early, below a query's k-th kept score, are those the bound drops, and
    the bound keeps by definition: rank below k, or a score tied with the k-th."""
    monkeypatch.setattr(order, "MERGE_BLOCK", merge_block)
    q, s, r = _docs(4, n=6000, n_queries=n_queries, kind=kind, graded=True)
    kept = ()
    # a small first batch: the next one brings more documents than are kept
    for part in np.split(np.arange(len(q)), [300, 2000, 2600, 3500, 4400, 5200]):
        kept = (top_added(kept, (q[part], s[part], r[part]), k, n_queries),)
    whole = order.as_docs(top([(q, s, r)], k, n_queries))
    got = order.as_docs(kept[0])
    for a, b in zip(got, whole, strict=True):
        np.testing.assert_array_equal(a, b)
    rq, rs, rr = _reference(q, s, r)
    pos = np.array([np.sum(rq[:i] == rq[i]) for i in range(len(rq))])  # rank within the query
    kth = {int(qq): ss for qq, ss, p in zip(rq, rs, pos, strict=True) if p == k - 1}
    expected = (pos < k) | np.array([kth.get(int(qq)) == ss for qq, ss in zip(rq, rs, strict=True)])
    for a, b in zip(got, (rq[expected], rs[expected], rr[expected]), strict=True):
        np.testing.assert_array_equal(a, b)


def test_bounded_state_is_packed_and_small():
    rng = np.random.default_rng(5)
    n = 20_000
    q, s, rel = rng.integers(0, 500, n), rng.random(n).astype(np.float32), rng.random(n) < 0.1
    m = sm.RetrievalPrecision(top_k=5)
    for part in np.array_split(np.arange(n), 5):
        m.update(rel[part], s[part], q[part])
    (part,) = m.state.parts
    assert isinstance(part, Packed) and part.keys.nbytes == 8 * len(part.keys) <= 8 * 5 * 500 * 1.1
    # the same value with float64 scores (not packed)
    slow = sm.RetrievalPrecision(top_k=5).update(rel, s.astype(np.float64) + 1e-12, q)
    assert not isinstance(slow.state.parts[0], Packed)
    assert m.compute() == slow.compute()


@pytest.mark.parametrize("merge_block", MERGE_BLOCKS)
@pytest.mark.parametrize("kind", ["float32", "float64", "continuous"])
def test_levels_keep_the_k_largest_values(kind, merge_block, monkeypatch):
    """NDCG's ideal ranking as levels: each query's k largest positive values with their
    multiplicity, one level a distinct value, whatever the batches (float32 values packed,
    others not; continuous values: every level counts one)."""
    monkeypatch.setattr(order, "MERGE_BLOCK", merge_block)
    rng = np.random.default_rng(6)
    n, n_queries, k = 6000, 40, 7
    q = rng.integers(0, n_queries, n)
    rel = {"float32": rng.integers(1, 5, n).astype(np.float32), "float64": rng.integers(1, 5, n) + 0.1,
           "continuous": rng.random(n) + 1e-3}[kind]  # fmt: skip
    kept = ()
    for part in np.array_split(np.arange(n), 7):
        kept = levels_added(kept, q[part], rel[part], None, k, n_queries)
    assert isinstance(kept[0], Packed) == (kind == "float32")
    lq, lrel, lcount = order.as_docs(kept[0])
    assert (lcount >= 1).all() and len(set(zip(lq.tolist(), lrel.tolist(), strict=True))) == len(lq)
    got_q, got_rel = expanded(kept)
    for query in range(n_queries):
        np.testing.assert_array_equal(got_rel[got_q == query], np.sort(rel[q == query])[::-1][:k])
    # levels with counts (a shard's, merged): the same as their values one by one
    halves = [
        levels_added((), q[h], rel[h], None, k, n_queries)[0] for h in (slice(0, n // 2), slice(n // 2, n))
    ]
    a, b = order.as_docs(halves[0]), order.as_docs(halves[1])
    (merged,) = levels_added((halves[0],), b[0], b[1], b[2].astype(np.int64), k, n_queries)
    for x, y in zip(order.as_docs(merged), (lq, lrel, lcount), strict=True):
        np.testing.assert_array_equal(x, y)
    assert len(a[0]) <= k * n_queries


def test_packed_levels_then_values_that_do_not_pack():
    """Packed levels, then a batch of relevances that are not float32 values: the levels go on
    unpacked, holding the same k largest values."""
    rng = np.random.default_rng(10)
    q, rel = rng.integers(0, 30, 4000), rng.integers(1, 6, 4000).astype(np.float64)
    rel[3000:] += 1e-9  # not float32 values
    kept = ()
    for part in np.array_split(np.arange(4000), 8):
        kept = levels_added(kept, q[part], rel[part], None, 5, 30)
        assert isinstance(kept[0], Packed) == (part[-1] < 3000)
    got_q, got_rel = expanded(kept)
    for query in range(30):
        np.testing.assert_array_equal(got_rel[got_q == query], np.sort(rel[q == query])[::-1][:5])


def test_levels_count_past_a_packed_relevance():
    """A k past 65,535 and a level that many times: the counts are kept whole (unpacked)."""
    rng = np.random.default_rng(9)
    n, k = 70_000, 68_000
    rel = np.ones(n, np.float32)
    rel[::100] = 2.0  # 69,300 ones: 67,300 of them among the k largest
    s = rng.random(n).astype(np.float32)
    m = sm.RetrievalNDCG(top_k=k).update(rel, s, np.zeros(n, int))
    assert m.compute() == pytest.approx(ndcg_score(rel[None], s[None], k=k), rel=1e-12)
    np.testing.assert_array_equal(m.state.ideal_relevance, np.sort(rel)[::-1][:k])


def test_graded_levels_are_few_a_query():
    """Four relevance levels: one level a distinct value among a query's k largest positive
    ones (at most three), whatever k."""
    rng = np.random.default_rng(8)
    q, rel = rng.integers(0, 100, 20_000), rng.integers(0, 4, 20_000).astype(np.float32)
    m = sm.RetrievalNDCG(top_k=150).update(rel, rng.random(20_000).astype(np.float32), q)
    (part,) = m.state.ideal_parts
    tops = [np.sort(rel[(q == query) & (rel > 0)])[::-1][:150] for query in range(100)]
    assert isinstance(part, Packed) and len(part.keys) == sum(len(np.unique(t)) for t in tops) <= 300
    assert len(m.state.ideal_relevance) == sum(len(t) for t in tops)


def test_a_large_batch_taken_in_chunks_equals_one_cut(monkeypatch):
    """A bounded state takes a large batch chunk by chunk: the same kept documents."""
    from streammetrics.retrieval import state

    q, s, r = _docs(7, n=5000, graded=True)
    rel = (r > 0).astype(float)
    whole = sm.RetrievalNDCG(top_k=3).update(r, s, q)
    monkeypatch.setattr(state, "CHUNK_DOCS", 64)
    chunked = sm.RetrievalNDCG(top_k=3).update(r, s, q)
    assert chunked.to_bytes() == whole.to_bytes()
    assert chunked.compute() == whole.compute()
    precision = sm.RetrievalPrecision(top_k=3).update(rel, s, q)
    monkeypatch.setattr(state, "CHUNK_DOCS", 1 << 18)
    assert precision.to_bytes() == sm.RetrievalPrecision(top_k=3).update(rel, s, q).to_bytes()


@pytest.mark.parametrize("name", ["RetrievalPrecision", "RetrievalNDCG", "RetrievalMAP"])
def test_float32_scores_and_integer_relevances_as_given_equal_float64(name):
    """Inputs read as they are (float32 scores, bool/int/float32 relevances) give the states
    float64 inputs give; bad ones are still refused, the state unchanged."""
    rng = np.random.default_rng(8)
    q = rng.integers(0, 30, 2000)
    s32 = rng.random(2000).astype(np.float32)
    graded = name == "RetrievalNDCG"
    r = rng.integers(0, 4 if graded else 2, 2000)
    kw = {"top_k": 3} if name != "RetrievalMAP" else {}
    reference = getattr(sm, name)(**kw).update(r.astype(float), s32.astype(float), q)
    for rel in (r, r.astype(np.int8), r.astype(np.float32)) + ((r.astype(bool),) if not graded else ()):
        m = getattr(sm, name)(**kw).update(rel, s32, q)
        assert m.to_bytes() == reference.to_bytes() and m.compute() == reference.compute()
    before = m.to_bytes()
    bad_scores = s32.copy()
    bad_scores[5] = np.nan
    bad_rel = r.copy()
    bad_rel[3] = -1 if graded else 2
    for args in ((r, bad_scores, q), (bad_rel, s32, q)):
        with pytest.raises(sm.InputError):
            m.update(*args)
        assert m.to_bytes() == before


RETRIEVAL = [
    ("RetrievalMAP", {}), ("RetrievalMAP", {"top_k": 3}), ("RetrievalMRR", {}), ("RetrievalNDCG", {}),
    ("RetrievalNDCG", {"top_k": 3}), ("RetrievalPrecision", {"top_k": 3, "adaptive_k": True}),
    ("RetrievalRecall", {"top_k": 3}), ("RetrievalHitRate", {"top_k": 2}), ("RetrievalFallOut", {"top_k": 3}),
    ("RetrievalRPrecision", {}), ("RetrievalAUROC", {}), ("RetrievalAUROC", {"top_k": 4, "max_fpr": 0.5}),
]  # fmt: skip


@pytest.mark.parametrize("max_docs", [1, 7, 50])
@pytest.mark.parametrize(("name", "kw"), RETRIEVAL, ids=[f"{n}{kw}" for n, kw in RETRIEVAL])
def test_formulas_read_block_by_block_as_all_at_once(name, kw, max_docs, monkeypatch):
    """compute() reads the kept documents in blocks of whole queries: every query's value is the
    one read from all documents at once, bit for bit, for blocks down to one query each."""
    from streammetrics.retrieval import state

    q, s, r = _docs(9, n=4000, n_queries=60, graded=name == "RetrievalNDCG")
    if name != "RetrievalNDCG":
        r = (r > 0).astype(float)
    m = getattr(sm, name)(**kw)
    for part in np.array_split(np.arange(len(q)), 5):  # several parts, as a stream keeps them
        m.update(r[part], s[part], q[part])
    whole = m.per_query(), m.compute()
    monkeypatch.setattr(state, "BLOCK_DOCS", max_docs)
    blocks = list(m.state.blocks())
    assert len(blocks) > 1 and sum(b.n_queries for b in blocks) == 60
    assert m.per_query() == whole[0] and m.compute() == whole[1]


@pytest.mark.parametrize("graded_max", [1, 5, 300])  # relevance bits 1 (packed bits), 3, 9 (uint16)
@pytest.mark.parametrize("per_query", [3, 400])  # counts in uint8, and past 255 (uint16)
def test_grouped_parts_hold_the_packed_keys(graded_max, per_query):
    """A part kept without query slots rebuilds the same keys, whole and by query range, with
    queries added after it (slots past its counts) holding no document there."""
    rng = np.random.default_rng(graded_max + per_query)
    n_queries = 50
    n = n_queries * per_query
    q, s = rng.integers(0, n_queries - 5, n), rng.random(n).astype(np.float32)  # the last 5: none
    r = rng.integers(0, graded_max + 1, n)
    bits = order.relevance_bits(s, r)
    part = Packed(np.sort(order.packed(q, s, r, bits)), bits)
    g = order.grouped(Packed(part.keys[: len(part.keys)], bits), n_queries - 5)  # counts: 45 slots
    assert isinstance(g, order.Grouped)
    np.testing.assert_array_equal(g.packed().keys, part.keys)
    edges = np.array([0, 7, 7, 20, 44, 48, n_queries])
    ranges = list(itertools.pairwise(edges.tolist()))
    q_sorted = part.docs()[0]
    shift = np.uint64(32 + bits)
    expected = [part.keys[(q_sorted >= lo) & (q_sorted < hi)] - (np.uint64(lo) << shift) for lo, hi in ranges]
    for p in (part, g):
        b = order.query_bounds(p, edges, n_queries)
        got = [order.query_range(p, lo, hi, b[i], b[i + 1]).keys for i, (lo, hi) in enumerate(ranges)]
        for a, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, e)
    # a part whose counts would cost more than the query slots they replace stays packed
    assert isinstance(order.grouped(Packed(part.keys[:10], bits), n_queries), Packed)


@pytest.mark.parametrize("name", ["RetrievalMAP", "RetrievalNDCG", "RetrievalAUROC"])
def test_states_without_top_k_are_the_same_grouped_or_not(name, monkeypatch):
    """Parts kept without query slots change the memory, not the state: the same bytes and
    values as parts kept as keys, under updates, merges and a round trip."""
    from streammetrics.retrieval import state

    q, s, r = _docs(11, n=6000, n_queries=300, graded=name == "RetrievalNDCG")
    if name != "RetrievalNDCG":
        r = (r > 0).astype(float)

    def stream():
        a, b = getattr(sm, name)(), getattr(sm, name)()
        for part in np.array_split(np.arange(len(q)), 6):
            a.update(r[part[::2]], s[part[::2]], q[part[::2]])
            b.update(r[part[1::2]], s[part[1::2]], q[part[1::2]])
        return a.merge(b)

    grouped = stream()
    assert any(isinstance(p, order.Grouped) for p in grouped.state.parts)
    monkeypatch.setattr(state, "grouped", lambda part, n: part)
    keyed = stream()
    assert not any(isinstance(p, order.Grouped) for p in keyed.state.parts)
    assert grouped.to_bytes() == keyed.to_bytes() and grouped.compute() == keyed.compute()
    assert type(grouped).from_bytes(grouped.to_bytes()).compute() == keyed.compute()


@pytest.mark.parametrize("name", ["RetrievalNDCG", "RetrievalPrecision", "RetrievalMRR"])
def test_bounded_states_merged_and_cut_by_blocks_equal_one_block(name, monkeypatch):
    """A bounded metric fed in batches and merged from shards holds the same bytes and value
    whether its updates merge and cut a block of a few queries at a time or all at once."""
    q, s, r = _docs(9, n=6000, n_queries=300, graded=True)
    rel = r if name == "RetrievalNDCG" else (r > 0).astype(float)
    parts = np.array_split(np.arange(len(q)), 5)

    def stream():
        shards = [getattr(sm, name)(top_k=4) for _ in range(2)]
        for i, part in enumerate(parts):
            shards[i % 2].update(rel[part], s[part], q[part])
        return shards[0].merge(shards[1])

    whole = stream()
    monkeypatch.setattr(order, "MERGE_BLOCK", 64)
    blocked = stream()
    assert blocked.to_bytes() == whole.to_bytes()
    assert blocked.compute() == whole.compute()


def test_ndcg_ideal_ranking_keeps_positive_relevances_only():
    """The ideal ranking of a bounded NDCG holds each query's k largest positive relevances (a 0
    adds nothing to the ideal DCG); a state saved with zeros there (version 0.1) loads without
    them, to the same bytes and value."""
    q, s, r = _docs(10, n=3000, n_queries=200, graded=True)
    r[q % 7 == 0] = 0.0  # queries without a relevant document
    m = sm.RetrievalNDCG(top_k=4).update(r, s, q)
    st = m.state
    ids = np.array(st.keys.to_list()[0])  # the query id of each slot
    assert (st.ideal_relevance > 0).all()
    for slot, query in enumerate(ids):
        want = np.sort(r[(q == query) & (r > 0)])[::-1][:4]
        np.testing.assert_array_equal(st.ideal_relevance[st.ideal_query == slot], want)
    # the same state as 0.1 wrote it: each query's k largest relevances, zeros included
    old = st.to_dict()
    iq, ir = [], []
    for slot, query in enumerate(ids):
        top = np.sort(r[q == query])[::-1][:4]
        iq += [slot] * len(top)
        ir += top.tolist()
    assert 0.0 in ir
    old["ideal_query"], old["ideal_relevance"] = np.array(iq), np.array(ir)
    loaded = sm.RetrievalNDCG(top_k=4)
    loaded.state.load_dict(old)
    assert loaded.to_bytes() == m.to_bytes() and loaded.compute() == m.compute()
