"""Binary label sets x every binary score/probability metric, against scikit-learn 1.9.

Each function of scikit-learn has its own rule for which label is positive (see
:mod:`streammetrics.ranking.positive`); each metric follows its function on every label set, in
one batch, one row at a time, over batches whose first holds one label only (the positive side
may then change when the second label arrives), and over shards merged in both orders. Where
scikit-learn raises, streaming raises InputError (naming pos_label where scikit-learn does).
A third label arriving later, by batch, row or merge, is refused and leaves the state as it was.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

import streammetrics as sm

LABEL_SETS = {
    "01": (0, 1),
    "-11": (-1, 1),
    "12": (1, 2),
    "bool": (False, True),
    "str": ("a", "b"),
    "only0": (0, 0),
    "only1": (1, 1),
    "only2": (2, 2),
    "only_str": ("a", "a"),
}


def _ap(y, p, **kw):
    return skm.average_precision_score(y, p, **kw)


def _curve(fn, drop=None):
    def ref(y, p, **kw):
        if drop is not None:
            kw["drop_intermediate"] = drop
        return fn(y, p, **kw)

    return ref


def _calibration(y, p, **kw):
    prob_true, prob_pred = calibration_curve(y, p, n_bins=4, **kw)
    return prob_true, prob_pred


# (name, factory(pos_label or None), reference(y, p, pos_label kwargs), kwargs given to sklearn)
METRICS = {
    "ROCAUC": (lambda **kw: sm.ROCAUC(exact=True, **kw), skm.roc_auc_score, False),
    "AveragePrecision": (lambda **kw: sm.AveragePrecision(exact=True, **kw), _ap, True),
    "ROCCurve": (lambda **kw: sm.ROCCurve(exact=True, **kw), _curve(skm.roc_curve), True),
    "PRCurve": (lambda **kw: sm.PRCurve(exact=True, **kw), _curve(skm.precision_recall_curve), True),
    "LogLoss": (lambda **kw: sm.LogLoss(**kw), skm.log_loss, False),
    "BrierScore": (lambda **kw: sm.BrierScore(**kw), skm.brier_score_loss, True),
    "CalibrationError": (lambda **kw: sm.CalibrationError(n_bins=4, **kw), _calibration, True),
}


def _data(labels: tuple, seed: int = 0, n: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, 2, n)
    idx[:2] = [0, 1]
    p = np.round(rng.random(n), 2)  # ties included
    y = np.array([labels[i] for i in idx])
    order = np.argsort(idx != idx[5], kind="stable")  # the first rows hold one label only
    return y[order], p[order]


def _value(m: sm.Metric):
    if isinstance(m, sm.CalibrationError):
        c = m.curve()
        return c.prob_true, c.prob_pred
    return m.compute()


def _same(ours, ref) -> None:
    if isinstance(ref, tuple):
        for a, b in zip(ours, ref, strict=True):
            np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, equal_nan=True)
    else:
        np.testing.assert_allclose(ours, ref, rtol=1e-12, equal_nan=True)


def _reference(name: str, y, p, kw):
    """scikit-learn's value, or the exception it raises; with our documented differences."""
    _, ref, takes_pos = METRICS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = ref(y, p, **(kw if takes_pos else {}))
        except ValueError as err:
            if name == "LogLoss" and "only one label" in str(err):
                return np.nan  # deliberate: one label alone is NaN with a warning (a stream may see more)
            return err
    if name == "AveragePrecision" and not np.any(y == kw.get("pos_label", 1)):
        return np.nan  # deliberate: no positives is NaN with a warning (scikit-learn: 0.0)
    return value


def _paths(make, y, p):
    """The same rows in one batch, one at a time, in two batches (the first one-label) and as
    three uneven shards merged both ways (through bytes)."""
    yield "batch", lambda: make().update(y, p)

    def rows():
        m = make()
        for t, q in zip(y.tolist(), p.tolist(), strict=True):
            m.update(t, q)
        return m

    yield "rows", rows
    yield "two batches", lambda: make().update(y[:7], p[:7]).update(y[7:], p[7:])
    cuts = [(0, 4), (4, 19), (19, len(y))]
    yield "merge", lambda: sum(sm.from_bytes(make().update(y[a:b], p[a:b]).to_bytes()) for a, b in cuts)
    yield "merge reversed", lambda: sum(make().update(y[a:b], p[a:b]) for a, b in reversed(cuts))


CASES = [
    (name, label_set, kw)
    for name in METRICS
    for label_set in LABEL_SETS
    for kw in ({}, {"pos_label": LABEL_SETS[label_set][1]})
    if METRICS[name][2] or not kw  # scikit-learn's function has no pos_label: the default rule only
]


@pytest.mark.parametrize(
    "name, label_set, kw", CASES, ids=[f"{n}-{s}-{'pos' if kw else 'default'}" for n, s, kw in CASES]
)
def test_label_set_agrees_with_scikit_learn_on_every_path(name: str, label_set: str, kw: dict) -> None:
    make_metric = METRICS[name][0]
    y, p = _data(LABEL_SETS[label_set])
    ref = _reference(name, y, p, kw)
    for path, run in _paths(lambda: make_metric(**kw), y, p):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(ref, Exception):
                with pytest.raises(sm.InputError) as info:
                    run()
                if "pos_label" in str(ref):
                    assert "pos_label" in str(info.value), (path, info.value)
                continue
            _same(_value(run()), ref)


