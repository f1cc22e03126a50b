"""Issue 17 catalogue (per-row values): batch throughput on batches of 100k and of 256 rows, per-row
updates, against torchmetrics (CPU, float64, its update on the same batches) and river (one row at a time).

Run from the repository root: ``python -m benchmarks.bench_catalogue [--quick] [--cold-allocator]``
(as a module, so that the checkout's ``streammetrics`` is imported, not an installed one). Numbers
are rows per second (best of 3); ratios are ours over the peer, measured in the same run.

``--cold-allocator`` runs the benchmark with glibc's mmap threshold fixed at 128 KiB
(``MALLOC_MMAP_THRESHOLD_``), as in a process that has not yet freed a large block: every fresh
temporary of 128 KiB or more is then mapped afresh and page-faults on every call. A plain run
inherits whatever threshold the data generation left (glibc raises it when a mapped block is
freed), so the two bracket what a user's process sees.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import streammetrics as sm

try:
    from ._timing import best_time, markdown_table
except ImportError:  # run as a script
    from _timing import best_time, markdown_table  # type: ignore[no-redef]

BATCH = 100_000
#: The batch of the training-step table (per-update costs, not passes, dominate there).
SMALL_BATCH = 256


def _data(rng: np.random.Generator, n: int) -> dict[str, Any]:
    y = rng.gamma(2.0, 2.0, n) + 0.1
    k = 5
    labels = rng.integers(0, k, n)
    scores = rng.standard_normal((n, k))
    proba = rng.dirichlet(np.ones(k), n)
    binary = rng.integers(0, 2, n)
    return {
        "values": y,
        "pair": (y, y * rng.uniform(0.5, 1.5, n)),
        "ensemble": (y, y[:, None] + rng.standard_normal((n, 8))),
        "vectors": (rng.standard_normal((n, 8)), rng.standard_normal((n, 8))),
        "scores": (labels, scores),
        "labels": (labels, rng.integers(0, k, n)),
        "margins": (2 * binary - 1, rng.standard_normal(n)),
        "dists": (proba, rng.dirichlet(np.ones(k), n)),
        "binary": (binary, rng.uniform(0.01, 0.99, n)),
        "multiproba": (labels, proba),
        "multilabel": ((rng.random((n, k)) < 0.4).astype(int), rng.standard_normal((n, k))),
        "multilabel16": ((rng.random((n, 16)) < 0.4).astype(int), rng.standard_normal((n, 16))),
    }


#: (name, factory, data key, torchmetrics factory name and kwargs or None, its argument order)
CASES: list[tuple[str, Callable[[], Any], str, Any]] = [
    ("Mean", sm.Mean, "values", ("aggregation", "MeanMetric", {})),
    ("Sum", sm.Sum, "values", ("aggregation", "SumMetric", {})),
    ("Max", sm.Max, "values", ("aggregation", "MaxMetric", {})),
    ("PinballLoss", lambda: sm.PinballLoss(0.9), "pair", None),
    (
        "TweedieDeviance(1.5)",
        lambda: sm.TweedieDeviance(1.5),
        "pair",
        ("regression", "TweedieDevianceScore", {"power": 1.5}),
    ),
    ("PoissonDeviance", sm.PoissonDeviance, "pair", None),
    ("D2TweedieScore(1)", lambda: sm.D2TweedieScore(1), "pair", None),
    ("LogCoshError", sm.LogCoshError, "pair", ("regression", "LogCoshError", {})),
    ("SMAPE", sm.SMAPE, "pair", ("regression", "SymmetricMeanAbsolutePercentageError", {})),
    ("WMAPE", sm.WMAPE, "pair", ("regression", "WeightedMeanAbsolutePercentageError", {})),
    ("NRMSE", sm.NRMSE, "pair", ("regression", "NormalizedRootMeanSquaredError", {})),
    (
        "MinkowskiDistance(3)",
        lambda: sm.MinkowskiDistance(3),
        "pair",
        ("regression", "MinkowskiDistance", {"p": 3}),
    ),
    ("CosineSimilarity (d=8)", sm.CosineSimilarity, "vectors", ("regression", "CosineSimilarity", {})),
    ("CRPS (m=8)", sm.CRPS, "ensemble", ("regression", "ContinuousRankedProbabilityScore", {})),
    (
        "TopKAccuracy (C=5)",
        sm.TopKAccuracy,
        "scores",
        ("classification", "MulticlassAccuracy", {"num_classes": 5, "top_k": 2, "average": "micro"}),
    ),
    ("HingeLoss (binary)", sm.HingeLoss, "margins", None),
    (
        "HingeLoss (C=5)",
        sm.HingeLoss,
        "scores",
        ("classification", "MulticlassHingeLoss", {"num_classes": 5}),
    ),
    ("ZeroOneLoss", sm.ZeroOneLoss, "labels", None),
    ("KLDivergence", sm.KLDivergence, "dists", ("regression", "KLDivergence", {})),
    (
        "JensenShannonDivergence",
        sm.JensenShannonDivergence,
        "dists",
        ("regression", "JensenShannonDivergence", {}),
    ),
    ("NormalizedEntropy", sm.NormalizedEntropy, "binary", None),
    ("WeightedCalibration", sm.WeightedCalibration, "binary", None),
    ("D2LogLossScore (C=5)", sm.D2LogLossScore, "multiproba", None),
    ("D2BrierScore (C=5)", sm.D2BrierScore, "multiproba", None),
    (
        "CoverageError (L=5)",
        sm.CoverageError,
        "multilabel",
        ("classification", "MultilabelCoverageError", {"num_labels": 5}),
    ),
    (
        "LabelRankingAveragePrecision (L=5)",
        sm.LabelRankingAveragePrecision,
        "multilabel",
        ("classification", "MultilabelRankingAveragePrecision", {"num_labels": 5}),
    ),
    (
        "LabelRankingLoss (L=5)",
        sm.LabelRankingLoss,
        "multilabel",
        ("classification", "MultilabelRankingLoss", {"num_labels": 5}),
    ),
    ("DCG (5 documents)", sm.DCG, "multilabel", None),
    ("NDCG(3) (5 documents)", lambda: sm.NDCG(3), "multilabel", None),
    ("DCG, ignore_ties (5 documents)", lambda: sm.DCG(ignore_ties=True), "multilabel", None),
    ("NDCG (5 documents)", sm.NDCG, "multilabel", None),
    ("DCG (16 documents)", sm.DCG, "multilabel16", None),
    ("NDCG (16 documents)", sm.NDCG, "multilabel16", None),
    (
        "CoverageError (L=16)",
        sm.CoverageError,
        "multilabel16",
        ("classification", "MultilabelCoverageError", {"num_labels": 16}),
    ),
    (
        "LabelRankingAveragePrecision (L=16)",
        sm.LabelRankingAveragePrecision,
        "multilabel16",
        ("classification", "MultilabelRankingAveragePrecision", {"num_labels": 16}),
    ),
    (
        "LabelRankingLoss (L=16)",
        sm.LabelRankingLoss,
        "multilabel16",
        ("classification", "MultilabelRankingLoss", {"num_labels": 16}),
    ),
    (
        "NRMSE(range)",
        lambda: sm.NRMSE("range"),
        "pair",
        ("regression", "NormalizedRootMeanSquaredError", {"normalization": "range"}),
    ),
]

#: The transcendental functions a metric cannot avoid, on the same batches (NumPy float64 on one
#: thread: ``log``, ``exp``, ``log1p`` are scalar libm calls on a CPU without AVX-512): no
#: implementation calling NumPy's can update faster than this "floor". (The KL and JS kernels
#: call glibc's vector logarithms on registers, with no batch-sized arrays: they can pass it.)
FLOORS: dict[str, Callable[..., Any]] = {
    "PoissonDeviance": lambda y, p: np.log(y / p),  # y log(y / p)
    "D2TweedieScore(1)": lambda y, p: (np.log(y / p), np.log(y)),  # and the null model's y log y
    "LogCoshError": lambda y, p: np.log1p(np.exp(-2.0 * np.abs(p - y))),
    "KLDivergence": lambda p, q: np.log(p / q),  # one per class
    "JensenShannonDivergence": lambda p, q: (np.log(p / (p + q)), np.log(q / (p + q))),  # two per class
    "NormalizedEntropy": lambda y, p: np.log(p),  # one per row (log p or log(1 - p))
    "D2LogLossScore (C=5)": lambda y, p: np.log(p[:, 0]),  # the true class's
}

#: river metrics fed one row at a time, against our per-row path (``update(y, p)`` with floats).
RIVER = [
    ("Mean", lambda: sm.Mean(), "stats.Mean", "values"),
    ("Sum", lambda: sm.Sum(), "stats.Sum", "values"),
    ("Max", lambda: sm.Max(), "stats.Max", "values"),
    ("SMAPE", sm.SMAPE, "metrics.SMAPE", "pair"),
    ("PinballLoss", lambda: sm.PinballLoss(0.5), None, "pair"),
    ("PoissonDeviance", sm.PoissonDeviance, None, "pair"),
    ("NormalizedEntropy", sm.NormalizedEntropy, None, "binary"),
]


def _torch_metric(spec: Any) -> Any:
    import torch
    import torchmetrics

    module, name, kwargs = spec
    cls = getattr(getattr(torchmetrics, module), name)
    return cls(**kwargs), torch


def bench_batches(n: int, batch: int = BATCH, floors: bool = True) -> list[list[object]]:
    data = _data(np.random.default_rng(0), n)
    rows: list[list[object]] = []
    for name, make, key, spec in CASES:
        args = data[key] if isinstance(data[key], tuple) else (data[key],)
        chunks = [tuple(a[i : i + batch] for a in args) for i in range(0, n, batch)]

        def ours(chunks=chunks, make=make) -> None:
            m = make()
            for c in chunks:
                m.update(*c)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.compute()

        t_ours = best_time(ours)
        peer = "—"
        if spec is not None:
            try:
                _, torch = _torch_metric(spec)
                tensors = [tuple(torch.as_tensor(a) for a in c) for c in chunks]
                if (
                    spec[0] in ("regression", "aggregation") and len(args) == 2
                ):  # torchmetrics: (preds, target)
                    tensors = [(b, a) for a, b in tensors]
                if spec[0] == "classification":
                    tensors = [(b, a) for a, b in tensors]

                def theirs(tensors=tensors, spec=spec) -> None:
                    m, _ = _torch_metric(spec)
                    for c in tensors:
                        m.update(*c)
                    m.compute()

                peer = f"{best_time(theirs) / t_ours:.1f}x"
            except Exception as err:  # a peer that refuses the data: say so
                peer = f"n/a ({type(err).__name__})"
        floor = "—"
        if name in FLOORS:
            bound = FLOORS[name]

            def bare(chunks=chunks, bound=bound) -> None:
                with np.errstate(all="ignore"):
                    for c in chunks:
                        bound(*c)

            floor = f"{n / best_time(bare) / 1e6:.0f}"
        speed = f"{n / t_ours / 1e6:.0f}" if batch >= 10_000 else f"{n / t_ours / 1e6:.1f}"
        rows.append([name, speed, peer, floor] if floors else [name, speed, peer])
    return rows


def bench_rows(n: int) -> list[list[object]]:
    data = _data(np.random.default_rng(1), n)
    rows: list[list[object]] = []
    for name, make, river_name, key in RIVER:
        args = data[key] if isinstance(data[key], tuple) else (data[key],)
        lists = [a.astype(float).tolist() for a in args]

        def ours(lists=lists, make=make) -> None:
            m = make()
            update = m.update
            if len(lists) == 1:
                for x in lists[0]:
                    update(x)
            else:
                for a, b in zip(*lists, strict=True):
                    update(a, b)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.compute()

        t_ours = best_time(ours, repeat=2)
        peer = "—"
        if river_name is not None:
            import river.metrics
            import river.stats

            module, cls = river_name.split(".")
            factory = getattr({"stats": river.stats, "metrics": river.metrics}[module], cls)

            def theirs(lists=lists, factory=factory) -> None:
                m = factory()
                update = m.update
                if len(lists) == 1:
                    for x in lists[0]:
                        update(x)
                else:
                    for a, b in zip(*lists, strict=True):
                        update(a, b)
                m.get()

            peer = f"{best_time(theirs, repeat=2) / t_ours:.1f}x"
        rows.append([name, f"{n / t_ours / 1e6:.2f}", peer])
    return rows


#: The environment of ``--cold-allocator``: glibc's mmap threshold fixed at its default, 128 KiB
#: (fixing it also stops glibc from raising it when a mapped block is freed).
COLD_ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}

#: Threads torch may use (NumPy's element-wise work here runs on one): set by ``main``.
TORCH_THREADS = 1


def main(quick: bool = False, torch_threads: int = TORCH_THREADS) -> str:
    n = 500_000 if quick else 2_000_000
    n_small = 200 * SMALL_BATCH if quick else 1000 * SMALL_BATCH
    n_rows = 50_000 if quick else 200_000
    try:
        import torch

        torch.set_num_threads(torch_threads)
    except ImportError:
        pass
    cold = os.environ.get("MALLOC_MMAP_THRESHOLD_") == COLD_ALLOCATOR["MALLOC_MMAP_THRESHOLD_"]
    out = [
        f"Batches of {BATCH:,} rows, {n:,} rows in all: M rows/s, and torchmetrics' time over ours "
        f"(torch on {torch_threads} thread{'s' if torch_threads > 1 else ''}"
        f"{'; glibc mmap threshold fixed at 128 KiB' if cold else ''})",
        markdown_table(
            ["metric", "M rows/s", "torchmetrics time / ours", "floor: NumPy's log/exp alone, M rows/s"],
            bench_batches(n),
        ),
        "",
        f"Batches of {SMALL_BATCH} rows (a training step's), {n_small:,} rows in all: M rows/s, and "
        "torchmetrics' time over ours",
        markdown_table(
            ["metric", "M rows/s", "torchmetrics time / ours"],
            bench_batches(n_small, SMALL_BATCH, floors=False),
        ),
        "",
        f"One row at a time ({n_rows:,} rows, Python floats): M rows/s, and river's time over ours",
        markdown_table(["metric", "M rows/s", "river time / ours"], bench_rows(n_rows)),
    ]
    return "\n".join(out)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500k rows in batches, 50k one at a time")
    parser.add_argument(
        "--torch-threads", type=int, default=TORCH_THREADS, help="threads torch may use (default 1, as NumPy)"
    )
    parser.add_argument(
        "--cold-allocator",
        action="store_true",
        help="fix glibc's mmap threshold at 128 KiB (every large fresh temporary page-faults)",
    )
    args = parser.parse_args()
    if args.cold_allocator and os.environ.get("MALLOC_MMAP_THRESHOLD_") is None:
        # (glibc reads the variable at start-up: the benchmark starts again with it set)
        os.execve(sys.executable, sys.orig_argv, {**os.environ, **COLD_ALLOCATOR})
    print(main(quick=args.quick, torch_threads=args.torch_threads))
