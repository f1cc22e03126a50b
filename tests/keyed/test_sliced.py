"""Sliced: what the law suite cannot see (max_keys, sharing, key kinds, loading, Bootstrap per slice)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.classification.keyed import DenseCounts


def _data(n=300, seed=0, keys=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    return y, p, rng.integers(0, keys, n)


def test_per_key_values_equal_sklearn_on_each_slice_and_overall():
    y, p, k = _data()
    s = sm.Sliced(sm.F1(average="macro")).update(y[:100], p[:100], k[:100]).update(y[100:], p[100:], k[100:])
    assert isinstance(s.state.stacks["metric"], DenseCounts)  # the vectorized kernel
    for key, value in s.compute().items():
        assert value == pytest.approx(skm.f1_score(y[k == key], p[k == key], average="macro"), abs=1e-12)
    assert s.overall() == pytest.approx(skm.f1_score(y, p, average="macro"), abs=1e-12)
    assert set(s.flat()) == {f"f1/{key}" for key in range(4)}


def test_a_slice_with_labels_of_its_own_keeps_them_to_itself():
    # key "b" never sees label 2: its macro average is over its own labels, as on its rows alone
    y, p, k = [0, 1, 2, 0, 1], [0, 1, 2, 1, 1], ["a", "a", "a", "b", "b"]
    value = sm.Sliced(sm.Precision(average="macro")).update(y, p, k).compute()["b"]
    assert value == skm.precision_score([0, 1], [1, 1], average="macro", zero_division=0)


def test_max_keys_refuses_and_leaves_the_state_unchanged():
    s = sm.Sliced(sm.Accuracy(), max_keys=2).update([1, 0], [1, 1], ["a", "b"])
    before = s.to_bytes()
    with pytest.raises(sm.InputError, match="max_keys=2"):
        s.update([1, 1], [1, 1], ["a", "c"])
    assert s.to_bytes() == before
    other = sm.Sliced(sm.Accuracy(), max_keys=2).update([1], [1], ["z"])
    with pytest.raises(sm.InputError, match="max_keys"):
        s.merge(other)
    assert s.to_bytes() == before
    s.update([0], [0], ["b"])  # known keys still fine


def test_collection_members_share_one_state_per_key():
    c = sm.MetricCollection(
        {
            "f1": sm.F1(threshold=0.5),
            "precision": sm.Precision(threshold=0.5),
            "auc": sm.ROCAUC(),
            "acc": sm.Accuracy(threshold=0.5),
        }
    )
    rng = np.random.default_rng(1)
    y, score, k = rng.integers(0, 2, 200), rng.random(200), rng.choice(["x", "y"], 200)
    s = sm.Sliced(c).update(y, score, k)
    assert len(s.state.stacks) == len(c.groups)  # one stack per sharing group, not per member
    values = s.compute()
    for key in ("x", "y"):
        rows = k == key
        assert values[key]["auc"] == pytest.approx(skm.roc_auc_score(y[rows], score[rows]), abs=1e-12)
        assert values[key]["acc"] == pytest.approx(skm.accuracy_score(y[rows], score[rows] >= 0.5), abs=1e-12)
    assert s.flat()["auc/x"] == values["x"]["auc"]


def test_key_kinds_round_trip_and_bools_are_ints():
    for keys in (
        ["a", "b", "a"],
        [True, False, True],
        [-(2**62), 5, -(2**62)],
        np.array([[1, "u"], [2, "v"], [1, "u"]], dtype=object),
    ):
        s = sm.Sliced(sm.MAE()).update([1.0, 2.0, 3.0], [1.5, 2.0, 2.0], keys)
        back = sm.from_bytes(s.to_bytes())
        assert back.compute() == s.compute()
        assert (back + s).compute() == (s + s).compute()


def test_keys_of_another_kind_or_width_are_refused():
    s = sm.Sliced(sm.Accuracy()).update([1], [1], ["a"])
    with pytest.raises(sm.InputError, match="keys"):
        s.update([1], [1], [3])
    with pytest.raises(sm.InputError, match="key column"):
        s.update([1], [1], [["a"], ["b"]])
    with pytest.raises(sm.InputError, match="keys"):
        s.update([1, 0], [1, 0], ["a"])
    with pytest.raises(sm.MergeError):
        s.merge(sm.Sliced(sm.Accuracy()).update([1], [1], [3]))


def test_revert_of_unknown_keys_is_refused():
    s = sm.Sliced(sm.Accuracy()).update([1, 0], [1, 1], ["a", "b"])
    before = s.to_bytes()
    with pytest.raises(sm.InputError, match="never added"):
        s.revert([1], [1], ["c"])
    assert s.to_bytes() == before
    s.revert([1], [1], ["a"])
    assert s.compute() == {"b": 0.0}


def test_corrupt_states_are_refused():
    d = sm.Sliced(sm.Accuracy()).update([1, 0], [1, 1], ["a", "b"]).state_dict()
    bad_keys = {**d, "state": {**d["state"], "keys": [["a", "a"]]}}
    with pytest.raises(sm.StateError, match="distinct"):
        sm.from_state_dict(bad_keys)
    short = {**d, "state": {**d["state"], "states": {"metric": d["state"]["states"]["metric"][:1]}}}
    with pytest.raises(sm.StateError, match="one per key"):
        sm.from_state_dict(short)
    binary = sm.Sliced(sm.F1()).state_dict()
    three = sm.Sliced(sm.Accuracy()).update([0, 1, 2], [0, 1, 2], ["a", "a", "a"]).state_dict()
    with pytest.raises(sm.StateError):
        sm.from_state_dict({**binary, "state": three["state"]})


def test_bootstrap_intervals_per_slice():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    p = np.where(rng.random(400) < 0.8, y, 1 - y)
    k = rng.choice(["a", "b"], 400)
    s = sm.Sliced(sm.Bootstrap(sm.Accuracy(), n_replicates=50, seed=0)).update(y, p, k)
    for key, result in s.compute().items():
        assert result.low <= result.estimate <= result.high
        assert result.estimate == pytest.approx(skm.accuracy_score(y[k == key], p[k == key]))


@pytest.mark.parametrize(
    "make",
    [lambda: sm.Accuracy(), lambda: sm.ROCAUC(), lambda: sm.MAE()],
    ids=["counts-engine", "sketch-engine", "generic-engine"],
)
def test_sliced_bootstrap_states_check_and_round_trip(make):
    """The keys of a sliced Bootstrap are parts of one random stream: their states unite for the
    consistency check (and load), while the overall interval is still refused."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 600)
    p = np.clip(0.3 * y + 0.7 * rng.random(600), 0.0, 1.0)
    if isinstance(make(), sm.Accuracy):
        p = (p >= 0.5).astype(int)
    k = rng.integers(0, 3, 600)
    s = sm.Sliced(sm.Bootstrap(make(), n_replicates=30, seed=2)).update(y, p, k)
    s.state.check()
    back = sm.Sliced.from_bytes(s.to_bytes())
    assert back.to_bytes() == s.to_bytes()
    assert {key: v.low for key, v in back.compute().items()} == {key: v.low for key, v in s.compute().items()}
    with pytest.raises(sm.MergeError):
        s.overall()


