"""``streammetrics evaluate``: the run (read, update, group) and its report (text or JSON)."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..keyed import Sliced
from ..streaming.collection import MetricCollection
from .evaluate import (
    MAX_CURVES,
    EvaluateError,
    Evaluator,
    Inputs,
    Setup,
    arrays,
    build,
    class_names,
    column_listing,
    expand_columns,
)
from .readers import Table

MAX_GROUPS = 1000


@dataclass
class Result:
    path: str
    setup: Setup
    overall: Evaluator
    groups: dict[Any, Evaluator]
    skipped: int
    seconds: float
    plots: list[str] = field(default_factory=list)
    plots_skipped: list[str] = field(default_factory=list)
    saved: str | None = None


def _label(text: str) -> Any:
    """A label given on the command line, as the columns hold it: integers (also ``2.0``) become
    ints, ``true``/``false`` become 1/0 (boolean columns are read as 0/1), anything else stays text.

    Examples:
        >>> [_label(t) for t in ("2", "-1", "2.0", "True", "cat", " b ")]
        [2, -1, 2, 1, 'cat', 'b']
    """
    text = text.strip()
    if text.lower() in ("true", "false"):
        return int(text.lower() == "true")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() else text


def _label_options(args: Any, task: str, y_score: list[str]) -> tuple[Any, list[Any] | None]:
    """``(pos_label, labels)`` from ``--pos-label`` and ``--labels``, checked against the task."""
    labels = None
    if args.labels is not None:
        labels = [_label(part) for part in args.labels.split(",")]
        if task not in ("binary", "multiclass"):
            raise EvaluateError(
                f"--labels: only --task binary or multiclass takes labels, found --task {task}"
            )
        if any(lab == "" for lab in labels):
            raise EvaluateError(
                f"--labels: expected comma-separated labels, found an empty one in {args.labels!r}"
            )
        if len(set(map(repr, labels))) != len(labels):
            raise EvaluateError(f"--labels: expected distinct labels, found {args.labels!r}")
        if task == "binary" and len(labels) != 2:
            raise EvaluateError(
                f"--labels: --task binary takes two labels NEGATIVE,POSITIVE, found {len(labels)} ({args.labels!r})"
            )
        if task == "multiclass" and y_score and len(labels) != len(y_score):
            raise EvaluateError(
                f"--labels: expected one label per --y-score column ({len(y_score)}), found {len(labels)}"
            )
        if task == "multiclass" and not y_score and len(labels) < 2:
            raise EvaluateError(f"--labels: expected at least two labels, found {args.labels!r}")
    if args.pos_label is not None and task != "binary":
        raise EvaluateError(f"--pos-label: only --task binary has a positive label, found --task {task}")
    if task != "binary":
        return 1, labels
    if args.pos_label is None:
        pos_label = labels[-1] if labels is not None else 1
    else:
        pos_label = _label(args.pos_label)
        if labels is not None and pos_label not in labels:
            raise EvaluateError(f"--pos-label: {pos_label!r} is not one of --labels {args.labels!r}")
    return pos_label, labels


def setup_from(args: Any, existing: list[str]) -> Setup:
    """Check the column options against the file's columns and the task."""
    task = args.task

    def default(name: str) -> str | None:
        return name if name in existing else None

    y_true = expand_columns(args.y_true, existing, "--y-true")
    y_pred = expand_columns(
        args.y_pred or (default("y_pred") if not args.y_score else None), existing, "--y-pred"
    )
    y_score = expand_columns(
        args.y_score
        or (default("y_score") if task in ("binary", "multilabel") and not args.y_pred else None),
        existing,
        "--y-score",
    )
    weight = expand_columns(args.weight, existing, "--weight")
    by = expand_columns(args.by, existing, "--by")
    if len(weight) > 1 or len(by) > 1:
        raise EvaluateError(f"{'--weight' if len(weight) > 1 else '--by'}: expected one column")
    if not y_pred and not y_score:
        needs = "--y-pred" if task in ("regression", "clustering") else "--y-pred or --y-score"
        raise EvaluateError(f"evaluate: expected {needs}; the columns are {column_listing(existing)}")
    if task in ("binary", "multiclass", "clustering") and len(y_true) != 1:
        raise EvaluateError(f"--y-true: --task {task} takes one column, found {len(y_true)}")
    if task in ("binary", "multiclass", "clustering") and len(y_pred) > 1:
        raise EvaluateError(
            f"--y-pred: --task {task} takes one column of labels, found {len(y_pred)}"
            + ("; use --task multilabel for indicator columns" if task != "clustering" else "")
        )
    if task == "binary" and len(y_score) > 1:
        raise EvaluateError(
            f"--y-score: --task binary takes one column (the positive class's probability), found "
            f"{len(y_score)}; use --task multiclass for one column per class"
        )
    if task == "multiclass" and len(y_score) == 1:
        raise EvaluateError(
            "--y-score: --task multiclass takes one probability column per class (e.g. --y-score 'p_*'), found one"
        )
    if task in ("regression", "clustering") and y_score:
        raise EvaluateError(f"--y-score: --task {task} takes --y-pred, not scores")
    if task == "multilabel":
        for option, cols in (("--y-pred", y_pred), ("--y-score", y_score)):
            if cols and len(cols) != len(y_true):
                raise EvaluateError(
                    f"{option}: expected {_columns(len(y_true))} (one per --y-true column), found {len(cols)}"
                )
    if task == "regression" and len(y_pred) != len(y_true):
        raise EvaluateError(
            f"--y-pred: expected {_columns(len(y_true))} (one per --y-true column), found {len(y_pred)}"
        )
    metrics = [m for m in args.metrics.split(",") if m.strip()] if args.metrics else None
    pos_label, labels = _label_options(args, task, y_score)
    labels_given = labels is not None
    if task == "multiclass" and y_score and labels is None:
        labels = class_names(y_score)
    if args.input == "score" and not y_score:  # (probability is the default: nothing to say)
        raise EvaluateError("--input: says what --y-score holds, but there is no --y-score column")
    threshold = args.threshold
    if threshold is None:
        threshold = 0.0 if args.input == "score" else 0.5
    elif args.input == "probability" and not 0.0 <= threshold <= 1.0:
        raise EvaluateError(
            f"--threshold: probabilities are in [0, 1], found {threshold:g} (pass --input score for other scores)"
        )
    return Setup(
        task=task,
        y_true=y_true,
        y_pred=y_pred,
        y_score=y_score,
        weight=weight[0] if weight else None,
        by=by[0] if by else None,
        metrics=metrics,
        threshold=threshold,
        pos_label=pos_label,
        labels=labels,
        labels_given=labels_given,
        input=args.input,
        plots=bool(args.plot),
    )


