"""The laws of API.md section 1, written once and run over every law case of every family.

Hypothesis draws the data seed and the batch sizes; each family lists its accumulators in
``tests/law_cases/``. A new metric is tested by being listed there.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streammetrics as sm
from tests.helpers import assert_same, plain_value, quiet_compute
from tests.law_cases import LawCase, all_cases, concat, take

CASES = all_cases()
LAW_SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
sizes = st.lists(st.integers(0, 30), min_size=2, max_size=4)
seeds = st.integers(0, 2**32 - 1)


def batches(case: LawCase, seed: int, ns: list[int]) -> list[tuple]:
    rng = np.random.default_rng(seed)
    return [case.batch(rng, n if n == 0 else max(n, case.min_rows)) for n in ns]


def fed(case: LawCase, *parts: tuple, **kw) -> sm.Metric:
    m = case.make()
    for part in parts:
        m.update(*part, **kw)
    return m


def same(case: LawCase, a: sm.Metric, b: sm.Metric, where: str) -> None:
    assert_same(
        quiet_compute(a), quiet_compute(b), rtol=case.rtol, atol=case.atol, exact=case.exact, where=where
    )


def test_every_exported_metric_is_listed():
    """A metric missing from the law table would escape every law: fail instead."""
    exported = {
        name
        for name in sm.__all__
        if isinstance(getattr(sm, name), type)
        and issubclass(getattr(sm, name), sm.Metric)
        and getattr(sm, name) is not sm.Metric
    }
    covered = {type(case.make()).__name__ for case in CASES}
    assert exported - covered == set()


@pytest.mark.parametrize("case", CASES, ids=str)
@LAW_SETTINGS
@given(seed=seeds, ns=sizes)
def test_split_invariance_and_merge_is_concatenation(case: LawCase, seed: int, ns: list[int]) -> None:
    parts = batches(case, seed, ns)
    whole = fed(case, concat(parts))
    same(case, fed(case, *parts), whole, "split")
    merged = sum(fed(case, p) for p in parts)
    same(case, merged, whole, "merge")
    assert merged.n_samples == whole.n_samples
    if "ordered" not in case.tags:  # a window's n_samples is the rows it holds
        assert whole.n_samples == sum(len(p[0]) for p in parts)


@pytest.mark.parametrize("case", CASES, ids=str)
@LAW_SETTINGS
@given(seed=seeds, ns=st.lists(st.integers(0, 30), min_size=3, max_size=3))
def test_merge_associative_commutative_with_identity(case: LawCase, seed: int, ns: list[int]) -> None:
    a, b, c = (fed(case, p) for p in batches(case, seed, ns))
    before = a.state_dict()
    same(case, (a + b) + c, a + (b + c), "associativity")
    if "ordered" not in case.tags:  # windows: a merge means "b's rows came after a's"
        same(case, a + b, b + a, "commutativity")
    same(case, a + case.make(), a, "right identity")
    same(case, case.make() + a, a, "left identity")
    assert_same(a.state_dict()["state"], before["state"], exact=True, where="operands unchanged")


@pytest.mark.parametrize("case", [c for c in CASES if c.weights], ids=str)
@LAW_SETTINGS
@given(seed=seeds, n=st.integers(1, 30), data=st.data())
def test_integer_weight_is_repetition_and_zero_weight_is_removal(
    case: LawCase, seed: int, n: int, data
) -> None:
    (batch,) = batches(case, seed, [n])
    rows = len(batch[0])
    w = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)))
    repeated = take(batch, np.repeat(np.arange(rows), w))
    same(case, fed(case, batch, sample_weight=w), fed(case, repeated), "weights")
    zero = np.where(w == 0, 0.0, 1.0)
    same(case, fed(case, batch, sample_weight=zero), fed(case, take(batch, w > 0)), "zero weight")


@pytest.mark.parametrize("case", CASES, ids=str)
@LAW_SETTINGS
@given(seed=seeds, ns=sizes)
def test_revert_undoes_update(case: LawCase, seed: int, ns: list[int]) -> None:
    m = case.make()
    if not m.is_revertible:
        with pytest.raises(TypeError, match="cannot revert"):
            m.revert(*batches(case, seed, ns)[0])
        return
    first, *rest = batches(case, seed, ns)
    m.update(*first)
    for part in rest:
        m.update(*part)
    for part in reversed(rest):
        m.revert(*part)
    if case.revert_rtol is None:
        same(case, m, fed(case, first), "revert")
    else:
        assert_same(
            quiet_compute(m),
            quiet_compute(fed(case, first)),
            rtol=case.revert_rtol,
            atol=case.atol,
            where="revert",
        )
    assert m.n_samples == fed(case, first).n_samples


@pytest.mark.parametrize("case", CASES, ids=str)
@LAW_SETTINGS
@given(seed=seeds, ns=sizes)
def test_round_trips_keep_merging(case: LawCase, seed: int, ns: list[int]) -> None:
    first, *rest = batches(case, seed, ns)
    m = fed(case, first)
    for restored in (
        sm.from_bytes(m.to_bytes()),
        sm.from_state_dict(m.state_dict()),
        type(m).from_bytes(m.to_bytes()),
        pickle.loads(pickle.dumps(m)),
        m.copy(),
    ):
        assert type(restored) is type(m)
        same(case, restored, m, "round trip")
        for part in rest:
            restored.update(*part)
        same(case, restored, fed(case, first, *rest), "round trip then update")
        if "ordered" in case.tags:
            same(case, restored + m, fed(case, first, *rest, first), "round trip then merge")
        else:
            same(case, restored + m, m + restored, "round trip then merge")


@pytest.mark.parametrize("case", [c for c in CASES if c.reference is not None], ids=str)
@LAW_SETTINGS
@given(seed=seeds, ns=sizes, weighted=st.booleans())
def test_agrees_with_reference(case: LawCase, seed: int, ns: list[int], weighted: bool) -> None:
    parts = batches(case, seed, ns)
    whole = concat(parts)
    if len(whole[0]) < case.min_rows:
        return
    w = None
    if weighted and case.weights:
        w = np.random.default_rng(seed).uniform(0.5, 2.0, len(whole[0]))
    m = case.make()
    offset = 0
    for part in parts:
        n = len(part[0])
        m.update(*part, sample_weight=None if w is None else w[offset : offset + n])
        offset += n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = case.reference(*whole, sample_weight=w)
    assert_same(
        quiet_compute(m),
        expected,
        rtol=case.rtol if w is None else max(case.rtol, 1e-9),
        atol=max(case.atol, 1e-12),
        exact=case.exact and w is None,
        where=case.name,
    )


@pytest.mark.parametrize("case", CASES, ids=str)
@settings(max_examples=10, deadline=None)
@given(seed=seeds, ns=sizes)
def test_call_returns_batch_value_and_accumulates(case: LawCase, seed: int, ns: list[int]) -> None:
    parts = batches(case, seed, ns)
    m = case.make()
    for part in parts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = m(*part)
        assert_same(
            value, quiet_compute(fed(case, part)), rtol=case.rtol, atol=case.atol, where="batch value"
        )
    same(case, m, fed(case, *parts), "accumulated")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_empty_accumulator_warns_and_returns_nan(case: LawCase) -> None:
    m = case.make()
    with pytest.warns(sm.UndefinedMetricWarning):
        value = m.compute()
    if not hasattr(value, "__array__"):  # result objects that read as arrays stay as they are
        value = plain_value(value)
        value = list(value.values()) if isinstance(value, dict) else value
    assert np.isnan(np.asarray(value, dtype=float)).all()
    m.reset()
    assert m.n_samples == 0
