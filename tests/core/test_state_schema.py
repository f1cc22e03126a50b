"""State schemas: each declared constraint refuses what breaks it, naming the field, the expected and the found."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core.schema import Array, Check, Flag, Int, Number, OneOf, Schema


def _schema() -> Schema:
    return Schema(
        "Toy state",
        mode=OneOf(None, "a", "b"),
        k=Int(low=1, optional=True),
        res=Int(low=0, high="max_res"),
        weight=Number(low=0),
        loose=Flag(),
        ids=Array("u", ndim=1, increasing=True),
        table=Array("if", shape=("k", "ids"), non_negative=True),
        sums=Array("f", shape=lambda v: (2 * (v["k"] or 0),)),
        tags=Check("a list of strings", lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v)),
    )


def _good() -> dict:
    return {
        "mode": "a",
        "k": 2,
        "res": 3,
        "weight": 1,
        "loose": False,
        "ids": np.array([1, 5, 9], np.uint32),
        "table": [[0, 1, 2], [3, 4, 5]],
        "sums": np.zeros(4),
        "tags": ["x"],
    }


def test_a_good_dict_is_read_and_converted_to_wide_dtypes():
    values = _schema().read(_good(), max_res=10)
    assert list(values) == list(_good())
    assert values["weight"] == 1.0 and isinstance(values["weight"], float)
    assert values["ids"].dtype == np.uint64 and values["ids"].tolist() == [1, 5, 9]
    assert values["table"].dtype == np.int64 and values["table"].shape == (2, 3)
    good = _good()
    assert _schema().read(good, max_res=10)["sums"] is not good["sums"]  # never shares memory
    empty = {**_good(), "k": None, "table": np.zeros((0, 3), np.int64), "sums": np.zeros(0)}
    assert _schema().read(empty, max_res=10)["k"] is None  # None counts as 0 in shapes


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("mode", "c", r"mode must be one of \[None, 'a', 'b'\], found 'c'"),
        ("mode", np.str_("x"), "mode must be one of"),
        ("k", 0, "k must be None or a positive int, found 0"),
        ("k", True, "k must be None or a positive int, found True"),
        ("k", 2.0, "k must be None or a positive int, found 2.0"),
        ("res", 11, r"res must be an int in \[0, 10\], found 11"),
        ("res", np.int64(3), r"res must be an int in \[0, 10\], found np.int64\(3\)"),
        ("weight", -0.5, "weight must be a finite non-negative number, found -0.5"),
        ("weight", float("inf"), "weight must be a finite non-negative number, found inf"),
        ("weight", False, "weight must be a finite non-negative number, found False"),
        ("loose", 0, "loose must be a bool, found 0"),
        (
            "ids",
            np.array([1, 5, 5], np.uint64),
            "ids must be strictly increasing, found np.uint64\\(5\\) after",
        ),
        ("ids", np.array([1, 5, 9]), "ids must be a 1-D uint64 array, found int64 array of shape"),
        (
            "ids",
            np.array([[1, 5, 9]], np.uint64),
            r"ids must be a 1-D uint64 array, found uint64 array of shape \(1, 3\)",
        ),
        (
            "table",
            np.zeros((2, 2)),
            r"table must be an int64 or float64 array of shape \(2, 3\), found float64",
        ),
        ("table", np.zeros((2, 3), np.float32) - 1, "table must be non-negative, found negative value"),
        (
            "table",
            np.array([["a"] * 3] * 2),
            r"table must be an int64 or float64 array of shape \(2, 3\), found <U1",
        ),
        ("table", [[0, 1, 2], [3, 4]], "table must be an int64 or float64 array"),  # ragged
        ("sums", np.array([0.0, 1.0, np.nan, 2.0]), "sums must be finite, found non-finite"),
        (
            "sums",
            np.zeros(3),
            r"sums must be a float64 array of shape \(4,\), found float64 array of shape \(3,\)",
        ),
        ("tags", ["x", 1], "tags must be a list of strings, found \\['x', 1\\]"),
    ],
)
def test_each_constraint_names_the_field_the_expected_and_the_found(key, value, message):
    data = {**_good(), key: value}
    with pytest.raises(sm.StateError, match=f"^Toy state: {message}"):
        _schema().read(data, max_res=10)


def test_an_infinite_array_takes_infinities_and_refuses_nan():
    """``infinite=True``: a total that grew past the float range (inf) is read; NaN never is;
    without it, neither."""
    both = Schema("Toy state", totals=Array("f", infinite=True, non_negative=True), plain=Array("f"))
    values = both.read({"totals": [1.0, np.inf], "plain": [1.0]})
    assert values["totals"].tolist() == [1.0, np.inf]
    with pytest.raises(sm.StateError, match=r"^Toy state: totals must be finite or infinite, found NaN"):
        both.read({"totals": [np.nan, 1.0], "plain": [1.0]})
    with pytest.raises(sm.StateError, match=r"^Toy state: totals must be non-negative"):
        both.read({"totals": [-np.inf], "plain": [1.0]})
    with pytest.raises(sm.StateError, match=r"^Toy state: plain must be finite, found non-finite"):
        both.read({"totals": [1.0], "plain": [np.inf]})


def test_keys_must_be_exactly_the_declared_ones():
    with pytest.raises(sm.StateError, match=r"Toy state: expected the keys .*'weight'.*, found"):
        _schema().read({k: v for k, v in _good().items() if k != "weight"}, max_res=10)
    with pytest.raises(sm.StateError, match="Toy state: expected a dict, found list"):
        _schema().read([], max_res=10)


def test_check_runs_the_same_declarations_on_live_values():
    schema = _schema()
    values = schema.read(_good(), max_res=10)
    schema.check(values, max_res=10)
    schema.check({"table": values["table"], "k": 2, "ids": values["ids"]})  # a subset
    values["table"][0, 0] = -1
    with pytest.raises(sm.StateError, match="table must be non-negative"):
        schema.check(values, max_res=10)


# --------------------------------------------------------------------------- the states' dicts
def _cases():
    """(metric with data, field, corrupt value, what the message must say)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    p = rng.random(40)
    acc = sm.Accuracy().update([0, 1, 2, 2], [0, 2, 2, 1])
    ml = sm.F1(average="samples").update([[0, 1], [1, 1]], [[1, 1], [0, 1]])
    auc = sm.ROCAUC(resolution=10).update(y, p)
    mcnemar = sm.McNemar().update(y, y, 1 - y)
    boot = sm.Bootstrap(sm.F1(), n_replicates=8, seed=2).update(y, 1 - y)
    generic = sm.Bootstrap(sm.MAE(), n_replicates=8, seed=2).update(p, y)
    return [
        (boot, "engine", "fast", "BootstrapState: engine must be one of"),
        (
            boot,
            "tensor",
            np.zeros((8, 3, 3)),
            r"tensor must be .* of shape \(8, 2, 2\), found float64 array of shape \(8, 3, 3\)",
        ),
        (boot, "tensor", -np.ones((8, 2, 2)), "tensor must be non-negative"),
        (boot, "streams", [["x", 0]], "streams must be a list of \\[entropy, shard\\] pairs"),
        (boot, "base", [], "BootstrapState: base must be a state dict, found \\[\\]"),
        (generic, "reps", [], "expected 8 replicate states, found 0"),
        (generic, "n_batches", -1, "n_batches must be a non-negative int"),
        (
            mcnemar,
            "counts",
            np.array([1, 2, 3]),
            r"counts must be .* of shape \(4,\), found int64 array of shape \(3,\)",
        ),
        (mcnemar, "counts", np.array([40.0, 0.0, -1.0, 1.0]), "counts must be non-negative"),
        (mcnemar, "counts", np.array([40, 0, 1, 0]), "counts do not sum to n_samples=40"),
        # version 3: one resolution and one loose flag per score column
        (auc, "resolution", 11, r"resolution must be a list of ints, found 11"),
        (auc, "resolution", [53], r"resolution must be an int in \[-11, 52\], found 53"),
        (auc, "loose", 1, "loose must be a list of booleans, found 1"),
        (auc, "layout", [1, 0], r"layout must be None or two positive ints, found \[1, 0\]"),
        (auc, "multi", [0], r"multi must be packed bits \(a 1-D uint8 array\), found \[0\]"),
        (
            auc,
            "counts",
            np.zeros(3, np.float32),
            "counts must be varints .* found float32 array of shape \\(3,\\)",
        ),
        (acc, "mode", "binary", "mode must be one of"),
        (
            acc,
            "matrix",
            np.zeros((2, 2), np.int64),
            r"matrix must be .* of shape \(3, 3\), found int64 array of shape \(2, 2\)",
        ),
        (acc, "matrix", np.array([[1, 0, 0], [0, 1, 0], [0, 0, np.inf]]), "matrix must be finite"),
        (acc, "matrix", np.array([[2, 0, 0], [0, 1, 0], [-1, 1, 1]]), "matrix must be non-negative"),
        (acc, "n_samples", 3.0, "n_samples must be a non-negative int, found 3.0"),
        (acc, "labels", "012", "labels must be a list of labels"),
        (ml, "codes", np.array([1.0]), "codes must be a 1-D int64 array, found float64"),
        (ml, "code_weights", np.array([1, 1, 1]), r"code_weights must be .* of shape \(2,\)"),
        (sm.LogLoss().update(y, p), "table", np.zeros(2), r"table must be .* of shape \(3,\)"),
        (sm.LogLoss().update(y, p), "table", np.array([np.nan, 1.0, 1.0]), "table must be finite"),
        (
            sm.ExpectedCost([[0, 1], [1, 0]]).update(y, 1 - y),
            "table",
            -np.eye(2, dtype=np.int64),
            "table must be non-negative",
        ),
        (
            sm.CalibrationError(strategy="quantile").update(y, p),
            "ids",
            np.array([3, 2, 1], np.uint64),
            "ids must be strictly increasing",
        ),
        (
            sm.CalibrationError(strategy="quantile").update(y, p),
            "sums",
            np.zeros((2, 3)),
            r"sums must be a float64 array of shape \(\d+, 3\)",
        ),
        (
            sm.CalibrationError(strategy="quantile").update(y, p),
            "n_samples",
            -1,
            "n_samples must be a non-negative int",
        ),
    ]