def _columns(n: int) -> str:
    return "1 column" if n == 1 else f"{n} columns"


def _progress(disabled: bool, total: int | None) -> Any:
    if disabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return None
    return tqdm(total=total, unit=" rows", unit_scale=True, file=sys.stderr, dynamic_ncols=True, leave=False)


def _subset(x: Inputs, idx: np.ndarray) -> Inputs:
    return Inputs(
        x.y_true[idx],
        None if x.pred is None else x.pred[idx],
        None if x.score is None else x.score[idx],
        None if x.weight is None else x.weight[idx],
    )


def evaluate(args: Any) -> Result:
    start_time = time.perf_counter()
    table = Table(args.path, args.format, args.chunksize)
    try:
        setup = setup_from(args, table.columns)
        collections = build(setup)
    except BaseException:
        table.close()
        raise
    overall = Evaluator(setup, collections, curves=True)
    groups: dict[Any, Evaluator] = {}
    #: --by: one Sliced accumulator per role collection (one exact state per group), and the
    #: group values as found in the file (keys are their text)
    slices = (
        {role: Sliced(c, max_keys=MAX_GROUPS) for role, c in overall.collections.items()} if setup.by else {}
    )
    originals: dict[str, Any] = {}
    skipped = 0
    done = 0
    bar = _progress(args.no_progress or not sys.stderr.isatty(), table.progress_total(0))
    try:
        for chunk in table.chunks(setup.columns):
            where = f"rows {done + 1}-{done + len(chunk)}"
            keys = None
            if setup.by:
                keys = chunk[setup.by].astype(object).where(chunk[setup.by].notna(), "(missing)")
                chunk = chunk.assign(**{setup.by: keys})
            x, dropped = arrays(chunk, setup)
            skipped += dropped
            overall.update(x, where)
            if setup.by:
                kept = chunk.dropna(subset=[c for c in setup.columns if c != setup.by])[setup.by].to_numpy()
                text = kept.astype(str)
                for value, first in zip(*np.unique(text, return_index=True), strict=True):
                    originals.setdefault(str(value), _plain(kept[first]))
                _update_slices(slices, setup, x, text, where)
            done += len(chunk)
            if bar is not None:
                total = table.progress_total(done)
                if total is not None and total != bar.total:
                    bar.total = total
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    if done == 0:
        holds = "only a header" if table.format in ("csv", "tsv") else "no rows"
        raise EvaluateError(f"{table.name}: no rows to evaluate (the file holds {holds})")
    if overall.rows == 0:
        raise EvaluateError(
            f"{table.name}: no rows to evaluate (all {skipped} rows miss a value in a used column)"
        )
    groups = _groups(setup, collections, slices, originals)
    result = Result(
        args.path, setup, overall, dict(sorted(groups.items(), key=lambda kv: str(kv[0]))), skipped, 0.0
    )
    if args.plot:
        result.plots, result.plots_skipped = draw(overall, args.plot)
    if args.save_state:
        try:
            _saved(overall, slices).save(args.save_state)
        except OSError as err:
            raise EvaluateError(
                f"--save-state: cannot write {args.save_state!r}: {err.strerror or err}"
            ) from None
        result.saved = args.save_state
    result.seconds = time.perf_counter() - start_time
    return result


