"""The shard examples run (with small sizes) and print values equal to one process."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .engine_cases import require

pytestmark = pytest.mark.engine
ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, *args: str) -> str:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def value_after(text: str, prefix: str) -> str:
    (line,) = [ln for ln in text.splitlines() if ln.startswith(prefix)]
    return line[len(prefix) :].split()[0]


def test_shards_files(tmp_path):
    out = run_example("shards_files.py", "--rows", "5000", "--workers", "3", "--out", str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["worker-0.state", "worker-1.state", "worker-2.state"]
    assert "F1  n_samples=5000  files=3" in out
    assert value_after(out, "value: ") == value_after(out, "one process: ")


def test_shards_dask():
    require("dask.dataframe")
    require("distributed")
    out = run_example("shards_dask.py", "--rows", "5000", "--partitions", "4")
    assert value_after(out, "F1 (weighted)") == value_after(out, "one process F1")


def test_shards_spark(spark, capfd):
    # in this process, on the test session's Spark (a JVM started once per test worker); the
    # example stops only a session it started itself
    spec = importlib.util.spec_from_file_location("shards_spark", ROOT / "examples" / "shards_spark.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--rows", "3000", "--partitions", "3"]) == 0
    out = capfd.readouterr().out  # (the merge runs in a subprocess: its output is on the fd)
    assert not spark.sparkContext._jsc.sc().isStopped()
    assert value_after(out, "F1 (macro) over Spark:") == value_after(out, "one process:")
    assert "files=3" in out
