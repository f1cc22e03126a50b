"""``evaluate`` under generated option combinations and small generated files, good and bad.

Every run ends with exit status 0 (a report on stdout; JSON that parses with ``--json``) or 2
(one line ``streammetrics: error: ...`` on stderr), never an exception escaping ``main``
(which would be a traceback on the command line). ``main`` runs in-process to stay fast.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streammetrics.cli import main

TASKS = ["binary", "multiclass", "multilabel", "regression", "clustering"]

BAD_CELLS = st.sampled_from(
    [None, "", "nan", "inf", "-inf", "a", "cat", "1.5", "1\n", "0.9\n", "2.0", "True", "1e400", -1, 7, 2.5]
)


def _rarely(good, bad, percent: int = 8):
    """``good`` mostly, ``bad`` in about ``percent`` % of draws (Hypothesis favours the ends of
    an integer range, so the bad branch sits in the middle of a wide one)."""
    return st.integers(0, 999).flatmap(lambda i: bad if 400 <= i < 400 + 10 * percent else good)


def _option(good, bad=None):
    """Left out (the default) about half the time, else a sensible value, rarely a bad one."""
    return _rarely(st.one_of(st.none(), good), bad if bad is not None else st.none())


PROBABILITY = st.floats(0, 1, allow_nan=False, width=32)
LOGIT = st.floats(-6, 6, allow_nan=False, width=32)

# the columns of a table for each kind of label: (good cell, option values that fit)
LABELS = {
    "01": (st.integers(0, 1), ["0,1", "1,0"], ["1", "0"]),
    "12": (st.integers(1, 2), ["1,2", "2,1"], ["2", "1"]),
    "ab": (st.sampled_from(["a", "b"]), ["a,b", "b,a"], ["b", "a"]),
}

METRICS = {
    "binary": ["accuracy", "f1", "auc", "ap", "log_loss", "brier", "ece", "mcc", "precision", "roc_curve", "confusion_matrix"],
    "multiclass": ["accuracy", "f1", "auc", "log_loss", "brier", "ece", "kappa", "mcc", "confusion_matrix"],
    "multilabel": ["subset_accuracy", "hamming_loss", "f1", "jaccard", "auc", "ap"],
    "regression": ["mae", "r2", "max_error", "rmse", "pearson_r"],
    "clustering": ["ari", "nmi", "purity", "v_measure"],
}  # fmt: skip
OTHER_METRICS = ["f2", "silhouette", "calinski_harabasz", ",", "roc_auc,", "mae", "accuracy", "ari", "auc"]


@st.composite
def invocations(draw):
    """``(names, rows, options)``: a table that fits a task (with rare bad cells and left-out
    columns) and options for it (mostly sensible, rarely wrong or for another task)."""
    task = draw(_rarely(st.sampled_from(TASKS), st.just("banana"), 3))
    kind = draw(st.sampled_from(sorted(LABELS)))
    label, label_options, pos_options = LABELS[kind]
    score = PROBABILITY
    if task in ("binary", "multiclass") and draw(st.booleans()):
        score = draw(st.sampled_from([PROBABILITY, LOGIT]))
    three = st.sampled_from([0, 1, 2])
    columns = {
        "binary": {"y_true": label, "y_pred": label, "y_score": score},
        "multiclass": {"y_true": three, "y_pred": three, "p_0": score, "p_1": score, "p_2": score},
        "multilabel": {"t_0": st.integers(0, 1), "t_1": st.integers(0, 1), "q_0": st.integers(0, 1),
                       "q_1": st.integers(0, 1), "s_0": score, "s_1": score},
        "regression": {"y_true": LOGIT, "y_pred": LOGIT},
        "clustering": {"y_true": three, "y_pred": st.sampled_from(["u", "v", "w"])},
        "banana": {"y_true": label},
    }[task]  # fmt: skip
    columns = {**columns, "w": st.sampled_from([0.5, 1, 2, 0]), "g": st.sampled_from(["x", "y", 3])}
    names = [c for c in columns if draw(_rarely(st.just(True), st.just(False), 4))]
    rows = [[draw(_rarely(columns[c], BAD_CELLS, 3)) for c in names] for _ in range(draw(st.integers(0, 7)))]
    present = sorted(names) or ["y_true"]
    some_column = st.sampled_from(present)
    roles = {
        "multiclass": {"--y-score": st.just("p_*")},
        "multilabel": {"--y-true": st.just("t_*"), "--y-pred": st.just("q_*"), "--y-score": st.just("s_*")},
    }.get(task, {})
    options = {"--task": task}
    binary, scored = task == "binary", task in ("binary", "multiclass", "multilabel")
    labels_good = {"binary": st.sampled_from(label_options), "multiclass": st.just("0,1,2")}.get(
        task, st.none()
    )
    for option in ("--y-true", "--y-pred", "--y-score"):
        default = option[2:].replace("-", "_")
        if option == "--y-score" and task in ("regression", "clustering"):
            good = st.none()
        else:
            good = roles.get(option, st.just(default))
        bad = st.one_of(some_column, st.just("nope"), st.just("p_*,y_true"))
        # multilabel columns are never the defaults: name them
        options[option] = draw(_rarely(good, bad) if task == "multilabel" else _option(good, bad))
    options |= {
        "--weight": draw(_option(st.just("w"), some_column)),
        "--by": draw(_option(st.just("g"), some_column)),
        "--metrics": draw(
            _option(
                st.lists(st.sampled_from(METRICS.get(task, ["accuracy"])), min_size=1, max_size=4).map(
                    ",".join
                ),
                st.sampled_from(OTHER_METRICS),
            )
        ),
        "--chunksize": draw(_option(st.sampled_from(["1", "2", "3", "100"]), st.sampled_from(["0", "x"]))),
        "--threshold": draw(
            _option(st.sampled_from(["0.5", "0", "1", "0.3"]), st.sampled_from(["-1", "2", "nan"]))
        ),
        "--pos-label": draw(
            _option(
                st.sampled_from(pos_options) if binary else st.none(), st.sampled_from(["cat", "-1", "0"])
            )
        ),
        "--labels": draw(_option(labels_good, st.sampled_from(["1", "0,0", "a,", "-1,1", "0,1,2"]))),
        "--input": draw(
            _option(
                st.just("probability" if score is PROBABILITY else "score") if scored else st.none(),
                st.just("score"),
            )
        ),
        "--format": draw(_rarely(st.none(), st.sampled_from(["csv", "parquet", "jsonl", "tsv"]), 3)),
    }
    return names, rows, options


def _write(directory: str, names, rows, fmt: str, ragged: int) -> str:
    """Write the table as ``fmt``; ``ragged`` > 0 adds that many fields to one CSV row, < 0 drops."""
    if fmt in ("csv", "tsv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(names)
        for i, row in enumerate(rows):
            cells = ["" if v is None else v for v in row]
            if ragged and i == len(rows) - 1:
                cells = cells + ["9"] * ragged if ragged > 0 else cells[:ragged]
            writer.writerow(cells)
        path = os.path.join(directory, f"t.{fmt}")
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(buffer.getvalue())
        return path
    frame = pd.DataFrame(rows, columns=names)
    path = os.path.join(directory, f"t.{fmt}")
    if fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True)
        return path
    try:
        frame.to_parquet(path)
    except Exception:  # mixed types per column: store them as text
        frame.astype(str).to_parquet(path)
    return path


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    invocation=invocations(),
    fmt=st.sampled_from(["csv", "csv", "tsv", "parquet", "jsonl"]),
    ragged=_rarely(st.just(0), st.sampled_from([1, -1]), 5),
    flags=st.sets(st.sampled_from(["--json", "--no-progress", "save", "plot"]), max_size=3),
    place=_rarely(st.just("file"), st.sampled_from(["missing", "directory"]), 3),
    plot=st.integers(0, 9),
)
def test_no_option_combination_ends_in_a_traceback(invocation, fmt, ragged, flags, place, plot):
    names, rows, options = invocation
    with tempfile.TemporaryDirectory() as directory:
        path = _write(directory, names, rows, fmt, ragged)
        if place == "missing":
            path = os.path.join(directory, "missing.csv")
        elif place == "directory":
            path = directory
        argv = ["evaluate", path]
        for option, value in options.items():
            if value is not None:
                argv.append(f"{option}={value}")  # "=" keeps values such as "-1,1" attached
        argv += [f for f in ("--json", "--no-progress") if f in flags]
        if "save" in flags:
            argv += ["--save-state", os.path.join(directory, "all.state")]
        if "plot" in flags and plot == 0:  # drawing is slow: rarely
            argv += ["--plot", os.path.join(directory, "pics")]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)  # an exception escaping here is the traceback this test forbids
    stderr = err.getvalue()
    assert "Traceback" not in stderr
    if code == 2:
        lines = stderr.strip().splitlines()
        assert lines and lines[-1].startswith("streammetrics: error: "), (argv, stderr)
        assert len([x for x in lines if x.startswith("streammetrics: error: ")]) == 1
        assert out.getvalue() == "", argv
        return
    assert code == 0, (argv, code, stderr)
    assert out.getvalue(), argv
    if "--json" in flags:
        doc = json.loads(out.getvalue())
        assert doc["rows"] >= 1