def _update_slices(slices: dict[str, Sliced], setup: Setup, x: Inputs, keys: np.ndarray, where: str) -> None:
    """Feed each role's Sliced accumulator the chunk, keyed by the --by column (as text)."""
    for role, sliced in slices.items():
        second = x.pred if role == "pred" and x.pred is not None else x.score
        if second is None or (role == "proba" and setup.task == "multiclass" and second.ndim == 1):
            continue
        try:
            sliced.update(x.y_true, second, keys, sample_weight=x.weight)
        except InputError as err:
            if "max_keys" in str(err):
                raise EvaluateError(
                    f"--by: column {setup.by!r} has more than {MAX_GROUPS} distinct values"
                ) from None
            raise EvaluateError(f"{where}, {setup.by}: {err}") from None


def _groups(
    setup: Setup,
    collections: dict[str, MetricCollection],
    slices: dict[str, Sliced],
    originals: dict[str, Any],
) -> dict[Any, Evaluator]:
    """One evaluator per group, reading its states from the Sliced accumulators."""
    groups: dict[Any, Evaluator] = {}
    for role, sliced in slices.items():
        counts = dict(zip(sliced.state.keys.keys(), sliced.state.key_samples().tolist(), strict=True))
        for key, rows in counts.items():
            ev = groups.setdefault(originals.get(key, key), Evaluator(setup, collections))
            ev.collections[role] = sliced.metric_of(key)  # type: ignore[assignment]
            ev.rows = max(ev.rows, int(rows))
    return groups


def _saved(overall: Evaluator, slices: dict[str, Sliced]) -> Any:
    """What --save-state writes: the role collections, or with --by their Sliced accumulators
    (one state per group; ``streammetrics merge`` merges such files group by group)."""
    if not slices:
        return overall.collection()
    top = MetricCollection({role: s.empty_like() for role, s in slices.items()})
    for role, sliced in slices.items():
        top.state.states[role].merge(sliced.state)
    return top


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ----------------------------------------------------------------------------- pictures
def draw(ev: Evaluator, directory: str) -> tuple[list[str], list[str]]:
    """Write the pictures the evaluator can draw into ``directory``; returns their paths and
    one line for each picture that was not drawn, saying why."""
    import warnings

    from .. import plotting

    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as err:
        raise EvaluateError(f"--plot: cannot create {directory!r}: {err.strerror or err}") from None
    values, _ = ev.values()
    s = ev.setup
    paths: list[str] = []
    skipped = _skipped_pictures(ev)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figures = []
        roc, pr, cal = ev.member("roc_curve"), ev.member("pr_curve"), ev.member("calibration_error")
        if roc is not None:
            figures.append(("roc.png", plotting.plot_roc_curve(roc, auc=values.get("rocauc"))))
        if pr is not None:
            prevalence = _prevalence(ev)
            figures.append(
                (
                    "pr.png",
                    plotting.plot_pr_curve(
                        pr, average_precision=values.get("average_precision"), prevalence=prevalence
                    ),
                )
            )
        if ev.curves:
            figures += _class_curves(ev, plotting)
        if cal is not None:
            figures.append(("calibration.png", plotting.plot_calibration(cal, error=cal.compute())))
        cm = ev.confusion()
        if cm is not None:
            figures.append(("confusion_matrix.png", plotting.plot_confusion_matrix(cm[1], cm[0])))
        elif s.task in ("binary", "multiclass"):
            skipped.append("confusion_matrix.png: no predicted labels (pass --y-pred or --labels)")
    for name, fig in figures:
        path = os.path.join(directory, name)
        try:
            plotting.save_figure(fig, path)
        except OSError as err:
            raise EvaluateError(f"--plot: cannot write {path!r}: {err.strerror or err}") from None
        paths.append(path)
    return paths, skipped


