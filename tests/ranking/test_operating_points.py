"""Operating points (issue 17): multiclass/multilabel agreement, bounds past the budget, thresholds
that achieve their values, undefined values, bad input, collections and the DET plot.

References: scikit-learn's curves (``tests/ranking/points_reference.py``); torchmetrics
agreement is in ``test_operating_points_torchmetrics.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same, plain_value, quiet_compute
from tests.ranking import points_reference as ref

LEVEL = 0.6
SCALAR = {  # metric factory -> binary reference
    "PrecisionAtRecall": (lambda **kw: sm.PrecisionAtRecall(LEVEL, **kw), ref.precision_at_recall(LEVEL)),
    "RecallAtPrecision": (lambda **kw: sm.RecallAtPrecision(LEVEL, **kw), ref.recall_at_precision(LEVEL)),
    "SensitivityAtSpecificity": (
        lambda **kw: sm.SensitivityAtSpecificity(LEVEL, **kw),
        ref.sensitivity_at_specificity(LEVEL),
    ),
    "SpecificityAtSensitivity": (
        lambda **kw: sm.SpecificityAtSensitivity(LEVEL, **kw),
        ref.specificity_at_sensitivity(LEVEL),
    ),
    "EqualErrorRate": (lambda **kw: sm.EqualErrorRate(**kw), ref.equal_error_rate),
    "LogAUC": (lambda **kw: sm.LogAUC((0.01, 0.3), **kw), ref.log_auc((0.01, 0.3))),
}


def _binary(seed: int, n: int, kind: str = "smooth"):
    rng = np.random.default_rng(seed)
    if kind == "imbalanced":
        y = (rng.random(n) < 0.05).astype(int)
        return y, 1 / (1 + np.exp(-(rng.normal(size=n) * 1.5 - 3 + 2.5 * y)))
    y = rng.integers(0, 2, n)
    p = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.0 * y)))
    return y, (np.round(p, 3) if kind == "ties" else p)


def _multiclass(seed: int, n: int = 200, k: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    p = rng.dirichlet(np.ones(k), n)
    p[np.arange(n), y] += 0.3
    return y, p / p.sum(axis=1, keepdims=True)


def _multilabel(seed: int, n: int = 200, k: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (n, k))
    y[0], y[1] = 0, 1
    return y, np.round(np.clip(0.3 * y + 0.7 * rng.random((n, k)), 0, 1), 2)


@pytest.mark.parametrize("name", list(SCALAR))
def test_multiclass_and_multilabel_per_class_agree_with_scikit_learn_curves(name):
    make, binary = SCALAR[name]
    w = np.random.default_rng(9).uniform(0.5, 2.0, 200)
    for data in (_multiclass, _multilabel):
        y, p = data(1)
        kw = {"average": None} if name == "LogAUC" else {}
        m = make(**kw).update(y[:120], p[:120], sample_weight=w[:120]) + make(**kw).update(
            y[120:], p[120:], sample_weight=w[120:]
        )
        assert m.state.is_exact
        assert_same(quiet_compute(m), ref.one_vs_rest(binary)(y, p, sample_weight=w), rtol=1e-9, where=name)
        low, high = m.bounds()
        value = plain_value(quiet_compute(m))
        value = value["value"] if isinstance(value, dict) else value
        np.testing.assert_array_equal(low, value)
        np.testing.assert_array_equal(high, value)


def test_averaged_variants_agree():
    y, p = _multiclass(2)
    macro = sm.LogAUC((0.01, 0.3)).update(y, p).compute()
    assert abs(macro - ref.macro(ref.one_vs_rest(ref.log_auc((0.01, 0.3))))(y, p)) <= 1e-12
    for data in (_multiclass, _multilabel):
        y, p = data(3)
        micro = sm.EqualErrorRate(average="micro").update(y, p).compute()
        assert_same(micro, ref.micro(ref.equal_error_rate)(y, p), rtol=1e-12)


def _achieved(name, y, s, threshold):
    """The metric's rate at ``score >= threshold``, recomputed from the rows."""
    pred = s >= threshold
    tp, fp = np.sum(pred & (y == 1)), np.sum(pred & (y != 1))
    p, n = np.sum(y == 1), np.sum(y != 1)
    return {
        "PrecisionAtRecall": tp / (tp + fp) if tp + fp else np.nan,
        "RecallAtPrecision": tp / p,
        "SensitivityAtSpecificity": tp / p,
        "SpecificityAtSensitivity": 1 - fp / n,
        "EqualErrorRate": (fp / n + (1 - tp / p)) / 2,
    }[name]


