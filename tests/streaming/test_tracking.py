"""MetricTracker and MinMax against torchmetrics' MetricTracker and MinMaxMetric, and their merges."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from tests.integrations.engine_cases import require

# torchmetrics is the reference (the "peers" extra): skipped where missing, except in CI
torch = require("torch")
_classification = require("torchmetrics.classification")
_regression = require("torchmetrics.regression")
_wrappers = require("torchmetrics.wrappers")
BinaryAccuracy, MeanAbsoluteError = _classification.BinaryAccuracy, _regression.MeanAbsoluteError
TMTracker, MinMaxMetric = _wrappers.MetricTracker, _wrappers.MinMaxMetric


def _epochs(seed: int, n_epochs: int = 5):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_epochs):
        batches = []
        for _ in range(rng.integers(1, 4)):
            n = int(rng.integers(2, 20))
            y = rng.integers(0, 2, n)
            batches.append((y, np.where(rng.random(n) < rng.uniform(0.3, 0.9), y, 1 - y)))
        out.append(batches)
    return out


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("kind", ["accuracy", "mae"])
def test_tracker_matches_torchmetrics(seed, kind):
    ours = sm.MetricTracker(sm.Accuracy() if kind == "accuracy" else sm.MAE())
    theirs = TMTracker(BinaryAccuracy() if kind == "accuracy" else MeanAbsoluteError())
    for batches in _epochs(seed):
        ours.increment()
        theirs.increment()
        for y, p in batches:
            ours.update(y, p)
            yt, pt = torch.tensor(y), torch.tensor(p)
            if kind == "accuracy":
                theirs.update(pt, yt)
            else:
                theirs.update(pt.double(), yt.double())
        assert ours.compute() == pytest.approx(float(theirs.compute()), rel=1e-6)
    np.testing.assert_allclose(ours.compute_all(), theirs.compute_all().double().numpy(), rtol=1e-6)
    value, _step = theirs.best_metric(return_step=True)  # (its index among float32 near-ties may differ)
    best = ours.best()
    assert best.value == pytest.approx(value, rel=1e-6)
    values = ours.compute_all()
    assert values[best.step] == best.value
    assert best.step == (int(np.argmax(values)) if kind == "accuracy" else int(np.argmin(values)))
    assert ours.n_epochs == theirs.n_steps


def test_direction_from_the_metric_and_override():
    assert sm.MetricTracker(sm.F1()).maximize is True
    assert sm.MetricTracker(sm.LogLoss()).maximize is False
    assert sm.MetricTracker(sm.ConfusionMatrix(), maximize=False).maximize is False
    with pytest.raises(ValueError, match="maximize"):
        sm.MetricTracker(sm.ConfusionMatrix())
    with pytest.raises(ValueError, match="maximize"):
        sm.MetricTracker(sm.F1(), maximize="yes")
    t = sm.MetricTracker(sm.Accuracy(), maximize=False)
    for p in ([1, 1], [1, 0], [0, 0]):
        t.increment().update([1, 1], p)
    assert t.best() == sm.TrackerBest(0.0, 2)


def test_ties_go_to_the_earliest_epoch_and_undefined_epochs_are_skipped():
    t = sm.MetricTracker(sm.Accuracy())
    t.update([1, 0], [1, 0])
    t.increment()  # epoch 1 stays empty: NaN, skipped
    t.increment()  # an empty epoch is still an epoch: 3 now
    assert t.n_epochs == 3
    t.update([1], [1])
    assert t.best() == sm.TrackerBest(1.0, 0)
    assert np.isnan(sm.MetricTracker(sm.Accuracy()).compute_all()).all()
    with pytest.warns(sm.UndefinedMetricWarning):
        assert sm.MetricTracker(sm.Accuracy()).best().step is None


def test_first_increment_opens_epoch_zero():
    t = sm.MetricTracker(sm.Accuracy())
    assert t.increment().n_epochs == 1
    t.update([1], [1])
    assert t.increment().n_epochs == 2


def test_collection_tracker_gives_one_best_per_output():
    c = sm.MetricCollection({"acc": sm.Accuracy(threshold=0.5), "ll": sm.LogLoss()})
    t = sm.MetricTracker(c)
    for y, p in (([0, 1], [0.4, 0.6]), ([0, 1], [0.2, 0.9]), ([0, 1], [0.6, 0.4])):
        t.increment().update(y, p)
    best = t.best()
    assert best["acc"].step == 0 and best["acc"].value == 1.0  # epochs 0 and 1 tie at 1.0
    assert best["ll"].step == 1  # lower log loss is better
    assert set(t.compute_all()) == {"acc", "ll"}


def test_best_of_a_metric_whose_value_is_not_a_number_is_refused():
    """Per-class values have no best epoch: ``best()`` raises TypeError naming compute_all(), where
    torchmetrics' best_metric() warns and returns None (a deliberate difference, documented);
    the epochs' values stay readable."""
    ours, theirs = (
        sm.MetricTracker(sm.Recall(average=None)),
        TMTracker(_classification.MulticlassRecall(num_classes=3, average=None)),
    )
    for y, p in (([0, 1, 2, 2], [0, 1, 1, 2]), ([0, 1, 2, 0], [0, 2, 2, 0])):
        ours.increment().update(y, p)
        theirs.increment()
        theirs.update(torch.tensor(p), torch.tensor(y))
    with pytest.raises(TypeError, match=r"not a number.*compute_all"):
        ours.best()
    with pytest.warns(UserWarning):
        assert theirs.best_metric() is None
    np.testing.assert_allclose(np.stack(ours.compute_all()), theirs.compute_all().numpy(), rtol=1e-6)


