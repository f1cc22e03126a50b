"""One row at a time through the wrappers, for every metric of the law suite that takes rows of
scalars: ``update_one`` (and ``update`` with scalars) through a window, decay, a tracker or a
collection equals one batch. A wrapper's ``update_one`` took ``(y_true, y_pred)`` rows only,
so a window of ``Mean`` or ``McNemar``, or of a sliced metric (its key last), refused its rows
or read the key as the weight. (A bootstrap's interval holds in distribution only: its draws
follow the batches, as ``docs/catalogue/uncertainty.md`` says.)"""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same, plain_value, quiet_compute
from tests.law_cases import LawCase
from tests.test_laws import SCALAR_ROW_CASES, feed_row_one, row_of

WRAPPERS = {
    "Rolling": lambda m: sm.Rolling(m, window=5),
    "Rolling(panes)": lambda m: sm.Rolling(m, window=6, panes=3),
    "Decayed": lambda m: sm.Decayed(m, half_life=4),
    "MinMax": sm.MinMax,
    "MetricTracker": lambda m: sm.MetricTracker(m, maximize=True),
    "MetricCollection": lambda m: sm.MetricCollection({"a": m}),
    "MetricCollection(two)": lambda m: sm.MetricCollection({"a": m, "b": m.empty_like()}),
}


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("case", SCALAR_ROW_CASES, ids=str)
def test_one_row_at_a_time_through_a_wrapper_equals_one_batch(case: LawCase, wrapper: str) -> None:
    wrap = WRAPPERS[wrapper]
    try:
        rows, batch = wrap(case.make()), wrap(case.make())
    except ValueError:  # a combination refused when built (tested with the wrapper)
        return
    data = case.batch(np.random.default_rng(4), max(9, case.min_rows))
    batch.update(*data)
    for i in range(len(data[0])):
        row = row_of(data, i)
        if i % 2:
            rows.update(*row)
        else:
            feed_row_one(rows, row)
    where = f"{case.name} in {wrapper}"
    assert_same(
        plain_value(quiet_compute(rows)),
        plain_value(quiet_compute(batch)),
        rtol=max(case.rtol, 1e-9),
        atol=max(case.atol, 1e-12),
        where=where,
    )
    assert rows.n_samples == batch.n_samples, where


@pytest.mark.parametrize(
    "wrap",
    [
        lambda m: sm.Rolling(m, window=5),
        lambda m: sm.Decayed(m, half_life=3),
        sm.MinMax,
        lambda m: sm.MetricTracker(m, maximize=True),
        lambda m: sm.Bootstrap(m, n_replicates=3, seed=0),
    ],
)
def test_a_wrapper_counts_its_arguments(wrap):
    """Two positional arguments to a wrapper of one-value rows: InputError naming the arguments
    (a TypeError from the inner signature before); a scalar pair is not taken for a row."""
    for args in (([1.5], [2.0]), (1.5, 2.0)):
        metric = wrap(sm.Mean())
        with pytest.raises(
            sm.InputError, match=r"expected 1 argument\(s\) \(values; sample_weight= by name\)"
        ):
            metric.update(*args)
        assert metric.n_samples == 0
    assert wrap(sm.Mean()).update([1.5], sample_weight=[2.0]).n_samples == 1
