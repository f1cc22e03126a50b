"""Sharded evaluation: states shipped per partition vs raw predictions, Dask vs one process.

20M rows in 16 partitions (``--quick``: 2M). For each metric, the rows are first materialized
(in memory for one process and the threaded scheduler; persisted on the workers of a
``LocalCluster`` with 2 worker processes for the distributed runs), then timed:

* **one process**: ``metric.update(y_true, y_pred)`` over the in-memory arrays;
* **Dask threads, states**: ``streammetrics.integrations.dask.evaluate`` (threaded scheduler);
* **distributed, states**: the same on the LocalCluster: each partition ships its state;
* **distributed, raw to driver**: gather every prediction to the client, then update there
  (what peers that store every prediction do).

Bytes per partition: a state (``to_bytes``) vs the raw ``y_true`` + ``y_pred`` of a partition.
The machine has 2 cores, so parallel speed-ups are bounded by 2.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import markdown_table

import streammetrics as sm
from streammetrics.integrations import dask as smd

N_PARTITIONS = 16


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _make(kind: str, n: int):
    import dask.array as da

    chunks = -(-n // N_PARTITIONS)
    rs = da.random.RandomState(0)
    if kind == "labels":
        y = rs.randint(0, 3, size=n, chunks=chunks)
        noise = rs.randint(0, 3, size=n, chunks=chunks)
        p = da.where(rs.random_sample(n, chunks=chunks) < 0.8, y, noise)
    else:
        y = 5.0 + 2.0 * rs.standard_normal(n, chunks=chunks)
        p = y + 0.3 + rs.standard_normal(n, chunks=chunks)
    return y, p


def _same(a, b) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        va, vb = np.asarray(a.compute()), np.asarray(b.compute())
    return bool(np.allclose(va, vb, rtol=1e-12, atol=0))


def _bench_case(client, name: str, kind: str, make, n: int) -> tuple[list[object], list[object]]:
    import dask
    import dask.array as da
    from distributed import wait

    y_d, p_d = _make(kind, n)
    y, p = dask.compute(y_d, p_d, scheduler="threads")
    one, t_one = _timed(lambda: make().update(y, p))
    chunks = -(-n // N_PARTITIONS)
    y_mem, p_mem = da.from_array(y, chunks=chunks), da.from_array(p, chunks=chunks)
    threads, t_threads = _timed(lambda: smd.evaluate(make(), y_mem, p_mem, scheduler="threads"))
    y_c, p_c = client.persist([y_d, p_d])
    wait([y_c, p_c])
    dist, t_dist = _timed(lambda: smd.evaluate(make(), y_c, p_c, scheduler=client))

    def raw_to_driver():
        ys, ps = client.compute([y_c, p_c], sync=True)
        return make().update(ys, ps)

    raw, t_raw = _timed(raw_to_driver)
    ok = all(_same(m, one) for m in (threads, dist, raw))
    client.cancel([y_c, p_c])
    time_row = [
        name,
        f"{n / 1e6:.0f}M / {N_PARTITIONS}",
        f"{t_one:.2f} s",
        f"{t_threads:.2f} s ({t_one / t_threads:.2f}x)",
        f"{t_dist:.2f} s ({t_one / t_dist:.2f}x)",
        f"{t_raw:.2f} s ({t_one / t_raw:.2f}x)",
        f"{t_raw / t_dist:.1f}x",
        "yes" if ok else "NO",
    ]
    part = make().update(y[:chunks], p[:chunks])
    state_bytes, pickled = len(part.to_bytes()), len(pickle.dumps(part))
    raw_bytes = y[:chunks].nbytes + p[:chunks].nbytes
    byte_row = [
        name,
        f"{chunks:,}",
        f"{state_bytes:,} B",
        f"{pickled:,} B",
        f"{raw_bytes / 1e6:.1f} MB",
        f"{raw_bytes / state_bytes:,.0f}x",
    ]
    return time_row, byte_row


def bench(n: int) -> tuple[list[list[object]], list[list[object]]]:
    from distributed import Client, LocalCluster

    cases = [("F1 (macro, 3 classes)", "labels", lambda: sm.F1(average="macro")), ("R2", "values", sm.R2)]
    time_rows, byte_rows = [], []
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, memory_limit="6GiB")
    client = Client(cluster)
    try:
        for name, kind, make in cases:
            time_row, byte_row = _bench_case(client, name, kind, make, n)
            time_rows.append(time_row)
            byte_rows.append(byte_row)
    finally:
        client.close()
        cluster.close()
    return time_rows, byte_rows


def main(quick: bool = False) -> str:
    n = 2_000_000 if quick else 20_000_000
    time_rows, byte_rows = bench(n)
    text = "\n\n".join(
        [
            "## Sharded evaluation: Dask (states) vs one process vs raw predictions to the driver",
            "Rows materialized first; wall time of the evaluation alone; ratio = one-process time / time "
            "(higher is faster). 2 cores, LocalCluster of 2 worker processes.",
            markdown_table(
                [
                    "metric",
                    "rows / partitions",
                    "one process",
                    "Dask threads, states",
                    "distributed, states",
                    "distributed, raw to driver",
                    "raw / states",
                    "equal to one process",
                ],
                time_rows,
            ),
            "### Bytes shipped per partition",
            markdown_table(
                [
                    "metric",
                    "rows per partition",
                    "state (to_bytes)",
                    "state (pickle)",
                    "raw y_true + y_pred",
                    "raw / state",
                ],
                byte_rows,
            ),
        ]
    )
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2M rows instead of 20M")
    main(parser.parse_args().quick)
