"""Shapes read as scikit-learn reads them: ``(n, 1)`` columns are 1-D, ``(n, 0)`` is refused."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

T = np.array([0, 1, 1, 0, 1, 0])
P = np.array([0, 1, 0, 0, 1, 1])
S = np.array([0.1, 0.8, 0.4, 0.3, 0.9, 0.6])
Y = np.array([1.0, 2.0, 3.0, 4.0, 0.5])
Q = np.array([1.5, 2.0, 2.0, 5.0, 0.0])


def col(a):
    return np.asarray(a).reshape(-1, 1)


SHAPES = {"y_true (n, 1)": (col, np.asarray), "prediction (n, 1)": (np.asarray, col), "both": (col, col)}

LABEL_METRICS = {
    "Accuracy": (sm.Accuracy, skm.accuracy_score),
    "F1": (sm.F1, skm.f1_score),
    "MCC": (sm.MCC, skm.matthews_corrcoef),
    "Recall macro": (
        lambda: sm.Recall(average="macro"),
        lambda t, p: skm.recall_score(t, p, average="macro"),
    ),
    "ConfusionMatrix": (sm.ConfusionMatrix, skm.confusion_matrix),
    "HammingLoss": (sm.HammingLoss, skm.hamming_loss),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name", list(LABEL_METRICS))
def test_label_columns(name, shape):
    make, reference = LABEL_METRICS[name]
    ft, fp = SHAPES[shape]
    ours = make().update(ft(T), fp(P)).compute()
    np.testing.assert_allclose(ours, reference(ft(T), fp(P)), rtol=1e-12)


def test_accuracy_of_a_label_column_is_not_an_argmax():
    assert sm.Accuracy().update([0, 1, 1, 0], [[0], [1], [1], [0]]).compute() == 1.0


def test_thresholded_score_column():
    ours = sm.Accuracy(threshold=0.5).update(col(T), col(S)).compute()
    assert ours == skm.accuracy_score(T, S >= 0.5)


SCORE_METRICS = {
    "ROCAUC": (sm.ROCAUC, skm.roc_auc_score),
    "AveragePrecision": (sm.AveragePrecision, skm.average_precision_score),
    "LogLoss": (sm.LogLoss, skm.log_loss),
    "BrierScore": (sm.BrierScore, skm.brier_score_loss),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name", list(SCORE_METRICS))
def test_score_columns(name, shape):
    make, reference = SCORE_METRICS[name]
    ft, fp = SHAPES[shape]
    ours = make().update(ft(T), fp(S)).compute()
    ours = getattr(ours, "value", ours)
    assert ours == pytest.approx(reference(ft(T), fp(S)), rel=1e-12)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_roc_curve_columns(shape):
    ft, fp = SHAPES[shape]
    ours = sm.ROCCurve().update(ft(T), fp(S)).compute()
    fpr, tpr, _ = skm.roc_curve(ft(T).ravel(), fp(S).ravel())
    np.testing.assert_allclose(ours.fpr, fpr)
    np.testing.assert_allclose(ours.tpr, tpr)


REGRESSION = {
    "MSE": (sm.MSE, skm.mean_squared_error),
    "MAE raw": (
        lambda: sm.MAE(multioutput="raw_values"),
        lambda t, p: skm.mean_absolute_error(t, p, multioutput="raw_values"),
    ),
    "R2": (sm.R2, skm.r2_score),
    "MaxError": (sm.MaxError, skm.max_error),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name", list(REGRESSION))
def test_regression_columns_are_one_output(name, shape):
    make, reference = REGRESSION[name]
    ft, fp = SHAPES[shape]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_error's column_or_1d warning
        expected = reference(ft(Y), fp(Q))
    np.testing.assert_allclose(make().update(ft(Y), fp(Q)).compute(), expected, rtol=1e-12)


def test_regression_column_then_flat_batches_share_one_output():
    m = sm.MSE(multioutput="raw_values").update(col(Y), Q).update(Y, col(Q))
    np.testing.assert_allclose(m.compute(), [skm.mean_squared_error(np.r_[Y, Y], np.r_[Q, Q])])


def test_collection_of_every_kind_reads_a_column_once():
    c = sm.MetricCollection({"acc": sm.Accuracy(threshold=0.5), "auc": sm.ROCAUC(), "ll": sm.LogLoss()})
    values = c.update(col(T), col(S)).compute()
    assert values["acc"] == skm.accuracy_score(T, S >= 0.5)
    assert values["auc"] == pytest.approx(skm.roc_auc_score(T, S))
    assert values["ll"] == pytest.approx(skm.log_loss(T, S))


def test_clustering_label_columns():
    X = np.array([[0.0], [0.1], [1.0], [1.1], [0.2], [1.3]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's DataConversionWarning for a column
        expected = skm.silhouette_score(X, col(T))
    assert sm.Silhouette().update(X, col(T)).compute() == pytest.approx(expected, rel=1e-12)
    # scikit-learn refuses (n, 1) external labelings; they are read as 1-D here (docs: differences)
    assert sm.AdjustedRandIndex().update(col(T), col(P)).compute() == pytest.approx(
        skm.adjusted_rand_score(T, P)
    )


# ---------------------------------------------------------------- (n, 0): no column to read
ZERO = np.zeros((3, 0))


@pytest.mark.parametrize(
    "make, y_true",
    [
        (sm.Accuracy, [0, 0, 0]),
        (lambda: sm.Accuracy(threshold=0.5), [0, 0, 0]),
        (lambda: sm.F1(average="micro"), ZERO),
        (sm.ROCAUC, [0, 1, 0]),
        (lambda: sm.ROCAUC(average="macro"), ZERO),
        (sm.LogLoss, [0, 1, 0]),
        (sm.MSE, [0.0, 1.0, 0.0]),
    ],
    ids=["Accuracy", "Accuracy threshold", "F1 multilabel", "ROCAUC", "ROCAUC multilabel", "LogLoss", "MSE"],
)
def test_zero_columns_are_refused(make, y_true):
    m = make()
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match=r"expected at least one column, found shape \(3, 0\)"):
        m.update(y_true, ZERO)
    assert m.to_bytes() == before


def test_zero_columns_in_a_collection_are_refused():
    c = sm.MetricCollection({"acc": sm.Accuracy(), "auc": sm.ROCAUC()})
    with pytest.raises(sm.InputError, match="at least one column"):
        c.update([0, 1, 0], ZERO)


def test_an_empty_batch_of_zero_columns_is_still_empty():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(sm.Accuracy().update([], np.zeros((0, 0))).compute())
