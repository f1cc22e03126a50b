"""One row at a time: ``metric.update(...)`` with Python scalars, vs river.

    python benchmarks/bench_rows.py [--quick] [--only NAME[,NAME]]

Two tables. The first: every metric that takes a probability (ranking, probabilistic,
thresholded confusion metrics) is fed the same stream of ``(y, p)`` pairs, ``y`` an int in
{0, 1} and ``p`` a float probability, one ``update`` call per row, and measured in the same run
as river's equivalent where river has one, with its error against scikit-learn. The second:
every metric ``streammetrics`` exports (each concrete class built with its defaults, plus
configured instances of the classes that need arguments: the wrappers, ``AdjustedR2``,
``ExpectedCost``), each fed the rows its ``roles`` and ``prediction`` say it takes, against
river's metric of the same name where there is one. Contenders are interleaved and each cell is
the best of several repeats (CPU time). A slow row path is timed on a prefix of the stream (the
table says how many rows), so that one slow metric does not take the whole run.
"""

from __future__ import annotations

import argparse
import inspect
import numbers
import platform
import sys
import time
import warnings
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


# ------------------------------------------------------------------ every exported metric
#: How each kind of row is described in the table.
ROW_KINDS = {
    "labels": "(y, label): two ints in {0, 1}",
    "scores": "(y, p): int, float probability",
    "values": "(y, ŷ): two positive floats",
    "clusters": "(true, pred): two ints in 0..4",
    "points": "(x, label): float64 row of 3, int in 0..2",
    "mcnemar": "(y, a, b): three ints in {0, 1}",
}


def every_stream(n: int, seed: int = 1) -> dict[str, tuple[list[Any], ...]]:
    """The columns of ``n`` rows of each kind (Python scalars; NumPy rows for the points)."""
    ys, ps = stream(n, seed)
    labels = [int(v >= 0.5) for v in ps]
    rng = np.random.default_rng(seed)
    truth = rng.lognormal(0.0, 1.0, n)  # positive, so that MAPE and the log errors are defined
    pred = truth * rng.lognormal(0.0, 0.3, n)
    true_c = rng.integers(0, 5, n)
    pred_c = np.where(rng.random(n) < 0.7, true_c, rng.integers(0, 5, n))
    centers = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]])
    member = rng.integers(0, 3, n)
    points = centers[member] + rng.normal(size=(n, 3))
    other = [int(y != (v < 0.2)) for y, v in zip(ys, rng.random(n).tolist(), strict=True)]
    return {
        "labels": (ys, labels),
        "scores": (ys, ps),
        "values": (truth.tolist(), pred.tolist()),
        "clusters": (true_c.tolist(), pred_c.tolist()),
        "points": (list(points), member.tolist()),
        "mcnemar": (ys, labels, other),
    }


def row_kind(metric: Any) -> str | None:
    """The kind of row ``metric`` takes, from its ``roles`` and ``prediction`` (a wrapper's: its
    inner metric's; a collection's: its first member's, as members are fed alike). The
    confusion family declares ``prediction`` per instance ("labels", or "scores" with a
    threshold), so the instance's attributes are read, not the class's."""
    from streammetrics._core.onerow import innermost

    if isinstance(metric, sm.Sliced):  # keyed (Sliced, fairness): rows carry a key too
        return None
    members = getattr(metric, "_members", None)
    if members:
        return row_kind(next(iter(members.values())))
    inner = innermost(metric)
    roles = tuple(inner.roles)
    if roles == ("y_true", "pred_a", "pred_b"):
        return "mcnemar"
    if roles == ("X", "labels"):
        return "points"
    if roles == ("labels_true", "labels_pred") or inner.prediction == "clusters":
        return "clusters"
    if inner.prediction in ("labels", "scores", "values") and len(roles) == 2:
        return str(inner.prediction)
    return None


