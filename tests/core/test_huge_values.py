"""Huge finite values: overflow gives what the arithmetic gives (inf), never inf - inf = NaN."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from tests.helpers import assert_same, plain_value

# ---------------------------------------------------------------- regression near 1e308
HUGE = [
    ([1e308, -1e308], [-1e308, 1e308]),  # residuals beyond float range, mean 0
    ([1e308, -1e308, 3.0], [-1e308, 1e308, 1.0]),
    ([1.0, 2.0, 3.0], [1e308, -1e308, 0.0]),  # the first residual (the shift) overflows
    ([1e308, -1e308, 1.0], [1.0, 2.0, 3.0]),  # y_true's own deviations overflow
    ([1e200, 2e200], [0.0, 0.0]),  # squares overflow, differences do not
]
REGRESSION = {
    "MSE": (sm.MSE, skm.mean_squared_error),
    "RMSE": (sm.RMSE, skm.root_mean_squared_error),
    "MAE": (sm.MAE, skm.mean_absolute_error),
    "MAPE": (sm.MAPE, skm.mean_absolute_percentage_error),
    "R2": (sm.R2, skm.r2_score),
    "ExplainedVariance": (sm.ExplainedVariance, skm.explained_variance_score),
}


@pytest.mark.parametrize("name", list(REGRESSION))
@pytest.mark.parametrize("data", HUGE, ids=range(len(HUGE)))
def test_regression_near_the_float_maximum(name, data):
    make, reference = REGRESSION[name]
    t, p = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = reference(t, p)
        ours = make().update(t, p).compute()
    np.testing.assert_allclose(ours, expected, rtol=1e-12)


def test_an_overflowed_batch_then_ordinary_ones():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = sm.MSE(multioutput="raw_values").update([1.0, 2.0], [0.0, 1.0])
        m.update(np.array([[1e308], [-1e308]]), np.array([[-1e308], [1e308]])).update([3.0], [2.0])
        assert m.compute().tolist() == [np.inf]
        two = np.array([[1e308, 1.0], [-1e308, 2.0]]), np.array([[-1e308, 1.0], [1e308, 3.0]])
        expected = skm.mean_squared_error(*two, multioutput="raw_values")
        np.testing.assert_allclose(sm.MSE(multioutput="raw_values").update(*two).compute(), expected)


# ---------------------------------------------------------------- F-beta with a huge beta
T = [0, 1, 1, 0, 1, 2, 2, 1]
P = [0, 1, 0, 0, 1, 1, 0, 2]


@pytest.mark.parametrize("beta", [1e100, 1e154, 1e160, 1e200, 1e300])
@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted"])
def test_fbeta_huge_beta_is_the_recall_limit(beta, average):
    # scikit-learn computes beta**2 (OverflowError from 1e155, NaN before): the value tends to
    # the recall as beta grows, and equals it in double precision far below 1e154
    ours = sm.FBeta(beta=beta, average=average).update(T, P).compute()
    np.testing.assert_allclose(ours, skm.recall_score(T, P, average=average), rtol=1e-15)
    np.testing.assert_allclose(ours, skm.fbeta_score(T, P, beta=1e100, average=average), rtol=1e-15)


def test_fbeta_huge_beta_binary_and_false_positives_only():
    assert sm.FBeta(beta=1e200).update([0, 1, 1, 0], [0, 1, 0, 0]).compute() == 0.5
    # a label with false positives only: 0.0 for every finite beta, as scikit-learn
    ours = sm.FBeta(beta=1e200, average=None).update([0, 0, 1], [1, 1, 2]).compute()
    expected = skm.fbeta_score([0, 0, 1], [1, 1, 2], beta=1e100, average=None, zero_division=0.0)
    np.testing.assert_array_equal(ours, expected)


def test_fbeta_tiny_beta_is_the_precision():
    ours = sm.FBeta(beta=1e-200, average=None).update(T, P).compute()
    np.testing.assert_allclose(ours, skm.precision_score(T, P, average=None), rtol=1e-15)


# ---------------------------------------------------------------- weights near the float64 maximum
X2 = np.array([[0.0, 1.0], [1.0, 0.5], [4.0, 3.0], [5.0, 2.5]])
WEIGHTED = {  # name: (make, args); each takes sample_weight of one weight per row (4 rows)
    "Accuracy": (sm.Accuracy, ([0, 1, 1, 0], [1, 1, 0, 0])),
    "MCC": (sm.MCC, ([0, 1, 1, 0], [1, 1, 0, 0])),  # a product of four weighted counts
    "CohenKappa": (sm.CohenKappa, ([0, 1, 1, 0], [1, 1, 0, 0])),
    "F1-multilabel": (lambda: sm.F1(average="macro"), (np.eye(4, 2, dtype=int), np.ones((4, 2), int))),
    "LogLoss": (sm.LogLoss, ([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])),
    "BrierScore": (sm.BrierScore, ([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])),
    "CalibrationError": (sm.CalibrationError, ([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])),
    "ROCAUC": (sm.ROCAUC, ([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])),
    "MAE": (sm.MAE, ([0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 2.5, 2.0])),
    "R2": (sm.R2, ([0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 2.5, 2.0])),
    "PoissonDeviance": (sm.PoissonDeviance, ([1.0, 1.0, 2.0, 3.0], [1.0, 2.0, 2.5, 2.0])),
    "Mean": (sm.Mean, ([1.0, 2.0, 3.0, 4.0],)),
    "AdjustedRandIndex": (sm.AdjustedRandIndex, ([0, 0, 1, 1], [0, 1, 1, 1])),
    "CalinskiHarabasz": (sm.CalinskiHarabasz, (X2, [0, 0, 1, 1])),
    "Silhouette": (sm.Silhouette, (X2, [0, 0, 1, 1])),
}
#: The states whose formulas multiply weighted counts: their running totals are capped too (a
#: state of sums cannot overflow: at most 2^63 batches of at most 2^255 each).
CUMULATIVE = ["Accuracy", "MCC", "F1-multilabel", "AdjustedRandIndex"]
BIG = [2.0**253, 2.0**252, 1.0, 2.0]  # a total within the limit (2^255)


@pytest.mark.parametrize("name", sorted(WEIGHTED))
def test_weights_summing_beyond_the_limit_are_refused(name):
    make, args = WEIGHTED[name]
    m = make()
    before = m.to_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(sm.InputError, match="sample_weight"):
            m.update(*args, sample_weight=[1e308, 1e308, 1.0, 1.0])  # beyond float64
        with pytest.raises(sm.InputError, match="sample_weight"):
            m.update(*args, sample_weight=[2.0**254, 2.0**254, 2.0**250, 0.0])  # beyond 2^255
    assert m.to_bytes() == before


#: Weights whose largest is just above the floor (2^-255): MCC's product of four weighted counts
#: still a normal float64.
TINY = [2.0**-253, 2.0**-254, 2.0**-255, 2.0**-254]


@pytest.mark.parametrize("name", sorted(WEIGHTED))
def test_weights_all_below_the_floor_are_refused(name):
    make, args = WEIGHTED[name]
    m = make().update(*args)
    before = m.to_bytes()
    for tiny in ([1e-80, 1e-80, 1e-300, 0.0], [5e-324] * 4):
        with pytest.raises(sm.InputError, match="2\\^-255"):
            m.update(*args, sample_weight=tiny)
    assert m.to_bytes() == before
    m.update(*args, sample_weight=[1e-300, 0.0, 1.0, 2.0])  # tiny beside ordinary weights: taken


@pytest.mark.parametrize(
    "name", sorted(set(WEIGHTED) - {"CalinskiHarabasz", "Silhouette", "AdjustedRandIndex"})
)
def test_tiny_weights_above_the_floor_are_scale_free(name):
    """Weights down to the floor give what the same weights scaled by 2^255 give (MCC once gave
    0.0, ROC AUC NaN, with weights of 1e-100: the floor is where that begins). Frequency weights
    aside (pair counts n(n - 1) of weights below 1 are not pairs)."""
    make, args = WEIGHTED[name]
    small = make().update(*args, sample_weight=TINY).compute()
    large = make().update(*args, sample_weight=np.array(TINY) * 2.0**255).compute()
    np.testing.assert_allclose(small, large, rtol=1e-12)


#: Frequency weights (a weight k is k copies of the row): Calinski-Harabasz's n is the total weight
#: and the silhouette leaves one copy of each point out of its own cluster's mean.
FREQUENCY = {"CalinskiHarabasz", "Silhouette"}


@pytest.mark.parametrize("name", sorted(set(WEIGHTED) - FREQUENCY))
def test_huge_weights_within_the_limit_are_scale_free(name):
    """Weights up to the limit give what the same weights scaled by 2^-253 give (every metric but
    those of frequency weights is invariant to a common factor of the weights, and the scaling
    is exact)."""
    make, args = WEIGHTED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        big = make().update(*args, sample_weight=BIG).compute()
    small = make().update(*args, sample_weight=np.array(BIG) * 2.0**-253).compute()
    np.testing.assert_allclose(big, small, rtol=1e-12)


@pytest.mark.parametrize("name", CUMULATIVE)
def test_running_totals_beyond_the_limit_are_refused(name):
    """Merging a state into (a copy of) itself doubles its total weight: the merge that would take
    it beyond 2^255 raises MergeError, and so does an update InputError, the state unchanged."""
    make, args = WEIGHTED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m = make().update(*args, sample_weight=BIG)
        with pytest.raises(sm.MergeError, match="sample_weight"):
            for _ in range(10):
                before = m.to_bytes()
                m.merge(type(m).from_bytes(before))
        assert m.to_bytes() == before
        with pytest.raises(sm.InputError, match="sample_weight"):
            m.update(*args, sample_weight=BIG)
        assert m.to_bytes() == before


# ---------------------------------------------------------------- values whose statistics overflow
FACTORS = [1e100, 1e154, 1e200, 1e300]


@pytest.mark.parametrize("power", [-1, 0, 1, 1.5, 2, 3])
@pytest.mark.parametrize("factor", FACTORS)
def test_d2_tweedie_past_the_float_range_is_scikit_learns(power, factor):
    # the null deviance's terms overflow: NaN as scikit-learn's, where fsum raised and ** overflowed;
    # mu^-2 from 1e154 on (power 3) is (1/mu)^2, where 1/mu^2 was 1/inf = 0
    t, p = np.array([1.0, 2.0, 3.0]) * factor, np.array([2.0, 1.0, 2.5]) * factor
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.d2_tweedie_score(t, p, power=power)
        ours = sm.D2TweedieScore(power=power).update(t, p).compute()
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("factor", [1.0, *FACTORS, 1e307])
@pytest.mark.parametrize(
    "make, reference",
    [
        (sm.CalinskiHarabasz, skm.calinski_harabasz_score),
        (sm.DaviesBouldin, skm.davies_bouldin_score),
    ],
    ids=["CalinskiHarabasz", "DaviesBouldin"],
)
def test_cluster_moments_past_the_float_range_are_scikit_learns(make, reference, factor):
    # squares past the float range (1e154), and sums of the points themselves (1e307): the
    # scatter is inf, never 0 * inf = NaN, and the means stay finite; the state saves and loads
    rng = np.random.default_rng(0)
    x, labels = rng.normal(size=(40, 2)) * factor, rng.integers(0, 3, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = reference(x, labels)
        m = make().update(x[:25], labels[:25]).update(x[25:], labels[25:])
        np.testing.assert_allclose(m.compute(), expected, rtol=1e-9)
    assert type(m).from_bytes(m.to_bytes()).to_bytes() == m.to_bytes()


def test_a_window_rebuilds_what_an_overflow_took():
    # rows past the float range leave the window: the state is rebuilt from the window's rows,
    # since inf - inf cannot give back the rest
    rows = [(1e200, 0.0), (-1e200, 0.0), (1.0, 2.0), (3.0, 1.0), (5.0, 5.0), (2.0, 0.5)]
    w = sm.Rolling(sm.MSE(), window=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (t, p) in enumerate(rows):
            w.update([t], [p])
            kept = rows[max(0, i - 2) : i + 1]
            expected = skm.mean_squared_error([a for a, _ in kept], [b for _, b in kept])
            np.testing.assert_allclose(w.compute(), expected, rtol=1e-12)


def test_revert_from_an_overflowed_state_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = sm.MSE().update([1e200, -1e200], [0.0, 0.0]).update([1.0], [2.0])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="overflowed"):
        m.revert([1.0], [2.0])
    assert m.to_bytes() == before
    assert sm.MSE().update([1e200], [0.0]).revert([1e200], [0.0]).n_samples == 0  # no overflow kept


def test_negative_zero_relevance_round_trips():
    m = sm.RetrievalNDCG().update([-0.0, 1.0, 0.0], [0.2, 0.9, 0.5], [1, 1, 2])
    assert m.to_bytes() == type(m).from_bytes(m.to_bytes()).to_bytes()
    assert m.to_bytes() == sm.RetrievalNDCG().update([0.0, 1.0, 0.0], [0.2, 0.9, 0.5], [1, 1, 2]).to_bytes()


def _tampered(m, **fields):
    """``m``'s state dict with ``fields`` (name: function of the stored array) changed."""
    data = m.state_dict()
    state = dict(data["state"])
    for name, change in fields.items():
        state[name] = change(np.array(state[name], dtype=np.float64))
    return {**data, "state": state}


