"""``streammetrics evaluate``: values against scikit-learn, formats, groups, outputs, user errors."""

from __future__ import annotations

import json
import struct
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.cli import main


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "streammetrics", *args], capture_output=True, text=True, input=stdin
    )


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    n = 3000
    y = (rng.random(n) < 0.2).astype(int)
    score = 1 / (1 + np.exp(-(rng.normal(size=n) + 2 * y - 1.5)))
    k = rng.integers(0, 3, n)
    proba = rng.dirichlet(np.ones(3), n)
    proba[np.arange(n), k] += 1.0
    proba /= proba.sum(axis=1, keepdims=True)
    return pd.DataFrame(
        {
            "label": y,
            "score": score,
            "pred": (score >= 0.5).astype(int),
            "w": rng.integers(1, 4, n).astype(float),
            "region": rng.choice(["north", "south", "east"], n),
            "k": k,
            "k_pred": np.where(rng.random(n) < 0.7, k, rng.integers(0, 3, n)),
            "p_0": proba[:, 0],
            "p_1": proba[:, 1],
            "p_2": proba[:, 2],
            "target": rng.normal(100, 5, n),
            "estimate": rng.normal(100, 5, n),
        }
    )


@pytest.fixture(scope="module")
def files(data, tmp_path_factory):
    d = tmp_path_factory.mktemp("tables")
    paths = {"csv": d / "t.csv", "parquet": d / "t.parquet", "jsonl": d / "t.jsonl"}
    data.to_csv(paths["csv"], index=False)
    data.to_parquet(paths["parquet"])
    data.to_json(paths["jsonl"], orient="records", lines=True)
    return {k: str(v) for k, v in paths.items()}


