"""scikit-learn's metric functions, computed by streammetrics over a stream of shards.

Each shim function has the signature of the scikit-learn function it replaces. It builds the
streammetrics metric from the keyword arguments, cuts the data into three uneven shards (the last
takes the rest, so a length mismatch still reaches an ``update``), updates a fresh metric with
each, sends every shard state through ``to_bytes``/``from_bytes`` and
``state_dict``/``from_state_dict``, merges the shards in a random (seeded) order, round-trips the
total once more and returns ``compute()``. What scikit-learn's tests then check is the streaming
result, not a one-batch shortcut.

Keywords are forwarded by name: a keyword at scikit-learn's default is left out, any other is
passed when the streammetrics class takes a parameter of that name, and otherwise the call raises
:class:`ShimUnsupported` (counted apart from wrong values). So an option added to a metric class
is picked up by the suite without an edit here.

Plumbing the shim does, and nothing more: streammetrics' ``UndefinedMetricWarning`` is re-issued
as scikit-learn's (same message; the tests check scikit-learn's class), scikit-learn's keyword
spellings are mapped to ours (``y1``/``labels_true`` to the roles), tuple results are assembled
from several metrics, and SciPy sparse input is refused as unsupported (streammetrics takes dense
arrays only).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sklearn.metrics
import sklearn.metrics.cluster
from sklearn.exceptions import UndefinedMetricWarning as SkUndefinedMetricWarning
from sklearn.utils.multiclass import type_of_target

import streammetrics as sm
from streammetrics.errors import UndefinedMetricWarning

__all__ = ["CALLS", "SHIMS", "ORIGINALS", "ShimUnsupported", "stream"]


class ShimUnsupported(Exception):
    """A keyword or input kind that streammetrics (or this shim) does not take."""


#: How many shim calls have run (the conftest reads it to tell tests that reach streammetrics).
CALLS = {"n": 0}

_UNSET = object()


# ---------------------------------------------------------------------------------- streaming
def _length(x: Any) -> int | None:
    if x is None or isinstance(x, (str, bytes, dict)):
        return None
    shape = getattr(x, "shape", None)
    if shape is not None:
        return int(shape[0]) if len(shape) >= 1 else None
    try:
        return len(x)
    except TypeError:
        return None


def _cut(x: Any, start: int, stop: int | None) -> Any:
    if x is None:
        return None
    if hasattr(x, "iloc"):
        return x.iloc[start:stop]
    return x[start:stop]


def _check_dense(name: str, x: Any) -> None:
    if hasattr(x, "tocsr") or hasattr(x, "nnz"):
        raise ShimUnsupported(f"{name}: SciPy sparse input")


def _round_trip(m: Any, through_bytes: bool) -> Any:
    if through_bytes:
        return sm.from_bytes(m.to_bytes())
    return sm.from_state_dict(m.state_dict())


def stream(make: Callable[[], Any], args: tuple[Any, ...], sample_weight: Any = None) -> Any:
    """A metric fed ``args`` (one array per role) over three uneven shards, merged at random."""
    for i, a in enumerate((*args, sample_weight)):
        _check_dense(f"argument {i}", a)
    lengths = [_length(a) for a in args]
    n = lengths[0]
    rng = np.random.default_rng(n if n is not None else 0)
    if n is None or any(k is None for k in lengths):
        parts = [(args, sample_weight)]  # not sliceable: one update reports the problem
    else:
        a, b = n // 5, n // 5 + (n - n // 5) * 2 // 3  # about 1/5, 8/15, 4/15 of the rows
        bounds = [(0, a), (a, b), (b, None)]
        parts = [(tuple(_cut(x, lo, hi) for x in args), _cut(sample_weight, lo, hi)) for lo, hi in bounds]
    shards = []
    for i, (part, w) in enumerate(parts):
        m = make()
        m.update(*part, sample_weight=w)
        shards.append(_round_trip(m, through_bytes=i % 2 == 0))  # bytes, dict, bytes
    order = rng.permutation(len(shards))
    total = shards[order[0]]
    for i in order[1:]:
        total.merge(shards[i])
    return _round_trip(total, through_bytes=False)


# ---------------------------------------------------------------------------------- specs
@dataclass
class Spec:
    """How one scikit-learn function maps onto streammetrics."""

    cls: Any  # the streammetrics class (its parameters decide which keywords are forwarded)
    roles: tuple[str, ...] = ("y_true", "y_pred")
    weight: str | None = "sample_weight"
    fixed: dict[str, Any] = field(default_factory=dict)  # always passed to the class
    ignore: tuple[str, ...] = ()  # scikit-learn keywords with no effect on the value
    rename: dict[str, str] = field(default_factory=dict)  # scikit-learn keyword -> ours
    accept: dict[str, Callable[[Any], bool]] = field(default_factory=dict)  # values that mean the default
    result: Callable[[Any, dict[str, Any]], Any] | None = None  # metric, sk kwargs -> value


def _short(value: Any) -> str:
    """A one-line description of a keyword's value (arrays by type and shape)."""
    if hasattr(value, "shape") and getattr(value, "ndim", 0) > 0:
        return f"<{type(value).__name__} of shape {value.shape}>"
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _same(value: Any, default: Any) -> bool:
    if value is default:
        return True
    if isinstance(default, (str, int, float, bool)) and type(value) is type(default):
        return value == default
    return False


