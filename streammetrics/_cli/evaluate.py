"""The engine of ``streammetrics evaluate``: metrics per task, chunked updates, groups, reports.

Metrics are fed by *role*: the second argument of their ``update`` is either predicted labels
(``y_pred``, ``labels_pred``), scores (``y_score``: ranking metrics) or probabilities
(``y_proba``: log loss, Brier, calibration). One :class:`~streammetrics.MetricCollection` per
role holds the requested metrics; :class:`Evaluator` updates them from each chunk's columns.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.metric import Metric
from .._core.registry import registered_types
from ..errors import InputError
from ..streaming.collection import MetricCollection

TASKS = ("binary", "multiclass", "multilabel", "regression", "clustering")

#: the most classes whose one-vs-rest curves ``--plot`` draws (one line each)
MAX_CURVES = 10


class EvaluateError(Exception):
    """A user error of ``evaluate`` (one line)."""


# ----------------------------------------------------------------------------- metric names
ALIASES = {
    "auc": "ROCAUC",
    "roc_auc": "ROCAUC",
    "rocauc": "ROCAUC",
    "ap": "AveragePrecision",
    "pr_auc": "AveragePrecision",
    "brier": "BrierScore",
    "ece": "CalibrationError",
    "calibration": "CalibrationError",
    "cross_entropy": "LogLoss",
    "kappa": "CohenKappa",
    "ari": "AdjustedRandIndex",
    "ami": "AdjustedMutualInfo",
    "nmi": "NormalizedMutualInfo",
    "r2_score": "R2",
}

DEFAULTS: dict[str, dict[str, list[str]]] = {
    "binary": {
        "pred": ["Accuracy", "BalancedAccuracy", "Precision", "Recall", "F1", "MCC"],
        "score": ["ROCAUC", "AveragePrecision"],
        "proba": ["LogLoss", "BrierScore", "CalibrationError"],
    },
    "multiclass": {
        "pred": ["Accuracy", "BalancedAccuracy", "Precision", "Recall", "F1", "MCC", "CohenKappa"],
        "score": ["ROCAUC"],
        "proba": ["LogLoss", "BrierScore", "CalibrationError"],
    },
    "multilabel": {
        "pred": ["SubsetAccuracy", "HammingLoss", "Precision", "Recall", "F1", "Jaccard"],
        "score": ["ROCAUC", "AveragePrecision"],
        "proba": [],
    },
    "regression": {
        "pred": ["MAE", "MSE", "RMSE", "R2", "ExplainedVariance", "MaxError", "MeanError", "PearsonR"],
        "score": [],
        "proba": [],
    },
    "clustering": {
        "pred": [
            "AdjustedRandIndex",
            "AdjustedMutualInfo",
            "NormalizedMutualInfo",
            "Homogeneity",
            "Completeness",
            "VMeasure",
            "Purity",
            "FowlkesMallowsIndex",
        ],
        "score": [],
        "proba": [],
    },
}

#: metrics added for pictures (``--plot``) and the confusion-matrix table, per role
EXTRAS = {"pred": "ConfusionMatrix", "roc": "ROCCurve", "pr": "PRCurve", "calibration": "CalibrationError"}


def _norm(name: str) -> str:
    return name.replace("_", "").replace("-", "").replace(" ", "").lower()


def metric_class(name: str) -> type[Metric[Any]]:
    """The metric class named ``name`` (case-insensitive; ``_``/``-`` ignored; a few aliases).

    Examples:
        >>> metric_class("roc_auc").__name__, metric_class("f1").__name__, metric_class("AP").__name__
        ('ROCAUC', 'F1', 'AveragePrecision')
    """
    types = registered_types()
    key = ALIASES.get(name.strip().lower(), name)
    wanted = _norm(key)
    for type_name, cls in types.items():
        if _norm(type_name) == wanted and cls is not MetricCollection and not inspect.isabstract(cls):
            return cls
    raise EvaluateError(f"--metrics: unknown metric {name!r}; names are class names such as f1, roc_auc, mae")


def role_of(cls: type[Metric[Any]]) -> str:
    """``"pred"``, ``"score"``, ``"proba"`` or ``"features"``: what ``update``'s second argument is."""
    params = [
        p.name
        for p in inspect.signature(cls._validate).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]
    second = params[1] if len(params) > 1 else ""
    return {"y_pred": "pred", "labels_pred": "pred", "y_score": "score", "y_proba": "proba"}.get(
        second, "features" if params and params[0] == "X" else "other"
    )


