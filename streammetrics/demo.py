"""``streammetrics demo``: a generated stream evaluated in batches on shards, merged, reported, drawn.

Three streams, generated with a fixed seed (no files, no network):

* an imbalanced classifier (5 % positives) whose probabilities are miscalibrated;
* a regression whose targets sit around one billion (a large offset that ruins naive
  ``sum(x**2) - n * mean**2`` formulas; the co-moment states keep full precision);
* a clustering of three Gaussian blobs labelled by a noisy assignment.

Each stream is cut into four shards; each shard updates its own accumulators batch by batch
and ships its state as bytes (``to_bytes``), like a worker would; the states are merged
(``from_bytes`` and ``sum``). The merged values are checked against one pass over all the rows
(an independent NumPy computation for the regression) and printed, and the classifier's ROC,
precision-recall, reliability and confusion-matrix pictures are written to a directory.

Examples:
    >>> import io
    >>> from streammetrics.demo import run
    >>> buf = io.StringIO()
    >>> doc = run(rows=20_000, plot_dir=None, out=buf)
    >>> doc["classifier"]["merged_equals_one_pass"], doc["classifier"]["rows"]
    (True, 20000)
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import tempfile
import time
import warnings
from typing import Any

import numpy as np

import streammetrics as sm

__all__ = ["run", "classifier_stream", "regression_stream", "clustering_stream"]

SHARDS = 4
BATCH = 25_000


def classifier_stream(rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Labels (5 % positive) and miscalibrated positive-class probabilities."""
    y = (rng.random(rows) < 0.05).astype(np.int64)
    logit = rng.normal(0.0, 1.0, rows) + np.where(y == 1, 1.3, -1.6) - 1.2
    p = 1.0 / (1.0 + np.exp(-1.6 * logit))
    return y, p


