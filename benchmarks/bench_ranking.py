"""Ranking sketch benchmark: accuracy vs exact values and peers, update throughput, merge.

Run ``PYTHONPATH=. python benchmarks/bench_ranking.py [--quick | --training | --points | --accuracy]``
from the checkout (without ``PYTHONPATH`` the installed package is measured); prints a Markdown
section (``--training``: the training-loop table alone; ``--points``: the operating points against
torchmetrics alone).
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


#: Rounding slack of "bounds contain exact": an exact state's bounds collapse to its value, which
#: may differ from scikit-learn's in the last bits (summation order).
TOL = 1e-12


def accuracy_table(n: int, river_n: int) -> str:
    from sklearn import metrics as skm

    import streammetrics as sm

    rows = [
        "| distribution | state bytes | resolution | abs. AUC error | abs. AP error | AUC bound half-width | "
        "bounds contain exact (AUC, AP; to 1e-12) |",
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
            f"{abs(ap.compute() - ep):.1e} | {(hi - lo) / 2:.1e} | {lo - TOL <= ea <= hi + TOL}, {lo_ap - TOL <= ep <= hi_ap + TOL} |"
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
        f"### Accuracy, {n:,} samples, default sketch (`resolution=10, max_bytes=65536`)\n\n"
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


# ---------------------------------------------------------------------- issue 16: training loops
def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _multiclass_stream(n: int, k: int = 10, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.5
    p = np.exp(logits)
    return y, p / p.sum(axis=1, keepdims=True)


def _steady_update(repeat: int) -> float:
    """Seconds per 256-row 10-class ROCAUC ``update`` over batches 101 to 1,000 of one stream
    (the first 100 hold the sketch's exact phase and its move to bins), the final ``compute()``
    amortized over those 900 batches; best of ``repeat`` streams."""
    import streammetrics as sm

    y, p = _multiclass_stream(256_000)
    batches = [(y[i : i + 256], p[i : i + 256]) for i in range(0, len(y), 256)]
    best = float("inf")
    for _ in range(repeat):
        m = sm.ROCAUC()
        for yb, pb in batches[:100]:
            m.update(yb, pb)
        m.compute()
        t0 = time.perf_counter()
        for yb, pb in batches[100:]:
            m.update(yb, pb)
        m.compute()
        best = min(best, (time.perf_counter() - t0) / len(batches[100:]))
    return best


def digits_predictions() -> tuple[np.ndarray, np.ndarray]:
    """Held-out class probabilities of a Gaussian naive Bayes on scikit-learn's digits (1,797 rows)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    x, y = load_digits(return_X_y=True)
    p = cross_val_predict(GaussianNB(), x, y, cv=3, method="predict_proba")
    return y, p / p.sum(axis=1, keepdims=True)


def training_table(repeat: int = 3) -> str:
    """The cases of issue 16: small batches, single rows, many classes, compute, state bytes."""
    import streammetrics as sm

    rows: list[tuple[str, str, str]] = []
    y10, p10 = _multiclass_stream(25_600)
    batches = [(y10[i : i + 256], p10[i : i + 256]) for i in range(0, len(y10), 256)]

    def upd():
        m = sm.ROCAUC()
        for yb, pb in batches:
            m.update(yb, pb)
        m.compute()

    def call():
        m = sm.ROCAUC()
        for yb, pb in batches:
            m(yb, pb)

    # best of at least 7: one stream takes about 50 ms, so a single slow run of a loaded host
    # would otherwise set the number
    t_upd = _best(upd, max(7, repeat)) / len(batches)
    t_call = _best(call, max(7, repeat)) / len(batches)
    tm_exact = tm_binned = float("nan")
    try:
        import torch
        from torchmetrics.classification import MulticlassAUROC

        tb = [(torch.from_numpy(pb), torch.from_numpy(yb)) for yb, pb in batches]

        def tm(thresholds):
            def run():
                m = MulticlassAUROC(num_classes=10, thresholds=thresholds)
                for pb, yb in tb:
                    m(pb, yb)

            return run

        tm_exact = _best(tm(None), repeat) / len(batches)
        tm_binned = _best(tm(200), repeat) / len(batches)
    except ImportError:
        pass
    rows.append(("10-class ROCAUC, `update` of a 256-row batch", f"{t_upd * 1e3:.2f} ms", "—"))
    rows.append(
        (
            "same, steady state: batches 101-1,000 of a longer stream (after the exact phase and its compression)",
            f"{_steady_update(repeat) * 1e3:.2f} ms",
            "—",
        )
    )
    rows.append(
        (
            "same, `metric(y, P)` (batch value + accumulate)",
            f"{t_call * 1e3:.2f} ms",
            f"torchmetrics `MulticlassAUROC` exact forward {tm_exact * 1e3:.2f} ms "
            f"({tm_exact / t_call:.1f}x ours); binned (200) {tm_binned * 1e3:.2f} ms",
        )
    )
    yb2, pb2 = distributions(25_600, seed=4)["overlapping"]
    bb = [(yb2[i : i + 256], pb2[i : i + 256]) for i in range(0, len(yb2), 256)]

    def upd_bin():
        m = sm.ROCAUC()
        for yb, pb in bb:
            m.update(yb, pb)
        m.compute()

    t_bin = _best(upd_bin, repeat) / len(bb)
    rows.append(("binary ROCAUC, `update` of 256 rows", f"{t_bin * 1e3:.3f} ms", "—"))
    n_rows = 20_000
    yl, pl = yb2[:n_rows].tolist(), pb2[:n_rows].tolist()

    def per_row():
        m = sm.ROCAUC()
        for a, b in zip(yl, pl, strict=True):
            m.update(a, b)
        m.compute()

    t_row = _best(per_row, repeat) / n_rows
    t_river = float("nan")
    try:
        from river.metrics import ROCAUC as RiverROCAUC

        def river_rows():
            m = RiverROCAUC()
            for a, b in zip(yl, pl, strict=True):
                m.update(bool(a), {True: b, False: 1 - b})
            m.get()

        t_river = _best(river_rows, repeat) / n_rows
    except ImportError:
        pass
    rows.append(
        (
            "binary ROCAUC, one row (20,000 `update(y, p)` then `compute()`)",
            f"{t_row * 1e6:.1f} µs",
            f"river `ROCAUC` {t_river * 1e6:.1f} µs ({t_river / t_row:.2f}x ours)",
        )
    )
    one = [(np.array([a]), np.array([b])) for a, b in zip(yl[:2000], pl[:2000], strict=True)]

    def one_row_batches():
        m = sm.ROCAUC().update(yb2[-1000:], pb2[-1000:])
        for a, b in one:
            m.update(a, b)
        m.compute()

    t_one = _best(one_row_batches, repeat) / len(one)
    rows.append(
        (
            "binary ROCAUC, one row as a batch (`update(np.array([y]), np.array([p]))`, 2,000 times)",
            f"{t_one * 1e6:.1f} µs",
            f"river `ROCAUC` {t_river * 1e6:.1f} µs ({t_river / t_one:.2f}x ours)",
        )
    )
    ap = sm.AveragePrecision().update(yb2[:25_000], pb2[:25_000])
    ap.compute()
    t_ap = _best(ap.compute, max(repeat, 5))
    rows.append(("AveragePrecision `compute()` after 25k rows", f"{t_ap * 1e3:.2f} ms", "—"))
    big = sm.ROCAUC()
    for yb, pb in batches:
        big.update(yb, pb)
    rows.append(
        (
            "10-class ROCAUC state after 25.6k rows",
            f"{len(big.to_bytes()) / 1e3:.1f} kB",
            f"the raw rows are {(y10.nbytes + p10.nbytes) / 1e3:.1f} kB",
        )
    )
    small = sm.ROCAUC().update(y10[:225], p10[:225])
    rows.append(
        (
            "10-class ROCAUC state after 225 rows",
            f"{len(small.to_bytes()) / 1e3:.1f} kB",
            f"the raw rows are {(y10[:225].nbytes + p10[:225].nbytes) / 1e3:.1f} kB",
        )
    )
    from sklearn import metrics as skm

    yd, pd = digits_predictions()
    md = sm.ROCAUC().update(yd, pd)
    lo, hi = md.bounds()
    ref = skm.roc_auc_score(yd, pd, multi_class="ovr")
    rows.append(
        (
            f"10-class ROCAUC on {len(yd):,} digits rows (GaussianNB, default sketch)",
            f"{md.compute():.6f} (bounds ±{(hi - lo) / 2:.1e}; error {abs(md.compute() - ref):.1e})",
            f"scikit-learn {ref:.6f}",
        )
    )
    worst = 0
    for ya, sa in adversarial_streams().values():
        m = sm.ROCAUC(input="score")
        for i in range(0, len(ya), 100_000):
            m.update(ya[i : i + 100_000], sa[i : i + 100_000])
        worst = max(worst, len(m.to_bytes()))
    rows.append(
        (
            "worst binary state under adversarial scores (" + ", ".join(adversarial_streams()) + ")",
            f"{worst / 1e3:.1f} kB",
            "the budget is 64 KiB (65.5 kB)",
        )
    )
    # large batches: the sketch against a bare np.bincount over the same arrays, and torchmetrics binned
    yl2, pl2 = distributions(1_000_000, seed=1)["overlapping"]
    lb = [(yl2[a:b], pl2[a:b]) for a, b in _batches(len(yl2))]

    def ours():
        m = sm.ROCAUC()
        for yb, pb in lb:
            m.update(yb, pb)

    def bare():
        for yb, pb in lb:
            np.bincount(yb, weights=pb)

    # interleaved, best of 7 each: the bare count takes 3 ms, so one slow run moves the ratio
    t_ours = t_bare = float("inf")
    for _ in range(max(7, repeat)):
        t_ours, t_bare = min(t_ours, _best(ours, 1)), min(t_bare, _best(bare, 1))
    ratio_tm = float("nan")
    try:
        import torch
        from torchmetrics.classification import BinaryAUROC

        tlb = [(torch.from_numpy(pb), torch.from_numpy(yb)) for yb, pb in lb]

        def tmb():
            m = BinaryAUROC(thresholds=200)
            for pb, yb in tlb:
                m.update(pb, yb)

        ratio_tm = _best(tmb, max(1, repeat - 1)) / t_ours
    except ImportError:
        pass
    rows.append(
        (
            "binary ROCAUC, batches of 100k (1M rows): `update` time / bare `np.bincount(y, weights=p)`",
            f"{t_ours / t_bare:.1f}x ({len(yl2) / t_ours / 1e6:.1f} M rows/s)",
            f"torchmetrics `BinaryAUROC(thresholds=200)` {ratio_tm:.1f}x slower than ours",
        )
    )
    lines = ["| case | streammetrics | peer |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "### Training loops, small batches, many classes (issue 16; one run)\n\n" + "\n".join(lines) + "\n"


def adversarial_streams(n: int = 400_000, seed: int = 7) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Scores built to fill a sketch: every finite float64 bit pattern, and alternating classes."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) | (
        rng.integers(0, 2, n).astype(np.uint64) << np.uint64(63)
    )
    s = bits.view(np.float64)
    s = np.where(np.isfinite(s), s, 0.0)
    out = {"random bit patterns": (rng.integers(0, 2, n), s)}
    s2 = np.sort(s)
    out["sorted, classes alternating"] = (np.arange(n) % 2, s2)
    return out


def _points_table(n: int, quick: bool) -> str:
    from _operating_points import operating_points_table  # issue 17 (torchmetrics needed)

    return operating_points_table(n, repeat=2 if quick else 3)


def main(quick: bool = False) -> str:
    import streammetrics

    # `python benchmarks/bench_ranking.py` imports the installed package (an editable install may
    # point at another checkout): say which code was measured
    print(f"<!-- streammetrics from {streammetrics.__file__} -->")
    n = 200_000 if quick else 1_000_000
    if "--points" in sys.argv:  # issue 17: operating points against torchmetrics
        out = _points_table(n, quick)
        print(out)
        return out
    if "--accuracy" in sys.argv:
        out = accuracy_table(n, river_n=20_000 if quick else 100_000)
        print(out)
        return out
    if "--training" in sys.argv:
        out = training_table(repeat=2 if quick else 3)
        print(out)
        return out
    out = (
        "## Ranking sketch\n\n"
        + training_table(repeat=2 if quick else 3)
        + "\n"
        + accuracy_table(n, river_n=20_000 if quick else 100_000)
        + "\n"
        + throughput_table(n if quick else 2_000_000, repeat=2 if quick else 5)
        + "\n"
        + _points_table(n, quick)
    )
    print(out)
    return out


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
