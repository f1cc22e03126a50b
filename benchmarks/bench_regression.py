"""Regression co-moments: update throughput, merge cost and accuracy at large offsets.

All peers run in one process on the same arrays. Throughput: one output, 10M samples in batches
of 100k (``--quick``: 1M); ratios are to streammetrics' R2. scikit-learn has no streaming state,
so it computes once on all data (its best case); river updates one sample at a time (timed on a
200k prefix). Accuracy: y = offset + N(0, 1) (float32: a spread of 64 float32 spacings, see
``tests/regression/exact.py``), 64 uneven shards merged in a random order, against an exact
integer reference; peers are fed the same shards in order.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _timing import best_time, markdown_table, per_sample_seconds, ratio_rows

import streammetrics as sm
from tests.regression.exact import exact_scores, make_data, merged_in_random_order, shard_bounds


def _data(n: int, k: int = 1, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = (n,) if k == 1 else (n, k)
    y = 5.0 + 2.0 * rng.standard_normal(shape)
    return y, y + 0.3 + rng.standard_normal(shape)


def _batches(y: np.ndarray, p: np.ndarray, batch: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(y[i : i + batch], p[i : i + batch]) for i in range(0, len(y), batch)]


def bench_throughput(n: int, batch: int) -> list[list[object]]:
    y, p = _data(n)
    batches = _batches(y, p, batch)
    w = np.random.default_rng(1).uniform(0.5, 2.0, batch)
    pos = [(np.abs(a), np.abs(b)) for a, b in batches]
    results: dict[str, float | None] = {}

    def ours(make, data=batches, weights=None) -> None:
        m = make()
        for a, b in data:
            m.update(a, b, sample_weight=weights)
        m.compute()

    results["streammetrics R2"] = best_time(lambda: ours(sm.R2))
    results["streammetrics R2 (sample_weight)"] = best_time(lambda: ours(sm.R2, weights=w))
    results["streammetrics MAE (residual moments)"] = best_time(lambda: ours(sm.MAE))
    results["streammetrics MAE + RMSE + R2 (one collection, 2 states)"] = best_time(
        lambda: ours(lambda: sm.MetricCollection([sm.MAE(), sm.RMSE(), sm.R2()]))
    )
    results["streammetrics MSLE (log1p state)"] = best_time(lambda: ours(sm.MSLE, pos))
    results["streammetrics MaxError"] = best_time(lambda: ours(sm.MaxError))
    try:
        from sklearn.metrics import mean_absolute_error, r2_score

        results["scikit-learn r2_score (once, all data)"] = best_time(lambda: r2_score(y, p), repeat=1)
        results["scikit-learn mean_absolute_error (once, all data)"] = best_time(
            lambda: mean_absolute_error(y, p), repeat=1
        )
    except ImportError:
        results["scikit-learn r2_score (once, all data)"] = None
    try:
        import torch
        from torchmetrics import MeanAbsoluteError, PearsonCorrCoef, R2Score

        torch.set_num_threads(1)
        tb = [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in batches]

        def tm(make) -> None:
            m = make()
            for a, b in tb:
                m.update(b, a)
            m.compute()

        results["torchmetrics R2Score"] = best_time(lambda: tm(R2Score))
        results["torchmetrics PearsonCorrCoef"] = best_time(lambda: tm(PearsonCorrCoef))
        results["torchmetrics MeanAbsoluteError"] = best_time(lambda: tm(MeanAbsoluteError))
    except ImportError:
        results["torchmetrics R2Score"] = None
    try:
        from river import metrics as rm

        results["river R2 (per sample)"] = per_sample_seconds(rm.R2, y, p, n)
        results["river MAE (per sample)"] = per_sample_seconds(rm.MAE, y, p, n)
    except ImportError:
        results["river R2 (per sample)"] = None

    return ratio_rows(results, "streammetrics R2", n, digits=3)


#: A training step's batch, and the metrics timed on such batches against torchmetrics.
STEP_ROWS = 256
STEP_METRICS = [
    ("MAE", "MAE", "MeanAbsoluteError"),
    ("MSE", "MSE", "MeanSquaredError"),
    ("R2", "R2", "R2Score"),
    ("MAPE", "MAPE", "MeanAbsolutePercentageError"),
    ("PearsonR", "PearsonR", "PearsonCorrCoef"),
]


def bench_training_step(steps: int = 200) -> list[list[object]]:
    """µs per ``update`` of one 1-D batch of :data:`STEP_ROWS` rows (float64), ours and
    torchmetrics' (CPU, one thread), a new metric fed ``steps`` batches then computed once."""
    y, p = _data(steps * STEP_ROWS)
    batches = _batches(y, p, STEP_ROWS)
    try:
        import torch
        import torchmetrics.regression as tmr

        threads = torch.get_num_threads()
        torch_batches = [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in batches]
    except ImportError:
        tmr = None
    try:
        if tmr is not None:
            torch.set_num_threads(1)
        return _training_step_rows(batches, torch_batches if tmr is not None else [], tmr, steps)
    finally:
        if tmr is not None:
            torch.set_num_threads(threads)


def _fed(make: Any, batches: list[Any]) -> None:
    """A new metric fed every batch, then computed once."""
    m = make()
    for a, b in batches:
        m.update(a, b)
    m.compute()


def _training_step_rows(
    batches: list[Any], torch_batches: list[Any], tmr: Any, steps: int
) -> list[list[object]]:
    rows = []
    for label, ours_name, theirs_name in STEP_METRICS:
        ours = getattr(sm, ours_name)
        t_ours = best_time(lambda make=ours: _fed(make, batches)) / steps * 1e6
        if tmr is None:
            rows.append([label, f"{t_ours:.1f}", "—", "—"])
            continue
        theirs = getattr(tmr, theirs_name)
        t_theirs = best_time(lambda make=theirs: _fed(make, torch_batches)) / steps * 1e6
        rows.append([label, f"{t_ours:.1f}", f"{t_theirs:.1f}", f"{t_theirs / t_ours:.2f}x"])
    return rows


