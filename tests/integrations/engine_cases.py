"""The engine test table: every law case with ``update(y_true, y_pred)``, and partitionings.

Built from ``tests/law_cases`` so that every metric family landed so far (and every one landing
later) is evaluated on every engine without being listed twice. An engine moves states (bytes)
and merges them, so the costlier engines take fewer cases: every case through torch.distributed's
gather, one case per metric class through Dask's threads and Beam's combine protocol, one per
(module, state class) through Spark and Beam's runner; the law suite covers every case's merges
and round trips.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import plain_value
from tests.law_cases import LawCase, all_cases

#: In CI a missing engine is a failure, not a skip.
IN_CI = os.environ.get("CI") == "true"


def require(module: str) -> Any:
    """Import an engine; skip when it is missing, except in CI where that fails the test."""
    if IN_CI:
        return importlib.import_module(module)  # ImportError fails the test
    return pytest.importorskip(module)


def two_arg_cases() -> list[LawCase]:
    rng = np.random.default_rng(0)
    return [c for c in all_cases() if len(c.batch(rng, 3)) == 2]


CASES = two_arg_cases()


def _first_per(cases: list[LawCase], kind: Callable[[sm.Metric], Hashable]) -> list[LawCase]:
    """The first case of each ``kind`` of metric, in table order."""
    seen: set[Hashable] = set()
    out = []
    for case in cases:
        key = kind(case.make())
        if key not in seen:
            seen.add(key)
            out.append(case)
    return out


def one_per_type(cases: list[LawCase]) -> list[LawCase]:
    """The first case of each metric class (for the slower engines)."""
    return _first_per(cases, lambda m: type(m).__name__)


def one_per_state_kind(cases: list[LawCase]) -> list[LawCase]:
    """The first case of each (metric module, state class) pair, for the slowest runners.

    Metrics of one module sharing a state class travel through an engine by the same code (their
    state's bytes and merge); every case still goes through each engine's combine protocol.
    """
    # a samplewise matrix keeps its rows in arrival order, which a partitioned engine does not keep:
    # the kind is represented by its order-free configurations
    free = [case for case in cases if not getattr(case.make(), "samplewise", False)]
    return _first_per(free, lambda m: (type(m).__module__, type(getattr(m, "_state", None)).__name__))


@dataclass
class Data:
    y_true: np.ndarray
    y_pred: np.ndarray
    weight: np.ndarray | None
    bounds: list[int]  # partition boundaries: [0, ..., n], repeated values = empty partitions

    @property
    def parts(self) -> list[slice]:
        return [slice(a, b) for a, b in zip(self.bounds[:-1], self.bounds[1:], strict=True)]

    @property
    def chunks(self) -> tuple[int, ...]:
        return tuple(b - a for a, b in zip(self.bounds[:-1], self.bounds[1:], strict=True))


def make_data(
    case: LawCase,
    seed: int,
    *,
    n: int = 240,
    n_parts: int = 7,
    weighted: bool = True,
    sort_by_class: bool = False,
) -> Data:
    """Rows of the case, cut into ``n_parts`` partitions (with empty ones at both ends and inside).

    ``sort_by_class`` sorts rows by ``y_true`` so that most partitions hold one class only.
    """
    rng = np.random.default_rng(seed)
    y_true, y_pred = (np.asarray(a) for a in case.batch(rng, max(n, case.min_rows)))
    if sort_by_class:
        key = y_true if y_true.ndim == 1 else y_true[:, 0]
        order = np.argsort(key, kind="stable")
        y_true, y_pred = y_true[order], y_pred[order]
    weight = None
    if weighted and case.weights:
        # integer-valued weights (0 included) keep integer counts exact whatever the merge order
        weight = (
            rng.integers(0, 4, len(y_true)).astype(np.float64)
            if case.exact
            else rng.uniform(0, 2, len(y_true))
        )
    cuts = np.sort(rng.integers(0, len(y_true) + 1, n_parts - 3))
    bounds = [0, 0, *cuts.tolist(), len(y_true), len(y_true)]
    cuts_mid = bounds[len(bounds) // 2]
    bounds.insert(len(bounds) // 2, cuts_mid)  # one more empty partition in the middle
    return Data(y_true, y_pred, weight, bounds)


def single_process(case: LawCase, data: Data) -> sm.Metric:
    return case.make().update(data.y_true, data.y_pred, sample_weight=data.weight)


def _quiet(metric: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric.compute()


def _int_leaves(tree: Any, path: str = "") -> dict[str, Any]:
    """Every integer / bool / string leaf of a state dict (the exact part of a state)."""
    out: dict[str, Any] = {}
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.update(_int_leaves(v, f"{path}.{k}"))
    elif isinstance(tree, (list, tuple)) and not (tree and isinstance(tree[0], float)):
        for i, v in enumerate(tree):
            out.update(_int_leaves(v, f"{path}[{i}]"))
    elif isinstance(tree, np.ndarray):
        if tree.dtype.kind in "iub":
            out[path] = tree
    elif isinstance(tree, (bool, int, str)):
        out[path] = tree
    return out


def assert_engine_equal(case: LawCase, actual: sm.Metric, expected: sm.Metric, where: str = "") -> None:
    """Engine result == single-process result.

    Integer parts of the state are bit-identical (when the state's layout does not depend on
    how the rows were batched, which is the case for counts, tables and moments); the value is bit-identical for exact cases
    and within 1e-12 relative otherwise (the case's own tolerance when it declares a looser one
    for ill-conditioned data, e.g. an offset of 1e9).
    """
    assert type(actual) is type(expected), where
    assert actual.n_samples == expected.n_samples, (
        f"{where}: n_samples {actual.n_samples} != {expected.n_samples}"
    )
    a_ints, e_ints = _int_leaves(actual.state_dict()), _int_leaves(expected.state_dict())
    if a_ints.keys() == e_ints.keys():  # else the layout depends on the batching (e.g. window panes)
        for key in e_ints:
            np.testing.assert_array_equal(a_ints[key], e_ints[key], err_msg=f"{where}: state{key}")
    got, want = plain_value(_quiet(actual)), plain_value(_quiet(expected))
    _compare(got, want, case, where)


def _compare(got: Any, want: Any, case: LawCase, where: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for k in want:
            _compare(got[k], want[k], case, f"{where}[{k}]")
        return
    if isinstance(want, str) or want is None:
        assert got == want, where
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape}"
    if g.dtype.kind in "OUSb" or case.exact:
        np.testing.assert_array_equal(g, w, err_msg=f"{where}: value (exact)")
    else:
        rtol = case.rtol if case.rtol > 1e-9 else 1e-12
        np.testing.assert_allclose(g, w, rtol=rtol, atol=case.atol, equal_nan=True, err_msg=f"{where}: value")