def test_many_keys_one_batch_and_empty_batches():
    y, p, k = _data(5000, keys=1000)
    s = sm.Sliced(sm.Accuracy()).update(y[:0], p[:0], k[:0]).update(y, p, k)
    assert len(s.compute()) == len(np.unique(k))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sm.Sliced(sm.Accuracy()).update([1], [1], ["a"]).compute() == {"a": 1.0}


@pytest.mark.parametrize("seed", range(6))
def test_each_key_accepts_the_labels_its_metric_accepts_on_its_own_rows(seed):
    # binary F1 takes at most two labels: a key whose rows hold a third is refused, as F1 alone
    # refuses those rows, and the state is left unchanged (the labels of other keys do not matter)
    rng = np.random.default_rng(seed)
    n = 600
    keys = rng.integers(0, 5, n)
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 2, n)
    third = rng.integers(0, 5)  # one key also sees label 2, in y_true or in y_pred
    rows = np.flatnonzero(keys == third)[: rng.integers(0, 3)]
    (y if seed % 2 else p)[rows] = 2
    s = sm.Sliced(sm.F1()).update([0, 1], [1, 1], [0, 1])
    before = s.to_bytes()
    y_all, p_all, k_all = np.r_[0, 1, y], np.r_[1, 1, p], np.r_[0, 1, keys]
    alone_fails = []
    for key in range(5):
        try:
            sm.F1().update(y_all[k_all == key], p_all[k_all == key])
            alone_fails.append(False)
        except sm.InputError:
            alone_fails.append(True)
    if any(alone_fails):
        with pytest.raises(sm.InputError, match="at most 2 labels"):
            s.update(y, p, keys)
        assert s.to_bytes() == before
    else:
        s.update(y, p, keys)
        for key, value in s.compute().items():
            sel = k_all == key
            assert value == pytest.approx(skm.f1_score(y_all[sel], p_all[sel], zero_division=0), abs=1e-12)


