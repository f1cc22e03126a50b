"""The Poisson bootstrap: estimate, replicate mechanics (exact), random streams, coverage."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core.inputs import Inputs
from streammetrics.uncertainty.bootstrap import _stream_rng
from streammetrics.uncertainty.poisson import poisson_one


def _binary(rng, n, acc=0.8):
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < acc, y, 1 - y)


def _multiclass(rng, n):
    y = rng.integers(0, 4, n)
    return y, np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))


def test_estimate_is_the_metric_on_all_data():
    rng = np.random.default_rng(0)
    y, p = _multiclass(rng, 500)
    iv = (
        sm.Bootstrap(sm.F1(average="macro"), 50, seed=0)
        .update(y[:200], p[:200])
        .update(y[200:], p[200:])
        .compute()
    )
    assert iv.estimate == pytest.approx(skm.f1_score(y, p, average="macro"))
    assert iv.low < iv.estimate < iv.high and iv.level == 0.95 and iv.method == "percentile bootstrap"
    t = rng.normal(size=300)
    q = t + rng.normal(size=300)
    b = sm.Bootstrap(sm.PearsonR(), 50, seed=0).update(t[:100], q[:100]).update(t[100:], q[100:])
    assert b.compute().estimate == pytest.approx(stats.pearsonr(t, q)[0], rel=1e-12)


def test_weighted_replicates_equal_sklearn_with_poisson_times_weights():
    """A weighted batch: replicate r is the confusion matrix under weights w * P_r (one bincount)."""
    rng = np.random.default_rng(1)
    y, p = _multiclass(rng, 300)
    w = rng.uniform(0.0, 2.0, 300)
    w[:20] = 0.0
    b = sm.Bootstrap(sm.Accuracy(), 30, seed=11, shard=4).update(y, p, sample_weight=w)
    poisson = poisson_one(_stream_rng(11, 4, 0), (30, 280)).astype(np.float64)
    for r in range(30):
        expected = skm.confusion_matrix(
            y[20:], p[20:], sample_weight=w[20:] * poisson[r], labels=[0, 1, 2, 3]
        )
        np.testing.assert_allclose(b.state.tensor[r], expected, rtol=1e-12, atol=1e-12)
    values = b.replicate_values()
    assert values[0] == pytest.approx(skm.accuracy_score(y[20:], p[20:], sample_weight=w[20:] * poisson[0]))


def test_generic_replicates_equal_the_metric_with_poisson_weights():
    rng = np.random.default_rng(2)
    t = rng.normal(size=200)
    q = t + rng.normal(size=200)
    b = sm.Bootstrap(sm.MSE(), 20, seed=5).update(t, q)
    assert b.state.engine == "generic"
    poisson = poisson_one(_stream_rng(5, 0, 0), (20, 200)).astype(np.float64)
    expected = [skm.mean_squared_error(t, q, sample_weight=poisson[r]) for r in range(20)]
    np.testing.assert_allclose(b.replicate_values(), expected, rtol=1e-10)


def _regression_rows(rng, n, outputs=1):
    t = rng.lognormal(size=(n, outputs)) + 1e6 * (outputs == 1)  # far from 0: shifts matter
    q = t + rng.normal(size=(n, outputs))
    return (t[:, 0], q[:, 0]) if outputs == 1 else (t, q)


def _assert_replicates_are_the_metric_alone(b, make, batches):
    """Replicate ``r`` of ``b`` equals the metric fed the same batches ``(t, q, w)`` under the
    weights ``w[r]``; every replicate state passes its check."""
    values = b.replicate_values()
    for rep in range(len(values)):
        alone = make()
        for t, q, w in batches:
            alone.update(t, q, sample_weight=w[rep])
        np.testing.assert_allclose(values[rep], alone.compute(), rtol=1e-9, atol=1e-12)
    for state in b.state.reps:
        state.check()


@pytest.mark.parametrize(
    "make, outputs",
    [
        (lambda: sm.MSE(), 1),
        (lambda: sm.MAE(multioutput="raw_values"), 3),
        (lambda: sm.MSLE(), 1),
        (lambda: sm.R2(multioutput="raw_values"), 2),
        (lambda: sm.PearsonR(), 1),
        (lambda: sm.MAPE(), 1),
        (lambda: sm.PoissonDeviance(), 1),
        (lambda: sm.MaxError(), 1),  # no vectorized form: one replicate at a time
    ],
    ids=["MSE", "MAE-3-outputs", "MSLE", "R2-2-outputs", "PearsonR", "MAPE", "PoissonDeviance", "MaxError"],
)
def test_every_replicate_is_the_metric_under_its_weights(make, outputs):
    """Replicate r after two weighted batches (zero weights included) is the metric updated with
    the same batches under weights ``w * P_r``: the vectorized replicates of the moment and
    per-row value states as much as the one-at-a-time loop."""
    rng = np.random.default_rng(7)
    r = 12
    b = sm.Bootstrap(make(), r, seed=3, shard=2)
    batches = []
    for i, n in enumerate((150, 90)):
        t, q = _regression_rows(rng, n, outputs)
        w = rng.uniform(0.0, 2.0, n)
        w[:5] = 0.0
        b.update(t, q, sample_weight=w)
        batches.append((t, q, w * poisson_one(_stream_rng(3, 2, i), (r, n))))
    _assert_replicates_are_the_metric_alone(b, make, batches)
    metric = make()
    t, q = _regression_rows(rng, 10, outputs)
    vectorized = metric._apply_reweighted(
        [metric._make_state()], metric._validate(t, q), np.ones((1, 10), np.uint8), Inputs((t, q))
    )
    assert (vectorized is None) == isinstance(metric, sm.MaxError)


@pytest.mark.parametrize(
    "make, outputs",
    [(lambda: sm.MSE(), 1), (lambda: sm.R2(multioutput="raw_values"), 2), (lambda: sm.PearsonR(), 1)],
    ids=["MSE", "R2-2-outputs", "PearsonR"],
)
def test_replicates_without_weight_in_a_batch_stay_exact(make, outputs):
    """Batches of one or two rows leave many replicates without weight (a Poisson draw of 0), in
    the first batch too: those replicates keep their state (or stay empty) and take the next
    batch's shift, exactly as the metric fed their weights does."""
    rng = np.random.default_rng(11)
    r = 40
    b = sm.Bootstrap(make(), r, seed=8)
    batches = []
    for i, n in enumerate((1, 2, 1, 60, 1)):
        t, q = _regression_rows(rng, n, outputs)
        b.update(t, q)
        batches.append((t, q, poisson_one(_stream_rng(8, 0, i), (r, n)).astype(np.float64)))
    assert any(not w[rep].any() for _, _, w in batches for rep in range(r))  # the case is exercised
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_replicates_are_the_metric_alone(b, make, batches)


