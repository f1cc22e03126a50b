"""The direct batch paths of two 1-D NumPy arrays (confusion and regression families) parse
exactly what the general parser (``_parse`` through :class:`Inputs`) parses, and refuse what it
refuses with the same error."""

from __future__ import annotations

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core.inputs import Inputs


def _outcome(fn):
    try:
        return "ok", fn()
    except sm.InputError as err:
        return "error", str(err)


def _same(a, b):
    assert a[0] == b[0], (a, b)
    if a[0] == "error":
        assert a[1] == b[1]
        return
    assert len(a[1]) == len(b[1])
    for x, y in zip(a[1], b[1], strict=True):
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y)
        else:
            assert x == y


_LABELS = [
    (np.array([0, 1, 2, 1]), np.array([0, 2, 2, 1])),
    (np.array([0, 1, 2, 1], np.int32), np.array([0, 2, 2, 1], np.uint8)),
    (np.array([True, False]), np.array([False, False])),
    (np.array([0.0, 1.0, 3.0]), np.array([1.0, 1.0, 3.0])),
    (np.array(["a", "b"]), np.array(["b", "b"])),
    (np.array([0.5, 1.0]), np.array([1, 0])),  # continuous labels: refused
    (np.array([0, 1, 2]), np.array([0, 1])),  # lengths differ: refused
    (np.array([2**64 - 1], np.uint64), np.array([0], np.uint64)),  # beyond int64: refused
    (np.array([np.nan, 1.0]), np.array([1.0, 1.0])),  # not finite: refused
    (np.array([0, 7]), np.array([0, 1])),  # a label outside labels=[0, 1, 2] (refused when listed)
    (np.empty(0, np.int64), np.empty(0, np.int64)),
    (np.array([0, 1, 1]), np.array([0.2, 0.7, 0.5])),  # probabilities (for threshold=)
    (np.array([0, 1, 1]), np.array([-0.5, 1.5, 0.5])),  # beyond [0, 1]: refused as probabilities
    (np.array([0, 1]), np.array([0.5, np.nan])),  # refused
]


@pytest.mark.parametrize(
    "make",
    [
        sm.Accuracy,
        lambda: sm.F1(average="macro"),
        sm.ConfusionMatrix,
        lambda: sm.Recall(labels=[0, 1, 2], average="macro"),
        lambda: sm.Accuracy(threshold=0.5),
        lambda: sm.F1(threshold=0.0, input="score"),
    ],
    ids=["accuracy", "f1-macro", "confusion-matrix", "listed-labels", "threshold", "score-threshold"],
)
@pytest.mark.parametrize("y_true, y_pred", _LABELS)
def test_confusion_direct_path_parses_as_the_general_one(make, y_true, y_pred):
    m = make()
    _same(_outcome(lambda: m._validate(y_true, y_pred)), _outcome(lambda: m._parse(Inputs((y_true, y_pred)))))


_VALUES = [
    (np.array([1.0, 2.5, -3.0]), np.array([1.5, 2.0, -2.0])),
    (np.array([1, 2, 3], np.int32), np.array([1.0, 2.0, 2.0], np.float32)),
    (np.array([1.0, np.inf]), np.array([1.0, 1.0])),  # refused
    (np.array([1.0, 2.0]), np.array([1.0])),  # refused
    (np.array(["1", "2"]), np.array([1.0, 2.0])),  # strings are not numbers: refused
    (np.array([-1.0, 2.0]), np.array([1.0, 2.0])),  # negative: refused by the log metrics
    (np.empty(0), np.empty(0)),
]


@pytest.mark.parametrize(
    "make",
    [sm.R2, sm.MAE, sm.MSLE, lambda: sm.R2(multioutput=[1.0, 2.0])],
    ids=["r2", "mae", "msle", "two-output-weights"],
)
@pytest.mark.parametrize("y_true, y_pred", _VALUES)
def test_regression_direct_path_parses_as_the_general_one(make, y_true, y_pred):
    m = make()
    _same(_outcome(lambda: m._validate(y_true, y_pred)), _outcome(lambda: m._parse(Inputs((y_true, y_pred)))))


@pytest.mark.parametrize(
    "raw",
    [
        np.array([0.0, 0.25, 1.0]),
        np.array([[0.2, 0.8], [1.0, 0.0]]),
        np.array([[0.3], [0.6]]),  # a column: read as 1-D
        np.array([0.5, 1.5]),
        np.array([-0.0, np.nan]),
        np.array([0.5, np.inf]),
        np.array([0.5, 0.5], np.float32),
        np.array([0, 1]),
        np.empty(0),
        np.empty((2, 0)),
        np.array([[[0.5]]]),
    ],
)
@pytest.mark.parametrize("ndim", [(1,), (2,), (1, 2)])
def test_probabilities_one_pass_check_equals_the_two_checks(raw, ndim):
    """Inputs.probabilities reads float64 arrays in [0, 1] in one pass; the result and the
    errors are those of floats() then the range check."""

    def two_checks():
        inputs = Inputs((None, raw))
        arr = inputs.floats(1, "y_proba", ndim)
        from streammetrics._core import validation as v

        v.check_probability(arr, "y_proba")
        return (arr,)

    _same(_outcome(lambda: (Inputs((None, raw)).probabilities(1, "y_proba", ndim),)), _outcome(two_checks))


@pytest.mark.parametrize(
    "make",
    [sm.AdjustedRandIndex, sm.NormalizedMutualInfo, sm.ContingencyTable],
    ids=["ari", "nmi", "table"],
)
@pytest.mark.parametrize("y_true, y_pred", _LABELS)
def test_contingency_direct_path_parses_as_the_general_one(make, y_true, y_pred):
    m = make()
    _same(_outcome(lambda: m._validate(y_true, y_pred)), _outcome(lambda: m._parse(Inputs((y_true, y_pred)))))


@pytest.mark.parametrize(
    "raw",
    [
        np.array([[1.0, -2.0], [0.5, 3.0]]),
        np.array([[1.0, np.nan], [0.5, 3.0]]),
        np.array([[1.0, 2.0], [-np.inf, 3.0]]),
        np.array([[1e200, 2.0], [0.5, -1e200]]),  # finite, but its squares overflow: accepted
        np.array([[1, 2], [3, 4]], np.int32),
        np.array([["a", "b"]]),
        np.empty((0, 3)),
    ],
)
def test_finiteness_settled_by_a_sum_of_squares_equals_the_elementwise_check(raw):
    """Inputs.unchecked_floats then confirm_finite (given whether a sum of squares is finite)
    accept and refuse what floats() does, with the same message, and leave floats() its array."""

    def by_squares():
        inputs = Inputs((raw,))
        arr = inputs.unchecked_floats(0, "y_true", (2,))
        with np.errstate(over="ignore"):
            finite = bool(np.isfinite(np.sum(arr * arr)))
        inputs.confirm_finite(0, "y_true", arr, finite)
        assert inputs.floats(0, "y_true", (2,)) is arr
        return (arr,)

    _same(_outcome(lambda: (Inputs((raw,)).floats(0, "y_true", (2,)),)), _outcome(by_squares))
