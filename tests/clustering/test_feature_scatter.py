"""Per-feature scatter (``ClusterMoments(full="diagonal")``, the state of S_Dbw): the diagonals of
the whole scatter matrices, kept in ``K d`` numbers instead of ``K d^2``, through updates,
merges and reverts; S_Dbw states saved with whole matrices still load."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from streammetrics.clustering.internal.moments import ClusterMoments


def _points(seed: int, n: int = 60, d: int = 4):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    return (
        rng.normal(size=(n, d)) * (1 + labels[:, None]) + 5.0 * labels[:, None],
        labels,
        rng.uniform(0.5, 2, n),
    )


@pytest.mark.parametrize("seed", range(4))
def test_diagonal_moments_are_the_diagonals_of_the_whole_matrices(seed):
    X, labels, w = _points(seed)
    whole, diagonal = ClusterMoments(full=True), ClusterMoments(full="diagonal")
    other = ClusterMoments(full="diagonal")
    for state in (whole, diagonal):
        state.add(X[:25], labels[:25], w[:25])
        state.add(X[25:], labels[25:], w[25:])
    other.add(X[:25], labels[:25], w[:25])
    part = ClusterMoments(full="diagonal")
    part.add(X[25:], labels[25:], w[25:])
    other.merge(part)
    expected = np.diagonal(whole.matrix, axis1=1, axis2=2)
    for state in (diagonal, other):
        assert state.matrix.shape == (3, 4)
        np.testing.assert_allclose(state.feature_scatter(), expected, rtol=1e-12)
        np.testing.assert_allclose(state.matrix.sum(axis=1), state.scatter, rtol=1e-12)
        state.check()
    diagonal.add(X[25:], labels[25:], w[25:], sign=-1)  # revert: the first part's alone
    first = ClusterMoments(full=True)
    first.add(X[:25], labels[:25], w[:25])
    np.testing.assert_allclose(
        diagonal.matrix, np.diagonal(first.matrix, axis1=1, axis2=2), rtol=1e-9, atol=1e-12
    )


def test_sdbw_keeps_k_times_d_numbers():
    rng = np.random.default_rng(0)
    X, labels = rng.normal(size=(300, 512)), rng.integers(0, 10, 300)
    m = sm.SDbw(sample_size=50).update(X, labels)
    assert m.state_dict()["state"]["moments"]["matrix"].shape == (10, 512)
    assert len(m.to_bytes()) < 2_000_000  # whole matrices: 10 x 512 x 512 float64, 21 MB


def test_sdbw_state_saved_with_whole_matrices_loads_with_the_same_value():
    X, labels, _ = _points(5)
    m = sm.SDbw().update(X, labels)
    data = m.state_dict()
    whole = ClusterMoments(full=True)
    whole.add(X, labels, None)
    data["state"]["moments"]["matrix"] = whole.matrix  # the layout before 0.2
    assert data["version"] == 2
    data["version"] = 1
    restored = sm.from_state_dict(data)
    # (the diagonals of matrix products, and per-feature sums: equal up to rounding)
    assert restored.compute() == pytest.approx(m.compute(), rel=1e-12)
    assert restored.state_dict()["state"]["moments"]["matrix"].shape == (3, 4)
    assert (restored + m).compute() == pytest.approx(m.compute(), rel=1e-12)


def test_full_is_checked():
    with pytest.raises(ValueError, match="full"):
        ClusterMoments(full="diag")
    with pytest.raises(ValueError, match="full"):
        ClusterMoments(full=1)
