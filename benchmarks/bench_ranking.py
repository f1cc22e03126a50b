"""Ranking sketch benchmark: accuracy vs exact values and peers, update throughput, merge.

Run ``python benchmarks/bench_ranking.py [--quick]``; prints a Markdown section.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "torch")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def distributions(n: int, seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Score distributions of real shapes: name -> (y_true, probability) for ``n`` samples."""
    rng = np.random.default_rng(seed)
    out = {}
    y = rng.integers(0, 2, n)
    out["balanced, separable"] = y, _sigmoid(rng.normal(size=n) + 4.0 * (y - 0.5))
    y = rng.integers(0, 2, n)
    out["overlapping"] = y, _sigmoid(rng.normal(size=n) + 1.0 * y)
    y = rng.integers(0, 2, n)
    out["saturating at 0 and 1"] = y, _sigmoid(rng.normal(size=n) * 8.0 + 6.0 * (y - 0.5))
    y = (rng.random(n) < 0.01).astype(np.int64)
    out["1% positives"] = y, _sigmoid(rng.normal(size=n) * 1.5 - 5.0 + 2.5 * y)
    y = (rng.random(n) < 0.001).astype(np.int64)
    out["0.1% positives"] = y, _sigmoid(rng.normal(size=n) * 1.5 - 7.0 + 3.0 * y)
    y = rng.integers(0, 2, n)
    out["tied (quantized 0.01)"] = y, np.round(_sigmoid(rng.normal(size=n) + 1.0 * y), 2)
    return out


def _batches(n: int, size: int = 100_000):
    return [(i, min(i + size, n)) for i in range(0, n, size)]


def _peer_keras(y, p):
    import keras

    m = keras.metrics.AUC(num_thresholds=200)
    for a, b in _batches(len(y)):
        m.update_state(y[a:b].astype("float32"), p[a:b].astype("float32"))
    return float(m.result())


def _peer_torchmetrics(y, p):
    import torch
    from torchmetrics.classification import BinaryAUROC

    m = BinaryAUROC(thresholds=200)
    for a, b in _batches(len(y)):
        m.update(torch.from_numpy(p[a:b]), torch.from_numpy(y[a:b]))
    return float(m.compute())


def _peer_river(y, p):
    from river.metrics import ROCAUC as RiverROCAUC

    m = RiverROCAUC()
    for yi, pi in zip(y.tolist(), p.tolist(), strict=True):
        m.update(bool(yi), {True: pi, False: 1 - pi})
    return float(m.get())


PEERS = {
    "Keras AUC(num_thresholds=200)": _peer_keras,
    "torchmetrics BinaryAUROC(thresholds=200)": _peer_torchmetrics,
    "river ROCAUC()": _peer_river,
}


def accuracy_table(n: int, river_n: int) -> str:
    from sklearn import metrics as skm

    import streammetrics as sm

    rows = [
        "| distribution | state bytes | resolution | abs. AUC error | abs. AP error | AUC bound half-width | "
        "bounds contain exact (AUC, AP) |",
        "|---|---|---|---|---|---|---|",
    ]
    peer_rows = ["| distribution | " + " | ".join(PEERS) + " |", "|---" * (len(PEERS) + 1) + "|"]
    for name, (y, p) in distributions(n).items():
        auc, ap = sm.ROCAUC(), sm.AveragePrecision()
        for a, b in _batches(n):
            auc.update(y[a:b], p[a:b])
            ap.update(y[a:b], p[a:b])
        ea, ep = skm.roc_auc_score(y, p), skm.average_precision_score(y, p)
        lo, hi = auc.bounds()
        lo_ap, hi_ap = ap.bounds()
        rows.append(
            f"| {name} | {len(auc.to_bytes()):,} | {auc.state.resolution} | {abs(auc.compute() - ea):.1e} | "
            f"{abs(ap.compute() - ep):.1e} | {(hi - lo) / 2:.1e} | {lo <= ea <= hi}, {lo_ap <= ep <= hi_ap} |"
        )
        cells = []
        for peer, fn in PEERS.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if peer.startswith("river"):
                        ys, ps = y[:river_n], p[:river_n]
                        cells.append(f"{abs(fn(ys, ps) - skm.roc_auc_score(ys, ps)):.1e} (first {river_n:,})")
                    else:
                        cells.append(f"{abs(fn(y, p) - ea):.1e}")
            except ImportError:
                cells.append("not installed")
        peer_rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return (
        f"### Accuracy, {n:,} samples, default sketch (`resolution=10, max_bins=4000`)\n\n"
        + "\n".join(rows)
        + "\n\n### Peers: absolute AUC error on the same data\n\n"
        + "\n".join(peer_rows)
        + "\n"
    )