def _class_params(cls: Any) -> set[str]:
    return set(inspect.signature(cls).parameters)


def _config(
    spec: Spec, name: str, sig: inspect.Signature, bound: dict[str, Any], cls: Any, fixed: dict[str, Any]
) -> dict[str, Any]:
    params = _class_params(cls)
    kwargs = dict(fixed)
    for key, value in bound.items():
        if key in spec.roles or key == spec.weight or key in spec.ignore:
            continue
        if sig.parameters[key].kind is inspect.Parameter.VAR_KEYWORD:
            if value:
                raise ShimUnsupported(f"{name}(**{value!r})")
            continue
        if key in spec.accept and spec.accept[key](value):
            continue
        if _same(value, sig.parameters[key].default):
            continue
        ours = spec.rename.get(key, key)
        if ours not in params:
            raise ShimUnsupported(f"{name}({key}={_short(value)})")
        kwargs[ours] = value
    if kwargs.get("labels") is not None and "unlisted" in params:
        kwargs["unlisted"] = "count"  # scikit-learn's labels= chooses labels; rows of others count
    return kwargs


def _scores_input(data: tuple[Any, ...]) -> str:
    """Scores for binary and multilabel targets; probabilities for multiclass ones (as sklearn)."""
    try:
        kind = type_of_target(data[0])
    except Exception:
        return "score"
    return (
        "probability" if kind == "multiclass" and np.ndim(np.asarray(data[1], dtype=object)) == 2 else "score"
    )


def _fixed(spec: Spec, data: tuple[Any, ...]) -> dict[str, Any]:
    """The fixed keywords; a plain function among them is computed from the data."""
    return {k: v(data) if inspect.isfunction(v) else v for k, v in spec.fixed.items()}


def _reissue(caught: list[warnings.WarningMessage]) -> None:
    for w in caught:
        if issubclass(w.category, UndefinedMetricWarning):
            warnings.warn(str(w.message), SkUndefinedMetricWarning, stacklevel=3)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _make_shim(name: str, spec: Spec) -> Callable[..., Any]:
    original = getattr(sklearn.metrics, name)
    sig = inspect.signature(original)
    missing = [r for r in (*spec.roles, spec.weight) if r is not None and r not in sig.parameters]
    assert not missing, f"{name} has no parameter {missing} in this scikit-learn"

    @functools.wraps(original)
    def shim(*args: Any, **kwargs: Any) -> Any:
        CALLS["n"] += 1
        bound = sig.bind(*args, **kwargs).arguments
        data = tuple(bound.get(r) for r in spec.roles)
        weight = bound.get(spec.weight) if spec.weight else None
        config = _config(spec, name, sig, bound, spec.cls, _fixed(spec, data))

        def run(cls: Any = spec.cls) -> Any:
            params = _class_params(cls)
            kept = {k: v for k, v in config.items() if k in params}
            return stream(lambda: cls(**kept), data, weight)

        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                return (spec.result or _compute)(run, bound)
        finally:
            _reissue(caught)

    shim.__signature__ = sig  # type: ignore[attr-defined]
    shim.streammetrics_shim = True  # type: ignore[attr-defined]
    return shim


# ---------------------------------------------------------------------------------- results
def _compute(run: Callable[..., Any], bound: dict[str, Any]) -> Any:
    return run().compute()


def _report(run: Callable[..., Any], bound: dict[str, Any]) -> Any:
    """classification_report's value: the text, or the dict with ``output_dict=True``."""
    report = run().compute()
    return report.to_dict() if bound.get("output_dict") else str(report)


def _support(m: Any, labels: Any) -> np.ndarray:
    """Per-class support (tp + fn) read from the streamed state, in the order of ``labels``."""
    tp, _, fn, _ = m.state.one_vs_rest()
    support = tp + fn
    if labels is not None and m.state.mode != "multilabel":
        known = list(m.output_labels(m.state))
        support = np.array([support[known.index(label)] if label in known else 0.0 for label in labels])
    return support.astype(np.int64) if np.all(support == np.round(support)) else support


def _prfs(run: Callable[..., Any], bound: dict[str, Any]) -> tuple[Any, ...]:
    f = run(sm.FBeta)
    support = None if bound.get("average") is not None else _support(f, bound.get("labels"))
    return run(sm.Precision).compute(), run(sm.Recall).compute(), f.compute(), support


