"""Every option is a named constructor parameter, and a wrong keyword's error names the class."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import streammetrics as sm

#: Positional arguments of the classes that cannot be built with no argument.
REQUIRED: dict[str, tuple[Any, ...]] = {
    "AdjustedR2": (3,),
    "ExpectedCost": ([[0.0, 1.0], [1.0, 0.0]],),
    "MetricCollection": ({"acc": sm.Accuracy()},),
    "Rolling": (sm.Accuracy(), 10),
    "Decayed": (sm.Accuracy(), 5.0),
    "Bootstrap": (sm.Accuracy(),),
    "MetricTracker": (sm.Accuracy(),),
    "MinMax": (sm.Accuracy(),),
    "MultiFBeta": ({0: 1.0, 1: 2.0},),
    "PrecisionAtRecall": (0.5,),
    "RecallAtPrecision": (0.5,),
    "SensitivityAtSpecificity": (0.5,),
    "SpecificityAtSensitivity": (0.5,),
    "Sliced": (sm.Accuracy(),),
    "GroupDifference": (sm.Accuracy(),),
    "GroupRatio": (sm.Accuracy(),),
}

METRICS = sorted(
    name
    for name in sm.__all__
    if isinstance(getattr(sm, name), type)
    and issubclass(getattr(sm, name), sm.Metric)
    and getattr(sm, name) is not sm.Metric
)


def build(name: str, **kwargs: Any) -> sm.Metric:
    return getattr(sm, name)(*REQUIRED.get(name, ()), **kwargs)


def test_the_table_covers_every_exported_metric() -> None:
    assert len(METRICS) > 80
    assert {"ROCAUC", "BrierScore", "ConfusionMatrix", "FBeta", "MetricCollection", "Bootstrap"} <= set(
        METRICS
    )


@pytest.mark.parametrize("name", METRICS)
def test_no_hidden_options(name: str) -> None:
    """No ``**kwargs``: IDE help and ``help()`` show every option (wrappers included)."""
    params = inspect.signature(getattr(sm, name)).parameters.values()
    assert not [p.name for p in params if p.kind is p.VAR_KEYWORD]


@pytest.mark.parametrize("name", METRICS)
def test_every_configuration_key_is_a_parameter_with_its_default(name: str) -> None:
    params = inspect.signature(getattr(sm, name)).parameters
    metric = build(name)
    config = metric.get_config()
    assert set(config) <= set(params), set(config) - set(params)
    if name in REQUIRED:
        return  # built with arguments: its configuration is not the defaults
    for key, value in config.items():
        assert params[key].default is not inspect.Parameter.empty, key
        default = params[key].default
        if isinstance(default, tuple):  # a configuration is JSON: a tuple default reads back as a list
            default = list(default)
        assert value == default or (value != value and default != default)


@pytest.mark.parametrize("name", METRICS)
def test_unknown_keyword_names_the_class(name: str) -> None:
    with pytest.raises(TypeError, match=rf"^{name}\.__init__\(\) got an unexpected keyword argument 'foo'"):
        build(name, foo=1)


def test_rocauc_shows_its_sketch_options() -> None:
    params = inspect.signature(sm.ROCAUC).parameters
    for option in ("average", "multi_class", "max_fpr", "input", "exact", "resolution", "max_bins"):
        assert option in params
    assert {"pos_label", "labels"} <= set(params)
    assert params["exact"].default is False


#: A value other than the default for each option the former ``**kwargs`` classes forward.
OTHER_VALUES: dict[str, Any] = {
    "input": "score",
    "exact": True,
    "resolution": 8,
    "max_bins": 100,
    "pos_label": 0,
    "labels": [0, 1],
    "threshold": 0.25,
    "average": "weighted",
    "zero_division": 1.0,
}

FORWARDING = [
    "ROCAUC",
    "AveragePrecision",
    "ROCCurve",
    "PRCurve",
    "BrierScore",
    "CalibrationError",
    "ExpectedCost",
    "ConfusionMatrix",
    "ClassificationReport",
    "FBeta",
    "BalancedAccuracy",
    "CohenKappa",
    "RateMean",
]


@pytest.mark.parametrize("name", FORWARDING)
def test_forwarded_options_reach_the_configuration(name: str) -> None:
    """Each option given by keyword is the one the metric keeps (nothing dropped or swapped)."""
    params = inspect.signature(getattr(sm, name)).parameters
    given = {key: value for key, value in OTHER_VALUES.items() if key in params}
    if "threshold" in given:  # thresholds take probabilities, not scores
        given["input"] = "probability"
    assert len(given) >= 3
    config = build(name, **given).get_config()
    for key, value in given.items():
        assert config[key] == value, key
