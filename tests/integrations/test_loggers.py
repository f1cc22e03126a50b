"""Loggers: values read back from real TensorBoard event files and a real local MLflow store,
and the saved state bytes merged again (``streammetrics merge``) to the values of all the data."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.integrations.loggers import TensorBoardLogger, log_mlflow

from .engine_cases import require

pytestmark = pytest.mark.engine


def _epochs():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, (2, 60))
    proba = rng.dirichlet(np.ones(3), size=(2, 60))
    return y, proba


def _collection():
    return sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1(average=None), "log_loss": sm.LogLoss()})


def test_tensorboard_events_read_back_and_states_merge(tmp_path):
    require("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    y, proba = _epochs()
    paths = []
    with TensorBoardLogger(tmp_path) as tb:
        for epoch in range(2):
            paths.append(tb.log(_collection().update(y[epoch], proba[epoch]), step=epoch, name="val"))
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    tags = events.Tags()["scalars"]
    assert sorted(tags) == ["val/acc", "val/f1/0", "val/f1/1", "val/f1/2", "val/log_loss"]
    for epoch in range(2):
        pred = proba[epoch].argmax(1)
        (acc,) = [e.value for e in events.Scalars("val/acc") if e.step == epoch]
        (ll,) = [e.value for e in events.Scalars("val/log_loss") if e.step == epoch]
        (f1_2,) = [e.value for e in events.Scalars("val/f1/2") if e.step == epoch]
        assert acc == pytest.approx(skm.accuracy_score(y[epoch], pred), rel=1e-6)  # float32 in events
        assert ll == pytest.approx(skm.log_loss(y[epoch], proba[epoch]), rel=1e-6)
        assert f1_2 == pytest.approx(skm.f1_score(y[epoch], pred, average=None)[2], rel=1e-6)
    assert [p.rsplit("/", 2)[-2:] for p in paths] == [
        ["streammetrics", "val-000000.state"],
        ["streammetrics", "val-000001.state"],
    ]
    merged = sm.load(paths[0]) + sm.load(paths[1])
    assert merged.compute()["log_loss"] == pytest.approx(
        skm.log_loss(y.ravel(), proba.reshape(-1, 3)), rel=1e-12
    )


def test_tensorboard_through_an_existing_writer(tmp_path):
    class Writer:
        def __init__(self):
            self.scalars = []

        def add_scalar(self, tag, value, step):
            self.scalars.append((tag, value, step))

        def flush(self):
            pass

    w = Writer()
    TensorBoardLogger(tmp_path, writer=w, save_state=False).log(
        sm.Accuracy().update([0, 1], [0, 0]), 3, name="val"
    )
    assert w.scalars == [("val/accuracy", 0.5, 3)]
    assert not (tmp_path / "streammetrics").exists()


def test_mlflow_metrics_and_state_artifact(tmp_path, monkeypatch):
    mlflow = require("mlflow")
    # a local file store: seconds, where a fresh sqlite store spends ~20 s on its migrations
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    y, proba = _epochs()
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    experiment = mlflow.create_experiment("sm", artifact_location=(tmp_path / "artifacts").as_uri())
    try:
        with mlflow.start_run(experiment_id=experiment) as run:
            for epoch in range(2):
                log_mlflow(_collection().update(y[epoch], proba[epoch]), step=epoch, name="val")
    finally:
        mlflow.set_tracking_uri(None)
    client = mlflow.MlflowClient(tracking_uri=(tmp_path / "mlruns").as_uri())
    history = client.get_metric_history(run.info.run_id, "val/acc")
    assert sorted((m.step, m.value) for m in history) == [
        (e, pytest.approx(skm.accuracy_score(y[e], proba[e].argmax(1)), rel=1e-12)) for e in range(2)
    ]
    f1 = client.get_metric_history(run.info.run_id, "val/f1/1")
    assert f1[0].value == pytest.approx(
        skm.f1_score(y[f1[0].step], proba[f1[0].step].argmax(1), average=None)[1]
    )
    local = client.download_artifacts(run.info.run_id, "streammetrics", str(tmp_path / "down"))
    states = sorted((tmp_path / "down" / "streammetrics").iterdir())
    assert [p.name for p in states] == ["val-000000.state", "val-000001.state"] and local
    merged = sum(sm.load(p) for p in states)
    assert merged.compute()["acc"] == pytest.approx(
        skm.accuracy_score(y.ravel(), proba.reshape(-1, 3).argmax(1))
    )
