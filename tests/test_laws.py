"""The laws of API.md sections 1 and 2, written once and run over every law case of every family.

Besides splits, merges, weights and round trips: ``state.check()`` holds after every change, rows
fed one at a time (as scalars too, through the row buffer) equal one batch, an update that raises
leaves the state byte-identical, and bounds hold the exact value.

Hypothesis draws the data seed and the batch sizes; each family lists its accumulators in
``tests/law_cases/``. A new metric is tested by being listed there.
"""

from __future__ import annotations

import math
import os
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core.onerow import update_one
from tests.helpers import assert_same, plain_value, quiet_compute
from tests.law_cases import LawCase, all_cases, concat, take

CASES = all_cases()
#: Examples per case for the laws of API.md: 6 keeps the suite (about 330 cases, some 2,000
#: examples per law) within the test command's time budget; ``STREAMMETRICS_LAW_EXAMPLES=100
#: pytest tests/test_laws.py`` searches deeper (the issue-14 laws below take a third of it).
EXAMPLES = int(os.environ.get("STREAMMETRICS_LAW_EXAMPLES", "6"))
LAW_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


#: The laws of issue #14: fewer examples (each tries many inputs), and a failure is reported as
#: found (its batches are small already): shrinking one cost about a minute per case.
def few(n: int) -> settings:
    return settings(
        max_examples=max(n, EXAMPLES // 3),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )


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


def applies(case: LawCase, law: str) -> None:
    """Skip ``law`` for ``case`` where the case marks it not applicable (with the reason)."""
    why = case.not_applicable.get(law)
    if why is not None:
        pytest.skip(f"{law} does not apply to {case.name}: {why}")


def test_not_applicable_names_laws():
    laws = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    for case in CASES:
        assert set(case.not_applicable) <= laws, (
            f"{case.name}: unknown laws {set(case.not_applicable) - laws}"
        )
        assert all(case.not_applicable.values()), f"{case.name}: every exemption needs its reason"


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
    applies(case, "split_invariance_and_merge_is_concatenation")
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
    applies(case, "merge_associative_commutative_with_identity")
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
    applies(case, "integer_weight_is_repetition_and_zero_weight_is_removal")
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
    applies(case, "revert_undoes_update")
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
    applies(case, "round_trips_keep_merging")
    first, *rest = batches(case, seed, ns)
    m = fed(case, first)
    # the references never went through a round trip, and are computed once for the five paths
    whole = fed(case, first, *rest)
    merged = fed(case, first, *rest, first) if "ordered" in case.tags else whole + m
    m_value, whole_value, merged_value = quiet_compute(m), quiet_compute(whole), quiet_compute(merged)
    for restored in (
        sm.from_bytes(m.to_bytes()),
        sm.from_state_dict(m.state_dict()),
        type(m).from_bytes(m.to_bytes()),
        pickle.loads(pickle.dumps(m)),
        m.copy(),
    ):
        assert type(restored) is type(m)
        for value, expected, where in (
            (quiet_compute(restored), m_value, "round trip"),
            (quiet_compute(_updated(restored, rest)), whole_value, "round trip then update"),
            (quiet_compute(restored + m), merged_value, "round trip then merge"),
        ):
            assert_same(value, expected, rtol=case.rtol, atol=case.atol, exact=case.exact, where=where)


def _updated(m: sm.Metric, parts: list[tuple]) -> sm.Metric:
    for part in parts:
        m.update(*part)
    return m


@pytest.mark.parametrize("case", [c for c in CASES if c.reference is not None], ids=str)
@LAW_SETTINGS
@given(seed=seeds, ns=sizes, weighted=st.booleans())
def test_agrees_with_reference(case: LawCase, seed: int, ns: list[int], weighted: bool) -> None:
    applies(case, "agrees_with_reference")
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
@few(3)
@given(seed=seeds, ns=sizes)
def test_call_returns_batch_value_and_accumulates(case: LawCase, seed: int, ns: list[int]) -> None:
    applies(case, "call_returns_batch_value_and_accumulates")
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


# ----------------------------------------------------------------------------- state invariants
def checked(m: sm.Metric, where: str) -> None:
    try:
        m.state.check()
    except sm.StateError as err:
        raise AssertionError(f"{where}: state.check() failed: {err}") from None


@pytest.mark.parametrize("case", CASES, ids=str)
@few(5)
@given(seed=seeds, ns=sizes)
def test_state_check_holds_after_every_change(case: LawCase, seed: int, ns: list[int]) -> None:
    applies(case, "state_check_holds_after_every_change")
    parts = batches(case, seed, ns)
    m = case.make()
    checked(m, "empty")
    for part in parts:
        checked(m.update(*part), "update")
    other = fed(case, *reversed(parts))
    checked(m.merge(other), "merge")
    checked(other, "merged operand")
    if m.is_revertible:
        for part in parts:
            checked(m.revert(*part), "revert")
    checked(sm.from_bytes(m.to_bytes()), "from_bytes(to_bytes())")
    checked(sm.from_state_dict(m.state_dict()), "from_state_dict(state_dict())")


# ----------------------------------------------------------------------------- past the float range
def _scaled(batch: tuple, factor: float) -> tuple:
    """``batch`` with its float arrays times ``factor`` (labels, counts and weights as they are)."""
    return tuple(
        np.asarray(a) * factor if np.asarray(a).dtype.kind == "f" and np.ndim(a) else a for a in batch
    )


def _takes_floats(case: LawCase) -> bool:
    batch = case.batch(np.random.default_rng(0), max(2, case.min_rows))
    return any(np.ndim(a) and np.asarray(a).dtype.kind == "f" for a in batch)


#: Factors that take float inputs past the float range: squares (1e154), sums of squares
#: (1e300), sums and differences of the values themselves (1e307).
HUGE = st.sampled_from([1e154, 1e300, 1e307])


@pytest.mark.parametrize("case", [c for c in CASES if _takes_floats(c)], ids=str)
@few(3)
@given(seed=seeds, ns=st.lists(st.integers(1, 20), min_size=2, max_size=2), factor=HUGE)
def test_overflowed_state_loads_and_refuses_revert(
    case: LawCase, seed: int, ns: list[int], factor: float
) -> None:
    """Finite inputs whose statistics overflow (of both signs, merged): the state is what the
    arithmetic leaves (inf; NaN where overflows of both signs met), saves and loads to the same
    bytes and value, and a revert, no longer exact, is refused and changes nothing."""
    applies(case, "overflowed_state_loads_and_refuses_revert")
    first, then = batches(case, seed, ns)
    m, other = case.make(), case.make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's overflow warnings
        taken = []
        for acc, part in ((m, _scaled(first, factor)), (other, _scaled(then, -factor))):
            try:
                acc.update(*part)
                taken.append(part)
            except sm.InputError:  # refused (a log of a huge value, a value past 1.8e308): fine
                pass
        m.merge(other)
        saved = m.to_bytes()
        for restored in (sm.from_bytes(saved), sm.from_state_dict(m.state_dict())):
            checked(restored, "restored")
            assert restored.to_bytes() == saved
            assert_same(
                quiet_compute(restored), quiet_compute(m), rtol=case.rtol, atol=case.atol, where="restored"
            )
        if m.is_revertible and m.state.overflowed() and taken:
            with pytest.raises(sm.InputError, match="overflowed"):
                m.revert(*taken[0])
            assert m.to_bytes() == saved


#: Common factors of the weights, from tiny (products of weighted counts underflow) to the
#: largest a batch takes (2^255 in all); whole ones beyond 2^53 among them.
WEIGHT_FACTORS = st.sampled_from([1e-300, 1e-150, 1e-60, 1e-9, 1e9, 1e20, 1e60])


@pytest.mark.parametrize("case", [c for c in CASES if c.weights], ids=str)
@few(3)
@given(seed=seeds, n=st.integers(1, 25), factor=WEIGHT_FACTORS)
def test_compute_never_raises_whatever_the_weights(case: LawCase, seed: int, n: int, factor: float) -> None:
    """API.md: ``compute()`` never raises. Weights of any scale the update takes give a value
    (NaN where one is undefined, e.g. pair counts of frequency weights below 1), and the state
    saves and loads."""
    applies(case, "compute_never_raises_whatever_the_weights")
    (batch,) = batches(case, seed, [n])
    w = np.random.default_rng(seed).uniform(0.5, 2.0, len(batch[0])) * factor
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            m = case.make().update(*batch, sample_weight=w)
        except sm.InputError:
            return  # refused (a total weight beyond 2^255)
        value = quiet_compute(m)
        restored = sm.from_bytes(m.to_bytes())
        assert_same(quiet_compute(restored), value, rtol=case.rtol, atol=case.atol, where="restored")


# ----------------------------------------------------------------------------- one row at a time
def _takes_scalar_rows(case: LawCase) -> bool:
    """Whether the case takes rows one at a time: two or three arguments, each row of them
    scalars (labels, scores, values) or one point and its label (internal clustering indices)."""
    batch = case.batch(np.random.default_rng(0), max(2, case.min_rows))
    dims = [np.ndim(a) for a in batch]
    return dims in ([1], [1, 1], [1, 1, 1], [2, 1])


def row_of(batch: tuple, i: int, python: bool = True) -> tuple:
    """Row ``i`` of a batch: Python scalars (a point as a list of floats), or NumPy values."""
    return tuple(np.asarray(a)[i].tolist() if python else np.asarray(a)[i] for a in batch)


def feed_row_one(m: sm.Metric, row: tuple, w: Any = None) -> Any:
    """``update_one``: the metric's own (three-label rows), else the generic function."""
    if len(row) in (1, 3):  # one value (the aggregators), or three labels
        return m.update_one(*row, w)
    return update_one(m, *row, w)


SCALAR_ROW_CASES = [case for case in CASES if _takes_scalar_rows(case)]


@pytest.mark.parametrize("case", CASES, ids=str)
@few(5)
@given(seed=seeds, n=st.integers(1, 12))
def test_one_row_batches_equal_one_batch(case: LawCase, seed: int, n: int) -> None:
    applies(case, "one_row_batches_equal_one_batch")
    (batch,) = batches(case, seed, [n])
    whole = fed(case, batch)
    rows = fed(case, *(take(batch, [i]) for i in range(len(batch[0]))))
    same(case, rows, whole, "one-row batches")
    assert rows.n_samples == whole.n_samples


@pytest.mark.parametrize("case", SCALAR_ROW_CASES, ids=str)
@few(3)
@given(seed=seeds, n=st.integers(2, 12))
def test_scalar_rows_equal_one_batch(case: LawCase, seed: int, n: int) -> None:
    """Rows as Python scalars, NumPy scalars and through ``update_one`` (the buffered row path),
    read in the middle of the stream, copied and pickled while rows wait in the buffer."""
    applies(case, "scalar_rows_equal_one_batch")
    (batch,) = batches(case, seed, [n])
    y = batch[0]
    half = len(y) // 2
    feeders = {
        "Python scalars": lambda m, i: m.update(*row_of(batch, i)),
        "NumPy scalars": lambda m, i: m.update(*row_of(batch, i, python=False)),
        "update_one": lambda m, i: feed_row_one(m, row_of(batch, i, python=False)),
    }
    whole = fed(case, batch)
    for how, feed in feeders.items():
        streams = [case.make() for _ in range(3)]
        for m in streams:
            for i in range(half):
                feed(m, i)
        m, copied, pickled = streams  # copies taken while rows wait in the buffer
        twins = {"copy": copied.copy(), "pickle": pickle.loads(pickle.dumps(pickled))}
        same(case, m, fed(case, take(batch, slice(0, half))), f"{how}: read after {half} rows")
        for i in range(half, len(y)):
            for twin in (m, *twins.values()):
                feed(twin, i)
        same(case, m, whole, how)
        assert m.n_samples == whole.n_samples, how
        checked(m, how)
        for name, twin in twins.items():
            same(case, twin, whole, f"{how}: {name} taken in the middle")


# ----------------------------------------------------------------------------- refused updates
def _poisoned(a: Any, value: Any) -> np.ndarray:
    """``a`` with its first entry replaced by ``value`` (in float when both are numeric)."""
    numeric = np.asarray(a).dtype.kind in "biuf" and isinstance(value, float)
    out = np.array(a, dtype=float if numeric else object)
    out.flat[0] = value
    return out


def bad_batches(batch: tuple) -> dict[str, tuple[tuple, dict[str, Any]]]:
    """Malformed variants of a valid batch: ``{what: (args, keyword arguments)}``."""
    n = len(batch[0])
    out: dict[str, tuple[tuple, dict[str, Any]]] = {
        "a negative weight": (batch, {"sample_weight": _poisoned(np.ones(n), -1.0)}),
        "a NaN weight": (batch, {"sample_weight": _poisoned(np.ones(n), np.nan)}),
        "weights all below 2^-255": (batch, {"sample_weight": np.full(n, 1e-80)}),
    }
    if len(batch) == 1:  # one argument (the aggregators' values, per-subject ratings)
        (x,) = batch
        out["NaN in the values"] = ((_poisoned(x, np.nan),), {})
        out["inf in the values"] = ((_poisoned(x, np.inf),), {})
        out["a weight too few"] = (batch, {"sample_weight": np.ones(n - 1)})
    if len(batch) > 1:  # (a one-argument batch, e.g. per-subject ratings, has no second argument)
        y, p, *more = batch
        out["NaN in the second argument"] = ((y, _poisoned(p, np.nan), *more), {})
        out["inf in the second argument"] = ((y, _poisoned(p, np.inf), *more), {})
        out["a length mismatch"] = ((y, np.asarray(p)[:-1], *more), {})
    for k in range(len(batch)):
        for what, bad in (
            ("1e20 in", _poisoned(batch[k], 1e20)),  # a label beyond int64, a valid number
            ("10**400 in", _poisoned(batch[k], 10**400)),
            ("a 3-D array as", np.asarray(batch[k]).reshape(n, 1, -1)),
            ("strings as", np.full(n, "x")),
            ("None as", None),
        ):
            out[f"{what} argument {k}"] = ((*batch[:k], bad, *batch[k + 1 :]), {})
    return out


#: Values a row may not hold (some are valid for some metrics: then nothing is asserted).
BAD_SCALARS = {"NaN": math.nan, "inf": math.inf, "None": None, "'x'": "x", "10**400": 10**400, "1e20": 1e20}


def bad_rows(*row: Any) -> dict[str, tuple[tuple, Any]]:
    """Malformed one-row updates next to a valid row: ``{what: (row, w)}``; a bad value in
    each place (in each coordinate of a point), and bad weights."""
    out: dict[str, tuple[tuple, Any]] = {}
    for name, bad in BAD_SCALARS.items():
        for k, value in enumerate(row):
            if isinstance(value, list):  # a point: one bad coordinate, and a bad point
                out[f"row with {name} in point {k}"] = ((*row[:k], [bad, *value[1:]], *row[k + 1 :]), None)
            out[f"row with {name} in place {k}"] = ((*row[:k], bad, *row[k + 1 :]), None)
    out["row with weight -1"] = (row, -1.0)
    out["row with weight NaN"] = (row, math.nan)
    return out


def refused(update: Callable[[], Any], where: str) -> bool:
    """Run a bad update: ``False`` when it is accepted; ``True`` when it raises InputError."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            update()
    except sm.InputError:
        return True
    except Exception as err:  # API.md: a bad batch raises InputError, nothing else
        raise AssertionError(f"{where}: raised {type(err).__name__} ({err}), not InputError") from err
    return False


@pytest.mark.parametrize("case", CASES, ids=str)
@few(3)
@given(seed=seeds, ns=st.lists(st.integers(1, 20), min_size=2, max_size=2))
def test_refused_update_leaves_state_byte_identical(case: LawCase, seed: int, ns: list[int]) -> None:
    applies(case, "refused_update_leaves_state_byte_identical")
    first, then = batches(case, seed, ns)
    base = fed(case, first)
    before, n_before = base.to_bytes(), base.n_samples
    expected = fed(case, first, then).to_bytes()
    attempts: dict[str, Callable[[sm.Metric], Any]] = {
        what: (lambda m, args=args, kw=kw: m.update(*args, **kw))
        for what, (args, kw) in bad_batches(first).items()
    }
    if case in SCALAR_ROW_CASES:
        for what, (args, w) in bad_rows(*row_of(first, 0)).items():
            attempts[f"update {what}"] = lambda m, args=args, w=w: m.update(*args, sample_weight=w)
            attempts[f"update_one {what}"] = lambda m, args=args, w=w: feed_row_one(m, args, w)
    for what, attempt in attempts.items():
        m = base.copy()
        if not refused(lambda m=m, attempt=attempt: attempt(m), what):
            continue
        assert m.n_samples == n_before, what
        assert m.to_bytes() == before, f"{what}: the state changed"
        assert m.update(*then).to_bytes() == expected, f"{what}: a valid batch after it"


@pytest.mark.parametrize("case", SCALAR_ROW_CASES, ids=str)
@few(3)
@given(seed=seeds, n=st.integers(1, 8))
def test_refused_row_loses_no_buffered_row(case: LawCase, seed: int, n: int) -> None:
    """Valid rows wait in the row buffer; a bad row then is refused (or kept): none is lost."""
    applies(case, "refused_row_loses_no_buffered_row")
    (batch,) = batches(case, seed, [n])
    rows = [row_of(batch, i) for i in range(len(batch[0]))]
    valid = fed(case, batch)
    for what, (args, w) in bad_rows(*rows[0]).items():
        m = case.make()
        for row in rows:
            m.update(*row)
        if refused(lambda m=m, args=args, w=w: m.update(*args, sample_weight=w), what):
            assert m.n_samples == valid.n_samples, f"{what}: buffered rows lost"  # (a window holds fewer)
            same(case, m, valid, f"{what}: the buffered rows")
        else:  # accepted: it must be applied like any other row, reading raises nothing
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.compute()
            assert m.n_samples == min(len(rows) + 1, getattr(m, "window", len(rows) + 1)), (
                f"{what}: rows lost"
            )


# ----------------------------------------------------------------------------- bounds
def _undefined_on_error(fn: Callable[..., Any]) -> Callable[..., Any]:
    def ref(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return fn(*args, **kwargs)
            except ValueError:  # one class only: scikit-learn refuses, the metric returns NaN
                return math.nan

    return ref


def sklearn_reference(metric: sm.Metric) -> Callable[..., Any] | None:
    """scikit-learn's function of the same meaning, configured as ``metric`` is."""
    cfg = metric.get_config()

    def no_positives(y: Any) -> bool:
        pos = 1 if cfg["pos_label"] is None else cfg["pos_label"]  # None: 1, for labels in {0, 1}
        return np.ndim(y) == 1 and not np.any(np.asarray(y) == pos)

    if isinstance(metric, sm.ROCAUC):
        return _undefined_on_error(
            lambda y, s, sample_weight=None: skm.roc_auc_score(
                y,
                s,
                sample_weight=sample_weight,
                average=cfg["average"],
                multi_class=cfg["multi_class"],
                max_fpr=cfg["max_fpr"],
            )
        )
    if isinstance(metric, sm.AveragePrecision):  # no positives: NaN here, 0 in scikit-learn
        return _undefined_on_error(
            lambda y, s, sample_weight=None: (
                math.nan
                if no_positives(y)
                else skm.average_precision_score(
                    y, s, sample_weight=sample_weight, average=cfg["average"], pos_label=cfg["pos_label"]
                )
            )
        )
    if isinstance(metric, sm.ROCCurve):
        return _undefined_on_error(
            lambda y, s, sample_weight=None: dict(
                zip(
                    ("fpr", "tpr"),
                    skm.roc_curve(
                        y, s, sample_weight=sample_weight, pos_label=cfg["pos_label"], drop_intermediate=False
                    )[:2],
                    strict=True,
                )
            )
        )
    if isinstance(metric, sm.PRCurve):
        return _undefined_on_error(
            lambda y, s, sample_weight=None: (
                math.nan
                if no_positives(y)
                else dict(
                    zip(
                        ("precision", "recall"),
                        skm.precision_recall_curve(
                            y, s, sample_weight=sample_weight, pos_label=cfg["pos_label"]
                        )[:2],
                        strict=True,
                    )
                )
            )
        )
    return None


def bounds_reference(case: LawCase) -> Callable[..., Any] | None:
    """The exact value bounds must hold: the case's reference, else scikit-learn's function."""
    return case.reference or sklearn_reference(case.make())


#: The cases whose metric reports bounds. Left out: the sampled clustering indices (no
#: reference): their ``bounds()`` is a normal-approximation confidence interval, which misses
#: the exact value now and then by design; tests/clustering checks its coverage.
BOUNDED_CASES = [c for c in CASES if hasattr(c.make(), "bounds") and bounds_reference(c) is not None]

#: A curve's axes: the staircase bounds enclose ``y`` as a function of ``x``.
CURVE_AXES = (("fpr", "tpr"), ("recall", "precision"), ("fpr", "fnr"))


def assert_between_staircases(exact: dict, low: dict, high: dict, tol: float, where: str) -> None:
    """Each point of the exact curve lies between the two staircase curves.

    Around an exact point at ``x``, take the nearest staircase abscissae ``x_a <= x <= x_b``:
    the exact ``y`` is at least the lowest ``y`` of the low staircase on ``[x_a, x_b]`` and at
    most the highest ``y`` of the high staircase there.
    """
    xk, yk = next(axes for axes in CURVE_AXES if axes[0] in exact and axes[1] in exact)
    steps = np.unique(np.concatenate([low[xk], high[xk]]))
    for x, y in zip(np.asarray(exact[xk], float), np.asarray(exact[yk], float), strict=True):
        if not (np.isfinite(x) and np.isfinite(y)):
            continue  # an undefined rate: nothing to enclose
        x_a, x_b = steps[steps <= x + tol].max(), steps[steps >= x - tol].min()
        in_low = (low[xk] >= x_a - tol) & (low[xk] <= x_b + tol)
        in_high = (high[xk] >= x_a - tol) & (high[xk] <= x_b + tol)
        floor, ceiling = np.min(low[yk][in_low]), np.max(high[yk][in_high])
        assert floor - tol <= y <= ceiling + tol, f"{where}: ({x}, {y}) outside [{floor}, {ceiling}]"


@pytest.mark.parametrize("case", BOUNDED_CASES, ids=str)
@few(5)
@given(seed=seeds, ns=sizes, weighted=st.booleans())
def test_bounds_hold_the_exact_value(case: LawCase, seed: int, ns: list[int], weighted: bool) -> None:
    parts = batches(case, seed, ns)
    whole = concat(parts)
    if len(whole[0]) < case.min_rows:
        return
    w = np.random.default_rng(seed).uniform(0.5, 2.0, len(whole[0])) if weighted and case.weights else None
    m = fed(case, whole, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high = m.bounds()
        exact = plain_value(bounds_reference(case)(*whole, sample_weight=w))
    if isinstance(exact, dict) and "value" in exact:  # an operating point: (value, threshold)
        exact = exact["value"]
    if isinstance(exact, dict):
        assert_between_staircases(exact, plain_value(low), plain_value(high), 1e-12, case.name)
        return
    if np.ndim(exact):  # per-class values: each within its bounds
        exact, low, high = (np.asarray(x, dtype=float) for x in (exact, low, high))
        tol = case.atol + case.rtol * np.abs(exact)
        undefined = np.isnan(exact)
        assert np.isnan(low[undefined]).all() and np.isnan(high[undefined]).all(), case.name
        d = ~undefined
        assert np.all((low[d] - tol[d] <= exact[d]) & (exact[d] <= high[d] + tol[d])), (
            f"{case.name}: {exact} outside [{low}, {high}]"
        )
        return
    exact = float(exact)
    if np.isnan(exact):
        assert np.isnan(low) and np.isnan(high), f"undefined value, bounds ({low}, {high})"
        return
    tol = case.atol + case.rtol * abs(exact)
    assert low - tol <= exact <= high + tol, f"{case.name}: {exact} outside [{low}, {high}]"


# ----------------------------------------------------------------------------- labels beyond int64
#: Integers no int64 label can hold, in every form a caller may pass them.
BEYOND_INT64 = {
    "2**63": 2**63,
    "-2**63 - 1": -(2**63) - 1,
    "10**30": 10**30,
    "np.uint64(2**63)": np.uint64(2**63),
    "1e20": 1e20,
    "-1e19": -1e19,
}


def _label_arguments(batch: tuple) -> list[int]:
    """The positions of the 1-D integer arguments: class or cluster labels (2-D 0/1 indicators
    are refused as not 0/1 by the ordinary checks)."""
    return [k for k, a in enumerate(batch) if np.asarray(a).dtype.kind in "iu" and np.ndim(a) == 1]


def _with_label(a: Any, value: Any) -> np.ndarray:
    """``a`` with its first entry ``value``, in the array a caller would build for it."""
    if isinstance(value, np.uint64):
        return np.concatenate([[value], np.asarray(a).ravel()[1:].astype(np.uint64)]).reshape(np.shape(a))
    out = np.array(a, dtype=float if isinstance(value, float) else object)
    out.flat[0] = value
    return out


@pytest.mark.parametrize(
    "case", [c for c in CASES if _label_arguments(c.batch(np.random.default_rng(0), 4))], ids=str
)
def test_labels_beyond_int64_are_refused_on_every_path(case: LawCase) -> None:
    """Never wrapped, never an OverflowError: InputError naming the argument and the value, the
    state unchanged; in batches (lists, uint64, float and object arrays) and one row at a time."""
    batch = case.batch(np.random.default_rng(1), max(4, case.min_rows))
    base = fed(case, batch)
    before = base.to_bytes()
    attempts: dict[str, tuple[str, Callable[[sm.Metric], Any]]] = {}
    for k in _label_arguments(batch):
        roles = getattr(case.make(), "roles", ())
        name = roles[k] if k < len(roles) else ""
        for what, value in BEYOND_INT64.items():
            args = (*batch[:k], _with_label(batch[k], value), *batch[k + 1 :])
            attempts[f"batch with {what} in argument {k}"] = (name, lambda m, args=args: m.update(*args))
            listed = (*batch[:k], [value, *np.asarray(batch[k])[1:].tolist()], *batch[k + 1 :])
            attempts[f"list with {what} in argument {k}"] = (name, lambda m, args=listed: m.update(*args))
            if case in SCALAR_ROW_CASES:
                row = list(row_of(batch, 0))
                row[k] = value
                attempts[f"row with {what} in argument {k}"] = (name, lambda m, row=row: m.update(*row))
                attempts[f"update_one with {what} in argument {k}"] = (
                    name,
                    lambda m, row=row: feed_row_one(m, tuple(row)),
                )
    assert attempts
    for what, (name, attempt) in attempts.items():
        m = base.copy()
        with pytest.raises(sm.InputError, match="int64") as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                attempt(m)
        assert str(info.value).startswith(name), f"{what}: {info.value} does not name {name!r}"
        assert m.to_bytes() == before, f"{what}: the state changed"