def regression_stream(rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Targets around 1e9 and predictions with a small bias and noise."""
    signal = rng.normal(0.0, 3.0, rows)
    y = 1e9 + signal
    pred = 1e9 + 0.9 * signal + 0.2 + rng.normal(0.0, 1.0, rows)
    return y, pred


def clustering_stream(rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points of three blobs, their true blob, and a noisy cluster assignment (10 % reassigned)."""
    centres = np.array([[0.0, 0.0], [5.0, 1.0], [1.0, 6.0]])
    truth = rng.integers(0, 3, rows)
    X = centres[truth] + rng.normal(0.0, 1.1, (rows, 2))
    pred = np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
    noisy = rng.random(rows) < 0.1
    pred[noisy] = rng.integers(0, 3, noisy.sum())
    return X, truth, pred


def _shards(n: int) -> list[slice]:
    edges = np.linspace(0, n, SHARDS + 1).astype(int)
    return [slice(int(a), int(b)) for a, b in itertools.pairwise(edges)]


def _sharded(make: Any, arrays: tuple[np.ndarray, ...]) -> tuple[Any, list[int]]:
    """Each shard updates fresh accumulators (a dict of them) in batches and ships their bytes;
    returns the merged accumulators and the bytes each shard shipped."""
    shipped: list[dict[str, bytes]] = []
    for part in _shards(len(arrays[0])):
        accs = make()
        for start in range(part.start, part.stop, BATCH):
            stop = min(start + BATCH, part.stop)
            for acc in accs.values():
                acc.update(*(a[start:stop] for a in arrays))
        shipped.append({name: acc.to_bytes() for name, acc in accs.items()})
    merged = {name: sum(sm.from_bytes(s[name]) for s in shipped) for name in shipped[0]}
    return merged, [sum(map(len, s.values())) for s in shipped]


def _scalars(values: dict[str, Any]) -> dict[str, float]:
    out = {}
    for k, v in values.items():
        if hasattr(v, "value") and hasattr(v, "low"):
            v = v.value
        out[k] = float(v)
    return out


def _same(a: dict[str, float], b: dict[str, float], rtol: float = 1e-9) -> bool:
    return all(math.isclose(a[k], b[k], rel_tol=rtol, abs_tol=1e-12) or a[k] == b[k] for k in a)


def run(
    rows: int = 400_000,
    seed: int = 0,
    plot_dir: str | None = "",
    as_json: bool = False,
    out: Any = None,
) -> dict[str, Any]:
    """Run the demo; prints the report on ``out`` and returns it as a dict.

    ``plot_dir=""`` writes the pictures to a new temporary directory, ``None`` draws nothing.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
        return _run(rows, seed, plot_dir, as_json, out)


def _run(rows: int, seed: int, plot_dir: str | None, as_json: bool, out: Any) -> dict[str, Any]:
    out = sys.stdout if out is None else out
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()

    # ------------------------------------------------------------------ classifier
    y, p = classifier_stream(rows, rng)
    labels = {
        "accuracy": sm.Accuracy(threshold=0.5),
        "precision": sm.Precision(threshold=0.5),
        "recall": sm.Recall(threshold=0.5),
        "f1": sm.F1(threshold=0.5),
        "mcc": sm.MCC(threshold=0.5),
        "confusion_matrix": sm.ConfusionMatrix(threshold=0.5),
    }
    ranking = {
        "rocauc": sm.ROCAUC(),
        "average_precision": sm.AveragePrecision(),
        "roc_curve": sm.ROCCurve(),
        "pr_curve": sm.PRCurve(),
    }
    proba = {
        "log_loss": sm.LogLoss(),
        "brier_score": sm.BrierScore(),
        "calibration_error": sm.CalibrationError(n_bins=10),
    }

    def classifier() -> dict[str, sm.MetricCollection]:
        # three collections: their members take labels (thresholded), scores and probabilities
        return {
            "labels": sm.MetricCollection(labels),
            "ranking": sm.MetricCollection(ranking),
            "probability": sm.MetricCollection(proba),
        }

    merged, sizes = _sharded(classifier, (y, p))
    one_pass = {name: c.update(y, p) for name, c in classifier().items()}
    scalar_names = [
        k for k in list(labels) + list(ranking) + list(proba) if "curve" not in k and k != "confusion_matrix"
    ]
    groups = {"labels": labels, "ranking": ranking, "probability": proba}

    def values_of(c: dict[str, sm.MetricCollection]) -> dict[str, float]:
        got = {}
        for group, members in groups.items():
            for name in members:
                if name in scalar_names:
                    got[name] = c[group][name].compute()
        return _scalars(got)

    cls_values = values_of(merged)
    cls_same = _same(cls_values, values_of(one_pass))
    cm = merged["labels"]["confusion_matrix"]

    # ------------------------------------------------------------------ regression
    n_reg = max(rows // 2, 1000)
    yr, pr = regression_stream(n_reg, rng)
    reg_members = {
        "mae": sm.MAE(),
        "rmse": sm.RMSE(),
        "r2": sm.R2(),
        "mean_error": sm.MeanError(),
        "pearson_r": sm.PearsonR(),
    }
    reg, reg_sizes = _sharded(lambda: {"r": sm.MetricCollection(reg_members)}, (yr, pr))
    reg_values = _scalars(reg["r"].compute())
    d = yr - pr
    yc = yr - yr.mean()
    reference = {
        "mae": float(np.mean(np.abs(d))),
        "rmse": float(np.sqrt(np.mean(d**2))),
        "r2": float(1.0 - np.sum(d**2) / np.sum(yc**2)),
        "mean_error": float(np.mean(pr - yr)),
        "pearson_r": float(np.corrcoef(yr, pr)[0, 1]),
    }
    naive_var = float(np.mean(yr**2) - np.mean(yr) ** 2)  # the textbook one-pass formula

    # ------------------------------------------------------------------ clustering
    n_clu = max(rows // 4, 1000)
    X, truth, assigned = clustering_stream(n_clu, rng)
    external = {
        "adjusted_rand_index": sm.AdjustedRandIndex(),
        "adjusted_mutual_info": sm.AdjustedMutualInfo(),
        "v_measure": sm.VMeasure(),
        "purity": sm.Purity(),
    }
    ext, ext_sizes = _sharded(lambda: {"c": sm.MetricCollection(external)}, (truth, assigned))
    internal = {"calinski_harabasz": sm.CalinskiHarabasz(), "davies_bouldin": sm.DaviesBouldin()}
    inn, _ = _sharded(lambda: {"c": sm.MetricCollection(internal)}, (X, assigned))
    clu_values = {**_scalars(ext["c"].compute()), **_scalars(inn["c"].compute())}

    # ------------------------------------------------------------------ pictures
    plots: list[str] = []
    directory = None
    if plot_dir is not None:
        directory = plot_dir or tempfile.mkdtemp(prefix="streammetrics-demo-")
        plots = _draw(merged, cls_values, float(y.mean()), directory)

    seconds = time.perf_counter() - t0
    doc = {
        "classifier": {
            "rows": rows,
            "shards": SHARDS,
            "batch": BATCH,
            "state_bytes": sizes,
            "positive_rate": float(y.mean()),
            "metrics": cls_values,
            "confusion_matrix": {"classes": cm.classes, "matrix": np.asarray(cm.compute()).tolist()},
            "merged_equals_one_pass": bool(cls_same),
        },
        "regression": {
            "rows": n_reg,
            "state_bytes": reg_sizes,
            "metrics": reg_values,
            "numpy_two_pass": reference,
            "naive_one_pass_variance": naive_var,
            "true_variance": float(np.var(yr)),
        },
        "clustering": {"rows": n_clu, "state_bytes": ext_sizes, "metrics": clu_values},
        "plot_dir": directory,
        "plots": plots,
        "seconds": round(seconds, 2),
    }
    if as_json:
        from .cli import jsonable

        print(json.dumps(jsonable(doc), allow_nan=False), file=out)
    else:
        _print(doc, out)
    return doc


def _draw(merged: Any, values: dict[str, float], prevalence: float, directory: str) -> list[str]:
    import os

    from . import plotting

    os.makedirs(directory, exist_ok=True)
    figures = {
        "roc.png": plotting.plot_roc_curve(merged["ranking"]["roc_curve"], auc=values["rocauc"]),
        "pr.png": plotting.plot_pr_curve(
            merged["ranking"]["pr_curve"],
            average_precision=values["average_precision"],
            prevalence=prevalence,
        ),
        "calibration.png": plotting.plot_calibration(
            merged["probability"]["calibration_error"], error=values["calibration_error"]
        ),
    }
    cm = merged["labels"]["confusion_matrix"]
    figures["confusion_matrix.png"] = plotting.plot_confusion_matrix(cm.compute(), cm.classes)
    return [plotting.save_figure(fig, os.path.join(directory, name)) for name, fig in figures.items()]


def _table(values: dict[str, float], reference: dict[str, float] | None = None) -> list[str]:
    width = max(map(len, values)) + 2
    lines = []
    for name, v in values.items():
        line = f"  {name:<{width}}{v:>14.6g}"
        if reference is not None:
            line += f"   numpy two-pass: {reference[name]:.6g}"
        lines.append(line)
    return lines


def _print(doc: dict[str, Any], out: Any) -> None:
    c, r, k = doc["classifier"], doc["regression"], doc["clustering"]
    w = print
    w("streammetrics demo: generated streams, evaluated in batches on 4 shards, states merged", file=out)
    w("", file=out)
    w(
        f"1. Imbalanced classifier: {c['rows']:,} rows, {c['positive_rate']:.1%} positive, batches of "
        f"{c['batch']:,}; each shard ships a state of ~{max(c['state_bytes']):,} bytes",
        file=out,
    )
    for line in _table(c["metrics"]):
        w(line, file=out)
    w("  confusion matrix at threshold 0.5 (rows: true, columns: predicted):", file=out)
    for label, row in zip(c["confusion_matrix"]["classes"], c["confusion_matrix"]["matrix"], strict=True):
        w(f"    {label!s:>3} " + "".join(f"{x:>10,}" for x in row), file=out)
    verdict = "identical" if c["merged_equals_one_pass"] else "DIFFERENT"
    w(f"  merged shards vs one pass over all rows: {verdict}", file=out)
    w("", file=out)
    w(
        f"2. Regression around 1e9: {r['rows']:,} rows; each shard ships ~{max(r['state_bytes']):,} bytes",
        file=out,
    )
    for line in _table(r["metrics"], r["numpy_two_pass"]):
        w(line, file=out)
    w(
        f"  (the textbook one-pass variance sum(y^2)/n - mean^2 gives {r['naive_one_pass_variance']:.6g}; "
        f"the true variance is {r['true_variance']:.6g})",
        file=out,
    )
    w("", file=out)
    w(f"3. Clustering, 3 blobs, 10 % noisy assignments: {k['rows']:,} rows", file=out)
    for line in _table(k["metrics"]):
        w(line, file=out)
    w("", file=out)
    if doc["plots"]:
        w(f"pictures written to {doc['plot_dir']}:", file=out)
        for path in doc["plots"]:
            w(f"  {path}", file=out)
    w(f"done in {doc['seconds']:.1f} s", file=out)
