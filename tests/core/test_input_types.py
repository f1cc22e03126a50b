"""Every container and dtype API.md promises, per input role, against a plain NumPy twin.

One table: containers (lists, NumPy, pandas with NumPy, nullable and Arrow dtypes, Arrow arrays,
chunked arrays, list columns and tables, CPU torch tensors) x dtypes x roles (labels, scores,
probabilities, weights, regression values, clustering labels, features). Each cell is either
accepted, and then gives the same state and value as the same data as a NumPy array (and
scikit-learn's value on that array), or refused with :class:`~streammetrics.InputError` naming
the argument, the state left byte-identical. Missing values (None, NaN, NA, nulls, masked
entries) are refused in every container.
"""

from __future__ import annotations

import functools
import importlib
import math
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from tests.helpers import assert_same


def _need(module: str) -> Any:
    """Import a test dependency; in CI (``CI=true``) its absence fails instead of skipping."""
    if os.environ.get("CI") == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)


pd = _need("pandas")
pa = _need("pyarrow")
torch = _need("torch")

N = 24

NUMPY_DTYPES = [
    "bool",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "str",
]
#: Float types NumPy lacks: their NumPy twin is the float32 array of the same (exact) values.
TORCH_ONLY = ["bfloat16", "float8_e4m3fn", "float8_e5m2"]
DTYPES = NUMPY_DTYPES + TORCH_ONLY


def kind(dtype: str) -> str:
    return "U" if dtype == "str" else "f" if dtype in TORCH_ONLY else np.dtype(dtype).kind


# ---------------------------------------------------------------------------------------- roles
# A role draws its raw values for a dtype kind (the same draw for every container); the NumPy
# twin is that draw cast to the dtype.
PROBABILITIES = np.arange(1, 8) / 8  # exact in every float type, float8 included
PROBABILITY_ROWS = np.array(  # rows summing to exactly 1 in every float type
    [[0.5, 0.25, 0.25], [0.125, 0.375, 0.5], [0.625, 0.25, 0.125], [0.75, 0.125, 0.125]]
)


def _rng(role: str, k: str) -> np.random.Generator:
    return np.random.default_rng([sum(map(ord, role)), ord(k)])


def _labels(k: str, n_classes: int, role: str) -> np.ndarray:
    codes = np.arange(N) % n_classes  # every class present
    codes = _rng(role, k).permutation(codes)
    return codes.astype(str) if k == "U" else codes


def raw_values(role: str, k: str) -> np.ndarray:
    rng = _rng(role, k)
    if role in ("labels", "binary_labels"):
        return _labels(k, 2, role)
    if role == "cluster_labels":
        return np.char.add("c", _labels("U", 3, role)) if k == "U" else _labels(k, 2 if k == "b" else 3, role)
    if role == "multiclass_labels":
        return _labels(k, 3, role)
    if role in ("scores", "probabilities"):
        if k in "fU":
            return rng.choice(PROBABILITIES, N)
        return rng.integers(0, 2, N)
    if role == "probability_rows":
        if k in "fU":
            return PROBABILITY_ROWS[rng.integers(0, len(PROBABILITY_ROWS), N)]
        return np.eye(3, dtype=np.int64)[rng.permutation(np.arange(N) % 3)]
    if role == "weights":
        if k in "fU":
            return rng.integers(0, 13, N) / 4
        return rng.integers(0, 2 if k == "b" else 5, N)
    if role in ("regression", "regression_2d"):
        shape = (N, 2) if role == "regression_2d" else (N,)
        if k in "fU":
            return rng.integers(0, 33, shape) / 4
        return rng.integers(0, 2 if k == "b" else 101, shape)
    if role == "features":
        if k in "fU":
            return rng.integers(0, 17, (N, 2)) / 4
        return rng.integers(0, 2 if k == "b" else 10, (N, 2))
    raise AssertionError(role)


def twin(role: str, dtype: str) -> np.ndarray:
    """The plain NumPy array of the data a container of ``dtype`` holds."""
    raw = raw_values(role, kind(dtype))
    if dtype == "str":
        return raw.astype(str)
    if dtype in TORCH_ONLY:
        return torch.from_numpy(raw.astype(np.float32)).to(getattr(torch, dtype)).float().numpy()
    return raw.astype(dtype)