@pytest.mark.parametrize("kind", ["smooth", "ties", "imbalanced"])
def test_bounds_past_the_budget_hold_the_exact_value_and_thresholds_achieve_the_value(kind):
    for seed in range(2):
        y, s = _binary(seed, 3000, kind)
        for name, (make, binary) in SCALAR.items():
            m = make(max_bytes=2048)
            for part in np.array_split(np.arange(len(y)), 3):
                m.update(y[part], s[part])
            assert not m.state.is_exact
            exact = plain_value(binary(y, s))
            exact = exact["value"] if isinstance(exact, dict) else exact
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = m.compute()
                low, high = m.bounds()
            assert low <= exact <= high, f"{name} {kind}: {exact} outside [{low}, {high}]"
            if name == "LogAUC":
                assert low <= value <= high
                continue
            if np.isnan(value.value):  # RecallAtPrecision: no bin edge qualifies
                assert name == "RecallAtPrecision" and low == 0.0 and np.isnan(value.threshold)
                continue
            if name == "EqualErrorRate":
                assert low <= value.value <= high
            else:  # the value is achieved by its threshold: a lower bound of the best
                assert 0 <= value.value - low <= 2e-12
            assert abs(_achieved(name, y, s, value.threshold) - value.value) <= 1e-12, name


def test_det_curve_past_the_budget_lies_between_its_staircases():
    y, s = _binary(4, 3000, "smooth")
    m = sm.DETCurve(max_bytes=2048).update(y, s)
    exact = ref.det_curve(y, s)
    low, high = m.bounds()
    points = m.compute()
    # every point of the sketch's curve is a point of the exact curve (its thresholds are exact)
    for f, r, t in zip(points.fpr, points.fnr, points.thresholds, strict=True):
        pred = s >= t
        assert abs(np.sum(pred & (y == 0)) / np.sum(y == 0) - f) <= 1e-12
        assert abs(np.sum(~pred & (y == 1)) / np.sum(y == 1) - r) <= 1e-12
    steps = np.unique(np.concatenate([low.fpr, high.fpr]))
    for x, v in zip(exact["fpr"], exact["fnr"], strict=True):
        x_a, x_b = steps[steps <= x + 1e-12].max(), steps[steps >= x - 1e-12].min()
        in_low = (low.fpr >= x_a - 1e-12) & (low.fpr <= x_b + 1e-12)
        in_high = (high.fpr >= x_a - 1e-12) & (high.fpr <= x_b + 1e-12)
        assert low.fnr[in_low].min() - 1e-12 <= v <= high.fnr[in_high].max() + 1e-12


