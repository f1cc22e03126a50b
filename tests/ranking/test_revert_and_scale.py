"""Revert (exact counts, envelope extremes) and scale (exponential forgetting) on the score sketch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm


def _data(seed: int, n: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = 1 / (1 + np.exp(-(rng.normal(size=n) * 2 + y)))
    p = np.where(rng.random(n) < 0.2, np.round(p, 2), p)  # some ties
    return y, p


@pytest.mark.parametrize("seed", range(5))
def test_exact_mode_revert_gives_the_fresh_state_bit_for_bit(seed):
    y, p = _data(seed, 3000)
    m = sm.ROCAUC(exact=True).update(y[:1000], p[:1000]).update(y[1000:], p[1000:])
    m.revert(y[1000:2000], p[1000:2000])
    fresh = sm.ROCAUC(exact=True).update(np.r_[y[:1000], y[2000:]], np.r_[p[:1000], p[2000:]])
    assert m.to_bytes() == fresh.to_bytes()
    assert m.compute() == fresh.compute()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("resolution", [3, 6, 10])
def test_sketch_revert_counts_are_exact_and_bounds_contain_the_truth(seed, resolution):
    y, p = _data(seed, 4000)
    w = np.random.default_rng(seed).integers(1, 4, len(y)) if seed % 2 else None
    kw = {"resolution": resolution, "max_bins": None, "max_bytes": None}
    keep = np.r_[0:1500, 3000:4000]
    gone = np.r_[1500:3000]
    wk = None if w is None else w[keep]
    wg = None if w is None else w[gone]
    for make in (sm.ROCAUC, sm.AveragePrecision, lambda **k: sm.ROCAUC(max_fpr=0.2, **k)):
        m = make(**kw).update(y, p, sample_weight=w).revert(y[gone], p[gone], sample_weight=wg)
        fresh = make(**kw).update(y[keep], p[keep], sample_weight=wk)
        for key in ("ids", "counts", "sums"):
            np.testing.assert_array_equal(getattr(m.state, key), getattr(fresh.state, key))
        assert m.n_samples == fresh.n_samples
        # extremes are an outer envelope of the fresh (exact-data) ones
        occupied = fresh.state.counts > 0
        assert np.all(m.state.kmin[occupied] <= fresh.state.kmin[occupied])
        assert np.all(m.state.kmax[occupied] >= fresh.state.kmax[occupied])
        if isinstance(m, sm.AveragePrecision):
            truth = skm.average_precision_score(y[keep], p[keep], sample_weight=wk)
        else:
            truth = skm.roc_auc_score(y[keep], p[keep], sample_weight=wk, max_fpr=m.max_fpr)
        lo, hi = m.bounds()
        assert lo <= truth <= hi
        assert lo <= m.compute() <= hi


def test_revert_then_update_again_and_round_trip():
    y, p = _data(1, 2000)
    m = sm.ROCAUC(resolution=7).update(y, p).revert(y[:500], p[:500]).update(y[:300], p[:300])
    restored = sm.from_bytes(m.to_bytes())
    assert restored.to_bytes() == m.to_bytes()
    assert restored.compute() == m.compute()
    lo, hi = m.bounds()
    yk, pk = np.r_[y[500:], y[:300]], np.r_[p[500:], p[:300]]
    assert lo <= skm.roc_auc_score(yk, pk) <= hi


def test_reverting_everything_leaves_an_empty_sketch():
    y, p = _data(2, 500)
    m = sm.ROCAUC().update(y, p).revert(y, p)
    assert m.n_samples == 0 and m.state.n_bins == 0
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(m.compute())


@pytest.mark.parametrize(
    "rows",
    [
        lambda y, p: (y[:10], np.clip(p[:10] + 0.3, 0, 1)),  # scores never added
        lambda y, p: (1 - y[:10], p[:10]),  # other classes
        lambda y, p: (np.r_[y, y][:1200], np.r_[p, p][:1200]),  # more rows than added
    ],
)
def test_reverting_rows_that_were_not_added_is_an_input_error(rows):
    y, p = _data(3, 1000)
    m = sm.ROCAUC(resolution=12, max_bins=None, max_bytes=None).update(y[:600], p[:600])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="y_score"):
        m.revert(*rows(y, p))
    assert m.to_bytes() == before


def test_rolling_window_over_the_exact_sketch_matches_sklearn():
    y, p = _data(4, 600)
    r = sm.Rolling(sm.ROCAUC(exact=True), window=200)
    for i in range(0, 600, 50):
        r.update(y[i : i + 50], p[i : i + 50])
    assert r.compute() == pytest.approx(skm.roc_auc_score(y[-200:], p[-200:]), abs=1e-12)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("metric", [sm.ROCAUC, sm.AveragePrecision])
def test_decayed_equals_explicit_decay_weights(metric, exact):
    y, p = _data(5, 30_000)
    half_life = 5000.0
    decay = 0.5 ** (1 / half_life)
    d = sm.Decayed(metric(exact=exact), half_life=half_life)
    for i in range(0, len(y), 7000):  # uneven batches
        d.update(y[i : i + 7000], p[i : i + 7000])
    w = decay ** np.arange(len(y) - 1, -1, -1, dtype=np.float64)
    direct = metric(exact=exact).update(y, p, sample_weight=w)
    assert d.compute() == pytest.approx(direct.compute(), rel=1e-9, abs=1e-12)
    state, ref = d.state.state, direct.state
    assert state.resolution == ref.resolution
    np.testing.assert_array_equal(state.ids, ref.ids)
    np.testing.assert_allclose(state.counts, ref.counts, rtol=1e-9)
    truth = (skm.roc_auc_score if metric is sm.ROCAUC else skm.average_precision_score)(y, p, sample_weight=w)
    if exact:
        assert d.compute() == pytest.approx(truth, abs=1e-12)
    else:
        lo, hi = d.metric._estimate(state)[1:]
        assert lo <= truth <= hi


def test_scale_multiplies_weights_and_drops_emptied_bins():
    y, p = _data(6, 1000)
    m = sm.ROCAUC(resolution=8).update(y, p)
    counts = m.state.counts.copy()
    m.state.scale(0.25)
    assert m.state.counts.dtype == np.float64
    np.testing.assert_array_equal(m.state.counts, counts * 0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # weighted counts: the same as weights 0.25 given with the data (AUC is scale free)
        weighted = sm.ROCAUC(resolution=8).update(y, p, sample_weight=np.full(len(y), 0.25))
        assert m.compute() == pytest.approx(weighted.compute(), rel=1e-12)
        lo, hi = m.bounds()
        assert lo <= skm.roc_auc_score(y, p) <= hi
    m.state.scale(0.0)
    assert m.state.n_bins == 0
    with pytest.raises(ValueError, match="factor"):
        m.state.scale(-1.0)


def test_version_1_states_are_still_read():
    """A state written by the first release (raw arrays, extremes per column): read as an envelope."""
    from pathlib import Path

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 5000)
    p = 1 / (1 + np.exp(-(rng.normal(size=5000) + y)))
    m = sm.from_bytes((Path(__file__).parent / "v1_rocauc.state").read_bytes())
    assert m.n_samples == 5000 and m.state.loose
    lo, hi = m.bounds()
    assert lo <= skm.roc_auc_score(y, p) <= hi
    assert m.compute() == pytest.approx(skm.roc_auc_score(y, p), abs=1e-5)
    again = sm.from_bytes(m.to_bytes())
    assert again.state_dict()["version"] == 3 and again.compute() == m.compute()
