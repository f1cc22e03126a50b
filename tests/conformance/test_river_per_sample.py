"""river's metrics and ours, fed the same stream, agree after every sample.

tests/streaming/test_river.py checks the adapter inside river's evaluation loops and the final
values; here each pair is compared at *every* sample, three ways: river's metric, our metric
through :class:`~streammetrics.integrations.river.RiverMetric`, and our plain metric fed one row
at a time with ``update_one``. The stream starts where values are undefined (one class seen, no
positive prediction yet), so the undefined conventions are checked too.

Left out: river's ``ROCAUC`` (an approximation on ``n_thresholds`` points) and the rolling AUCs;
``MAPE`` is in percent in river (compared times 100); river's ``GeometricMean`` and ``SMAPE`` are
compared in ``tests/nominal/test_catalogue_formulas.py`` and ``tests/catalogue/test_peer_agreement.py``;
river's ``Silhouette`` is another quantity under that name (``docs/guide/coming-from.md``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

river = pytest.importorskip("river")
from river import metrics as rm  # noqa: E402

from streammetrics.integrations.river import RiverMetric  # noqa: E402

N = 200


def _labels(n_classes: int, seed: int) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, N)
    # a prediction right 70% of the time, and the same class for the first rows (undefined values)
    p = np.where(rng.random(N) < 0.7, y, rng.integers(0, n_classes, N))
    y[:3], p[:3] = 0, 0
    if n_classes == 2:
        return [bool(v) for v in y], [bool(v) for v in p]
    return [int(v) for v in y], [int(v) for v in p]


def _values(seed: int) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    y = rng.gamma(2.0, 2.0, N) + 0.1
    return [float(v) for v in y], [float(v) for v in y + rng.normal(0, 1, N).clip(-0.09, None)]


def _probabilities(seed: int) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    y = rng.random(N) < 0.4
    p = np.clip(np.where(y, 0.65, 0.35) + rng.normal(0, 0.2, N), 0.01, 0.99)
    return [bool(v) for v in y], [float(v) for v in p]


BINARY = {
    "Accuracy": (sm.Accuracy, rm.Accuracy),
    "BalancedAccuracy": (sm.BalancedAccuracy, rm.BalancedAccuracy),
    "Precision": (sm.Precision, rm.Precision),
    "Recall": (sm.Recall, rm.Recall),
    "F1": (sm.F1, rm.F1),
    "FBeta(2)": (lambda: sm.FBeta(2.0), lambda: rm.FBeta(beta=2.0)),
    "Jaccard": (sm.Jaccard, rm.Jaccard),
    "MCC": (sm.MCC, rm.MCC),
    "CohenKappa": (sm.CohenKappa, rm.CohenKappa),
}
MULTICLASS = {  # river's MCC is binary (one pos_label): not compared on multiclass streams
    "Accuracy": (sm.Accuracy, rm.Accuracy),
    "BalancedAccuracy": (sm.BalancedAccuracy, rm.BalancedAccuracy),
    "CohenKappa": (sm.CohenKappa, rm.CohenKappa),
    **{
        f"{avg.title()}{name}": (
            (lambda c=ours, a=avg: c(average=a)),
            getattr(rm, f"{avg.title()}{name}"),
        )
        for avg in ("macro", "micro", "weighted")
        for name, ours in (
            ("Precision", sm.Precision),
            ("Recall", sm.Recall),
            ("F1", sm.F1),
            ("Jaccard", sm.Jaccard),
        )
    },
    **{
        f"{avg.title()}FBeta(2)": (
            (lambda a=avg: sm.FBeta(2.0, average=a)),
            (lambda a=avg: getattr(rm, f"{a.title()}FBeta")(beta=2.0)),
        )
        for avg in ("macro", "micro", "weighted")
    },
}
REGRESSION = {
    "MAE": (sm.MAE, rm.MAE),
    "MSE": (sm.MSE, rm.MSE),
    "RMSE": (sm.RMSE, rm.RMSE),
    "RMSLE": (sm.RMSLE, rm.RMSLE),
    "R2": (sm.R2, rm.R2),
    "MAPE": (sm.MAPE, rm.MAPE),  # river: percent
}
# river's binary metrics take True as the positive class from the first sample (pos_val=True);
# scikit-learn's rule (the greater label) needs both labels seen: pos_label=True says it here
PROBABILITY = {"LogLoss": (lambda: sm.LogLoss(pos_label=True), rm.LogLoss)}
CLUSTERING = {
    "AdjustedRand": (sm.AdjustedRandIndex, rm.AdjustedRand),
    "Rand": (sm.RandIndex, rm.Rand),
    "MutualInfo": (sm.MutualInfo, rm.MutualInfo),
    "NormalizedMutualInfo": (sm.NormalizedMutualInfo, rm.NormalizedMutualInfo),
    "AdjustedMutualInfo": (sm.AdjustedMutualInfo, rm.AdjustedMutualInfo),
    "Homogeneity": (sm.Homogeneity, rm.Homogeneity),
    "Completeness": (sm.Completeness, rm.Completeness),
    "VBeta": (sm.VMeasure, rm.VBeta),
    "FowlkesMallows": (sm.FowlkesMallowsIndex, rm.FowlkesMallows),
}

#: Every pair compared, by stream kind (the docs page reports this table's size).
CASES = [
    *((f"binary/{k}", *v, "binary") for k, v in BINARY.items()),
    *((f"multiclass/{k}", *v, "multiclass") for k, v in MULTICLASS.items()),
    *((f"regression/{k}", *v, "regression") for k, v in REGRESSION.items()),
    *((f"probability/{k}", *v, "probability") for k, v in PROBABILITY.items()),
    *((f"clustering/{k}", *v, "clustering") for k, v in CLUSTERING.items()),
]

STREAMS = {
    "binary": lambda: _labels(2, 1),
    "multiclass": lambda: _labels(4, 2),
    "regression": lambda: _values(3),
    "probability": lambda: _probabilities(4),
    "clustering": lambda: _labels(4, 5),
}


#: Where a value is undefined (one class seen: chance agreement is 1), river's CohenKappa says 0.0;
#: ours says NaN, as scikit-learn's cohen_kappa_score (checked below at those samples).
UNDEFINED_IS_ZERO_IN_RIVER = {"binary/CohenKappa", "multiclass/CohenKappa"}


def _same(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("name", "ours", "theirs", "kind"), CASES, ids=[c[0] for c in CASES])
def test_every_sample_agrees_with_river(name, ours, theirs, kind):
    ys, ps = STREAMS[kind]()
    reference, adapter, plain = theirs(), RiverMetric(ours()), ours()
    scale = 100.0 if name.endswith("MAPE") else 1.0
    for i, (y, p) in enumerate(zip(ys, ps, strict=True)):
        reference.update(y, p)
        adapter.update(y, p)
        plain.update_one(y, p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sm.UndefinedMetricWarning)
            values = (float(adapter.get()) * scale, float(plain.compute()) * scale)
        expected = float(reference.get())
        if name in UNDEFINED_IS_ZERO_IN_RIVER and expected == 0.0 and math.isnan(values[0]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = skm.cohen_kappa_score(ys[: i + 1], ps[: i + 1])
        assert _same(values[0], expected), (
            f"{name}, sample {i}: RiverMetric {values[0]!r}, river {expected!r}"
        )
        assert _same(values[1], expected), f"{name}, sample {i}: update_one {values[1]!r}, river {expected!r}"