@pytest.mark.parametrize(
    ("metric", "key", "value", "message"), _cases(), ids=lambda x: getattr(x, "__name__", None)
)
def test_corrupt_state_dicts_name_the_field(metric, key, value, message):
    d = metric.state_dict()
    assert key in d["state"]
    restored = sm.from_state_dict(d)  # the untouched dict loads and computes the same value
    np.testing.assert_array_equal(restored.compute(), metric.compute())
    d["state"] = {**d["state"], key: value}
    with pytest.raises(sm.StateError, match=message):
        sm.from_state_dict(d)


def _rolling_exact():
    return sm.Rolling(sm.Accuracy(), window=5).update([0, 1, 1], [0, 1, 0], sample_weight=[1.0, 2.0, 0.5])


def _rolling_panes():
    return sm.Rolling(sm.MaxError(), window=6, panes=3).update([0.0, 1.0, 2.0], [0.5, 1.0, 3.0])


def _set_chunk(key, value):
    def change(state):
        state["rows"][0][key] = value

    return change


def _set_pane(key, value):
    def change(state):
        state["panes"][0][key] = value

    return change


@pytest.mark.parametrize(
    ("make", "change", "message"),
    [
        (
            _rolling_exact,
            _set_chunk("args", []),
            "Rolling state rows: args must be a non-empty list of arrays",
        ),
        (
            _rolling_exact,
            _set_chunk("args", [[0, 1, 1], [0, 1]]),
            "args must be a non-empty list of arrays of equal lengths",
        ),
        (_rolling_exact, _set_chunk("weights", np.array([1.0, -2.0, 0.5])), "weights must be non-negative"),
        (
            _rolling_exact,
            _set_chunk("weights", np.array([1.0, 2.0])),
            r"weights must be None or a float64 array of shape \(3,\)",
        ),
        (
            _rolling_exact,
            lambda s: s.update(rows={}),
            "Rolling state: rows must be a list of chunks, found {}",
        ),
        (_rolling_exact, lambda s: s["rows"].append(s["rows"][0]), r"the stored rows \(6\) do not match"),
        (
            _rolling_panes,
            _set_pane("rows", 1),
            "Rolling state pane: rows must be the pane state's 2 rows, between 1 and the pane size 2, found 1",
        ),
        (
            lambda: sm.Rolling(sm.MaxError(), window=6, panes=3).update(np.arange(7.0), np.arange(7.0) + 1),
            lambda s: s["panes"].insert(0, s["panes"][0]),  # a pane that has left the window
            "the ring holds panes that have left the window",
        ),
        (_rolling_panes, _set_pane("rows", 0), "Rolling state pane: rows must be a positive int, found 0"),
        (
            _rolling_panes,
            _set_pane("state", None),
            "Rolling state pane: state must be a state dict, found None",
        ),
        (
            lambda: sm.Decayed(sm.MAE(), decay=0.5).update([1.0], [2.0]),
            lambda s: s.update(state=[]),
            "Decayed state: state must be a state dict",
        ),
    ],
)
def test_corrupt_window_states_name_the_field(make, change, message):
    metric = make()
    d = metric.state_dict()
    np.testing.assert_array_equal(sm.from_state_dict(d).compute(), metric.compute())
    metric.state.check()
    change(d["state"])
    with pytest.raises(sm.StateError, match=message):
        sm.from_state_dict(d)


