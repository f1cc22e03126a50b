"""Evaluate metrics over a Dask DataFrame: each partition ships a state, not its rows.

    python examples/shards_dask.py [--rows 2000000] [--partitions 16] [--distributed]

Each partition updates an empty copy of the metrics and returns its state (a few hundred bytes);
the states are merged by a tree reduction. The result equals one process over all rows.
"""

from __future__ import annotations

import argparse
import sys

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

import streammetrics as sm
from streammetrics.integrations import dask as smd


def make_frame(n_rows: int, n_partitions: int) -> tuple[pd.DataFrame, dd.DataFrame]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n_rows)
    score = np.clip(0.35 * y + 0.65 * rng.random(n_rows), 0, 1)
    pdf = pd.DataFrame(
        {
            "y": y,
            "pred": (score >= 0.5).astype(int),
            "score": score,
            "target": 3.0 * score + rng.normal(size=n_rows),
            "weight": rng.uniform(0, 2, n_rows),
        }
    )
    return pdf, dd.from_pandas(pdf, npartitions=n_partitions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument(
        "--distributed", action="store_true", help="use a LocalCluster with 2 worker processes"
    )
    args = parser.parse_args(argv)
    pdf, df = make_frame(args.rows, args.partitions)

    client = None
    if args.distributed:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None))
    try:
        # one metric over two columns, weighted
        f1 = smd.evaluate(sm.F1(), df["y"], df["pred"], sample_weight=df["weight"], split_every=4)
        print(f"F1 (weighted)     {f1.compute():.12f}  over {f1.n_samples} rows")
        # a collection: every metric of the collection in one pass over the data
        reg = smd.evaluate(sm.MetricCollection([sm.MSE(), sm.R2()]), df["target"], df["score"])
        print("regression       ", {k: round(float(v), 12) for k, v in reg.compute().items()})
        # dask arrays work too (processes scheduler here)
        acc = smd.evaluate(
            sm.Accuracy(),
            df["y"].to_dask_array(lengths=True),
            df["pred"].to_dask_array(lengths=True),
            scheduler="processes" if client is None else None,
        )
        print(f"Accuracy          {acc.compute():.12f}")

        one = sm.F1().update(pdf.y, pdf.pred, sample_weight=pdf.weight).compute()
        print(f"one process F1    {one:.12f}")
        assert abs(one - f1.compute()) <= 1e-12 * abs(one)
    finally:
        if client is not None:
            client.close()
    return 0


if __name__ == "__main__":
    with dask.config.set({"dataframe.convert-string": False}):
        sys.exit(main())
