"""MetricCollection: sharing, flat values, persistence, bad input (references: scikit-learn)."""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest
import scipy.stats
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.streaming.sharing import sharing_key


def data(n=500, k=2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return y, np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))


def test_values_match_sklearn_and_shared_members_share_one_state():
    y, p = data()
    c = sm.MetricCollection(
        {
            "f1": sm.F1(),
            "precision": sm.Precision(),
            "recall": sm.Recall(),
            "acc": sm.Accuracy(),
            "mcc": sm.MCC(),
        }
    )
    assert c.groups == {"f1": ["f1", "precision", "recall", "acc", "mcc"]}  # binary F1 leads
    assert c["f1"].state is c["recall"].state  # one object, updated once per batch
    out = c.update(y[:200], p[:200]).update(y[200:], p[200:]).compute()
    assert out == pytest.approx(
        {
            "f1": skm.f1_score(y, p),
            "precision": skm.precision_score(y, p),
            "recall": skm.recall_score(y, p),
            "acc": skm.accuracy_score(y, p),
            "mcc": skm.matthews_corrcoef(y, p),
        },
        rel=1e-12,
    )
    assert c.n_samples == len(y)


def test_sharing_key_is_declared_by_configuration():
    assert sharing_key(sm.F1()) == sharing_key(sm.Jaccard())
    assert sharing_key(sm.F1(average="macro")) == sharing_key(sm.Accuracy())
    assert sharing_key(sm.F1()) != sharing_key(sm.F1(labels=[0, 1]))
    assert sharing_key(sm.F1()) != sharing_key(sm.F1(threshold=0.5))
    assert sharing_key(sm.F1(threshold=0.5)) != sharing_key(sm.F1(threshold=0.5, input="score"))
    # same parsing, other checks: they share a state only under a member imposing both
    assert sharing_key(sm.F1()) == sharing_key(sm.F1(average="samples"))
    assert sm.F1()._share_checks() != sm.F1(average="samples")._share_checks()
    assert sharing_key(sm.MAE()) == sharing_key(sm.RMSE()) == sharing_key(sm.MeanError())
    assert sharing_key(sm.R2()) == sharing_key(sm.PearsonR())
    assert sharing_key(sm.MAE()) != sharing_key(sm.R2())  # residual moments vs co-moments
    assert sharing_key(sm.MAE()) != sharing_key(sm.MSLE())


def test_shared_group_keeps_every_members_checks():
    # F1 (binary) rejects a third label; Accuracy accepts it: they must not share, and the
    # collection rejects the batch as a whole, leaving everything unchanged.
    c = sm.MetricCollection([sm.Accuracy(), sm.F1()]).update([0, 1], [0, 1])
    before = c.state_dict()
    with pytest.raises(sm.InputError, match=r"average='binary'.*member 'f1'"):
        c.update([0, 1, 2], [0, 1, 2])
    assert json.dumps(c.state_dict(), default=str) == json.dumps(before, default=str)


def test_per_class_values_expand_to_label_keys_with_prefix_and_postfix():
    y = np.array(["cat", "dog", "emu", "dog", "cat"])
    p = np.array(["cat", "dog", "dog", "dog", "emu"])
    c = sm.MetricCollection([sm.F1(average=None), sm.Accuracy()], prefix="val/", postfix="_ep")
    out = c.update(y, p).compute()
    expected = skm.f1_score(y, p, average=None, labels=["cat", "dog", "emu"])
    assert list(out) == ["val/f1_ep/cat", "val/f1_ep/dog", "val/f1_ep/emu", "val/accuracy_ep"]
    assert [out[f"val/f1_ep/{k}"] for k in ("cat", "dog", "emu")] == pytest.approx(expected)
    assert all(type(v) is float for v in out.values())
    json.dumps(out)  # ready for any logger


def test_list_names_are_derived_and_deduplicated_and_names_resolve():
    c = sm.MetricCollection([sm.F1(), sm.F1(average="macro"), "balanced_accuracy", "MCC"])
    assert c.keys() == ["f1", "f1_2", "balanced_accuracy", "mcc"]


def test_call_gives_batch_values_and_accumulates():
    y, p = data(300, 3)
    c = sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1(average="macro")})
    first = c(y[:100], p[:100])
    assert first == pytest.approx(
        {"acc": skm.accuracy_score(y[:100], p[:100]), "f1": skm.f1_score(y[:100], p[:100], average="macro")}
    )
    c(y[100:], p[100:])
    assert c.compute()["acc"] == pytest.approx(skm.accuracy_score(y, p))


def test_merge_reset_bytes_pickle_copy():
    y, p = data(400, 3)

    def make():
        return sm.MetricCollection(
            {"acc": sm.Accuracy(), "f1": sm.F1(average="weighted"), "kappa": sm.CohenKappa()}
        )

    a, b = make().update(y[:150], p[:150]), make().update(y[150:], p[150:])
    whole = make().update(y, p).compute()
    assert (a + b).compute() == pytest.approx(whole)
    for restored in (sm.from_bytes((a + b).to_bytes()), pickle.loads(pickle.dumps(a + b)), (a + b).copy()):
        assert type(restored) is sm.MetricCollection
        assert restored.compute() == pytest.approx(whole)
        leader = next(iter(restored.groups))
        assert restored["acc"].state is restored.state.states[leader]  # views still linked
        restored.update(y, p)
        assert restored["acc"].compute() == pytest.approx(skm.accuracy_score(np.r_[y, y], np.r_[p, p]))
    a.reset()
    assert a.n_samples == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert all(np.isnan(v) for v in a.compute().values())


