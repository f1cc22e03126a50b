"""Dask: engine result == single-process result for every metric, scheduler and partitioning."""

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

pytestmark = pytest.mark.engine

da = require("dask.array")
dd = require("dask.dataframe")
dask = require("dask")

from streammetrics.integrations import dask as smd  # noqa: E402


def per_family(cases):
    """One case per metric family (module), for the schedulers that start processes."""
    seen, out = set(), []
    for case in cases:
        family = type(case.make()).__module__.split(".")[1]
        if family not in seen:
            seen.add(family)
            out.append(case)
    return out


def arrays(data: Data):
    def arr(x):
        if x is None:
            return None
        return da.from_array(x, chunks=(data.chunks, *x.shape[1:]))

    return arr(data.y_true), arr(data.y_pred), arr(data.weight)


def frames(data: Data):
    """Dask Series with the same (possibly empty) partitions, via from_delayed."""
    import pandas as pd

    pdf = pd.DataFrame(
        {"y": data.y_true, "p": data.y_pred, "w": data.weight if data.weight is not None else 1.0}
    )
    parts = [dask.delayed(pdf.iloc[s]) for s in data.parts]
    df = dd.from_delayed(parts, meta=pdf.iloc[:0], verify_meta=False)
    return df["y"], df["p"], (df["w"] if data.weight is not None else None)


@pytest.mark.parametrize("sort_by_class", [False, True], ids=["random-partitions", "one-class-partitions"])
@pytest.mark.parametrize("case", one_per_type(CASES), ids=str)
def test_every_metric_type_threaded_scheduler(case, sort_by_class):
    data = make_data(case, seed=7, sort_by_class=sort_by_class)
    yt, yp, w = arrays(data)
    got = smd.evaluate(case.make(), yt, yp, sample_weight=w, split_every=2, scheduler="threads")
    assert_engine_equal(case, got, single_process(case, data), str(case))


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in one_per_state_kind(CASES)
        if all(np.ndim(a) == 1 for a in c.batch(np.random.default_rng(0), 2))
    ],
    ids=str,
)
def test_dataframe_columns_with_empty_partitions(case):
    data = make_data(case, seed=11)
    yt, yp, w = frames(data)
    assert yt.npartitions == len(data.parts)
    got = smd.evaluate(case.make(), yt, yp, sample_weight=w, split_every=3, scheduler="synchronous")
    assert_engine_equal(case, got, single_process(case, data), str(case))


@pytest.mark.parametrize("case", per_family(CASES), ids=str)
def test_process_scheduler(case):
    data = make_data(case, seed=3, sort_by_class=True)
    got = smd.evaluate(
        case.make(), *arrays(data)[:2], sample_weight=arrays(data)[2], scheduler="processes", num_workers=2
    )
    assert_engine_equal(case, got, single_process(case, data), str(case))


@pytest.mark.parametrize("case", per_family(CASES), ids=str)
def test_distributed_local_cluster(case, dask_client):
    data = make_data(case, seed=5)
    yt, yp, w = arrays(data)
    got = smd.evaluate(case.make(), yt, yp, sample_weight=w, split_every=2, scheduler=dask_client)
    assert_engine_equal(case, got, single_process(case, data), str(case))


def test_split_every_builds_a_deep_tree_with_the_same_result():
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 5, 10_000), rng.integers(0, 5, 10_000)
    expected = sm.ConfusionMatrix().update(y, p)
    for split_every in (2, 3, 8, 64):
        got = smd.evaluate(
            sm.ConfusionMatrix(),
            da.from_array(y, chunks=97),
            da.from_array(p, chunks=97),
            split_every=split_every,
        )
        np.testing.assert_array_equal(got.compute(), expected.compute())
    with pytest.raises(ValueError, match="split_every"):
        smd.evaluate(sm.Accuracy(), da.from_array(y), da.from_array(p), split_every=1)


