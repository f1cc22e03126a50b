"""Bad batches through the wrappers, for every metric of the law suite: each is refused with
InputError, changes nothing (bytes), and the next valid batch gives what it would have given
(the law suite checks the metrics alone). A window of decayed rows refused a batch of labels of
another kind with MergeError, and a sliced tracker shared its epochs' states with its copies."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import streammetrics as sm
from tests.law_cases import LawCase, all_cases
from tests.test_laws import bad_batches

WRAPPERS = {
    "Sliced": (sm.Sliced, True),
    "Decayed": (lambda m: sm.Decayed(m, half_life=4), False),
    "Rolling(panes)": (lambda m: sm.Rolling(m, window=9, panes=3), False),
    "MinMax": (sm.MinMax, False),
    "Bootstrap": (lambda m: sm.Bootstrap(m, n_replicates=3, seed=1), False),
}
#: The malformed variants tried (of bad_batches'): values, weights, lengths, label kinds.
KINDS = ("NaN in the second argument", "a negative weight", "a length mismatch", "strings as argument 0")


def _keyed(batch: tuple, n: int) -> tuple:
    return (*batch, np.array(["a", "b"])[np.arange(n) % 2])


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("case", all_cases(), ids=str)
def test_wrapped_metric_refuses_bad_batches_and_changes_nothing(case: LawCase, wrapper: str) -> None:
    wrap, keyed = WRAPPERS[wrapper]
    try:
        metric = wrap(case.make())
    except ValueError:  # a combination refused when built (its refusal is tested with the wrapper)
        return
    rng = np.random.default_rng(2)
    first, then = case.batch(rng, max(6, case.min_rows)), case.batch(rng, max(5, case.min_rows))
    n_first, n_then = len(first[0]), len(then[0])
    metric.update(*(_keyed(first, n_first) if keyed else first))
    before = metric.to_bytes()
    expected = metric.copy().update(*(_keyed(then, n_then) if keyed else then)).to_bytes()
    assert metric.to_bytes() == before, "updating a copy changed the original"
    for what, (args, kw) in bad_batches(first).items():
        if what not in KINDS:
            continue
        trial = metric.copy()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                trial.update(*(_keyed(args, n_first) if keyed else args), **kw)
        except sm.InputError:
            assert trial.to_bytes() == before, f"{what}: the state changed"
            assert trial.update(*(_keyed(then, n_then) if keyed else then)).to_bytes() == expected, what
