"""Engine fixtures: one Spark session and one Dask LocalCluster per test session (small: 2 workers)."""

from __future__ import annotations

import os
import sys

import pytest

from .engine_cases import require


@pytest.fixture(scope="session")
def spark():
    require("pyspark")
    require("pyarrow")
    from pyspark.sql import SparkSession

    # the Python workers must run this interpreter (the venv), not the first python3 on PATH
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # a session another test left running (a docs page's local[2], whose tasks never retry)
    # would be returned by getOrCreate with its own master: stop it first
    active = SparkSession.getActiveSession()
    if active is not None and active.sparkContext.master != "local[2,3]":
        active.stop()
    session = (
        SparkSession.builder.master("local[2,3]")  # 2 threads; a task may fail 3 times
        .appName("streammetrics-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.task.maxFailures", "3")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("FATAL")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def dask_client():
    require("dask")
    require("distributed")
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit="1GiB"
    )
    client = Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()