def _accepted(cls: type) -> set[str]:
    """Keyword arguments the constructor accepts (every option is a named parameter)."""
    params = inspect.signature(cls).parameters.values()
    return {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}


def _snake(name: str) -> str:
    import re

    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


# ----------------------------------------------------------------------------- the setup
@dataclass
class Setup:
    """What to evaluate: the task, the columns of each role, and the options."""

    task: str
    y_true: list[str]
    y_pred: list[str] = field(default_factory=list)
    y_score: list[str] = field(default_factory=list)
    weight: str | None = None
    by: str | None = None
    metrics: list[str] | None = None
    threshold: float = 0.5
    pos_label: Any = 1
    #: binary: [negative, positive] from --labels; multiclass: the class of each score column
    labels: list[Any] | None = None
    labels_given: bool = False  # --labels was passed (else multiclass labels come from column names)
    input: str = "probability"  # what the score columns hold: "probability" or "score"
    plots: bool = False
    #: per label column, "int" or "str" as first read: a later chunk must read alike
    label_kinds: dict[str, str] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        cols = [*self.y_true, *self.y_pred, *self.y_score]
        cols += [c for c in (self.weight, self.by) if c]
        return list(dict.fromkeys(cols))


def _kwargs(cls: type, setup: Setup, role: str) -> dict[str, Any]:
    accepted = _accepted(cls)
    kw: dict[str, Any] = {}
    thresholded = role == "pred" and not setup.y_pred
    if setup.task == "binary":
        # one positive label for every metric: the class whose probability --y-score holds
        if "pos_label" in accepted:
            kw["pos_label"] = setup.pos_label
        if setup.labels is not None and "labels" in accepted:
            kw["labels"] = setup.labels
    if "input" in accepted and (role in ("score", "proba") or thresholded):
        kw["input"] = setup.input
    if setup.task == "multiclass":
        if "average" in accepted and role == "pred" and getattr(cls, "whole_matrix", None) is None:
            kw["average"] = "macro"  # only where average="binary" has no multiclass meaning
        if setup.labels is not None and role in ("score", "proba") and "labels" in accepted:
            kw["labels"] = setup.labels
        if role == "pred" and setup.labels is not None and (thresholded or setup.labels_given):
            kw["labels"] = setup.labels
    if setup.task == "multilabel" and "average" in accepted and role == "pred":
        if not getattr(cls, "multilabel_binary", False):
            kw["average"] = "micro"
    if setup.task == "binary" and role == "pred" and not setup.y_pred and "threshold" in accepted:
        kw["threshold"] = setup.threshold
    if setup.task == "multilabel" and role == "pred" and not setup.y_pred and "threshold" in accepted:
        kw["threshold"] = setup.threshold
    return kw