# ----------------------------------------------------------------------------------- containers
_NULLABLE = {"bool": "boolean", "float32": "Float32", "float64": "Float64", "str": "string"}
_NULLABLE.update({t: t.replace("u", "U").replace("i", "I") for t in NUMPY_DTYPES if "int" in t})


def _arrow(arr: np.ndarray) -> Any:
    return pa.array(arr.tolist(), pa.string()) if arr.dtype.kind == "U" else pa.array(arr)


def _fixed_lists(arr: np.ndarray) -> Any:
    return pa.FixedSizeListArray.from_arrays(_arrow(arr.ravel()), arr.shape[1])


def _arrow_dtype(dtype: str) -> Any:
    return pd.ArrowDtype(pa.string() if dtype == "str" else pa.from_numpy_dtype(np.dtype(dtype)))


def _torch(arr: np.ndarray, dtype: str, grad: bool = False) -> Any:
    if dtype == "str" or (grad and kind(dtype) != "f"):
        return None
    t = torch.from_numpy(arr.copy())
    if dtype in TORCH_ONLY:
        t = t.to(getattr(torch, dtype))
    return t.requires_grad_(True) if grad else t


def _readonly(arr: np.ndarray) -> np.ndarray:
    out = arr.copy()
    out.flags.writeable = False
    return out


# Each container maps (NumPy twin, dtype name) to the container, or None where it has no such
# dtype. Torch-only dtypes exist in torch containers only.
CONTAINERS: dict[str, Callable[[np.ndarray, str], Any]] = {
    "list": lambda a, d: a.tolist(),
    "numpy": lambda a, d: a,
    "numpy-readonly": lambda a, d: _readonly(a),
    "numpy-strided": lambda a, d: np.repeat(a, 2, axis=0)[::2],
    "pandas": lambda a, d: pd.DataFrame(a) if a.ndim == 2 else pd.Series(a),
    "pandas-nullable": lambda a, d: (
        None
        if d not in _NULLABLE
        else pd.DataFrame(a).astype(_NULLABLE[d])
        if a.ndim == 2
        else pd.Series(a, dtype=_NULLABLE[d])
    ),
    "pandas-arrow": lambda a, d: (
        pd.DataFrame(a).astype(_arrow_dtype(d)) if a.ndim == 2 else pd.Series(a, dtype=_arrow_dtype(d))
    ),
    "arrow": lambda a, d: _fixed_lists(a) if a.ndim == 2 else _arrow(a),
    "arrow-chunked": lambda a, d: pa.chunked_array(
        [_fixed_lists(a[:5]), _fixed_lists(a[5:])] if a.ndim == 2 else [_arrow(a[:5]), _arrow(a[5:])]
    ),
    "arrow-lists": lambda a, d: pa.array(a.tolist()) if a.ndim == 2 else None,
    "arrow-table": lambda a, d: (
        pa.table({f"c{j}": _arrow(np.ascontiguousarray(a[:, j])) for j in range(a.shape[1])})
        if a.ndim == 2
        else None
    ),
    "torch": lambda a, d: _torch(a, d),
    "torch-grad": lambda a, d: _torch(a, d, grad=True),
}


def make_container(name: str, arr: np.ndarray, dtype: str) -> Any:
    if dtype in TORCH_ONLY and not name.startswith("torch"):
        return None
    return CONTAINERS[name](arr, dtype)


# ---------------------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    """A metric with its arguments; ``varied`` arguments take the container, the rest NumPy."""

    name: str
    factory: Callable[[], sm.Metric]
    roles: tuple[str, ...]  # one per argument (the last may be "weights": sample_weight)
    varied: tuple[int, ...]
    reference: Callable[..., float]  # scikit-learn on the NumPy arguments
    refused: frozenset[str] = frozenset({"str"})  # dtypes refused in the varied arguments

    def names(self) -> tuple[str, ...]:
        """The arguments' names, as error messages give them."""
        first, second = ARGUMENT_NAMES[self.name.split("-")[0]]
        return (first, second, "sample_weight")[: len(self.roles)]

    def arguments(self, dtype: str) -> list[np.ndarray]:
        """The NumPy arguments: the varied ones of ``dtype``, the others in their own dtype."""
        own = {"features": "float64", "probability_rows": "float64"}
        return [
            twin(role, dtype if i in self.varied else own.get(role, "float64" if "regr" in role else "int64"))
            for i, role in enumerate(self.roles)
        ]


