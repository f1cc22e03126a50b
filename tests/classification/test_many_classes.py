"""More classes than a dense confusion matrix holds: each class's (tp, fp, fn) instead.

Past ``counts.MAX_CLASSES`` (2^14) a multiclass state keeps per-class margins. Checked at the
real size against scikit-learn (20,000 classes), then, with the limit lowered so that small data
crosses it, every classification law case whose metric does not read the matrix: the same values
as scikit-learn and as the dense matrix, under splits, merges in any order, reverts, round trips
and one row at a time; and the metrics that read the matrix refuse, leaving the state unchanged.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.classification import counts
from streammetrics.classification.base import ConfusionMetric
from streammetrics.errors import StateError
from tests.helpers import assert_same, quiet_compute
from tests.law_cases import all_cases, concat

SMALL_LIMIT = 2  # every case of three or more labels crosses it


def _margin_cases() -> list:
    """The law cases of confusion metrics fed 1-D labels (multilabel counts keep their own form)
    that do not read the matrix."""
    out = []
    for case in all_cases():
        metric = case.make()
        if isinstance(metric, ConfusionMetric) and not metric._reads_matrix():
            if np.ndim(case.batch(np.random.default_rng(0), 3)[0]) == 1:
                out.append(case)
    return out


CASES = _margin_cases()


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(counts, "MAX_CLASSES", SMALL_LIMIT)


def test_the_cases_cover_the_family():
    names = {type(c.make()).__name__ for c in CASES}
    assert {
        "Accuracy",
        "F1",
        "Precision",
        "Recall",
        "MCC",
        "CohenKappa",
        "BalancedAccuracy",
        "Jaccard",
    } <= names


# ------------------------------------------------------------------ at the real size
def test_twenty_thousand_classes_match_scikit_learn():
    """20,000 classes: the dense table would hold 3.2 GB; the per-class counts hold 480 kB."""
    rng = np.random.default_rng(0)
    k, n = 20_000, 60_000
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    w = rng.random(n)
    for ww in (None, w):
        parts = np.array_split(np.arange(n), 3)
        for average in ("macro", "micro", "weighted"):
            m = sm.F1(average=average)
            for rows in parts:
                m.update(y[rows], p[rows], sample_weight=None if ww is None else ww[rows])
            assert not m.state.dense and m.state.margins.shape == (3, len(np.union1d(y, p)))
            want = skm.f1_score(y, p, average=average, sample_weight=ww, zero_division=0.0)
            assert quiet_compute(m) == pytest.approx(want, rel=1e-12)
        acc = sm.Accuracy().update(y, p, sample_weight=ww)
        assert acc.compute() == pytest.approx(skm.accuracy_score(y, p, sample_weight=ww), rel=1e-12)
    recall = sm.Recall(average=None).update(y, p)
    assert np.allclose(
        quiet_compute(recall), skm.recall_score(y, p, average=None, zero_division=0.0), rtol=1e-12
    )


def test_metrics_reading_the_matrix_refuse_at_the_real_size():
    rng = np.random.default_rng(1)
    many = rng.permutation(counts.MAX_CLASSES + 10)
    for make in (sm.ConfusionMatrix, lambda: sm.CohenKappa(weights="linear")):
        m = make().update([0, 1], [0, 1])
        before = m.to_bytes()
        with pytest.raises(sm.InputError, match="16,384 classes") as refused:
            m.update(many, many)
        assert m.to_bytes() == before
        assert "F-scores" in str(refused.value)  # names what takes any number of classes


# ------------------------------------------------------------------ every case, small limit
def _batches(case, seed: int, sizes=(9, 0, 14, 7)) -> list[tuple]:
    rng = np.random.default_rng(seed)
    return [case.batch(rng, n if n == 0 else max(n, case.min_rows)) for n in sizes]


def _fed(case, parts, weights=None):
    m = case.make()
    for i, part in enumerate(parts):
        m.update(*part, sample_weight=None if weights is None else weights[i])
    return m


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("seed", range(3))
def test_margins_give_the_matrix_values_under_splits_merges_and_reverts(case, seed, monkeypatch):
    parts = _batches(case, seed)
    rng = np.random.default_rng(seed + 100)
    weights = [rng.uniform(0.1, 3.0, len(p[0])) for p in parts] if case.weights and seed else None
    dense = quiet_compute(_fed(case, parts, weights))  # the default limit: a matrix

    monkeypatch.setattr(counts, "MAX_CLASSES", SMALL_LIMIT)
    whole = _fed(case, parts, weights)
    many = whole.state.n_labels > SMALL_LIMIT and whole.state.mode == "multiclass"
    assert whole.state.dense is not many
    tol = {"rtol": 1e-12, "atol": 1e-15}
    assert_same(quiet_compute(whole), dense, **tol, where=f"{case}: margins against the matrix")
    if case.reference is not None:
        all_rows = concat(parts)
        w = None if weights is None else np.concatenate(weights)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = case.reference(*all_rows, sample_weight=w)
        assert_same(quiet_compute(whole), want, rtol=case.rtol, atol=case.atol, where=f"{case}: scikit-learn")
    whole.state.check()

    # each part alone, merged in a shuffled order
    shards = [_fed(case, [part], None if weights is None else [weights[i]]) for i, part in enumerate(parts)]
    order = rng.permutation(len(shards))
    merged = case.make()
    for i in order:
        merged.merge(shards[i])
    assert_same(quiet_compute(merged), dense, **tol, where=f"{case}: merged")
    merged.state.check()

    # round trips
    for back in (sm.from_bytes(whole.to_bytes()), pickle.loads(pickle.dumps(whole))):
        assert back.to_bytes() == whole.to_bytes()
        assert_same(quiet_compute(back), dense, **tol, where=f"{case}: round trip")

    # revert the last part: the value of the others, whatever form the counts kept
    whole.revert(*parts[-1], sample_weight=None if weights is None else weights[-1])
    rest = _fed(case, parts[:-1], None if weights is None else weights[:-1])
    assert_same(quiet_compute(whole), quiet_compute(rest), **tol, where=f"{case}: revert")
    whole.state.check()


@pytest.mark.parametrize("case", CASES, ids=str)
def test_margins_one_row_at_a_time_equal_the_batch(case, small_limit):
    rows = concat(_batches(case, 5))
    batch = case.make().update(*rows)
    one = case.make()
    for i in range(len(rows[0])):
        one.update_one(*(a[i] for a in rows))
    assert one.to_bytes() == batch.to_bytes()


@pytest.mark.parametrize("cls", [sm.F1, sm.Precision, sm.Recall, sm.Jaccard])
def test_a_labels_subset_of_counted_rows_reads_the_margins(cls, small_limit):
    """``labels=`` with ``unlisted="count"``: the chosen labels' one-vs-rest counts, rows of other
    labels included (scikit-learn's ``labels=``), come from each class's counts."""
    rng = np.random.default_rng(6)
    y, p = rng.integers(0, 6, 120), rng.integers(0, 6, 120)
    for average in ("macro", "micro", None):
        m = cls(average=average, labels=[4, 1, 0], unlisted="count", zero_division=0.0).update(y, p)
        assert not m.state.dense
        want = getattr(skm, f"{cls.__name__.lower()}_score")(
            y, p, labels=[4, 1, 0], average=average, zero_division=0.0
        )
        assert np.allclose(m.compute(), want, rtol=1e-12)


def test_a_dense_state_becomes_margins_when_labels_grow_or_merge(small_limit):
    a = sm.F1(average="macro").update([0, 1], [0, 1])
    assert a.state.dense
    b = sm.F1(average="macro").update([2, 2, 0], [2, 0, 0])
    assert b.state.dense
    merged = a.copy().merge(b)
    assert not merged.state.dense
    want = skm.f1_score([0, 1, 2, 2, 0], [0, 1, 2, 0, 0], average="macro")
    assert merged.compute() == pytest.approx(want, rel=1e-15)
    grown = a.copy().update([2, 2, 0], [2, 0, 0])
    assert not grown.state.dense and grown.to_bytes() == merged.to_bytes()
    # reverting back below the limit keeps the margins (the off-diagonal cells are gone), exactly
    grown.revert([2, 2, 0], [2, 0, 0])
    assert not grown.state.dense and grown.state.n_labels == 2
    assert grown.compute() == a.compute()


def test_collections_refuse_for_the_member_reading_the_matrix(small_limit):
    c = sm.MetricCollection({"f1": sm.F1(average="macro"), "cm": sm.ConfusionMatrix()})
    c.update([0, 1], [1, 0])
    before = c.to_bytes()
    with pytest.raises(sm.InputError, match="ConfusionMatrix, which reads the matrix"):
        c.update([0, 1, 2], [0, 1, 2])
    assert c.to_bytes() == before
    alone = sm.MetricCollection({"f1": sm.F1(average="macro"), "mcc": sm.MCC()})
    alone.update([0, 1, 2], [0, 2, 2])
    assert alone.compute()["mcc"] == pytest.approx(skm.matthews_corrcoef([0, 1, 2], [0, 2, 2]))


@pytest.mark.parametrize(
    "make",
    [
        sm.ConfusionMatrix,
        lambda: sm.CohenKappa(weights="quadratic"),
        lambda: sm.CohenKappa(labels=[0, 1], unlisted="count"),
        lambda: sm.Sliced(sm.F1(average="macro")),
        lambda: sm.Bootstrap(sm.CohenKappa(weights="linear"), n_replicates=10),
    ],
)
def test_what_needs_a_matrix_per_state_refuses_more_classes(make, small_limit):
    m = make()
    args = ([0, 1, 2, 1], [0, 1, 2, 2]) + ((["a", "a", "b", "b"],) if isinstance(m, sm.Sliced) else ())
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="expected at most"):  # classes (keyed: cells over the keys)
        m.update(*args)
    assert m.to_bytes() == before


def test_a_permutation_test_needs_the_matrix(small_limit):
    from streammetrics.uncertainty.significance import permutation_test

    m = sm.Accuracy().update([0, 1, 2, 2], [0, 2, 2, 1])
    with pytest.raises(ValueError, match="permutation test draws whole confusion matrices"):
        permutation_test(m)


def test_decay_scales_the_margins(monkeypatch):
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 5, 60), rng.integers(0, 5, 60)

    def decayed():
        m = sm.Decayed(sm.F1(average="macro"), half_life=10)
        for lo in range(0, 60, 20):
            m.update(y[lo : lo + 20], p[lo : lo + 20])
        return m

    dense = decayed()
    monkeypatch.setattr(counts, "MAX_CLASSES", SMALL_LIMIT)
    margins = decayed()
    assert dense.state.state.dense and not margins.state.state.dense
    assert margins.compute() == pytest.approx(dense.compute(), rel=1e-12)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(matrix=np.zeros((3, 3), np.int64)), "found both"),
        (lambda d: d.update(margins=None), "found neither"),
        (lambda d: d.update(margins=d["margins"] + np.array([[0], [1], [0]])), "false positives"),
        (lambda d: d.update(margins=d["margins"][:, :2]), "margins must be"),
    ],
)
def test_crafted_margin_states_are_refused(edit, message, small_limit):
    m = sm.F1(average="macro").update([0, 1, 2, 2], [0, 2, 2, 1])
    data = m.state_dict()
    state = dict(data["state"])
    edit(state)
    with pytest.raises(StateError, match=message):
        sm.F1.from_state_dict({**data, "state": state})


def test_a_dense_state_of_more_classes_than_the_limit_is_refused(monkeypatch):
    data = sm.F1(average="macro").update([0, 1, 2], [0, 1, 2]).state_dict()
    assert "margins" not in data["state"]  # a dense state's dict is as it always was
    monkeypatch.setattr(counts, "MAX_CLASSES", SMALL_LIMIT)
    with pytest.raises(StateError, match="a dense matrix of 3 classes"):
        sm.F1.from_state_dict(data)


def test_the_device_path_and_the_wilson_interval_read_margins(monkeypatch):
    torch = pytest.importorskip("torch")
    from streammetrics._core import tensors
    from streammetrics.uncertainty.analytic import proportion_counts

    rng = np.random.default_rng(4)
    y, p = rng.integers(0, 8, 200), rng.integers(0, 8, 200)
    dense = sm.F1(average="macro").update(y, p)
    accuracy = sm.Accuracy().update(y, p)
    monkeypatch.setattr(counts, "MAX_CLASSES", SMALL_LIMIT)
    with tensors.device_path():
        on_device = sm.F1(average="macro").update(torch.as_tensor(y), torch.as_tensor(p))
    assert not on_device.state.dense and on_device.compute() == dense.compute()
    wide = sm.Accuracy().update(y, p)
    assert not wide.state.dense and proportion_counts(wide) == proportion_counts(accuracy)


def test_a_bootstrap_refuses_replicate_matrices_beyond_one_dense_table():
    """200 replicate matrices of K x K for a metric reading them: at most about 1,158 classes
    (2 GiB of cells); a metric reading no matrix keeps per-class margins instead."""
    rng = np.random.default_rng(7)
    b = sm.Bootstrap(sm.CohenKappa(weights="linear"), n_replicates=200, seed=1).update([0, 1, 2], [0, 1, 1])
    before = b.to_bytes()
    labels = rng.permutation(1200)
    with pytest.raises(sm.InputError, match="at most 1,158 classes for a bootstrap of 200 replicates"):
        b.update(labels, labels)
    assert b.to_bytes() == before
    wide = sm.Bootstrap(sm.F1(average="macro"), n_replicates=200, seed=1).update(labels, labels)
    assert wide.state.engine == "margins" and wide.compute().estimate == 1.0


def test_past_dense_classes_only_a_state_read_as_a_matrix_keeps_it():
    """600 classes (past ``DENSE_CLASSES``, 512): the metrics reading no matrix keep margins (a
    batch costs three bincounts of K, not one of K x K), those reading it keep the matrix, also
    in a collection, whose group leader decides for its members."""
    assert counts.DENSE_CLASSES == 512
    rng = np.random.default_rng(8)
    k, n = 600, 6000
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    f1 = sm.F1(average="macro", zero_division=0.0).update(y, p)
    assert not f1.state.dense
    assert f1.compute() == pytest.approx(skm.f1_score(y, p, average="macro", zero_division=0.0), rel=1e-12)
    for make in (sm.ConfusionMatrix, lambda: sm.CohenKappa(weights="linear")):
        assert make().update(y, p).state.dense
    c = sm.MetricCollection(
        {"f1": sm.F1(average="macro", zero_division=0.0), "mcc": sm.MCC(), "cm": sm.ConfusionMatrix()}
    )
    c.update(y, p)
    members = dict(c.items())
    dense = {name: members[name].state.dense for name in ("f1", "mcc", "cm")}
    assert dense == {"f1": False, "mcc": False, "cm": True}
    assert members["mcc"].compute() == pytest.approx(skm.matthews_corrcoef(y, p), rel=1e-12)
    np.testing.assert_array_equal(members["cm"].compute(), skm.confusion_matrix(y, p))


def test_a_metric_reading_the_matrix_refuses_a_state_of_margins():
    """A state dict of per-class margins (an F1's of 600 classes) cannot serve ConfusionMatrix."""
    data = sm.F1(average="macro").update(np.arange(600), np.arange(600)).state_dict()
    assert "margins" in data["state"]
    crafted = {**sm.ConfusionMatrix().state_dict(), "state": data["state"]}
    with pytest.raises(StateError, match="ConfusionMatrix reads the matrix, found per-class margins"):
        sm.ConfusionMatrix.from_state_dict(crafted)
    assert sm.F1.from_state_dict(data).compute() == 1.0
