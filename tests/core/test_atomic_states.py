"""Every state change is atomic (issue 15): an exception at any point of ``update``, ``merge``,
``revert``, ``scale``, ``load_dict`` or ``reset`` leaves the state byte-identical to before (or,
past the point of no return, to after), never a mixed state, and its bytes always load.

A trace function raises ``KeyboardInterrupt`` before each line run by a method of the state
(or a metric's ``_apply``/``_unapply``), one run per line: the way Ctrl-C lands between two
statements. One law case per kind of state is enough: the code under test is the state's.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core.state import State
from tests.law_cases import LawCase, all_cases

EVERY_LINE = os.environ.get("STREAMMETRICS_EVERY_LINE") == "1"


def _kind(case: LawCase) -> str:
    m = case.make()
    return f"{type(m.state).__qualname__}:{sorted(m.state.config())}"


#: One case per kind of state (type and configuration keys), plus the variants whose changes take
#: other paths: multilabel counts, window panes, a bootstrap of moments.
_EXTRA = {"F1[multilabel-samples]", "ROCAUC[multilabel-macro]", "Rolling[F1-panes]", "Bootstrap-MSE-R0"}
_CASES: dict[str, LawCase] = {}
for _case in all_cases():
    _CASES.setdefault(str(_case) if str(_case) in _EXTRA else _kind(_case), _case)
CASES = list(_CASES.values())


class _InterruptAt:
    """A trace function that raises ``KeyboardInterrupt`` before the ``at``-th traced line."""

    def __init__(self, at: int | None) -> None:
        self.at, self.seen = at, 0

    def __call__(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "call" and (
            isinstance(frame.f_locals.get("self"), State) or frame.f_code.co_name in ("_apply", "_unapply")
        ):
            return self._line
        return None

    def _line(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            if self.seen == self.at:
                self.seen += 1
                raise KeyboardInterrupt  # the trace function is removed: one fault per run
            self.seen += 1
        return self._line


def _run(m: sm.Metric, op: Callable[[sm.Metric], Any], at: int | None) -> int:
    tracer = _InterruptAt(at)
    sys.settrace(tracer)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            op(m)
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(None)
    return tracer.seen


def _assert_atomic(m: sm.Metric, op: Callable[[sm.Metric], Any], what: str) -> int:
    before = m.to_bytes()
    done = m.copy()
    lines = _run(done, op, None)
    after = done.to_bytes()
    # Every line near the end (where states commit), and lines spread over the rest (the whole
    # range with STREAMMETRICS_EVERY_LINE=1).
    points = range(lines) if EVERY_LINE else sorted({*range(max(0, lines - 10), lines), *range(0, lines, 6)})
    for at in points:
        c = m.copy()
        _run(c, op, at)
        now = c.to_bytes()
        assert now in (before, after), f"{what}: interrupted before line {at} of {lines}: a mixed state"
        sm.from_bytes(now).state.check()
    return lines


def _batches(case: LawCase, n: int = 8) -> list[tuple]:
    rng = np.random.default_rng(3)
    return [case.batch(rng, max(n, case.min_rows)) for _ in range(3)]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_an_interrupt_anywhere_leaves_the_state_as_before_or_after(case: LawCase) -> None:
    first, second, third = _batches(case)
    m = case.make().update(*first)
    other = case.make().update(*third)
    w = np.linspace(0.5, 2.0, len(second[0])) if case.weights else None
    ops: dict[str, Callable[[sm.Metric], Any]] = {
        "update": lambda x: x.update(*second),
        "merge": lambda x: x.merge(other),
        "load_dict": lambda x: x.state.load_dict(other.state.to_dict()),
        "reset": lambda x: x.reset(),
    }
    if w is not None:
        ops["weighted update"] = lambda x: x.update(*second, sample_weight=w)
    if m.is_revertible:
        ops["revert"] = lambda x: x.revert(*first)
    if callable(getattr(m.state, "scale", None)):
        ops["scale"] = lambda x: x.state.scale(0.5)
    for what, op in ops.items():
        _assert_atomic(m, op, what)