def test_poisson_one_is_poisson():
    """Frequencies of 2e6 draws against the Poisson(1) probabilities (scipy), within 5 standard
    errors; the support is 0..MAX_DRAW; mean and variance 1."""
    from streammetrics.uncertainty.poisson import MAX_DRAW

    draws = poisson_one(np.random.default_rng(0), (2000, 1000))
    assert draws.dtype == np.uint8 and draws.max() <= MAX_DRAW
    n = draws.size
    freq = np.bincount(draws.ravel(), minlength=12)[:12] / n
    p = stats.poisson.pmf(np.arange(12), 1.0)
    np.testing.assert_array_less(np.abs(freq - p), 5 * np.sqrt(p * (1 - p) / n) + 1e-12)
    assert abs(draws.mean() - 1) < 5 / np.sqrt(n) and abs(draws.var() - 1) < 5 * np.sqrt(2 / n)
    assert stats.poisson.sf(MAX_DRAW, 1.0) < 2.0**-64  # what lies beyond the support is negligible


def test_poisson_one_thresholds_are_the_poisson_cdf():
    """The 64-bit thresholds are floor(2^64 P(X <= k)), checked in exact rational arithmetic
    against e^-1 bounded by its series; every table cell agrees with a search of its range."""
    import bisect
    from fractions import Fraction
    from math import factorial

    from streammetrics.uncertainty import poisson as pz

    # e^-1 = sum (-1)^j / j!: alternating, so partial sums bracket it; 40 terms bound it within 1/40!
    lo_e = sum(Fraction((-1) ** j, factorial(j)) for j in range(41))
    hi_e = lo_e + Fraction(1, factorial(41))
    lo_e, hi_e = min(lo_e, hi_e), max(lo_e, hi_e)
    for k, t in enumerate(pz._THRESHOLDS.tolist()):
        cdf = sum(Fraction(1, factorial(j)) for j in range(k + 1))
        assert int(lo_e * cdf * 2**64) <= t <= int(hi_e * cdf * 2**64)
    thresholds = pz._THRESHOLDS.tolist()
    for cell in range(0, 1 << 16, 7):
        first = bisect.bisect_right(thresholds, cell << 48)
        last = bisect.bisect_right(thresholds, ((cell + 1) << 48) - 1)
        assert pz._TABLE[cell] == (first if first == last else pz._CUT)