def test_exact_det_curve_and_drop_intermediate_agree_with_scikit_learn():
    from sklearn.metrics import det_curve

    y, s = _binary(5, 400, "ties")
    for drop in (False, True):
        r = sm.DETCurve(drop_intermediate=drop).update(y, s).compute()
        for a, b in zip(r, det_curve(y, s, drop_intermediate=drop), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def test_undefined_values_warn_and_return_nan_never_a_sentinel():
    for make, _ in SCALAR.values():
        with pytest.warns(sm.UndefinedMetricWarning, match="undefined"):
            value = make().update([0, 0, 0], [0.2, 0.5, 0.9]).compute()
        assert np.isnan(np.asarray(tuple(value) if isinstance(value, tuple) else value, dtype=float)).all()
    # positives present but no threshold reaches the precision asked for
    with pytest.warns(sm.UndefinedMetricWarning, match="min_precision=0.9"):
        point = sm.RecallAtPrecision(0.9).update([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.1]).compute()
    assert np.isnan(point.value) and np.isnan(point.threshold)
    # a class without positives among others: NaN for it alone
    y, p = _multiclass(6)
    y[y == 2] = 0
    with pytest.warns(sm.UndefinedMetricWarning, match=r"classes \[2\]"):
        point = sm.PrecisionAtRecall(0.5).update(y, p).compute()
    assert np.isnan(point.value[2]) and np.isnan(point.threshold[2]) and not np.isnan(point.value[:2]).any()
    with pytest.warns(sm.UndefinedMetricWarning):
        r = sm.DETCurve().update([0, 0], [0.1, 0.2]).compute()
    assert np.isnan(r.fpr).all()


def test_predicting_nothing_positive_has_threshold_inf():
    m = sm.SpecificityAtSensitivity(0.0).update([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.1])
    assert m.compute() == (1.0, np.inf)


def test_bad_parameters_and_input_name_the_argument():
    for make, name in (
        (lambda: sm.PrecisionAtRecall(1.5), "min_recall"),
        (lambda: sm.RecallAtPrecision(-0.1), "min_precision"),
        (lambda: sm.SensitivityAtSpecificity("0.5"), "min_specificity"),
        (lambda: sm.SpecificityAtSensitivity(float("nan")), "min_sensitivity"),
        (lambda: sm.LogAUC((0.0, 0.1)), "fpr_range"),
        (lambda: sm.LogAUC((0.2, 0.1)), "fpr_range"),
        (lambda: sm.LogAUC(0.1), "fpr_range"),
        (lambda: sm.EqualErrorRate(average="macro"), "average"),
        (lambda: sm.LogAUC(average="weighted"), "average"),
    ):
        with pytest.raises(ValueError, match=name):
            make()
    m = sm.DETCurve().update([0, 1], [0.2, 0.7])
    before = m.to_bytes()
    y, p = _multiclass(7, 10)
    with pytest.raises(sm.InputError, match="y_score"):
        m.update(y, p)
    with pytest.raises(sm.InputError, match="y_score"):
        m.update([0, 1], [0.2, 1.7])
    assert m.to_bytes() == before


def test_state_round_trips_merges_and_collections():
    y, p = _multiclass(8)
    m = sm.SensitivityAtSpecificity(0.8).update(y[:90], p[:90])
    back = sm.from_bytes(m.to_bytes())
    assert type(back) is sm.SensitivityAtSpecificity and back.min_specificity == 0.8
    assert_same(
        (back + sm.SensitivityAtSpecificity(0.8).update(y[90:], p[90:])).compute(),
        m.update(y[90:], p[90:]).compute(),
    )
    with pytest.raises(sm.MergeError, match="min_specificity"):
        m.merge(sm.SensitivityAtSpecificity(0.7))
    assert sm.from_state_dict(sm.LogAUC((0.01, 0.5)).state_dict()).fpr_range == (0.01, 0.5)
    yb, sb = _binary(9, 300)
    c = sm.MetricCollection(
        {
            "auc": sm.ROCAUC(),
            "p@r": sm.PrecisionAtRecall(0.8),
            "eer": sm.EqualErrorRate(),
            "logauc": sm.LogAUC(),
            "det": sm.DETCurve(),
        }
    )
    out = c.update(yb[:100], sb[:100]).update(yb[100:280], sb[100:280]).compute()
    expected = ref.precision_at_recall(0.8)(yb[:280], sb[:280])
    assert out["p@r/value"] == pytest.approx(expected["value"], abs=1e-12)
    assert out["p@r/threshold"] == expected["threshold"]
    assert out["eer/value"] == pytest.approx(ref.equal_error_rate(yb[:280], sb[:280])["value"], abs=1e-12)
    assert out["logauc"] == pytest.approx(ref.log_auc((0.001, 0.1))(yb[:280], sb[:280]), abs=1e-12)
    fpr = [v for k, v in out.items() if k.startswith("det/fpr/")]
    np.testing.assert_allclose(fpr, ref.det_curve(yb[:280], sb[:280])["fpr"], rtol=1e-12)
    for y1, s1 in zip(yb[280:], sb[280:], strict=True):  # then one row at a time
        c.update(int(y1), float(s1))
    out = c.compute()
    assert out["p@r/value"] == pytest.approx(ref.precision_at_recall(0.8)(yb, sb)["value"], abs=1e-12)


def test_det_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from streammetrics import plotting

    y, s = _binary(10, 500)
    fig = sm.DETCurve().update(y, s).plot()
    ax = fig.axes[0]
    assert ax.get_xlabel() == "False positive rate" and ax.get_ylabel() == "False negative rate"
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["0.1%", "1%"]
    path = plotting.save_figure(fig, tmp_path / "det.png", dpi=50)
    assert (tmp_path / "det.png").stat().st_size > 1000 and path.endswith("det.png")


def _exact_points(y, s, w):
    """Every ROC point of whole-count data in exact arithmetic (fractions), from the highest
    threshold down: ``(threshold, tp, fp)`` and the totals ``p``, ``n``."""
    from fractions import Fraction

    p = sum(int(wi) for yi, wi in zip(y, w, strict=True) if yi == 1)
    n = sum(int(wi) for yi, wi in zip(y, w, strict=True) if yi != 1)
    points = [(np.inf, 0, 0)]
    for t in sorted(set(s.tolist()), reverse=True):
        tp = sum(int(wi) for yi, si, wi in zip(y, s, w, strict=True) if si >= t and yi == 1)
        fp = sum(int(wi) for yi, si, wi in zip(y, s, w, strict=True) if si >= t and yi != 1)
        points.append((t, tp, fp))
    return Fraction, points, p, n


@pytest.mark.parametrize("seed", range(60))
def test_rates_equal_in_exact_arithmetic_tie_and_meet_equal_constraints(seed):
    """Whole counts on a coarse score grid, where rates meet their constraints exactly (9 false
    positives of 10 negatives: specificity 1/10 meets 0.1) and ``|FPR - FNR|`` ties between
    points: the reference reads each rate as one correctly rounded fraction and breaks ties in
    exact arithmetic (the first from the highest threshold)."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(4, 30))
    y = rng.integers(0, 2, size)
    y[:2] = [0, 1]
    s = rng.integers(0, 11, size) / 10
    w = rng.integers(1, 4, size) if seed % 2 else np.ones(size, int)
    fraction, points, p, n = _exact_points(y, s, w)
    for level in (0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9):
        sens = [(float(fraction(tp, p)), float(fraction(n - fp, n)), t) for t, tp, fp in points]
        # the largest value among the qualifying points, the first (highest threshold) on ties
        want = max((v, -i) for i, (v, c, _) in enumerate(sens) if c >= level)
        got = quiet_compute(sm.SensitivityAtSpecificity(level).update(y, s, sample_weight=w))
        assert (got.value, got.threshold) == (want[0], sens[-want[1]][2])
        want = max((c, -i) for i, (v, c, _) in enumerate(sens) if v >= level)
        got = quiet_compute(sm.SpecificityAtSensitivity(level).update(y, s, sample_weight=w))
        assert (got.value, got.threshold) == (want[0], sens[-want[1]][2])
    gaps = [abs(fraction(fp, n) - fraction(p - tp, p)) for _, tp, fp in points]
    i = gaps.index(min(gaps))
    t, tp, fp = points[i]
    got = sm.EqualErrorRate().update(y, s, sample_weight=w).compute()
    assert got.threshold == t
    assert got.value == pytest.approx(float((fraction(fp, n) + fraction(p - tp, p)) / 2), rel=1e-15)
