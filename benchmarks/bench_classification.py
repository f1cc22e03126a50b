"""Confusion-count updates: streammetrics vs a bare np.bincount, torchmetrics, scikit-learn, river.

All peers run in one process on the same arrays (10M samples in batches of 100k by default;
``--quick`` uses 1M). Throughputs are reported as ratios to streammetrics. scikit-learn has no
streaming state, so it recomputes on all data seen (once, at the end: its best case); river
updates one sample at a time (timed on a 200k-sample prefix).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_time, markdown_table, per_sample_seconds, ratio_rows

import streammetrics as sm


def _data(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n))
    return y, p


def _batches(y: np.ndarray, p: np.ndarray, size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(y[i : i + size], p[i : i + size]) for i in range(0, len(y), size)]


def bench_task(k: int, n: int, batch: int) -> list[list[object]]:
    y, p = _data(n, k)
    batches = _batches(y, p, batch)

    def ours() -> None:
        m = sm.ConfusionMatrix()
        for yb, pb in batches:
            m.update(yb, pb)

    def ours_f1() -> None:
        m = sm.F1(average="binary" if k == 2 else "macro")
        for yb, pb in batches:
            m.update(yb, pb)

    def floor() -> None:
        total = np.zeros(k * k, np.int64)
        for yb, pb in batches:
            total += np.bincount(yb * k + pb, minlength=k * k)

    results = {
        "streammetrics ConfusionMatrix": best_time(ours),
        "streammetrics F1": best_time(ours_f1),
        "bare np.bincount (floor)": best_time(floor),
    }
    try:
        import torch
        from torchmetrics.classification import BinaryConfusionMatrix, MulticlassConfusionMatrix

        torch.set_num_threads(1)
        tb = [(torch.from_numpy(yb), torch.from_numpy(pb)) for yb, pb in batches]

        def tm(validate: bool) -> None:
            m = (
                BinaryConfusionMatrix(validate_args=validate)
                if k == 2
                else MulticlassConfusionMatrix(k, validate_args=validate)
            )
            for yb, pb in tb:
                m.update(pb, yb)
            m.compute()

        results["torchmetrics ConfusionMatrix (default)"] = best_time(lambda: tm(True))
        results["torchmetrics ConfusionMatrix (validate_args=False)"] = best_time(lambda: tm(False))
    except ImportError:
        results["torchmetrics ConfusionMatrix"] = None
    try:
        from sklearn.metrics import confusion_matrix

        results["scikit-learn confusion_matrix (once, all data)"] = best_time(
            lambda: confusion_matrix(y, p), repeat=1
        )
    except ImportError:
        results["scikit-learn confusion_matrix (once, all data)"] = None
    try:
        from river import metrics as rm

        results["river ConfusionMatrix (per sample)"] = per_sample_seconds(rm.ConfusionMatrix, y, p, n)
    except ImportError:
        results["river ConfusionMatrix (per sample)"] = None

    return ratio_rows(results, "streammetrics ConfusionMatrix", n)


def bench_merge() -> list[list[object]]:
    rows = []
    for n in (10**3, 10**7):
        y, p = _data(n, 10, seed=1)
        a = sm.ConfusionMatrix().update(y, p)
        b = a.copy()
        reps = 2000
        start = time.perf_counter()
        for _ in range(reps):
            a.merge(b)
        rows.append(
            [f"{n:,}", f"{(time.perf_counter() - start) / reps * 1e6:.1f} µs", f"{len(b.to_bytes())} bytes"]
        )
    return rows


def bench_many_classes(k: int, n: int, batch: int) -> list[list[object]]:
    """Past the dense limit (2^14 classes) the counts are each class's (tp, fp, fn)."""
    y, p = _data(n, k)
    batches = _batches(y, p, batch)

    def ours(make) -> None:
        m = make()
        for yb, pb in batches:
            m.update(yb, pb)
        m.compute()

    def floor() -> None:
        total = np.zeros((3, k), np.int64)
        for yb, pb in batches:
            right = yb == pb
            total[0] += np.bincount(yb[right], minlength=k)
            total[1] += np.bincount(pb[~right], minlength=k)
            total[2] += np.bincount(yb[~right], minlength=k)

    results: dict[str, float | None] = {
        "streammetrics F1 (macro)": best_time(lambda: ours(lambda: sm.F1(average="macro"))),
        "streammetrics Accuracy": best_time(lambda: ours(sm.Accuracy)),
        "bare np.bincount, three per batch (floor)": best_time(floor),
    }
    try:
        from sklearn.metrics import f1_score

        results["scikit-learn f1_score (once, all data)"] = best_time(
            lambda: f1_score(y, p, average="macro"), repeat=1
        )
    except ImportError:
        results["scikit-learn f1_score (once, all data)"] = None
    return ratio_rows(results, "streammetrics F1 (macro)", n)


def main(quick: bool = False) -> str:
    n = 1_000_000 if quick else 10_000_000
    batch = 100_000
    header = ["implementation", "M samples/s", "time / streammetrics", "throughput / streammetrics"]
    out = [f"## Confusion-count updates ({n:,} samples, batches of {batch:,})", ""]
    for k, title in ((2, "Binary"), (10, "Multiclass, 10 classes")):
        out += [f"### {title}", "", markdown_table(header, bench_task(k, n, batch)), ""]
    many = 20_000
    out += [
        f"### {many:,} classes (per-class counts: a dense table would hold {many**2 * 8 / 1e9:.1f} GB; "
        "torchmetrics' multiclass F1 counts one, and is not run)",
        "",
        markdown_table(header, bench_many_classes(many, n, batch)),
        "",
        "### Merge cost (10 classes)",
        "",
        markdown_table(["samples in each state", "merge time", "state size"], bench_merge()),
        "",
    ]
    text = "\n".join(out)
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1M samples instead of 10M")
    main(parser.parse_args().quick)