def test_unweighted_counts_are_poisson_per_cell():
    """Sum of n_c Poisson(1) row weights = Poisson(n_c): mean and variance n_c per cell."""
    rng = np.random.default_rng(3)
    y, p = _binary(rng, 400)
    b = sm.Bootstrap(sm.Accuracy(), 4000, seed=2).update(y, p)
    n_c = skm.confusion_matrix(y, p)
    t = b.state.tensor
    assert t.dtype == np.int64 and t.shape == (4000, 2, 2)
    np.testing.assert_allclose(t.mean(axis=0), n_c, rtol=0.02)
    np.testing.assert_allclose(t.var(axis=0, ddof=1), n_c, rtol=0.1)


def test_label_growth_and_merge_keep_replicates_aligned():
    a = sm.Bootstrap(sm.Recall(average=None), 40, seed=1, shard=0)
    a.update(["ant", "bee"] * 30, ["ant", "bee"] * 30)
    a.update(["cat"] * 10, ["ant"] * 10)
    c = sm.Bootstrap(sm.Recall(average=None), 40, seed=1, shard=1).update(
        ["dog", "bee"] * 5, ["dog", "bee"] * 5
    )
    merged = a + c
    labels = merged.state.base.labels.tolist()
    assert labels == ["ant", "bee", "cat", "dog"]
    observed = merged.state.base.matrix
    # a replicate never holds counts where no data fell; per-cell totals add up exactly across the merge
    assert np.all(merged.state.tensor[:, observed == 0] == 0)
    pos = [labels.index(x) for x in a.state.base.labels.tolist()]
    ci = c.state.base.labels.tolist()
    posc = [labels.index(x) for x in ci]
    rebuilt = np.zeros_like(merged.state.tensor)
    rebuilt[:, np.ix_(pos, pos)[0], np.ix_(pos, pos)[1]] += a.state.tensor
    rebuilt[:, np.ix_(posc, posc)[0], np.ix_(posc, posc)[1]] += c.state.tensor
    np.testing.assert_array_equal(merged.state.tensor, rebuilt)
    assert merged.compute().estimate.shape == (4,)
    assert merged.compute().low.shape == (4,)


def test_streams_reproducible_and_distinct():
    rng = np.random.default_rng(4)
    y, p = _binary(rng, 300)

    def values(seed, shard):
        return (
            sm.Bootstrap(sm.F1(), 25, seed=seed, shard=shard)
            .update(y[:100], p[:100])
            .update(y[100:], p[100:])
            .replicate_values()
        )

    np.testing.assert_array_equal(values(3, 0), values(3, 0))
    assert not np.array_equal(values(3, 0), values(3, 1))
    assert not np.array_equal(values(3, 0), values(4, 0))
    # successive batches get fresh streams: two equal batches do not get equal draws
    b = sm.Bootstrap(sm.Accuracy(), 25, seed=3).update(y, p)
    first = b.state.tensor.copy()
    b.update(y, p)
    assert not np.array_equal(b.state.tensor - first, first)
    # seed=None: independent accumulators (even copies of one empty template) draw their own streams
    template = sm.Bootstrap(sm.Accuracy(), 25)
    s1, s2 = template.copy().update(y, p), template.copy().update(y, p)
    assert not np.array_equal(s1.state.tensor, s2.state.tensor)
    assert (s1 + s2).n_samples == 600