def build(setup: Setup) -> dict[str, MetricCollection]:
    """One collection per role (``pred``, ``score``, ``proba``) holding the metrics asked for."""
    has = {
        "pred": bool(setup.y_pred)
        or (setup.task in ("binary", "multilabel", "multiclass") and bool(setup.y_score)),
        "score": bool(setup.y_score),
        "proba": bool(setup.y_score) and setup.task in ("binary", "multiclass"),
    }
    if setup.metrics is None:
        names = [n for role, ns in DEFAULTS[setup.task].items() if has[role] for n in ns]
    else:
        names = setup.metrics
    members: dict[str, dict[str, Metric[Any]]] = {"pred": {}, "score": {}, "proba": {}}
    for name in names:
        cls = metric_class(name)
        role = role_of(cls)
        if role not in members:
            raise EvaluateError(
                f"--metrics: {cls.__name__} needs {'feature vectors X' if role == 'features' else 'other inputs'}, "
                "which evaluate does not read"
            )
        if not has[role]:
            need = {"pred": "--y-pred", "score": "--y-score", "proba": "--y-score (probabilities)"}[role]
            raise EvaluateError(f"--metrics: {cls.__name__} needs {need} for --task {setup.task}")
        metric = _make(cls, setup, role)
        kw = _kwargs(cls, setup, role)
        suffix = f"_{kw['average']}" if "average" in kw else ""
        members[role][_snake(cls.__name__) + suffix] = metric
    if setup.task in ("binary", "multiclass") and has["pred"]:
        cls = metric_class("ConfusionMatrix")
        try:
            members["pred"].setdefault("confusion_matrix", _make(cls, setup, "pred"))
        except EvaluateError:
            if members["pred"]:  # a requested label metric was built alike: cannot fail here
                raise
            # only score metrics were asked for: no matrix when scores cannot become labels
    if setup.plots and setup.task == "binary" and has["score"]:
        for extra, role in (("roc_curve", "score"), ("pr_curve", "score")):
            cls = metric_class(EXTRAS[extra.split("_")[0]])
            members[role].setdefault(extra, _make(cls, setup, role))
    if setup.plots and has["proba"] and "calibration_error" not in members["proba"]:
        cls = metric_class("CalibrationError")
        members["proba"]["calibration_error"] = _make(cls, setup, "proba", n_bins=10)
    if not any(members.values()):
        raise EvaluateError("--metrics: no metric to compute")
    return {role: MetricCollection(ms) for role, ms in members.items() if ms}


def _make(cls: type[Metric[Any]], setup: Setup, role: str, **extra: Any) -> Metric[Any]:
    """``cls`` configured for ``setup``; a refused configuration is one line naming the options."""
    try:
        return cls(**_kwargs(cls, setup, role), **extra)
    except (ValueError, TypeError) as err:
        if "negative label" in str(err) or "labels=[negative, positive]" in str(err):
            raise EvaluateError(
                f"--pos-label: to turn --y-score into labels with --threshold, name the negative label "
                f"too: pass --labels NEGATIVE,{setup.pos_label} (found --pos-label {setup.pos_label!r} "
                "without --labels)"
            ) from None
        raise EvaluateError(f"--metrics: {cls.__name__}: {err}") from None


# ----------------------------------------------------------------------------- arrays
def _cell(series: Any, where: np.ndarray) -> tuple[int, Any]:
    """The data row (counted from 1 after the header) and value of the first cell flagged."""
    i = int(np.flatnonzero(where)[0])
    return int(series.index[i]) + 1, series.iloc[i]


def _line_break(value: Any) -> str:
    if isinstance(value, str) and ("\n" in value or "\r" in value):
        return " (it holds a line break: a quoted newline inside the cell, or a quote never closed)"
    return ""


def _labels(series: Any, column: str, task: str, option: str) -> np.ndarray:
    """Class labels from a column: integers stay integers (also when read as floats)."""
    values = series.to_numpy()
    if values.dtype.kind == "f":
        fractional = ~np.isfinite(values) | (values != np.round(values))
        if fractional.any():
            row, example = _cell(series, fractional)
            raise EvaluateError(
                f"--task {task}: column {column!r} ({option}) holds non-integer numbers such as "
                f"{example:g} (row {row}), not class labels; use --task regression"
            )
        return values.astype(np.int64)
    if values.dtype.kind == "b":
        return values.astype(np.int64)
    if values.dtype.kind == "O":
        broken = np.array([bool(_line_break(v)) for v in values], dtype=bool)
        if broken.any():
            row, example = _cell(series, broken)
            raise EvaluateError(
                f"--task {task}: column {column!r} ({option}), row {row}: the label {example!r} is not "
                "one value" + _line_break(example)
            )
        return values.astype(str)
    return values


