"""The per-row value metrics of issue 17 against their peers: torchmetrics and torcheval (float64
tensors, whole arrays) and river (one row at a time), on the same data fed to streammetrics in
several batches or rows.

The law suite (``tests/law_cases``) compares every metric with an independent reference from the
test extra (scikit-learn, SciPy, exact sums); this module checks that the peers a user migrates
from give the same numbers. The peers come from the ``peers`` extra (torchmetrics, torcheval;
river is in ``dev``): missing, the tests skip locally and fail in CI (``CI=true``), as the engine
tests do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import streammetrics as sm
from tests.helpers import assert_same, fed_in_batches
from tests.integrations.engine_cases import require

N = 240


def _rng() -> np.random.Generator:
    return np.random.default_rng(17)


def _pair() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    t = rng.gamma(2.0, 2.0, N) + 0.1
    return t, t * rng.uniform(0.5, 1.5, N)


def _multi() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    t = np.array([0.0, 100.0, -3.0]) + rng.standard_normal((N, 3))
    return t, t + 0.2 + 0.7 * rng.standard_normal((N, 3))


def _tiny() -> tuple[np.ndarray, np.ndarray]:
    """Targets whose absolute sum is below torchmetrics' epsilon (1.17e-6): its clamp decides."""
    t, p = _multi()
    return t * 1e-12, p * 1e-12


def _vectors() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    return rng.standard_normal((N, 4)) + 0.5, rng.standard_normal((N, 4)) + 0.5


def _ensemble() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    return rng.standard_normal(N), rng.standard_normal((N, 5))


def _distributions() -> tuple[np.ndarray, np.ndarray]:
    """Rows of weights (normalized by both), some with a zero probability in P."""
    rng = _rng()
    p = rng.dirichlet(np.ones(4), N) * rng.uniform(0.5, 2.0, (N, 1))
    p[::5, 1] = 0.0
    return p, rng.dirichlet(np.ones(4), N) + 0.01


def _scores() -> tuple[np.ndarray, np.ndarray]:
    """Scores without ties (the peers break ties their own way)."""
    rng = _rng()
    y = rng.integers(0, 4, N)
    return y, rng.standard_normal((N, 4)) + np.eye(4)[y]


def _probabilities() -> tuple[np.ndarray, np.ndarray]:
    """Class probabilities (torchmetrics' hinge loss takes a softmax of anything outside [0, 1])."""
    y, s = _scores()
    e = np.exp(s)
    return y, e / e.sum(axis=1, keepdims=True)


def _binary() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    y = rng.integers(0, 2, N)
    return y, np.clip(0.3 * y + 0.7 * rng.random(N), 0.01, 0.99)


def _multilabel() -> tuple[np.ndarray, np.ndarray]:
    """Relevance indicators with at least one relevant and one irrelevant label per row, and
    scores without ties."""
    rng = _rng()
    y = rng.integers(0, 2, (N, 5))
    y[:, 0], y[:, 1] = 1, 0
    return y, rng.standard_normal((N, 5)) + y


def ours(make: Callable[[], Any], args: tuple[np.ndarray, ...], weights: np.ndarray | None = None) -> Any:
    """The metric fed in three batches (warnings ignored)."""
    return fed_in_batches(make, args, weights)


# ----------------------------------------------------------------------------- torchmetrics
def _tm(
    module: str,
    name: str,
    *,
    swap: bool = True,
    reduce: Callable[[Any], Any] = float,
    rtol: float = 1e-9,
    **kw: Any,
):
    """torchmetrics' class metric in float64, fed ``(preds, target)`` (``swap``: our arguments
    are ``(target, preds)``); ``rtol``: the agreement expected (torchmetrics computes some
    metrics in float32 whatever the dtype)."""

    def peer(*args: np.ndarray) -> Any:
        torch = require("torch")
        tm = require("torchmetrics")
        m = getattr(getattr(tm, module), name)(**kw).set_dtype(torch.float64)
        tensors = [torch.as_tensor(a) for a in args]
        m.update(*(reversed(tensors) if swap else tensors))
        return reduce(m.compute().numpy())

    peer.rtol = rtol  # type: ignore[attr-defined]
    return peer


def _mean_outputs(x: Any) -> float:
    return float(np.mean(x))