def test_per_key_confusion_tables_past_the_cell_limit_are_refused(monkeypatch):
    """Every key of a metric reading the matrix holds a dense K x K table: more cells in all than
    one table of the most classes (2^28, 2 GiB) are refused on update and merge, the state
    unchanged."""
    from streammetrics.classification import counts

    rng = np.random.default_rng(0)
    m = sm.Sliced(sm.ConfusionMatrix()).update([0, 1], [0, 1], [7, 8])
    before = m.to_bytes()
    n = 200_000  # 5,000 keys x 500 classes: 1.25e9 cells, 10 GB
    with pytest.raises(sm.InputError, match="confusion cells"):
        m.update(rng.integers(0, 500, n), rng.integers(0, 500, n), rng.integers(0, 5000, n))
    assert m.to_bytes() == before
    monkeypatch.setattr(counts, "MAX_CLASSES", 100)  # a merge past the limit, on small tables
    keys = np.repeat(np.arange(4), 10)  # 4 keys x 40 classes: 6,400 cells each, 51,200 merged
    a = sm.Sliced(sm.ConfusionMatrix()).update(np.arange(40), np.arange(40), keys)
    b = sm.Sliced(sm.ConfusionMatrix()).update(np.arange(40, 80), np.arange(40, 80), keys + 1000)
    before = a.to_bytes()
    with pytest.raises(sm.MergeError, match="confusion cells"):
        a.merge(b)
    assert a.to_bytes() == before


def test_per_key_states_past_the_dense_limit_keep_their_own_counts():
    """A metric reading no matrix: past the classes a state keeps as a matrix, or past the cells
    of one dense table over the keys, each key keeps its own state (per-class counts past 512
    classes) instead of one (keys, K, K) stack. 5,000 keys x 500 classes once asked for 10 GB
    and was refused; 20 keys x 3,000 classes took 1.4 GB."""
    rng = np.random.default_rng(1)
    n = 200_000
    y, p, g = rng.integers(0, 500, n), rng.integers(0, 500, n), rng.integers(0, 5000, n)
    m = sm.Sliced(sm.F1(average="macro", zero_division=0.0)).update(y, p, g)
    key_states = m.state.stacks["metric"]
    assert not isinstance(key_states, DenseCounts) and not any(s.dense for s in key_states)
    values = m.compute()
    for key in (0, 17, 4999):
        rows = g == key
        assert values[key] == pytest.approx(
            skm.f1_score(y[rows], p[rows], average="macro", zero_division=0.0), rel=1e-12
        )
    y, p, g = rng.integers(0, 3000, 30_000), rng.integers(0, 3000, 30_000), rng.integers(0, 20, 30_000)
    wide = sm.Sliced(sm.F1(average="macro", zero_division=0.0)).update(y, p, g)
    key_states = wide.state.stacks["metric"]
    assert len(key_states) == 20 and not any(s.dense for s in key_states)
    assert wide.compute()[3] == pytest.approx(
        skm.f1_score(y[g == 3], p[g == 3], average="macro", zero_division=0.0), rel=1e-12
    )


