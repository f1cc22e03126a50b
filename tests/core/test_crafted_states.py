"""Crafted states (issue 15): every registered accumulator's valid state dict, mutated by a
catalogue of hostile changes and re-encoded with a valid checksum, loads correctly or raises
``StateError`` at load, never another exception and never a state that breaks later.

A load counts as correct when the loaded state passes ``state.check()``, computes and merges
without an exception, and re-encodes to bytes that load back identically.
"""

from __future__ import annotations

import json
import os
import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streammetrics as sm
from streammetrics._core import serialization
from tests.law_cases import LawCase, all_cases

#: One law case per registered accumulator type (its first, default-like configuration), plus a
#: few configurations whose states hold more fields (multilabel codes, weighted counts).
_BY_TYPE: dict[str, LawCase] = {}
for _case in all_cases():
    _BY_TYPE.setdefault(type(_case.make()).type_name(), _case)
CASES = list(_BY_TYPE.values())
ABSTRACT = ["ConfusionMetric", "RateMetric", "RegressionMetric", "ErrorMetric", "FractionExplained"]
ABSTRACT += ["RankingMetric", "ExternalMetric", "InternalMetric", "MomentsMetric", "SampledMetric"]
ABSTRACT += ["PairwiseMetric", "Metric", "State"]


def _fed(case: LawCase, n: int = 12, seed: int = 0, weighted: bool = False) -> sm.Metric:
    rng = np.random.default_rng(seed)
    m = case.make()
    batch = case.batch(rng, max(n, case.min_rows))
    w = rng.uniform(0.5, 2.0, len(batch[0])) if weighted and case.weights else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.update(*batch, sample_weight=w)
    return m


def test_every_registered_type_is_covered():
    assert set(sm.registered_types()) <= set(_BY_TYPE)


def test_abstract_bases_are_not_registered():
    assert not set(ABSTRACT) & set(sm.registered_types())


# ----------------------------------------------------------------------------- the catalogue
Path = tuple[Any, ...]


