"""sm.scorer in a real GridSearchCV and cross_validate: equal to scikit-learn's own scorers."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.svm import LinearSVC

import streammetrics as sm


def test_grid_search_matches_sklearn_scorers():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=4, n_classes=3, random_state=0)
    grid = {"C": [0.01, 1.0]}
    cv = KFold(3, shuffle=True, random_state=0)
    ours = GridSearchCV(
        LogisticRegression(max_iter=500),
        grid,
        cv=cv,
        scoring=sm.scorer(
            sm.MetricCollection(
                {"f1": sm.F1(average="macro"), "log_loss": sm.LogLoss(), "auc": sm.ROCAUC(average="macro")}
            )
        ),
        refit="f1",
    ).fit(X, y)
    theirs = GridSearchCV(
        LogisticRegression(max_iter=500),
        grid,
        cv=cv,
        scoring={"f1": "f1_macro", "log_loss": "neg_log_loss", "auc": "roc_auc_ovr"},
        refit="f1",
    ).fit(X, y)
    for name in ("f1", "log_loss", "auc"):
        np.testing.assert_allclose(
            ours.cv_results_[f"mean_test_{name}"], theirs.cv_results_[f"mean_test_{name}"], rtol=1e-9
        )
    assert ours.best_params_ == theirs.best_params_


def test_cross_validate_binary_scores_and_regression():
    X, y = make_classification(n_samples=90, n_features=5, random_state=1)
    res = cross_validate(
        LinearSVC(), X, y, cv=3, scoring={"ours": sm.scorer(sm.ROCAUC(input="score")), "theirs": "roc_auc"}
    )
    np.testing.assert_allclose(res["test_ours"], res["test_theirs"], rtol=1e-12)
    Xr, yr = make_regression(n_samples=60, n_features=3, noise=1.0, random_state=0)
    res = cross_validate(
        Ridge(), Xr, yr, cv=3, scoring={"ours": sm.scorer(sm.MAE()), "theirs": "neg_mean_absolute_error"}
    )
    np.testing.assert_allclose(res["test_ours"], res["test_theirs"], rtol=1e-12)


def test_scorer_refuses_a_non_metric():
    with pytest.raises((TypeError, ValueError)):
        sm.scorer("f1-ish")
