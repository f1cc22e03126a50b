"""Pairwise-distance internal indices (Dunn, generalized Dunn, C, Gamma, Hubert Γ, COP, CS).

Compute time of the sampled streaming metrics (sample sizes 500 / 1000 / 2000, jackknife
included) against the exact in-memory function on the full data, and the accuracy of the
sampled estimate against the exact value on a large data set.

Run ``python benchmarks/bench_clustering_pairwise.py [--quick]``; prints a Markdown section.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs

import streammetrics as sm
from streammetrics.clustering import pairwise as pw

try:
    from _timing import markdown_table
except ImportError:  # imported as benchmarks.bench_clustering_pairwise
    from benchmarks._timing import markdown_table


def _gd(s: int, c: int):
    return (
        f"gD{s}{c}",
        lambda **kw: sm.GeneralizedDunn(s, c, **kw),
        lambda X, y: pw.generalized_dunn_index(X, y, separation=s, compactness=c),
        {"separation": s, "compactness": c},
    )


#: (name, metric factory, exact function, profile options or None for a sorted-pairs index)
INDICES = [
    ("Dunn", sm.DunnIndex, pw.dunn_index, {"separation": 1, "compactness": 1}),
    *[_gd(s, c) for s, c in [(3, 1), (4, 1), (5, 1), (3, 3), (4, 3), (5, 3)]],
    ("C-index", sm.CIndex, pw.c_index, None),
    ("Gamma", sm.GammaIndex, pw.gamma_index, None),
    ("Hubert Γ", sm.HubertGamma, pw.hubert_gamma, {}),
    ("COP", sm.COPIndex, pw.cop_index, {}),
    ("CS", sm.CSIndex, pw.cs_index, {}),
]
_PROFILE_NAME = {"Hubert Γ": "hubert", "COP": "cop", "CS": "cs"}


def _once(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _timing_table(n: int, sizes: tuple[int, ...]) -> str:
    X, y = make_blobs(n, n_features=4, centers=5, cluster_std=2.5, random_state=0)
    rows = []
    for name, make, exact, _ in INDICES:
        t_exact = _once(lambda exact=exact: exact(X, y))
        row: list[object] = [name, f"{t_exact:.2g}"]
        for m in sizes:
            metric = make(sample_size=m).update(X, y)
            t = _once(metric.compute_with_error)
            row.append(f"{t:.2g} ({t_exact / t:.2g}x)")
        rows.append(row)
    try:
        import torch
        from torchmetrics.clustering import DunnIndex as TMDunn

        tm = TMDunn()
        tm.update(torch.from_numpy(X), torch.from_numpy(y))
        t_tm = _once(tm.compute)
        rows.append(
            ["torchmetrics DunnIndex (centroid variant, stores all rows)", f"{t_tm:.3f}"] + ["-"] * len(sizes)
        )
    except ImportError:
        rows.append(["torchmetrics DunnIndex", "not installed"] + ["-"] * len(sizes))
    header = ["index", f"exact on {n} rows (s)"] + [f"sampled m={m} (s, speed-up)" for m in sizes]
    return markdown_table(header, rows)


def _exact_profile_values(X: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Every profile-based index on all rows, from one shared O(N^2) pass."""
    from streammetrics.clustering.internal.distances import prepare_points

    x, idx, w, k = prepare_points(X, y, None)
    exact = pw.exact_parts(x, idx, w, k)
    prof = pw.row_profiles(x, idx, w, k, need="min max sum")
    out = {}
    for name, _, _, opts in INDICES:
        if opts is None:
            continue
        kind = _PROFILE_NAME.get(name, "dunn")
        out[name] = pw.profile_index(kind, x, idx, w, k, exact, profiles=prof, **opts)[0]
    return out


def _accuracy_table(n: int, n_pairs: int, sizes: tuple[int, ...]) -> str:
    X, y = make_blobs(n, n_features=4, centers=5, cluster_std=2.5, random_state=1)
    t0 = time.perf_counter()
    exact = _exact_profile_values(X, y)
    t_profiles = time.perf_counter() - t0
    Xp, yp = X[:n_pairs], y[:n_pairs]
    for name, _, fn, opts in INDICES:
        if opts is None:
            exact[name] = fn(Xp, yp)
    rows = []
    for name, make, _, opts in INDICES:
        data_x, data_y = (Xp, yp) if opts is None else (X, y)
        rows_n = len(data_x)
        row: list[object] = [name, rows_n, f"{exact[name]:.5g}"]
        for m in sizes:
            shards = [
                make(sample_size=m, seed=7).update(data_x[i : i + rows_n // 4], data_y[i : i + rows_n // 4])
                for i in range(0, rows_n, rows_n // 4)
            ]
            est = sum(shards).compute_with_error()
            rel = abs(est.value - exact[name]) / abs(exact[name]) if exact[name] else float("nan")
            z = abs(est.value - exact[name]) / est.stderr if est.stderr > 0 else float("nan")
            row.append(f"{est.value:.5g} ± {est.stderr:.2g} (rel {rel:.1%}, z {z:.1f})")
        rows.append(row)
    header = ["index", "rows", "exact"] + [f"sampled m={m}: value ± stderr" for m in sizes]
    note = (
        f"\nExact profile-based values from one shared O(N^2) pass over {n} rows "
        f"({t_profiles:.0f} s); the C-index and Gamma sort all pairs (O(N^2) memory), so their "
        f"exact value is taken on the first {n_pairs} rows. Four shards merged; z = |error| / stderr.\n"
    )
    return markdown_table(header, rows) + "\n" + note


def main(quick: bool = False) -> str:
    warnings.simplefilter("ignore")
    sizes = (500, 1000, 2000)
    n_time = 2000 if quick else 5000
    n_acc = 10_000 if quick else 100_000
    n_pairs = 4000 if quick else 10_000
    out = [
        "## Pairwise-distance internal indices",
        "",
        f"Blobs (4 features, 5 clusters, std 2.5). Compute time of `compute_with_error()` (index "
        f"plus 20 jackknife replicates) against the exact function on all {n_time} rows.",
        "",
        _timing_table(n_time, sizes),
        "",
        f"Accuracy of the sampled estimate (blobs, {n_acc} rows):",
        "",
        _accuracy_table(n_acc, n_pairs, sizes),
    ]
    text = "\n".join(out) + "\n"
    print(text)
    return text


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