def _update(metric: sm.Metric, case: Case, args: list[Any]) -> sm.Metric:
    if case.roles[-1] == "weights":
        return metric.update(*args[:-1], sample_weight=args[-1])
    return metric.update(*args)


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _f1_at_half(y: np.ndarray, p: np.ndarray) -> float:
    return skm.f1_score(y, (p.astype(np.float64) >= 0.5).astype(np.int64), zero_division=0.0)


def _log_loss(y: np.ndarray, p: np.ndarray) -> float:
    return skm.log_loss(y, p.astype(np.float64), labels=[0, 1, 2] if p.ndim == 2 else [0, 1])


ARGUMENT_NAMES = {
    "accuracy": ("y_true", "y_pred"),
    "f1": ("y_true", "y_pred"),
    "rocauc": ("y_true", "y_score"),
    "logloss": ("y_true", "y_proba"),
    "mae": ("y_true", "y_pred"),
    "r2": ("y_true", "y_pred"),
    "ari": ("labels_true", "labels_pred"),
    "silhouette": ("X", "labels"),
}

CASES = [
    Case("accuracy", sm.Accuracy, ("labels", "labels"), (0, 1), skm.accuracy_score, frozenset()),
    Case(
        "accuracy-weights",
        sm.Accuracy,
        ("labels", "labels", "weights"),
        (2,),
        lambda y, p, w: skm.accuracy_score(y, p, sample_weight=w),
    ),
    Case("f1-true", lambda: sm.F1(threshold=0.5), ("binary_labels", "scores"), (0,), _f1_at_half),
    Case("f1-scores", lambda: sm.F1(threshold=0.5), ("binary_labels", "scores"), (1,), _f1_at_half),
    Case("rocauc-true", sm.ROCAUC, ("binary_labels", "scores"), (0,), skm.roc_auc_score),
    Case("rocauc-scores", sm.ROCAUC, ("binary_labels", "scores"), (1,), skm.roc_auc_score),
    Case(
        "rocauc-rows",
        sm.ROCAUC,
        ("multiclass_labels", "probability_rows"),
        (1,),
        lambda y, p: skm.roc_auc_score(y, p.astype(np.float64), multi_class="ovr"),
    ),
    Case(
        "rocauc-weights",
        sm.ROCAUC,
        ("binary_labels", "scores", "weights"),
        (2,),
        lambda y, p, w: skm.roc_auc_score(y, p, sample_weight=w),
    ),
    Case("logloss-true", sm.LogLoss, ("binary_labels", "probabilities"), (0,), _log_loss),
    Case("logloss-proba", sm.LogLoss, ("binary_labels", "probabilities"), (1,), _log_loss),
    Case("logloss-rows", sm.LogLoss, ("multiclass_labels", "probability_rows"), (1,), _log_loss),
    Case("mae", sm.MAE, ("regression", "regression"), (0, 1), skm.mean_absolute_error),
    Case(
        "mae-weights",
        sm.MAE,
        ("regression", "regression", "weights"),
        (2,),
        lambda y, p, w: skm.mean_absolute_error(y, p, sample_weight=w),
    ),
    Case("r2", sm.R2, ("regression", "regression"), (1,), skm.r2_score),
    Case("r2-2d", sm.R2, ("regression_2d", "regression_2d"), (0, 1), skm.r2_score),
    Case(
        "ari",
        sm.AdjustedRandIndex,
        ("cluster_labels", "cluster_labels"),
        (0, 1),
        skm.adjusted_rand_score,
        frozenset(),
    ),
    Case(
        "silhouette-X",
        sm.Silhouette,
        ("features", "cluster_labels"),
        (0,),
        lambda x, labels: skm.silhouette_score(x.astype(np.float64), labels),
    ),
    Case(
        "silhouette-labels",
        sm.Silhouette,
        ("features", "cluster_labels"),
        (1,),
        lambda x, labels: skm.silhouette_score(x, labels),
        frozenset(),
    ),
]