def test_merging_a_stream_with_itself_is_refused():
    rng = np.random.default_rng(5)
    y, p = _binary(rng, 100)
    a = sm.Bootstrap(sm.Accuracy(), 10, seed=1).update(y, p)
    b = sm.Bootstrap(sm.Accuracy(), 10, seed=1).update(y, p)
    with pytest.raises(sm.MergeError, match="shard"):
        a + b
    with pytest.raises(sm.MergeError, match="same random stream"):
        a.merge(a.copy())
    ok = a + sm.Bootstrap(sm.Accuracy(), 10, seed=1, shard=1).update(y, p)
    ok2 = ok + sm.Bootstrap(sm.Accuracy(), 10, seed=2, shard=0).update(y, p)  # other seed: fine
    assert ok2.n_samples == 300
    with pytest.raises(sm.MergeError, match="shard=1"):
        ok2 + sm.Bootstrap(sm.Accuracy(), 10, seed=1, shard=1).update(y, p)
    with pytest.raises(sm.MergeError, match="n_replicates"):
        a + sm.Bootstrap(sm.Accuracy(), 20, seed=1, shard=3)
    with pytest.raises(sm.MergeError, match="metric"):
        a + sm.Bootstrap(sm.Recall(), 10, seed=1, shard=3)


def test_round_trips_keep_replicates_and_streams():
    rng = np.random.default_rng(6)
    for metric, batch in (
        (sm.MCC(), _multiclass(rng, 200)),
        (sm.MAE(), (rng.normal(size=100), rng.normal(size=100))),
        (sm.F1(average="micro"), (rng.integers(0, 2, (50, 3)), rng.integers(0, 2, (50, 3)))),
    ):
        b = sm.Bootstrap(metric, 15, seed=9, shard=2).update(*batch)
        for restored in (
            sm.from_bytes(b.to_bytes()),
            sm.from_state_dict(b.state_dict()),
            pickle.loads(pickle.dumps(b)),
        ):
            assert type(restored) is sm.Bootstrap
            np.testing.assert_array_equal(restored.replicate_values(), b.replicate_values())
            with pytest.raises(sm.MergeError):
                restored + b  # a restored copy continues the same stream
            restored.update(*batch)
            b2 = b.copy().update(*batch)
            np.testing.assert_array_equal(restored.replicate_values(), b2.replicate_values())
    b = sm.Bootstrap(sm.Accuracy(), 5).update([0, 1], [0, 1])  # seed=None: the drawn entropy is stored
    np.testing.assert_array_equal(
        sm.from_bytes(b.to_bytes()).update([1], [0]).state.tensor, b.update([1], [0]).state.tensor
    )


