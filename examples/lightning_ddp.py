"""Lightning: epoch metrics merged exactly across DDP ranks (CPU, gloo), checked against scikit-learn.

    python examples/lightning_ddp.py --devices 2 --rows 203 --out result.json

Each rank sees half of the validation set through Lightning's ``DistributedSampler`` (203 rows:
rank 1 gets one repeated row of padding). ``MetricsCallback`` gathers the two ranks' states at
the epoch's end, merges them with the padding left out, and logs ``val/...``; rank 0 then
predicts the whole validation set in one process and prints scikit-learn's values beside the
logged ones (and writes both to ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import warnings

import numpy as np
import torch
from lightning import LightningModule, Trainer
from sklearn import metrics as skm
from torch.utils.data import DataLoader, TensorDataset

import streammetrics as sm
from streammetrics.integrations.lightning import MetricsCallback

K, D = 3, 8


class Classifier(LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Linear(D, K)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        return {"loss": torch.nn.functional.cross_entropy(logits, y), "preds": logits, "target": y}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        return {"preds": self(x), "target": y}

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def data(rows: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, K, (rows,), generator=g)
    x = torch.randn(rows, D, generator=g) + torch.nn.functional.one_hot(y, D).float()
    return TensorDataset(x, y)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--rows", type=int, default=203)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", ".*does not have many workers.*")
    warnings.filterwarnings("ignore", ".*recommended to use `Trainer\\(devices=1")

    torch.manual_seed(0)
    train, val = data(256, 1), data(args.rows, 2)
    metrics = sm.MetricCollection(
        {
            "acc": sm.Accuracy(input="score"),
            "f1": sm.F1(average="macro", input="score"),
            "auc": sm.ROCAUC(input="score"),
            "log_loss": sm.LogLoss(input="score"),
        }
    )
    callback = MetricsCallback(metrics, stages=("train", "val"))
    model = Classifier()
    trainer = Trainer(
        accelerator="cpu",
        devices=args.devices,
        strategy="ddp" if args.devices > 1 else "auto",
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        callbacks=[callback],
    )
    trainer.fit(model, DataLoader(train, batch_size=32), DataLoader(val, batch_size=25))
    logged = {k: float(v) for k, v in trainer.callback_metrics.items() if k.startswith("val/")}
    rank = int(os.environ.get("LOCAL_RANK", "0"))
    if rank:
        return
    with torch.no_grad():
        x, y = val.tensors
        logits = model(x).double()
    proba = torch.softmax(logits, dim=1).numpy()
    y, pred = y.numpy(), proba.argmax(axis=1)
    reference = {
        "val/acc": skm.accuracy_score(y, pred),
        "val/f1": skm.f1_score(y, pred, average="macro"),
        "val/auc": float(np.mean([skm.roc_auc_score(y == c, logits[:, c].numpy()) for c in range(K)])),
        "val/log_loss": skm.log_loss(y, proba),
    }
    merged = callback.result("val")  # the float64 values (Lightning logs float32 tensors)
    exact = {f"val/{k}": v for k, v in merged.compute().items()}
    result = {"logged": logged, "exact": exact, "reference": reference, "n_samples": merged.n_samples}
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
