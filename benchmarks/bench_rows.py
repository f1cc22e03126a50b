"""One row at a time: ``metric.update(y, p)`` with Python scalars, binary probabilities, vs river.

    python benchmarks/bench_rows.py [--quick]

Every metric that takes a probability (ranking, probabilistic, thresholded confusion metrics) is
fed the same stream of ``(y, p)`` pairs, ``y`` an int in {0, 1} and ``p`` a float probability,
one ``update`` call per row, and measured in the same run as river's equivalent where river has
one. Contenders are interleaved and each cell is the best of several repeats (CPU time). A
slow row path is timed on a prefix of the stream (the table says how many rows), so that one
slow metric does not take the whole run.
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

try:
    from river import metrics as rm
except ImportError:  # pragma: no cover - reported as "not installed"
    rm = None

TARGET_US = 5.0  # the per-row budget for a metric river does not have


def stream(n: int, seed: int = 0) -> tuple[list[int], list[float]]:
    """``n`` binary labels (40% positives) and informative, calibrated-looking probabilities."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    logit = rng.normal(size=n) + 1.5 * (y - 0.4)
    p = 1.0 / (1.0 + np.exp(-logit))
    return y.tolist(), p.tolist()


def _reference(name: str, y: list[int], p: list[float]) -> float | None:
    """scikit-learn's value on the rows fed (``None`` where it has no such metric)."""
    from sklearn import metrics as skm

    labels = [int(v >= 0.5) for v in p]
    refs: dict[str, Callable[[], float]] = {
        "ROCAUC": lambda: skm.roc_auc_score(y, p),
        "AveragePrecision": lambda: skm.average_precision_score(y, p),
        "LogLoss": lambda: skm.log_loss(y, p, labels=[0, 1]),
        "BrierScore": lambda: skm.brier_score_loss(y, p),
        "Accuracy(threshold=0.5)": lambda: skm.accuracy_score(y, labels),
        "F1(threshold=0.5)": lambda: skm.f1_score(y, labels),
    }
    return float(refs[name]()) if name in refs else None


def cases() -> list[tuple[str, Callable[[], Any], Callable[[], Any] | None, str]]:
    """(name, make ours, make river's or None, how river is fed)."""
    river: dict[str, tuple[Callable[[], Any], str]] = {}
    if rm is not None:
        river = {
            "ROCAUC": (rm.ROCAUC, "`ROCAUC()`: 10 thresholds (approximate), fed p"),
            "LogLoss": (rm.LogLoss, "fed p"),
            "Accuracy(threshold=0.5)": (rm.Accuracy, "fed the label `p >= 0.5`, computed beforehand"),
            "F1(threshold=0.5)": (rm.F1, "fed the label `p >= 0.5`, computed beforehand"),
        }
    ours: dict[str, Callable[[], Any]] = {
        "ROCAUC": sm.ROCAUC,
        "AveragePrecision": sm.AveragePrecision,
        "LogLoss": sm.LogLoss,
        "BrierScore": sm.BrierScore,
        "CalibrationError": sm.CalibrationError,
        "Accuracy(threshold=0.5)": lambda: sm.Accuracy(threshold=0.5),
        "F1(threshold=0.5)": lambda: sm.F1(threshold=0.5),
    }
    out = []
    for name, make in ours.items():
        theirs, how = river.get(name, (None, ""))
        out.append((name, make, theirs, how))
    return out


def _run(make: Callable[[], Any], ys: list[Any], ps: list[Any], read: str) -> tuple[float, float, Any]:
    """Seconds for the update loop, seconds for the final read, and the value read."""
    m = make()
    f = m.update  # taken once, as a streaming loop does
    start = CLOCK()
    for a, b in zip(ys, ps, strict=True):
        f(a, b)
    middle = CLOCK()
    value = getattr(m, read)()
    return middle - start, CLOCK() - middle, value