def test_empty_collection_warns_per_member_and_returns_nan():
    c = sm.MetricCollection([sm.F1(), sm.Accuracy()])
    with pytest.warns(sm.UndefinedMetricWarning):
        out = c.compute()
    assert set(out) == {"f1", "accuracy"} and all(np.isnan(v) for v in out.values())


def test_revert_when_every_member_is_revertible():
    y, p = data(100)
    c = sm.MetricCollection([sm.F1(), sm.Accuracy()]).update(y, p).update(p, y)
    c.revert(p, y)
    assert c.compute() == pytest.approx({"f1": skm.f1_score(y, p), "accuracy": skm.accuracy_score(y, p)})


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (
            lambda: sm.MetricCollection(["f1", "no_such_metric"]),
            ValueError,
            "unknown metric name 'no_such_metric'",
        ),
        (lambda: sm.MetricCollection([]), ValueError, "at least one metric"),
        (lambda: sm.MetricCollection({"": sm.F1()}), ValueError, "non-empty string names"),
        (
            lambda: sm.MetricCollection([sm.F1(), sm.Silhouette()]),
            ValueError,
            r"cannot be fed the same arguments.*'silhouette' takes \(X, labels\)",
        ),
        (lambda: sm.MetricCollection([sm.F1().update([1], [1])]), ValueError, "fresh metric"),
        (lambda: sm.MetricCollection([sm.F1()], prefix=3), ValueError, "prefix"),
        (lambda: sm.MetricCollection(42), ValueError, "expected a dict or a list"),
    ],
)
def test_bad_construction(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_mixed_families_fail_clearly_on_update_and_leave_state_unchanged():
    c = sm.MetricCollection({"f1": sm.F1(), "mae": sm.MAE()})
    c.update([0, 1], [0, 1])
    before = c.state_dict()
    with pytest.raises(sm.InputError, match=r"y_true: expected class labels.*member 'f1'"):
        c.update([0.5, 1.5], [0.2, 1.1])
    assert pickle.dumps(c.state_dict()) == pickle.dumps(before)


def test_merging_collections_with_different_members_fails():
    a = sm.MetricCollection({"f1": sm.F1(), "acc": sm.Accuracy()})
    with pytest.raises(sm.MergeError, match="different members"):
        a.merge(sm.MetricCollection({"f1": sm.F1(), "mcc": sm.MCC()}))
    with pytest.raises(sm.MergeError, match="member 'f1' differs"):
        a.merge(sm.MetricCollection({"f1": sm.F1(average="macro"), "acc": sm.Accuracy()}))
    with pytest.raises(sm.MergeError):
        a.merge(sm.F1())


def test_unknown_member_lookup():
    with pytest.raises(KeyError, match="members are"):
        sm.MetricCollection([sm.F1()])["auc"]


def test_regression_and_clustering_members_share():
    rng = np.random.default_rng(3)
    y = rng.normal(size=200)
    p = y + rng.normal(size=200)
    c = sm.MetricCollection([sm.MAE(), sm.MSE(), sm.R2(), sm.PearsonR(), sm.MaxError()])
    assert c.groups == {"mae": ["mae", "mse"], "r2": ["r2", "pearson_r"], "max_error": ["max_error"]}
    out = c.update(y, p).compute()
    assert out == pytest.approx(
        {
            "mae": skm.mean_absolute_error(y, p),
            "mse": skm.mean_squared_error(y, p),
            "r2": skm.r2_score(y, p),
            "pearson_r": scipy.stats.pearsonr(y, p)[0],
            "max_error": skm.max_error(y, p),
        }
    )
    t, k = rng.integers(0, 3, 200), rng.integers(0, 4, 200)
    cl = sm.MetricCollection([sm.AdjustedRandIndex(), sm.NormalizedMutualInfo()])
    assert len(cl.groups) == 1
    assert cl.update(t, k).compute() == pytest.approx(
        {
            "adjusted_rand_index": skm.adjusted_rand_score(t, k),
            "normalized_mutual_info": skm.normalized_mutual_info_score(t, k),
        }
    )


def test_members_with_weaker_checks_share_the_strictest_members_state():
    c = sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1(), "fs": sm.F1(average="samples")})
    assert c.groups == {"f1": ["acc", "f1"], "fs": ["fs"]}  # no member imposes both binary and samples
    c = sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1()}).update([0, 1, 1], [0, 1, 0])
    before = c.to_bytes()
    with pytest.raises(sm.InputError, match=r"average='binary' needs at most 2 labels.*\(member 'f1'\)"):
        c.update([0, 2], [0, 2])  # Accuracy alone would take it; the collection is all or nothing
    assert c.to_bytes() == before
    assert c.compute() == pytest.approx({"acc": 2 / 3, "f1": skm.f1_score([0, 1, 1], [0, 1, 0])})


def test_a_state_saved_under_another_grouping_still_loads():
    y, p = data()
    c = sm.MetricCollection({"acc": sm.Accuracy(), "f1": sm.F1()}).update(y, p)
    saved = c.state_dict()
    member_state = saved["state"]["f1"]
    saved["state"] = {"acc": member_state, "f1": member_state}  # 0.1 kept one state per member here
    loaded = sm.from_state_dict(saved)
    assert loaded.compute() == pytest.approx({"acc": skm.accuracy_score(y, p), "f1": skm.f1_score(y, p)})
    other = sm.F1().update(y[:5], p[:5]).state_dict()["state"]
    saved["state"] = {"acc": other, "f1": member_state}
    with pytest.raises(sm.StateError, match="members sharing 'f1' hold different states"):
        sm.from_state_dict(saved)
