"""Beam: ``MetricCombineFn`` equals the single-process result on the DirectRunner and by protocol."""

from __future__ import annotations

import pickle

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

beam = require("apache_beam")

from apache_beam.testing.util import assert_that  # noqa: E402

from streammetrics.integrations.beam import MetricCombineFn  # noqa: E402

#: Beam combines accumulators in any order: the windows (merge by concatenation) are refused
#: (test_windows_are_refused) and left out of the other tests.
UNORDERED = [case for case in CASES if not type(case.make()).ordered_merge]


def rows(data: Data, part: slice = slice(None)) -> list[tuple]:
    yt, yp = data.y_true[part].tolist(), data.y_pred[part].tolist()
    if data.weight is None:
        return list(zip(yt, yp, strict=True))
    return list(zip(yt, yp, data.weight[part].tolist(), strict=True))


@pytest.mark.parametrize("case", one_per_type(UNORDERED), ids=str)
def test_combine_protocol_over_partitions(case):
    """What a runner does: one accumulator per bundle, shuffled (pickled), merged in any order."""
    data = make_data(case, seed=23, sort_by_class=True)
    fn = MetricCombineFn(case.make, buffer_size=16)
    accs = [fn.add_inputs(fn.create_accumulator(), rows(data, part)) for part in data.parts]
    accs = [pickle.loads(pickle.dumps(fn.compact(a))) for a in accs]
    order = np.random.default_rng(0).permutation(len(accs))
    left = fn.merge_accumulators([accs[i] for i in order[: len(order) // 2]])
    right = fn.merge_accumulators([accs[i] for i in order[len(order) // 2 :]])
    got = fn.extract_output(fn.merge_accumulators([right, left]))
    if type(got).__name__ in ("Decayed", "Rolling") or getattr(got, "samplewise", False):  # order-dependent
        got = fn.extract_output(fn.merge_accumulators(accs))
    assert_engine_equal(case, got, single_process(case, data), str(case))


def test_row_by_row_add_input_and_batched_elements():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 3, 1000), rng.integers(0, 3, 1000)
    fn = MetricCombineFn(lambda: sm.F1(average="macro"), output="value", buffer_size=64)
    acc = fn.create_accumulator()
    for row in zip(y.tolist(), p.tolist(), strict=True):
        acc = fn.add_input(acc, row)
    assert fn.extract_output(acc) == sm.F1(average="macro").update(y, p).compute()
    batched = MetricCombineFn(sm.F1(average="macro"), batched=True, output="bytes")
    acc = batched.add_inputs(
        batched.create_accumulator(), [(y[:400], p[:400]), (y[400:], p[400:], np.ones(600))]
    )
    assert (
        sm.from_bytes(batched.extract_output(acc)).compute() == sm.F1(average="macro").update(y, p).compute()
    )


def test_bad_elements_and_arguments():
    fn = MetricCombineFn(sm.MSE)
    acc = fn.add_input(fn.create_accumulator(), (1.0, 2.0, 3.0, 4.0))
    with pytest.raises(sm.InputError, match="element: expected"):
        fn.extract_output(acc)
    with pytest.raises(sm.InputError, match="element: expected a row"):
        fn.add_input(fn.create_accumulator(), 3.0)
    acc = fn.add_input(fn.create_accumulator(), (1.0, float("nan")))
    with pytest.raises(sm.InputError, match="y_pred"):
        fn.compact(acc)
    with pytest.raises(ValueError, match="output"):
        MetricCombineFn(sm.MSE, output="nope")
    with pytest.raises(TypeError, match="metric_factory"):
        MetricCombineFn(42)
    a = MetricCombineFn(lambda: sm.FBeta(beta=1.0)).create_accumulator()
    b = MetricCombineFn(lambda: sm.FBeta(beta=2.0)).create_accumulator()
    with pytest.raises(sm.MergeError, match="beta"):
        MetricCombineFn(sm.F1).merge_accumulators([a, b])


def _matcher(case, expected):
    def check(actual):
        assert len(actual) == 1, actual
        assert_engine_equal(case, sm.from_bytes(actual[0]), expected, str(case))

    return check


@pytest.mark.parametrize("part", range(2))
def test_direct_runner_every_state_kind(part):
    """One pipeline per half of the state kinds (so parallel test workers share them), one
    CombineGlobally branch per kind; every metric type goes through the combine protocol above."""
    with beam.Pipeline() as p:
        for case in one_per_state_kind(UNORDERED)[part::2]:
            data = make_data(case, seed=29)
            result = (
                p
                | f"create {case}" >> beam.Create(rows(data))
                | f"combine {case}" >> beam.CombineGlobally(MetricCombineFn(case.make, output="bytes"))
            )
            assert_that(result, _matcher(case, single_process(case, data)), label=f"check {case}")


def test_direct_runner_combine_per_key_equals_one_metric_per_key():
    rng = np.random.default_rng(3)
    y, p, key = rng.normal(size=600), rng.normal(size=600), rng.integers(0, 3, 600)
    expected = {k: sm.R2().update(y[key == k], p[key == k]).compute() for k in range(3)}

    def check(actual):
        got = dict(actual)
        assert got.keys() == expected.keys()
        for k, v in expected.items():
            np.testing.assert_allclose(got[k], v, rtol=1e-12)

    elements = [(int(k), (float(a), float(b))) for k, a, b in zip(key, y, p, strict=True)]
    with beam.Pipeline() as pipeline:
        out = pipeline | beam.Create(elements) | beam.CombinePerKey(MetricCombineFn(sm.R2, output="value"))
        assert_that(out, check)


def test_direct_runner_multi_processing_mode():
    from apache_beam.options.pipeline_options import PipelineOptions

    rng = np.random.default_rng(4)
    y, p = rng.integers(0, 2, 2000), rng.integers(0, 2, 2000)
    expected = sm.MCC().update(y, p).compute()

    def check(actual):
        assert actual == [expected]

    options = PipelineOptions(direct_num_workers=2, direct_running_mode="multi_processing")
    with beam.Pipeline(options=options) as pipeline:
        out = (
            pipeline
            | beam.Create(list(zip(y.tolist(), p.tolist(), strict=True)))
            | beam.Reshuffle()
            | beam.CombineGlobally(MetricCombineFn(sm.MCC, output="value"))
        )
        assert_that(out, check)


@pytest.mark.parametrize(
    "factory",
    [
        lambda: sm.Rolling(sm.F1(), window=100),
        lambda: sm.Decayed(sm.Accuracy(), half_life=10),
        lambda: sm.MetricCollection({"recent": sm.Rolling(sm.MSE(), window=100)}),
    ],
)
def test_windows_are_refused(factory):
    """A window's merge is concatenation (its rows' order matters); Beam merges in any order."""
    with pytest.raises(TypeError, match="merges by concatenation"):
        MetricCombineFn(factory)