def test_tracker_merges_epoch_by_epoch_and_refuses_other_epochs():
    rng = np.random.default_rng(3)
    epochs = _epochs(7, 3)
    whole, a, b = (sm.MetricTracker(sm.F1()) for _ in range(3))
    for batches in epochs:
        for t in (whole, a, b):
            t.increment()
        for i, (y, p) in enumerate(batches):
            whole.update(y, p)
            (a if rng.random() < 0.5 or i == 0 else b).update(y, p)
    merged = a + b
    np.testing.assert_allclose(merged.compute_all(), whole.compute_all())
    assert merged.best() == whole.best()
    assert (a + sm.MetricTracker(sm.F1())).compute_all().tolist() == a.compute_all().tolist()  # identity
    with pytest.raises(sm.MergeError, match="epoch by epoch"):
        a.merge(sm.MetricTracker(sm.F1()).update([1], [1]))
    restored = sm.from_bytes(merged.to_bytes())
    assert restored.n_epochs == 3
    np.testing.assert_allclose(restored.compute_all(), whole.compute_all())
    assert restored.increment().update([1], [1]).n_epochs == 4


def test_tracker_revert_and_rows_go_to_the_current_epoch():
    t = sm.MetricTracker(sm.Accuracy())
    t.update([1, 1], [1, 0])
    t.increment()
    for y, p in [(1, 1), (0, 1), (1, 1)]:
        t.update(y, p)  # one row at a time: the buffered row path
    t.revert([0], [1])
    assert t.compute_all().tolist() == [0.5, 1.0]
    assert t.n_samples == 4
    with pytest.raises(TypeError, match="cannot revert"):
        sm.MetricTracker(sm.Rolling(sm.F1(), window=5)).revert([1], [1])


def test_minmax_matches_torchmetrics_minmaxmetric():
    ours, theirs = sm.MinMax(sm.Accuracy()), MinMaxMetric(BinaryAccuracy())
    rng = np.random.default_rng(0)
    for _ in range(8):
        n = int(rng.integers(1, 10))
        y = rng.integers(0, 2, n)
        p = np.where(rng.random(n) < 0.6, y, 1 - y)
        ours.update(y, p)
        theirs.update(torch.tensor(p), torch.tensor(y))
        got, want = ours.compute(), theirs.compute()
        for key in ("raw", "min", "max"):
            assert got[key] == pytest.approx(float(want[key]), rel=1e-6)


def test_minmax_merge_serialization_and_undefined_values():
    a = sm.MinMax(sm.MAE())
    a.update([0.0], [1.0]).compute()
    a.update([0.0], [3.0]).compute()  # raw 2.0: extremes [1, 2]
    b = sm.MinMax(sm.MAE()).update([0.0], [0.5])
    b.compute()  # 0.5 recorded
    merged = a + b  # state of all three rows (MAE 1.5) and the extremes of both sides
    assert merged.compute() == {"raw": 1.5, "min": 0.5, "max": 2.0}
    restored = sm.from_bytes(a.to_bytes())
    assert restored.compute() == {"raw": 2.0, "min": 1.0, "max": 2.0}
    empty = sm.MinMax(sm.MAE())
    with pytest.warns(sm.UndefinedMetricWarning):
        value = empty.compute()
    assert all(np.isnan(v) for v in value.values())
    assert np.isnan(empty.state.extremes).all()  # NaN is never recorded
    # an array value (compute() never raises): the value, NaN extremes and a warning; nothing recorded
    per_class = sm.MinMax(sm.F1(average=None)).update([0, 1], [0, 1])
    with pytest.warns(sm.UndefinedMetricWarning, match="MinMax records numbers"):
        value = per_class.compute()
    assert value["raw"].tolist() == [1.0, 1.0] and np.isnan(value["min"]) and np.isnan(value["max"])
    assert np.isnan(per_class.state.extremes).all()
    with pytest.raises(ValueError, match="MinMax follows a number; ROCCurve's value is not one"):
        sm.MinMax(sm.ROCCurve())
    bad = a.state_dict()
    bad["state"]["extremes"] = [3.0, 1.0]
    with pytest.raises(sm.StateError, match="extremes"):
        sm.from_state_dict(bad)