def _rate(fn, n_samples: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n_samples / best


def throughput_table(n: int, repeat: int) -> str:
    import streammetrics as sm

    y, p = distributions(n, seed=1)["overlapping"]
    batches = [(y[a:b], p[a:b]) for a, b in _batches(n)]
    rows = ["| implementation | samples/s | ratio vs torchmetrics binned |", "|---|---|---|"]

    def ours():
        m = sm.ROCAUC()
        for yb, pb in batches:
            m.update(yb, pb)

    def ours_exact():
        m = sm.ROCAUC(exact=True)
        for yb, pb in batches:
            m.update(yb, pb)

    results = {
        "streammetrics ROCAUC (sketch)": _rate(ours, n, repeat),
        "streammetrics ROCAUC(exact=True)": _rate(ours_exact, n, repeat),
    }
    try:
        import torch
        from torchmetrics.classification import BinaryAUROC

        tb = [(torch.from_numpy(pb), torch.from_numpy(yb)) for yb, pb in batches]

        def tm():
            m = BinaryAUROC(thresholds=200)
            for pb, yb in tb:
                m.update(pb, yb)

        results["torchmetrics BinaryAUROC(thresholds=200)"] = _rate(tm, n, repeat)
    except ImportError:
        results["torchmetrics BinaryAUROC(thresholds=200)"] = float("nan")
    try:
        import keras

        kb = [(yb.astype("float32"), pb.astype("float32")) for yb, pb in batches]

        def ke():
            m = keras.metrics.AUC(num_thresholds=200)
            for yb, pb in kb:
                m.update_state(yb, pb)

        results["Keras AUC(num_thresholds=200)"] = _rate(ke, n, repeat)
    except ImportError:
        results["Keras AUC(num_thresholds=200)"] = float("nan")
    base = results["torchmetrics BinaryAUROC(thresholds=200)"]
    for name, rate in results.items():
        rows.append(f"| {name} | {rate / 1e6:.1f}M | {rate / base:.1f}x |")
    # merging shards
    shards = []
    for yb, pb in batches[:10]:
        for k in range(100):
            shards.append(sm.ROCAUC().update(yb[k * 1000 : (k + 1) * 1000], pb[k * 1000 : (k + 1) * 1000]))
    t0 = time.perf_counter()
    total = sum(shards)
    merge_s = time.perf_counter() - t0
    return (
        f"### Update throughput: float64 scores, batches of 100,000, {n:,} samples (best of {repeat})\n\n"
        + "\n".join(rows)
        + f"\n\nMerging {len(shards)} shard sketches of 1,000 samples each: {merge_s * 1e3:.0f} ms "
        f"({total.state.n_bins} bins; bit-identical in any order, see tests/ranking).\n"
    )


def main(quick: bool = False) -> str:
    n = 200_000 if quick else 1_000_000
    out = (
        "## Ranking sketch\n\n"
        + accuracy_table(n, river_n=20_000 if quick else 100_000)
        + "\n"
        + throughput_table(n if quick else 2_000_000, repeat=2 if quick else 5)
    )
    print(out)
    return out


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
