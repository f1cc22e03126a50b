"""Shards as files: each worker evaluates its shard and saves a state; one command merges them.

    python examples/shards_files.py [--rows 1000000] [--workers 4] [--out DIR]

Each worker (a separate process here; a separate machine or job in real life) updates a metric
with its own rows and writes ``worker-<i>.state`` (a few hundred bytes). Then::

    streammetrics merge DIR/worker-*.state          # or: python -m streammetrics merge ...

prints the metric over all rows, equal to evaluating everything in one process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import streammetrics as sm


def shard(i: int, n_workers: int, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of worker ``i`` (every worker can rebuild the same data set from the seed)."""
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, n_rows)
    y_pred = np.where(rng.random(n_rows) < 0.8, y_true, rng.integers(0, 3, n_rows))
    rows = np.array_split(np.arange(n_rows), n_workers)[i]
    return y_true[rows], y_pred[rows]


def worker(i: int, n_workers: int, n_rows: int, out: str) -> str:
    y_true, y_pred = shard(i, n_workers, n_rows)
    metric = sm.F1(average="macro")
    for start in range(0, len(y_true), 100_000):  # batches, as a data loader would give them
        metric.update(y_true[start : start + 100_000], y_pred[start : start + 100_000])
    path = os.path.join(out, f"worker-{i}.state")
    metric.save(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--out", default=None, help="directory for the state files (default: a temporary one)"
    )
    args = parser.parse_args(argv)
    out = args.out or tempfile.mkdtemp(prefix="streammetrics-shards-")
    os.makedirs(out, exist_ok=True)

    with ProcessPoolExecutor(max_workers=min(args.workers, os.cpu_count() or 1)) as pool:
        paths = list(
            pool.map(
                worker,
                range(args.workers),
                [args.workers] * args.workers,
                [args.rows] * args.workers,
                [out] * args.workers,
            )
        )
    sizes = [os.path.getsize(p) for p in paths]
    print(f"{len(paths)} state files in {out}, {min(sizes)}-{max(sizes)} bytes each")

    # one command merges them (the same as `streammetrics merge ...` once installed)
    cmd = [sys.executable, "-m", "streammetrics", "merge", *paths]
    print("$ streammetrics merge " + " ".join(os.path.basename(p) for p in paths))
    subprocess.run(cmd, check=True)

    # check: the same value as one process over all rows
    y_true, y_pred = shard(0, 1, args.rows)
    print(f"one process: {sm.F1(average='macro').update(y_true, y_pred).compute()!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
