"""A mixed collection, {Accuracy, F1, ROCAUC, LogLoss} fed ``(y, proba)``, vs its members fed separately.

    python benchmarks/bench_collection_mixed.py [--quick]

The most common logging set mixes metric kinds: two confusion metrics that threshold (binary) or
take the arg-max (multiclass) of the probabilities, a ranking metric and a probabilistic one. The
collection is fed the same ``(y, proba)`` batches as the four members fed one after the other;
the cost per batch is reported for small (256 rows) and large (100k rows) batches. Where the
collection is refused (members that cannot share one prediction argument), its cell says so and
the rest of the table is still measured, so that the same script runs on every version.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's streammetrics
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _timing
from _timing import markdown_table

import streammetrics as sm

# CPU time of this process: the loops are single-threaded Python and NumPy, and on a shared
# machine wall time also counts the other processes' turns (several times the work itself).
CLOCK = time.process_time

N_CLASSES = 10


def members(task: str) -> dict[str, Any]:
    """The four metrics, new and empty, configured for ``task`` ("binary" or "multiclass")."""
    if task == "binary":
        return {
            "acc": sm.Accuracy(threshold=0.5),
            "f1": sm.F1(threshold=0.5),
            "auc": sm.ROCAUC(),
            "ll": sm.LogLoss(),
        }
    return {"acc": sm.Accuracy(), "f1": sm.F1(average="macro"), "auc": sm.ROCAUC(), "ll": sm.LogLoss()}


def data(task: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Labels and probabilities: 1-D P(y = 1) (binary) or rows of ``N_CLASSES`` summing to 1."""
    rng = np.random.default_rng(seed)
    if task == "binary":
        y = (rng.random(n) < 0.4).astype(np.int64)
        return y, 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.5 * (y - 0.4))))
    y = rng.integers(0, N_CLASSES, n)
    logits = rng.normal(size=(n, N_CLASSES))
    logits[np.arange(n), y] += 1.5  # informative scores
    proba = np.exp(logits)
    return y, proba / proba.sum(axis=1, keepdims=True)


def _separate(task: str, batches: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float, dict]:
    ms = members(task)
    start = CLOCK()
    for yb, pb in batches:
        for m in ms.values():
            m.update(yb, pb)
    middle = CLOCK()
    values = {k: m.compute() for k, m in ms.items()}
    return middle - start, CLOCK() - middle, values


def _each_member(task: str, batches: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, float]:
    """Seconds of each member's update loop alone (where the separate time goes)."""
    out = {}
    for key, m in members(task).items():
        start = CLOCK()
        for yb, pb in batches:
            m.update(yb, pb)
        out[key] = CLOCK() - start
    return out


def _collection(task: str, batches: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float, dict]:
    c = sm.MetricCollection(members(task))
    start = CLOCK()
    for yb, pb in batches:
        c.update(yb, pb)
    middle = CLOCK()
    values = c.compute()
    return middle - start, CLOCK() - middle, values


def refusal(task: str) -> str | None:
    """Why today's collection refuses these members (``None`` when it takes them)."""
    y, p = data(task, 64, seed=1)
    try:
        sm.MetricCollection(members(task)).update(y, p)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _best(run: Callable[[], tuple[float, float, dict]], best: list[float]) -> dict:
    upd, fin, values = run()
    best[0], best[1] = min(best[0], upd), min(best[1], fin)
    return values


def _agree(a: dict, b: dict) -> bool:
    """The collection's values equal the separate members' (the collection may key them flat)."""
    flat = {k: v for k, v in b.items() if k in a}
    return len(flat) == len(a) and all(np.allclose(a[k], flat[k], rtol=1e-12, atol=0) for k in a)


def measure(
    n_small: int, n_large: int, repeats: int
) -> tuple[list[list[object]], list[list[object]], dict[str, str]]:
    rows: list[list[object]] = []
    breakdown: list[list[object]] = []
    refused: dict[str, str] = {}
    for task in ("binary", "multiclass"):
        why = refusal(task)
        if why is not None:
            refused[task] = why
        for batch, n in ((256, n_small), (100_000, n_large)):
            y, p = data(task, n)
            batches = [(y[i : i + batch], p[i : i + batch]) for i in range(0, n, batch)]
            sep, col = [float("inf")] * 2, [float("inf")] * 2
            each = dict.fromkeys(members(task), float("inf"))
            sep_values = col_values = None
            for _ in range(repeats):  # interleaved, so that load changes hit every contender alike
                sep_values = _best(lambda: _separate(task, batches), sep)  # noqa: B023
                if why is None:
                    col_values = _best(lambda: _collection(task, batches), col)  # noqa: B023
                for key, seconds in _each_member(task, batches).items():
                    each[key] = min(each[key], seconds)
            per = 1e6 / len(batches)
            row: list[object] = [task, f"{batch:,}", f"{len(batches):,}", f"{sep[0] * per:,.1f}"]
            if why is None:
                assert sep_values is not None and col_values is not None
                row += [
                    f"{col[0] * per:,.1f}",
                    f"{col[0] / sep[0]:.2f}",
                    f"{sep[1] * 1e6:,.0f}",
                    f"{col[1] * 1e6:,.0f}",
                    "yes" if _agree(sep_values, col_values) else "**no**",
                ]
            else:
                row += ["refused", "", f"{sep[1] * 1e6:,.0f}", "refused", ""]
            rows.append(row)
            breakdown.append([task, f"{batch:,}", *(f"{each[k] * per:,.1f}" for k in each)])
    return rows, breakdown, refused


def main(quick: bool = False) -> str:
    n_small = 256 * (50 if quick else 400)
    n_large = 200_000 if quick else 1_000_000
    repeats = 3 if quick else 5
    rows, breakdown, refused = measure(n_small, n_large, repeats)
    header = [
        "task",
        "batch rows",
        "batches",
        "separate µs/batch",
        "collection µs/batch",
        "collection / separate",
        "separate compute() µs",
        "collection compute() µs",
        "same values",
    ]
    lines = [
        "## Mixed collection: {Accuracy, F1, ROCAUC, LogLoss} fed (y, proba)",
        "",
        f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()}; "
        f"{'quick' if quick else 'full'} run.",
        "",
        "Binary: `Accuracy(threshold=0.5)`, `F1(threshold=0.5)`, `ROCAUC()`, `LogLoss()` fed 1-D "
        f"probabilities (40% positives). Multiclass ({N_CLASSES} classes): `Accuracy()`, "
        '`F1(average="macro")` (both take the arg-max), `ROCAUC()`, `LogLoss()` fed rows of '
        f"probabilities summing to 1. *separate* feeds the four metrics one after the other "
        f"with the same `(y, proba)` batch; *collection* is one `MetricCollection` of the same "
        f"four. CPU µs per batch of the update loop alone (best of {repeats} interleaved "
        "repeats, divided by the number of batches); the final `compute()` is timed apart (µs, once per "
        "stream). collection / separate < 1: the collection is cheaper (target: <= 1).",
        "",
        markdown_table(header, rows),
        "",
        "Where the separate time goes: each member's update loop alone, µs per batch (timed "
        "apart, same batches, best of the same repeats).",
        "",
        markdown_table(["task", "batch rows", *members("binary")], breakdown),
    ]
    for task, why in refused.items():
        lines += ["", f"The {task} collection is refused: `{why}`"]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter streams")
    main(parser.parse_args().quick)