TORCHMETRICS = [
    (
        "LogCoshError",
        sm.LogCoshError,
        _multi,
        _tm("regression", "LogCoshError", num_outputs=3, reduce=_mean_outputs),
    ),
    ("SMAPE", sm.SMAPE, _pair, _tm("regression", "SymmetricMeanAbsolutePercentageError")),
    ("WMAPE", sm.WMAPE, _multi, _tm("regression", "WeightedMeanAbsolutePercentageError")),
    ("WMAPE[tiny]", sm.WMAPE, _tiny, _tm("regression", "WeightedMeanAbsolutePercentageError")),
    (
        "MinkowskiDistance",
        lambda: sm.MinkowskiDistance(3),
        _pair,
        _tm("regression", "MinkowskiDistance", p=3),
    ),
    ("CosineSimilarity", sm.CosineSimilarity, _vectors, _tm("regression", "CosineSimilarity", rtol=1e-6)),
    (
        "CosineSimilarity[mean]",
        lambda: sm.CosineSimilarity("mean"),
        _vectors,
        _tm("regression", "CosineSimilarity", reduction="mean", rtol=1e-6),
    ),
    ("CRPS", sm.CRPS, _ensemble, _tm("regression", "ContinuousRankedProbabilityScore")),
    (
        "TweedieDeviance[1.5]",
        lambda: sm.TweedieDeviance(1.5),
        _pair,
        _tm("regression", "TweedieDevianceScore", power=1.5),
    ),
    ("KLDivergence", sm.KLDivergence, _distributions, _tm("regression", "KLDivergence", swap=False)),
    (
        "JensenShannonDivergence",
        sm.JensenShannonDivergence,
        _distributions,
        _tm("regression", "JensenShannonDivergence", swap=False),
    ),
    (
        "TopKAccuracy",
        sm.TopKAccuracy,
        _scores,
        _tm("classification", "MulticlassAccuracy", num_classes=4, top_k=2, average="micro"),
    ),
    (
        "HingeLoss[crammer-singer]",
        sm.HingeLoss,
        _probabilities,
        _tm("classification", "MulticlassHingeLoss", num_classes=4, multiclass_mode="crammer-singer"),
    ),
    (
        "HingeLoss[squared]",
        lambda: sm.HingeLoss(squared=True),
        _probabilities,
        _tm(
            "classification",
            "MulticlassHingeLoss",
            num_classes=4,
            multiclass_mode="crammer-singer",
            squared=True,
        ),
    ),
]
for _ours, _theirs in (
    ("CoverageError", "MultilabelCoverageError"),
    ("LabelRankingAveragePrecision", "MultilabelRankingAveragePrecision"),
    ("LabelRankingLoss", "MultilabelRankingLoss"),
):  # torchmetrics: a sigmoid of scores outside [0, 1] (the same ranking), ratios in float32
    TORCHMETRICS.append(
        (_ours, getattr(sm, _ours), _multilabel, _tm("classification", _theirs, num_labels=5, rtol=1e-6))
    )
for _norm in ("mean", "std", "l2", "range"):
    TORCHMETRICS.append(
        (
            f"NRMSE[{_norm}]",
            lambda n=_norm: sm.NRMSE(n),
            _multi,
            _tm(
                "regression",
                "NormalizedRootMeanSquaredError",
                normalization=_norm,
                num_outputs=3,
                reduce=_mean_outputs,
            ),
        )
    )


@pytest.mark.parametrize(
    ("make", "data", "peer"), [c[1:] for c in TORCHMETRICS], ids=[c[0] for c in TORCHMETRICS]
)
def test_torchmetrics_agrees(make, data, peer) -> None:
    args = data()
    assert_same(ours(make, args), peer(*args), rtol=peer.rtol, atol=1e-12)