#: Configured instances of the classes that need arguments (timed after the class's own row).
CONFIGURED: dict[str, list[tuple[str, Callable[[], Any]]]] = {
    "RateMean": [("RateMean(kind='geometric')", lambda: sm.RateMean(kind="geometric"))],
    "ExpectedCost": [
        ("ExpectedCost(costs=[[0, 1], [5, 0]])", lambda: sm.ExpectedCost(costs=[[0, 1], [5, 0]]))
    ],
    "AdjustedR2": [("AdjustedR2(n_features=3)", lambda: sm.AdjustedR2(n_features=3))],
    "MetricCollection": [
        ("MetricCollection([Accuracy(), F1()])", lambda: sm.MetricCollection([sm.Accuracy(), sm.F1()]))
    ],
    "Rolling": [("Rolling(Accuracy(), window=1000)", lambda: sm.Rolling(sm.Accuracy(), window=1000))],
    "Decayed": [("Decayed(MAE(), half_life=1000)", lambda: sm.Decayed(sm.MAE(), half_life=1000))],
    "Bootstrap": [
        ("Bootstrap(Accuracy())", lambda: sm.Bootstrap(sm.Accuracy())),
        ("Bootstrap(MAE())", lambda: sm.Bootstrap(sm.MAE())),
        ("Bootstrap(R2())", lambda: sm.Bootstrap(sm.R2())),
        ("Bootstrap(LogLoss())", lambda: sm.Bootstrap(sm.LogLoss())),
        ("Bootstrap(ROCAUC())", lambda: sm.Bootstrap(sm.ROCAUC())),
        ("Bootstrap(AveragePrecision())", lambda: sm.Bootstrap(sm.AveragePrecision())),
    ],
}


def _river_adapter() -> Callable[[], Any]:
    from streammetrics.integrations.river import RiverMetric

    return lambda: RiverMetric(sm.Accuracy())


#: river's metric of the same name (same rows): (make, how it is read, value -> ours' scale, note).
def river_twins() -> dict[str, tuple[Callable[[], Any], Callable[[Any], Any], Callable[[Any], Any], str]]:
    if rm is None:
        return {}
    from river import utils as ru

    get = lambda m: m.get()  # noqa: E731
    same = lambda v: v  # noqa: E731
    twins: dict[str, tuple[Callable[[], Any], Callable[[Any], Any], Callable[[Any], Any], str]] = {
        name: (getattr(rm, river_name), get, same, "")
        for name, river_name in {
            "Accuracy": "Accuracy",
            "BalancedAccuracy": "BalancedAccuracy",
            "CohenKappa": "CohenKappa",
            "F1": "F1",
            "Jaccard": "Jaccard",
            "MCC": "MCC",
            "Precision": "Precision",
            "Recall": "Recall",
            "LogLoss": "LogLoss",
            "MAE": "MAE",
            "MSE": "MSE",
            "RMSE": "RMSE",
            "RMSLE": "RMSLE",
            "R2": "R2",
            "AdjustedMutualInfo": "AdjustedMutualInfo",
            "AdjustedRandIndex": "AdjustedRand",
            "Completeness": "Completeness",
            "FowlkesMallowsIndex": "FowlkesMallows",
            "Homogeneity": "Homogeneity",
            "MutualInfo": "MutualInfo",
            "NormalizedMutualInfo": "NormalizedMutualInfo",
            "RandIndex": "Rand",
        }.items()
    }
    twins["ROCAUC"] = (rm.ROCAUC, get, same, "`ROCAUC()`: 10 thresholds (approximate)")
    twins["FBeta"] = (lambda: rm.FBeta(beta=1.0), get, same, "`FBeta(beta=1.0)`")
    twins["VMeasure"] = (lambda: rm.VBeta(beta=1.0), get, same, "`VBeta(beta=1.0)`")
    twins["MAPE"] = (rm.MAPE, get, lambda v: v / 100, "a percentage (divided by 100 for the difference)")
    twins["RateMean(kind='geometric')"] = (
        rm.GeometricMean,
        get,
        same,
        "`GeometricMean()`: the geometric mean of the per-class recalls, i.e. of TPR and TNR",
    )
    twins["ConfusionMatrix"] = (rm.ConfusionMatrix, lambda m: m.data, same, "read as `.data` (no `get()`)")
    twins["ClassificationReport"] = (
        rm.ClassificationReport,
        repr,
        same,
        "read as `repr()`, the rendered report (no `get()`)",
    )
    twins["Rolling(Accuracy(), window=1000)"] = (
        lambda: ru.Rolling(rm.Accuracy(), window_size=1000),
        get,
        same,
        "`utils.Rolling(Accuracy(), window_size=1000)`",
    )
    twins["MetricCollection([Accuracy(), F1()])"] = (
        lambda: rm.Accuracy() + rm.F1(),
        get,
        same,
        "`Accuracy() + F1()` (a `metrics.base.Metrics`)",
    )
    twins["RiverMetric(Accuracy())"] = (rm.Accuracy, get, same, "")
    return twins


#: ``--only``: the class names the second table is cut to (all when empty).
ONLY: set[str] = set()


def every_case() -> list[tuple[str, Callable[[], Any] | None, Callable[[Any], Any], str]]:
    """(name, make or None, why not timed): each concrete exported metric, then its configured
    instances; ``RiverMetric(Accuracy())`` (the river adapter) last where river is installed."""
    cases = _every_case()
    return [c for c in cases if not ONLY or c[0].split("(")[0] in ONLY]


