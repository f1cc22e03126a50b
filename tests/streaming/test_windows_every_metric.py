"""Windows over every metric of the law suite: an exact ``Rolling`` window equals the metric over
the window's last rows, ``Decayed`` equals the metric with age weights, and a window of an
approximate metric reports the inner metric's bounds, which hold the exact value over the
window's rows. Keyed metrics (``Sliced``, the fairness gaps) take their keys through windows
as their last argument."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core.metric import metrics_within
from tests.helpers import assert_same, quiet_compute
from tests.law_cases import LawCase, all_cases, concat, take

WINDOW, HALF_LIFE = 7, 5.0
SIZES = (5, 9, 4)


def _windowable(case: LawCase) -> bool:
    """Not a window already, nor a tracker (its value records when it was read), nor holding a
    Bootstrap (refused in a window: bootstrap the window instead)."""
    wrappers = (sm.Rolling, sm.Decayed, sm.MinMax, sm.MetricTracker)
    metric = case.make()
    holds_bootstrap = any(isinstance(m, sm.Bootstrap) for m in metrics_within(metric))
    return "ordered" not in case.tags and not isinstance(metric, wrappers) and not holds_bootstrap


CASES = [c for c in all_cases() if _windowable(c)]


def _parts(case: LawCase) -> list[tuple]:
    rng = np.random.default_rng(3)
    return [case.batch(rng, max(n, case.min_rows)) for n in SIZES]


def _first_kept_row(seen: int, window: sm.Rolling) -> int:
    """The first row a window holds after ``seen`` rows: the last ``window`` rows (exact), or the
    fewest newest whole panes, counted from the stream's start, holding at least that many."""
    if window.exact:
        return max(0, seen - window.window)
    size = -(-window.window // window.panes)
    starts = range(0, seen, size)
    return next((s for s in reversed(starts) if seen - s >= window.window), 0)


@pytest.mark.parametrize("panes", [None, 3])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_rolling_window_is_the_metric_of_the_rows_it_holds(case: LawCase, panes: int | None) -> None:
    """An exact window (a revertible metric, ``panes=None``) holds the last rows; a window of
    panes (any metric) the newest whole panes holding at least ``window`` rows."""
    window = sm.Rolling(case.make(), window=WINDOW, panes=panes)
    parts = _parts(case)
    whole, seen = concat(parts), 0
    for part in parts:
        window.update(*part)
        seen += len(part[0])
        last = take(whole, slice(_first_kept_row(seen, window), seen))
        if len(last[0]) < case.min_rows:
            continue
        expected = case.make().update(*last)
        estimate = window.estimate()
        if estimate.guaranteed and not estimate.exact:
            # a sketch depends on its history (bins merged, then rows reverted): the window's
            # guaranteed bounds hold the exact value over its rows (a sample of content-hashed
            # rows is the same sample however it was built: compared below)
            exact = _exact_value(case, last)
            if exact is not None:
                assert np.all(np.asarray(estimate.low) <= np.asarray(exact) + 1e-12)
                assert np.all(np.asarray(exact) <= np.asarray(estimate.high) + 1e-12)
            continue
        assert_same(
            quiet_compute(window),
            quiet_compute(expected),
            rtol=max(case.rtol, 1e-9),
            atol=max(case.atol, 1e-12),
        )
        assert window.n_samples == len(last[0])


@pytest.mark.parametrize("case", [c for c in CASES if c.weights], ids=str)
def test_decayed_is_the_metric_with_age_weights(case: LawCase) -> None:
    try:
        decayed = sm.Decayed(case.make(), half_life=HALF_LIFE)
    except ValueError as err:  # a state whose weights cannot be scaled exactly (documented)
        assert "scaled" in str(err)
        return
    parts = _parts(case)
    for part in parts:
        decayed.update(*part)
    whole = concat(parts)
    ages = np.arange(len(whole[0]) - 1, -1, -1)
    expected = case.make().update(*whole, sample_weight=0.5 ** (ages / HALF_LIFE))
    assert_same(
        quiet_compute(decayed), quiet_compute(expected), rtol=max(case.rtol, 1e-8), atol=max(case.atol, 1e-10)
    )


def _exact_value(case: LawCase, rows: tuple) -> object | None:
    """The exact value over ``rows`` of an approximate metric: its reference, if it has one."""
    if case.reference is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return case.reference(*rows)


def test_windows_forward_estimates_of_exact_and_sampled_metrics() -> None:
    exact = sm.Rolling(sm.F1(), window=5).update([0, 1, 1], [0, 1, 0]).estimate()
    assert exact.exact and exact.low == exact.value == exact.high == pytest.approx(2 / 3)
    rng = np.random.default_rng(0)
    sampled = sm.Rolling(sm.Silhouette(sample_size=5), window=50)
    sampled.update(rng.normal(size=(40, 2)), rng.integers(0, 2, 40))
    e3 = sampled.estimate(z=3)
    assert not e3.exact and e3.high - e3.low == pytest.approx(6 * e3.stderr)
