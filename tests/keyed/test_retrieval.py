"""Retrieval metrics: exact per query against torchmetrics' functions and scikit-learn, bounded states."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

import streammetrics as sm

torch = pytest.importorskip("torch")
tmf = pytest.importorskip("torchmetrics.functional.retrieval")


def _docs(n_queries=40, per=12, seed=0, graded=False):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), per)
    rel = rng.integers(0, 4, len(q)) * (rng.random(len(q)) < 0.5) if graded else rng.random(len(q)) < 0.3
    score = rng.random(len(q)) + 0.01
    order = rng.permutation(len(q))  # documents of a query scattered over batches
    return rel[order].astype(float), score[order], q[order]


FUNCTIONS = [
    (lambda: sm.RetrievalMAP(top_k=5), lambda p, t: tmf.retrieval_average_precision(p, t, top_k=5)),
    (lambda: sm.RetrievalMRR(), tmf.retrieval_reciprocal_rank),
    (lambda: sm.RetrievalPrecision(top_k=4), lambda p, t: tmf.retrieval_precision(p, t, top_k=4)),
    (lambda: sm.RetrievalRecall(top_k=4), lambda p, t: tmf.retrieval_recall(p, t, top_k=4)),
    (lambda: sm.RetrievalHitRate(top_k=2), lambda p, t: tmf.retrieval_hit_rate(p, t, top_k=2)),
    (lambda: sm.RetrievalRPrecision(), tmf.retrieval_r_precision),
    (lambda: sm.RetrievalFallOut(top_k=3), lambda p, t: tmf.retrieval_fall_out(p, t, top_k=3)),
    (lambda: sm.RetrievalAUROC(), tmf.retrieval_auroc),
    (lambda: sm.RetrievalAUROC(max_fpr=0.3), lambda p, t: tmf.retrieval_auroc(p, t, max_fpr=0.3)),
    (
        lambda: sm.RetrievalAUROC(top_k=8, max_fpr=0.5),
        lambda p, t: tmf.retrieval_auroc(p, t, top_k=8, max_fpr=0.5),
    ),
]


@pytest.mark.parametrize("make, reference", FUNCTIONS)
def test_per_query_values_equal_torchmetrics_functions(make, reference):
    rel, score, q = _docs()
    m = make()
    for part in np.array_split(np.arange(len(q)), 5):
        m.merge(make().update(rel[part], score[part], q[part]))  # shards, documents of a query split
    for query, value in m.per_query().items():
        rows = q == query
        if (
            (rel[rows].sum() == 0)
            if not isinstance(m, sm.RetrievalFallOut)
            else (rel[rows].sum() == rows.sum())
        ):
            continue  # empty targets: the action's value
        expected = float(reference(torch.tensor(score[rows]), torch.tensor(rel[rows].astype(bool))))
        assert value == pytest.approx(expected, abs=1e-6), query


@pytest.mark.parametrize("k", [None, 1, 5])
def test_ndcg_equals_sklearn_exactly_with_ties(k):
    rel, score, q = _docs(graded=True, seed=2)
    score = np.round(score, 1)  # ties: both average the gains of tied documents
    m = sm.RetrievalNDCG(top_k=k, empty_target_action="skip").update(rel, score, q)
    for query, value in m.per_query().items():
        rows = q == query
        assert value == pytest.approx(ndcg_score([rel[rows]], [score[rows]], k=k), abs=1e-12)


def test_bounded_state_keeps_top_k_and_equals_unbounded_values():
    rel, score, q = _docs(n_queries=50, per=30, seed=4)
    bounded = sm.RetrievalPrecision(top_k=3)
    for part in np.array_split(np.arange(len(q)), 7):
        bounded.update(rel[part], score[part], q[part])
    assert len(bounded.state.scores) == 50 * 3  # no ties: exactly k per query
    full = sm.RetrievalPrecision(top_k=3)
    full.state.top_k = None  # the same metric on every document (unbounded)
    full.update(rel, score, q)
    assert bounded.compute() == full.compute()
    assert bounded.n_samples == len(q)


def test_empty_target_actions_and_errors():
    rel, score, q = [0, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], ["a", "a", "b", "b"]
    assert sm.RetrievalMRR(empty_target_action="pos").update(rel, score, q).compute() == 0.75
    assert sm.RetrievalMRR(empty_target_action="skip").update(rel, score, q).per_query() == {"b": 0.5}
    with pytest.raises(sm.InputError, match="'a'"):
        sm.RetrievalMRR(empty_target_action="error").update(rel, score, q).compute()
    with pytest.raises(sm.InputError, match="0/1"):
        sm.RetrievalMAP().update([2, 0], [0.1, 0.2], [1, 1])
    with pytest.raises(sm.InputError, match="sample_weight"):
        sm.RetrievalMAP().update([1, 0], [0.1, 0.2], [1, 1], sample_weight=[1, 1])


def test_corrupt_states_are_refused():
    d = sm.RetrievalMAP().update([1, 0], [0.1, 0.2], ["a", "b"]).state_dict()
    d["state"]["query"] = np.array([0, 5])
    with pytest.raises(sm.StateError, match="query slot"):
        sm.from_state_dict(d)


MODULES = [
    ("RetrievalMAP", {"top_k": 5}),
    ("RetrievalMRR", {"empty_target_action": "pos"}),
    ("RetrievalNDCG", {"top_k": 3}),
    ("RetrievalPrecision", {"top_k": 20, "adaptive_k": True}),
    ("RetrievalRecall", {"top_k": 4, "aggregation": "median"}),
    ("RetrievalHitRate", {"top_k": 2, "empty_target_action": "skip"}),
    ("RetrievalRPrecision", {}),
    ("RetrievalFallOut", {"top_k": 3}),
    ("RetrievalAUROC", {"aggregation": "min"}),
]


@pytest.mark.parametrize("name, kw", MODULES, ids=[m[0] for m in MODULES])
def test_values_equal_torchmetrics_modules(name, kw):
    tmr = pytest.importorskip("torchmetrics.retrieval")
    rel, score, q = _docs(graded=name == "RetrievalNDCG", seed=7)
    ours = getattr(sm, name)(**kw)
    theirs = getattr(tmr, "RetrievalNormalizedDCG" if name == "RetrievalNDCG" else name)(**kw)
    for part in np.array_split(np.arange(len(q)), 4):
        ours.update(rel[part], score[part], q[part])
        target = torch.tensor(rel[part]) if name == "RetrievalNDCG" else torch.tensor(rel[part].astype(bool))
        theirs.update(torch.tensor(score[part]), target, indexes=torch.tensor(q[part]))
    assert ours.compute() == pytest.approx(float(theirs.compute()), abs=1e-6)


def test_ranking_with_ties_equals_a_three_key_lexsort():
    from streammetrics.retrieval.order import ranked

    rng = np.random.default_rng(9)
    q, s, r = rng.integers(0, 30, 2000), np.round(rng.random(2000), 1), rng.integers(0, 3, 2000).astype(float)
    mine, reference = ranked(q, s, r), np.lexsort((r, -s, q))
    for a in (q, s, r):
        np.testing.assert_array_equal(a[mine], a[reference])


def test_integer_query_ids_far_apart_and_growing():
    rel, score, q = _docs(n_queries=30, per=5, seed=3)
    ids = q * 1_000_003 - 7  # a span too wide for a lookup table: the sorted path
    whole = sm.RetrievalMRR().update(rel, score, ids)
    parts = sm.RetrievalMRR()
    for part in np.array_split(np.arange(len(q)), 6):
        parts.update(rel[part], score[part], ids[part])
    assert parts.per_query() == whole.per_query() and len(whole.per_query()) == 30