def _tuple_of(*classes: Any) -> Callable[..., Any]:
    """A tuple result assembled from several streammetrics classes fed the same data."""

    def result(run: Callable[..., Any], bound: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(run(c).compute() for c in classes)

    return result


def _everything(data: tuple[Any, ...]) -> int:
    """A sample size that holds every row: the internal indices are then exact."""
    return max(1000, _length(data[0]) or 0)


SPECS: dict[str, Spec] = {
    # classification
    "accuracy_score": Spec(sm.Accuracy),
    "balanced_accuracy_score": Spec(sm.BalancedAccuracy),
    "precision_score": Spec(sm.Precision),
    "recall_score": Spec(sm.Recall),
    "f1_score": Spec(sm.F1),
    "fbeta_score": Spec(sm.FBeta),
    "jaccard_score": Spec(sm.Jaccard),
    "matthews_corrcoef": Spec(sm.MCC),
    "cohen_kappa_score": Spec(sm.CohenKappa, roles=("y1", "y2")),
    "hamming_loss": Spec(sm.HammingLoss),
    "confusion_matrix": Spec(sm.ConfusionMatrix),
    "classification_report": Spec(sm.ClassificationReport, ignore=("output_dict",), result=_report),
    "precision_recall_fscore_support": Spec(
        sm.FBeta, fixed={"average": None}, ignore=("warn_for",), result=_prfs
    ),
    "class_likelihood_ratios": Spec(
        sm.PositiveLikelihoodRatio, result=_tuple_of(sm.PositiveLikelihoodRatio, sm.NegativeLikelihoodRatio)
    ),
    # ranking and probabilistic
    "roc_auc_score": Spec(
        sm.ROCAUC,
        roles=("y_true", "y_score"),
        fixed={"exact": True, "input": _scores_input},
        accept={"multi_class": lambda v: v == "raise"},
    ),
    "average_precision_score": Spec(
        sm.AveragePrecision, roles=("y_true", "y_score"), fixed={"exact": True, "input": "score"}
    ),
    "roc_curve": Spec(sm.ROCCurve, roles=("y_true", "y_score"), fixed={"exact": True, "input": "score"}),
    "precision_recall_curve": Spec(
        sm.PRCurve, roles=("y_true", "y_score"), fixed={"exact": True, "input": "score"}
    ),
    "log_loss": Spec(sm.LogLoss, roles=("y_true", "y_proba")),
    "brier_score_loss": Spec(sm.BrierScore, roles=("y_true", "y_proba")),
    # regression
    "mean_absolute_error": Spec(sm.MAE),
    "mean_squared_error": Spec(sm.MSE),
    "root_mean_squared_error": Spec(sm.RMSE),
    "mean_squared_log_error": Spec(sm.MSLE),
    "root_mean_squared_log_error": Spec(sm.RMSLE),
    "mean_absolute_percentage_error": Spec(sm.MAPE),
    "max_error": Spec(sm.MaxError, weight=None),
    "r2_score": Spec(sm.R2),
    "explained_variance_score": Spec(sm.ExplainedVariance),
    # clustering, external
    "adjusted_rand_score": Spec(sm.AdjustedRandIndex, roles=("labels_true", "labels_pred"), weight=None),
    "rand_score": Spec(sm.RandIndex, roles=("labels_true", "labels_pred"), weight=None),
    "mutual_info_score": Spec(sm.MutualInfo, roles=("labels_true", "labels_pred"), weight=None),
    "normalized_mutual_info_score": Spec(
        sm.NormalizedMutualInfo, roles=("labels_true", "labels_pred"), weight=None
    ),
    "adjusted_mutual_info_score": Spec(
        sm.AdjustedMutualInfo, roles=("labels_true", "labels_pred"), weight=None
    ),
    "homogeneity_score": Spec(sm.Homogeneity, roles=("labels_true", "labels_pred"), weight=None),
    "completeness_score": Spec(sm.Completeness, roles=("labels_true", "labels_pred"), weight=None),
    "v_measure_score": Spec(sm.VMeasure, roles=("labels_true", "labels_pred"), weight=None),
    "homogeneity_completeness_v_measure": Spec(
        sm.VMeasure,
        roles=("labels_true", "labels_pred"),
        weight=None,
        result=_tuple_of(sm.Homogeneity, sm.Completeness, sm.VMeasure),
    ),
    "fowlkes_mallows_score": Spec(
        sm.FowlkesMallowsIndex, roles=("labels_true", "labels_pred"), weight=None, ignore=("sparse",)
    ),
    # clustering, internal (the sample holds every row: exact)
    "calinski_harabasz_score": Spec(sm.CalinskiHarabasz, roles=("X", "labels"), weight=None),
    "davies_bouldin_score": Spec(
        sm.DaviesBouldin, roles=("X", "labels"), weight=None, fixed={"sample_size": _everything}
    ),
    # scikit-learn's sample_size subsamples at random: not ours (a bounded mergeable sample)
    "silhouette_score": Spec(
        sm.Silhouette,
        roles=("X", "labels"),
        weight=None,
        fixed={"sample_size": _everything},
        rename={"sample_size": "subsample_size"},
    ),
}

#: scikit-learn's functions by name, as imported before any patching.
ORIGINALS: dict[str, Callable[..., Any]] = {name: getattr(sklearn.metrics, name) for name in SPECS}
#: The shim of each covered function.
SHIMS: dict[str, Callable[..., Any]] = {name: _make_shim(name, spec) for name, spec in SPECS.items()}
