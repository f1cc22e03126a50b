"""The scikit-learn options of the ranking metrics (issue 15), each against scikit-learn, streamed.

Micro-averaged multiclass ROCAUC (``average="micro"`` with ``multi_class="ovr"``), ``max_fpr`` for
multilabel input, ``average="samples"``: in one batch, in uneven batches, and merged shards.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm

CUTS = [(0, 3), (3, 31), (31, 60)]


def _streamed(make, y, s, value=lambda m: m.compute()):
    """The value from one batch, from uneven batches, and from shards merged through bytes."""
    one = make().update(y, s)
    batches = make()
    for a, b in CUTS:
        batches.update(y[a:b], s[a:b])
    merged = sum(sm.from_bytes(make().update(y[a:b], s[a:b]).to_bytes()) for a, b in reversed(CUTS))
    return [value(m) for m in (one, batches, merged)]


def _multiclass(seed=1, k=4):
    rng = np.random.default_rng(seed)
    return rng.choice(k, 60), rng.dirichlet(np.ones(k), 60)


def _multilabel(seed=2, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (60, k))
    return y, np.round(np.clip(y * 0.3 + rng.random((60, k)) * 0.7, 0, 1), 2)


def test_micro_averaged_multiclass_rocauc_agrees_with_scikit_learn() -> None:
    y, p = _multiclass()
    ref = skm.roc_auc_score(y, p, multi_class="ovr", average="micro")
    for value in _streamed(lambda: sm.ROCAUC(exact=True, average="micro"), y, p):
        assert value == pytest.approx(ref, rel=1e-12)
    lo, hi = sm.ROCAUC(resolution=4, average="micro").update(y, p).bounds()  # exact phase: (value, value)
    assert lo - 1e-12 <= ref <= hi + 1e-12


def test_micro_with_ovo_is_refused_as_scikit_learn() -> None:
    y, p = _multiclass()
    with pytest.raises(ValueError):
        skm.roc_auc_score(y, p, multi_class="ovo", average="micro")
    with pytest.raises(sm.InputError, match="multi_class='ovr'"):
        sm.ROCAUC(multi_class="ovo", average="micro").update(y, p)


@pytest.mark.parametrize("average", ["macro", "weighted", "micro", None])
def test_max_fpr_on_multilabel_input_agrees_with_scikit_learn(average) -> None:
    y, s = _multilabel()
    ref = skm.roc_auc_score(y, s, max_fpr=0.3, average=average)
    for value in _streamed(lambda: sm.ROCAUC(exact=True, max_fpr=0.3, average=average), y, s):
        np.testing.assert_allclose(value, ref, rtol=1e-12)
    lo, hi = sm.ROCAUC(resolution=4, max_fpr=0.3, average=average).update(y, s).bounds()
    assert np.all(np.asarray(lo) <= np.asarray(ref) + 1e-12) and np.all(
        np.asarray(ref) <= np.asarray(hi) + 1e-12
    )


@pytest.mark.parametrize("max_fpr", [0.05, 0.3, 0.77, 1.0])
def test_max_fpr_with_average_samples_agrees_with_scikit_learn(max_fpr) -> None:
    """Each row's standardized partial AUC (ties included), averaged over rows with weights."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, (60, 6))
    y[:, 0], y[:, 1] = 1, 0  # every row holds both classes (scikit-learn raises otherwise)
    s = np.round(rng.random((60, 6)), 1)  # ties within rows
    w = rng.random(60)
    ref = skm.roc_auc_score(y, s, average="samples", max_fpr=max_fpr, sample_weight=w)
    m = sm.ROCAUC(average="samples", max_fpr=max_fpr)
    m.update(y[:25], s[:25], sample_weight=w[:25])
    m.update(y[25:], s[25:], sample_weight=w[25:])
    np.testing.assert_allclose(m.compute(), ref, rtol=1e-12)