def test_bad_inputs_and_parameters():
    b = sm.Bootstrap(sm.Accuracy(), 10, seed=0).update([0, 1, 1], [0, 1, 0])
    before = b.state_dict()
    with pytest.raises(sm.InputError, match="y_pred"):
        b.update([0, 1], [0])
    with pytest.raises(sm.InputError, match="sample_weight"):
        b.update([0, 1], [0, 1], sample_weight=[1.0, -1.0])
    with pytest.raises(sm.InputError, match="y_true"):
        b.update(["a"], ["a"])  # strings after ints
    binary = sm.Bootstrap(sm.F1(), 10, seed=0).update([0, 1], [0, 1])
    before_binary = binary.state_dict()
    with pytest.raises(sm.InputError, match="binary"):
        binary.update([2], [2])  # a state-dependent check in the wrapped metric
    from tests.helpers import assert_same

    assert_same(b.state_dict()["state"], before["state"], exact=True)
    assert_same(binary.state_dict()["state"], before_binary["state"], exact=True)
    for kwargs, word in (
        ({"n_replicates": -1}, "n_replicates"),
        ({"n_replicates": 2.5}, "n_replicates"),
        ({"seed": -3}, "seed"),
        ({"shard": "a"}, "shard"),
        ({"level": 1.0}, "level"),
    ):
        with pytest.raises(ValueError, match=word):
            sm.Bootstrap(sm.Accuracy(), **kwargs)
    with pytest.raises(ValueError, match="empty metric"):
        sm.Bootstrap(sm.Accuracy().update([0], [0]))
    with pytest.raises(ValueError, match="metric"):
        sm.Bootstrap("accuracy")
    with pytest.raises(TypeError, match="cannot revert"):
        b.revert([0], [0])


def test_level_call_and_empty():
    rng = np.random.default_rng(7)
    y, p = _binary(rng, 400)
    b = sm.Bootstrap(sm.Accuracy(), 200, seed=0).update(y, p)
    wide, narrow = b.compute(), b.compute(level=0.5)
    assert wide.low < narrow.low < narrow.high < wide.high and narrow.level == 0.5
    se = b.standard_error()
    assert se == pytest.approx(np.sqrt(0.8 * 0.2 / 400), rel=0.25)
    c = sm.Bootstrap(sm.Accuracy(), 50, seed=0)
    first = c(y[:200], p[:200])
    second = c(y[200:], p[200:])
    assert first.estimate == pytest.approx(skm.accuracy_score(y[:200], p[:200]))
    assert second.estimate == pytest.approx(skm.accuracy_score(y[200:], p[200:]))
    assert c.compute().estimate == pytest.approx(skm.accuracy_score(y, p)) and c.state.n_batches == 2
    with pytest.warns(sm.UndefinedMetricWarning):
        empty = sm.Bootstrap(sm.Accuracy()).compute()
    assert np.isnan(empty.estimate) and np.isnan(empty.low) and empty.level == 0.95
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        iv = (
            sm.Bootstrap(sm.Precision(zero_division=np.nan), 50, seed=1)
            .update([1, 0, 1, 0], [0, 0, 1, 0])
            .compute()
        )
    assert np.isfinite(iv.low)  # replicates without predicted positives are left out


def test_coverage_confusion_engine():
    """Percentile intervals of accuracy cover the true accuracy in about 95% of repeated samples."""
    rng = np.random.default_rng(8)
    truth, n, reps = 0.8, 300, 400
    covered = 0
    for i in range(reps):
        correct = rng.random(n) < truth
        y = rng.integers(0, 2, n)
        p = np.where(correct, y, 1 - y)
        covered += sm.Bootstrap(sm.Accuracy(), 200, seed=i).update(y, p).compute().contains(truth)
    assert 0.91 <= covered / reps <= 0.98


def test_coverage_generic_engine_across_shards():
    """Pearson r through the generic engine, each sample split over two shards and merged."""
    rng = np.random.default_rng(9)
    rho, n, reps = 0.5, 150, 120
    covered = 0
    for i in range(reps):
        a = rng.standard_normal(n)
        b = rho * a + np.sqrt(1 - rho**2) * rng.standard_normal(n)
        s0 = sm.Bootstrap(sm.PearsonR(), 80, seed=i, shard=0).update(a[:70], b[:70])
        s1 = sm.Bootstrap(sm.PearsonR(), 80, seed=i, shard=1).update(a[70:], b[70:])
        covered += (s0 + s1).compute().contains(rho)
    assert 0.88 <= covered / reps <= 0.995  # 120 repetitions: 2 binomial SDs below 0.95 is 0.91


