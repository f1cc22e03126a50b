"""Rows are refused when offered or kept until applied: a failed flush loses nothing (issue #14)."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, adjusted_rand_score, log_loss, mean_absolute_error, roc_auc_score

import streammetrics as sm
from streammetrics._core import onerow


def test_a_label_beyond_int64_is_refused_when_offered_and_later_rows_count():
    m = sm.ContingencyTable()
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="labels_true: expected labels that fit in int64"):
        m.update(1e20, 0)
    assert m.to_bytes() == before
    m.update(1, 1).update(2, 2).update(2, 1)
    assert m.n_samples == 3
    ari = sm.AdjustedRandIndex()
    for t, p in [(1, 1), (2, 2), (2, 1)]:
        ari.update(t, p)
    assert ari.compute() == pytest.approx(adjusted_rand_score([1, 2, 2], [1, 2, 1]))


def test_text_is_not_a_number_on_the_row_path():
    for metric in (sm.MAE(), sm.R2(), sm.MSLE()):
        before = metric.to_bytes()
        with pytest.raises(sm.InputError, match="y_true: expected a number, found str"):
            metric.update("1e3", 0.0)
        with pytest.raises(sm.InputError, match="y_pred: expected a number, found str"):
            metric.update(1.0, "0")
        assert metric.to_bytes() == before


class Interrupting:
    """Wraps a metric's ``_apply`` to raise once (a Ctrl-C or a bug during a flush)."""

    def __init__(self, metric: sm.Metric, error: BaseException) -> None:
        self.metric, self.error, self.calls = metric, error, 0
        self.apply = type(metric)._apply.__get__(metric)
        metric._apply = self  # the instance attribute shadows the class method

    def __call__(self, state, batch):
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return self.apply(state, batch)


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("disk on fire")])
@pytest.mark.parametrize(
    "make, rows, reference",
    [
        (sm.Accuracy, lambda r: (r.integers(0, 3, 500), r.integers(0, 3, 500)), accuracy_score),
        (sm.MAE, lambda r: (r.normal(size=500), r.normal(size=500)), mean_absolute_error),
        (
            sm.AdjustedRandIndex,
            lambda r: (r.integers(0, 4, 500), r.integers(0, 4, 500)),
            adjusted_rand_score,
        ),
    ],
    ids=["confusion", "residuals", "contingency"],
)
def test_an_interrupted_flush_keeps_every_acknowledged_row(make, rows, reference, error):
    y, p = rows(np.random.default_rng(0))
    m = make()
    for t, q in zip(y.tolist(), p.tolist(), strict=True):
        m.update(t, q)
    trap = Interrupting(m, error)
    with pytest.raises(type(error)):
        m.compute()  # the read flushes; the flush is interrupted
    assert trap.calls == 1
    assert m.n_samples == len(y)  # the second flush applies every row, once
    assert m.compute() == pytest.approx(reference(y, p), rel=1e-12)


def test_an_interrupt_in_a_long_row_loop_loses_nothing(monkeypatch):
    monkeypatch.setattr(onerow, "FLUSH_EVERY", 64)
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 2, 1000), rng.integers(0, 2, 1000)
    m = sm.F1()  # built after the patch: its hot path flushes every 64 rows
    trap = Interrupting(m, KeyboardInterrupt())
    seen = 0
    for t, q in zip(y.tolist(), p.tolist(), strict=True):
        try:
            m.update(t, q)
        except KeyboardInterrupt:
            pass  # the user's loop goes on after Ctrl-C (the row itself was acknowledged)
        seen += 1
    assert trap.calls >= 2
    assert m.n_samples == seen == 1000
    assert m.compute() == pytest.approx(sm.F1().update(y, p).compute())


def test_zero_dimensional_arrays_and_tensors_are_one_sample_and_missing_values_are_named():
    # CI installs both (torch from the machine's CPU wheel): there, a missing one fails
    torch = (
        importlib.import_module("torch") if os.environ.get("CI") == "true" else pytest.importorskip("torch")
    )
    pd = importlib.import_module("pandas")
    m = sm.Accuracy()
    m.update(torch.tensor(1), torch.tensor(1)).update(np.array(0), np.array(1)).update(np.int64(1), 1)
    assert m.n_samples == 3
    assert m.compute() == pytest.approx(accuracy_score([1, 0, 1], [1, 1, 1]))
    assert sm.MAE().update(torch.tensor(1.5), torch.tensor(1.0)).compute() == pytest.approx(0.5)
    before = m.to_bytes()
    for bad in [(pd.NA, 1), (None, 1), (1, pd.NA)]:
        with pytest.raises(sm.InputError, match="missing value"):
            m.update(*bad)
    assert m.to_bytes() == before


def test_a_collection_batch_interrupted_in_its_last_group_changes_no_group():
    rng = np.random.default_rng(5)
    y, p = rng.integers(0, 2, 200), rng.random(200)
    c = sm.MetricCollection({"acc": sm.Accuracy(threshold=0.5), "auc": sm.ROCAUC(), "ll": sm.LogLoss()})
    c.update(y[:100], p[:100])
    before = c.to_bytes()
    Interrupting(c["ll"], KeyboardInterrupt())  # the log loss table cannot revert: it goes last
    with pytest.raises(KeyboardInterrupt):
        c.update(y[100:], p[100:])
    assert c.to_bytes() == before
    c.update(y[100:], p[100:])  # the second call goes through
    assert c.compute() == pytest.approx(
        {"acc": accuracy_score(y, p >= 0.5), "auc": roc_auc_score(y, p), "ll": log_loss(y, p)}
    )


def test_buffered_numbers_become_the_float64_values_numpy_gives_them():
    """The per-row buffers' numbers (Python floats and ints, NumPy scalars) packed into float64
    at a flush: each the value ``np.fromiter`` (``float()``) gives it, bit for bit."""
    from streammetrics._core.rowvalues import floats_of

    values = [1.5, -0.0, 5e-324, 1.7976931348623157e308, 2**53 + 1, -(2**63), 3, 0.1]
    values += [np.float32(0.1), np.float64(-2.5), np.int64(2**53 + 3), np.int32(-7), True]
    got = floats_of(values)
    want = np.fromiter(values, dtype=np.float64, count=len(values))
    assert got.dtype == np.float64 and got.tobytes() == want.tobytes()
    assert floats_of([]).shape == (0,)
    # the aggregators' buffer, flushed: as one batch of the same values
    m = sm.Mean()
    for x in values[:8]:
        m.update(float(x))
    assert m.to_bytes() == sm.Mean().update(np.array(values[:8], dtype=np.float64)).to_bytes()
