"""The per-row path of the score metrics (ranking sketch and probabilistic): issue #14."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

SCORE_METRICS = [
    (lambda **kw: sm.ROCAUC(exact=True, **kw), skm.roc_auc_score),
    (lambda **kw: sm.AveragePrecision(exact=True, **kw), skm.average_precision_score),
    (sm.LogLoss, skm.log_loss),
    (sm.BrierScore, skm.brier_score_loss),
    (sm.CalibrationError, None),
]
IDS = ["ROCAUC", "AveragePrecision", "LogLoss", "BrierScore", "CalibrationError"]


def data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)


@pytest.mark.parametrize("make, reference", SCORE_METRICS, ids=IDS)
@pytest.mark.parametrize("as_row", [lambda a: a.item(), lambda a: a[()]], ids=["python", "numpy"])
def test_rows_equal_one_batch_and_sklearn(make, reference, as_row):
    y, p = data()
    m = make()
    for t, q in zip(y, p, strict=True):
        m.update(as_row(t), as_row(q))
    assert m.n_samples == len(y)
    batch = make().update(y, p)
    assert m.compute() == pytest.approx(batch.compute(), rel=1e-12)
    if reference is not None:
        assert m.compute() == pytest.approx(reference(y, p), rel=1e-9)


@pytest.mark.parametrize("make, reference", SCORE_METRICS, ids=IDS)
def test_string_labels_and_logits(make, reference):
    y, p = data(1)
    names = np.where(y == 1, "yes", "no")
    m = make(pos_label="yes")
    for t, q in zip(names.tolist(), p.tolist(), strict=True):
        m.update(t, q)
    assert m.compute() == pytest.approx(make(pos_label="yes").update(names, p).compute(), rel=1e-12)
    logits = np.log(p.clip(1e-9, 1 - 1e-9) / (1 - p.clip(1e-9, 1 - 1e-9))) * 3.0
    s = make(input="score")
    for t, q in zip(y.tolist(), logits.tolist(), strict=True):
        s.update(t, q)
    assert s.compute() == pytest.approx(make(input="score").update(y, logits).compute(), rel=1e-12)


BAD_ROWS = [
    ((2,), "binary labels"),  # a second negative label after 0
    (("a",), "all strings or all integers"),  # a string after int labels
    ((1, 1.5), "probabilities in \\[0, 1\\]"),
    ((1, float("nan")), "finite"),
    ((1, float("inf")), "finite"),
    ((1, "0.5"), "expected a number, found str"),
    ((1, None), "expected (a )?numbers?|missing value"),
    ((1, {0: 0.2, 1: 0.8}), "found a dict"),
    ((float("nan"), 0.5), "finite"),
]


@pytest.mark.parametrize("make, reference", SCORE_METRICS, ids=IDS)
@pytest.mark.parametrize("bad, message", BAD_ROWS, ids=[m for _, m in BAD_ROWS])
def test_a_bad_row_is_refused_when_offered_and_nothing_is_lost(make, reference, bad, message):
    y, p = data(2, n=40)
    m = make()
    for t, q in zip(y[:20].tolist(), p[:20].tolist(), strict=True):
        m.update(t, q)  # buffered, not yet applied
    before = m.copy().to_bytes()
    row = bad if len(bad) == 2 else (bad[0], 0.5)
    with pytest.raises(sm.InputError, match=message):
        m.update(*row)
    assert m.to_bytes() == before
    for t, q in zip(y[20:].tolist(), p[20:].tolist(), strict=True):
        m.update(t, q)
    assert m.compute() == pytest.approx(make().update(y, p).compute(), rel=1e-12)


def test_a_binary_row_for_a_multiclass_sketch_is_refused_at_once():
    rng = np.random.default_rng(0)
    m = sm.ROCAUC().update([0, 1, 2], rng.dirichlet(np.ones(3), 3))
    loaded = sm.from_bytes(m.to_bytes())
    for metric in (m, loaded):
        before = metric.to_bytes()
        with pytest.raises(sm.InputError, match="expected 3 score columns like earlier batches"):
            metric.update(1, 0.5)
        assert metric.to_bytes() == before


def test_reset_forgets_the_negative_label():
    m = sm.LogLoss(pos_label=1)
    m.update(0, 0.2).update(1, 0.7)
    m.reset()
    m.update(-1, 0.2).update(1, 0.9)
    assert m.compute() == pytest.approx(skm.log_loss([-1, 1], [0.2, 0.9]))


def test_weighted_rows_and_river_style_weights():
    y, p = data(3, n=50)
    w = np.random.default_rng(3).integers(0, 4, 50).astype(float)
    m = sm.BrierScore()
    for t, q, k in zip(y.tolist(), p.tolist(), w.tolist(), strict=True):
        m.update(t, q, sample_weight=k)
    assert m.compute() == pytest.approx(skm.brier_score_loss(y, p, sample_weight=w))