def test_one_label_log_loss_warns_and_a_given_pos_label_decides() -> None:
    with pytest.warns(sm.UndefinedMetricWarning, match="one label only"):
        assert np.isnan(sm.LogLoss().update([2, 2], [0.3, 0.6]).compute())
    ref = skm.log_loss([2, 2, 1], [0.3, 0.6, 0.5])
    assert sm.LogLoss(pos_label=2).update([2, 2], [0.3, 0.6]).update([1], [0.5]).compute() == pytest.approx(
        ref
    )


# ---------------------------------------------------------------- a third label, on every path
THIRD = {
    "ROCAUC": lambda: sm.ROCAUC(exact=True),
    "AveragePrecision": lambda: sm.AveragePrecision(exact=True),
    "ROCCurve": lambda: sm.ROCCurve(exact=True),
    "PRCurve": lambda: sm.PRCurve(exact=True),
    "LogLoss": sm.LogLoss,
    "BrierScore": sm.BrierScore,
    "CalibrationError": sm.CalibrationError,
    "CalibrationError[quantile]": lambda: sm.CalibrationError(strategy="quantile"),
    "ROCAUC[sketch]": lambda: sm.ROCAUC(resolution=6),
}
Y, P = [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4]
THIRD_LABEL = r"binary labels|pos_label"


@pytest.mark.parametrize("make", THIRD.values(), ids=THIRD.keys())
def test_a_third_label_is_refused_by_batch_row_and_merge_leaving_the_state(make) -> None:
    with pytest.raises(sm.InputError, match=THIRD_LABEL):
        make().update([*Y, -1], [*P, 0.5])  # one batch: refused, as always
    m = make().update(Y, P)
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match=THIRD_LABEL):
        m.update([-1], [0.5])  # a later batch
    assert m.to_bytes() == before
    with pytest.raises(sm.InputError, match=THIRD_LABEL):
        m.update(-1, 0.5)  # a later row
    assert m.to_bytes() == before
    r = make()
    for t, q in zip(Y, P, strict=True):
        r.update(t, q)
    with pytest.raises(sm.InputError, match=THIRD_LABEL):
        r.update(-1, 0.5)  # a row after buffered rows
    assert r.to_bytes() == before
    other = make().update([-1, -1], [0.5, 0.1])
    other_before = other.to_bytes()
    for a, b in ((m, other), (other, m)):
        with pytest.raises(sm.InputError, match=THIRD_LABEL):
            a.merge(b)  # the concatenation would be refused: so is the merge
    assert m.to_bytes() == before and other.to_bytes() == other_before


def test_curves_with_a_given_pos_label_take_any_other_label_as_negative_as_scikit_learn() -> None:
    y = np.array([0, 1, 2, 2, 1, 0, 2])
    p = np.array([0.1, 0.5, 0.7, 0.2, 0.9, 0.3, 0.6])
    ref = skm.roc_curve(y, p, pos_label=2)
    m = sm.ROCCurve(exact=True, pos_label=2).update(y[:3], p[:3])
    m = m + sm.ROCCurve(exact=True, pos_label=2).update(y[3:], p[3:])
    _same(tuple(m.compute()), tuple(ref))
    ref = skm.precision_recall_curve(y, p, pos_label=2)
    r = sm.PRCurve(exact=True, pos_label=2)
    for t, q in zip(y.tolist(), p.tolist(), strict=True):
        r.update(t, q)
    _same(tuple(r.compute()), tuple(ref))


# ---------------------------------------------------------------- ovo with a label absent from y_true
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_ovo_averages_the_pairs_of_the_classes_present_as_scikit_learn(average: str) -> None:
    rng = np.random.default_rng(1)
    y = rng.choice([0, 2, 3], 40)  # label 1 of labels= never occurs
    p = rng.dirichlet(np.ones(4), 40)
    ref = skm.roc_auc_score(y, p, multi_class="ovo", labels=[0, 1, 2, 3], average=average)
    make = lambda: sm.ROCAUC(exact=True, multi_class="ovo", labels=[0, 1, 2, 3], average=average)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scikit-learn does not warn: neither do we
        assert make().update(y, p).compute() == pytest.approx(ref, rel=1e-12)
        merged = make().update(y[:5], p[:5]) + make().update(y[5:], p[5:])
        assert merged.compute() == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("exact", [True, False])
def test_pr_bounds_without_positives_enclose_scikit_learns_last_point(exact: bool) -> None:
    """No positive row: scikit-learn's curve is recall 1 (precision 0) at every threshold, then
    the point (recall 0, precision 1) where no row is predicted positive. The staircases had
    recall 1 there too, so that point lay outside them."""
    scores = np.random.default_rng(0).random(6)
    m = sm.PRCurve(exact=exact).update(np.zeros(6, int), scores)
    low, high = m.bounds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision, recall, _ = skm.precision_recall_curve(np.zeros(6, int), scores)
    for bound in (low, high):
        at_origin = bound.recall == 0
        assert at_origin.any() and np.all(bound.precision[at_origin] == 1.0)
        assert np.all(bound.precision[bound.recall == 1] == 0.0)
    assert recall[-1] == 0 and precision[-1] == 1 and np.all(recall[:-1] == 1)