def _consistent(
    labels: np.ndarray, series: Any, column: str, option: str, kinds: dict[str, str]
) -> np.ndarray:
    """Labels of one column read alike in every chunk (pandas types each chunk on its own):
    text after integers is refused naming the cell; integers after text become text."""
    kind = "str" if labels.dtype.kind in "OUS" else "int"
    first = kinds.setdefault(column, kind)
    if first == kind or len(labels) == 0:
        return labels
    if first == "str":
        return labels.astype(str)
    numeric = np.array([_is_integer(v) for v in series.to_numpy()], dtype=bool)
    row, example = _cell(series, ~numeric)
    raise EvaluateError(
        f"column {column!r} ({option}), row {row}: the label {example!r} is text, but the rows "
        "before hold integer labels"
    )


def _is_integer(value: Any) -> bool:
    try:
        return float(value).is_integer()
    except (TypeError, ValueError):
        return False


def _numbers(df: Any, cols: list[str], task: str, what: str) -> np.ndarray:
    import pandas as pd

    out = []
    for c in cols:
        s = df[c]
        if s.dtype.kind in "fiub" or len(s) == 0:
            out.append(s.to_numpy(dtype=np.float64))
            continue
        numbers = pd.to_numeric(s, errors="coerce")
        bad = (numbers.isna() & s.notna()).to_numpy() | np.array(
            [bool(_line_break(v)) for v in s], dtype=bool
        )
        if bad.any() or numbers.dtype.kind not in "fiu":
            row, example = _cell(s, bad) if bad.any() else (int(s.index[0]) + 1, s.iloc[0])
            raise EvaluateError(
                f"--task {task}: column {c!r} ({what}), row {row}: {example!r} is not a number"
                + _line_break(example)
                + ("; use --task binary, multiclass or clustering for labels" if task == "regression" else "")
            )
        out.append(numbers.to_numpy(dtype=np.float64))
    return out[0] if len(out) == 1 else np.stack(out, axis=1)


@dataclass
class Inputs:
    y_true: np.ndarray
    pred: np.ndarray | None
    score: np.ndarray | None
    weight: np.ndarray | None


def arrays(df: Any, setup: Setup) -> tuple[Inputs, int]:
    """The arrays of one chunk, and the number of rows dropped for missing values."""
    cols = [c for c in setup.columns if c != setup.by]
    before = len(df)
    df = df.dropna(subset=cols)
    dropped = before - len(df)
    task = setup.task
    if task == "regression":
        y_true = _numbers(df, setup.y_true, task, "--y-true")
        pred = _numbers(df, setup.y_pred, task, "--y-pred")
    else:

        def labels(c: str, option: str) -> np.ndarray:
            return _consistent(_labels(df[c], c, task, option), df[c], c, option, setup.label_kinds)

        if task == "multilabel":
            y_true = np.stack([labels(c, "--y-true") for c in setup.y_true], axis=1)
            pred = np.stack([labels(c, "--y-pred") for c in setup.y_pred], axis=1) if setup.y_pred else None
        else:
            y_true = labels(setup.y_true[0], "--y-true")
            pred = labels(setup.y_pred[0], "--y-pred") if setup.y_pred else None
    score = _numbers(df, setup.y_score, task, "--y-score") if setup.y_score else None
    weight = _numbers(df, [setup.weight], task, "--weight") if setup.weight else None
    return Inputs(y_true, pred, score, weight), dropped


