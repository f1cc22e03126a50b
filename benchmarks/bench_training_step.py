"""Per training step: update + this batch's values of {Accuracy, F1 macro, ROCAUC, LogLoss}, vs torchmetrics.

    python benchmarks/bench_training_step.py [--quick]

Each step feeds one batch of CPU tensors (``batch`` rows, 10 classes: int64 labels and float32
softmax probabilities) and asks for the batch's values, as a training loop that logs every step
does: ``collection(y, p)`` for streammetrics, ``MetricCollection.forward`` for torchmetrics. The
members are the same; torchmetrics has no log loss, so a two-sum ``Metric`` (the same state as
ours) stands in for it. Rows without ROCAUC repeat the run without the AUC member on both
sides. The streammetrics rows: CPU tensors on the host path (the default for CPU tensors), and
the device path forced on them (``tensors.device_path()``: the code a CUDA tensor runs, here on
the CPU). Times are CPU seconds of this process (``time.process_time``), single-threaded torch,
the best of ``--repeats`` runs; ratios compare runs made together. GPU timings were not measured
(no GPU was available).

The memory part updates a collection with 10x more evaluation batches and reports its state
bytes (``len(to_bytes())``) and the peak of ``tracemalloc`` for each length.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's streammetrics
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import markdown_table

import streammetrics as sm
from streammetrics._core import tensors

CLOCK = time.process_time
K = 10


def batches(n_steps: int, batch: int, seed: int = 0):
    import torch

    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_steps):
        y = torch.randint(0, K, (batch,), generator=g)
        logits = torch.randn(batch, K, generator=g)
        logits[torch.arange(batch), y] += 1.5
        out.append((y, torch.softmax(logits, dim=1)))
    return out


def ours(with_auc: bool) -> sm.MetricCollection:
    members = {"acc": sm.Accuracy(), "f1": sm.F1(average="macro"), "ll": sm.LogLoss()}
    if with_auc:
        members["auc"] = sm.ROCAUC()
    return sm.MetricCollection(members)


def theirs(with_auc: bool):
    import torch
    import torchmetrics
    from torchmetrics.classification import MulticlassAccuracy, MulticlassAUROC, MulticlassF1Score

    class LogLoss(torchmetrics.Metric):
        full_state_update = False

        def __init__(self):
            super().__init__()
            self.add_state("total", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
            self.add_state("count", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")

        def update(self, preds, target):
            p = preds.double().clamp(1e-15, 1 - 1e-15)
            self.total += -torch.log(p[torch.arange(len(target)), target]).sum()
            self.count += len(target)

        def compute(self):
            return self.total / self.count

    members = {
        "acc": MulticlassAccuracy(K, average="micro"),
        "f1": MulticlassF1Score(K, average="macro"),
        "ll": LogLoss(),
    }
    if with_auc:
        members["auc"] = MulticlassAUROC(K, thresholds=None)  # exact, as ours (default)
    return torchmetrics.MetricCollection(members, compute_groups=True)


def run_ours(data, with_auc: bool, device_path: bool, value: bool = True) -> float:
    c = ours(with_auc)
    start = CLOCK()
    if not value:  # update only (values at the epoch's end)
        for y, p in data:
            c.update(y, p)
    elif device_path:
        with tensors.device_path():
            for y, p in data:
                c(y, p)
    else:
        for y, p in data:
            c(y, p)
    return CLOCK() - start


def run_theirs(data, with_auc: bool) -> float:
    c = theirs(with_auc)
    start = CLOCK()
    for y, p in data:
        c(p, y)
    return CLOCK() - start


def per_step_table(n_steps: int, batch: int, repeats: int) -> list[list[str]]:
    data = batches(n_steps, batch)
    rows = []
    for with_auc in (True, False):
        best = {"sm host": np.inf, "sm device": np.inf, "tm": np.inf, "sm update": np.inf}
        for _ in range(repeats):
            best["sm update"] = min(best["sm update"], run_ours(data, with_auc, False, value=False))
            best["sm host"] = min(best["sm host"], run_ours(data, with_auc, False))
            best["sm device"] = min(best["sm device"], run_ours(data, with_auc, True))
            best["tm"] = min(best["tm"], run_theirs(data, with_auc))
        us = {k: 1e6 * v / n_steps for k, v in best.items()}
        rows.append(
            [
                "with ROCAUC" if with_auc else "without ROCAUC",
                f"{us['sm host']:.0f}",
                f"{us['sm device']:.0f}",
                f"{us['tm']:.0f}",
                f"{us['sm host'] / us['tm']:.2f}x",
                f"{us['sm device'] / us['tm']:.2f}x",
                f"{us['sm update']:.0f} ({us['sm update'] / us['tm']:.2f}x)",
            ]
        )
    return rows


def memory_table(n_batches: int, batch: int) -> list[list[str]]:
    rows = []
    for factor in (1, 10):
        data = batches(n_batches * factor, batch, seed=1)
        c = ours(True)
        tracemalloc.start()
        for y, p in data:
            c.update(y, p)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append([f"{n_batches * factor} x {batch}", str(len(c.to_bytes())), f"{peak / 1024:.0f}"])
    return rows


def main(quick: bool | None = None, repeats: int = 3) -> str:
    """The report section (``benchmarks/run.py`` calls ``main(quick)``; the command line parses)."""
    if quick is None:
        parser = argparse.ArgumentParser()
        parser.add_argument("--quick", action="store_true")
        parser.add_argument("--repeats", type=int, default=3)
        args = parser.parse_args()
        quick, repeats = args.quick, args.repeats
    import torch
    import torchmetrics

    torch.set_num_threads(1)
    n_steps = 50 if quick else 300
    header = [
        "collection",
        "sm host µs/step",
        "sm device path µs/step",
        "torchmetrics µs/step",
        "host / tm",
        "device / tm",
        "sm update only µs/step (/ tm)",
    ]
    lines = [
        f"### Per-step overhead: batch 256, {K} classes, CPU tensors ({n_steps} steps, best of {repeats}; "
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__})",
        "",
        markdown_table(header, per_step_table(n_steps, 256, repeats)),
        "",
        "### Memory over 10x more evaluation batches (collection with ROCAUC, default sketch cap)",
        "",
        markdown_table(
            ["batches", "state bytes", "tracemalloc peak KiB"], memory_table(20 if quick else 50, 256)
        ),
        "",
        "GPU timings were not measured (no GPU was available to this work).",
    ]
    section = "\n".join(lines)
    print(section)
    return section


if __name__ == "__main__":
    main()
