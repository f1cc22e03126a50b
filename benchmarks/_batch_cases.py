"""Batch-throughput cases, a few per metric family, timed by ``compare.py`` in each tree.

Every case feeds a fresh metric a stream in fixed-size batches and reads it once at the end
(``compute()`` is in the timing). Only the public API is used, so the same cases run on any
version of the library: the one imported is whichever ``streammetrics`` comes first on the path.

Run as a server (``compare.py`` starts one per tree): each line read on stdin is a cell key,
``family|case|batch``; each answer, one JSON line, is one timing of that cell (or the error it
raised on this version), so that two trees can be timed in alternation, cell by cell, each cell
visited again in every round.

    printf 'ranking|ROCAUC, binary (sketch)|100000\n' | python benchmarks/_batch_cases.py
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import bench_catalogue  # (this folder: the catalogue's cases and data)
import numpy as np

import streammetrics as sm

# CPU time of this process: on a shared machine, wall time also counts the other processes'
# turns, and the spread of best-of-N wall timings hides a 5% change.
CLOCK = time.process_time
Batches = list[tuple[Any, ...]]


@dataclass(frozen=True)
class Case:
    """One timed stream: a metric factory and the data it is fed (``scale`` shrinks a slow one)."""

    family: str
    name: str
    make: Callable[[], Any]
    data: Callable[[int], tuple[Any, ...]]
    scale: float = 1.0


def _labels(k: int) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    def make(n: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(k)
        y = rng.integers(0, k, n)
        return y, np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))

    return make


def _strings(k: int) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    def make(n: int) -> tuple[np.ndarray, np.ndarray]:
        names = np.array([f"c{i:03d}" for i in range(k)])
        y, p = _labels(k)(n)
        return names[y], names[p]

    return make


def _binary_proba(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    y = (rng.random(n) < 0.4).astype(np.int64)
    return y, 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.5 * (y - 0.4))))


def _multiclass_proba(k: int) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    def make(n: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(2)
        y = rng.integers(0, k, n)
        logits = rng.normal(size=(n, k))
        logits[np.arange(n), y] += 1.5
        proba = np.exp(logits)
        return y, proba / proba.sum(axis=1, keepdims=True)

    return make


def _regression(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    y = 5.0 + 2.0 * rng.standard_normal(n)
    return y, y + 0.3 + rng.standard_normal(n)


def _features(d: int, k: int) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    def make(n: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(4)
        y = rng.integers(0, k, n)
        centers = rng.normal(scale=3.0, size=(k, d))
        return centers[y] + rng.normal(size=(n, d)), y

    return make


def _collection(*make: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: sm.MetricCollection([m() for m in make])


CASES: list[Case] = [
    Case("classification", "Accuracy, binary labels", sm.Accuracy, _labels(2)),
    Case("classification", "F1 macro, 10 classes", lambda: sm.F1(average="macro"), _labels(10)),
    Case("classification", "ConfusionMatrix, 10 classes", sm.ConfusionMatrix, _labels(10)),
    Case("classification", "Accuracy, string labels", sm.Accuracy, _strings(5), scale=0.2),
    Case(
        "classification",
        "Accuracy(threshold=0.5), probabilities",
        lambda: sm.Accuracy(threshold=0.5),
        _binary_proba,
    ),
    Case(
        "classification",
        "collection: F1, Precision, Recall, MCC (3 classes)",
        _collection(
            lambda: sm.F1(average="macro"),
            lambda: sm.Precision(average="macro"),
            lambda: sm.Recall(average="macro"),
            sm.MCC,
        ),
        _labels(3),
    ),
    Case("ranking", "ROCAUC, binary (sketch)", sm.ROCAUC, _binary_proba),
    Case("ranking", "AveragePrecision, binary (sketch)", sm.AveragePrecision, _binary_proba),
    Case("ranking", "ROCAUC, 10-class probabilities", sm.ROCAUC, _multiclass_proba(10), scale=0.1),
    Case("probabilistic", "LogLoss, binary", sm.LogLoss, _binary_proba),
    Case("probabilistic", "LogLoss, 10 classes", sm.LogLoss, _multiclass_proba(10), scale=0.5),
    Case("probabilistic", "BrierScore, binary", sm.BrierScore, _binary_proba),
    Case("probabilistic", "CalibrationError, binary", sm.CalibrationError, _binary_proba),
    Case("regression", "R2", sm.R2, _regression),
    Case("regression", "MAE", sm.MAE, _regression),
    Case("regression", "collection: MAE, RMSE, R2", _collection(sm.MAE, sm.RMSE, sm.R2), _regression),
    Case("contingency", "AdjustedRandIndex, 20 x 20", sm.AdjustedRandIndex, _labels(20)),
    Case("contingency", "NormalizedMutualInfo, 1000 x 1000", sm.NormalizedMutualInfo, _labels(1000)),
    Case("contingency", "ContingencyTable, string labels", sm.ContingencyTable, _strings(20), scale=0.2),
    Case("clustering", "CalinskiHarabasz, 10 features, 10 clusters", sm.CalinskiHarabasz, _features(10, 10)),
    Case("clustering", "DaviesBouldin, 10 features, 10 clusters", sm.DaviesBouldin, _features(10, 10)),
]


def _catalogue_data(key: str) -> Callable[[int], tuple[Any, ...]]:
    def make(n: int) -> tuple[Any, ...]:
        data = bench_catalogue._data(np.random.default_rng(0), n)[key]
        return data if isinstance(data, tuple) else (data,)

    return make


# the per-row catalogue (issue 17): bench_catalogue's batch cases, with its data
CASES += [
    Case("catalogue", name, make, _catalogue_data(key))
    for name, make, key, _ in bench_catalogue.CASES
    if key is not None
]
FAMILIES = list(dict.fromkeys(c.family for c in CASES))


def keys(families: list[str]) -> list[str]:
    """``"family|case|batch"`` of every cell of these families, in a fixed order."""
    return [f"{c.family}|{c.name}|{b}" for c in CASES if c.family in families for b in (100_000, 256)]


def _batches(args: tuple[Any, ...], size: int) -> Batches:
    n = len(args[0])
    return [tuple(a[i : i + size] for a in args) for i in range(0, n, size)]


def _feed(case: Case, batches: Batches) -> None:
    m = case.make()
    for batch in batches:
        m.update(*batch)
    m.compute()


class Cell:
    """One case at one batch size: its data, built once, and its timing."""

    def __init__(self, key: str, rows: int, small_rows: int) -> None:
        family, name, batch = key.split("|")
        self.case = next(c for c in CASES if (c.family, c.name) == (family, name))
        size = int(batch)
        n = rows if size == 100_000 else small_rows
        self.rows = max(size, int(n * self.case.scale) // size * size)
        self.batches = _batches(self.case.data(self.rows), size)
        self.passes = 0

    def time(self, min_time: float) -> float:
        """Seconds per pass over the stream (a new metric, every batch, one compute()).

        The first call warms up and picks how many passes make one timing last ``min_time``.
        """
        if not self.passes:
            _feed(self.case, self.batches[:2])  # first-call imports and caches
            start = CLOCK()
            _feed(self.case, self.batches)
            self.passes = max(1, math.ceil(min_time / (CLOCK() - start)))
        start = CLOCK()
        for _ in range(self.passes):
            _feed(self.case, self.batches)
        return (CLOCK() - start) / self.passes


def serve(rows: int, small_rows: int, min_time: float) -> None:
    """Answer one timing per key read on stdin with one JSON line (``rows`` and ``seconds``, or
    ``error``); the first line out names the streammetrics imported and its compiled parts."""
    try:  # (the compiled parts this version runs; an older one may have none)
        from streammetrics._core import compiled

        kernels = getattr(compiled, "rowkernels", None)
        parts = {
            "one-value path": bool(getattr(compiled, "COMPILED", False)),
            "row kernels": bool(getattr(compiled, "ROW_KERNELS", False)),
            "AVX-512 rows": bool(getattr(kernels, "AVX512", 0)),
            "one-pass divergences": bool(getattr(compiled, "ONE_PASS_DIVERGENCES", False)),
        }
    except ImportError:
        parts = {}
    print(json.dumps({"streammetrics": sm.__file__, "compiled": parts}), flush=True)
    cells: dict[str, Cell] = {}  # every cell's data is kept: compare.py visits each several times
    for line in sys.stdin:
        key = line.strip()
        try:
            if key not in cells:
                cells[key] = Cell(key, rows, small_rows)
            reply: dict[str, Any] = {"rows": cells[key].rows, "seconds": cells[key].time(min_time)}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        print(json.dumps(reply), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000, help="rows per stream in batches of 100k")
    parser.add_argument("--small-rows", type=int, default=256 * 200, help="rows per stream in batches of 256")
    parser.add_argument("--min-time", type=float, default=0.1, help="seconds one timing lasts at least")
    args = parser.parse_args(argv)
    serve(args.rows, args.small_rows, args.min_time)


if __name__ == "__main__":
    main()