def test_metric_is_not_changed_and_its_data_is_not_included():
    m = sm.Accuracy().update([0], [1])
    before = m.state_dict()
    got = smd.evaluate(m, da.from_array(np.array([1, 1])), da.from_array(np.array([1, 1])))
    assert got.compute() == 1.0 and got.n_samples == 2
    assert m.state_dict()["state"]["n_samples"] == before["state"]["n_samples"] == 1


def test_a_partition_with_nan_rows_raises_input_error_naming_it():
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    p = y.copy()
    p[4] = np.nan
    with pytest.raises(sm.InputError, match=r"partition 2: y_pred: .*(nan|NaN|finite)"):
        smd.evaluate(sm.MSE(), da.from_array(y, chunks=2), da.from_array(p, chunks=2))


def test_misaligned_inputs_are_input_errors():
    y = da.from_array(np.arange(6) % 2, chunks=2)
    with pytest.raises(sm.InputError, match="y_pred: expected 6 rows"):
        smd.evaluate(sm.Accuracy(), y, da.from_array(np.arange(5) % 2))
    with pytest.raises(sm.InputError, match="y_pred: expected a dask array"):
        smd.evaluate(sm.Accuracy(), y, np.arange(6) % 2)
    import pandas as pd

    a = dd.from_pandas(pd.Series([0, 1, 0, 1]), npartitions=2)
    b = dd.from_pandas(pd.Series([0, 1, 0, 1]), npartitions=1)
    with pytest.raises(sm.InputError, match="aligned partitions"):
        smd.evaluate(sm.Accuracy(), a, b)


def test_arrays_of_other_chunks_are_rechunked_to_y_true():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    got = smd.evaluate(sm.F1(), da.from_array(y, chunks=7), da.from_array(p, chunks=30))
    assert got.compute() == sm.F1().update(y, p).compute()


def test_states_of_different_configurations_raise_merge_error():
    from streammetrics.integrations import _shards

    a = _shards.dump(sm.FBeta(beta=0.5).update([0, 1], [0, 1]))
    b = _shards.dump(sm.FBeta(beta=2.0).update([0, 1], [1, 1]))
    with pytest.raises(sm.MergeError, match=r"beta=0\.5 vs beta=2\.0"):
        smd._final(a, b)


# ----------------------------------------------------------------------------- faults
def _die_once(block, marker):
    """Kill the worker process the first time any block runs (the nanny restarts it)."""
    if block.size == 0:  # meta inference on the client
        return block
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return block
    os.close(fd)
    os._exit(1)


def _fail_once(block, marker):
    if block.size == 0:
        return block
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return block
    os.close(fd)
    raise RuntimeError("transient failure")


def test_a_worker_that_dies_and_is_retried_does_not_double_count(dask_client, tmp_path):
    rng = np.random.default_rng(2)
    y, p = rng.integers(0, 3, 4_000), rng.integers(0, 3, 4_000)
    marker = str(tmp_path / "died")
    yp = da.from_array(p, chunks=500).map_blocks(_die_once, marker, meta=np.array((), dtype=p.dtype))
    got = smd.evaluate(sm.ConfusionMatrix(), da.from_array(y, chunks=500), yp, scheduler=dask_client)
    assert os.path.exists(marker)  # a worker really died
    np.testing.assert_array_equal(got.compute(), sm.ConfusionMatrix().update(y, p).compute())
    assert got.n_samples == 4_000


def test_a_task_that_fails_once_then_succeeds_does_not_double_count(dask_client, tmp_path):
    rng = np.random.default_rng(3)
    y, p = rng.normal(size=3_000), rng.normal(size=3_000)
    marker = str(tmp_path / "failed")
    yp = da.from_array(p, chunks=300).map_blocks(_fail_once, marker, meta=np.array((), dtype=p.dtype))
    got = smd.evaluate(sm.MSE(), da.from_array(y, chunks=300), yp, scheduler=dask_client, retries=2)
    assert os.path.exists(marker)
    assert got.n_samples == 3_000
    np.testing.assert_allclose(got.compute(), sm.MSE().update(y, p).compute(), rtol=1e-12)