# ----------------------------------------------------------------------------- the evaluator
class Evaluator:
    """The role collections of one slice of the data (the whole file, or one ``--by`` group)."""

    def __init__(self, setup: Setup, collections: dict[str, MetricCollection], curves: bool = False) -> None:
        self.setup = setup
        self.collections = {role: c.empty_like() for role, c in collections.items()}
        self.rows = 0
        self.classes: set[Any] = set()
        #: multiclass pictures: one-vs-rest (ROCCurve, PRCurve) per score column, by class
        self.curves: dict[Any, tuple[Metric[Any], Metric[Any]]] = {}
        if curves and setup.plots and setup.task == "multiclass" and setup.labels and setup.y_score:
            if len(setup.labels) <= MAX_CURVES:
                roc, pr = metric_class("ROCCurve"), metric_class("PRCurve")
                for label in setup.labels:
                    self.curves[label] = (roc(input=setup.input), pr(input=setup.input))

    def update(self, x: Inputs, where: str) -> None:
        s = self.setup
        if s.task == "binary":
            self._check_binary(x)
        for role, coll in self.collections.items():
            second = x.pred if role == "pred" and x.pred is not None else x.score
            if role == "proba" and s.task == "multiclass" and x.score is not None and x.score.ndim == 1:
                continue
            try:
                coll.update(x.y_true, second, sample_weight=x.weight)
            except InputError as err:
                raise EvaluateError(f"{where}: {err}{_hint(s, str(err))}") from None
        if self.curves and x.score is not None:
            for i, (label, pair) in enumerate(self.curves.items()):
                truth = (x.y_true == label).astype(np.int64)  # one class against the rest
                for curve in pair:
                    try:
                        curve.update(truth, x.score[:, i], sample_weight=x.weight)
                    except InputError as err:
                        raise EvaluateError(f"{where}: {err}{_hint(s, str(err))}") from None
        self.rows += len(x.y_true)

    def _check_binary(self, x: Inputs) -> None:
        """The labels of a binary task: two at most, within ``--labels``, holding ``--pos-label``."""
        s = self.setup
        for option, cols, values in (("--y-true", s.y_true, x.y_true), ("--y-pred", s.y_pred, x.pred)):
            if values is None:
                continue
            found = np.unique(values).tolist()
            if s.labels is not None:
                bad = [v for v in found if v not in s.labels]
                if bad:
                    raise EvaluateError(
                        f"--labels: column {cols[0]!r} ({option}) holds {bad[0]!r}, which is not one of "
                        f"--labels {','.join(map(str, s.labels))}"
                    )
            seen = self.classes | set(found)
            if len(seen) > 2:
                shown = sorted(seen, key=str)[:6]
                raise EvaluateError(
                    f"--task binary: column {cols[0]!r} ({option}) makes more than two classes "
                    f"({', '.join(map(str, shown))}); use --task multiclass"
                )
            self.classes = seen
        if s.labels is not None:
            return
        shown = ", ".join(map(repr, sorted(self.classes, key=str)))
        if s.pos_label not in self.classes and (
            len(self.classes) == 2 or any(isinstance(c, str) for c in self.classes)
        ):
            raise EvaluateError(
                f"--pos-label: the labels are {shown}, without the positive label {s.pos_label!r}; "
                "pass --pos-label with the class whose probability --y-score holds"
                + (" and --labels NEGATIVE,POSITIVE" if s.y_score and not s.y_pred else "")
            )
        if s.y_score and not s.y_pred and "pred" in self.collections and s.pos_label in (0, 1):
            negative = 1 - int(s.pos_label)  # another pos_label needs --labels to threshold (_make)
            if self.classes - {0, 1}:
                raise EvaluateError(
                    f"--labels: --threshold turns --y-score into the labels {negative} and "
                    f"{s.pos_label!r}, but the labels are {shown}; pass --labels NEGATIVE,POSITIVE"
                )

    def values(self) -> tuple[dict[str, Any], list[str]]:
        """Scalar values by name (curves and the matrix left out), and the warnings raised."""
        out: dict[str, Any] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for coll in self.collections.values():
                for name, metric in coll.items():
                    if name in ("confusion_matrix", "roc_curve", "pr_curve"):
                        continue
                    if self.setup.plots and name == "calibration_error" and name not in self._asked():
                        continue
                    try:
                        value = metric.compute()
                    except (ValueError, TypeError, ArithmeticError) as err:  # a refusal: one line
                        raise EvaluateError(f"{name}: {err}") from None
                    if hasattr(value, "value") and hasattr(value, "low"):  # an estimate with bounds
                        value = value.value
                    out[name] = _scalar(value)
        seen: list[str] = []
        for w in caught:
            line = f"{w.category.__name__}: {w.message}"
            if line not in seen:
                seen.append(line)
        return out, seen

    def _asked(self) -> set[str]:
        if self.setup.metrics is None:
            return {_snake(n) for ns in DEFAULTS[self.setup.task].values() for n in ns}
        return {_snake(metric_class(n).__name__) for n in self.setup.metrics} | {
            name for c in self.collections.values() for name in c if name.startswith("calibration_error_")
        }

    def member(self, name: str) -> Metric[Any] | None:
        for coll in self.collections.values():
            if name in coll:
                return coll[name]
        return None

    def confusion(self) -> tuple[list[Any], np.ndarray] | None:
        cm = self.member("confusion_matrix")
        if cm is None or cm.n_samples == 0:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matrix = np.asarray(cm.compute())
        if matrix.ndim != 2:  # no weight seen (every row had weight 0): no matrix
            return None
        return list(cm.classes), matrix  # type: ignore[attr-defined]

    def collection(self) -> MetricCollection:
        """One collection holding every role's collection (what ``--save-state`` writes)."""
        top = MetricCollection({role: c.empty_like() for role, c in self.collections.items()})
        for role, coll in self.collections.items():
            top.state.states[role].merge(coll.state)
        return top


