"""Protocol details that the law table does not cover: threads, sum(), copies, repr."""

from __future__ import annotations

import threading

import numpy as np

import streammetrics as sm


def test_concurrent_updates_lose_nothing():
    m = sm.ConfusionMatrix()
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, 5, 1000), rng.integers(0, 5, 1000)) for _ in range(64)]

    def work(chunk):
        for y, p in chunk:
            m.update(y, p)

    threads = [threading.Thread(target=work, args=(batches[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = sm.ConfusionMatrix()
    for y, p in batches:
        expected.update(y, p)
    np.testing.assert_array_equal(m.compute(), expected.compute())
    assert m.n_samples == 64_000


def test_concurrent_label_discovery_loses_nothing():
    m = sm.Accuracy()

    def work(k):
        for i in range(200):
            m.update([f"{k}-{i}"], [f"{k}-{i}"])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.n_samples == 800
    assert len(m.state.labels) == 800


def test_sum_of_list_and_operands_unchanged():
    parts = [sm.F1().update([0, 1], [0, 1]), sm.F1().update([1, 1], [0, 1])]
    before = [p.to_bytes() for p in parts]
    total = sum(parts)
    assert total.n_samples == 4
    assert [p.to_bytes() for p in parts] == before
    assert total is not parts[0]


def test_merge_with_itself_doubles():
    m = sm.Accuracy().update([0, 1], [0, 0])
    m.merge(m)
    assert m.n_samples == 4
    assert m.compute() == 0.5


def test_copy_is_independent_and_reset_keeps_config():
    m = sm.F1(average="macro").update([0, 1, 2], [0, 1, 1])
    c = m.copy()
    c.update([2], [2])
    assert m.n_samples == 3 and c.n_samples == 4
    m.reset()
    assert m.n_samples == 0 and m.get_config() == c.get_config()


def test_repr_shows_configuration():
    assert repr(sm.FBeta(beta=2.0, average="macro")).startswith("FBeta(beta=2.0, average='macro'")


def test_inputs_from_pandas_and_lists_and_bools():
    pd = __import__("pandas")
    a = sm.F1().update(pd.Series([True, False, True]), pd.Series([1, 0, 0]))
    b = sm.F1().update([1, 0, 1], np.array([1, 0, 0], dtype=np.int8))
    assert a.compute() == b.compute()


def test_merge_cost_does_not_depend_on_samples_seen():
    small = sm.ConfusionMatrix().update(np.arange(10) % 10, np.arange(10) % 10)
    big = sm.ConfusionMatrix().update(np.arange(10**6) % 10, np.arange(10**6) % 10)
    assert abs(len(small.to_bytes()) - len(big.to_bytes())) < 16  # only the digits of n_samples differ