def evaluate_json(capsys, *args: str) -> dict:
    assert main(["evaluate", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_binary_defaults_agree_with_sklearn_in_small_chunks(capsys, data, files, fmt):
    doc = evaluate_json(
        capsys,
        files[fmt],
        "--task",
        "binary",
        "--y-true",
        "label",
        "--y-score",
        "score",
        "--chunksize",
        "700",
    )
    y, s = data["label"], data["score"]
    p = (s >= 0.5).astype(int)
    m = doc["metrics"]
    assert doc["rows"] == len(data) and doc["skipped_rows"] == 0
    assert m["accuracy"] == pytest.approx(skm.accuracy_score(y, p), rel=1e-12)
    assert m["f1"] == pytest.approx(skm.f1_score(y, p), rel=1e-12)
    assert m["mcc"] == pytest.approx(skm.matthews_corrcoef(y, p), rel=1e-12)
    assert m["log_loss"] == pytest.approx(skm.log_loss(y, s), rel=1e-9)
    assert m["brier_score"] == pytest.approx(skm.brier_score_loss(y, s), rel=1e-9)
    assert m["rocauc"] == pytest.approx(skm.roc_auc_score(y, s), abs=2e-3)  # a sketch, bounded error
    assert m["average_precision"] == pytest.approx(skm.average_precision_score(y, s), abs=5e-3)
    assert doc["confusion_matrix"]["matrix"] == skm.confusion_matrix(y, p).tolist()


def test_weights_and_explicit_metrics(capsys, data, files):
    doc = evaluate_json(
        capsys,
        files["csv"],
        "--task=binary",
        "--y-true=label",
        "--y-pred=pred",
        "--weight=w",
        "--metrics=F1,precision,Balanced_Accuracy",
    )
    y, p, w = data["label"], data["pred"], data["w"]
    assert list(doc["metrics"]) == ["f1", "precision", "balanced_accuracy"]
    assert doc["metrics"]["f1"] == pytest.approx(skm.f1_score(y, p, sample_weight=w), rel=1e-12)
    assert doc["metrics"]["balanced_accuracy"] == pytest.approx(
        skm.balanced_accuracy_score(y, p, sample_weight=w), rel=1e-12
    )


def test_by_groups_match_per_group_sklearn(capsys, data, files):
    doc = evaluate_json(
        capsys,
        files["parquet"],
        "--task",
        "binary",
        "--y-true",
        "label",
        "--y-pred",
        "pred",
        "--by",
        "region",
    )
    assert sorted(doc["groups"]) == ["east", "north", "south"]
    for region, group in doc["groups"].items():
        part = data[data["region"] == region]
        assert group["rows"] == len(part)
        assert group["metrics"]["accuracy"] == pytest.approx(skm.accuracy_score(part["label"], part["pred"]))


def test_multiclass_with_probability_columns_by_prefix(capsys, data, files):
    doc = evaluate_json(
        capsys,
        files["csv"],
        "--task",
        "multiclass",
        "--y-true",
        "k",
        "--y-pred",
        "k_pred",
        "--y-score",
        "p_*",
    )
    m = doc["metrics"]
    proba = data[["p_0", "p_1", "p_2"]].to_numpy()
    assert m["f1_macro"] == pytest.approx(skm.f1_score(data["k"], data["k_pred"], average="macro"), rel=1e-12)
    assert m["cohen_kappa"] == pytest.approx(skm.cohen_kappa_score(data["k"], data["k_pred"]), rel=1e-12)
    assert m["log_loss"] == pytest.approx(skm.log_loss(data["k"], proba), rel=1e-9)
    assert m["rocauc"] == pytest.approx(skm.roc_auc_score(data["k"], proba, multi_class="ovr"), abs=3e-3)


def test_regression(capsys, data, files):
    doc = evaluate_json(
        capsys, files["jsonl"], "--task", "regression", "--y-true", "target", "--y-pred", "estimate"
    )
    m = doc["metrics"]
    assert m["mae"] == pytest.approx(skm.mean_absolute_error(data["target"], data["estimate"]), rel=1e-12)
    assert m["r2"] == pytest.approx(skm.r2_score(data["target"], data["estimate"]), rel=1e-9)


def test_clustering_and_multilabel(capsys, data, files, tmp_path):
    doc = evaluate_json(capsys, files["csv"], "--task", "clustering", "--y-true", "k", "--y-pred", "k_pred")
    assert doc["metrics"]["adjusted_rand_index"] == pytest.approx(
        skm.adjusted_rand_score(data["k"], data["k_pred"]), rel=1e-9
    )
    rng = np.random.default_rng(3)
    yt, yp = rng.integers(0, 2, (500, 3)), rng.integers(0, 2, (500, 3))
    frame = pd.DataFrame(
        {**{f"true_{i}": yt[:, i] for i in range(3)}, **{f"pred_{i}": yp[:, i] for i in range(3)}}
    )
    path = tmp_path / "ml.csv"
    frame.to_csv(path, index=False)
    doc = evaluate_json(
        capsys, str(path), "--task", "multilabel", "--y-true", "true_*", "--y-pred", "pred_0,pred_1,pred_2"
    )
    assert doc["metrics"]["f1_micro"] == pytest.approx(skm.f1_score(yt, yp, average="micro"), rel=1e-12)
    assert doc["metrics"]["hamming_loss"] == pytest.approx(skm.hamming_loss(yt, yp), rel=1e-12)


def test_stdin_text_report_missing_values_skipped():
    text = "y_true,y_pred\n1,1\n0,1\n,0\n1,1\n0,0\n"
    out = run("evaluate", "-", "--task", "binary", stdin=text)
    assert out.returncode == 0, out.stderr
    assert "binary, 4 rows, 1 skipped (missing values)" in out.stdout
    line = next(x for x in out.stdout.splitlines() if x.strip().startswith("accuracy"))
    assert float(line.split()[1]) == pytest.approx(0.75)


def png_size(path) -> tuple[int, int]:
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_plots_and_saved_state(capsys, data, files, tmp_path):
    state = tmp_path / "all.state"
    doc = evaluate_json(
        capsys,
        files["csv"],
        "--task", "binary", "--y-true", "label", "--y-score", "score",
        "--plot", str(tmp_path / "pics"), "--save-state", str(state),
    )  # fmt: skip
    names = sorted(p.rsplit("/", 1)[-1] for p in doc["plots"])
    assert names == ["calibration.png", "confusion_matrix.png", "pr.png", "roc.png"]
    for path in doc["plots"]:
        width, height = png_size(path)
        assert width >= 300 and height >= 300
    loaded = sm.load(state)
    assert isinstance(loaded, sm.MetricCollection) and loaded.n_samples == len(data)
    assert loaded.compute()["pred/accuracy"] == pytest.approx(doc["metrics"]["accuracy"], rel=1e-12)
    out = run("show", str(state))
    assert out.returncode == 0 and "pred/f1:" in out.stdout


# ------------------------------------------------------------------------ user errors
ERRORS = [
    (["--task", "binary", "--y-true", "lable", "--y-pred", "pred"], "--y-true: no column 'lable'; the columns are label, score"),
    (["--task", "binary", "--y-true", "label", "--y-score", "p_*"], "--y-score: --task binary takes one column"),
    (["--task", "binary", "--y-true", "k", "--y-pred", "k_pred"], "--task binary: column 'k' (--y-true) makes more than two classes"),
    (["--task", "multiclass", "--y-true", "score", "--y-pred", "pred"], "--task multiclass: column 'score' (--y-true) holds non-integer numbers"),
    (["--task", "regression", "--y-true", "region", "--y-pred", "target"], "--task regression: column 'region' (--y-true), row 1: 'south' is not a number"),
    (["--task", "binary", "--y-true", "label", "--y-pred", "pred", "--metrics", "f2"], "--metrics: unknown metric 'f2'"),
    (["--task", "binary", "--y-true", "label", "--y-pred", "pred", "--metrics", "rocauc"], "--metrics: ROCAUC needs --y-score"),
    (["--task", "binary", "--y-true", "label"], "evaluate: expected --y-pred or --y-score"),
    (["--task", "banana"], "evaluate: argument --task: invalid choice"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), ERRORS)
def test_user_errors_are_one_line_exit_2(capsys, files, args, message):
    assert main(["evaluate", files["csv"], *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("streammetrics: error: "), captured.err
    assert message in lines[0]


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (None, "missing.csv", "cannot read"),
        (b"PAR1 not really", "broken.parquet", "cannot read as PARQUET"),
        (b'{"y_true": 1, "y_pred": \n', "broken.jsonl", "cannot read as JSONL"),
        (b"\xff\xfe\x00garbage", "binary.csv", "broken"),
        (b"a,b\n1,2\n", "table.xlsx", "cannot tell the format"),
    ],
)
def test_unreadable_files_through_subprocess(tmp_path, content, name, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    out = run("evaluate", str(path), "--task", "binary")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert out.stderr.startswith("streammetrics: error: ")
    if message != "broken":
        assert message in out.stderr


def test_wrong_probabilities_are_one_line(tmp_path):
    path = tmp_path / "logits.csv"
    path.write_text("y_true,y_score\n1,2.5\n0,-1.0\n")
    out = run("evaluate", str(path), "--task", "binary")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "probabilities" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_progress_total_exact_for_parquet_estimated_for_csv(files, data):
    from streammetrics._cli.readers import Table

    parquet = Table(files["parquet"], chunksize=1000)
    assert parquet.progress_total(0) == len(data)
    csv = Table(files["csv"], chunksize=1000)
    done = sum(len(chunk) for chunk in csv.chunks(["label"]))
    assert done == len(data) and csv.progress_total(done) == len(data)  # all bytes read: exact


def test_no_progress_flag(capsys, files):
    assert (
        main(
            [
                "evaluate",
                files["csv"],
                "--task",
                "binary",
                "--y-true",
                "label",
                "--y-pred",
                "pred",
                "--no-progress",
            ]
        )
        == 0
    )
    assert capsys.readouterr().err == ""
