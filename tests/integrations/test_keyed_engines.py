"""Sliced through every engine: one small test each, reusing the engine fixtures (issue 19).

Each compares with one process holding all the rows; Beam also with ``CombinePerKey`` of the
plain metric (one accumulator per key: the same values, key by key).
"""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm

from .engine_cases import require

RNG = np.random.default_rng(19)
N = 240
Y = RNG.integers(0, 2, N)
P = np.where(RNG.random(N) < 0.75, Y, 1 - Y)
K = np.array(["de", "fr", "us"])[RNG.integers(0, 3, N)]
W = RNG.uniform(0.5, 2.0, N)


def _single() -> sm.Sliced:
    return sm.Sliced(sm.F1()).update(Y, P, K, sample_weight=W)


def _same(got: sm.Sliced) -> None:
    assert isinstance(got, sm.Sliced)
    expected = _single().compute()
    assert got.compute().keys() == expected.keys()
    for key, value in expected.items():
        assert got.compute()[key] == pytest.approx(value, abs=1e-12)
    assert got.n_samples == N


@pytest.mark.engine
def test_dask_sliced(dask_client):
    dd = require("dask.dataframe")
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame({"y": Y, "p": P, "k": K, "w": W}), npartitions=4)
    from streammetrics.integrations import dask as smd

    _same(smd.evaluate(sm.Sliced(sm.F1()), frame["y"], frame["p"], sample_weight=frame["w"], keys=frame["k"],
                       scheduler=dask_client))  # fmt: skip


@pytest.mark.engine
def test_spark_sliced(spark):
    import pandas as pd

    from streammetrics.integrations import spark as sms

    df = spark.createDataFrame(pd.DataFrame({"y": Y, "p": P, "k": K, "w": W}))
    _same(sms.evaluate(sm.Sliced(sm.F1()), df, "y", "p", weight_col="w", key_cols="k"))


@pytest.mark.engine
def test_beam_sliced_equals_combine_per_key():
    beam = require("apache_beam")
    from apache_beam.testing.util import assert_that, equal_to

    from streammetrics.integrations.beam import MetricCombineFn

    rows = list(zip(Y.tolist(), P.tolist(), K.tolist(), W.tolist(), strict=True))
    expected = _single().compute()
    with beam.Pipeline() as pipeline:
        elements = pipeline | beam.Create(rows)
        sliced = elements | beam.CombineGlobally(MetricCombineFn(lambda: sm.Sliced(sm.F1()), output="value"))
        per_key = (
            elements
            | beam.Map(lambda r: (r[2], (r[0], r[1], r[3])))
            | beam.CombinePerKey(MetricCombineFn(sm.F1, output="value"))
        )

        def close(found):
            assert len(found) == 1 and found[0].keys() == expected.keys()
            assert all(abs(found[0][k] - v) < 1e-12 for k, v in expected.items())

        assert_that(sliced, close, label="sliced")
        assert_that(
            per_key | beam.Map(lambda kv: (kv[0], round(kv[1], 12))),
            equal_to([(k, round(v, 12)) for k, v in expected.items()]),
            label="per key",
        )


def test_torch_distributed_gather_merge_of_sliced_states():
    from streammetrics.integrations import torch_distributed as smt

    ranks = [sm.Sliced(sm.F1()).update(Y[r::3], P[r::3], K[r::3], sample_weight=W[r::3]) for r in range(3)]
    blobs = [m.to_bytes() for m in ranks]

    def all_gather(output, obj):  # every rank's bytes, as the collective would give them
        output[:] = blobs

    _same(smt.gather_merge(ranks[0], all_gather=all_gather, world_size=3))