@pytest.mark.parametrize(
    "make, pred",
    [
        (lambda: sm.Bootstrap(sm.Accuracy(), n_replicates=50, seed=3), "labels"),
        (lambda: sm.Bootstrap(sm.MAE(), n_replicates=50, seed=3), "values"),
        (lambda: sm.Bootstrap(sm.ROCAUC(exact=True), n_replicates=20, seed=3), "scores"),
    ],
    ids=["counts-engine", "residual-rows", "score-rows"],
)
def test_rows_are_buffered_and_equal_one_batch(make, pred):
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 400)
    p = rng.integers(0, 2, 400) if pred == "labels" else rng.random(400)
    b = make()
    for t, q in zip(y.tolist(), p.tolist(), strict=True):
        b.update(t, q)
    whole = make().update(y, p)
    assert b.compute() == whole.compute()  # same Poisson stream: the rows are one batch
    assert b.to_bytes() == whole.to_bytes()
    before = b.to_bytes()
    with pytest.raises(sm.InputError):
        b.update(1, float("nan"))
    assert b.to_bytes() == before


def _binary_rows(rng, n, first):
    """Labels 3 and 7 (7 positive by scikit-learn's rule); the first batch has label 3 only, so
    every replicate learns its positive label from the rows it draws."""
    t = np.full(n, 3) if first else rng.choice([3, 7], n)
    return t, rng.uniform(0.0, 1.0, n)


def _multiclass_rows(rng, n, first):
    t = rng.integers(0, 3, n)
    return t, rng.dirichlet(np.ones(3), n)


def _indicator_rows(rng, n, first):
    t = (rng.random((n, 3)) < 0.4).astype(int)
    return t, rng.dirichlet(np.ones(3), n)


@pytest.mark.parametrize(
    "make, rows",
    [
        (lambda: sm.LogLoss(), _binary_rows),
        (
            lambda: sm.LogLoss(input="score"),
            lambda rng, n, first: (_binary_rows(rng, n, first)[0], rng.normal(size=n)),
        ),
        (lambda: sm.LogLoss(pos_label=3, normalize=False), _binary_rows),
        (lambda: sm.LogLoss(), _multiclass_rows),
        (
            lambda: sm.LogLoss(input="score"),
            lambda rng, n, first: (rng.integers(0, 3, n), rng.normal(size=(n, 3))),
        ),
        (lambda: sm.LogLoss(), _indicator_rows),
    ],
    ids=["binary", "binary-logits", "binary-pos-label", "multiclass", "multiclass-logits", "indicator"],
)
def test_every_log_loss_replicate_is_the_metric_under_its_weights(make, rows):
    """Log loss replicates (summed at once from the per-row losses) equal the metric updated
    batch by batch under ``w * P_r``, the positive label of each replicate included: after a
    first batch of one label, a replicate that drew no row of it has seen nothing."""
    rng = np.random.default_rng(11)
    r = 30
    b = sm.Bootstrap(make(), r, seed=4, shard=1)
    batches = []
    for i, n in enumerate((4, 40, 25)):
        t, p = rows(rng, n, i == 0)
        w = rng.uniform(0.0, 2.0, n)
        w[:2] = 0.0
        b.update(t, p, sample_weight=w)
        batches.append((t, p, w * poisson_one(_stream_rng(4, 1, i), (r, n))))
        if i == 0 and rows is _binary_rows:  # some replicates drew no row of weight > 0
            assert {s.seen for s in b.state.reps} == {(), (3,)}
    values = b.replicate_values()
    for rep in range(r):
        alone = make()
        for t, p, w in batches:
            alone.update(t, p, sample_weight=w[rep])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = alone.compute()
        np.testing.assert_allclose(values[rep], expected, rtol=1e-12)
        assert b.state.reps[rep].seen == alone.state.seen
    for state in b.state.reps:
        state.check()
    metric = make()
    t, p = rows(rng, 8, False)
    assert (
        metric._apply_reweighted(
            [metric._make_state()], metric._validate(t, p), np.ones((1, 8), np.uint8), Inputs((t, p))
        )
        is not None
    )
