"""LogLoss options of issue 15, against scikit-learn: normalize=False, revert, Rolling without panes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm


def _binary(labels=(0, 1), n=50, seed=0):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, 2, n)
    return np.array([labels[i] for i in idx]), rng.random(n)


@pytest.mark.parametrize("weighted", [False, True])
def test_normalize_false_is_the_weighted_sum_as_scikit_learn(weighted: bool) -> None:
    y, p = _binary((1, 2))
    w = np.random.default_rng(1).uniform(0, 3, len(y)) if weighted else None
    ref = skm.log_loss(y, p, normalize=False, sample_weight=w)
    m = sm.LogLoss(normalize=False).update(y[:20], p[:20], sample_weight=None if w is None else w[:20])
    m = m + sm.LogLoss(normalize=False).update(y[20:], p[20:], sample_weight=None if w is None else w[20:])
    assert m.compute() == pytest.approx(ref, rel=1e-12)
    q = np.random.default_rng(2).dirichlet(np.ones(3), 30)
    k = np.random.default_rng(3).integers(0, 3, 30)
    assert sm.LogLoss(normalize=False).update(k, q).compute() == pytest.approx(
        skm.log_loss(k, q, normalize=False), rel=1e-12
    )


def test_revert_takes_rows_out_again() -> None:
    y, p = _binary((1, 2))
    m = sm.LogLoss().update(y, p)
    assert m.is_revertible
    m.revert(y[:30], p[:30])
    assert m.compute() == pytest.approx(skm.log_loss(y[30:], p[30:]), rel=1e-12)
    m.revert(y[30:], p[30:])
    assert m.n_samples == 0 and not m.state.table.any()
    before = sm.LogLoss().update(y[:5], p[:5])
    saved = before.to_bytes()
    with pytest.raises(sm.InputError, match="rows added"):
        before.revert(y[:6], p[:6])
    with pytest.raises(sm.InputError, match="binary labels"):
        before.revert([7], [0.5])
    assert before.to_bytes() == saved
    one = sm.LogLoss().update([1, 1], [0.2, 0.3])
    saved = one.to_bytes()
    with pytest.raises(sm.InputError, match="seen before"):
        one.revert([2], [0.5])
    assert one.to_bytes() == saved


@pytest.mark.parametrize("labels", [(0, 1), (1, 2), ("ham", "spam")])
def test_rolling_log_loss_is_exact_without_panes(labels) -> None:
    y, p = _binary(labels, n=80, seed=4)
    y[:12] = labels[0]  # the first chunks hold one label: the window's positive side settles late
    r = sm.Rolling(sm.LogLoss(), window=25)
    assert r.state.panes is None  # exact mode: one state, reverted
    for a in range(0, 80, 7):
        r.update(y[a : a + 7], p[a : a + 7])
        hi = min(80, a + 7)
        lo = max(0, hi - 25)
        if len(set(y[lo:hi].tolist())) == 2:
            assert r.compute() == pytest.approx(skm.log_loss(y[lo:hi], p[lo:hi]), rel=1e-9)


def test_rolling_rocauc_reverts_under_the_greater_label_rule() -> None:
    y, p = _binary((1, 2), n=60, seed=5)
    y[:10] = 1
    r = sm.Rolling(sm.ROCAUC(exact=True), window=20)
    for a in range(0, 60, 6):
        r.update(y[a : a + 6], p[a : a + 6])
        hi = min(60, a + 6)
        lo = max(0, hi - 20)
        if len(set(y[lo:hi].tolist())) == 2:
            assert r.compute() == pytest.approx(skm.roc_auc_score(y[lo:hi], p[lo:hi]), rel=1e-12)


ONE_HOT = [
    (
        np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]]),
        np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]]),
    ),
    (np.array([[1, 0], [0, 1], [0, 1]]), np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])),
    (np.array([[1, 1, 0], [0, 1, 0]]), np.array([[0.5, 0.4, 0.1], [0.3, 0.6, 0.1]])),  # several ones
]


@pytest.mark.parametrize("make, ref", [(sm.LogLoss, skm.log_loss), (sm.BrierScore, skm.brier_score_loss)])
@pytest.mark.parametrize("case", range(len(ONE_HOT)))
def test_one_hot_y_true_as_scikit_learn(make, ref, case) -> None:
    y, p = ONE_HOT[case]
    expected = ref(y, p)
    assert make().update(y, p).compute() == pytest.approx(expected, rel=1e-12)
    merged = make().update(y[:1], p[:1]) + make().update(y[1:], p[1:])
    assert merged.compute() == pytest.approx(expected, rel=1e-12)
    if make is sm.LogLoss:  # logits: the same loss from log-probabilities
        assert sm.LogLoss(input="score").update(y, np.log(p)).compute() == pytest.approx(expected, rel=1e-12)


def test_one_hot_y_true_of_another_shape_is_refused() -> None:
    m = sm.LogLoss()
    with pytest.raises(sm.InputError, match="shape"):
        m.update(np.eye(3), np.full((3, 2), 0.5))
    with pytest.raises(sm.InputError, match="indicator"):
        m.update(np.array([[2, 0], [0, 1]]), np.full((2, 2), 0.5))
    assert m.n_samples == 0


@pytest.mark.parametrize(
    ("labels", "y_true"),
    [(["a", "b"], ["a", "a", "a"]), (["a", "b"], ["b", "a", "b"]), ([2, 5], [2, 2, 2]), ([5, 2], [5, 5, 2])],
)
def test_two_labels_name_the_binary_classes_as_scikit_learn(labels, y_true) -> None:
    """One label alone in y_true is enough once labels= names both (the greater one positive)."""
    p = [0.2, 0.7, 0.4]
    expected = skm.log_loss(y_true, p, labels=labels)
    assert sm.LogLoss(labels=labels).update(y_true, p).compute() == pytest.approx(expected, rel=1e-12)
    rows = sm.LogLoss(labels=labels)
    for t, q in zip(y_true, p, strict=True):
        rows.update(t, q)
    assert rows.compute() == pytest.approx(expected, rel=1e-12)


def test_a_label_outside_two_labels_is_refused_in_batches_and_rows() -> None:
    with pytest.raises(ValueError, match="not belonging to the passed labels"):
        skm.log_loss(["a", "c"], [0.2, 0.3], labels=["a", "b"])  # the reference refuses it too
    m = sm.LogLoss(labels=["a", "b"]).update(["a"], [0.4])
    before = m.to_bytes()
    with pytest.raises(
        sm.InputError, match=r"y_true: expected values among labels \['a', 'b'\], found \['c'\]"
    ):
        m.update(["a", "c"], [0.2, 0.3])
    with pytest.raises(sm.InputError, match="among labels"):
        m.update("c", 0.3)  # refused when offered, not when the buffer is applied
    assert m.to_bytes() == before
    with pytest.raises(sm.InputError, match="labels: expected two classes"):
        sm.LogLoss(labels=["a", "b", "c"]).update(["a", "b"], [0.2, 0.3])


@pytest.mark.parametrize(("labels", "y_true"), [(["a", "b"], [0, 1]), ([0, 1], ["a", "b"])])
def test_labels_of_another_kind_than_y_true_are_refused(labels, y_true) -> None:
    with pytest.raises(sm.InputError, match="y_true: expected values among labels"):
        sm.LogLoss(labels=labels).update(y_true, [0.2, 0.3])
    with pytest.raises(sm.InputError, match="y_true: expected values among labels"):
        sm.LogLoss(labels=labels).update(y_true[0], 0.2)
