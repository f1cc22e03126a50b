"""The sketch's buffer of pending keys stays bounded: folded at 16 times the bins of a bounded
sketch (4 times for an unbounded exact one), and never past ``FOLD_MAX`` keys."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import streammetrics as sm
from streammetrics.ranking import sketch


def _pending_bound(s: sketch.ScoreSketch, ratio: int) -> int:
    bins = sum(len(c.ids) for c in s._cols)
    return max(sketch.FOLD_MIN, min(ratio * bins, sketch.FOLD_MAX))


@pytest.mark.parametrize(("exact", "ratio"), [(False, sketch.BOUNDED_FOLD_RATIO), (True, sketch.FOLD_RATIO)])
def test_pending_keys_stay_within_the_fold_bound(exact: bool, ratio: int) -> None:
    rng = np.random.default_rng(0)
    m = sm.ROCAUC(exact=exact)
    y, p = rng.integers(0, 2, 60_000), rng.random(60_000)
    for i in range(0, len(y), 500):
        m.update(y[i : i + 500], p[i : i + 500])
        s = m._state
        assert s._npend < _pending_bound(s, ratio)  # a batch that reaches the bound is folded
    assert abs(m.compute() - roc_auc_score(y, p)) <= (1e-12 if exact else 1e-3)


def test_fold_max_caps_the_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sketch, "FOLD_MAX", 6_000)
    rng = np.random.default_rng(1)
    m = sm.ROCAUC(exact=True)  # unbounded: without the cap, the buffer would grow with the data
    y, p = rng.integers(0, 2, 40_000), rng.random(40_000)
    for i in range(0, len(y), 1_000):
        m.update(y[i : i + 1_000], p[i : i + 1_000])
        assert m._state._npend < 6_000
    assert abs(m.compute() - roc_auc_score(y, p)) <= 1e-12
