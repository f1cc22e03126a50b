"""One table of bad batches: the documented error type, a message naming the argument, no change."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm

GOOD = ([0, 1, 1, 0], [0, 1, 0, 0])

# (metric factory, args, kwargs, error type, words the message must contain)
BAD_BATCHES = [
    (sm.F1, ([0, 1, 1], [0, 1]), {}, sm.InputError, ["y_pred", "3 rows", "found 2"]),
    (sm.F1, ([0, 1], [0, 1]), {"sample_weight": [1.0]}, sm.InputError, ["sample_weight", "2 rows"]),
    (
        sm.F1,
        ([0, 1], [0, 1]),
        {"sample_weight": [1.0, -1.0]},
        sm.InputError,
        ["sample_weight", "non-negative"],
    ),
    (sm.F1, ([0, 1], [0, 1]), {"sample_weight": [1.0, np.nan]}, sm.InputError, ["sample_weight", "finite"]),
    (sm.F1, ([0, 1], [0, 1]), {"sample_weight": [1.0, np.inf]}, sm.InputError, ["sample_weight", "finite"]),
    (sm.F1, ([0.0, np.nan], [0, 1]), {}, sm.InputError, ["y_true", "finite"]),
    (sm.F1, ([0, 1], [0.5, 1.0]), {}, sm.InputError, ["y_pred", "continuous", "threshold"]),
    # a cast to int64 would make a label up (1e20) or overflow (10**400, uint64 beyond int64)
    (sm.Accuracy, ([1e20, 0.0], [0, 1]), {}, sm.InputError, ["y_true", "fit in int64", "1e+20"]),
    (sm.Accuracy, ([0, 1], [10**400, 1]), {}, sm.InputError, ["y_pred", "fit in int64", "401 digits"]),
    (sm.Accuracy, (np.array([2**64 - 1, 0], np.uint64), [0, 1]), {}, sm.InputError, ["y_true", "int64"]),
    (sm.LogLoss, ([0, 10**400], [0.2, 0.7]), {}, sm.InputError, ["y_true", "fit in int64"]),
    (sm.F1, ([[[0]]], [[[0]]]), {}, sm.InputError, ["y_true", "1-D", "shape"]),
    (sm.F1, ([0, 1], [[[0]], [[1]]]), {}, sm.InputError, ["y_pred", "1-D", "shape (2, 1, 1)"]),
    (sm.Accuracy, ([0, 1], ["a", "b"]), {}, sm.InputError, ["y_pred", "int labels", "str"]),
    (sm.Accuracy, ([0, "a"], [0, 1]), {}, sm.InputError, ["y_true"]),
    (lambda: sm.F1(labels=[0, 1]), ([0, 2], [0, 1]), {}, sm.InputError, ["y_true", "fixed list", "2"]),
    (lambda: sm.F1(threshold=0.5), ([0, 1], [0.2, 1.5]), {}, sm.InputError, ["y_pred", "[0, 1]", "1.5"]),
    (lambda: sm.F1(threshold=0.5), ([0, 1], [0.2, np.nan]), {}, sm.InputError, ["y_pred", "finite"]),
    (lambda: sm.F1(threshold=0.5), ([0, 1], ["a", "b"]), {}, sm.InputError, ["y_pred", "numbers"]),
    (sm.F1, ([0, 1, 2], [0, 1, 2]), {}, sm.InputError, ["average='binary'", "at most 2 labels, found 3"]),
    (lambda: sm.F1(average="samples"), ([0, 1], [0, 1]), {}, sm.InputError, ["samples", "multilabel"]),
    (lambda: sm.F1(average="macro"), ([[0, 1]], [[0, 2]]), {}, sm.InputError, ["y_pred", "0/1"]),
    (lambda: sm.F1(average="macro"), ([[0, 1]], [[0, 1, 1]]), {}, sm.InputError, ["y_pred", "shape"]),
    (
        lambda: sm.Precision(labels=["a", "b", "c"], average="macro"),
        (["a"], [[0.2, 0.8]]),
        {},
        sm.InputError,
        ["y_pred", "3 score columns"],
    ),
    # a value other than 0 or 1 in an integer indicator matrix, of any width (a negative one too)
    (
        sm.F1,
        (np.array([[0, 1], [-1, 0]], np.int8), [[0, 1], [1, 0]]),
        {},
        sm.InputError,
        ["y_true", "0/1", "-1"],
    ),
    (sm.F1, ([[0, 1], [1, 0]], np.array([[0, 1], [0, -1]])), {}, sm.InputError, ["y_pred", "0/1", "-1"]),
    (
        sm.CoverageError,
        (np.array([[0, 1], [2, 0]], np.uint16), [[0.1, 0.2], [0.3, 0.4]]),
        {},
        sm.InputError,
        ["y_true", "0/1", "2"],
    ),
    (
        sm.LabelRankingLoss,
        (np.array([[0, 1], [1, -(2**31)]], np.int32), [[0.1, 0.2], [0.3, 0.4]]),
        {},
        sm.InputError,
        ["y_true", "0/1", "-2147483648"],
    ),
]


@pytest.mark.parametrize("factory,args,kwargs,error,words", BAD_BATCHES)
def test_bad_batch_raises_clear_error_and_leaves_state(factory, args, kwargs, error, words):
    m = factory()
    if not (np.asarray(args[0]).ndim == 2):
        try:
            m.update(*GOOD)
        except sm.InputError:
            pass
    before = m.to_bytes()
    with pytest.raises(error) as info:
        m.update(*args, **kwargs)
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert m.to_bytes() == before


def test_multiclass_then_multilabel_is_rejected_unchanged():
    m = sm.F1(average="macro").update([0, 1], [0, 1])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="y_true"):
        m.update([[0, 1]], [[0, 1]])
    assert m.to_bytes() == before


def test_bad_revert_leaves_state():
    m = sm.Accuracy().update([0, 1], [0, 1])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match="never added"):
        m.revert([2], [2])
    with pytest.raises(sm.InputError, match="never added"):
        m.revert([0, 0], [0, 0])
    assert m.to_bytes() == before


@pytest.mark.parametrize(
    "factory,words",
    [
        (lambda: sm.F1(average="mean"), ["average", "'mean'"]),
        (lambda: sm.F1(zero_division=2), ["zero_division", "2"]),
        (lambda: sm.FBeta(beta=-1.0), ["beta", "-1.0"]),
        (lambda: sm.F1(threshold=1.5), ["threshold", "1.5"]),
        (lambda: sm.F1(threshold=0.5, pos_label="yes"), ["threshold", "labels="]),
        (lambda: sm.F1(labels=[0, 0]), ["labels", "distinct"]),
        (lambda: sm.F1(labels=["a", "b"]), ["pos_label", "labels"]),
        (lambda: sm.F1(input="logit"), ["input", "logit"]),
        (lambda: sm.CohenKappa(weights="cubic"), ["weights", "cubic"]),
    ],
)
def test_bad_parameters_raise_value_error_naming_them(factory, words):
    with pytest.raises(ValueError) as info:
        factory()
    for word in words:
        assert word in str(info.value)


def test_merge_of_different_configuration_names_the_difference():
    with pytest.raises(sm.MergeError, match="average='macro' vs average='micro'"):
        sm.F1(average="macro").merge(sm.F1(average="micro"))
    with pytest.raises(sm.MergeError, match="different types"):
        sm.F1().merge(sm.Precision())
    with pytest.raises(sm.MergeError):
        sm.F1(average="macro").update([0, 1], [0, 1]).merge(sm.F1(average="macro").update(["a"], ["b"]))
    with pytest.raises(sm.MergeError):
        sm.F1(average="macro").update([0, 1], [0, 1]).merge(sm.F1(average="macro").update([[0, 1]], [[1, 1]]))


def test_labels_first_seen_in_different_shards_are_unioned():
    a = sm.ConfusionMatrix().update(["cat", "dog"], ["cat", "dog"])
    b = sm.ConfusionMatrix().update(["ant", "dog"], ["dog", "dog"])
    merged = a + b
    assert merged.classes == ["ant", "cat", "dog"]
    np.testing.assert_array_equal(merged.compute(), [[0, 0, 1], [0, 1, 0], [0, 0, 2]])


@pytest.mark.parametrize("dtype", ["i1", "<i2", ">i4", ">i8", "u1", ">u2", "<u8"])
def test_indicator_matrices_of_any_integer_type_and_byte_order(dtype) -> None:
    """0/1 indicators of any integer width and byte order give the state of the same int64
    matrix; a 2 (or a -1, signed) among them is refused, naming it."""
    y = np.array([[0, 1, 1], [1, 0, 0], [1, 1, 0]])
    scores = np.array([[0.2, 0.9, 0.1], [0.5, 0.6, 0.7], [0.3, 0.3, 0.8]])
    for make in (sm.LabelRankingLoss, lambda: sm.F1(average="micro")):
        second = scores if isinstance(make(), sm.LabelRankingLoss) else (scores > 0.5).astype(int)
        typed = make().update(y.astype(dtype), second)
        assert typed.to_bytes() == make().update(y, second).to_bytes()
        for value in (2, -1) if np.dtype(dtype).kind == "i" else (2,):
            bad = y.astype(dtype)
            bad[2, 1] = value
            before = typed.to_bytes()
            with pytest.raises(
                sm.InputError, match=rf"^y_true: expected a 0/1 indicator matrix, found the value {value}"
            ):
                typed.update(bad, second)
            assert typed.to_bytes() == before


@pytest.mark.parametrize("shape", [(1 << 17,), ((1 << 15) + 1, 4)])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_large_arrays_refuse_inf_and_nan_through_the_work_mask(shape, bad) -> None:
    """Arrays of ``MASK_IN_WORK`` values and more test their finiteness in a work array: the
    same refusals (the last value bad), the same acceptance, nothing kept from one to the next."""
    from streammetrics._core import validation

    assert np.prod(shape) >= validation.MASK_IN_WORK
    good = np.random.default_rng(0).random(shape)
    validation.check_finite(good, "y_pred")
    bad_array = good.copy()
    bad_array.flat[-1] = bad
    with pytest.raises(sm.InputError, match=rf"^y_pred: expected finite values, found {bad}$"):
        validation.check_finite(bad_array, "y_pred")
    validation.check_finite(good, "y_pred")  # (the mask of the refused array is not read again)
    m = sm.MSE().update(np.zeros(len(good)), good.reshape(len(good), -1)[:, 0])
    before = m.to_bytes()
    if bad_array.ndim == 1:  # a metric's batch, checked the same way
        with pytest.raises(sm.InputError, match=r"^y_pred: expected finite values"):
            m.update(np.zeros(len(bad_array)), bad_array)
    assert m.to_bytes() == before
