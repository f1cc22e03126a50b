"""The river adapter against river's own metrics, with real river models and datasets."""

from __future__ import annotations

import copy
import itertools
import os
import pickle

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

if os.environ.get("CI") == "true":
    import river
river = pytest.importorskip("river")

from river import datasets, evaluate, linear_model, naive_bayes, preprocessing, utils  # noqa: E402
from river import metrics as rm  # noqa: E402

from streammetrics.integrations.river import RiverMetric  # noqa: E402


def classifier():
    return preprocessing.StandardScaler() | linear_model.LogisticRegression()


def regressor():
    return preprocessing.StandardScaler() | linear_model.LinearRegression(intercept_lr=0.1)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lambda: sm.Accuracy(), rm.Accuracy),
        (lambda: sm.F1(), rm.F1),
        (lambda: sm.Precision(), rm.Precision),
        (lambda: sm.Recall(), rm.Recall),
        (lambda: sm.MCC(), rm.MCC),
        (lambda: sm.BalancedAccuracy(), rm.BalancedAccuracy),
        (lambda: sm.CohenKappa(), rm.CohenKappa),
        (lambda: sm.Jaccard(), rm.Jaccard),
    ],
)
def test_progressive_validation_matches_river_binary(ours, theirs):
    mine, reference = RiverMetric(ours()), theirs()
    evaluate.progressive_val_score(datasets.Phishing(), classifier(), mine)
    evaluate.progressive_val_score(datasets.Phishing(), classifier(), reference)
    assert mine.get() == pytest.approx(reference.get(), rel=1e-12)
    assert mine.metric.n_samples == 1250


def test_progressive_validation_matches_river_multiclass_and_collections():
    stream = list(itertools.islice(datasets.ImageSegments(), 600))
    coll = sm.MetricCollection(
        {
            "acc": sm.Accuracy(),
            "macro_f1": sm.F1(average="macro"),
            "micro_f1": sm.F1(average="micro"),
            "weighted_recall": sm.Recall(average="weighted"),
        }
    )
    mine = RiverMetric(coll)
    reference = rm.Accuracy() + rm.MacroF1() + rm.MicroF1() + rm.WeightedRecall()
    evaluate.progressive_val_score(stream, naive_bayes.GaussianNB(), mine)
    evaluate.progressive_val_score(stream, naive_bayes.GaussianNB(), reference)
    assert list(mine.get().values()) == pytest.approx(reference.get(), rel=1e-12)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lambda: sm.MAE(), rm.MAE),
        (lambda: sm.MSE(), rm.MSE),
        (lambda: sm.RMSE(), rm.RMSE),
        (lambda: sm.R2(), rm.R2),
    ],
)
def test_progressive_validation_matches_river_regression(ours, theirs):
    mine, reference = RiverMetric(ours()), theirs()
    evaluate.progressive_val_score(datasets.TrumpApproval(), regressor(), mine)
    evaluate.progressive_val_score(datasets.TrumpApproval(), regressor(), reference)
    assert mine.get() == pytest.approx(reference.get(), rel=1e-9)
    assert mine.bigger_is_better == reference.bigger_is_better


def test_windows_and_decay_in_a_river_loop_match_references():
    model = classifier()
    rolling, decayed = (
        RiverMetric(sm.Rolling(sm.F1(), window=100)),
        RiverMetric(sm.Decayed(sm.Accuracy(), half_life=50)),
    )
    river_rolling = utils.Rolling(rm.F1, window_size=100)
    wrapped_rolling = utils.Rolling(RiverMetric, window_size=100, metric=sm.F1())  # river window, revert
    ys, ps = [], []
    for x, y in datasets.Phishing():
        p = model.predict_one(x)
        if p is not None:
            for m in (rolling, decayed, river_rolling, wrapped_rolling):
                m.update(y, p)
            ys.append(y)
            ps.append(p)
        model.learn_one(x, y)
    ys, ps = np.array(ys), np.array(ps)
    assert rolling.get() == pytest.approx(river_rolling.get(), rel=1e-12)
    assert wrapped_rolling.get() == pytest.approx(river_rolling.get(), rel=1e-12)
    age = 0.5 ** (np.arange(len(ys) - 1, -1, -1) / 50)
    assert decayed.get() == pytest.approx(skm.accuracy_score(ys, ps, sample_weight=age), rel=1e-9)


def test_predict_proba_one_dicts():
    thresholded = RiverMetric(sm.F1(threshold=0.3))
    argmax = RiverMetric(sm.Accuracy())
    assert not thresholded.requires_labels and argmax.requires_labels
    model = classifier()
    ys, probs = [], []
    for x, y in itertools.islice(datasets.Bananas(), 800):
        proba = model.predict_proba_one(x)
        if proba:
            thresholded.update(y, proba)
            argmax.update(y, proba)
            ys.append(y)
            probs.append(proba.get(True, 0.0))
        model.learn_one(x, y)
    ys, probs = np.array(ys), np.array(probs)
    assert thresholded.get() == pytest.approx(skm.f1_score(ys, probs >= 0.3))
    assert argmax.get() == pytest.approx(skm.accuracy_score(ys, probs > 0.5), abs=2 / len(ys))


def test_progressive_validation_uses_probabilities_when_the_metric_wants_them():
    mine = RiverMetric(sm.Recall(threshold=0.5))
    steps = list(
        evaluate.iter_progressive_val_score(datasets.Phishing(), classifier(), mine, yield_predictions=True)
    )
    probs = np.array([step["Prediction"].get(True, 0.0) for step in steps])
    truth = np.array([y for _, y in datasets.Phishing()])
    assert mine.get() == pytest.approx(skm.recall_score(truth, probs >= 0.5))


def test_protocol_properties_revert_clone_pickle_repr():
    m = RiverMetric(sm.FPR())
    assert m.works_with(classifier()) and not m.works_with(regressor())
    assert m.bigger_is_better is False
    assert RiverMetric(sm.MAE()).works_with(regressor())
    for y, p in [(True, True), (False, True), (False, False), (True, False)]:
        m.update(y, p)
    m.revert(False, True)
    assert m.get() == 0.0
    assert m.clone().metric.n_samples == 0
    restored = pickle.loads(pickle.dumps(m))
    restored.update(False, True)
    assert restored.get() == 0.5 and m.get() == 0.0
    assert copy.deepcopy(m).get() == 0.0
    assert repr(m).startswith("FPR: 0.0")
    assert np.isnan(RiverMetric(sm.F1()).get())  # empty: NaN, no warning
    with pytest.raises(sm.InputError, match="y_pred"):
        m.update(True, "cat")
    with pytest.raises(ValueError, match="metric"):
        RiverMetric(rm.Accuracy())
