"""Agreement with scikit-learn, including the zero-division corner cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from tests.helpers import assert_same

ZERO_DIVISIONS = ["warn", 0.0, 1.0, np.nan]
# Data sets chosen to hit undefined values: a class never predicted, a class never true, one class.
DATASETS = {
    "never-predicted": ([0, 1, 2, 2, 1], [0, 0, 2, 2, 0]),
    "never-true": ([0, 0, 2, 2], [0, 1, 2, 1]),
    "one-class": ([1, 1, 1], [1, 1, 1]),
    "all-wrong": ([0, 0, 1], [1, 1, 0]),
    "binary-no-positive": ([0, 0, 0], [0, 0, 0]),
    "strings": (["b", "a", "c", "c"], ["b", "c", "c", "a"]),
}
PRF = {
    sm.Precision: skm.precision_score,
    sm.Recall: skm.recall_score,
    sm.F1: skm.f1_score,
    sm.Jaccard: skm.jaccard_score,
}


def _sk(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except ValueError:
            return "error"


def _ours(factory, y, p, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return factory(**kwargs).update(y, p).compute()
        except (sm.InputError, ValueError):
            return "error"


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS, ids=str)
@pytest.mark.parametrize("average", ["binary", "micro", "macro", "weighted", None], ids=str)
@pytest.mark.parametrize("cls", PRF, ids=lambda c: c.__name__)
def test_precision_recall_f_jaccard_match_sklearn(cls, average, zero_division, name):
    if cls is sm.Jaccard and zero_division != zero_division:
        return  # scikit-learn's jaccard_score refuses zero_division=nan: nothing to compare with
    y, p = DATASETS[name]
    pos_label = "b" if name == "strings" else 1
    kw = {"average": average, "zero_division": zero_division, "pos_label": pos_label}
    expected = _sk(PRF[cls], y, p, **kw)
    actual = _ours(cls, y, p, **kw)
    if isinstance(expected, str):
        assert actual == "error"
    else:
        assert_same(actual, expected, where=f"{cls.__name__} {name}")


@pytest.mark.parametrize("name", DATASETS)
def test_whole_table_metrics_match_sklearn(name):
    y, p = DATASETS[name]
    assert_same(_ours(sm.Accuracy, y, p), skm.accuracy_score(y, p))
    assert_same(_ours(sm.MCC, y, p), skm.matthews_corrcoef(y, p))
    assert_same(_ours(sm.CohenKappa, y, p), _sk(skm.cohen_kappa_score, y, p))
    assert_same(_ours(sm.BalancedAccuracy, y, p), _sk(skm.balanced_accuracy_score, y, p))
    assert_same(_ours(sm.HammingLoss, y, p), skm.hamming_loss(y, p))
    assert_same(_ours(sm.ConfusionMatrix, y, p), skm.confusion_matrix(y, p), exact=True)


@pytest.mark.parametrize("name", ["never-predicted", "never-true", "strings"])
def test_likelihood_ratios_match_sklearn(name):
    y, p = DATASETS[name]
    positive = "c" if name == "strings" else 2
    y, p = (np.asarray(y) == positive).astype(int), (np.asarray(p) == positive).astype(int)
    lr_pos, lr_neg = _sk(skm.class_likelihood_ratios, y, p)
    assert_same(_ours(sm.PositiveLikelihoodRatio, y, p), lr_pos)
    assert_same(_ours(sm.NegativeLikelihoodRatio, y, p), lr_neg)


def test_fixed_labels_keep_the_given_order():
    y, p = ["b", "a", "c", "c"], ["b", "c", "c", "a"]
    labels = ["c", "a", "b"]
    ours = sm.Recall(labels=labels, average=None).update(y, p).compute()
    np.testing.assert_allclose(ours, skm.recall_score(y, p, labels=labels, average=None))
    cm = sm.ConfusionMatrix(labels=labels).update(y, p)
    np.testing.assert_array_equal(cm.compute(), skm.confusion_matrix(y, p, labels=labels))


def test_report_matches_sklearn_and_prints_a_table():
    rng = np.random.default_rng(3)
    y = rng.choice(["cat", "dog", "emu"], 300)
    p = np.where(rng.random(300) < 0.7, y, rng.choice(["cat", "dog", "emu"], 300))
    report = sm.ClassificationReport().update(y, p).compute()
    assert_same(report.to_dict(), skm.classification_report(y, p, output_dict=True))
    text = str(report)
    for word in (
        "precision",
        "recall",
        "f1-score",
        "support",
        "cat",
        "macro avg",
        "weighted avg",
        "accuracy",
    ):
        assert word in text
    # Multilabel: micro and samples averages appear, as in scikit-learn.
    Y = rng.integers(0, 2, (50, 3))
    P = rng.integers(0, 2, (50, 3))
    ml = sm.ClassificationReport(zero_division=0.0).update(Y, P).compute().to_dict()
    assert_same(ml, skm.classification_report(Y, P, output_dict=True, zero_division=0.0))


def test_scores_with_threshold_and_argmax():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    s = np.clip(0.4 * y + 0.6 * rng.random(200), 0, 1)
    assert sm.F1(threshold=0.3).update(y, s).compute() == pytest.approx(skm.f1_score(y, s >= 0.3))
    logits = rng.normal(size=200) + y
    assert sm.Recall(threshold=0.0, input="score").update(y, logits).compute() == pytest.approx(
        skm.recall_score(y, logits >= 0)
    )
    yk = rng.integers(0, 3, 200)
    proba = rng.dirichlet(np.ones(3), 200)
    ours = sm.Accuracy().update(yk, proba).compute()
    assert ours == skm.accuracy_score(yk, proba.argmax(1))
    names = np.array(["x", "y", "z"])
    named = sm.Precision(average="macro", labels=list(names)).update(names[yk], proba).compute()
    assert named == pytest.approx(skm.precision_score(yk, proba.argmax(1), average="macro"))
    Y = rng.integers(0, 2, (100, 4))
    S = rng.random((100, 4))
    assert sm.F1(average="samples", threshold=0.5).update(Y, S).compute() == pytest.approx(
        skm.f1_score(Y, S >= 0.5, average="samples")
    )


def test_multilabel_averages_and_zero_division():
    Y = np.array([[0, 0, 1], [0, 0, 0], [1, 0, 1], [0, 0, 0]])
    P = np.array([[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 0, 0]])
    for average in ("samples", "micro", "macro", "weighted", None):
        for zd in ZERO_DIVISIONS:
            for cls, fn in PRF.items():
                if cls is sm.Jaccard and zd != zd:
                    continue  # scikit-learn's jaccard_score refuses zero_division=nan
                expected = _sk(fn, Y, P, average=average, zero_division=zd)
                assert_same(
                    _ours(cls, Y, P, average=average, zero_division=zd),
                    expected,
                    where=f"{cls.__name__} {average} {zd}",
                )


def test_pos_label_string_and_bool_inputs():
    y = ["spam", "ham", "spam", "ham"]
    p = ["spam", "spam", "ham", "ham"]
    assert sm.Precision(pos_label="spam").update(y, p).compute() == skm.precision_score(
        y, p, pos_label="spam"
    )
    assert sm.F1().update([True, False, True], [True, True, False]).compute() == skm.f1_score(
        [True, False, True], [True, True, False]
    )


def test_warn_policy_warns_and_returns_zero():
    with pytest.warns(sm.UndefinedMetricWarning, match="zero_division"):
        assert sm.Precision().update([1, 1], [0, 0]).compute() == 0.0
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(sm.Precision().compute())
