"""``streammetrics merge`` / ``show`` (run as ``python -m streammetrics``): results and user errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "streammetrics", *args], capture_output=True, text=True)


@pytest.fixture
def shards(tmp_path):
    """Three workers' F1 (macro) states over slices of one data set, and the data."""
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 3, 300), rng.integers(0, 3, 300)
    paths = []
    for i, s in enumerate((slice(0, 100), slice(100, 100), slice(100, 300))):  # one shard is empty
        path = tmp_path / f"worker-{i}.state"
        sm.F1(average="macro").update(y[s], p[s]).save(path)
        paths.append(str(path))
    return paths, y, p


def test_merge_prints_the_merged_value(shards):
    paths, y, p = shards
    out = run("merge", *paths)
    assert out.returncode == 0, out.stderr
    expected = skm.f1_score(y, p, average="macro")
    first, second = out.stdout.splitlines()
    assert first == "F1  n_samples=300  files=3"
    assert second.startswith("value: ") and float(second.split()[1]) == pytest.approx(expected, rel=1e-12)


def test_merge_json_and_save_state(shards, tmp_path):
    paths, y, p = shards
    merged_path = tmp_path / "merged.state"
    out = run("merge", *paths, "--json", "--save-state", str(merged_path))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["type"] == "F1" and doc["n_samples"] == 300 and doc["files"] == 3
    assert doc["config"]["average"] == "macro"
    assert doc["value"] == pytest.approx(skm.f1_score(y, p, average="macro"), rel=1e-12)
    assert sm.load(merged_path).compute() == pytest.approx(doc["value"], rel=1e-15)


def test_merge_arrays_nan_and_reports_in_json(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    sm.Precision(average=None).update([0, 1, 2], [0, 0, 0]).save(a)
    sm.Precision(average=None).update([1], [0]).save(b)
    assert main(["merge", str(a), str(b), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = skm.precision_score([0, 1, 2, 1], [0, 0, 0, 0], average=None, zero_division=0)
    assert doc["value"] == pytest.approx(expected.tolist())
    assert any("UndefinedMetricWarning" in w for w in doc["warnings"])
    r = tmp_path / "r"
    sm.ClassificationReport().update([0, 1, 1], [0, 1, 0]).save(r)
    assert main(["show", str(r), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["value"]["accuracy"] == pytest.approx(2 / 3)
    sm.MSE().save(tmp_path / "empty")  # an empty state: NaN value -> JSON null, warning listed
    assert main(["merge", str(tmp_path / "empty"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["value"] is None and doc["n_samples"] == 0 and doc["warnings"]


def test_show_describes_the_file(shards):
    paths, _, _ = shards
    out = run("show", paths[0])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"file: {paths[0]} (") and "format version 1, checksum ok" in lines[0]
    assert lines[1].startswith("type: F1(average='macro'")
    assert lines[2] == "F1  n_samples=100"


def user_error(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("streammetrics: error: ")
    assert "Traceback" not in captured.err and captured.out == ""
    return lines[0]


def test_user_errors_are_one_line_with_exit_status_2(shards, tmp_path, capsys):
    paths, _, _ = shards
    raw = open(paths[0], "rb").read()
    (tmp_path / "trunc.state").write_bytes(raw[:-7])
    bad = bytearray(raw)
    bad[-3] ^= 1
    (tmp_path / "corrupt.state").write_bytes(bytes(bad))
    (tmp_path / "text.state").write_text("y_true,y_pred\n" + "0,1\n" * 20)  # a CSV, not a state
    sm.FBeta(beta=2.0).save(tmp_path / "f2.state")
    sm.Recall().save(tmp_path / "recall.state")

    assert "trunc.state: truncated state" in user_error(
        capsys, "merge", paths[0], str(tmp_path / "trunc.state")
    )
    assert "corrupt.state: corrupt state: checksum mismatch" in user_error(
        capsys, "merge", str(tmp_path / "corrupt.state")
    )
    assert "not a streammetrics state" in user_error(capsys, "show", str(tmp_path / "text.state"))
    assert "cannot read" in user_error(capsys, "merge", str(tmp_path / "missing.state"))
    assert "cannot read" in user_error(capsys, "show", str(tmp_path))  # a directory
    msg = user_error(capsys, "merge", str(tmp_path / "f2.state"), paths[0])
    assert "cannot merge" in msg and "F1 into FBeta" in msg
    msg = user_error(
        capsys, "merge", str(tmp_path / "recall.state"), str(tmp_path / "recall.state"), paths[1]
    )
    assert "cannot merge" in msg and "F1 into Recall" in msg
    assert "required: STATE_FILE" in user_error(capsys, "merge")
    assert "expected a command" in user_error(capsys)
    assert "invalid choice" in user_error(capsys, "frobnicate")
    assert "unrecognized arguments" in user_error(capsys, "show", paths[0], "--bogus")


def test_different_configurations_name_the_difference(tmp_path, capsys):
    sm.F1(average="macro").save(tmp_path / "a")
    sm.F1(average="micro").save(tmp_path / "b")
    msg = user_error(capsys, "merge", str(tmp_path / "a"), str(tmp_path / "b"))
    assert "average='macro' vs average='micro'" in msg


def test_subprocess_error_has_no_traceback(tmp_path):
    (tmp_path / "bad.state").write_bytes(sm.Accuracy().to_bytes()[:6])  # a cut-off state
    out = run("merge", str(tmp_path / "bad.state"))
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "Traceback" not in out.stderr
    assert "truncated state" in out.stderr


def test_help_and_version():
    out = run("--help")
    assert out.returncode == 0 and "merge" in out.stdout and "show" in out.stdout
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"streammetrics {sm.__version__}"
