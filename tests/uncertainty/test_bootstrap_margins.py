"""Bootstrap replicates of many classes: each replicate's per-class (tp, fp, fn).

Past ``bootstrap.MARGIN_CELLS`` cells of replicate matrices, a confusion metric that reads no
matrix keeps ``(R, 3, K)`` margins (the ``"margins"`` engine). The replicates are the same as the
matrices' reduced to margins: weighted batches draw the same Poisson weights per row and
replicate; unweighted ones one Poisson(n) per replicate and distinct (true, predicted) pair, in
the matrices' cell order, where the matrices drew one per cell (NumPy's Poisson(0) draws no
random bits, so the zero cells in between change nothing). So the replicate values must equal
those of the matrix engine on the same stream, which ``tests/uncertainty/test_bootstrap.py``
checks against scikit-learn and the Poisson law.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import streammetrics as sm
from streammetrics.errors import StateError
from streammetrics.uncertainty import bootstrap

R = 40
METRICS = {
    "accuracy": sm.Accuracy,
    "f1-macro": lambda: sm.F1(average="macro", zero_division=0.0),
    "mcc": sm.MCC,
    "recall-per-class": lambda: sm.Recall(average=None, zero_division=0.0),
    "balanced": sm.BalancedAccuracy,
}


def _batches(seed: int, weighted: bool) -> list[tuple]:
    """Three batches whose label set grows (3, then 6, then 9 classes)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in (3, 6, 9):
        y = rng.integers(0, k, 150)
        p = np.where(rng.random(150) < 0.6, y, rng.integers(0, k, 150))
        out.append((y, p, rng.uniform(0.0, 2.0, 150) if weighted else None))
    return out


def _fed(make, batches, shard: int = 0) -> sm.Bootstrap:
    b = sm.Bootstrap(make(), R, seed=5, shard=shard)
    for y, p, w in batches:
        b.update(y, p, sample_weight=w)
    return b


def _values(b: sm.Bootstrap) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return b.replicate_values()


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("weighted", [False, True])
def test_margins_replicates_equal_the_matrices(name, weighted, monkeypatch):
    batches = _batches(1, weighted)
    matrices = _fed(METRICS[name], batches)
    assert matrices.state.engine == "counts"
    monkeypatch.setattr(bootstrap, "MARGIN_CELLS", R * 5 * 5)  # crossed at the second batch
    margins = _fed(METRICS[name], batches)
    assert margins.state.engine == "margins" and margins.state.tensor.shape == (R, 3, 9)
    np.testing.assert_allclose(_values(margins), _values(matrices), rtol=1e-12, atol=1e-15)
    assert margins.compute().estimate == pytest.approx(matrices.compute().estimate, rel=1e-15)
    margins.state.check()


@pytest.mark.parametrize("weighted", [False, True])
def test_merging_matrices_into_margins(weighted, monkeypatch):
    a_rows, b_rows = _batches(2, weighted)[:1], _batches(3, weighted)[1:]
    dense = _fed(sm.Accuracy, a_rows, shard=0) + _fed(sm.Accuracy, b_rows, shard=1)
    monkeypatch.setattr(bootstrap, "MARGIN_CELLS", R * 5 * 5)
    small, wide = _fed(sm.Accuracy, a_rows, shard=0), _fed(sm.Accuracy, b_rows, shard=1)
    assert (small.state.engine, wide.state.engine) == ("counts", "margins")
    for merged in (small + wide, wide + small):
        assert merged.state.engine == "margins"
        np.testing.assert_allclose(np.sort(_values(merged)), np.sort(_values(dense)), rtol=1e-12)
        merged.state.check()


def test_margins_round_trip_and_refuse_a_tensor_of_another_shape(monkeypatch):
    monkeypatch.setattr(bootstrap, "MARGIN_CELLS", 1)
    b = _fed(sm.Accuracy, _batches(4, False))
    assert b.state.engine == "margins"
    back = sm.from_bytes(b.to_bytes())
    assert back.to_bytes() == b.to_bytes() and np.array_equal(_values(back), _values(b))
    data = b.state_dict()
    state = dict(data["state"])
    state["tensor"] = np.asarray(state["tensor"])[:, :2, :]
    with pytest.raises(StateError, match="tensor"):
        sm.Bootstrap.from_state_dict({**data, "state": state})


def test_a_metric_reading_the_matrix_keeps_matrices(monkeypatch):
    monkeypatch.setattr(bootstrap, "MARGIN_CELLS", 1)
    b = _fed(lambda: sm.CohenKappa(weights="linear"), _batches(5, False))
    assert b.state.engine == "counts" and b.state.tensor.shape == (R, 9, 9)


def test_a_thousand_classes_keep_kilobytes_per_replicate():
    """1,000 classes at 200 replicates: matrices would hold 1.6 GB (and draw 2e8 Poisson numbers
    a batch); the margins hold 4.8 MB."""
    rng = np.random.default_rng(6)
    y = rng.integers(0, 1000, 20_000)
    p = np.where(rng.random(20_000) < 0.7, y, rng.integers(0, 1000, 20_000))
    b = sm.Bootstrap(sm.Accuracy(), seed=1).update(y[:10_000], p[:10_000]).update(y[10_000:], p[10_000:])
    assert b.state.engine == "margins" and b.state.tensor.shape == (200, 3, 1000)
    interval = b.compute()
    assert interval.estimate == float(np.mean(y == p))
    assert interval.low < interval.estimate < interval.high
