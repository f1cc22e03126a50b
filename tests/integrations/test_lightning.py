"""Lightning: MetricsCallback inside a real Trainer (CPU), one process and a 2-process DDP run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

from .frameworks import require_torch_framework

pytestmark = pytest.mark.engine
ROOT = Path(__file__).resolve().parents[2]


def test_ddp_two_processes_equal_sklearn_on_the_whole_validation_set(tmp_path):
    """2 ranks (gloo), 203 rows: rank 1 gets one padded row, which must not be counted."""
    require_torch_framework("lightning")
    out = tmp_path / "result.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "lightning_ddp.py"), "--devices", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["n_samples"] == 204  # 203 rows + 1 padded row, which weighs 0
    for name, expected in result["reference"].items():
        assert result["exact"][name] == pytest.approx(expected, rel=1e-12), name
        assert result["logged"][name] == pytest.approx(expected, rel=1e-6), name  # float32 in Lightning


def test_one_process_step_and_epoch_values_and_monitoring(tmp_path):
    L = require_torch_framework("lightning")
    import torch
    from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint
    from torch.utils.data import DataLoader, TensorDataset

    from streammetrics.integrations.lightning import MetricsCallback

    torch.manual_seed(0)
    x, y = torch.randn(96, 4), torch.randint(0, 3, (96,))
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(4, 3)

        def training_step(self, batch, i):
            xb, yb = batch
            logits = self.net(xb)
            seen.append((yb.numpy().copy(), logits.detach().argmax(1).numpy()))
            return {"loss": torch.nn.functional.cross_entropy(logits, yb), "preds": logits, "target": yb}

        def validation_step(self, batch, i):
            xb, yb = batch
            return {"preds": self.net(xb), "target": yb}

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    metric = sm.MetricCollection(
        {"acc": sm.Accuracy(input="score"), "f1": sm.F1(average="macro", input="score")}
    )
    callback = MetricsCallback(metric)
    checkpoint = ModelCheckpoint(dirpath=tmp_path, monitor="val/f1", mode="max")
    trainer = L.Trainer(
        accelerator="cpu",
        max_epochs=2,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[callback, EarlyStopping(monitor="val/acc", mode="max", patience=5), checkpoint],
        log_every_n_steps=1,
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*does not have many workers.*")
        data = DataLoader(TensorDataset(x, y), batch_size=32)
        trainer.fit(Model(), data, data)
    logged = trainer.callback_metrics
    last = seen[-3:]  # the second epoch's three training batches
    yt, yp = np.concatenate([a for a, _ in last]), np.concatenate([b for _, b in last])
    assert float(logged["train/acc"]) == pytest.approx(skm.accuracy_score(yt, yp), rel=1e-6)
    assert float(logged["train/acc_step"]) == pytest.approx(skm.accuracy_score(*last[-1]), rel=1e-6)
    assert callback.result("train").compute()["f1"] == pytest.approx(
        skm.f1_score(yt, yp, average="macro"), rel=1e-12
    )
    assert checkpoint.best_model_score is not None  # ModelCheckpoint found val/f1
    assert float(logged["val/acc"]) == pytest.approx(callback.result("val").compute()["acc"], rel=1e-6)


def test_callback_refuses_a_step_without_the_keys():
    require_torch_framework("lightning")
    from streammetrics.integrations.lightning import MetricsCallback

    cb = MetricsCallback(sm.Accuracy(), stages=("val",))
    with pytest.raises(sm.InputError, match="expected a dict with keys 'preds' and 'target'"):
        cb.on_validation_batch_end(None, None, {"loss": 1.0}, None, 0)
    with pytest.raises(ValueError, match="stages"):
        MetricsCallback(sm.Accuracy(), stages=("fit",))
