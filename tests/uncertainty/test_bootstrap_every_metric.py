"""Bootstrap around every metric of the law suite: its estimate is the metric on all the data,
shards with their own ids merge to one stream's estimate, and ``compute()`` never raises (a
replicate whose array lost a class is left out). Metrics whose value has no interval (curves,
reports, tables of counts, dicts) or that take no sample weights are refused when wrapped."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same, quiet_compute
from tests.law_cases import LawCase, all_cases, concat


def _wrappable(case: LawCase) -> bool:
    return not isinstance(case.make(), sm.Bootstrap)


CASES = [c for c in all_cases() if _wrappable(c)]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_bootstrap_estimate_is_the_metric_and_shards_merge(case: LawCase) -> None:
    rng = np.random.default_rng(5)
    parts = [case.batch(rng, max(n, case.min_rows)) for n in (8, 11)]
    try:
        whole_boot = sm.Bootstrap(case.make(), n_replicates=8, seed=0)
    except ValueError as err:  # refused: only a value that is no number, or a metric without weights
        if "takes no sample weights" in str(err):
            with pytest.raises(sm.InputError, match="sample_weight"):
                case.make().update(*parts[0], sample_weight=np.ones(len(parts[0][0])))
            return
        assert "Bootstrap intervals" in str(err)
        value = quiet_compute(case.make().update(*concat(parts)))
        assert (
            not isinstance(value, (float, np.ndarray))
            or np.asarray(value).dtype.kind not in "fiub"
            or (isinstance(value, np.ndarray) and case.make().type_name() == "ContingencyTable")
        ), f"{case.name} was refused but its value is a number: {value!r}"
        return
    for part in parts:
        whole_boot.update(*part)
    shards = [
        sm.Bootstrap(case.make(), n_replicates=8, seed=0, shard=i).update(*part)
        for i, part in enumerate(parts)
    ]
    expected = quiet_compute(case.make().update(*concat(parts)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for boot in (whole_boot, shards[0] + shards[1]):
            interval = boot.compute()  # never raises
            assert_same(
                interval.estimate,
                expected,
                rtol=max(case.rtol, 1e-9),
                atol=max(case.atol, 1e-12),
                where=case.name,
            )
            assert (
                np.shape(interval.low)
                == np.shape(interval.high)
                == np.shape(np.asarray(interval.estimate, float))
            )


@pytest.mark.parametrize(
    ("metric", "match"),
    [
        (sm.ROCCurve(), "ROCCurve's value is not one"),
        (sm.ClassificationReport(), "ClassificationReport's value is not one"),
        (sm.ContingencyTable(), "ContingencyTable's value is not one"),
        (sm.Sliced(sm.Accuracy()), "Sliced's value is not one"),
        (sm.MetricCollection([sm.Accuracy()]), "MetricCollection's value is not one"),
        (sm.Rolling(sm.PRCurve(), window=10), "PRCurve's value is not one"),
        (sm.RetrievalMAP(), "RetrievalMAP takes no sample weights"),
    ],
)
def test_metrics_without_an_interval_or_weights_are_refused(metric, match):
    with pytest.raises(ValueError, match=match):
        sm.Bootstrap(metric)
    with pytest.raises(ValueError, match=match):
        sm.Bootstrap({"type": metric.type_name(), "config": metric.get_config()}) if not isinstance(
            metric, (sm.Rolling, sm.Sliced, sm.MetricCollection)
        ) else sm.Bootstrap(metric)


def test_replicates_of_another_shape_are_left_out():
    """Per-sample matrices: a replicate whose draw dropped a row has fewer of them."""
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 2, (6, 3)), rng.integers(0, 2, (6, 3))
    boot = sm.Bootstrap(sm.MultilabelConfusionMatrix(samplewise=True), n_replicates=50, seed=1).update(y, p)
    values = boot.replicate_values()
    assert values.shape == (50, 6, 2, 2) and np.isnan(values).any() and not np.isnan(values).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interval = boot.compute()
    assert np.shape(interval.low) == (6, 2, 2)
