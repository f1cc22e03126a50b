"""Per-sample (online) and per-batch collection throughput against river and separate metrics.

    python benchmarks/bench_streaming.py [--quick]

Every timing is the best of several interleaved repeats; the tables report ratios measured in
the same run (> 1 means streammetrics is faster), plus an agreement check of the values.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import streammetrics as sm

try:
    from river import metrics as rm

    from streammetrics.integrations.river import RiverMetric
except ImportError:  # pragma: no cover - reported as "not installed"
    rm = None


def best_time(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def per_sample_cases(
    n: int, rng: np.random.Generator
) -> list[tuple[str, Any, Any, Callable, Callable, Callable]]:
    """(name, y_true list, y_pred list, make ours, make river's, value check)."""
    yb = (rng.random(n) < 0.4).tolist()
    pb = [y if rng.random() < 0.8 else not y for y in yb]
    y3 = rng.integers(0, 5, n).tolist()
    p3 = [y if rng.random() < 0.6 else int(rng.integers(0, 5)) for y in y3]
    yr = rng.normal(size=n)
    pr = (yr + rng.normal(size=n)).tolist()
    yr = yr.tolist()
    c1 = rng.integers(0, 4, n).tolist()
    c2 = [c if rng.random() < 0.7 else int(rng.integers(0, 6)) for c in c1]
    cases = [
        ("Accuracy (binary)", yb, pb, lambda: sm.Accuracy(), lambda: rm.Accuracy()),
        ("F1 (binary)", yb, pb, lambda: sm.F1(), lambda: rm.F1()),
        ("MCC (binary)", yb, pb, lambda: sm.MCC(), lambda: rm.MCC()),
        ("macro F1 (5 classes)", y3, p3, lambda: sm.F1(average="macro"), lambda: rm.MacroF1()),
        ("Cohen kappa (5 classes)", y3, p3, lambda: sm.CohenKappa(), lambda: rm.CohenKappa()),
        ("MAE", yr, pr, lambda: sm.MAE(), lambda: rm.MAE()),
        ("RMSE", yr, pr, lambda: sm.RMSE(), lambda: rm.RMSE()),
        ("R2", yr, pr, lambda: sm.R2(), lambda: rm.R2()),
        ("adjusted Rand (contingency)", c1, c2, lambda: sm.AdjustedRandIndex(), lambda: rm.AdjustedRand()),
        (
            "5 classification metrics",
            yb,
            pb,
            lambda: sm.MetricCollection([sm.Accuracy(), sm.F1(), sm.Precision(), sm.Recall(), sm.MCC()]),
            lambda: rm.Accuracy() + rm.F1() + rm.Precision() + rm.Recall() + rm.MCC(),
        ),
        (
            "3 regression metrics",
            yr,
            pr,
            lambda: sm.MetricCollection([sm.MAE(), sm.RMSE(), sm.R2()]),
            lambda: rm.MAE() + rm.RMSE() + rm.R2(),
        ),
    ]
    return cases


def run_per_sample(n: int, repeats: int) -> str:
    rng = np.random.default_rng(0)
    lines = [
        "### Per-sample updates (one `update` call per sample)",
        "",
        f"{n:,} samples per run; microseconds per sample (best of {repeats}, final flush and compute "
        "included); ratio = river time / our time (> 1: streammetrics faster). *update(y, p)* is the "
        "metric's own `update` called with two scalars (the per-sample path), *RiverMetric* the "
        "adapter river calls (`metric.update(y_true=, y_pred=)`), *update_one* the metric inside a "
        "one-member `MetricCollection`. Values agree with river's to 1e-9.",
        "",
        "| metric | river | update(y, p) | ratio | RiverMetric | ratio | update_one | ratio |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, ys, ps, ours, theirs in per_sample_cases(n, rng):
        pairs = list(zip(ys, ps, strict=True))

        def river_run(theirs=theirs, pairs=pairs):
            m = theirs()
            f = m.update
            for a, b in pairs:
                f(y_true=a, y_pred=b)
            return m

        def adapter_run(ours=ours, pairs=pairs):
            m = RiverMetric(ours())
            f = m.update
            for a, b in pairs:
                f(y_true=a, y_pred=b)
            m.get()  # the last flush is part of the cost
            return m

        def update_one_run(ours=ours, pairs=pairs):
            m = ours()
            c = m if isinstance(m, sm.MetricCollection) else sm.MetricCollection([m])
            f = c.update_one
            for a, b in pairs:
                f(a, b)
            c.compute()
            return c

        def plain_run(ours=ours, pairs=pairs):
            m = ours()
            f = m.update
            for a, b in pairs:
                f(a, b)
            m.compute()
            return m

        times = {k: [] for k in ("river", "adapter", "one", "plain")}
        for _ in range(repeats):  # interleaved, so that load changes hit every contender alike
            times["river"].append(best_time(river_run, 1))
            times["adapter"].append(best_time(adapter_run, 1))
            times["one"].append(best_time(update_one_run, 1))
            times["plain"].append(best_time(plain_run, 1))
        us = {k: min(v) / n * 1e6 for k, v in times.items()}
        check_agreement(name, river_run().get(), adapter_run().get())
        check_agreement(name, river_run().get(), plain_run().compute())
        lines.append(
            f"| {name} | {us['river']:.2f} | {us['plain']:.2f} | {us['river'] / us['plain']:.2f}x "
            f"| {us['adapter']:.2f} | {us['river'] / us['adapter']:.2f}x "
            f"| {us['one']:.2f} | {us['river'] / us['one']:.2f}x |"
        )
    return "\n".join(lines)


def check_agreement(name: str, theirs: Any, ours: Any) -> None:
    if isinstance(ours, dict):
        ours = list(ours.values())
    np.testing.assert_allclose(
        np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=1e-9, err_msg=name
    )


def run_batches(n: int, repeats: int) -> str:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    members = {
        "acc": sm.Accuracy,
        "f1": lambda: sm.F1(average="macro"),
        "precision": lambda: sm.Precision(average="macro"),
        "recall": lambda: sm.Recall(average="macro"),
        "jaccard": lambda: sm.Jaccard(average="macro"),
        "kappa": sm.CohenKappa,
        "mcc": sm.MCC,
    }
    batch = 10_000

    def separate():
        ms = [make() for make in members.values()]
        for i in range(0, n, batch):
            for m in ms:
                m.update(y[i : i + batch], p[i : i + batch])
        return [m.compute() for m in ms]

    def collection():
        c = sm.MetricCollection({k: make() for k, make in members.items()})
        for i in range(0, n, batch):
            c.update(y[i : i + batch], p[i : i + batch])
        return c.compute()

    t_sep = min(best_time(separate, 1) for _ in range(repeats))
    t_col = min(best_time(collection, 1) for _ in range(repeats))
    check_agreement("collection", separate(), collection())
    groups = len(sm.MetricCollection({k: make() for k, make in members.items()}).groups)
    return "\n".join(
        [
            "### Batch updates: one collection vs separate metrics",
            "",
            f"{len(members)} confusion metrics (3 classes), {n:,} rows in batches of {batch:,}; the collection "
            f"keeps {groups} shared states.",
            "",
            "| separate metrics (s) | MetricCollection (s) | speed-up |",
            "| ---: | ---: | ---: |",
            f"| {t_sep:.3f} | {t_col:.3f} | {t_sep / t_col:.2f}x |",
        ]
    )


def main(quick: bool = False) -> str:
    n = 20_000 if quick else 200_000
    repeats = 3 if quick else 5
    sections = [
        "## Streaming: per-sample and collection throughput",
        "",
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        + (f"river {__import__('river').__version__}" if rm is not None else "river not installed")
        + f", {platform.machine()}; {'quick' if quick else 'full'} run.",
        "",
    ]
    if rm is None:
        sections.append("river: not installed (per-sample comparison skipped)")
    else:
        sections.append(run_per_sample(n, repeats))
    sections += ["", run_batches(2_000_000 if not quick else 200_000, repeats)]
    text = "\n".join(sections)
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
