"""scikit-learn keywords of the confusion family (issue 15), each checked against scikit-learn on
data streamed over three uneven shards with byte and dict round trips, merged in a shuffled order."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from tests.helpers import assert_same


def sharded(make, *arrays, sample_weight=None, seed=0):
    """``make()`` fed ``arrays`` over three uneven shards, each round-tripped, merged in random order."""
    rng = np.random.default_rng(seed)
    n = len(arrays[0])
    cuts = sorted(rng.choice(np.arange(1, n), size=2, replace=False)) if n > 2 else [n, n]
    bounds = [0, *cuts, n]
    shards = []
    for lo, hi in itertools.pairwise(bounds):
        m = make()
        part = [np.asarray(a)[lo:hi] for a in arrays]
        w = None if sample_weight is None else np.asarray(sample_weight)[lo:hi]
        m.update(*part, sample_weight=w)
        shards.append(m)
    shards[0] = sm.from_bytes(shards[0].to_bytes())
    shards[1] = sm.from_state_dict(shards[1].state_dict())
    order = rng.permutation(3)
    total = make()
    for i in order:
        total.merge(shards[i])
    return total


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


RNG = np.random.default_rng(15)
Y3 = RNG.integers(0, 3, 60)
P3 = np.where(RNG.random(60) < 0.6, Y3, RNG.integers(0, 3, 60))
YS = np.array(["ant", "bee", "cat"])[Y3]
PS = np.array(["ant", "bee", "cat"])[P3]
YB, PB = Y3 % 2, P3 % 2
YML = RNG.integers(0, 2, (60, 4))
PML = np.where(RNG.random((60, 4)) < 0.7, YML, 1 - YML)
# Quarters: sums are exact in any order, so printed float supports compare character for character.
W = RNG.integers(0, 4, 60) + RNG.integers(1, 4, 60) / 4


# ---------------------------------------------------------------- 1. Accuracy(normalize=False)
@pytest.mark.parametrize(
    "y, p", [(YB, PB), (Y3, P3), (YS, PS), (YML, PML)], ids=["binary", "multiclass", "strings", "multilabel"]
)
@pytest.mark.parametrize("weighted", [False, True])
def test_accuracy_normalize_false_matches_sklearn(y, p, weighted):
    w = W if weighted else None
    expected = skm.accuracy_score(y, p, normalize=False, sample_weight=w)
    actual = sharded(lambda: sm.Accuracy(normalize=False), y, p, sample_weight=w).compute()
    assert isinstance(actual, float)
    assert_same(actual, expected)


def test_accuracy_normalize_false_micro_multilabel_counts_cells():
    right = (YML == PML).astype(float)
    expected = float(W @ right.sum(axis=1))
    actual = sharded(
        lambda: sm.Accuracy(normalize=False, average="micro"), YML, PML, sample_weight=W
    ).compute()
    assert_same(actual, expected)


def test_accuracy_normalize_false_needs_a_whole_table_average():
    with pytest.raises(ValueError, match="normalize"):
        sm.Accuracy(normalize=False, average="macro")
    with pytest.raises(ValueError, match="normalize"):
        sm.Accuracy(normalize="no")
    with pytest.raises(sm.MergeError):
        sm.Accuracy(normalize=False).merge(sm.Accuracy())


# ---------------------------------------------------------------- 4. ClassificationReport
REPORT_CASES = {
    "binary": (YB, PB, {}),
    "multiclass": (Y3, P3, {}),
    "strings-named": (YS, PS, {"target_names": ["Ant", "Bee", "a much longer name"]}),
    "multilabel": (YML, PML, {}),
    "multilabel-named": (YML, PML, {"target_names": ["w", "x", "y", "z"]}),
    "digits-4": (Y3, P3, {"digits": 4}),
    "digits-15": (YB, PB, {"digits": 15}),
    "labels-unseen": (Y3, P3, {"labels": [2, 0, 1, 7], "target_names": ["two", "zero", "one", "seven"]}),
    "zero-division-1": ([0, 0, 2, 2], [0, 1, 2, 1], {"zero_division": 1.0}),
    "zero-division-nan": ([0, 0, 2, 2], [0, 1, 2, 1], {"zero_division": np.nan}),
}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", REPORT_CASES)
def test_classification_report_text_and_dict_equal_sklearn(name, weighted):
    y, p, kw = REPORT_CASES[name]
    w = W[: len(y)] if weighted else None
    sk_kw = dict(kw)
    expected_text = quiet(skm.classification_report, y, p, sample_weight=w, **sk_kw)
    expected_dict = quiet(skm.classification_report, y, p, sample_weight=w, output_dict=True, **sk_kw)
    report = quiet(sharded(lambda: sm.ClassificationReport(**kw), y, p, sample_weight=w).compute)
    assert str(report) == expected_text
    assert_same(report.to_dict(), expected_dict)
    assert list(report.to_dict()) == list(expected_dict)


def test_classification_report_target_names_must_match_the_labels():
    with pytest.raises(ValueError, match="target_names"):
        sm.ClassificationReport(labels=[0, 1], target_names=["a"])
    m = sm.ClassificationReport(target_names=["a", "b"]).update([0, 1, 2], [0, 1, 2])
    with pytest.raises(ValueError, match="target_names"):
        m.compute()
    with pytest.raises(sm.MergeError):
        sm.ClassificationReport(target_names=["a", "b"]).merge(sm.ClassificationReport())


# ---------------------------------------------------------------- 5. replace_undefined_by
KAPPA_CASES = {
    "one-label-in-common": ([1, 1, 1, 1], [1, 1, 1, 1]),
    "strings-one-label": (["a"] * 5, ["a"] * 5),
    "defined": (Y3, P3),
}


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("replace", [np.nan, -1.0, 0.0, 0.25, 1])
@pytest.mark.parametrize("name", KAPPA_CASES)
def test_cohen_kappa_replace_undefined_by_matches_sklearn(name, replace, weights):
    y, p = KAPPA_CASES[name]
    w = W[: len(y)]
    kw = {"weights": weights, "replace_undefined_by": replace}
    with warnings.catch_warnings(record=True) as expected_warnings:
        warnings.simplefilter("always")
        expected = skm.cohen_kappa_score(y, p, sample_weight=w, **kw)
    with warnings.catch_warnings(record=True) as our_warnings:
        warnings.simplefilter("always")
        actual = sharded(lambda: sm.CohenKappa(**kw), y, p, sample_weight=w).compute()
    assert_same(actual, expected)
    assert bool(expected_warnings) == any(
        issubclass(x.category, sm.UndefinedMetricWarning) for x in our_warnings
    )


# 2x2 tables hitting each undefined case of class_likelihood_ratios: no false positive, no true
# negative, no positive row (with and without false positives), and a defined one.
LR_CASES = {
    "fp=0": ([1, 1, 0, 0, 0], [1, 0, 0, 0, 0]),
    "tn=0": ([1, 1, 0, 0], [1, 0, 1, 1]),
    "fp=0,tn=0": ([1, 1, 1], [1, 0, 1]),
    "no-positive,fp>0": ([0, 0, 0, 0], [1, 0, 1, 0]),
    "no-positive,fp=0": ([0, 0, 0, 0], [0, 0, 0, 0]),
    "defined": (YB, PB),
}
LR_REPLACEMENTS = [np.nan, 1.0, {"LR+": np.inf, "LR-": 0.0}, {"LR+": 2.5, "LR-": np.nan}]


@pytest.mark.parametrize("replace", LR_REPLACEMENTS, ids=str)
@pytest.mark.parametrize("name", LR_CASES)
def test_likelihood_ratios_replace_undefined_by_match_sklearn(name, replace):
    y, p = LR_CASES[name]
    w = W[: len(y)]
    expected = quiet(
        skm.class_likelihood_ratios, y, p, sample_weight=w, labels=[0, 1], replace_undefined_by=replace
    )
    for cls, value in zip((sm.PositiveLikelihoodRatio, sm.NegativeLikelihoodRatio), expected, strict=True):
        m = sharded(
            lambda cls=cls: cls(replace_undefined_by=replace, zero_division=np.nan), y, p, sample_weight=w
        )
        assert_same(quiet(m.compute), value, where=f"{cls.__name__} {name}")


def test_replace_undefined_by_warns_and_checks_its_range():
    with pytest.warns(sm.UndefinedMetricWarning):
        sm.PositiveLikelihoodRatio(replace_undefined_by=1.0).update([1, 0], [1, 0]).compute()
    with pytest.warns(sm.UndefinedMetricWarning):
        sm.CohenKappa(replace_undefined_by=0.5).update([1, 1], [1, 1]).compute()
    for bad in (0.5, {"LR+": 1.0}, {"LR+": 1.0, "LR-": 2.0}, "1", True):
        with pytest.raises(ValueError, match="replace_undefined_by"):
            sm.PositiveLikelihoodRatio(replace_undefined_by=bad)
    with pytest.raises(ValueError, match="replace_undefined_by"):
        sm.NegativeLikelihoodRatio(replace_undefined_by=2.0)
    for bad in (1.5, -2, "nan", None):
        with pytest.raises(ValueError, match="replace_undefined_by"):
            sm.CohenKappa(replace_undefined_by=bad)


# ---------------------------------------------------------------- 2. per-class 2x2 tables
MCM_CASES = {
    "binary": (YB, PB, {}),
    "multiclass": (Y3, P3, {}),
    "strings": (YS, PS, {}),
    "reordered-with-unseen": (Y3, P3, {"labels": [2, 5, 0, 1]}),
    "multilabel": (YML, PML, {}),
}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", MCM_CASES)
def test_multilabel_confusion_matrix_matches_sklearn(name, weighted):
    y, p, kw = MCM_CASES[name]
    w = W if weighted else None
    expected = skm.multilabel_confusion_matrix(y, p, sample_weight=w, **kw)
    m = sharded(lambda: sm.MultilabelConfusionMatrix(**kw), y, p, sample_weight=w)
    got = m.compute()
    assert got.dtype == expected.dtype or weighted
    assert_same(got, expected, exact=not weighted)


@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_confusion_matrix_samplewise_matches_sklearn(weighted):
    w = W if weighted else None
    expected = skm.multilabel_confusion_matrix(YML, PML, sample_weight=w, samplewise=True)
    keep = slice(None) if w is None else W > 0  # a weight-0 row is left out (the weights law)
    m = sharded(lambda: sm.MultilabelConfusionMatrix(samplewise=True), YML, PML, sample_weight=w, seed=3)
    # Shards merge in a shuffled order; merged in row order the tables are the rows' tables.
    in_order = sm.MultilabelConfusionMatrix(samplewise=True)
    for lo, hi in ((0, 7), (7, 33), (33, 60)):
        part = sm.MultilabelConfusionMatrix(samplewise=True).update(
            YML[lo:hi], PML[lo:hi], sample_weight=None if w is None else w[lo:hi]
        )
        in_order.merge(sm.from_bytes(part.to_bytes()))
    assert_same(in_order.compute(), expected[keep], exact=not weighted)
    # Any merge order gives the same multiset of tables and the same per-label sums.
    got = m.compute()
    assert sorted(map(tuple, got.reshape(-1, 4).tolist())) == sorted(
        map(tuple, expected[keep].reshape(-1, 4).tolist())
    )


def test_multilabel_confusion_matrix_refusals():
    with pytest.raises(sm.InputError, match="samplewise"):
        sm.MultilabelConfusionMatrix(samplewise=True).update([0, 1], [0, 1])
    with pytest.raises(sm.InputError, match="samplewise"):
        sm.MultilabelConfusionMatrix(samplewise=True).update(0, 1)
    with pytest.raises(ValueError, match="samplewise"):
        sm.MultilabelConfusionMatrix(samplewise="yes")
    with pytest.raises(TypeError):
        sm.MultilabelConfusionMatrix(samplewise=True).update(YML, PML).revert(YML, PML)
    with pytest.raises(sm.MergeError):
        sm.MultilabelConfusionMatrix(samplewise=True).merge(sm.MultilabelConfusionMatrix())
    state = sm.MultilabelConfusionMatrix(samplewise=True).update(YML, PML).state_dict()
    state["state"]["rows"] = np.asarray(state["state"]["rows"])[:-1].tolist()
    state["state"]["rows"][0][0][0] += 1
    with pytest.raises(sm.StateError):
        sm.from_state_dict(state)


# ---------------------------------------------------------------- 3. labels= on multilabel input
PRF_SK = {
    sm.Precision: skm.precision_score,
    sm.Recall: skm.recall_score,
    sm.F1: skm.f1_score,
    sm.Jaccard: skm.jaccard_score,
}


@pytest.mark.parametrize("labels", [[2, 0], [3, 1, 0, 2], [1]], ids=str)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "samples", None], ids=str)
@pytest.mark.parametrize("cls", PRF_SK, ids=lambda c: c.__name__)
def test_multilabel_labels_pick_columns_by_index_as_sklearn(cls, average, labels):
    kw = {"average": average, "labels": labels, "zero_division": 0.0}
    expected = quiet(PRF_SK[cls], YML, PML, sample_weight=W, **kw)
    got = quiet(sharded(lambda: cls(**kw), YML, PML, sample_weight=W).compute)
    assert_same(got, expected)


@pytest.mark.parametrize("labels", [[2, 0], [3, 1, 0, 2]], ids=str)
def test_multilabel_labels_select_tables_and_report_rows(labels):
    expected = skm.multilabel_confusion_matrix(YML, PML, labels=labels)
    assert_same(
        sharded(lambda: sm.MultilabelConfusionMatrix(labels=labels), YML, PML).compute(), expected, exact=True
    )
    assert_same(sharded(lambda: sm.ConfusionMatrix(labels=labels), YML, PML).compute(), expected, exact=True)
    samplewise = skm.multilabel_confusion_matrix(YML, PML, labels=labels, samplewise=True)
    in_order = sm.MultilabelConfusionMatrix(samplewise=True, labels=labels).update(YML, PML)
    assert_same(in_order.compute(), samplewise, exact=True)
    report = quiet(sharded(lambda: sm.ClassificationReport(labels=labels), YML, PML).compute)
    assert str(report) == quiet(skm.classification_report, YML, PML, labels=labels)


def test_multilabel_labels_out_of_range_are_refused():
    for labels in ([4], [-1, 0], ["a", "b"]):
        m = sm.F1(average="macro", labels=labels)
        with pytest.raises(sm.InputError, match="labels"):
            m.update(YML, PML)
        assert m.n_samples == 0


@pytest.mark.parametrize("cls", PRF_SK, ids=lambda c: c.__name__)
def test_multiclass_labels_reorder_and_include_unseen_labels(cls):
    kw = {"average": None, "labels": ["cat", "emu", "ant", "bee"], "zero_division": 0.0}
    expected = quiet(PRF_SK[cls], YS, PS, sample_weight=W, **kw)
    assert_same(quiet(sharded(lambda: cls(**kw), YS, PS, sample_weight=W).compute), expected)
    expected_cm = skm.confusion_matrix(YS, PS, labels=kw["labels"], sample_weight=W)
    assert_same(
        sharded(lambda: sm.ConfusionMatrix(labels=kw["labels"]), YS, PS, sample_weight=W).compute(),
        expected_cm,
    )


# ---------------------------------------------------------------- 3. labels= choosing a subset
SUBSETS = [[2, 0], [1], [3, 1, 0], [0, 1, 2]]


@pytest.mark.parametrize("labels", SUBSETS, ids=str)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None], ids=str)
@pytest.mark.parametrize("cls", PRF_SK, ids=lambda c: c.__name__)
def test_multiclass_labels_subset_matches_sklearn(cls, average, labels):
    kw = {"average": average, "labels": labels, "zero_division": 0.0}
    expected = quiet(PRF_SK[cls], Y3, P3, sample_weight=W, **kw)
    got = quiet(sharded(lambda: cls(**kw, unlisted="count"), Y3, P3, sample_weight=W).compute)
    assert_same(got, expected)
    if not set(np.unique(Y3)) <= set(labels):  # the default refuses a row of an unlisted label (API.md)
        with pytest.raises(sm.InputError, match="fixed list"):
            cls(**kw).update(Y3, P3)
        m = cls(**kw)
        with pytest.raises(sm.InputError, match="fixed list"):
            for t, p in zip(Y3.tolist(), P3.tolist(), strict=True):
                m.update(t, p)


@pytest.mark.parametrize("labels", SUBSETS, ids=str)
def test_multiclass_labels_subset_tables_kappa_and_report_match_sklearn(labels):
    for weighted in (False, True):
        w = W if weighted else None
        cm = sharded(lambda: sm.ConfusionMatrix(labels=labels, unlisted="count"), Y3, P3, sample_weight=w)
        assert_same(
            cm.compute(), skm.confusion_matrix(Y3, P3, labels=labels, sample_weight=w), exact=not weighted
        )
        assert cm.classes == labels
        mcm = sharded(
            lambda: sm.MultilabelConfusionMatrix(labels=labels, unlisted="count"), Y3, P3, sample_weight=w
        )
        expected = skm.multilabel_confusion_matrix(Y3, P3, labels=labels, sample_weight=w)
        assert_same(mcm.compute(), expected, exact=not weighted)
        kappa = sharded(lambda: sm.CohenKappa(labels=labels, unlisted="count"), Y3, P3, sample_weight=w)
        assert_same(
            quiet(kappa.compute), quiet(skm.cohen_kappa_score, Y3, P3, labels=labels, sample_weight=w)
        )
        report = quiet(
            sharded(
                lambda: sm.ClassificationReport(labels=labels, unlisted="count"), Y3, P3, sample_weight=w
            ).compute
        )
        assert str(report) == quiet(skm.classification_report, Y3, P3, labels=labels, sample_weight=w)
        expected_dict = quiet(
            skm.classification_report, Y3, P3, labels=labels, sample_weight=w, output_dict=True
        )
        assert_same(report.to_dict(), expected_dict)


def test_labels_subset_one_row_at_a_time_equals_one_batch():
    batch = sm.F1(average="macro", labels=[2, 0], unlisted="count").update(Y3, P3)
    rows = sm.F1(average="macro", labels=[2, 0], unlisted="count")
    for t, p in zip(Y3.tolist(), P3.tolist(), strict=True):
        rows.update(t, p)
    assert rows.compute() == batch.compute()
    assert rows.to_bytes() == batch.to_bytes()


def test_wilson_counts_follow_a_labels_subset():
    from streammetrics.uncertainty import analytic

    m = sharded(lambda: sm.Recall(average=None, labels=[2, 0], unlisted="count"), Y3, P3)
    successes, trials = analytic.proportion_counts(m)
    assert_same(successes / trials, skm.recall_score(Y3, P3, average=None, labels=[2, 0]))
