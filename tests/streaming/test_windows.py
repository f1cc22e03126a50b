"""Rolling and Decayed: values against references computed on the window's rows / with explicit weights."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm


def stream(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return y, np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))


def batches(n, seed):
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, n), size=8, replace=False))
    return list(zip(np.r_[0, cuts], np.r_[cuts, n], strict=True))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("window", [1, 7, 50, 1000])
def test_rolling_exact_is_the_metric_of_the_last_rows(window, seed):
    y, p = stream(seed=seed)
    r = sm.Rolling(sm.F1(average="macro"), window=window)
    assert r.exact
    for a, b in batches(len(y), seed):
        r.update(y[a:b], p[a:b])
        lo = max(0, b - window)
        assert r.n_samples == b - lo
        assert r.compute() == pytest.approx(skm.f1_score(y[lo:b], p[lo:b], average="macro", zero_division=0))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("window", "panes"), [(20, 4), (30, 7), (10, 10), (50, 1)])
def test_rolling_panes_cover_the_last_window_rows_rounded_to_panes(window, panes, seed):
    y, p = stream(seed=seed)
    r = sm.Rolling(sm.Accuracy(), window=window, panes=panes)
    size = -(-window // panes)
    for a, b in batches(len(y), seed):
        r.update(y[a:b], p[a:b])
        # whole panes from the start of the stream; keep the fewest newest panes holding >= window rows
        full, last = divmod(b, size)
        starts = [i * size for i in range(full + (last > 0))]
        lo = next((s for s in reversed(starts) if b - s >= window), 0)
        assert window <= b - lo < window + size or lo == 0
        assert r.n_samples == b - lo
        assert r.compute() == pytest.approx(skm.accuracy_score(y[lo:b], p[lo:b]))


def test_rolling_default_is_panes_for_non_revertible_metrics():
    r = sm.Rolling(sm.MaxError(), window=100)
    assert not r.exact and r.panes == 16
    rng = np.random.default_rng(0)
    y, p = rng.normal(size=500), rng.normal(size=500)
    for i in range(0, 500, 37):
        r.update(y[i : i + 37], p[i : i + 37])
    lo = 500 - r.n_samples
    assert 100 <= r.n_samples < 107
    assert r.compute() == pytest.approx(skm.max_error(y[lo:], p[lo:]))


@pytest.mark.parametrize("panes", [None, 5])
def test_rolling_merge_is_concatenation_and_round_trips(panes):
    y, p = stream(200)
    make = lambda: sm.Rolling(sm.Accuracy(), window=40, panes=panes)  # noqa: E731
    a, b = make().update(y[:120], p[:120]), make().update(y[120:], p[120:])
    whole = make().update(y[:120], p[:120]).update(y[120:], p[120:])
    assert (a + b).compute() == pytest.approx(whole.compute())
    for restored in (sm.from_bytes(a.to_bytes()), pickle.loads(pickle.dumps(a)), a.copy()):
        restored.update(y[120:], p[120:])
        assert restored.compute() == pytest.approx(whole.compute())
        assert restored.n_samples == whole.n_samples


def test_rolling_string_labels_and_weights_round_trip():
    y = np.array(["a", "b", "c", "a", "b", "b", "c"])
    p = np.array(["a", "b", "a", "a", "c", "b", "c"])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 2.0])
    r = sm.Rolling(sm.Precision(average="weighted"), window=4)
    r.update(y[:5], p[:5], sample_weight=w[:5]).update(y[5:], p[5:], sample_weight=w[5:])
    ref = skm.precision_score(y[3:], p[3:], sample_weight=w[3:], average="weighted")
    assert r.compute() == pytest.approx(ref)
    assert sm.from_bytes(r.to_bytes()).update(y[:1], p[:1], sample_weight=w[:1]).compute() == pytest.approx(
        skm.precision_score(
            np.r_[y[4:], y[:1]], np.r_[p[4:], p[:1]], sample_weight=np.r_[w[4:], w[:1]], average="weighted"
        )
    )


def decayed_reference(y, p, decay, metric):
    n = len(y)
    return metric(y, p, sample_weight=decay ** np.arange(n - 1, -1, -1, dtype=float))


@pytest.mark.parametrize("seed", range(3))
def test_decayed_equals_the_metric_with_age_weights_whatever_the_batches(seed):
    y, p = stream(seed=seed)
    d = sm.Decayed(sm.F1(average="macro"), half_life=25)
    for a, b in batches(len(y), seed):
        d.update(y[a:b], p[a:b])
        expected = decayed_reference(
            y[:b], p[:b], 0.5 ** (1 / 25), lambda *a, **k: skm.f1_score(*a, **k, average="macro")
        )
        assert d.compute() == pytest.approx(expected, rel=1e-9)
    assert d.n_samples == len(y)


def test_decayed_merge_is_concatenation_with_weights_and_round_trips():
    y, p = stream(120, 2)
    w = np.random.default_rng(1).uniform(0.5, 2, 120)
    make = lambda: sm.Decayed(sm.Accuracy(), decay=0.97)  # noqa: E731
    a = make().update(y[:50], p[:50], sample_weight=w[:50])
    b = make().update(y[50:], p[50:], sample_weight=w[50:])
    expected = skm.accuracy_score(y, p, sample_weight=w * 0.97 ** np.arange(119, -1, -1))
    assert (a + b).compute() == pytest.approx(expected)
    assert sm.from_bytes((a + b).to_bytes()).compute() == pytest.approx(expected)
    assert pickle.loads(pickle.dumps(a + b)).compute() == pytest.approx(expected)


def test_decayed_regression_moments():
    rng = np.random.default_rng(5)
    y = rng.normal(size=300)
    p = y + rng.normal(size=300)
    d = sm.Decayed(sm.MAE(), half_life=40)
    for i in range(0, 300, 64):
        d.update(y[i : i + 64], p[i : i + 64])
    ref = skm.mean_absolute_error(y, p, sample_weight=0.5 ** (np.arange(299, -1, -1) / 40))
    assert d.compute() == pytest.approx(ref)
    r2 = sm.Decayed(sm.R2(), decay=0.99).update(y, p)
    assert r2.compute() == pytest.approx(skm.r2_score(y, p, sample_weight=0.99 ** np.arange(299, -1, -1)))


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: sm.Rolling(sm.F1(), window=0), "window: expected an integer >= 1, found 0"),
        (lambda: sm.Rolling(sm.F1(), window=2.5), "window: expected an integer"),
        (lambda: sm.Rolling(sm.F1(), window=10, panes=11), "panes"),
        (lambda: sm.Rolling("no_such_metric", window=3), "unknown metric name"),
        (lambda: sm.Decayed(sm.F1(), decay=1.0), "decay: expected a real number < 1"),
        (lambda: sm.Decayed(sm.F1(), decay=0.0), "decay: expected a real number > 0"),
        (lambda: sm.Decayed(sm.F1(), decay=1.5), "decay"),
        (lambda: sm.Decayed(sm.F1(), half_life=0), "half_life: expected a real number > 0"),
        (lambda: sm.Decayed(sm.F1()), "exactly one of half_life= and decay="),
        (lambda: sm.Decayed(sm.F1(), half_life=3, decay=0.5), "exactly one"),
        (lambda: sm.Decayed(sm.F1().update([1], [1]), half_life=3), "fresh metric"),
    ],
)
def test_bad_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_decayed_refuses_states_it_cannot_scale_and_windows_refuse_revert():
    with pytest.raises(ValueError, match=r"cannot.*Rolling instead"):
        sm.Decayed(sm.MaxError(), half_life=10)
    with pytest.raises(TypeError, match="cannot revert"):
        sm.Rolling(sm.F1(), window=3).update([1], [1]).revert([1], [1])
    with pytest.raises(TypeError, match="cannot revert"):
        sm.Decayed(sm.F1(), half_life=3).update([1], [1]).revert([1], [1])


def test_windows_merge_only_same_configuration_and_bad_batches_leave_state():
    with pytest.raises(sm.MergeError):
        sm.Rolling(sm.F1(), window=3).merge(sm.Rolling(sm.F1(), window=4))
    with pytest.raises(sm.MergeError):
        sm.Decayed(sm.F1(), half_life=3).merge(sm.Decayed(sm.F1(), half_life=4))
    for m in (
        sm.Rolling(sm.F1(), window=3),
        sm.Rolling(sm.F1(), window=4, panes=2),
        sm.Decayed(sm.F1(), half_life=3),
    ):
        m.update([0, 1, 1], [0, 1, 0])
        before = pickle.dumps(m.state_dict())
        with pytest.raises(sm.InputError, match="y_pred"):
            m.update([0, 1], [0, 1, 1])
        with pytest.raises(sm.InputError, match="at most 2 labels"):
            m.update([0, 2], [0, 1])
        assert pickle.dumps(m.state_dict()) == before


def test_decayed_takes_log_loss_contingency_tables_and_collections():
    """States made scalable: the probability tables, contingency tables and a collection of
    scalable members (each as the metric with age weights: see test_windows_every_metric.py)."""
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0.2, 0.8, 0.6, 0.3, 0.9, 0.6, 0.4, 0.7])
    ages = 0.5 ** (np.arange(7, -1, -1) / 3)
    collection = sm.Decayed(
        sm.MetricCollection({"log_loss": sm.LogLoss(), "f1": sm.F1(threshold=0.5)}), half_life=3
    )
    collection.update(y[:5], p[:5]).update(y[5:], p[5:])
    values = collection.compute()
    assert values["log_loss"] == pytest.approx(skm.log_loss(y, p, sample_weight=ages), rel=1e-12)
    assert values["f1"] == pytest.approx(skm.f1_score(y, p >= 0.5, sample_weight=ages), rel=1e-12)
    with pytest.raises(ValueError, match="scaled"):
        sm.Decayed(sm.MetricCollection({"f1": sm.F1(), "max_error": sm.MaxError()}), half_life=3)


def test_a_contingency_table_scaled_past_the_float_range_drops_its_cells():
    from streammetrics.clustering.external.contingency import ContingencyState

    state = ContingencyState()
    state.add(np.array([0, 0, 1]), np.array([1, 1, 0]), np.array([1e-300, 1e-300, 1.0]))
    state.scale(1e-30)  # the first cell underflows to 0: it leaves, with its labels
    state.check()
    assert state.dense().tolist() == [[1e-30]] and state.row_labels.tolist() == [1]
    with pytest.raises(ValueError, match="factor"):
        state.scale(float("nan"))


def test_a_window_of_bootstrap_panes_is_refused():
    for inside in (sm.Bootstrap(sm.Accuracy()), sm.MetricCollection({"b": sm.Bootstrap(sm.Accuracy())})):
        with pytest.raises(ValueError, match=r"Bootstrap\(Rolling\(metric, window\)\)"):
            sm.Rolling(inside, window=10)


def test_a_window_of_a_sketch_takes_no_z():
    window = sm.Rolling(sm.ROCAUC(), window=5).update([0, 1], [0.2, 0.7])
    assert window.estimate().guaranteed
    with pytest.raises(ValueError, match="guaranteed, they take no z"):
        window.estimate(z=2)


def test_decayed_takes_sliced_metrics_and_cluster_moments():
    """A sliced metric decays key by key, the fairness gaps with it, and the clustering indices
    on per-cluster moments (each against itself with age weights)."""
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 0])
    groups = np.array(list("abababab"))
    ages = 0.5 ** (np.arange(7, -1, -1) / 3)
    sliced = sm.Decayed(sm.Sliced(sm.Accuracy()), half_life=3).update(y[:5], p[:5], groups[:5])
    sliced.update(y[5:], p[5:], groups[5:])
    expected = {
        g: skm.accuracy_score(y[groups == g], p[groups == g], sample_weight=ages[groups == g]) for g in "ab"
    }
    assert sliced.compute() == pytest.approx(expected, rel=1e-12)
    gap = sm.Decayed(sm.DemographicParityDifference(), half_life=3).update(y, p, groups)
    assert gap.compute() == pytest.approx(
        sm.DemographicParityDifference().update(y, p, groups, sample_weight=ages).compute(), rel=1e-12
    )
    X = np.random.default_rng(0).normal(size=(8, 2))
    ch = sm.Decayed(sm.CalinskiHarabasz(), half_life=3).update(X[:3], p[:3]).update(X[3:], p[3:])
    assert ch.compute() == pytest.approx(
        sm.CalinskiHarabasz().update(X, p, sample_weight=ages).compute(), rel=1e-12
    )


@pytest.mark.parametrize("full", [False, True, "diagonal"])
def test_cluster_moments_scaled_past_the_float_range_drop_the_cluster(full):
    from streammetrics.clustering.internal.moments import ClusterMoments

    state = ClusterMoments(full=full)
    state.add(np.array([[0.0], [1.0], [5.0]]), np.array([0, 0, 1]), np.array([1e-300, 1e-300, 1.0]))
    state.scale(1e-30)  # cluster 0's weight underflows: it leaves
    state.check()
    assert state.labels.tolist() == [1] and state.weight.tolist() == [1e-30]


@pytest.mark.parametrize(
    "metric",
    [
        sm.AdjustedMutualInfo(),
        sm.Sliced(sm.AdjustedMutualInfo()),
        sm.MetricCollection({"ami": sm.AdjustedMutualInfo(), "ari": sm.AdjustedRandIndex()}),
    ],
)
def test_decayed_refuses_a_metric_of_whole_number_weights(metric):
    """Adjusted mutual information takes whole-number weights: its every decayed batch would be
    refused, so the window is, when built."""
    with pytest.raises(ValueError, match="AdjustedMutualInfo takes whole-number weights"):
        sm.Decayed(metric, half_life=3)
