"""``metric.update(y, p)`` with two scalars: the per-sample path of every plain metric.

Same values as scikit-learn on the same rows, nothing lost across threads, buffered rows seen
by every reader (including a family's own ``compute`` arguments), copies and pickles.
"""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core import onerow


@pytest.fixture(autouse=True)
def small_flushes(monkeypatch):
    monkeypatch.setattr(onerow, "FLUSH_EVERY", 50)  # exercise many flushes


def labels(n=1200, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return y, np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))


def numbers(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.gamma(2.0, size=n)
    return y, np.abs(y + rng.normal(0, 0.5, n))


CASES = [
    (sm.Accuracy, labels, skm.accuracy_score),
    (lambda: sm.F1(average="macro"), labels, lambda y, p: skm.f1_score(y, p, average="macro")),
    (sm.MCC, labels, skm.matthews_corrcoef),
    (sm.CohenKappa, labels, skm.cohen_kappa_score),
    (sm.MAE, numbers, skm.mean_absolute_error),
    (sm.RMSE, numbers, skm.root_mean_squared_error),
    (sm.R2, numbers, skm.r2_score),
    (sm.MSLE, numbers, skm.mean_squared_log_error),
    (sm.MaxError, numbers, skm.max_error),
    (sm.AdjustedRandIndex, labels, skm.adjusted_rand_score),
    (sm.NormalizedMutualInfo, labels, skm.normalized_mutual_info_score),
]


@pytest.mark.parametrize("make, data, reference", CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_scalar_updates_match_sklearn(make, data, reference):
    y, p = data()
    m = make()
    update = m.update  # taken before the first call: already the fast path
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        update(a, b)
    assert m.n_samples == len(y)
    assert m.compute() == pytest.approx(reference(y, p), rel=1e-10, abs=1e-12)


def test_numpy_scalars_strings_and_integral_floats_take_the_same_path():
    y, p = labels(300)
    names = np.array(["ant", "bee", "cat", "dog"])
    m, ref = sm.F1(average="weighted"), sm.F1(average="weighted")
    for a, b in zip(names[y], names[p], strict=True):  # np.str_
        m.update(a, b)
    ref.update(names[y], names[p])
    assert m.compute() == ref.compute()
    ints = sm.Accuracy()
    for a, b in zip(y, p, strict=True):  # np.int64, then integral floats and bools
        ints.update(a, b)
    ints.update(1.0, 1.0).update(True, False)
    assert ints.n_samples == 302
    assert ints.compute() == pytest.approx((np.sum(y == p) + 1) / 302)


def test_batches_weights_and_river_keyword_still_work_through_the_instance_update():
    y, p = labels(100)
    m = sm.Accuracy()
    m.update(int(y[0]), int(p[0]))
    m.update(y[1:], p[1:], sample_weight=np.full(99, 2.0))
    m.update(1, 1, sample_weight=3.0)
    m.update(0, 1, w=2.0)
    w = np.r_[1.0, np.full(99, 2.0), 3.0, 2.0]
    expected = skm.accuracy_score(np.r_[y, 1, 0], np.r_[p, 1, 1], sample_weight=w)
    assert m.compute() == pytest.approx(expected)


def test_family_readers_see_buffered_rows():
    y, p = labels(500, k=2)
    one, batch = sm.F1(), sm.F1()
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        one.update(a, b)
    batch.update(y, p)
    assert one.compute(prevalence=0.2) == batch.compute(prevalence=0.2)
    np.testing.assert_array_equal(one.state.matrix, batch.state.matrix)
    assert one.to_bytes() == batch.to_bytes()


def test_copies_and_pickles_keep_buffered_rows():
    m = sm.R2()
    for a, b in [(1.0, 1.5), (2.0, 2.5), (3.0, 2.0)]:
        m.update(a, b)
    for twin in (m.copy(), pickle.loads(pickle.dumps(m))):
        twin.update(4.0, 4.5)
        assert twin.n_samples == 4
        assert twin.compute() == pytest.approx(skm.r2_score([1, 2, 3, 4], [1.5, 2.5, 2.0, 4.5]))
    assert m.n_samples == 3


def test_a_scalar_after_a_multilabel_batch_is_refused_and_changes_nothing():
    m = sm.F1(average="micro")
    m.update(0, 1)
    m.reset()
    m.update(np.array([[0, 1], [1, 1]]), np.array([[0, 1], [1, 0]]))
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="multilabel"):
        m.update(0, 1)
    assert m.to_bytes() == before


def test_bad_scalars_raise_at_once_and_change_nothing():
    for m, good, bad, match in [
        (sm.MAE(), (1.0, 2.0), (1.0, float("nan")), "finite"),
        (sm.F1(labels=[0, 1]), (0, 1), (0, 2), "fixed list"),
        (sm.AdjustedRandIndex(), (0, "a"), (0, 1), "labels_pred: expected str"),
    ]:
        m.update(*good)
        before = m.to_bytes()
        with pytest.raises(sm.InputError, match=match):
            m.update(*bad)
        assert m.to_bytes() == before


@pytest.mark.parametrize("make, data, reference", [CASES[0], CASES[4], CASES[9]], ids=["acc", "mae", "ari"])
def test_concurrent_scalar_updates_lose_nothing(make, data, reference):
    y, p = data(4000)
    m = make()
    parts = np.array_split(np.arange(len(y)), 8)
    yl, pl = y.tolist(), p.tolist()

    def feed(idx):
        for i in idx:
            m.update(yl[i], pl[i])

    threads = [threading.Thread(target=feed, args=(idx,)) for idx in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.n_samples == len(y)
    assert m.compute() == pytest.approx(reference(y, p), rel=1e-9)


def in_flush_chunks(metric, y, p):
    """The metric fed the rows as batches of the buffer's size: what the flushes apply."""
    for lo in range(0, len(y), onerow.FLUSH_EVERY):
        metric.update(y[lo : lo + onerow.FLUSH_EVERY], p[lo : lo + onerow.FLUSH_EVERY])
    return metric


@pytest.mark.parametrize("make", [sm.MAE, sm.RMSE, sm.MeanError, sm.R2, sm.MSLE], ids=lambda c: c.__name__)
def test_rows_of_any_number_type_give_the_batch_state_bit_for_bit(make):
    # Floats take the residual (error metrics) or pair path; ints and NumPy scalars the general
    # one; the state after the rows equals the state of one batch of the same rows, byte for byte.
    y, p = numbers(700, seed=3)
    y[::7] = np.round(y[::7])
    rows = []
    for i, (a, b) in enumerate(zip(y.tolist(), p.tolist(), strict=True)):
        if i % 7 == 0:
            a = int(a)
        elif i % 5 == 0:
            a, b = np.float64(a), np.float32(b)
            p[i] = float(b)
        rows.append((a, b))
    one = make()
    for a, b in rows:
        one.update(a, b)
    assert one.to_bytes() == in_flush_chunks(make(), y, p).to_bytes()


def test_error_and_co_moment_groups_of_a_collection_take_their_own_rows():
    y, p = numbers(600, seed=4)
    c = sm.MetricCollection([sm.MAE(), sm.RMSE(), sm.R2(), sm.PearsonR()])
    assert len(c.groups) == 2
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        c.update_one(a, b)
    batch = in_flush_chunks(sm.MetricCollection([sm.MAE(), sm.RMSE(), sm.R2(), sm.PearsonR()]), y, p)
    assert c.to_bytes() == batch.to_bytes()
    assert c.compute()["mae"] == pytest.approx(skm.mean_absolute_error(y, p), rel=1e-12)


def test_a_rolling_error_window_fed_rows_is_the_window_of_the_batch():
    y, p = numbers(500, seed=5)
    rows, batch = sm.Rolling(sm.MAE(), window=120), sm.Rolling(sm.MAE(), window=120)
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        rows.update_one(a, b)
    batch.update(y, p)
    assert rows.compute() == pytest.approx(skm.mean_absolute_error(y[-120:], p[-120:]), rel=1e-12)
    assert rows.compute() == pytest.approx(batch.compute(), rel=1e-12)


@pytest.mark.parametrize("make", [sm.MAE, sm.R2, lambda: sm.MetricCollection([sm.MAE(), sm.R2()])])
def test_numbers_beyond_float_range_are_refused_at_once_on_every_path(make):
    m = make()
    m.update(1.0, 2.0)
    before = m.to_bytes()
    for bad in [(10**400, 10**400), (10**400, 1.0), (1.0, -(10**400))]:
        with pytest.raises(sm.InputError, match="beyond float range"):
            m.update(*bad)
        with pytest.raises(sm.InputError, match="beyond float range"):
            m.update_one(*bad)
    assert m.to_bytes() == before


def test_two_huge_finite_numbers_whose_residual_overflows_are_kept_as_a_batch_keeps_them():
    # Each value is finite (accepted); their difference is not: the row then goes through the
    # batch path, so the per-sample state equals the batch state (and scikit-learn's inf).
    one, batch = sm.MAE(), sm.MAE()
    with np.errstate(over="ignore", invalid="ignore"):
        one.update(1.0, 2.0)
        one.update(1.5e308, -1.5e308)
        batch.update([1.0, 1.5e308], [2.0, -1.5e308])
        assert one.compute() == batch.compute() == np.inf


def test_a_row_one_group_takes_and_another_declines_is_counted_once_or_not_at_all():
    # The error group takes (1, 3) on its fast path; the confusion group has not seen that pair
    # and declines: the first gives the row back, and the checked path adds it once to both.
    y, p = labels(300, k=4, seed=6)
    c = sm.MetricCollection([sm.MAE(), sm.Accuracy()])
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        c.update(a, b)
    assert c["mae"].n_samples == c["accuracy"].n_samples == 300
    assert c.compute() == pytest.approx(
        {"mae": skm.mean_absolute_error(y, p), "accuracy": skm.accuracy_score(y, p)}, rel=1e-12
    )
    # A binary F1 refuses a third label: the error group's append is taken back, nothing changes.
    strict = sm.MetricCollection([sm.MAE(), sm.F1()])
    strict.update(1, 0).update(0, 0)
    before = strict.to_bytes()
    with pytest.raises(sm.InputError, match=r"binary.*\(member 'f1'\)"):
        strict.update(1, 2)
    assert strict.to_bytes() == before
    assert strict.compute()["mae"] == 0.5


def test_member_views_of_a_collection_see_the_rows_it_buffered():
    # Rows fed to the collection wait in its buffers; a member read on its own (a live view),
    # its copy or its pickle applies them first.
    y, p = numbers(130, seed=8)
    c = sm.MetricCollection([sm.MAE(), sm.R2()])
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        c.update(a, b)
    mae = c["mae"]
    assert mae.n_samples == 130
    assert mae.compute() == pytest.approx(skm.mean_absolute_error(y, p), rel=1e-12)
    assert pickle.loads(pickle.dumps(c["r2"])).compute() == pytest.approx(skm.r2_score(y, p), rel=1e-12)
    c.update(1.0, 2.0)
    assert mae.state.n_samples == 131


def test_a_collections_update_taken_before_the_first_call_takes_rows_and_batches():
    y, p = numbers(300, seed=9)
    w = np.random.default_rng(9).random(100)
    c = sm.MetricCollection([sm.MAE(), sm.R2(), sm.MaxError()])
    update = c.update
    for a, b in zip(y[:100].tolist(), p[:100].tolist(), strict=True):
        update(a, b)
    update(y[100:200], p[100:200], sample_weight=w)
    update(y[200:], p[200:])
    weights = np.r_[np.ones(100), w, np.ones(100)]
    assert c.compute() == pytest.approx(
        {
            "mae": skm.mean_absolute_error(y, p, sample_weight=weights),
            "r2": skm.r2_score(y, p, sample_weight=weights),
            "max_error": skm.max_error(y, p),
        },
        rel=1e-12,
    )
    scores = sm.MetricCollection([sm.ROCAUC(), sm.AveragePrecision()])  # no row checker: one-row batches
    update = scores.update
    for t, s in [(0, 0.2), (1, 0.7), (1, 0.4), (0, 0.1)]:
        update(t, s)
    assert scores.compute()["rocauc"] == skm.roc_auc_score([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.1])
