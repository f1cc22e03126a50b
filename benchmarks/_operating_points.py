"""Operating points (issue 17) against torchmetrics, for ``benchmarks/bench_ranking.py --points``.

Every case runs streammetrics and torchmetrics (exact: ``thresholds=None``, every row kept; and
binned: ``thresholds=200``, torchmetrics' constant-memory mode) on the same stream in one process,
and reports times with their ratios (torchmetrics time / streammetrics time: above 1, streammetrics
is faster) and the error against the exact value (torchmetrics exact, float64).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from _timing import markdown_table

LEVEL = 0.8


def _cases():
    import torchmetrics.classification as tc

    import streammetrics as sm

    return [
        # name, ours, torchmetrics class, its keyword, how to read a value
        (
            "PrecisionAtRecall(0.8)",
            lambda: sm.PrecisionAtRecall(LEVEL),
            tc.BinaryPrecisionAtFixedRecall,
            {"min_recall": LEVEL},
        ),
        (
            "RecallAtPrecision(0.8)",
            lambda: sm.RecallAtPrecision(LEVEL),
            tc.BinaryRecallAtFixedPrecision,
            {"min_precision": LEVEL},
        ),
        (
            "SensitivityAtSpecificity(0.8)",
            lambda: sm.SensitivityAtSpecificity(LEVEL),
            tc.BinarySensitivityAtSpecificity,
            {"min_specificity": LEVEL},
        ),
        (
            "SpecificityAtSensitivity(0.8)",
            lambda: sm.SpecificityAtSensitivity(LEVEL),
            tc.BinarySpecificityAtSensitivity,
            {"min_sensitivity": LEVEL},
        ),
        ("EqualErrorRate", lambda: sm.EqualErrorRate(), tc.BinaryEER, {}),
        ("LogAUC(0.001, 0.1)", lambda: sm.LogAUC(), tc.BinaryLogAUC, {}),
    ]


def _value(x) -> float:
    x = x[0] if isinstance(x, tuple) else x
    return float(x)


def _stream(n: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(np.int64)
    return y, 1.0 / (1.0 + np.exp(-(rng.normal(size=n) * 1.5 - 1.0 + 2.0 * y)))


def _run(make, update, compute, batches, repeat: int) -> tuple[float, float, object]:
    """Best (update time, compute time) over ``repeat`` runs of a fresh metric over ``batches``."""
    best_u = best_c = float("inf")
    value = None
    for _ in range(repeat):
        m = make()
        t0 = time.perf_counter()
        for b in batches:
            update(m, b)
        t1 = time.perf_counter()
        value = compute(m)
        t2 = time.perf_counter()
        best_u, best_c = min(best_u, t1 - t0), min(best_c, t2 - t1)
    return best_u, best_c, value


def operating_points_table(n: int = 1_000_000, steps: int = 200, repeat: int = 3) -> str:
    """Two workloads: an epoch of ``n`` rows in batches of 100k (update + compute), and a training
    loop of ``steps`` batches of 256 rows."""
    import torch

    torch.set_default_dtype(torch.float64)
    y, p = _stream(n)
    yt, pt = torch.from_numpy(y), torch.from_numpy(p)
    big = [(a, min(a + 100_000, n)) for a in range(0, n, 100_000)]
    small = [(a, a + 256) for a in range(0, 256 * steps, 256)]
    rows_epoch, rows_loop = [], []

    def ours_update(m, b):
        m.update(y[b[0] : b[1]], p[b[0] : b[1]])

    def tm_update(m, b):
        m.update(pt[b[0] : b[1]], yt[b[0] : b[1]])

    def ours_compute(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.compute(), m.bounds()

    def tm_compute(m):
        return m.compute()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, ours, tm_cls, kw in _cases():
            u, c, (value, (low, high)) = _run(ours, ours_update, ours_compute, big, repeat)
            eu, ec, exact = _run(
                lambda kw=kw, tm_cls=tm_cls: tm_cls(**kw), tm_update, tm_compute, big, repeat
            )
            bu, bc, binned = _run(
                lambda kw=kw, tm_cls=tm_cls: tm_cls(thresholds=200, **kw), tm_update, tm_compute, big, repeat
            )
            exact_v = _value(exact)
            rows_epoch.append(
                [
                    name,
                    f"{(u + c) * 1e3:.1f} ms",
                    f"{(eu + ec) * 1e3:.1f} ms ({(eu + ec) / (u + c):.1f}x)",
                    f"{(bu + bc) * 1e3:.1f} ms ({(bu + bc) / (u + c):.1f}x)",
                    f"{abs(_value(value) - exact_v):.1e}",
                    f"{(high - low) / 2:.1e}",
                    f"{abs(_value(binned) - exact_v):.1e}",
                ]
            )
            u, c, _ = _run(ours, ours_update, ours_compute, small, repeat)
            eu, ec, _ = _run(lambda kw=kw, tm_cls=tm_cls: tm_cls(**kw), tm_update, tm_compute, small, repeat)
            bu, bc, _ = _run(
                lambda kw=kw, tm_cls=tm_cls: tm_cls(thresholds=200, **kw),
                tm_update,
                tm_compute,
                small,
                repeat,
            )
            rows_loop.append(
                [
                    name,
                    f"{u / steps * 1e6:.0f} µs",
                    f"{eu / steps * 1e6:.0f} µs ({eu / u:.1f}x)",
                    f"{bu / steps * 1e6:.0f} µs ({bu / u:.1f}x)",
                    f"{c * 1e3:.2f} ms",
                    f"{ec * 1e3:.2f} ms ({ec / c:.1f}x)",
                    f"{bc * 1e3:.2f} ms ({bc / c:.1f}x)",
                ]
            )
    epoch = markdown_table(
        [
            f"{n:,} rows (batches of 100k): update + compute",
            "streammetrics",
            "torchmetrics exact",
            "torchmetrics binned (200)",
            "streammetrics error",
            "bounds half-width",
            "torchmetrics binned error",
        ],
        rows_epoch,
    )
    loop = markdown_table(
        [
            f"training loop: {steps} batches of 256 rows",
            "update per batch",
            "torchmetrics exact",
            "torchmetrics binned (200)",
            "compute at the end",
            "torchmetrics exact",
            "torchmetrics binned (200)",
        ],
        rows_loop,
    )
    return (
        "### Operating points against torchmetrics\n\n"
        "Ratios are torchmetrics' time over streammetrics' (above 1: streammetrics is faster); errors are "
        "against torchmetrics' exact value (float64). streammetrics' default sketch (64 KiB per column) "
        "is exact below its budget; past it `bounds()` holds the exact value.\n\n"
        + epoch
        + "\n\n"
        + loop
        + "\n"
    )