def _is_2d(case: Case) -> bool:
    return any(case.roles[i] in ("probability_rows", "regression_2d", "features") for i in case.varied)


def _has_dtype(container: str, dtype: str, two_d: bool) -> bool:
    if container in ("arrow-lists", "arrow-table") and not two_d:
        return False
    probe = np.zeros((N, 2) if two_d else N)
    probe = probe.astype(str if dtype == "str" else np.float32 if dtype in TORCH_ONLY else dtype)
    return make_container(container, probe, dtype) is not None


def _containers(case: Case, dtype: str) -> list[str]:
    return [name for name in CONTAINERS if _has_dtype(name, dtype, _is_2d(case))]


def _feed(case: Case, fed: list[Any]) -> sm.Metric:
    """A fresh metric given one batch (warnings of undefined values silenced)."""
    return _quiet(_update, case.factory(), case, fed)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def assert_refused(case: Case, fed: list[Any]) -> None:
    """InputError naming a varied argument; the state (holding one valid batch) unchanged."""
    metric = _feed(case, case.arguments("int64" if "labels" in case.roles[case.varied[0]] else "float64"))
    before = metric.to_bytes()
    with pytest.raises(sm.InputError) as info:
        _update(metric, case, fed)
    names = [case.names()[i] for i in case.varied]
    assert any(str(info.value).startswith(f"{name}:") for name in names), (names, str(info.value))
    assert metric.to_bytes() == before


