"""RetrievalAUROC(max_fpr=...): each query's partial ROC area as scikit-learn's roc_auc_score."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import streammetrics as sm


@pytest.mark.parametrize("max_fpr", [0.05, 0.3, 0.5, 0.77, 1.0])
def test_partial_area_per_query_equals_sklearn_with_ties_and_shards(max_fpr):
    rng = np.random.default_rng(7)
    q = rng.integers(0, 60, 2000)
    rel = rng.random(2000) < 0.3
    score = np.round(rng.random(2000) + 0.2 * rel, 1)  # many ties, within and across classes
    m = sm.RetrievalAUROC(max_fpr=max_fpr)
    for part in np.array_split(rng.permutation(2000), 4):  # a query's documents over several shards
        m.merge(sm.RetrievalAUROC(max_fpr=max_fpr).update(rel[part], score[part], q[part]))
    values = m.per_query()
    checked = 0
    for query in np.unique(q):
        r, s = rel[q == query], score[q == query]
        if r.all() or not r.any():
            continue  # no curve: the empty-target action, or 0
        assert values[int(query)] == pytest.approx(roc_auc_score(r, s, max_fpr=max_fpr), abs=1e-12)
        checked += 1
    assert checked > 40


def test_max_fpr_one_is_the_whole_area_and_none_is_the_default():
    rng = np.random.default_rng(1)
    q, rel, score = rng.integers(0, 9, 300), rng.random(300) < 0.4, rng.random(300)
    whole = sm.RetrievalAUROC().update(rel, score, q).per_query()
    one = sm.RetrievalAUROC(max_fpr=1).update(rel, score, q).per_query()
    assert one.keys() == whole.keys()
    assert all(one[k] == pytest.approx(whole[k], abs=1e-12) for k in whole)
    assert sm.RetrievalAUROC().max_fpr is None


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, float("nan"), "0.5", True])
def test_max_fpr_outside_zero_one_is_refused(bad):
    with pytest.raises(ValueError, match="max_fpr"):
        sm.RetrievalAUROC(max_fpr=bad)


def test_configurations_with_different_max_fpr_do_not_merge():
    a = sm.RetrievalAUROC(max_fpr=0.5).update([1, 0], [0.9, 0.1], [0, 0])
    b = sm.RetrievalAUROC(max_fpr=0.2).update([1, 0], [0.9, 0.1], [0, 0])
    with pytest.raises(sm.MergeError, match="max_fpr"):
        a.merge(b)
    again = sm.from_bytes(a.to_bytes())
    assert again.max_fpr == 0.5 and again.compute() == a.compute()
