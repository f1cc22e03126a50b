"""Evaluate metrics over a PySpark DataFrame: one state per partition, merged on the driver.

    python examples/shards_spark.py [--rows 1000000] [--partitions 8]

Needs Java 17+ and ``pyspark``. ``mapInPandas`` turns each partition into one row holding its
state (bytes); the driver collects those rows and merges them, so this also runs over Spark
Connect. Optionally the states are written to files and merged by ``streammetrics merge``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

import streammetrics as sm
from streammetrics.integrations import spark as sms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=8)
    args = parser.parse_args(argv)

    # the Python workers must use this interpreter (the one with streammetrics installed)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    ours = SparkSession.getActiveSession() is None  # stop only a session this script started
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("streammetrics-shards")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        rng = np.random.default_rng(0)
        y = rng.integers(0, 4, args.rows)
        pred = np.where(rng.random(args.rows) < 0.7, y, rng.integers(0, 4, args.rows))
        pdf = pd.DataFrame({"label": y, "prediction": pred, "is_padding": 0.0})
        # rows duplicated to fill the last batch (e.g. by a batch inference job) get weight 0
        pdf = pd.concat([pdf, pdf.head(13).assign(is_padding=1.0)], ignore_index=True)
        pdf["weight"] = 1.0 - pdf["is_padding"]
        df = spark.createDataFrame(pdf).repartition(args.partitions)

        metric = sms.evaluate(sm.F1(average="macro"), df, "label", "prediction", weight_col="weight")
        print(f"F1 (macro) over Spark: {metric.compute():.12f}  ({metric.n_samples} rows incl. 13 padded)")
        report = sms.evaluate(sm.ClassificationReport(), df, "label", "prediction", weight_col="weight")
        print(report.compute())

        one = sm.F1(average="macro").update(y, pred).compute()
        print(f"one process:           {one:.12f}")
        assert abs(one - metric.compute()) <= 1e-12

        # the per-partition states can also be written out and merged later from the shell
        out = tempfile.mkdtemp(prefix="streammetrics-spark-")
        for i, row in enumerate(
            sms.state_frame(sm.F1(average="macro"), df, "label", "prediction", "weight").collect()
        ):
            with open(os.path.join(out, f"part-{i:05d}.state"), "wb") as fh:
                fh.write(row[0])
        files = sorted(os.path.join(out, f) for f in os.listdir(out))
        subprocess.run([sys.executable, "-m", "streammetrics", "merge", *files], check=True)
    finally:
        if ours:
            spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
