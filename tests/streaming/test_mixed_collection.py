"""Collections mixing metric kinds: one prediction routed to every member (issue #14)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core import validation


def binary_data(seed: int = 0, n: int = 600):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.clip(0.35 * y + 0.65 * rng.random(n), 0.0, 1.0)
    return y, p


def multiclass_data(seed: int = 0, n: int = 600, k: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, p


def logging_set(**common):
    return sm.MetricCollection(
        {
            "acc": sm.Accuracy(threshold=0.5),
            "f1": sm.F1(threshold=0.5),
            "auc": sm.ROCAUC(exact=True),
            "ll": sm.LogLoss(),
            "brier": sm.BrierScore(),
            "ece": sm.CalibrationError(n_bins=10),
        }
    )


def sklearn_binary(y, p):
    from sklearn.calibration import calibration_curve

    hard = (p >= 0.5).astype(int)
    true, pred = calibration_curve(y, p, n_bins=10)
    counts = np.histogram(p, bins=np.linspace(0, 1, 11))[0]
    counts = counts[counts > 0]
    return {
        "acc": skm.accuracy_score(y, hard),
        "f1": skm.f1_score(y, hard),
        "auc": skm.roc_auc_score(y, p),
        "ll": skm.log_loss(y, p),
        "brier": skm.brier_score_loss(y, p),
        "ece": float(np.sum(counts * np.abs(true - pred)) / len(y)),
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_common_binary_logging_set_is_one_collection_and_agrees_with_sklearn(seed):
    y, p = binary_data(seed)
    c = logging_set()
    for part in np.array_split(np.arange(len(y)), [100, 101, 350]):
        c.update(y[part], p[part])
    got, want = c.compute(), sklearn_binary(y, p)
    assert got.keys() == want.keys()
    for name in want:
        assert got[name] == pytest.approx(want[name], rel=1e-9, abs=1e-12), name


def test_multiclass_probabilities_feed_labels_scores_and_probabilities_alike():
    y, p = multiclass_data()
    c = sm.MetricCollection(
        {
            "acc": sm.Accuracy(),
            "f1": sm.F1(average="macro"),
            "auc": sm.ROCAUC(exact=True),
            "ll": sm.LogLoss(),
        }
    )
    c.update(y[:250], p[:250]).update(y[250:], p[250:])
    hard = p.argmax(axis=1)
    got = c.compute()
    assert got["acc"] == pytest.approx(skm.accuracy_score(y, hard))
    assert got["f1"] == pytest.approx(skm.f1_score(y, hard, average="macro"))
    assert got["auc"] == pytest.approx(skm.roc_auc_score(y, p, multi_class="ovr"), rel=1e-12)
    assert got["ll"] == pytest.approx(skm.log_loss(y, p), rel=1e-12)


def test_scores_and_log_loss_alone_share_a_collection():
    y, p = binary_data(3)
    c = sm.MetricCollection([sm.ROCAUC(exact=True), sm.LogLoss()]).update(y, p)
    assert c.compute() == pytest.approx({"rocauc": skm.roc_auc_score(y, p), "log_loss": skm.log_loss(y, p)})


def test_per_class_values_are_keyed_by_label_for_every_kind():
    labels = [3, 5, 7]
    y, p = multiclass_data(k=3)
    y = np.asarray(labels)[y]
    c = sm.MetricCollection(
        {
            "f1": sm.F1(average=None, labels=labels),
            "auc": sm.ROCAUC(average=None, labels=labels, exact=True),
            "ap": sm.AveragePrecision(average=None, labels=labels, exact=True),
        }
    ).update(y, p)
    got = c.compute()
    assert sorted(got) == sorted(f"{m}/{k}" for m in ("f1", "auc", "ap") for k in labels)
    onehot = (y[:, None] == np.asarray(labels)).astype(int)
    for j, label in enumerate(labels):
        assert got[f"auc/{label}"] == pytest.approx(skm.roc_auc_score(onehot[:, j], p[:, j]))
        assert got[f"ap/{label}"] == pytest.approx(skm.average_precision_score(onehot[:, j], p[:, j]))
    f1 = skm.f1_score(y, np.asarray(labels)[p.argmax(axis=1)], average=None, labels=labels)
    assert [got[f"f1/{k}"] for k in labels] == pytest.approx(f1)


def test_members_fed_other_arguments_are_refused_by_name():
    with pytest.raises(
        ValueError, match=r"'rocauc' takes \(y_true, y_score\).*'silhouette' takes \(X, labels\)"
    ):
        sm.MetricCollection([sm.ROCAUC(), sm.Silhouette()])
    with pytest.raises(ValueError, match=r"'mc_nemar' takes \(y_true, pred_a, pred_b\)"):
        sm.MetricCollection([sm.Accuracy(), sm.McNemar()])


def test_a_member_refusing_a_batch_names_itself_and_changes_nothing():
    y, p = binary_data()
    c = logging_set().update(y[:50], p[:50])
    before = c.to_bytes()
    three = y[50:100].copy()
    three[0] = 2  # a third label: the binary score metrics refuse, Accuracy would not
    with pytest.raises(sm.InputError, match=r"binary labels.*\(member 'auc'\)|\(member 'f1'\)"):
        c.update(three, p[50:100])
    with pytest.raises(sm.InputError, match="probabilities in \\[0, 1\\]"):
        c.update(y[50:100], p[50:100] + 1.0)
    assert c.to_bytes() == before


def test_each_input_role_is_converted_once_per_batch(monkeypatch):
    calls = []
    real = validation.as_float_unchecked  # (every float conversion, finiteness checked or not)

    def counting(value, name, ndim=(1,)):
        calls.append(name)
        return real(value, name, ndim)

    monkeypatch.setattr(validation, "as_float_unchecked", counting)
    y, p = binary_data()
    logging_set().update(y, p.astype(np.float32))  # float32: converted to float64 once
    assert calls == ["y_pred"]  # the prediction, for six members of four families
    calls.clear()
    logging_set().update(y, p)  # float64 probabilities: their range check alone (one pass), no conversion
    assert calls == []


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_merged_shards_and_round_trips_equal_one_pass(kind):
    y, p = binary_data(5) if kind == "binary" else multiclass_data(5)

    def make():
        if kind == "binary":
            return logging_set()
        return sm.MetricCollection([sm.Accuracy(), sm.F1(average="macro"), sm.ROCAUC(), sm.LogLoss()])

    whole = make().update(y, p).compute()
    shards = [make().update(y[i::3], p[i::3]) for i in range(3)]
    merged = sm.from_bytes(sum(shards[1:], shards[0]).to_bytes())
    assert merged.compute() == pytest.approx(whole, rel=1e-9)


def test_rows_through_a_mixed_collection_equal_one_batch():
    y, p = binary_data(7, n=400)
    c = logging_set()
    for t, q in zip(y.tolist(), p.tolist(), strict=True):
        c.update(t, q)
    assert c.n_samples == len(y)
    assert c.compute() == pytest.approx(logging_set().update(y, p).compute(), rel=1e-12)


def test_a_collection_of_three_argument_members_takes_its_third_argument():
    """Two McNemar members (two groups of row buffers) took ``(y_true, pred_a, pred_b)`` through
    a two-argument row path, ``pred_b`` read as the weights (InputError)."""
    rng = np.random.default_rng(4)
    y, a, b = (rng.integers(0, 2, 40) for _ in range(3))
    collection = sm.MetricCollection({"exact": sm.McNemar(), "chi2": sm.McNemar(exact=False)})
    collection.update(y, a, b)
    values = collection.compute()
    assert values["exact/pvalue"] == sm.McNemar().update(y, a, b).compute().pvalue
    assert values["chi2/pvalue"] == sm.McNemar(exact=False).update(y, a, b).compute().pvalue
