"""The per-row value state's compensated totals (``RowSums``) against exact arithmetic, and its
few-columns path (Python floats) against its array path, byte for byte."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import streammetrics as sm
from streammetrics.aggregation import state as row_state
from streammetrics.aggregation.state import RowSums
from streammetrics.errors import StateError


def _integer_batches(rng: np.random.Generator, k: int, n_batches: int) -> list[np.ndarray]:
    """Batch sums that plain float addition gets wrong: integers up to 2**60 with cancellations
    (each is a float64 exactly, so their exact sum is an integer)."""
    big = rng.integers(-(2**60), 2**60, (n_batches, k)).astype(np.float64)
    small = rng.integers(-1000, 1000, (n_batches, k)).astype(np.float64)
    batches = np.where(rng.random((n_batches, k)) < 0.5, big, small)
    batches[-1] = -batches[:-1].sum(axis=0)  # (a large cancellation at the end)
    return list(batches)


def _exact(total_pair: np.ndarray) -> list[Fraction]:
    hi, lo = total_pair
    return [Fraction(a) + Fraction(b) for a, b in zip(hi.tolist(), lo.tolist(), strict=True)]


@pytest.mark.parametrize("k", [1, 2, 8, 9])
def test_totals_are_exact_for_batch_sums_that_plain_addition_rounds(k: int) -> None:
    rng = np.random.default_rng(k)
    batches = _integer_batches(rng, k, 40)
    s = RowSums()
    for b in batches:
        s.add_sums(b, 3.0, 3, k)
    want = [sum(Fraction(int(x)) for x in column) for column in np.array(batches).T]
    assert _exact(s.sums) == want
    assert s.total_weight == 3.0 * len(batches) and s.n_samples == 3 * len(batches)


@pytest.mark.parametrize("k", [1, 3, 9])
def test_reverting_every_batch_but_one_leaves_that_batch(k: int) -> None:
    rng = np.random.default_rng(10 + k)
    batches = _integer_batches(rng, k, 30)
    s = RowSums()
    for b in batches:
        s.add_sums(b, 2.0, 2, k)
    for i in rng.permutation(len(batches) - 1) + 1:  # any order
        s.add_sums(batches[i], 2.0, 2, k, sign=-1)
    assert _exact(s.sums) == [Fraction(x) for x in batches[0].tolist()]
    assert s.total_weight == 2.0 and s.n_samples == 2


@pytest.mark.parametrize("k", [1, 2, 5])
def test_the_few_columns_path_is_the_array_path_byte_for_byte(
    k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state of up to ``_FLOAT_COLUMNS`` columns adds its pairs as Python floats: the same IEEE
    operations in the same order as the array path, so the same bytes; totals that overflow to
    inf (the array rule) included."""
    rng = np.random.default_rng(20 + k)
    steps = [
        (rng.standard_normal(k) * 10.0 ** rng.integers(-20, 20, k), float(rng.uniform(0, 5)), sign)
        for sign in rng.choice([1, 1, 1, -1], 200)
    ]
    first_only = np.where(np.arange(k) == 0, 1e308, 1.0)
    steps += [(first_only, 1.0, 1), (first_only, 1.0, 1), (first_only, 1.0, 1)]  # the first overflows

    def run() -> list[bytes]:
        s, out = RowSums(), []
        s.add_sums(np.ones(k), 1.0, 1, k)
        for batch, total, sign in steps:
            s.add_sums(batch, total, 1, k, sign=sign)
            out.append(s.sums.tobytes() + s.weight.tobytes())
        return out

    few = run()
    monkeypatch.setattr(row_state, "_FLOAT_COLUMNS", 0)
    assert run() == few
    totals = np.frombuffer(few[-1][: 16 * k]).reshape(2, k).sum(axis=0)
    assert totals[0] == np.inf and np.isfinite(totals[1:]).all()  # (inf, as plain addition says)


def test_integer_batch_sums_add_as_their_float_values() -> None:
    """Counts (an int64 batch, as a metric of indicators gives) add as their float values."""
    a, b = RowSums(), RowSums()
    for x in ([3, 2**53 + 1], [5, -7]):
        a.add_sums(np.array(x, dtype=np.int64), 1.0, 1, 2)
        b.add_sums(np.array(x, dtype=np.float64), 1.0, 1, 2)
    assert a.to_dict()["sums"].tobytes() == b.to_dict()["sums"].tobytes()


def test_an_overflowing_total_is_inf_as_numpy_sums_it() -> None:
    with np.errstate(over="ignore"):
        want = np.sum([1e308, 1e308])
        assert sm.Sum().update([1e308]).update([1e308]).compute() == want == np.inf
        assert sm.Mean().update([1e308, 1e308]).compute() == np.inf
        assert sm.Sum().update([1e308]).update([1e308]).update([-1.0]).compute() == np.inf


def test_an_overflowed_state_loads_and_a_compensated_one_is_refused() -> None:
    with np.errstate(over="ignore"):
        m = sm.Sum().update([1e308]).update([1e308])
    assert sm.Sum.from_bytes(m.to_bytes()).compute() == np.inf  # saved after overflow: loads
    with np.errstate(over="ignore", invalid="ignore"):  # totals of inf and -inf merged: NaN
        both = m + sm.Sum().update([-1e308]).update([-1e308])
    assert np.isnan(both.compute())
    assert np.isnan(sm.Sum.from_bytes(both.to_bytes()).compute())
    for row, value in ((1, np.nan), (1, 1.0), (1, np.inf)):  # a compensation beside an overflow
        data = m.state_dict()
        sums = np.array(data["state"]["sums"], dtype=np.float64)
        sums[row, 0] = value
        data["state"] = {**data["state"], "sums": sums}
        with pytest.raises(StateError, match="sums"):
            sm.Sum.from_state_dict(data)