@pytest.mark.parametrize("name", ["MeanMetric", "SumMetric", "MinMetric", "MaxMetric"])
@pytest.mark.parametrize("weighted", [False, True])
def test_torchmetrics_aggregators_agree(name: str, weighted: bool) -> None:
    torch = require("torch")
    tm = require("torchmetrics")
    x = 3.0 + 2.0 * _rng().standard_normal((N, 3))
    w = _rng().uniform(0.5, 2.0, N) if weighted else None
    peer = getattr(tm.aggregation, name)(nan_strategy="error").set_dtype(torch.float64)
    if weighted and name == "MeanMetric":  # torchmetrics broadcasts a weight per value
        peer.update(torch.as_tensor(x), torch.as_tensor(np.repeat(w[:, None], 3, axis=1)))
    elif weighted and name == "SumMetric":  # no weights: the weighted values
        peer.update(torch.as_tensor(x * w[:, None]))
    else:  # MinMetric, MaxMetric take no weights; ours only leave weight 0 out
        peer.update(torch.as_tensor(x))
    make = {"MeanMetric": sm.Mean, "SumMetric": sm.Sum, "MinMetric": sm.Min, "MaxMetric": sm.Max}[name]
    assert_same(ours(make, (x,), w), float(peer.compute()), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- torcheval
@pytest.mark.parametrize("weighted", [False, True])
def test_torcheval_agrees(weighted: bool) -> None:
    torch = require("torch")
    F = require("torcheval.metrics.functional")
    y, p = _binary()
    w = _rng().uniform(0.5, 2.0, N) if weighted else None
    tw = None if w is None else torch.as_tensor(w)
    tp, ty = torch.as_tensor(p), torch.as_tensor(y.astype(float))
    assert_same(
        ours(sm.NormalizedEntropy, (y, p), w),
        float(F.binary_normalized_entropy(tp, ty, weight=tw)),
        rtol=1e-9,
    )
    logits = np.log(p) - np.log1p(-p)
    assert_same(
        ours(lambda: sm.NormalizedEntropy(from_logits=True), (y, logits), w),
        float(F.binary_normalized_entropy(torch.as_tensor(logits), ty, weight=tw, from_logits=True)),
        rtol=1e-9,
    )
    assert_same(
        ours(sm.WeightedCalibration, (y.astype(float), p), w),
        float(F.weighted_calibration(tp, ty, 1.0 if tw is None else tw)),
        rtol=1e-9,
    )
    labels, scores = _scores()
    if not weighted:  # torcheval's top-k accuracy takes no weights (and returns float32)
        expected = F.multiclass_accuracy(torch.as_tensor(scores), torch.as_tensor(labels), k=2)
        assert_same(ours(sm.TopKAccuracy, (labels, scores)), float(expected), rtol=1e-6)


@pytest.mark.parametrize("ignore_index", [None, -100, 3])
def test_perplexity_agrees_with_torchmetrics_and_torcheval(ignore_index) -> None:
    """Sequences of logits ``(batch, seq_len, vocabulary)`` as both peers take them (float64
    tensors), fed to streammetrics in three batches of sequences."""
    torch = require("torch")
    text = require("torchmetrics.text")
    evaluation = require("torcheval.metrics")
    rng = _rng()
    logits = 3.0 * rng.standard_normal((12, 9, 50))
    target = rng.integers(0, 50, (12, 9))
    if ignore_index is not None:
        target[rng.random(target.shape) < 0.25] = ignore_index
    m = sm.Perplexity(ignore_index=ignore_index)
    for rows in np.array_split(np.arange(12), 3):
        m.update(target[rows], logits[rows])
    # (torchmetrics computes the probabilities in float32)
    for peer, rtol in (
        (text.Perplexity(ignore_index=ignore_index), 1e-6),
        (evaluation.Perplexity(ignore_index=ignore_index), 1e-12),
    ):
        peer.update(torch.as_tensor(logits), torch.as_tensor(target))
        assert_same(m.compute(), float(peer.compute()), rtol=rtol)


@pytest.mark.parametrize("weighted", [False, True])
def test_normalized_entropy_floors_log_as_torcheval(weighted: bool) -> None:
    """Certain wrong predictions (p = 0 for a positive, 1 for a negative) cost 100 each, as
    torch's binary cross entropy floors its logarithms at -100."""
    torch = require("torch")
    F = require("torcheval.metrics.functional")
    y = np.array([1, 0, 1, 0, 1])
    p = np.array([0.0, 1.0, 0.5, 0.2, 1.0])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0]) if weighted else None
    expected = F.binary_normalized_entropy(
        torch.as_tensor(p), torch.as_tensor(y.astype(float)), weight=None if w is None else torch.as_tensor(w)
    )
    assert_same(ours(sm.NormalizedEntropy, (y, p), w), float(expected), rtol=1e-12)


# ----------------------------------------------------------------------------- river
def _river_rows(peer: Any, ours_metric: Any, *args: list[float]) -> tuple[float, float]:
    for row in zip(*args, strict=True):
        peer.update(*row)
        ours_metric.update(*row)
    return ours_metric.compute(), peer.get()


@pytest.mark.parametrize("name", ["Mean", "Sum", "Min", "Max"])
def test_river_stats_agree_row_by_row(name: str) -> None:
    stats = require("river.stats")
    x = (3.0 + 2.0 * _rng().standard_normal(N)).tolist()
    got, expected = _river_rows(getattr(stats, name)(), getattr(sm, name)(), x)
    assert_same(got, expected, rtol=1e-12)


def test_river_smape_agrees_row_by_row() -> None:
    metrics = require("river.metrics")
    t, p = _pair()
    got, expected = _river_rows(metrics.SMAPE(), sm.SMAPE(), t.tolist(), p.tolist())
    assert_same(100 * got, expected, rtol=1e-12)  # river reports a percentage