def _scalar(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return float(value)
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def _hint(setup: Setup, message: str) -> str:
    if "probabilit" in message and setup.input == "probability" and setup.task in ("binary", "multiclass"):
        if "input='score'" in message:
            return " (on the command line: --input score)"
        return " (--y-score must hold probabilities in [0, 1]; pass --input score for logits or other scores)"
    if "at most 2 labels" in message and setup.task == "binary":
        return " (use --task multiclass?)"
    if "multiclass" in message and setup.task != "multiclass":
        return " (use --task multiclass?)"
    return ""


# ----------------------------------------------------------------------------- columns
def expand_columns(spec: str | None, existing: list[str], option: str) -> list[str]:
    """Columns named by ``spec``: ``"a,b,c"`` (in that order), or ``"prefix*"`` (every column
    starting with ``prefix``, in file order). Missing columns raise one line listing those present.

    Examples:
        >>> expand_columns("p_*", ["y", "p_cat", "p_dog"], "--y-score")
        ['p_cat', 'p_dog']
        >>> expand_columns("y", ["y", "p"], "--y-true")
        ['y']
    """
    if not spec:
        return []
    cols: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        if part.endswith("*"):
            found = [c for c in existing if c.startswith(part[:-1])]
            if not found:
                raise EvaluateError(
                    f"{option}: no column starts with {part[:-1]!r}; the columns are {column_listing(existing)}"
                )
            cols += found
        else:
            cols.append(part)
    missing = [c for c in cols if c not in existing]
    if missing:
        what = "column" if len(missing) == 1 else "columns"
        raise EvaluateError(
            f"{option}: no {what} {', '.join(map(repr, missing))}; the columns are {column_listing(existing)}"
        )
    return cols


def column_listing(columns: list[str], limit: int = 20) -> str:
    """Column names for a message: all of them, or the first ``limit`` and how many there are."""
    if len(columns) <= limit:
        return ", ".join(columns)
    return ", ".join(columns[:limit]) + f", ... ({len(columns):,} columns)"


def class_names(columns: list[str]) -> list[Any]:
    """Class labels of score columns: the names without their common prefix (ints when numeric).

    Examples:
        >>> class_names(["p_cat", "p_cow"]), class_names(["proba_0", "proba_1", "proba_2"])
        (['cat', 'cow'], [0, 1, 2])
    """
    prefix = ""
    if len(columns) > 1:
        shortest = min(columns, key=len)
        length = next((i for i, ch in enumerate(shortest) if any(c[i] != ch for c in columns)), len(shortest))
        prefix = shortest[:length]
    prefix = prefix[: max((prefix.rfind(ch) + 1 for ch in "_-.:/ "), default=0)]
    names = [c[len(prefix) :] or c for c in columns]
    if all(n.lstrip("-").isdigit() for n in names):
        return [int(n) for n in names]
    return names