def _skipped_pictures(ev: Evaluator) -> list[str]:
    """Why pictures that a task might have are not drawn (each line names the files)."""
    s = ev.setup
    if s.task in ("regression", "clustering"):
        return [
            f"every picture: --task {s.task} has none (ROC, PR, calibration and confusion-matrix "
            "pictures are for classification)"
        ]
    if s.task == "multilabel":
        return ["every picture: --task multilabel has none (per-label pictures are not drawn)"]
    if not s.y_score:
        return ["roc.png, pr.png, calibration.png: they need --y-score"]
    if s.task == "multiclass" and not ev.curves:
        count = len(s.labels or [])
        return [
            f"roc.png, pr.png: one curve per class is drawn for at most {MAX_CURVES} classes, found {count}"
        ]
    return []


def _class_curves(ev: Evaluator, plotting: Any) -> list[tuple[str, Any]]:
    """One ROC and one PR figure for a multiclass task, one line per class (one vs rest)."""
    figures = []
    for name, index, title in (
        ("roc.png", 0, "ROC curves (one vs rest)"),
        ("pr.png", 1, "PR curves (one vs rest)"),
    ):
        fig = None
        for label, pair in ev.curves.items():
            curve = pair[index]
            if curve.n_samples == 0:
                continue
            with_value = f"class {label}"
            if index == 0:
                fpr, tpr = (np.asarray(a, dtype=np.float64) for a in tuple(curve.compute())[:2])
                with_value += f" (AUC = {float(np.trapezoid(tpr, fpr)):.3f})"
            if fig is None:
                draw_one = plotting.plot_roc_curve if index == 0 else plotting.plot_pr_curve
                fig = draw_one(curve, label=with_value)
            else:
                result = tuple(curve.compute())
                x, y = (result[0], result[1]) if index == 0 else (result[1], result[0])
                drawstyle = "default" if index == 0 else "steps-post"
                order = np.argsort(np.asarray(x), kind="stable")
                fig.axes[0].plot(
                    np.asarray(x)[order],
                    np.asarray(y)[order],
                    label=with_value,
                    linewidth=1.5,
                    drawstyle=drawstyle,
                )
        if fig is not None:
            ax = fig.axes[0]
            ax.set_title(title)
            ax.legend(loc="lower right" if index == 0 else "lower left", fontsize="small")
            figures.append((name, fig))
    return figures


def _prevalence(ev: Evaluator) -> float | None:
    cm = ev.confusion()
    if cm is None:
        return None
    classes, m = cm
    pos = ev.setup.pos_label
    if pos not in classes or m.sum() == 0:
        return None
    i = classes.index(pos)
    return float(m[i].sum() / m.sum())


# ----------------------------------------------------------------------------- output
def _fmt(value: Any) -> str:
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool):
        v = float(value)
        if math.isnan(v):
            return "nan"
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
            return f"{v:.4e}"
        return f"{v:.4f}"
    if isinstance(value, np.ndarray):
        return "[" + ", ".join(_fmt(v) for v in value.ravel()) + "]"
    return str(value)


def _jsonable(value: Any) -> Any:
    from ..cli import jsonable

    return jsonable(value)


