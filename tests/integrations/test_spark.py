"""Spark: engine result == single-process result, with ``mapInPandas`` states merged on the driver."""

from __future__ import annotations

import os

import numpy as np
import pytest

import streammetrics as sm

from .engine_cases import (
    CASES,
    Data,
    assert_engine_equal,
    make_data,
    one_per_state_kind,
    one_per_type,
    require,
    single_process,
)

pytestmark = [
    pytest.mark.engine,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

require("pyspark")
pd = require("pandas")

from streammetrics.integrations import spark as sms  # noqa: E402


def to_frame(spark, data: Data, n_partitions: int = 5, by: str | None = None):
    """A Spark DataFrame of the rows; 2-D inputs become array columns; ``by`` hash-partitions."""

    def col(x):
        return list(map(list, x.tolist())) if x.ndim == 2 else x.tolist()

    pdf = pd.DataFrame({"y": col(data.y_true), "p": col(data.y_pred)})
    pdf["w"] = data.weight if data.weight is not None else 1.0
    pdf["k"] = np.searchsorted(
        data.bounds[1:], np.arange(len(pdf)), side="right"
    )  # the partition of each row
    df = spark.createDataFrame(pdf)
    return df.repartition(n_partitions, by or "k")


@pytest.mark.parametrize("case", one_per_state_kind(CASES), ids=str)
def test_every_state_kind(spark, case):
    data = make_data(case, seed=17)
    df = to_frame(spark, data, n_partitions=6)
    got = sms.evaluate(case.make(), df, "y", "p", weight_col="w" if data.weight is not None else None)
    assert_engine_equal(case, got, single_process(case, data), str(case))


ONE_D_EXACT = [
    c for c in one_per_type(CASES) if c.exact and np.ndim(c.batch(np.random.default_rng(0), 3)[0]) == 1
]


@pytest.mark.parametrize("case", ONE_D_EXACT[:6], ids=str)
def test_one_class_and_empty_partitions(spark, case):
    """Hash-partitioning by the label: each partition holds one class (or none)."""
    data = make_data(case, seed=19, sort_by_class=True)
    df = to_frame(spark, data, n_partitions=9, by="y")
    sizes = df.rdd.glom().map(len).collect()
    assert 0 in sizes  # some partitions are empty
    got = sms.evaluate(case.make(), df, "y", "p", weight_col="w" if data.weight is not None else None)
    assert_engine_equal(case, got, single_process(case, data), str(case))


def test_states_ship_one_row_per_partition(spark):
    rng = np.random.default_rng(0)
    pdf = pd.DataFrame({"y": rng.integers(0, 2, 500), "p": rng.integers(0, 2, 500)})
    df = spark.createDataFrame(pdf).repartition(4)
    rows = sms.state_frame(sm.F1(), df, "y", "p").collect()
    assert len(rows) == 4
    states = [sm.from_bytes(r[0]) for r in rows]
    assert sum(s.n_samples for s in states) == 500
    assert sum(states).compute() == sm.F1().update(pdf.y, pdf.p).compute()


def test_missing_column_lists_the_columns(spark):
    df = spark.createDataFrame(pd.DataFrame({"label": [0, 1], "pred": [0, 1]}))
    with pytest.raises(sm.InputError, match=r"y_pred_col: no column 'p'.*'label', 'pred'"):
        sms.evaluate(sm.Accuracy(), df, "label", "p")


def test_a_partition_with_nan_rows_raises_input_error(spark):
    pdf = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "p": [1.0, np.nan, 3.0, 4.0]})
    df = spark.createDataFrame(pdf).repartition(2)
    with pytest.raises(sm.InputError, match=r"partition \d+: y_pred: .*(nan|NaN|finite)"):
        sms.evaluate(sm.MSE(), df, "y", "p")


def test_padding_rows_with_weight_zero_are_excluded(spark):
    rng = np.random.default_rng(4)
    y, p = rng.integers(0, 3, 100), rng.integers(0, 3, 100)
    padded = pd.DataFrame({"y": np.r_[y, y[:7]], "p": np.r_[p, p[:7]], "w": np.r_[np.ones(100), np.zeros(7)]})
    df = spark.createDataFrame(padded).repartition(3)
    got = sms.evaluate(sm.F1(average="macro"), df, "y", "p", weight_col="w")
    assert got.compute() == sm.F1(average="macro").update(y, p).compute()


def _fail_first_attempt(marker):
    def fn(batches):
        from pyspark import TaskContext

        ctx = TaskContext.get()
        if ctx.partitionId() == 1 and ctx.attemptNumber() == 0:
            open(marker, "w").close()
            raise RuntimeError("transient executor failure")
        yield from batches

    return fn


def test_a_task_retried_by_spark_does_not_double_count(spark, tmp_path):
    """The session runs ``local[2,3]``: a task may fail 3 times; partition 1's first attempt fails."""
    rng = np.random.default_rng(5)
    pdf = pd.DataFrame({"y": rng.integers(0, 4, 2000), "p": rng.integers(0, 4, 2000)})
    marker = str(tmp_path / "failed")
    df = spark.createDataFrame(pdf).repartition(4)
    df = df.mapInPandas(_fail_first_attempt(marker), schema=df.schema)
    got = sms.evaluate(sm.ConfusionMatrix(), df, "y", "p")
    assert os.path.exists(marker)  # the first attempt did fail
    assert got.n_samples == 2000
    np.testing.assert_array_equal(got.compute(), sm.ConfusionMatrix().update(pdf.y, pdf.p).compute())
