"""Operating points agree with torchmetrics 1.9's functional versions on the same data (1e-12).

torchmetrics is the peer that defines these metrics (``binary_precision_at_fixed_recall`` and
its siblings, ``binary_eer``, ``binary_logauc`` and their multiclass/multilabel versions). It is
an optional dependency: the module skips without it, except on CI (``CI=true``), where a missing
torchmetrics fails (the ``require`` pattern of ``tests/integrations/engine_cases.py``).

torchmetrics is run in float64 (``torch.set_default_dtype``): its rates are divisions of
integer counts, float32 by default. Where the two differ on purpose (documented in the
docstrings), the test checks our side of the difference:

* the point predicting nothing positive: threshold ``inf`` here (scikit-learn's ``roc_curve``),
  1.0 in torchmetrics;
* no threshold qualifies: ``(nan, nan)`` here, a value of 0 and a threshold of NaN or 1e6 there;
* LogAUC at the ends of ``fpr_range``: torchmetrics' ``interp`` sorts the ROC points by FPR with an
  unstable ``argsort``, so on a vertical run of the curve (several points of one FPR) it may read
  any point of the run (its value then changes with the sort's internals, by up to 1e-3 here);
  we read the curve's own value there (the top of the run, as the curve's order gives). The
  comparison runs torchmetrics with that one sort made stable.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import streammetrics as sm
from tests.integrations.engine_cases import require

torch = require("torch")
F = require("torchmetrics.functional.classification")


@pytest.fixture(autouse=True)
def float64():
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def _binary(seed: int, n: int = 300, ties: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.2 * y)))
    return y, np.round(p, 2) if ties else p


def _multiclass(seed: int, n: int = 300, k: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    p = rng.dirichlet(np.ones(k), n)
    p[np.arange(n), y] += 0.4
    return y, p / p.sum(axis=1, keepdims=True)


def _multilabel(seed: int, n: int = 300, k: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (n, k))
    y[0], y[1] = 0, 1  # every label has both classes
    return y, np.round(np.clip(0.35 * y + 0.65 * rng.random((n, k)), 0, 1), 3)


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


CONSTRAINED = [
    # (ours, the torchmetrics functions' name after binary_ / multiclass_ / multilabel_)
    (sm.PrecisionAtRecall, "precision_at_fixed_recall"),
    (sm.RecallAtPrecision, "recall_at_fixed_precision"),
    (sm.SensitivityAtSpecificity, "sensitivity_at_specificity"),
    (sm.SpecificityAtSensitivity, "specificity_at_sensitivity"),
]
LEVELS = [0.0, 0.25, 0.5, 0.8, 0.95, 1.0]


def _same_point(ours_value, ours_threshold, value, threshold, where):
    value, threshold = float(value), float(threshold)
    if np.isnan(ours_value):  # nothing qualifies: (nan, nan) here, a value of 0 and NaN / 1e6 there
        assert np.isnan(ours_threshold), where
        assert value == 0.0 and (np.isnan(threshold) or threshold == 1e6), where
        return
    assert abs(ours_value - value) <= 1e-12, f"{where}: value {ours_value} != {value}"
    if np.isinf(ours_threshold):  # predicting nothing positive: inf here, 1.0 in torchmetrics
        assert threshold == 1.0, f"{where}: threshold inf vs {threshold}"
    else:
        assert abs(ours_threshold - threshold) <= 1e-12, f"{where}: threshold {ours_threshold} != {threshold}"


@pytest.mark.parametrize(("cls", "name"), CONSTRAINED, ids=[c.__name__ for c, _ in CONSTRAINED])
@pytest.mark.parametrize("ties", [False, True])
def test_binary_constrained_points(cls, name, ties):
    fn = getattr(F, f"binary_{name}")
    for seed in range(3):
        y, p = _binary(seed, ties=ties)
        for level in LEVELS:
            ours = _quiet(cls(level).update(y, p).compute)
            value, threshold = _quiet(fn, _t(p), _t(y), level)
            _same_point(ours.value, ours.threshold, value, threshold, f"{cls.__name__}({level}) seed {seed}")


@pytest.mark.parametrize(("cls", "name"), CONSTRAINED, ids=[c.__name__ for c, _ in CONSTRAINED])
def test_multiclass_and_multilabel_constrained_points(cls, name):
    for kind, data, extra in (
        ("multiclass", _multiclass, "num_classes"),
        ("multilabel", _multilabel, "num_labels"),
    ):
        fn = getattr(F, f"{kind}_{name}")
        y, p = data(7)
        for level in (0.3, 0.7):
            ours = _quiet(cls(level).update(y, p).compute)
            values, thresholds = _quiet(fn, _t(p), _t(y), **{extra: p.shape[1], _param(name): level})
            assert ours.value.shape == (p.shape[1],)
            for j in range(p.shape[1]):
                _same_point(
                    ours.value[j],
                    ours.threshold[j],
                    values[j],
                    thresholds[j],
                    f"{kind} {cls.__name__} class {j}",
                )


def _param(name: str) -> str:
    return {
        "precision_at_fixed_recall": "min_recall",
        "recall_at_fixed_precision": "min_precision",
        "sensitivity_at_specificity": "min_specificity",
        "specificity_at_sensitivity": "min_sensitivity",
    }[name]


def test_equal_error_rate():
    for seed, ties in ((0, False), (1, True), (2, False)):
        y, p = _binary(seed, ties=ties)
        ours = sm.EqualErrorRate().update(y, p).compute()
        assert abs(ours.value - float(F.binary_eer(_t(p), _t(y)))) <= 1e-12
        # the threshold achieves it: the rates at score >= threshold give the value
        c = sm.ROCAUC(exact=True).update(y, p).confusion_at(ours.threshold)
        assert abs((c.fp / (c.fp + c.tn) + c.fn / (c.tp + c.fn)) / 2 - ours.value) <= 1e-12
    y, p = _multiclass(3)
    ours = sm.EqualErrorRate().update(y, p).compute()
    np.testing.assert_allclose(
        ours.value, F.multiclass_eer(_t(p), _t(y), num_classes=4).numpy(), rtol=0, atol=1e-12
    )
    micro = sm.EqualErrorRate(average="micro").update(y, p).compute()
    expected = float(F.multiclass_eer(_t(p), _t(y), num_classes=4, average="micro"))
    assert abs(micro.value - expected) <= 1e-12
    y, p = _multilabel(4)
    ours = sm.EqualErrorRate().update(y, p).compute()
    np.testing.assert_allclose(
        ours.value, F.multilabel_eer(_t(p), _t(y), num_labels=3).numpy(), rtol=0, atol=1e-12
    )


def _stable_interp(x, xp, fp):
    """torchmetrics' ``interp`` with a stable sort (points of one FPR keep the curve's order)."""
    order = torch.argsort(xp, stable=True)
    xp, fp = xp[order], fp[order]
    slopes = (fp[1:] - fp[:-1]) / (xp[1:] - xp[:-1])
    idx = torch.clamp(torch.searchsorted(xp, x) - 1, 0, len(slopes) - 1)
    return fp[idx] + slopes[idx] * (x - xp[idx])


@pytest.mark.parametrize("fpr_range", [(0.001, 0.1), (0.05, 0.5), (0.1, 1.0), (0.01, 0.02)])
def test_log_auc(fpr_range, monkeypatch):
    monkeypatch.setattr(
        sys.modules["torchmetrics.functional.classification.logauc"], "interp", _stable_interp
    )
    for seed, ties in ((0, False), (1, True)):
        y, p = _binary(seed, n=2000, ties=ties)
        ours = sm.LogAUC(fpr_range).update(y, p).compute()
        assert abs(ours - float(F.binary_logauc(_t(p), _t(y), fpr_range=fpr_range))) <= 1e-12
    y, p = _multiclass(5, n=1000)
    for average in ("macro", None):
        ours = sm.LogAUC(fpr_range, average=average).update(y, p).compute()
        ref = F.multiclass_logauc(_t(p), _t(y), num_classes=4, fpr_range=fpr_range, average=average)
        np.testing.assert_allclose(ours, ref.numpy(), rtol=0, atol=1e-12)
    y, p = _multilabel(6, n=1000)
    ours = sm.LogAUC(fpr_range, average=None).update(y, p).compute()
    ref = F.multilabel_logauc(_t(p), _t(y), num_labels=3, fpr_range=fpr_range, average=None)
    np.testing.assert_allclose(ours, ref.numpy(), rtol=0, atol=1e-12)