def to_json(r: Result) -> dict[str, Any]:
    values, warned = r.overall.values()
    s = r.setup
    doc: dict[str, Any] = {
        "path": r.path,
        "task": s.task,
        "columns": {
            "y_true": s.y_true,
            "y_pred": s.y_pred,
            "y_score": s.y_score,
            "weight": s.weight,
            "by": s.by,
        },
        "rows": r.overall.rows,
        "skipped_rows": r.skipped,
        "seconds": round(r.seconds, 3),
        "metrics": _jsonable(values),
    }
    cm = r.overall.confusion()
    if cm is not None:
        doc["confusion_matrix"] = {"classes": _jsonable(cm[0]), "matrix": _jsonable(cm[1])}
    if s.by:
        doc["groups"] = {}
        for key, ev in r.groups.items():
            gv, gw = ev.values()
            doc["groups"][str(key)] = {"rows": ev.rows, "metrics": _jsonable(gv), "warnings": gw}
    doc["plots"] = r.plots
    if r.setup.plots:
        doc["plots_skipped"] = r.plots_skipped
    doc["state_file"] = r.saved
    doc["warnings"] = warned
    return doc


def write(r: Result, as_json: bool, out: Any) -> None:
    if as_json:
        print(json.dumps(to_json(r), allow_nan=False), file=out)
        return
    s = r.setup
    values, warned = r.overall.values()
    skipped = f", {r.skipped:,} skipped (missing values)" if r.skipped else ""
    name = "stdin" if r.path == "-" else r.path
    print(f"{name}: {s.task}, {r.overall.rows:,} rows{skipped}, {r.seconds:.2f} s", file=out)
    cols = [("y_true", s.y_true), ("y_pred", s.y_pred), ("y_score", s.y_score)]
    cols += [("weight", [s.weight] if s.weight else []), ("by", [s.by] if s.by else [])]
    print("columns: " + "  ".join(f"{k}={','.join(v)}" for k, v in cols if v), file=out)
    print(file=out)
    width = max(map(len, values), default=6) + 2
    for name, value in values.items():
        print(f"  {name:<{width}}{_fmt(value)}", file=out)
    cm = r.overall.confusion()
    if cm is not None and len(cm[0]) <= 20:
        classes, m = cm
        print(file=out)
        print("confusion matrix (rows: true label, columns: predicted label)", file=out)
        names = [str(c) for c in classes]
        cells = [[_count(x) for x in row] for row in m]
        w = max([len(n) for n in names] + [len(c) for row in cells for c in row]) + 2
        print(" " * (w + 2) + "".join(f"{n:>{w}}" for n in names), file=out)
        for n, row in zip(names, cells, strict=False):
            print(f"  {n:>{w}}" + "".join(f"{c:>{w}}" for c in row), file=out)
    if s.by:
        print(file=out)
        print(f"by {s.by} ({len(r.groups)} groups):", file=out)
        rows = [("(all)", r.overall.rows, values)]
        rows += [(str(k), ev.rows, ev.values()[0]) for k, ev in r.groups.items()]
        names = [n for n, v in values.items() if not isinstance(v, np.ndarray)]
        header = [s.by, "rows", *names]
        table = [[g, f"{n:,}", *(_fmt(v.get(name, float("nan"))) for name in names)] for g, n, v in rows]
        widths = [max(len(str(x)) for x in col) for col in zip(header, *table, strict=False)]
        print(
            "  "
            + "  ".join(
                f"{h:<{w}}" if i == 0 else f"{h:>{w}}"
                for i, (h, w) in enumerate(zip(header, widths, strict=False))
            ),
            file=out,
        )
        for line in table:
            print(
                "  "
                + "  ".join(
                    f"{c:<{w}}" if i == 0 else f"{c:>{w}}"
                    for i, (c, w) in enumerate(zip(line, widths, strict=False))
                ),
                file=out,
            )
    if r.plots:
        print(file=out)
        print(f"pictures: {', '.join(r.plots)}", file=out)
    for line in r.plots_skipped:
        print(f"not drawn: {line}", file=out)
    if r.saved:
        print(f"state saved to {r.saved} (streammetrics show {r.saved})", file=out)
    for line in warned:
        print(f"warning: {line}", file=sys.stderr)


def _count(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.2f}"
