"""The per-slice bar chart (interval whiskers) and the fairness gaps."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm

pytest.importorskip("matplotlib")
from streammetrics import plotting


def test_slices_with_bootstrap_whiskers_and_fairness_gaps(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    p = np.where(rng.random(300) < 0.8, y, 1 - y)
    k = rng.choice(["a", "b", "c"], 300)
    boot = sm.Sliced(sm.Bootstrap(sm.Accuracy(), n_replicates=30, seed=1)).update(y, p, k)
    fig = plotting.plot_slices(boot, overall=0.8)
    kinds = [type(c).__name__ for c in fig.axes[0].containers]
    assert "ErrorbarContainer" in kinds and len(fig.axes[0].patches) == 3  # whiskers from the intervals
    assert plotting.save_figure(fig, tmp_path / "slices.png").endswith("slices.png")
    odds = sm.EqualizedOddsDifference().update(y, p, k)
    fig = plotting.plot_fairness_gaps(odds)
    assert len(fig.axes[0].patches) == 6  # three groups x (TPR, FPR)
    assert fig.axes[0].get_title().startswith("EqualizedOddsDifference = ")
