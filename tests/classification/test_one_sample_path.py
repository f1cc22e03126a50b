"""One-sample updates (the online-loop fast path) equal batch updates, and stay thread-safe."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import streammetrics as sm


@pytest.mark.parametrize(
    "factory,y,p",
    [
        (sm.F1, [0, 1, 1, 0, 1], [0, 1, 0, 0, 1]),
        (lambda: sm.Precision(average="macro"), ["a", "b", "c", "a"], ["a", "c", "c", "b"]),
        (sm.ConfusionMatrix, [True, False, True], [1, 0, 0]),
        (lambda: sm.F1(average="macro"), [0, 2, 5, 5], [0.0, 2.0, 5, 1]),
        (lambda: sm.Recall(labels=[3, 7], pos_label=7), [3, 7, 7], [7, 7, 3]),
    ],
)
def test_scalar_updates_equal_the_batch(factory, y, p):
    one = factory()
    for a, b in zip(y, p, strict=True):
        one.update(a, b)
    batch = factory().update(y, p)
    np.testing.assert_array_equal(np.asarray(one.compute()), np.asarray(batch.compute()))
    assert one.n_samples == batch.n_samples == len(y)
    assert one.to_bytes() == batch.to_bytes()


def test_scalar_updates_with_threshold_and_weights():
    scores = [0.1, 0.7, 0.4, 0.9]
    y = [0, 1, 1, 1]
    w = [1.0, 2.0, 0.5, 0.0]
    one = sm.F1(threshold=0.5)
    for a, b, c in zip(y, scores, w, strict=True):
        one.update(a, b, sample_weight=c)
    batch = sm.F1(threshold=0.5).update(y, scores, sample_weight=w)
    assert one.compute() == batch.compute()


def test_scalar_bad_input_still_raises_and_leaves_state():
    m = sm.F1().update(0, 1)
    before = m.to_bytes()
    for args in ((0.5, 1), (0, float("nan")), ("a", 1)):
        with pytest.raises(sm.InputError):
            m.update(*args)
    with pytest.raises(sm.InputError):
        m.update(0, 1, sample_weight=-1.0)
    assert m.to_bytes() == before


def test_concurrent_scalar_updates_lose_nothing():
    m = sm.ConfusionMatrix().update([0, 1, 2], [0, 1, 2])

    def work(seed):
        rng = np.random.default_rng(seed)
        for a, b in zip(rng.integers(0, 3, 5000).tolist(), rng.integers(0, 3, 5000).tolist(), strict=True):
            m.update(a, b)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.compute().sum() == 3 + 4 * 5000 == m.n_samples


@pytest.mark.parametrize("input, threshold", [("probability", 0.5), ("probability", 0.0), ("score", -0.25)])
def test_thresholded_rows_are_pair_codes_equal_to_one_batch(input, threshold):
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 400)
    p = rng.random(400) if input == "probability" else rng.normal(size=400)
    p[:20] = threshold  # on the threshold: positive, as in a batch
    kw = {"threshold": threshold, "input": input}
    for make in (sm.Accuracy, sm.F1, sm.MCC):
        m = make(**kw)
        for t, q in zip(y.tolist(), p.tolist(), strict=True):
            m.update(t, q)
        assert m.n_samples == len(y)
        assert m.compute() == make(**kw).update(y, p).compute()
        assert m.to_bytes() == make(**kw).update(y, p).to_bytes()
