"""The per-sample fast path: same values and same errors as batch updates, unchanged state on error."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core import onerow as fastpath


def rows(n=3000, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return y, np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))


@pytest.fixture(autouse=True)
def small_flushes(monkeypatch):
    monkeypatch.setattr(fastpath, "FLUSH_EVERY", 64)  # exercise many flushes


def make_all():
    return [
        sm.MetricCollection([sm.Accuracy(), sm.F1(average="macro"), sm.MCC(), sm.CohenKappa()]),
        sm.Rolling(sm.Recall(average="weighted"), window=100),
        sm.Rolling(sm.Accuracy(), window=100, panes=10),
        sm.Decayed(sm.Precision(average="micro"), half_life=50),
    ]


def _values(m):
    v = m.compute()
    return v.values() if isinstance(v, dict) else [v]


@pytest.mark.parametrize("index", range(4))
def test_one_row_updates_equal_one_batch(index):
    y, p = rows()
    one, batch = make_all()[index], make_all()[index]
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        one.update_one(a, b)
    batch.update(y, p)
    assert one.n_samples == batch.n_samples
    np.testing.assert_allclose(list(_values(one)), list(_values(batch)), rtol=1e-10)


def test_regression_and_contingency_rows_equal_one_batch():
    rng = np.random.default_rng(2)
    y = rng.normal(size=500)
    p = y + rng.normal(size=500)
    one = sm.MetricCollection([sm.MAE(), sm.R2(), sm.MaxError()])
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        one.update_one(a, b)
    expected = {
        "mae": skm.mean_absolute_error(y, p),
        "r2": skm.r2_score(y, p),
        "max_error": skm.max_error(y, p),
    }
    assert one.compute() == pytest.approx(expected, rel=1e-10)
    t, k = rng.integers(0, 3, 500), rng.integers(0, 4, 500).astype(str)
    cl = sm.MetricCollection([sm.AdjustedRandIndex(), sm.VMeasure()])
    for a, b in zip(t.tolist(), k.tolist(), strict=True):
        cl.update_one(a, b)
    assert cl.compute() == pytest.approx(
        {"adjusted_rand_index": skm.adjusted_rand_score(t, k), "vmeasure": skm.v_measure_score(t, k)}
    )


def test_mixed_scalar_types_strings_and_interleaving_with_batches():
    c = sm.MetricCollection([sm.Accuracy(), sm.F1(average=None)])
    y = ["b", "a", "c", "a", "b"]
    p = ["b", "b", "c", "a", "a"]
    c.update_one(np.str_(y[0]), p[0]).update_one(y[1], np.str_(p[1]))
    c.update(y[2:4], p[2:4])
    c.update_one(y[4], p[4])
    f1 = skm.f1_score(y, p, average=None, labels=["a", "b", "c"])
    assert c.compute() == pytest.approx({"accuracy": 0.6, "f1/a": f1[0], "f1/b": f1[1], "f1/c": f1[2]})
    ints = sm.MetricCollection([sm.Accuracy()])
    for a, b in [(True, 1), (np.int64(0), 0.0), (1.0, np.bool_(True)), (np.int32(0), 1)]:
        ints.update_one(a, b)
    assert ints.compute() == {"accuracy": 0.75}


def test_weights_and_probability_dicts_and_thresholds():
    c = sm.MetricCollection([sm.Accuracy()])
    c.update_one(1, 1, 2.0).update_one(0, 1).update_one(1, {0: 0.3, 1: 0.7}, w=1.0)
    assert c.compute()["accuracy"] == pytest.approx(
        skm.accuracy_score([1, 0, 1], [1, 1, 1], sample_weight=[2, 1, 1])
    )
    t = sm.MetricCollection([sm.F1(threshold=0.5), sm.Accuracy(threshold=0.5)])
    scores = [0.9, 0.2, 0.6, 0.4]
    truth = [1, 0, 0, 1]
    for a, s in zip(truth, scores, strict=True):
        t.update_one(a, s)
    t.update_one(1, {True: 0.8, False: 0.2})
    pred = [1, 0, 1, 0, 1]
    assert t.compute() == pytest.approx(
        {"f1": skm.f1_score([*truth, 1], pred), "accuracy": skm.accuracy_score([*truth, 1], pred)}
    )


@pytest.mark.parametrize(
    ("make", "prime", "bad", "match"),
    [
        (lambda: sm.MetricCollection([sm.F1()]), (0, 1), (2, 1), "at most 2 labels"),
        (
            lambda: sm.MetricCollection([sm.Accuracy()]),
            (0, 1),
            ("a", 1),
            "expected int labels like those seen",
        ),
        (lambda: sm.MetricCollection([sm.Accuracy()]), (0, 1), (0.5, 1), "y_true: expected class labels"),
        (lambda: sm.MetricCollection([sm.Accuracy()]), (0, 1), (0, float("nan")), "y_pred: expected finite"),
        (
            lambda: sm.MetricCollection([sm.Accuracy()]),
            (0, 1),
            (0, [1, 2]),
            "y_pred: expected one class label",
        ),
        (lambda: sm.MetricCollection([sm.F1(labels=[0, 1])]), (0, 1), (0, 3), "fixed list"),
        (lambda: sm.MetricCollection([sm.F1(threshold=0.5)]), (0, 0.3), (0, 1.5), "probabilities in"),
        (lambda: sm.MetricCollection([sm.Accuracy()]), (0, 1), (0, 1, -1.0), "non-negative weights"),
        (lambda: sm.MetricCollection([sm.F1(average="samples")]), None, (0, 1), "average='samples'"),
        (lambda: sm.MetricCollection([sm.MAE()]), (1.0, 2.0), (1.0, float("inf")), "y_pred: expected finite"),
        (lambda: sm.MetricCollection([sm.MSLE()]), (1.0, 2.0), (-1.0, 2.0), "non-negative"),
        (lambda: sm.MetricCollection([sm.MAE()]), (1.0, 2.0), ("x", 2.0), "y_true: expected a number"),
        (
            lambda: sm.MetricCollection([sm.AdjustedRandIndex()]),
            (0, "a"),
            (0, 1),
            "labels_pred: expected str",
        ),
        (lambda: sm.Rolling(sm.F1(), window=5), (0, 1), (3, 1), "at most 2 labels"),
        (lambda: sm.Decayed(sm.F1(), half_life=5), (0, 1), (0, "x"), "expected int labels"),
    ],
)
def test_bad_rows_raise_at_once_and_change_nothing(make, prime, bad, match):
    m = make()
    if prime is not None:
        m.update_one(*prime)
    before = pickle.dumps(m.state_dict())
    with pytest.raises(sm.InputError, match=match):
        m.update_one(*bad)
    assert pickle.dumps(m.state_dict()) == before
    if prime is not None:
        m.update_one(*prime)  # still usable
        assert m.n_samples == 2


def test_a_collection_row_is_all_or_nothing_across_groups():
    c = sm.MetricCollection([sm.MAE(), sm.F1()])
    c.update_one(0, 1)
    with pytest.raises(sm.InputError, match="at most 2 labels"):
        c.update_one(2, 2)  # fine for MAE, not for F1: neither group takes it
    assert [len(b) for b in c._buffers] == [1, 1]
    assert c.n_samples == 1


def test_buffers_follow_writes_through_other_paths():
    c = sm.MetricCollection([sm.Accuracy()])
    f = c.update_one
    f(0, 1)
    c.reset()
    f("a", "b")  # the kind may change after a reset
    assert c.compute() == {"accuracy": 0.0}
    c.update(["c"], ["c"])
    f("c", "c")
    other = sm.MetricCollection([sm.Accuracy()])
    other.update_one("a", "a")
    c.merge(other)
    assert c.compute() == {"accuracy": 0.75}
    assert c.n_samples == 4
    copied = pickle.loads(pickle.dumps(c))
    copied.update_one("a", "b")
    deep = c.copy()
    deep.update_one("a", "b")
    assert c.n_samples == 4
    assert copied.n_samples == deep.n_samples == 5


def test_concurrent_one_row_updates_lose_nothing():
    c = sm.MetricCollection([sm.Accuracy(), sm.F1(average="macro")])
    y, p = rows(4000)
    parts = np.array_split(np.arange(4000), 4)

    def feed(idx):
        for i in idx:
            c.update_one(int(y[i]), int(p[i]))

    threads = [threading.Thread(target=feed, args=(idx,)) for idx in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.n_samples == 4000
    assert c.compute()["accuracy"] == pytest.approx(skm.accuracy_score(y, p))


def test_update_one_function_for_any_metric():
    m = sm.Accuracy()
    for a, b in [(0, 0), (1, 0), (1, 1)]:
        fastpath.update_one(m, a, b)
    assert m.compute() == pytest.approx(2 / 3)
    r = sm.Rolling(sm.Accuracy(), window=2)
    for a, b in [(0, 0), (1, 0), (1, 1)]:
        fastpath.update_one(r, a, b)
    assert r.compute() == 0.5