def _leaves(tree: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every node of a state dict with its path (dict keys and list indices), the root excluded."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield (*path, key), value
            yield from _leaves(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield (*path, i), value
            yield from _leaves(value, (*path, i))


def _replaced(tree: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    if isinstance(tree, dict):
        return {k: (_replaced(v, tuple(rest), value) if k == head else v) for k, v in tree.items()}
    return [(_replaced(v, tuple(rest), value) if i == head else v) for i, v in enumerate(tree)]


def _deep(depth: int) -> Any:
    out: Any = 0
    for _ in range(depth):
        out = [out]
    return out


#: What replaces any node: junk of every JSON kind, nested junk, huge ints.
JUNK: dict[str, Any] = {
    "None": None,
    "True": True,
    "-1": -1,
    "2**63": 2**63,
    "10**30": 10**30,
    "1.5": 1.5,
    "-1e308": -1e308,
    "'x'": "x",
    "[]": [],
    "{}": {},
    "['x', 1]": ["x", 1],
    "[[1, 2], [3]]": [[1, 2], [3]],
    "nested 500 deep": _deep(500),
}


def _mutations(value: Any) -> Iterator[tuple[str, Any]]:
    """Hostile variants of one node, by kind."""
    yield from JUNK.items()
    if isinstance(value, bool):
        yield "not", not value
    elif isinstance(value, int):
        yield from (("+1", value + 1), ("-1", value - 1), ("negated", -value - 1))
        yield "2**62", 2**62
    elif isinstance(value, float):
        yield "negated", -value - 1.0
        yield "NaN", float("nan")
        yield "inf", float("inf")
    elif isinstance(value, str):
        yield "another string", value + "_"
    elif isinstance(value, list) and value:
        yield "one dropped", value[:-1]
        yield "one repeated", [*value, value[-1]]
        yield "reversed", value[::-1]
    elif isinstance(value, np.ndarray):
        yield from _array_mutations(value)


def _array_mutations(a: np.ndarray) -> Iterator[tuple[str, Any]]:
    flat = a.ravel()
    if a.size:
        for what, v in (("-1", -1), ("2**62", 2**62), ("1e300", 1e300), ("0.5", 0.5)):
            dtype = np.float64 if a.dtype.kind in "fb" or isinstance(v, float) else np.int64
            b = flat.astype(dtype)
            b[0] = v
            yield f"first entry {what}", b.reshape(a.shape)
        if a.dtype.kind in "iuf":
            yield "all entries doubled", a * 2
            yield "last entry +1", np.concatenate([flat[:-1], flat[-1:] + 1]).reshape(a.shape)
        yield "one dropped", flat[:-1]
        yield "reversed", flat[::-1].reshape(a.shape)
        yield "as float", a.astype(np.float64) + 0.25
        yield "as bool", a.astype(bool)
    yield "one appended", np.concatenate([flat, flat[:1] if a.size else np.zeros(1, a.dtype)])
    yield "empty", np.zeros((0,) * max(a.ndim, 1), a.dtype)
    yield "0-d", np.asarray(flat[0] if a.size else 0)
    yield "one more dimension", a[..., None]
    if a.ndim >= 2:
        yield "transposed", a.T.copy()
    if a.dtype.kind in "iu" and a.size:
        yield "wrapping int64 sum", np.concatenate([flat, [2**62, 2**62]]).astype(np.int64)


def _catalogue(d: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(what, mutated state dict)`` for every node of ``d`` and every mutation of it."""
    for name in [*ABSTRACT, "NoSuchMetric", "F1 "]:
        yield f"type {name!r}", {**d, "type": name}
    for what, v in (("0", 0), ("2", 2), ("'1'", "1"), ("10**30", 10**30), ("True", True)):
        yield f"version {what}", {**d, "version": v}
    for path, value in _leaves({"config": d["config"], "state": d["state"]}):
        for what, v in _mutations(value):
            yield f"{'/'.join(map(str, path))} <- {what}", _replaced(d, path, v)


# ----------------------------------------------------------------------------- what loading must do
def _loads_correctly_or_refuses(data: Any, where: str) -> None:
    try:
        m = sm.from_state_dict(data)
    except sm.StateError:
        return
    except Exception as err:
        raise AssertionError(f"{where}: from_state_dict raised {type(err).__name__}: {err}") from err
    try:
        m.state.check()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.compute()
            if 2 * m.n_samples <= 2**63 - 1:
                (m + m).compute()
            else:  # more rows in all than int64 counts hold: refused
                with pytest.raises(sm.MergeError, match="n_samples"):
                    m.copy().merge(m)
        again = sm.from_bytes(m.to_bytes())
        assert again.to_bytes() == m.to_bytes(), "re-encoding changed the state"
    except Exception as err:
        raise AssertionError(f"{where}: loaded, then {type(err).__name__}: {err}") from err


def _via_bytes(data: dict[str, Any], where: str) -> None:
    """The same mutated dict, as bytes with a valid checksum (JSON cannot hold every Python value:
    those are forged as raw JSON)."""
    try:
        raw = serialization.encode(data)
    except (TypeError, ValueError, RecursionError):
        return  # not representable: the dict path covers it
    try:
        m = sm.from_bytes(raw)
    except sm.StateError:
        return
    except Exception as err:
        raise AssertionError(f"{where}: from_bytes raised {type(err).__name__}: {err}") from err
    _loads_correctly_or_refuses(m.state_dict(), where + " (reloaded)")


#: The whole catalogue is ~100,000 loads (minutes): the suite draws a sample per type, and
#: ``STREAMMETRICS_FULL_CATALOGUE=1`` runs all of it.
FULL = os.environ.get("STREAMMETRICS_FULL_CATALOGUE") == "1"


@pytest.mark.parametrize("case", CASES, ids=lambda c: type(c.make()).type_name())
@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), weighted=st.booleans())
def test_every_mutation_of_a_valid_state_loads_correctly_or_raises_state_error(
    case: LawCase, seed: int, weighted: bool
) -> None:
    d = _fed(case, seed=seed % 1000, weighted=weighted).state_dict()
    _loads_correctly_or_refuses(d, "the valid state")
    catalogue = list(_catalogue(d))
    if not FULL:
        catalogue = random.Random(seed).sample(catalogue, min(len(catalogue), 16))
    for what, mutated in catalogue:
        _loads_correctly_or_refuses(mutated, what)
        _via_bytes(mutated, what)


# ----------------------------------------------------------------------------- the named cases
def _forged(tree: Any, arrays: list[Any] | None = None, payload: bytes = b"") -> bytes:
    """Bytes with a valid checksum around any JSON header (what an attacker can write)."""
    return serialization.frame(json.dumps({"tree": tree, "arrays": arrays or []}).encode(), payload)


def _refused(data: Any, match: str) -> None:
    load = sm.from_bytes if isinstance(data, bytes) else sm.from_state_dict
    with pytest.raises(sm.StateError, match=match):
        load(data)


def test_negative_counts_and_wrong_n_samples_are_refused_at_load():
    d = sm.LogLoss().update([0, 1, 1], [0.2, 0.7, 0.6]).state_dict()
    table = np.asarray(d["state"]["table"], dtype=float)
    d["state"]["table"] = np.where(np.arange(table.size) == 0, -1.0, table)  # LogLoss -0.333 before
    _refused(d, "non-negative")
    for make, batch in (
        (sm.McNemar, ([0, 1, 1], [0, 1, 0], [1, 1, 0])),
        (sm.ContingencyTable, ([0, 1, 1], [1, 1, 0])),
        # (not ExpectedCost: integer weights keep its table int64, so its sum may exceed n_samples)
        (lambda: sm.F1(average="samples"), ([[0, 1], [1, 1]], [[0, 1], [1, 0]])),
    ):
        try:
            m = make().update(*batch)
        except TypeError:  # ExpectedCost needs its costs
            m = sm.ExpectedCost([[0, 1], [1, 0]]).update(*batch)
        d = m.state_dict()
        d["state"]["n_samples"] -= 1  # fewer rows than the counts hold
        _refused(d, "n_samples")


def test_an_int64_sum_that_wraps_is_refused():
    d = sm.McNemar().update([0, 1, 1], [0, 1, 0], [1, 1, 0]).state_dict()
    big = 2**62
    d["state"]["counts"] = np.array([big, big, big, big - 3 + 3])  # sums to 2**64: wraps to 0
    d["state"]["n_samples"] = 0
    _refused(d, "at most 9223372036854775807|counts without rows")
    d = sm.Accuracy().update([0, 1, 1], [0, 1, 0]).state_dict()
    d["state"]["matrix"] = np.array([[2**62, 2**62], [2**62, 2**62 + 3]])  # wraps to 3
    _refused(d, "at most 9223372036854775807")


def test_a_rocauc_layout_and_sample_labels_outside_their_clusters_fail_at_load():
    d = sm.ROCAUC().update([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.3]).state_dict()
    d["state"]["layout"] = [2, 1]
    _refused(d, "layout")
    x = np.arange(12.0).reshape(6, 2)
    d = sm.Silhouette().update(x, [0, 0, 1, 1, 2, 2]).state_dict()
    d["state"]["sample"]["labels"] = np.array([0, 0, 1, 1, 2, 7])
    _refused(d, "labels of no cluster")
    d = sm.HubertGamma().update(x, [0, 0, 1, 1, 2, 2]).state_dict()
    d["state"]["sample"]["weights"] = np.array([1e300, 1, 1, 1, 1, 1.0])  # OverflowError at compute
    _refused(d, "outweigh their clusters")


def test_abstract_bases_and_unknown_types_are_state_errors_not_recursion():
    d = sm.F1().update([0, 1], [0, 1]).state_dict()
    for name in ABSTRACT:
        _refused({**d, "type": name}, "unknown accumulator type")
        _refused(_forged({**d, "type": name, "state": {}}), "unknown accumulator type")


def test_hostile_headers_are_state_errors():
    good = {"type": "Accuracy", "version": 1, "config": {}, "state": {}}
    entry = {"dtype": "<i8", "shape": [0, 10**30], "offset": 0}
    _refused(_forged({**good, "state": {"__ndarray__": 0}}, [entry]), "bad array shape")
    entry = {"dtype": ["<i8"], "shape": [0], "offset": 0}
    _refused(_forged({**good, "state": {"__ndarray__": 0}}, [entry]), "dtype")
    _refused(_forged({**good, "state": _deep(500)}), "nested deeper than 64")
    _refused({**good, "state": _deep(500)}, "nested deeper than 64")
    header = b'{"tree": {"type": "Accuracy", "version": 1, "config": {}, "state": {"n_samples": '
    _refused(serialization.frame(header + b"9" * 5000 + b'}}, "arrays": []}', b""), "corrupt state header")
    d = sm.Accuracy().update([0, 1], [0, 1]).state_dict()
    d["state"]["n_samples"] = 10**5000
    _refused(d, "within int64")


@settings(max_examples=40, deadline=None)
@given(
    junk=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=12,
    ),
    case=st.sampled_from(CASES),
)
def test_junk_in_place_of_a_state_is_a_state_error(junk: Any, case: LawCase) -> None:
    d = case.make().state_dict()
    _loads_correctly_or_refuses({**d, "state": junk}, f"{case}: state <- {junk!r}")
    _loads_correctly_or_refuses({**d, "config": junk}, f"{case}: config <- {junk!r}")