def bench_outputs(n: int, batch: int) -> list[list[object]]:
    rows = []
    for k in (1, 10, 100):
        y, p = _data(n // k if k > 1 else n, k, seed=2)
        batches = _batches(y, p, max(1, batch // k))

        def run(batches=batches) -> None:
            m = sm.R2(multioutput="raw_values")
            for a, b in batches:
                m.update(a, b)

        seconds = best_time(run)
        rows.append([k, f"{y.size / seconds / 1e6:.1f}"])
    return rows


def bench_merge() -> list[list[object]]:
    rows = []
    for k in (1, 10, 100, 1000):
        for n in (1_000, 100_000):
            y, p = _data(n, k, seed=3) if k > 1 else _data(n, 1, seed=3)
            a = sm.R2(multioutput="raw_values").update(y, p)
            b = a.copy()
            reps = 2000 if k < 1000 else 500
            start = time.perf_counter()
            for _ in range(reps):
                a.merge(b)
            per = (time.perf_counter() - start) / reps
            rows.append([k, f"{n:,}", f"{per * 1e6:.1f} µs", f"{len(b.to_bytes()):,} bytes"])
    return rows


def _rel(value: float, exact: float) -> str:
    if value is None or not np.isfinite(value):
        return f"{value}"
    err = abs(value - exact) / abs(exact)
    return "0" if err == 0 else f"{err:.1e}"


def bench_accuracy(n: int) -> list[list[object]]:
    try:
        import torch
        from torchmetrics import PearsonCorrCoef, R2Score
    except ImportError:
        torch = None
    try:
        from river import metrics as rm
    except ImportError:
        rm = None
    rows = []
    for dtype in (np.float64, np.float32):
        for offset in (0.0, 1e4, 1e8, 1e9, 1e12):
            y, p, _ = make_data(offset, dtype, n, seed=7)
            exact = exact_scores(y, p)
            rng = np.random.default_rng(11)
            ours = {
                cls.__name__: merged_in_random_order(cls, y, p, 64, rng).compute()
                for cls in (sm.R2, sm.ExplainedVariance, sm.PearsonR)
            }
            row = [
                dtype.__name__,
                f"{offset:g}",
                f"{exact['R2']:.6f}",
                _rel(ours["R2"], exact["R2"]),
                _rel(ours["ExplainedVariance"], exact["ExplainedVariance"]),
                _rel(ours["PearsonR"], exact["PearsonR"]),
            ]
            if torch is not None:
                r2m, pcm = R2Score(), PearsonCorrCoef()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for lo, hi in shard_bounds(n, 64, np.random.default_rng(11)):
                        yt, pt = torch.from_numpy(y[lo:hi]), torch.from_numpy(p[lo:hi])
                        r2m.update(pt, yt)
                        pcm.update(pt, yt)
                    tm_r2, tm_pc = float(r2m.compute()), float(pcm.compute())
                row += [
                    f"{tm_r2:.6g}",
                    _rel(tm_r2, exact["R2"]),
                    f"{tm_pc:.6g}",
                    _rel(tm_pc, exact["PearsonR"]),
                ]
            else:
                row += ["not installed"] * 4
            if rm is not None:
                m = rm.R2()
                for a, b in zip(y.astype(np.float64).tolist(), p.astype(np.float64).tolist(), strict=True):
                    m.update(a, b)
                row += [_rel(m.get(), exact["R2"])]
            else:
                row += ["not installed"]
            rows.append(row)
    return rows


def main(quick: bool = False) -> str:
    n = 1_000_000 if quick else 10_000_000
    n_acc = 50_000 if quick else 200_000
    batch = 100_000
    out = [f"## Regression updates ({n:,} samples, one output, batches of {batch:,})", ""]
    header = ["implementation", "M samples/s", "time / streammetrics R2", "throughput / streammetrics R2"]
    out += [markdown_table(header, bench_throughput(n, batch)), ""]
    out += [f"### A training step's batches ({STEP_ROWS} rows, 200 of them): µs per update", ""]
    header = ["metric", "streammetrics", "torchmetrics (CPU, 1 thread)", "torchmetrics time / ours"]
    out += [markdown_table(header, bench_training_step()), ""]
    out += [f"### Several outputs (R2, raw_values; {n:,} values in batches of {batch:,} values)", ""]
    out += [markdown_table(["outputs", "M values/s"], bench_outputs(n, batch)), ""]
    out += ["### Merge cost (R2 state)", ""]
    out += [markdown_table(["outputs", "rows in each state", "merge time", "state size"], bench_merge()), ""]
    out += [
        f"### Accuracy at large offsets ({n_acc:,} rows, 64 uneven shards)",
        "",
        "Relative error against an exact integer reference (0 = bit-identical). torchmetrics and "
        "river are fed the same shards in order (their update order is their only option).",
        "",
    ]
    header = [
        "input",
        "offset",
        "exact R2",
        "sm R2",
        "sm ExplainedVariance",
        "sm PearsonR",
        "torchmetrics R2Score",
        "its error",
        "torchmetrics PearsonCorrCoef",
        "its error",
        "river R2 error",
    ]
    out += [markdown_table(header, bench_accuracy(n_acc)), ""]
    text = "\n".join(out)
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1M samples instead of 10M")
    main(parser.parse_args().quick)
