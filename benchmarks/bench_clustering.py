"""Clustering benchmark: contingency throughput, external index compute, moments throughput, peers.

Run ``python benchmarks/bench_clustering.py [--quick]``; prints a Markdown section.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import streammetrics as sm


def _timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _contingency_throughput(n_total: int, batch: int, k: int, strings: bool = False) -> float:
    rng = np.random.default_rng(0)
    t = rng.integers(0, k, n_total)
    p = np.where(rng.random(n_total) < 0.7, t, rng.integers(0, k, n_total))
    if strings:
        names = np.array([f"c{i:03d}" for i in range(k)])
        t, p = names[t], names[p]

    def run():
        m = sm.ContingencyTable()
        for i in range(0, n_total, batch):
            m.update(t[i : i + batch], p[i : i + batch])

    return n_total / _timed(run)


def _moments_throughput(n_total: int, batch: int, d: int, k: int) -> float:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_total, d))
    y = rng.integers(0, k, n_total)

    def run():
        m = sm.CalinskiHarabasz()
        for i in range(0, n_total, batch):
            m.update(X[i : i + batch], y[i : i + batch])

    return n_total / _timed(run)


def main(quick: bool = False) -> str:
    from sklearn import metrics as skm

    out = ["## Clustering", ""]
    n_total = 1_000_000 if quick else 5_000_000
    batch = 100_000
    rows = [
        ("ContingencyTable, int labels, 20 x 20", _contingency_throughput(n_total, batch, 20)),
        ("ContingencyTable, int labels, 1000 x 1000", _contingency_throughput(n_total, batch, 1000)),
        ("ContingencyTable, string labels, 20 x 20", _contingency_throughput(n_total // 5, batch, 20, True)),
        (
            "CalinskiHarabasz (moments), 10 features, 10 clusters",
            _moments_throughput(n_total // 2, batch, 10, 10),
        ),
    ]
    out += [
        "### Update throughput (batches of 100k rows)",
        "",
        "| accumulator | samples/s |",
        "| --- | ---: |",
    ]
    out += [f"| {name} | {rate / 1e6:.1f} M |" for name, rate in rows]

    # ---------------------------------------------------------------- external indices on a 1000 x 1000 table
    rng = np.random.default_rng(2)
    n = 200_000 if quick else 1_000_000
    t = rng.integers(0, 1000, n)
    p = np.where(rng.random(n) < 0.5, t, rng.integers(0, 1000, n))
    table = sm.ContingencyTable().update(t, p)
    indices = [
        (sm.AdjustedRandIndex, skm.adjusted_rand_score),
        (sm.AdjustedMutualInfo, skm.adjusted_mutual_info_score),
        (sm.NormalizedMutualInfo, skm.normalized_mutual_info_score),
        (sm.VMeasure, skm.v_measure_score),
        (sm.FowlkesMallowsIndex, skm.fowlkes_mallows_score),
        (sm.Purity, None),
        (sm.ClusteringFMeasure, None),
        (sm.VariationOfInformation, None),
    ]
    out += [
        "",
        f"### Compute on a 1000 x 1000 table ({n:,} rows; state built once)",
        "",
        "| index | streammetrics compute (s) | scikit-learn on the labels (s) | abs. difference |",
        "| --- | ---: | ---: | ---: |",
    ]
    for cls, ref in indices:
        m = cls()
        m._state = table.state.copy()
        sec = _timed(m.compute, repeat=2)
        if ref is not None:
            sk_sec = _timed(lambda ref=ref: ref(t, p), repeat=1)
            diff = abs(m.compute() - ref(t, p))
            out.append(f"| {cls.__name__} | {sec:.4f} | {sk_sec:.4f} | {diff:.1e} |")
        else:
            out.append(f"| {cls.__name__} | {sec:.4f} | — | — |")

    # ---------------------------------------------------------------- peers: streaming ARI
    n_peer = 20_000 if quick else 100_000
    tp, pp = t[:n_peer], p[:n_peer] % 20
    tp = tp % 20
    ours = n_peer / _timed(lambda: sm.AdjustedRandIndex().update(tp, pp).compute())
    out += [
        "",
        f"### Peers: adjusted Rand index over {n_peer:,} rows (20 x 20 labels)",
        "",
        "| library | samples/s | ratio streammetrics / peer | value difference |",
        "| --- | ---: | ---: | ---: |",
        f"| streammetrics (one batch) | {ours / 1e6:.2f} M | 1 | 0 |",
    ]
    ref_value = skm.adjusted_rand_score(tp, pp)
    try:
        from river import metrics as rm

        def river_run():
            m = rm.AdjustedRand()
            for a, b in zip(tp.tolist(), pp.tolist(), strict=True):
                m.update(a, b)
            return m.get()

        sec = _timed(river_run, repeat=1)
        out.append(
            f"| river AdjustedRand (per sample) | {n_peer / sec / 1e6:.3f} M | {ours * sec / n_peer:.0f} | "
            f"{abs(river_run() - ref_value):.1e} |"
        )
    except ImportError:
        out.append("| river | not installed | | |")
    try:
        import torch
        from torchmetrics.clustering import AdjustedRandScore

        tt, pt = torch.from_numpy(tp), torch.from_numpy(pp)

        def tm_run():
            m = AdjustedRandScore()
            for i in range(0, n_peer, 10_000):
                m.update(pt[i : i + 10_000], tt[i : i + 10_000])
            return float(m.compute())

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sec = _timed(tm_run, repeat=1)
            out.append(
                f"| torchmetrics AdjustedRandScore (stores labels) | {n_peer / sec / 1e6:.2f} M | "
                f"{ours * sec / n_peer:.1f} | {abs(tm_run() - ref_value):.1e} |"
            )
    except ImportError:
        out.append("| torchmetrics | not installed | | |")

    # ---------------------------------------------------------------- sampled internal indices
    from sklearn.datasets import make_blobs

    out += [
        "",
        "### Sampled silhouette / Davies-Bouldin (4 shards merged, 4 features, 5 clusters)",
        "",
        "| data | index | sample | exact | estimate | std. error | abs. error / std. error |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    n_int = 4000 if quick else 10_000
    for std in (1.0, 2.5):
        X, y = make_blobs(n_int, n_features=4, centers=5, cluster_std=std, random_state=0)
        for cls, ref in ((sm.Silhouette, skm.silhouette_score), (sm.DaviesBouldin, skm.davies_bouldin_score)):
            shards = [
                cls(sample_size=1000).update(X[i : i + n_int // 4], y[i : i + n_int // 4])
                for i in range(0, n_int, n_int // 4)
            ]
            est = sum(shards).compute_with_error()
            exact = ref(X, y)
            out.append(
                f"| blobs std {std} | {cls.__name__} | {est.sample_rows} | {exact:.4f} | {est.value:.4f} | "
                f"{est.stderr:.4f} | {abs(est.value - exact) / est.stderr:.2f} |"
            )
    text = "\n".join(out) + "\n"
    print(text)
    return text


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
