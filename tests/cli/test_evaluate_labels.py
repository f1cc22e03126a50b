"""``evaluate`` on binary labels other than 0/1: ``--labels``, ``--pos-label``, ``--input score``.

Every printed value is compared with scikit-learn called with the same positive label.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from streammetrics.cli import main

N = 400


def _table(tmp_path, neg, pos, name="t.csv"):
    rng = np.random.default_rng(7)
    positive = rng.random(N) < 0.4
    score = np.clip(rng.random(N) * 0.7 + 0.3 * positive, 0.0, 1.0)
    frame = pd.DataFrame({"y": np.where(positive, pos, neg), "s": score})
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path), frame


def _evaluate(capsys, *args):
    code = main(["evaluate", *args, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _error(capsys, *args):
    code = main(["evaluate", *args])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("streammetrics: error: "), captured.err
    return lines[0]


def _expected(y, s, neg, pos, threshold=0.5, proba=None):
    proba = s if proba is None else proba
    pred = np.where(s >= threshold, pos, neg)
    truth = y == pos
    return {
        "accuracy": skm.accuracy_score(y, pred),
        "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
        "precision": skm.precision_score(y, pred, pos_label=pos),
        "recall": skm.recall_score(y, pred, pos_label=pos),
        "f1": skm.f1_score(y, pred, pos_label=pos),
        "mcc": skm.matthews_corrcoef(y, pred),
        "rocauc": skm.roc_auc_score(truth, s),
        "average_precision": skm.average_precision_score(y, s, pos_label=pos),
        "log_loss": skm.log_loss(truth, proba),
        "brier_score": skm.brier_score_loss(y, proba, pos_label=pos),
    }, skm.confusion_matrix(y, pred, labels=[neg, pos])


LABEL_SETS = [
    (0, 1, []),
    (1, 2, ["--labels", "1,2"]),
    (1, 2, ["--labels", "1,2", "--pos-label", "2"]),
    (2, 1, ["--labels", "2,1"]),  # positive 1, negative 2
    (-1, 1, ["--labels=-1,1"]),
    ("neg", "pos", ["--labels", "neg,pos"]),
    ("yes", "no", ["--labels", "yes,no", "--pos-label", "no"]),
]


@pytest.mark.parametrize(("neg", "pos", "options"), LABEL_SETS)
def test_binary_label_sets_agree_with_sklearn(capsys, tmp_path, neg, pos, options):
    path, frame = _table(tmp_path, neg, pos)
    doc = _evaluate(
        capsys, path, "--task", "binary", "--y-true", "y", "--y-score", "s", "--chunksize", "150", *options
    )
    expected, matrix = _expected(frame["y"].to_numpy(), frame["s"].to_numpy(), neg, pos)
    got = doc["metrics"]
    for name, value in expected.items():
        tol = 2e-3 if name in ("rocauc", "average_precision") else 1e-9  # sketches: bounded error
        assert got[name] == pytest.approx(value, abs=tol, rel=tol), name
    assert doc["confusion_matrix"]["classes"] == [neg, pos]
    assert doc["confusion_matrix"]["matrix"] == matrix.tolist()


def test_logits_with_input_score(capsys, tmp_path):
    rng = np.random.default_rng(3)
    y = rng.integers(1, 3, N)
    logit = rng.normal(size=N) + 1.5 * (y == 2) - 0.7
    path = tmp_path / "logits.csv"
    pd.DataFrame({"y": y, "s": logit}).to_csv(path, index=False)
    doc = _evaluate(
        capsys,
        str(path),
        "--task",
        "binary",
        "--y-true",
        "y",
        "--y-score",
        "s",
        "--labels",
        "1,2",
        "--input",
        "score",
    )
    expected, matrix = _expected(y, logit, 1, 2, threshold=0.0, proba=1 / (1 + np.exp(-logit)))
    for name, value in expected.items():
        tol = 2e-3 if name in ("rocauc", "average_precision") else 1e-9
        assert doc["metrics"][name] == pytest.approx(value, abs=tol, rel=tol), name
    assert doc["confusion_matrix"]["matrix"] == matrix.tolist()
    # the same logits read as probabilities: one line naming the fix
    message = _error(
        capsys, str(path), "--task", "binary", "--y-true", "y", "--y-score", "s", "--labels", "1,2"
    )
    assert "--input score" in message


def test_pos_label_two_with_score_metrics_only(capsys, tmp_path):
    path, frame = _table(tmp_path, 1, 2)
    doc = _evaluate(
        capsys,
        path,
        "--task",
        "binary",
        "--y-true",
        "y",
        "--y-score",
        "s",
        "--pos-label",
        "2",
        "--metrics",
        "auc,log_loss,brier",
    )
    y, s = frame["y"].to_numpy(), frame["s"].to_numpy()
    assert doc["metrics"]["rocauc"] == pytest.approx(skm.roc_auc_score(y == 2, s), abs=2e-3)
    assert doc["metrics"]["log_loss"] == pytest.approx(skm.log_loss(y == 2, s), rel=1e-9)
    assert doc["metrics"]["brier_score"] == pytest.approx(skm.brier_score_loss(y, s, pos_label=2), rel=1e-9)
    assert "confusion_matrix" not in doc  # scores cannot become labels without the negative label


def test_hard_predictions_with_string_labels(capsys, tmp_path):
    rng = np.random.default_rng(5)
    y = rng.choice(["cat", "dog"], N)
    p = np.where(rng.random(N) < 0.8, y, rng.choice(["cat", "dog"], N))
    path = tmp_path / "pets.csv"
    pd.DataFrame({"y": y, "p": p}).to_csv(path, index=False)
    doc = _evaluate(
        capsys, str(path), "--task", "binary", "--y-true", "y", "--y-pred", "p", "--pos-label", "dog"
    )
    assert doc["metrics"]["f1"] == pytest.approx(skm.f1_score(y, p, pos_label="dog"), rel=1e-12)
    assert doc["metrics"]["precision"] == pytest.approx(skm.precision_score(y, p, pos_label="dog"), rel=1e-12)


@pytest.mark.parametrize(
    ("neg", "pos", "options", "message"),
    [
        (1, 2, [], "--labels: --threshold turns --y-score into the labels 0 and 1, but the labels are 1, 2; pass --labels NEGATIVE,POSITIVE"),
        (1, 2, ["--pos-label", "2"], "--pos-label: to turn --y-score into labels with --threshold, name the negative label too: pass --labels NEGATIVE,2"),
        ("a", "b", [], "--pos-label: the labels are 'a', 'b', without the positive label 1"),
        (1, 2, ["--labels", "1,3"], "--labels: column 'y' (--y-true) holds 2, which is not one of --labels 1,3"),
        (1, 2, ["--labels", "1,2,3"], "--labels: --task binary takes two labels NEGATIVE,POSITIVE, found 3"),
        (1, 2, ["--labels", "1,2", "--pos-label", "3"], "--pos-label: 3 is not one of --labels '1,2'"),
        (1, 2, ["--labels", "1,1"], "--labels: expected distinct labels"),
        (0, 1, ["--threshold", "2"], "--threshold: probabilities are in [0, 1], found 2"),
        (0, 1, ["--threshold", "nan"], "argument --threshold: expected a finite number"),
    ],
)  # fmt: skip
def test_label_errors_are_one_line(capsys, tmp_path, neg, pos, options, message):
    path, _ = _table(tmp_path, neg, pos)
    line = _error(capsys, path, "--task", "binary", "--y-true", "y", "--y-score", "s", *options)
    assert message in line
    assert "multiclass" not in line  # not the old "use --task multiclass?" hint


def test_multiclass_labels_name_the_score_columns(capsys, tmp_path):
    rng = np.random.default_rng(2)
    proba = rng.dirichlet(np.ones(3), N)
    names = np.array(["ant", "bee", "cow"])
    y = names[rng.integers(0, 3, N)]
    path = tmp_path / "mc.csv"
    pd.DataFrame({"y": y, "c0": proba[:, 0], "c1": proba[:, 1], "c2": proba[:, 2]}).to_csv(path, index=False)
    doc = _evaluate(
        capsys,
        str(path),
        "--task",
        "multiclass",
        "--y-true",
        "y",
        "--y-score",
        "c*",
        "--labels",
        "ant,bee,cow",
    )
    assert doc["metrics"]["log_loss"] == pytest.approx(skm.log_loss(y, proba, labels=list(names)), rel=1e-9)
    pred = names[proba.argmax(axis=1)]
    assert doc["metrics"]["accuracy"] == pytest.approx(skm.accuracy_score(y, pred), rel=1e-12)
    line = _error(
        capsys, str(path), "--task", "multiclass", "--y-true", "y", "--y-score", "c*", "--labels", "ant,bee"
    )
    assert "--labels: expected one label per --y-score column (3), found 2" in line