def _every_case() -> list[tuple[str, Callable[[], Any] | None, Callable[[Any], Any], str]]:
    compute = lambda m: m.compute()  # noqa: E731
    out: list[tuple[str, Callable[[], Any] | None, Callable[[Any], Any], str]] = []
    for name in sm.__all__:
        cls = getattr(sm, name)
        if not (inspect.isclass(cls) and issubclass(cls, sm.Metric)) or inspect.isabstract(cls):
            continue
        try:
            cls()
        except Exception as exc:  # the class needs arguments: say so, time the configured ones
            why = f"not built with defaults ({type(exc).__name__}: {exc})"
            if name in CONFIGURED:
                why += "; configured below"
            out.append((name, None, compute, why))
        else:
            out.append((name, cls, compute, ""))
        out += [(label, make, compute, "") for label, make in CONFIGURED.get(name, [])]
    if rm is not None:  # the river adapter: a river metric, read with get()
        out.append(("RiverMetric(Accuracy())", _river_adapter(), lambda m: m.get(), ""))
    return out


def _run_rows(
    make: Callable[[], Any], cols: tuple[list[Any], ...], read: Callable[[Any], Any]
) -> tuple[float, float, Any]:
    """Seconds for the update loop (the bound method taken once), seconds for the read, value."""
    m = make()
    f = m.update
    if len(cols) == 2:
        a_s, b_s = cols
        start = CLOCK()
        for a, b in zip(a_s, b_s, strict=True):
            f(a, b)
    else:
        a_s, b_s, c_s = cols
        start = CLOCK()
        for a, b, c in zip(a_s, b_s, c_s, strict=True):
            f(a, b, c)
    middle = CLOCK()
    value = read(m)
    return middle - start, CLOCK() - middle, value


def _prefix(cols: tuple[list[Any], ...], k: int) -> tuple[list[Any], ...]:
    return tuple(c[:k] for c in cols)


