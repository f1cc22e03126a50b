"""Keras 3 (torch backend): MetricsCallback inside a real model.fit; EarlyStopping monitors it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

from .frameworks import require_torch_framework

pytestmark = pytest.mark.engine


def test_fit_logs_values_equal_to_sklearn_and_early_stopping_reads_them():
    keras = require_torch_framework("keras")
    if keras.backend.backend() != "torch":
        pytest.skip(f"keras was imported earlier with the {keras.backend.backend()} backend")
    from streammetrics.integrations.keras import MetricsCallback

    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 150)
    x = (rng.normal(size=(150, 4)) + np.eye(4)[y]).astype("float32")
    x_val, y_val = x[100:], y[100:]
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    callback = MetricsCallback(
        sm.MetricCollection({"f1": sm.F1(average="macro"), "auc": sm.ROCAUC(), "log_loss": sm.LogLoss()}),
        validation_data=(x_val, y_val),
        batch_size=16,
    )
    stop = keras.callbacks.EarlyStopping(monitor="val_f1", mode="max", patience=1, restore_best_weights=False)
    history = model.fit(x[:100], y[:100], epochs=4, batch_size=20, verbose=0, callbacks=[callback, stop])
    assert history.history["val_f1"] == [h["val_f1"] for h in callback.history]
    proba = model.predict(x_val, verbose=0).astype(np.float64)
    proba /= proba.sum(axis=1, keepdims=True)
    last = history.history
    assert last["val_f1"][-1] == pytest.approx(
        skm.f1_score(y_val, proba.argmax(1), average="macro"), rel=1e-12
    )
    assert last["val_auc"][-1] == pytest.approx(skm.roc_auc_score(y_val, proba, multi_class="ovr"), rel=1e-6)
    assert last["val_log_loss"][-1] == pytest.approx(skm.log_loss(y_val, proba), rel=1e-6)
    assert callback.result.n_samples == 50