def assert_accepted(case: Case, dtype: str, fed: list[Any]) -> None:
    """The state and value of the NumPy twin, and scikit-learn's value."""
    ours = _feed(case, fed)
    twin_bytes, twin_value, sklearn_value = _expected(case, dtype)
    assert ours.to_bytes() == twin_bytes
    value = _quiet(ours.compute)
    assert _same_value(value, twin_value), (value, twin_value)
    assert_same(value, sklearn_value, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_container_accepted_as_its_numpy_twin_or_refused(case: Case, dtype: str) -> None:
    """Every container holding ``dtype`` (one test per case and dtype: the table is ~3,000 cells)."""
    args = case.arguments(dtype)
    failures = []
    for container in _containers(case, dtype):
        fed = [make_container(container, a, dtype) if i in case.varied else a for i, a in enumerate(args)]
        try:
            if dtype in case.refused:
                assert_refused(case, fed)
            else:
                assert_accepted(case, dtype, fed)
        except (Exception, pytest.fail.Exception) as err:  # report every container, not the first
            failures.append(f"{container}: {type(err).__name__}: {err}")
    assert not failures, "\n".join(failures)


@functools.cache
def _expected(case: Case, dtype: str) -> tuple[bytes, Any, Any]:
    """The NumPy twin's state and value, and scikit-learn's value (shared by the containers)."""
    args = case.arguments(dtype)
    reference = _feed(case, args)
    return reference.to_bytes(), _quiet(reference.compute), _quiet(case.reference, *args)


# ------------------------------------------------------------------------------ missing values
def _hole(arr: np.ndarray) -> np.ndarray:
    """Where the missing value goes: row 1 (its first column in 2-D)."""
    mask = np.zeros(arr.shape, bool)
    mask[(1, 0) if arr.ndim == 2 else 1] = True
    return mask


def _with_none(arr: np.ndarray) -> np.ndarray:
    out = arr.astype(object)
    out[_hole(arr)] = None
    return out


def _with_nan(arr: np.ndarray) -> np.ndarray:
    out = arr.astype(np.float64)
    out[_hole(arr)] = np.nan
    return out


def _pandas(arr: np.ndarray, dtype: Any = None) -> Any:
    frame = pd.DataFrame(arr) if arr.ndim == 2 else pd.Series(arr)
    return frame if dtype is None else frame.astype(dtype)


def _arrow_null(arr: np.ndarray, holed: bool = True) -> Any:
    values = _with_none(arr) if holed else arr.astype(object)
    if arr.ndim == 2:  # a null inside a row's list
        return pa.FixedSizeListArray.from_arrays(pa.array(values.ravel().tolist()), arr.shape[1])
    return pa.array(values.tolist())


HOLED: dict[str, Callable[[np.ndarray], Any]] = {
    "list-None": lambda a: _with_none(a).tolist(),
    "numpy-nan": _with_nan,
    "numpy-object-None": _with_none,
    "numpy-masked": lambda a: np.ma.masked_array(a, mask=_hole(a)),
    "pandas-nan": lambda a: _pandas(_with_nan(a)),
    "pandas-object-None": lambda a: _pandas(_with_none(a)),
    "pandas-nullable-NA": lambda a: _pandas(a, _NULLABLE[a.dtype.name]).mask(_pandas(_hole(a))),
    "pandas-arrow-NA": lambda a: _pandas(a, _arrow_dtype(a.dtype.name)).mask(_pandas(_hole(a))),
    "arrow-null": _arrow_null,
    "arrow-chunked-null": lambda a: pa.chunked_array([_arrow_null(a[:5], holed=False), _arrow_null(a[5:])]),
    "arrow-null-row": lambda a: pa.array([None if i == 1 else row for i, row in enumerate(a.tolist())]),
    "torch-nan": lambda a: torch.from_numpy(_with_nan(a)),
}


@pytest.mark.parametrize("hole", HOLED)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_missing_values_refused_in_every_container(case: Case, hole: str) -> None:
    dtype = "float64" if case.refused else "int64"  # a dtype the case accepts
    args = case.arguments(dtype)
    fed = [HOLED[hole](a) if i in case.varied else a for i, a in enumerate(args)]
    assert_refused(case, fed)


def test_missing_string_labels_refused() -> None:
    labels = np.array(["a", "b"] * 4)
    for holed in (
        _with_none(labels).tolist(),
        pd.Series(_with_none(labels), dtype="string"),
        pd.Series(_with_none(labels), dtype=pd.ArrowDtype(pa.string())),
        pa.array(_with_none(labels).tolist()),
        pd.Series(pd.Categorical(_with_none(labels))),
    ):
        metric = sm.Accuracy().update(labels, labels)
        before = metric.to_bytes()
        with pytest.raises(sm.InputError, match=r"^y_pred: expected no missing values, found .* row 1$"):
            metric.update(labels, holed)
        assert metric.to_bytes() == before


# --------------------------------------------------------------------------------- wrong types
WRONG: dict[str, Callable[[np.ndarray], Any]] = {
    "torch-complex": lambda a: torch.from_numpy(a.astype(np.complex64)),
    "torch-sparse": lambda a: torch.from_numpy(a.astype(np.float32)).to_sparse(),
    "torch-meta": lambda a: torch.empty(a.shape, device="meta"),
    "arrow-timestamps": lambda a: (
        pa.array(np.arange(a.size).reshape(a.shape).astype("datetime64[s]").ravel())
        if a.ndim == 1
        else pa.table({"t": pa.array(np.arange(len(a)).astype("datetime64[s]"))})
    ),
    "pandas-datetimes": lambda a: _pandas(np.arange(a.size).reshape(a.shape).astype("datetime64[s]")),
    "bytes": lambda a: a.astype(str).astype(bytes),
    "ragged-lists": lambda a: [[0.5, 0.5], [1.0]] + [[0.5, 0.5]] * (len(a) - 2),
    "arrow-ragged-lists": lambda a: pa.array([[0.5, 0.5], [1.0]] + [[0.5, 0.5]] * (len(a) - 2)),
    "dict": lambda a: {"values": a.tolist()},
}


@pytest.mark.parametrize("wrong", WRONG)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_unusable_types_refused(case: Case, wrong: str) -> None:
    args = case.arguments("float64" if case.refused else "int64")
    fed = [WRONG[wrong](a) if i in case.varied else a for i, a in enumerate(args)]
    assert_refused(case, fed)


def test_no_copy_of_numpy_and_cpu_tensors() -> None:
    """The hot path: a float64 NumPy array, or a float64 CPU tensor, is used in place."""
    from streammetrics._core import validation as v

    arr = np.linspace(0.0, 1.0, 5)
    assert v.as_float(arr, "y") is arr
    tensor = torch.from_numpy(arr)
    assert np.shares_memory(v.as_float(tensor, "y"), arr)
    labels = np.arange(5)
    assert v.as_labels(labels, "y") is labels
