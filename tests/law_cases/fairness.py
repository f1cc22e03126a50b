"""Law cases of the fairness metrics: fairlearn's functions of the same name are the reference."""

from __future__ import annotations

import warnings

import numpy as np

import streammetrics as sm

from . import LawCase

_GROUPS = np.array(["a", "b", "c"])


def _binary_groups(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = rng.integers(0, 3, n)
    y = (rng.random(n) < 0.3 + 0.2 * g).astype(np.int64)
    p = np.where(rng.random(n) < 0.7, y, 1 - y)
    return y, p, _GROUPS[g]


def _fairlearn(name: str, **kw):
    def reference(y, p, groups, sample_weight=None):
        import fairlearn.metrics as flm

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(flm, name)(y, p, sensitive_features=groups, sample_weight=sample_weight, **kw)

    return reference


def _selection_rate(y, p, sample_weight=None):
    import fairlearn.metrics as flm

    return flm.selection_rate(y, p, sample_weight=sample_weight)


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y, p, _ = _binary_groups(rng, n)
    return y, p


def _accuracy_gap(kind: str, method: str):
    def reference(y, p, groups, sample_weight=None):
        from fairlearn.metrics import MetricFrame
        from sklearn.metrics import accuracy_score

        frame = MetricFrame(
            metrics=accuracy_score,
            y_true=y,
            y_pred=p,
            sensitive_features=groups,
            sample_params={"sample_weight": sample_weight},
        )
        return getattr(frame, kind)(method=method)

    return reference


CASES = [
    LawCase("SelectionRate", sm.SelectionRate, _binary, _selection_rate, rtol=1e-12, min_rows=2),
    LawCase(
        "DemographicParityDifference",
        sm.DemographicParityDifference,
        _binary_groups,
        _fairlearn("demographic_parity_difference"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "DemographicParityRatio[to_overall]",
        lambda: sm.DemographicParityRatio(method="to_overall"),
        _binary_groups,
        _fairlearn("demographic_parity_ratio", method="to_overall"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "EqualizedOddsDifference",
        sm.EqualizedOddsDifference,
        _binary_groups,
        _fairlearn("equalized_odds_difference"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "EqualizedOddsRatio[mean]",
        lambda: sm.EqualizedOddsRatio(agg="mean"),
        _binary_groups,
        _fairlearn("equalized_odds_ratio", agg="mean"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "EqualOpportunityDifference[to_overall]",
        lambda: sm.EqualOpportunityDifference(method="to_overall"),
        _binary_groups,
        _fairlearn("equal_opportunity_difference", method="to_overall"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "EqualOpportunityRatio",
        sm.EqualOpportunityRatio,
        _binary_groups,
        _fairlearn("equal_opportunity_ratio"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "GroupDifference[Accuracy]",
        lambda: sm.GroupDifference(sm.Accuracy()),
        _binary_groups,
        _accuracy_gap("difference", "between_groups"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
    LawCase(
        "GroupRatio[Accuracy-to_overall]",
        lambda: sm.GroupRatio(sm.Accuracy(), method="to_overall"),
        _binary_groups,
        _accuracy_gap("ratio", "to_overall"),
        rtol=1e-12,
        min_rows=2,  # fairlearn squeezes a one-row input to a scalar and refuses it
    ),
]