def test_max_fpr_on_multiclass_input_is_refused_as_scikit_learn() -> None:
    y, p = _multiclass()
    with pytest.raises(ValueError, match="max_fpr"):
        skm.roc_auc_score(y, p, multi_class="ovr", max_fpr=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(sm.InputError, match="max_fpr"):
            sm.ROCAUC(max_fpr=0.3).update(y, p)


@pytest.mark.parametrize(
    "make, ref", [(sm.ROCAUC, skm.roc_auc_score), (sm.AveragePrecision, skm.average_precision_score)]
)
def test_average_samples_agrees_with_scikit_learn_weighted_merged_reverted(make, ref) -> None:
    y, s = _multilabel(k=5)
    y[:, 0] = 1 - y[:, 1]  # every row holds both classes (else samples-AUC is NaN)
    w = np.random.default_rng(7).uniform(0, 2, len(y))
    expected = ref(y, s, average="samples", sample_weight=w)
    for value in _streamed(lambda: make(average="samples"), y, s):
        assert value == pytest.approx(ref(y, s, average="samples"), rel=1e-12)
    m = make(average="samples").update(y[:25], s[:25], sample_weight=w[:25])
    m.merge(make(average="samples").update(y[25:], s[25:], sample_weight=w[25:]))
    assert m.compute() == pytest.approx(expected, rel=1e-12)
    assert m.bounds() == (m.compute(), m.compute())  # exact
    m.revert(y[25:], s[25:], sample_weight=w[25:])
    assert m.compute() == pytest.approx(
        ref(y[:25], s[:25], average="samples", sample_weight=w[:25]), rel=1e-12
    )


def test_average_precision_samples_on_multiclass_input_as_scikit_learn() -> None:
    """scikit-learn binarizes multiclass labels for average precision, so ``average="samples"``
    ranks each row's true class among its columns; its ROC AUC refuses multiclass samples."""
    rng = np.random.default_rng(8)
    names = ["ant", "bee", "cat", "dog"]
    idx = rng.integers(0, 4, 120)
    y = np.array(names)[idx]
    s = rng.dirichlet(np.ones(4), 120)
    w = rng.uniform(0.0, 2.0, 120)
    onehot = np.eye(4)[idx]
    expected = skm.average_precision_score(onehot, s, average="samples", sample_weight=w)
    m = sm.AveragePrecision(average="samples", labels=names).update(y[:50], s[:50], sample_weight=w[:50])
    m.merge(sm.AveragePrecision(average="samples", labels=names).update(y[50:], s[50:], sample_weight=w[50:]))
    assert m.compute() == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError):
        skm.roc_auc_score(idx, s, multi_class="ovr", average="samples")
    with pytest.raises(sm.InputError, match="multilabel"):
        sm.ROCAUC(average="samples").update(idx, s)
    with pytest.raises(sm.InputError, match="summing to 1"):
        sm.AveragePrecision(average="samples").update(idx[:2], s[:2] * 0.5)


def test_average_samples_undefined_rows_and_bad_input() -> None:
    y = np.array([[1, 0, 1], [0, 0, 0]])
    s = np.array([[0.9, 0.2, 0.4], [0.3, 0.6, 0.7]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(skm.roc_auc_score(y, s, average="samples"))
    with pytest.warns(sm.UndefinedMetricWarning):
        assert np.isnan(sm.ROCAUC(average="samples").update(y, s).compute())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ap = skm.average_precision_score(y, s, average="samples")  # a row without positives counts 0
    assert sm.AveragePrecision(average="samples").update(y, s).compute() == pytest.approx(ap)
    m = sm.ROCAUC(average="samples")
    with pytest.raises(sm.InputError, match="multilabel"):
        m.update([0, 1], [0.2, 0.8])
    with pytest.raises(sm.InputError, match="multilabel"):
        m.update(1, 0.8)  # a binary row is refused when offered
    assert m.n_samples == 0


@pytest.mark.parametrize(
    ("y", "s"),
    [
        ([0, 1, 2, 0, 1, 2], np.eye(3)[[0, 1, 2, 2, 0, 1]] * 0.7 + 0.1),  # multiclass
        (
            np.array([[1, 0], [0, 1], [0, 1], [1, 0]]),
            np.array([[0.9, 0.1], [0.1, 0.9], [0.8, 0.2], [0.2, 0.8]]),
        ),
    ],
    ids=["multiclass", "multilabel"],
)
def test_pos_label_other_than_1_is_refused_with_column_scores(y, s):
    """scikit-learn's average_precision_score raises for it: each column's positive class is fixed."""
    with pytest.raises(ValueError):
        skm.average_precision_score(y, s, pos_label=0)
    m = sm.AveragePrecision(pos_label=0)
    with pytest.raises(sm.InputError, match="pos_label"):
        m.update(y, s)
    assert m.n_samples == 0
    assert sm.AveragePrecision().update(y, s).compute() == pytest.approx(skm.average_precision_score(y, s))
