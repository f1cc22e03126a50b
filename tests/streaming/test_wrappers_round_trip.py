"""Every metric of the law suite inside the wrappers that keep rows or keys (an exact window, a
window of a sliced metric, a sliced window): its bytes and its state dict load to an
accumulator that computes the same and keeps updating as the original. (A window stores its
rows: a report's value, crossed keys of strings beside ints, and keys of a sliced fairness
gap, with its own group column, each failed once.)"""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core.metric import metrics_within
from tests.helpers import assert_same, plain_value, quiet_compute
from tests.law_cases import LawCase, all_cases

WRAPPERS = {
    "Rolling": (lambda m: sm.Rolling(m, window=9), False),
    "Sliced(Rolling)": (lambda m: sm.Sliced(sm.Rolling(m, window=9)), True),
    "Rolling(Sliced)": (lambda m: sm.Rolling(sm.Sliced(m), window=9), True),
}
#: (a Bootstrap, anywhere inside, is refused in a window: tests/streaming/test_windows.py)
CASES = [
    c
    for c in all_cases()
    if not isinstance(c.make(), (sm.Rolling, sm.Decayed))
    and not any(isinstance(m, sm.Bootstrap) for m in metrics_within(c.make()))
]


def _args(part: tuple, keyed: bool) -> tuple:
    return (*part, np.array(["a", "b"])[np.arange(len(part[0])) % 2]) if keyed else part


def _same(a: sm.Metric, b: sm.Metric, where: str) -> None:
    assert_same(
        plain_value(quiet_compute(a)), plain_value(quiet_compute(b)), rtol=1e-12, atol=1e-14, where=where
    )


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("case", CASES, ids=str)
def test_wrapped_state_round_trips_and_keeps_updating(case: LawCase, wrapper: str) -> None:
    wrap, keyed = WRAPPERS[wrapper]
    metric = wrap(case.make())
    rng = np.random.default_rng(5)
    first, second = (case.batch(rng, max(n, case.min_rows)) for n in (8, 11))
    metric.update(*_args(first, keyed))
    restored = [sm.from_bytes(metric.to_bytes()), sm.from_state_dict(metric.state_dict())]
    metric.update(*_args(second, keyed))
    for copy in restored:
        copy.update(*_args(second, keyed))
        _same(copy, metric, f"{case.name} in {wrapper}")