def test_per_key_margins_merge_with_a_dense_stack_and_round_trip(monkeypatch):
    """Shards of a sliced F1: one past the dense limit (per-key margins), one a dense stack;
    merged either way, each key is the metric of its rows; bytes round-trip."""
    from streammetrics.classification import counts

    monkeypatch.setattr(counts, "DENSE_CLASSES", 4)
    rng = np.random.default_rng(2)
    y, p, g = rng.integers(0, 8, 600), rng.integers(0, 8, 600), rng.integers(0, 5, 600)
    narrow = sm.Sliced(sm.F1(average="macro", zero_division=0.0)).update(y[:300] % 3, p[:300] % 3, g[:300])
    wide = sm.Sliced(sm.F1(average="macro", zero_division=0.0)).update(y[300:], p[300:], g[300:] + 2)
    assert isinstance(narrow.state.stacks["metric"], DenseCounts)
    assert not any(s.dense for s in wide.state.stacks["metric"])
    yy, pp = np.concatenate([y[:300] % 3, y[300:]]), np.concatenate([p[:300] % 3, p[300:]])
    gg = np.concatenate([g[:300], g[300:] + 2])
    for merged in (narrow + wide, wide + narrow):
        values = merged.compute()
        for key in range(7):
            rows = gg == key
            want = skm.f1_score(yy[rows], pp[rows], average="macro", zero_division=0.0)
            assert values[key] == pytest.approx(want, rel=1e-12)
        back = sm.from_bytes(merged.to_bytes())
        assert back.to_bytes() == merged.to_bytes() and back.compute() == values


@pytest.mark.parametrize("labels", ["ints", "strings"])
@pytest.mark.parametrize("weighted", [False, True])
def test_per_key_margins_are_the_states_of_each_keys_rows(labels, weighted, monkeypatch):
    """Past the dense stack each key keeps its own state, updated from the batch parsed once (its
    rows' label pairs and weights, zero weights included): through updates that grow the keys and
    their labels and a revert, each key's state is that of a metric fed only its rows, field by
    field."""
    from streammetrics.classification import counts

    monkeypatch.setattr(counts, "DENSE_CLASSES", 4)
    rng = np.random.default_rng(7 + weighted)
    names = np.array(["a", "bb", "ccc", "d", "eeeee", "f", "gg", "h", "iii"])
    batches = []
    for n, classes, n_keys in ((300, 6, 5), (200, 9, 8), (250, 9, 8)):
        y, p = rng.integers(0, classes, n), rng.integers(0, classes, n)
        if labels == "strings":
            y, p = names[y], names[p]
        w = rng.integers(0, 3, n).astype(float) if weighted else None
        batches.append((y, p, rng.integers(0, n_keys, n), w))
    m = sm.Sliced(sm.F1(average="macro", zero_division=0.0))
    for y, p, g, w in batches:
        m.update(y, p, g, sample_weight=w)
    y, p, g, w = batches[1]
    m.revert(y, p, g, sample_weight=w)
    kept = [batches[0], batches[2]]
    kernel = m.state.kernels["metric"]
    states = kernel.states(m.state.stacks["metric"])
    assert not isinstance(m.state.stacks["metric"], DenseCounts) and not any(s.dense for s in states)
    for key, slot in zip(m.state.keys.keys(), range(len(states)), strict=True):
        own = sm.F1(average="macro", zero_division=0.0)
        for y, p, g, w in kept:
            rows = g == key
            own.update(y[rows], p[rows], sample_weight=None if w is None else w[rows])
        mine, theirs = states[slot].to_dict(), own.state.in_margins().to_dict()
        assert mine.keys() == theirs.keys()
        for field, value in theirs.items():
            np.testing.assert_array_equal(np.asarray(mine[field]), np.asarray(value), err_msg=field)
