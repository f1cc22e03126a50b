"""A training loop logging per-step batch values and per-epoch values to a JSON-lines log.

A scikit-learn ``SGDClassifier`` learns with ``partial_fit`` on mini-batches. One
``MetricCollection`` gives the value of each training batch (calling it returns the batch's
values and accumulates them) and the epoch's value at the end; it is reset every epoch. A
second collection evaluates on a validation set in chunks, as one would with a data loader.

    python examples/epoch_logging.py [--epochs 5] [--batch-size 256] [--n 20000] [--log train.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDClassifier

import streammetrics as sm


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--n", type=int, default=20000, help="training rows (validation: a quarter of it)")
    parser.add_argument("--log", type=Path, default=None, help="JSON-lines file (default: stdout)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    x, y = make_classification(
        n_samples=args.n + args.n // 4, n_features=20, n_informative=8, n_classes=3, random_state=args.seed
    )
    x_train, y_train, x_val, y_val = x[: args.n], y[: args.n], x[args.n :], y[args.n :]
    classes = np.unique(y)
    model = SGDClassifier(loss="log_loss", random_state=args.seed)
    rng = np.random.default_rng(args.seed)

    def metrics(prefix: str) -> sm.MetricCollection:
        return sm.MetricCollection(
            {"accuracy": sm.Accuracy(), "f1": sm.F1(average="macro"), "recall": sm.Recall(average=None)},
            prefix=prefix,
        )

    train, val = metrics("train/"), metrics("val/")
    records: list[dict] = []
    out = args.log.open("w") if args.log else sys.stdout
    try:

        def log(record: dict) -> None:
            records.append(record)
            out.write(json.dumps(record) + "\n")

        step = 0
        for epoch in range(args.epochs):
            train.reset()  # per-epoch values
            order = rng.permutation(args.n)
            for start in range(0, args.n, args.batch_size):
                idx = order[start : start + args.batch_size]
                if step:  # predict before learning: the batch value is an honest online estimate
                    batch_values = train(y_train[idx], model.predict(x_train[idx]))
                    log({"epoch": epoch, "step": step, **batch_values})
                model.partial_fit(x_train[idx], y_train[idx], classes=classes)
                step += 1
            val.reset()
            for start in range(0, len(y_val), 1000):  # like a validation data loader
                val.update(y_val[start : start + 1000], model.predict(x_val[start : start + 1000]))
            log(
                {"epoch": epoch, "step": step, "n_train": train.n_samples, **train.compute(), **val.compute()}
            )
    finally:
        if args.log:
            out.close()
    return records


if __name__ == "__main__":
    main()