def _within(
    make: Callable[[], Any], cols: tuple[list[Any], ...], read: Callable[[Any], Any], budget: float
) -> int:
    """Rows one timed run (loop and read) may take: all of them, unless two probes (1,000 and
    2,000 rows) say the cost grows with the rows (the second costs at least 1.5 times the
    first) so that the whole stream would exceed ``budget`` seconds; then the prefix the budget
    allows (at least 1,000 rows). A read whose cost is fixed (a bounded sample's O(sample²)
    index) is not a reason to cut: over a prefix it would only weigh more per row."""
    n = len(cols[0])
    if n <= 2_000:
        _run_rows(make, _prefix(cols, 2), read)  # a metric refusing this kind of row says so here
        return n
    upd, fin, _ = _run_rows(make, _prefix(cols, 1_000), read)
    first = upd + fin
    if first / 1_000 * n <= budget:
        return n
    upd, fin, _ = _run_rows(make, _prefix(cols, 2_000), read)
    second = upd + fin
    if second < 1.5 * first:  # mostly a fixed cost (the slope itself drowns in its noise)
        return n
    slope = (second - first) / 1_000
    fixed = max(first - 1_000 * slope, 0.0)
    if fixed + slope * n <= budget:
        return n
    return min(n, max(1_000, int(max(budget - fixed, 0.0) / slope) // 1_000 * 1_000))


def _difference(ours: Any, theirs: Any) -> str:
    real = (numbers.Real, np.floating, np.integer)
    if isinstance(ours, real) and isinstance(theirs, real) and not isinstance(ours, bool):
        return f"{abs(float(ours) - float(theirs)):.1e}"
    return "n/a"


def measure_every(n: int, repeats: int, budget: float) -> tuple[list[list[object]], dict[str, str], int]:
    """The rows of the second table, river's notes, and how many metrics miss their target."""
    data = every_stream(n)
    twins = river_twins()
    rows: list[list[object]] = []
    notes: dict[str, str] = {}
    missed = 0
    blank = ["", "", "", "", "", "", "", "", ""]
    for name, make, ours_read, why in every_case():
        if make is None:
            rows.append([name, why, "", *blank, "n/a"])
            continue
        kind = row_kind(make())
        if kind is None:
            rows.append([name, "not timed: its roles and prediction name no kind of row", "", *blank, "n/a"])
            continue
        cols = data[kind]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                k_ours = _within(make, cols, ours_read, budget)
        except Exception as exc:
            rows.append(
                [
                    name,
                    f"not timed: refuses {ROW_KINDS[kind]} ({type(exc).__name__}: {exc})",
                    "",
                    *blank,
                    "n/a",
                ]
            )
            continue
        contenders: dict[str, tuple[Callable[[], Any], Callable[[Any], Any], int]] = {
            "ours": (make, ours_read, k_ours)
        }
        twin = twins.get(name)
        if twin is not None:
            r_make, r_read, _, how = twin
            contenders["river"] = (r_make, r_read, _within(r_make, cols, r_read, budget))
            if how:
                notes[name] = how
        best = {key: [float("inf"), float("inf")] for key in contenders}
        values: dict[str, Any] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(repeats):  # interleaved, so that load changes hit every contender alike
                for key, (mk, read, k) in contenders.items():
                    upd, fin, values[key] = _run_rows(mk, _prefix(cols, k), read)
                    best[key] = [min(best[key][0], upd), min(best[key][1], fin)]
        upd, fin = best["ours"]
        ours_total = (upd + fin) / k_ours * 1e6
        row: list[object] = [
            name,
            ROW_KINDS[kind],
            f"{k_ours:,}",
            f"{upd / k_ours * 1e6:.2f}",
            f"{fin * 1e6:.0f}",
        ]
        row.append(f"{ours_total:.2f}")
        if twin is None:
            met = ours_total <= TARGET_US
            row += ["", "", "", "", "", f"<= {TARGET_US:g} µs"]
        else:
            k_river = contenders["river"][2]
            r_upd, r_fin = best["river"]
            river_total = (r_upd + r_fin) / k_river * 1e6
            met = ours_total <= river_total
            same_rows = k_river == k_ours
            diff = (
                _difference(values["ours"], twin[2](values["river"]))
                if same_rows
                else "n/a (prefixes differ)"
            )
            row += [
                "yes",
                f"{k_river:,}",
                f"{river_total:.2f}",
                f"{river_total / ours_total:.2f}x",
                diff,
                "<= river",
            ]
        missed += not met
        row.append("yes" if met else "**no**")
        rows.append(row)
    return rows, notes, missed


def every_section(quick: bool) -> list[str]:
    n = 300 if quick else 50_000  # quick: a smoke run (the sampled indices' compute dominates)
    repeats = 1 if quick else 3
    budget = 0.05 if quick else 1.0  # seconds one timed run may take before it is cut to a prefix
    rows, notes, missed = measure_every(n, repeats, budget)
    header = [
        "metric",
        "rows fed",
        "rows timed",
        "update µs/row",
        "compute() µs",
        "µs/row (compute amortized)",
        "river has it",
        "river rows timed",
        "river µs/row",
        "river / ours",
        "value difference",
        "target",
        "met",
    ]
    timed = sum(1 for r in rows if r[-1] != "n/a")
    return [
        "## Every exported metric, one row at a time",
        "",
        f"Each concrete class in `streammetrics.__all__` built with its defaults (a class that "
        f"cannot be is listed with the reason, then the configured instances timed in its place), "
        f"fed {n:,} rows of the kind its `roles` and `prediction` name (the same rows for river's "
        f"metric of the same name), one `update` call per row with the bound method taken once, "
        f"then one `compute()` (river: `get()`); CPU time of the process, best of {repeats} "
        f"interleaved repeats. A metric whose cost grows with the rows so that the whole stream "
        f"would take more than {budget:g} s a run (loop and read; a read of fixed cost, such as a "
        f"bounded sample's, does not count) is cut to a "
        f"prefix (*rows timed*; river is cut the same way, separately). *µs/row (compute "
        f"amortized)* = (loop + final read) / rows, the figure the target applies to: at most "
        f"river's where river has the metric, else at most {TARGET_US:g} µs. *value difference* is "
        f"|ours - river| of the values read, where both are numbers. {timed} timed, "
        f"{missed} missing the target.",
        "",
        markdown_table(header, rows),
        "",
        "How river is fed or read, where not plainly: "
        + "; ".join(f"{k}: {v}" for k, v in notes.items())
        + ". river's `Silhouette` is not matched: it is a different index (cohesion against the "
        "second-closest of centroids passed with every update)."
        if notes
        else "river not installed: every metric is held to the 5 µs target.",
    ]


def main(quick: bool = False) -> str:
    n = 20_000 if quick else 200_000
    repeats = 3 if quick else 5
    budget = 0.3 if quick else 3.0  # seconds one timed run may take before it is cut to a prefix
    if ONLY:  # a few metrics of the second table only
        text = "\n".join(every_section(quick))
        print(text)
        return text
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
        "",
        *every_section(quick),
    ]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k rows instead of 200k")
    parser.add_argument(
        "--only", metavar="NAME[,NAME]", default="", help="time only these metrics (second table)"
    )
    args = parser.parse_args()
    ONLY.update(filter(None, args.only.split(",")))
    main(args.quick)