def test_window_and_bootstrap_check_their_own_invariants():
    """check() verifies what a load verifies, of the wrapper as well as of the states inside."""
    exact = sm.Rolling(sm.MAE(), window=4).update(np.arange(6.0), np.arange(6.0) + 1)
    exact.state.check()
    exact.state.chunks.append(exact.state.chunks[0])  # rows the state does not hold
    with pytest.raises(sm.StateError, match="stored rows"):
        exact.state.check()
    panes = sm.Rolling(sm.MaxError(), window=6, panes=3).update(np.arange(9.0), np.arange(9.0))
    panes.state.check()
    panes.state.ring.appendleft([panes.state.ring[0][0].copy(), 2])
    with pytest.raises(sm.StateError, match="left the window"):
        panes.state.check()
    boot = sm.Bootstrap(sm.MAE(), n_replicates=5, seed=0).update([1.0, 2.0], [1.5, 2.5])
    boot.state.check()
    boot.state.reps = boot.state.reps[:4]
    with pytest.raises(sm.StateError, match="expected 5 replicate states, found 4"):
        boot.state.check()
    counts = sm.Bootstrap(sm.Accuracy(), n_replicates=5, seed=0).update([0, 1], [0, 1])
    counts.state.engine = "generic"
    with pytest.raises(sm.StateError, match=r"shape \(5, 0, 0\)|expected 5 replicate states"):
        counts.state.check()
