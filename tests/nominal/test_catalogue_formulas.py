"""Issue 17's formulas against their peers: SciPy and river to 1e-12; torchmetrics to 1e-6 (its
nominal metrics compute in float32 whatever the input dtype); bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from river import metrics as rm
from scipy.optimize import linear_sum_assignment
from scipy.stats import contingency as scc

import streammetrics as sm
from streammetrics.clustering.external import linear_sum_assignment_max
from tests.integrations.engine_cases import require

# torchmetrics is a reference (the "peers" extra): skipped where missing, except in CI
torch = require("torch")
tmn = require("torchmetrics.functional.nominal")
CramersV = require("torchmetrics.nominal").CramersV


def _pairs(seed, n=60, k=4):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    return t, np.where(rng.random(n) < 0.5, t, rng.integers(0, k + 1, n))


def _t(a):
    return torch.tensor(np.asarray(a), dtype=torch.float64)


@pytest.mark.parametrize("seed", range(6))
def test_association_matches_torchmetrics_and_scipy(seed):
    t, p = _pairs(seed)
    table = sm.ContingencyTable().update(t, p).compute()
    for corrected in (True, False):
        assert sm.CramersV(corrected).update(t, p).compute() == pytest.approx(
            float(tmn.cramers_v(_t(p), _t(t), bias_correction=corrected)), rel=1e-6
        )
        assert sm.TschuprowsT(corrected).update(t, p).compute() == pytest.approx(
            float(tmn.tschuprows_t(_t(p), _t(t), bias_correction=corrected)), rel=1e-6
        )
    assert sm.PearsonsContingencyCoefficient().update(t, p).compute() == pytest.approx(
        float(tmn.pearsons_contingency_coefficient(_t(p), _t(t))), rel=1e-6
    )
    assert sm.TheilsU().update(t, p).compute() == pytest.approx(float(tmn.theils_u(_t(p), _t(t))), rel=1e-6)
    for method, cls in (("cramer", sm.CramersV), ("tschuprow", sm.TschuprowsT)):
        assert cls(bias_correction=False).update(t, p).compute() == pytest.approx(
            scc.association(table, method=method), rel=1e-12
        )
    assert sm.PearsonsContingencyCoefficient().update(t, p).compute() == pytest.approx(
        scc.association(table, method="pearson"), rel=1e-12
    )


def test_yates_on_two_by_two_follows_scipy():
    """A 2 x 2 table with cells further than 0.5 from their expected counts: all three agree."""
    t = np.array([0] * 30 + [1] * 30)
    p = np.array([0] * 25 + [1] * 5 + [0] * 8 + [1] * 22)
    ours = sm.CramersV(bias_correction=True).update(t, p).compute()
    theirs = CramersV(num_classes=2)  # (the functional form raises on a 2 x 2 table in torchmetrics 1.9)
    theirs.update(_t(p), _t(t))
    assert ours == pytest.approx(float(theirs.compute()), rel=1e-6)
    table = sm.ContingencyTable().update(t, p).compute()
    assert scc.association(table, correction=True) > ours  # Bergsma's correction lowers it further


def test_nan_strategies_match_torchmetrics():
    t, p = (a.astype(float) for a in _pairs(1))
    t[[3, 10]] = np.nan
    p[[5, 10, 20]] = np.nan
    for strategy in ("replace", "drop"):
        ours = sm.TheilsU(nan_strategy=strategy).update(t, p).compute()
        theirs = tmn.theils_u(_t(p), _t(t), nan_strategy=strategy, nan_replace_value=0.0)
        assert ours == pytest.approx(float(theirs), rel=1e-6)
    dropped = sm.CramersV(nan_strategy="drop").update(t, p)
    assert dropped.n_samples == len(t)
    with pytest.raises(sm.InputError, match="labels_true"):
        sm.CramersV().update(t, p)  # the default refuses NaN labels
    with pytest.raises(ValueError, match="nan_strategy"):
        sm.CramersV(nan_strategy="ignore")
    with pytest.raises(ValueError, match="nan_replace_value"):
        sm.TheilsU(nan_strategy="replace", nan_replace_value=0.5)


def test_undefined_association_is_nan_with_a_warning():
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(sm.CramersV(bias_correction=False).update([0, 0, 0], [0, 1, 2]).compute())
    assert sm.TheilsU().update([0, 1, 2], [5, 5, 5]).compute() == 0.0  # torchmetrics' convention


def test_default_nominal_metrics_share_the_clustering_table():
    c = sm.MetricCollection({"v": sm.CramersV(), "ari": sm.AdjustedRandIndex(), "acc": sm.ClusterAccuracy()})
    assert len(c.groups) == 1
    assert sm.CramersV(nan_strategy="drop")._share_key() != sm.CramersV()._share_key()


@pytest.mark.parametrize("seed", range(40))
def test_hungarian_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(1, 12, 2)
    profit = rng.integers(0, 5, (n, m)).astype(float) if seed % 2 else rng.random((n, m))
    rows, cols = linear_sum_assignment_max(profit)
    want_rows, want_cols = linear_sum_assignment(profit, maximize=True)
    assert len(rows) == min(n, m) and len(set(cols.tolist())) == len(cols)
    assert profit[rows, cols].sum() == pytest.approx(profit[want_rows, want_cols].sum(), rel=1e-12)


def test_cluster_accuracy_is_the_best_matching():
    t, p = _pairs(2, n=200, k=6)
    table = sm.ContingencyTable().update(t, p).compute()
    r, c = linear_sum_assignment(table, maximize=True)
    assert sm.ClusterAccuracy().update(t, p).compute() == table[r, c].sum() / len(t)


@pytest.mark.parametrize("seed", range(4))
def test_fleiss_matches_torchmetrics_up_to_its_epsilon(seed):
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(6, [0.5, 0.3, 0.2], size=50)
    ours = sm.FleissKappa().update(counts[:20]).update(counts[20:]).compute()
    shares = counts.sum(0) / counts.sum()
    p_e = float((shares**2).sum())
    theirs = float(tmn.fleiss_kappa(torch.tensor(counts)))  # float32, with 1e-5 in the denominator
    assert ours * (1 - p_e) / (1 - p_e + 1e-5) == pytest.approx(theirs, abs=1e-6)
    scores = rng.random((30, 4, 5))
    ours = sm.FleissKappa(mode="probs").update(scores).compute()
    theirs = float(tmn.fleiss_kappa(torch.tensor(scores), mode="probs"))
    assert ours == pytest.approx(theirs, abs=1e-4)


def test_fleiss_with_different_numbers_of_raters():
    counts = [[2, 1, 0], [0, 4, 0], [1, 1, 1]]
    p_i = [(4 + 1 - 3) / 6, 1.0, 0.0]
    shares = np.array([3, 6, 1]) / 10
    p_e = (shares**2).sum()
    assert sm.FleissKappa().update(counts).compute() == pytest.approx(
        (np.mean(p_i) - p_e) / (1 - p_e), rel=1e-12
    )


def test_fleiss_bad_input_names_ratings_and_leaves_the_state():
    m = sm.FleissKappa().update([[2, 1]])
    before = m.to_bytes()
    for bad in ([[1, 0]], [[2, 1, 0]], [[-1, 3]], [[1.5, 1.5]], [[np.nan, 2]], [1, 2]):
        with pytest.raises(sm.InputError, match="ratings"):
            m.update(bad)
        assert m.to_bytes() == before
    with pytest.raises(sm.MergeError):
        m.merge(sm.FleissKappa().update([[1, 1, 1]]))
    with pytest.raises(sm.InputError, match="raters"):
        sm.FleissKappa(mode="probs").update(np.ones((2, 3, 1)))
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(sm.FleissKappa().update([[3, 0], [2, 0]]).compute())


def test_river_scores_row_by_row():
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c"], 300)
    p = np.where(rng.random(300) < 0.6, y, rng.choice(["a", "b", "c"], 300))
    betas = {"a": 0.5, "b": 1.0, "c": 2.0}
    ours_f, ours_g = sm.MultiFBeta(betas, {"c": 3.0}), sm.GeometricMean()
    river_f, river_g = rm.MultiFBeta(betas=betas, weights={"a": 1, "b": 1, "c": 3.0}), rm.GeometricMean()
    for a, b in zip(y.tolist(), p.tolist(), strict=True):
        ours_f.update(a, b)
        ours_g.update(a, b)
        river_f.update(a, b)
        river_g.update(a, b)
    assert ours_f.compute() == pytest.approx(river_f.get(), rel=1e-12)
    assert ours_g.compute() == pytest.approx(river_g.get(), rel=1e-12)


def test_river_scores_bad_input():
    m = sm.MultiFBeta({0: 1.0, 1: 2.0}).update([0, 1], [0, 0])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="y_true"):
        m.update([2], [0])
    assert m.to_bytes() == before
    with pytest.raises(sm.InputError, match="multilabel"):
        sm.GeometricMean().update(np.eye(3, dtype=int), np.eye(3, dtype=int))
    with pytest.raises(ValueError, match="betas"):
        sm.MultiFBeta({0: -1.0})
    with pytest.raises(ValueError, match="weights"):
        sm.MultiFBeta({0: 1.0}, weights={1: 1.0})
    restored = sm.from_bytes(sm.MultiFBeta({"x": 1.0, "y": 0.5}).update(["x"], ["y"]).to_bytes())
    assert restored.betas == [["x", 1.0], ["y", 0.5]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sm.GeometricMean().update([0, 1], [0, 2]).compute() == 0.0  # class 2 only predicted