def _set(index, value):
    def change(arr):
        arr[index] = value
        return arr

    return change


def test_loaders_take_overflow_only_where_updates_leave_it():
    """inf and NaN load only where the arithmetic of updates can put them; elsewhere (and
    beside finite statistics they could not come from) they are refused, as before."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = sm.PearsonR().update([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
        cluster = sm.CalinskiHarabasz().update(
            np.array([[1.0, 1.0], [1.0, 1.0], [5.0, 5.0], [6.0, 5.0]]), [0, 0, 1, 1]
        )
        negentropy = sm.NegentropyIncrement().update(np.arange(12.0).reshape(6, 2) ** 1.5, [0, 0, 0, 1, 1, 1])
        loss = sm.LogLoss(input="score").update([0, 1], [0.3, 2.0])
        cost = sm.ExpectedCost([[0, 1], [1, 0]]).update([0, 1], [0, 1])
    refused = {
        "cross NaN beside finite second moments": (pearson, {"cross": _set(0, np.nan)}),
        "a NaN mean": (pearson, {"mean": _set((0, 0), np.nan)}),
        "an inf shift": (pearson, {"shift": _set((0, 0), np.inf)}),
        "a NaN second moment": (pearson, {"m2": _set((0, 0), np.nan)}),
        "a NaN scatter": (cluster, {"scatter": _set(0, np.nan)}),
        "an inf cluster mean": (cluster, {"mean": _set((0, 0), np.inf)}),
        "an inf scatter matrix beside a finite scatter": (negentropy, {"matrix": _set((0, 0, 0), np.inf)}),
        "a NaN loss total": (loss, {"table": _set(0, np.nan)}),
    }
    for what, (m, fields) in refused.items():
        with pytest.raises(sm.StateError):
            sm.from_state_dict(_tampered(m, **fields))
            pytest.fail(f"loaded {what}")
    data = cost.state_dict()
    data["state"] = {**data["state"], "table": np.array([[1.0, 0.0], [0.0, np.inf]])}
    with pytest.raises(sm.StateError):  # counts of decisions cannot overflow: ints, then floats
        sm.from_state_dict(data)
    taken = [
        (pearson, {"m2": lambda a: np.full_like(a, np.inf), "cross": _set(0, np.nan)}),
        (cluster, {"scatter": _set(0, np.inf)}),
        (loss, {"table": _set(0, np.inf)}),
    ]
    for m, fields in taken:
        restored = sm.from_state_dict(_tampered(m, **fields))
        restored.state.check()
        assert restored.state.overflowed()


def test_weights_far_apart_in_size_keep_small_counts():
    """False positives of weight 1e-9 beside true positives of 1e27: read from their own cells,
    not as column sums minus tp (which cancelled them to 0: LR+ undefined, DOR 0)."""
    y = np.array([1, 1, 0, 0, 1, 0, 2, 2])
    p = np.array([1, 1, 1, 0, 0, 0, 2, 1])
    w = np.array([1e27, 3e26, 1e-9, 4e22, 2e26, 5e21, 7.0, 1e-3])
    binary = y < 2
    yb, pb, wb = y[binary], p[binary], w[binary]

    def cell(t, q):
        return math.fsum(wb[(yb == t) & (pb == q)])

    tp, fp, fn, tn = cell(1, 1), cell(0, 1), cell(1, 0), cell(0, 0)
    lr_pos, lr_neg = skm.class_likelihood_ratios(yb, pb, sample_weight=wb)
    np.testing.assert_allclose(lr_pos, (tp / (tp + fn)) / (fp / (fp + tn)), rtol=1e-12)
    for make, expected in (
        (sm.PositiveLikelihoodRatio, lr_pos),
        (sm.NegativeLikelihoodRatio, lr_neg),
        (sm.DiagnosticOddsRatio, tp * tn / (fp * fn)),
        (sm.FPR, fp / (fp + tn)),
    ):
        np.testing.assert_allclose(make().update(yb, pb, sample_weight=wb).compute(), expected, rtol=1e-12)
    # three classes: each label's false positives and negatives from the off-diagonal cells
    fp3 = [math.fsum(w[(y != k) & (p == k)]) for k in range(3)]
    fn3 = [math.fsum(w[(y == k) & (p != k)]) for k in range(3)]
    _tp, fp_, fn_, _tn = sm.ConfusionMatrix().update(y, p, sample_weight=w).state.one_vs_rest()
    np.testing.assert_allclose(fp_, fp3, rtol=1e-12)
    np.testing.assert_allclose(fn_, fn3, rtol=1e-12)
    # a label's true negatives small beside its own huge errors: their own cells' sum
    y4, p4 = np.array([0, 0, 1, 2, 1, 2]), np.array([1, 2, 2, 1, 1, 2])
    w4 = np.array([1e27, 3e26, 0.25, 0.5, 0.125, 2.0])
    *_, tn4 = sm.ConfusionMatrix().update(y4, p4, sample_weight=w4).state.one_vs_rest()
    np.testing.assert_allclose(tn4, [math.fsum(w4[(y4 != k) & (p4 != k)]) for k in range(3)], rtol=1e-12)
    expected = skm.recall_score(y4 != 0, p4 != 0, sample_weight=w4)  # label 0: tn / (tn + fp)
    np.testing.assert_allclose(
        sm.Specificity(average=None).update(y4, p4, sample_weight=w4).compute()[0], expected, rtol=1e-12
    )


@pytest.mark.parametrize(
    "make, args, read",
    [
        (sm.Accuracy, ([0, 1, 1], [0, 1, 0]), lambda v, doublings: v),
        (sm.ContingencyTable, ([0, 1, 1], [0, 1, 0]), lambda v, doublings: v // 2**doublings),
        (sm.McNemar, ([0, 1, 1], [0, 1, 0], [1, 1, 0]), lambda v, doublings: (v.b / 2**doublings, v.c)),
        (sm.ROCAUC, ([0, 1, 1], [0.1, 0.9, 0.4]), lambda v, doublings: v),
        (lambda: sm.Sliced(sm.Accuracy()), ([0, 1, 1], [0, 1, 0], ["a", "b", "a"]), lambda v, doublings: v),
    ],
    ids=["Accuracy", "ContingencyTable", "McNemar", "ROCAUC", "Sliced"],
)
def test_merges_past_int64_rows_are_refused(make, args, read):
    """A state merged into itself doubles: past 2^63 - 1 rows its int64 counts wrapped (Accuracy
    NaN, a contingency table of -2^63, a sliced accumulator with no key left); refused now, and
    the last state is the first one's counts times 2^61."""
    m = make().update(*args)
    expected = read(m.compute(), 0)
    doublings = 0
    with pytest.raises(sm.MergeError, match="n_samples"):
        for doublings in range(80):  # noqa: B007 - the count reached is read below
            before = m.to_bytes()
            m.merge(type(m).from_bytes(before))
    assert m.to_bytes() == before and doublings == 61
    assert_same(plain_value(read(m.compute(), doublings)), plain_value(expected), rtol=1e-12)