def _rows_within(make: Callable[[], Any], ys: list[Any], ps: list[Any], read: str, budget: float) -> int:
    """How many rows one timed run may take: all of them unless a 1,000-row probe says the
    whole stream would exceed ``budget`` seconds (then a prefix of at least 1,000 rows)."""
    probe = min(1_000, len(ys))
    seconds, _, _ = _run(make, ys[:probe], ps[:probe], read)
    if seconds / probe * len(ys) <= budget:
        return len(ys)
    return max(probe, int(budget / (seconds / probe)) // 1_000 * 1_000)


def measure(n: int, repeats: int, budget: float) -> tuple[list[list[object]], dict[str, str]]:
    ys, ps = stream(n)
    labels = [v >= 0.5 for v in ps]  # river's Accuracy and F1 take a label, not a probability
    rows: list[list[object]] = []
    notes: dict[str, str] = {}
    for name, ours, theirs, how in cases():
        k_ours = _rows_within(ours, ys, ps, "compute", budget)
        contenders = {"ours": (ours, ps, "compute", k_ours)}
        if theirs is not None:
            fed = labels if "label" in how else ps
            contenders["river"] = (theirs, fed, "get", _rows_within(theirs, ys, fed, "get", budget))
            notes[name] = how
        best: dict[str, list[float]] = {k: [float("inf"), float("inf")] for k in contenders}
        values: dict[str, Any] = {}
        for _ in range(repeats):  # interleaved, so that load changes hit every contender alike
            for key, (make, fed, read, k) in contenders.items():
                upd, fin, values[key] = _run(make, ys[:k], fed[:k], read)
                best[key] = [min(best[key][0], upd), min(best[key][1], fin)]
        ref = _reference(name, ys[:k_ours], ps[:k_ours])
        row: list[object] = [name, f"{k_ours:,}"]
        upd, fin = best["ours"]
        ours_total = (upd + fin) / k_ours * 1e6
        row += [f"{upd / k_ours * 1e6:.2f}", f"{fin * 1e6:.0f}", f"{ours_total:.2f}"]
        row.append("n/a" if ref is None else f"{abs(values['ours'] - ref):.1e}")
        if theirs is None:
            row += ["", "", "", f"<= {TARGET_US:g} µs", "yes" if ours_total <= TARGET_US else "**no**"]
        else:
            k_river = contenders["river"][3]
            r_upd, r_fin = best["river"]
            river_total = (r_upd + r_fin) / k_river * 1e6
            river_ref = _reference(name, ys[:k_river], ps[:k_river])
            row += [
                f"{river_total:.2f}",
                f"{abs(values['river'] - river_ref):.1e}" if river_ref is not None else "n/a",
                f"{river_total / ours_total:.2f}x",
                "<= river",
                "yes" if ours_total <= river_total else "**no**",
            ]
        rows.append(row)
    return rows, notes


def main(quick: bool = False) -> str:
    n = 20_000 if quick else 200_000
    repeats = 3 if quick else 5
    budget = 0.3 if quick else 3.0  # seconds one timed run may take before it is cut to a prefix
    rows, notes = measure(n, repeats, budget)
    header = [
        "metric",
        "rows timed",
        "update µs/row",
        "compute() µs",
        "µs/row (compute amortized)",
        "error vs sklearn",
        "river µs/row",
        "river error",
        "river / ours",
        "target",
        "met",
    ]
    river = f"river {__import__('river').__version__}" if rm is not None else "river not installed"
    lines = [
        "## One row at a time: `metric.update(y, p)` with Python scalars",
        "",
        f"Python {platform.python_version()}, NumPy {np.__version__}, {river}, {platform.machine()}; "
        f"{'quick' if quick else 'full'} run.",
        "",
        f"A stream of {n:,} binary rows (`y` an int, 40% positives; `p` a float probability), one "
        f"`update` call per row with the bound method taken once; CPU time of the process, best of "
        f"{repeats} interleaved repeats. *update µs/row* is the loop alone; *compute() µs* the one final `compute()` "
        "(river: `get()`), which includes the flush of any buffered rows; *µs/row (compute "
        "amortized)* is (loop + final read) / rows, the figure the target applies to and the one "
        "the ratio uses (river / ours > 1: streammetrics faster). *rows timed* is the prefix a "
        "slow row path was cut to (river is cut the same way, separately). Errors are absolute, "
        "against scikit-learn on the rows fed (no scikit-learn equivalent for calibration "
        "error). Metrics river lacks are held to the issue's 5 µs target.",
        "",
        markdown_table(header, rows),
        "",
        "How river is fed: " + "; ".join(f"{k}: {v}" for k, v in notes.items()) + "."
        if notes
        else "river not installed: every metric is held to the 5 µs target.",
    ]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k rows instead of 200k")
    main(parser.parse_args().quick)
